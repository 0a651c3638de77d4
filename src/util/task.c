/* A second thread for independent steps, its warnings held for an ordered print. */
#include "task.h"
#include "heap.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Run t's function here unless the other side took it first (1: ran it). Either the new
 * thread or task_join runs it, exactly once: a thread the scheduler starts late costs no
 * more than doing the work on the caller's thread. */
static int take_and_run(struct task *t)
{
        if (__atomic_exchange_n(&t->taken, 1, __ATOMIC_ACQ_REL))
                return 0;
        struct strbuf *outer = warn_hold(&t->warnings);
        t->rc = t->fn(t->arg);
        warn_hold(outer);
        return 1;
}

static void *trampoline(void *p)
{
        heap_thread_prepare();
        take_and_run(p);
        return NULL;
}

/* A new thread is queued on its creator's CPU and may wait there until the creator blocks
 * (seen on a 2-CPU virtual machine: idle as the other CPU was, the thread started only when
 * the caller joined it). It runs on the CPUs other than the caller's, so that it starts
 * right away where one is idle and the two do not end up sharing one CPU (letting it move
 * once started made the median run 0.5 ms slower there: the scheduler put both threads on
 * one CPU now and then). A task not begun when joined runs on the caller's. */
static int create(struct task *t)
{
        pthread_attr_t attr;
        if (pthread_attr_init(&attr))
                return 0;
        cpu_set_t others;
        int cpu = sched_getcpu();
        if (cpu >= 0 && sched_getaffinity(0, sizeof others, &others) == 0 &&
            CPU_ISSET(cpu, &others) && CPU_COUNT(&others) >= 2) {
                CPU_CLR(cpu, &others);
                pthread_attr_setaffinity_np(&attr, sizeof others, &others);
        }
        int ok = pthread_create(&t->th, &attr, trampoline, t) == 0;
        pthread_attr_destroy(&attr);
        return ok;
}

void task_start(struct task *t, int (*fn)(void *), void *arg)
{
        t->fn = fn;
        t->arg = arg;
        t->rc = 0;
        t->joined = 0;
        t->taken = 0;
        t->warnings = (struct strbuf){0};
        t->started = task_workers() > 1 && create(t);
        if (!t->started) /* same result, this thread's time */
                take_and_run(t);
}

int task_run_here(struct task *t)
{
        return !t->started || take_and_run(t);
}

int task_join(struct task *t)
{
        if (t->started && !t->joined) {
                take_and_run(t); /* not begun yet: done here instead of waiting for it */
                pthread_join(t->th, NULL);
        }
        t->joined = 1;
        return t->rc;
}

void task_warnings(struct task *t)
{
        warn_release(&t->warnings);
}

void warn_release(struct strbuf *sb)
{
        if (sb->len)
                fwrite(sb->buf, 1, sb->len, stderr);
        sb_free(sb);
}

int task_workers(void)
{
        const char *e = getenv("PRISM_THREADS");
        if (e && e[0] == '1' && !e[1])
                return 1;
        /* the CPUs this process may run on (taskset, cgroups' cpusets), not all online */
        cpu_set_t cpus;
        long n = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus)
                                                                : sysconf(_SC_NPROCESSORS_ONLN);
        return n >= 2 ? 2 : 1;
}
