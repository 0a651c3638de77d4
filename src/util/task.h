/* Work on a second thread, with its warnings held back.
 * prism's report must not depend on which thread finished first: a task's warnings go to a
 * buffer and are printed when the caller says (task_warnings), in the order a one-thread
 * run would have printed them. The calling thread can hold its own warnings the same way
 * (warn_hold / warn_release). */
#ifndef PRISM_TASK_H
#define PRISM_TASK_H

#include "util.h"

#include <pthread.h>

struct task {
        int (*fn)(void *arg);
        void *arg;
        int rc;
        int started; /* 1: a thread was started; 0: ran in task_start (no thread could start) */
        int joined;
        int taken;   /* set by whichever of the thread and task_join runs fn (atomic) */
        pthread_t th;
        struct strbuf warnings; /* "prism: warning: ...\n" lines, in order */
};

/* Run fn(arg) on a new thread (or at once on this one: one worker, task_workers, or no
 * thread could be started). */
void task_start(struct task *t, int (*fn)(void *), void *arg);
/* Run t here now if its thread has not begun it (1: t is done, here or by task_start);
 * 0: its thread has it (then its function may be partway through). */
int task_run_here(struct task *t);
/* Wait for t, or run it here if its thread has not begun it yet; returns fn's result.
 * Its warnings stay held until task_warnings. */
int task_join(struct task *t);
/* Print t's held warnings to stderr and forget them (after task_join). */
void task_warnings(struct task *t);

/* Print sb's held warnings to stderr and free it. */
void warn_release(struct strbuf *sb);

/* How many threads a parallel step may use: the CPUs this process may run on, at most 2;
 * 1 when $PRISM_THREADS=1 (for comparing with the one-thread path). */
int task_workers(void);

#endif
