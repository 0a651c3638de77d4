/* Waiting for the profiled target with a timeout that ends its whole process group. */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int wait_tick(pid_t pid, int timeout_s, int *status, void (*tick_fn)(void *),
                     void *ctx)
{
        double start = now_s(), term_at = 0;
        const struct timespec nap = {0, 20 * 1000 * 1000};
        for (;;) {
                pid_t r = waitpid(pid, status, WNOHANG);
                if (r == pid)
                        return term_at > 0;
                if (r < 0 && errno != EINTR) {
                        *status = 0;
                        return term_at > 0;
                }
                double t = now_s();
                if (timeout_s > 0 && term_at == 0 && t - start >= timeout_s) {
                        kill(-pid, SIGTERM);
                        term_at = t;
                } else if (term_at > 0 && t - term_at >= 3) {
                        kill(-pid, SIGKILL);
                }
                if (tick_fn)
                        tick_fn(ctx);
                nanosleep(&nap, NULL);
        }
}

int proc_wait(pid_t pid, int timeout_s, int *status)
{
        return wait_tick(pid, timeout_s, status, NULL, NULL);
}

int proc_wait_exec(pid_t pid, int fd, int timeout_s, int *status, int *exec_errno)
{
        return proc_wait_exec_tick(pid, fd, timeout_s, status, exec_errno, NULL, NULL);
}

int proc_wait_exec_tick(pid_t pid, int fd, int timeout_s, int *status, int *exec_errno,
                        void (*tick)(void *), void *ctx)
{
        ssize_t got;
        *exec_errno = 0;
        do
                got = read(fd, exec_errno, sizeof *exec_errno);
        while (got < 0 && errno == EINTR);
        if (got <= 0)
                *exec_errno = 0;
        return wait_tick(pid, *exec_errno ? 0 : timeout_s, status, tick, ctx);
}

pid_t proc_spawn(char *const *argv, int outfd, char *const *env, int *errfd)
{
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0)
                return -1;
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
                int e = errno;
                close(fds[0]);
                close(fds[1]);
                errno = e;
                return -1;
        }
        if (pid == 0) {
                setpgid(0, 0);
                if (outfd >= 0) {
                        dup2(outfd, 1);
                        dup2(outfd, 2);
                }
                int ok = 1;
                for (size_t i = 0; ok && env && env[i]; i++)
                        ok = (strchr(env[i], '=') ? putenv(env[i]) : unsetenv(env[i])) == 0;
                if (ok)
                        execvp(argv[0], argv);
                int e = errno;
                ssize_t w = write(fds[1], &e, sizeof e);
                (void)w;
                _exit(127);
        }
        setpgid(pid, pid);
        close(fds[1]);
        *errfd = fds[0];
        return pid;
}
