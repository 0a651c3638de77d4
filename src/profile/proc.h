/* Running the profiled target: shared by the collector backends. */
#ifndef PRISM_PROC_H
#define PRISM_PROC_H

#include <sys/types.h>

/* Wait for pid; past timeout_s (0: none) end its process group (TERM, then KILL after 3 s).
 * Fills *status as waitpid does. Returns 1 if it timed out, else 0. */
int proc_wait(pid_t pid, int timeout_s, int *status);

#endif
