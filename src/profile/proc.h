/* Running the profiled target: shared by the collector backends. */
#ifndef PRISM_PROC_H
#define PRISM_PROC_H

#include <sys/types.h>

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
