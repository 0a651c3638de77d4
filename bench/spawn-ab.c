/* Start-up timing with little of the harness in it: each command is started with
 * posix_spawn (no shell, no fork of a large process), its output to /dev/null, and timed
 * from the spawn to its exit; two commands take turns run by run, so that a change of the
 * machine's load falls on both. Prints median, first quartile and minimum in ms.
 * Usage: spawn-ab N cmd-A args... [-- cmd-B args...]   (bench/startup.sh builds and runs it) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static int cmp(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

static double run(char **av, const posix_spawn_file_actions_t *fa)
{
        struct timespec a, b;
        pid_t pid;
        int st;
        clock_gettime(CLOCK_MONOTONIC, &a);
        if (posix_spawnp(&pid, av[0], fa, NULL, av, environ)) {
                perror(av[0]);
                exit(2);
        }
        waitpid(pid, &st, 0);
        clock_gettime(CLOCK_MONOTONIC, &b);
        return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

static void report(const char *name, double *t, int n, const char *cmd)
{
        qsort(t, (size_t)n, sizeof *t, cmp);
        printf("%s median %.2f ms  p25 %.2f  min %.2f  (%d runs: %s)\n", name, t[n / 2],
               t[n / 4], t[0], n, cmd);
}

int main(int argc, char **argv)
{
        if (argc < 3) {
                fprintf(stderr, "usage: spawn-ab N cmd-A args... [-- cmd-B args...]\n");
                return 2;
        }
        int n = atoi(argv[1]);
        if (n < 1)
                n = 1;
        char **a = argv + 2, **b = NULL;
        for (int i = 2; i < argc; i++)
                if (!strcmp(argv[i], "--")) {
                        argv[i] = NULL;
                        b = i + 1 < argc ? argv + i + 1 : NULL;
                        break;
                }
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        double *ta = malloc((size_t)n * sizeof *ta), *tb = malloc((size_t)n * sizeof *tb);
        if (!ta || !tb)
                return 2;
        for (int i = 0; i < n; i++) {
                ta[i] = run(a, &fa);
                if (b)
                        tb[i] = run(b, &fa);
        }
        report("A", ta, n, a[0]);
        if (b)
                report("B", tb, n, b[0]);
        free(ta);
        free(tb);
        return 0;
}
