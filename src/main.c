/* prism entry point: global options and the table of subcommands, nothing else. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/yamldoc.h"
#include "util/util.h"

#include "cmds.h"

struct subcommand {
        const char *name;
        int (*fn)(int argc, char **argv);
        const char *summary;
};

static const struct subcommand commands[] = {
        {"analyze", cmd_analyze, "evaluate and show the panels of a workload"},
        {"profile", cmd_profile, "run an application once per counter pass and record a workload"},
        {"roofline", cmd_roofline, "measure the empirical roofline ceilings of this GPU"},
        {"database", cmd_database, "import a workload directory into a SQLite store"},
        {"check-data", cmd_check_data, "check metrics/ and panels/ for every architecture"},
};

static void usage(FILE *f)
{
        fprintf(f, "usage: prism [--version] COMMAND [ARGS]\n\ncommands:\n");
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
        fprintf(f, "\n'prism COMMAND --help' shows a command's options\n");
}

/* An optional part is there when its file is beside the binary or in ../lib/prism. */
static void print_part(const char *what, const char *file)
{
        const char *dir = exe_dir();
        char *a = dir ? xasprintf("%s/%s", dir, file) : NULL;
        char *b = dir ? xasprintf("%s/../lib/prism/%s", dir, file) : NULL;
        const char *where = a && is_file(a) ? a : b && is_file(b) ? b : NULL;
        printf("%-34s %s\n", what, where ? "yes" : "no (not built)");
        free(a);
        free(b);
}

/* analyze writes its report at the end: into a file, a pipe or /dev/null 64 KiB at a time,
 * not in stdio's 4 KiB pieces. Not to a terminal (line by line), nor where stderr goes into
 * the same file or pipe: a warning or an error then falls among the report's lines where it
 * did. (profile's progress is not held back: only analyze.) */
static void analyze_stdout(void)
{
        struct stat so, se;
        if (isatty(STDOUT_FILENO) || fstat(STDOUT_FILENO, &so) != 0)
                return;
        if (fstat(STDERR_FILENO, &se) == 0 && so.st_dev == se.st_dev &&
            so.st_ino == se.st_ino && !S_ISCHR(so.st_mode))
                return;
        static char outbuf[1 << 16];
        setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
}

/* Whatever a command wrote to standard output must have been written: a full disk, a
 * closed pipe or /dev/full is an error (exit 2), not a lost report with exit 0. */
static int out_done(int rc)
{
        if (fflush(stdout) != 0 || ferror(stdout)) {
                int e = errno ? errno : EIO;
                if (!rc || rc == 130)
                        fprintf(stderr, "prism: cannot write to standard output: %s\n",
                                strerror(e));
                return 2;
        }
        return rc;
}

static int run(int argc, char **argv);

int main(int argc, char **argv)
{
        return out_done(run(argc, argv));
}

static int run(int argc, char **argv)
{
        ydoc_use_pack(ypack_docs, ypack_ndocs);
        if (argc < 2) {
                usage(stderr);
                return 2;
        }
        const char *name = argv[1];
        if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
                printf("prism %s\n", PRISM_VERSION);
                print_part("collector library (NVIDIA profile)", "libprism-cupti.so");
                print_part("roofline benchmarks, CUDA", "prism-roofline-cuda");
                print_part("roofline benchmarks, HIP", "prism-roofline-hip");
                return 0;
        }
        if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
                usage(stdout);
                return 0;
        }
        if (!strcmp(name, "help")) {
                if (argc < 3) {
                        usage(stdout);
                        return 0;
                }
                name = argv[2];
                char *hargv[] = {argv[2], "--help", NULL};
                for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                        if (!strcmp(name, commands[i].name))
                                return commands[i].fn(2, hargv);
        }
        if (!strcmp(name, "analyze"))
                analyze_stdout();
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                if (!strcmp(name, commands[i].name))
                        return commands[i].fn(argc - 1, argv + 1);
        fprintf(stderr, "prism: unknown command '%s' (see 'prism --help')\n", name);
        return 2;
}
