/* Running the profiled target: shared by the collector backends. */
#ifndef PRISM_PROC_H
#define PRISM_PROC_H

#include <sys/types.h>

/* Start argv[0] (searched in PATH unless it names a path) with argv in a process group of
 * its own, its stdout and stderr going to outfd (-1: inherited), and its environment changed
 * by env (NULL, or a NULL-terminated list: "NAME=VALUE" sets NAME, "NAME" removes it).
 * *errfd gets the read end of a close-on-exec pipe for proc_wait_exec (close it after).
 * Returns the pid, or -1 with errno set and nothing left open. */
pid_t proc_spawn(char *const *argv, int outfd, char *const *env, int *errfd);

/* Wait for pid; past timeout_s (0: none) end its process group (TERM, then KILL after 3 s).
 * Fills *status as waitpid does. Returns 1 if it timed out, else 0. */
int proc_wait(pid_t pid, int timeout_s, int *status);

/* After fork: read the child's exec errno from the close-on-exec pipe's read end fd (the
 * child writes it only when exec failed), then wait for the child (no timeout if exec
 * failed). *exec_errno is 0 when exec succeeded. Returns 1 if it timed out, else 0. */
int proc_wait_exec(pid_t pid, int fd, int timeout_s, int *status, int *exec_errno);

/* proc_wait_exec, calling tick(ctx) about every 20 ms while the child runs. */
int proc_wait_exec_tick(pid_t pid, int fd, int timeout_s, int *status, int *exec_errno,
                        void (*tick)(void *), void *ctx);

#endif
