/* A second thread for independent steps, its warnings held for an ordered print. */
#include "task.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *trampoline(void *p)
{
        struct task *t = p;
        warn_hold(&t->warnings);
        t->rc = t->fn(t->arg);
        warn_hold(NULL);
        return NULL;
}

void task_start(struct task *t, int (*fn)(void *), void *arg)
{
        t->fn = fn;
        t->arg = arg;
        t->rc = 0;
        t->joined = 0;
        t->warnings = (struct strbuf){0};
        t->started = task_workers() > 1 && pthread_create(&t->th, NULL, trampoline, t) == 0;
        if (!t->started) { /* same result, this thread's time */
                struct strbuf *outer = warn_held();
                trampoline(t);
                warn_hold(outer);
        }
}

int task_join(struct task *t)
{
        if (t->started && !t->joined)
                pthread_join(t->th, NULL);
        t->joined = 1;
        return t->rc;
}

void task_warnings(struct task *t)
{
        warn_release(&t->warnings);
        sb_free(&t->warnings);
}

void warn_release(struct strbuf *sb)
{
        if (sb->len)
                fwrite(sb->buf, 1, sb->len, stderr);
        sb_reset(sb);
}

int task_workers(void)
{
        const char *e = getenv("PRISM_THREADS");
        if (e && e[0] == '1' && !e[1])
                return 1;
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n >= 2 ? 2 : 1;
}
