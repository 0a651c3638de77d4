/* src/util/task.c: a task runs exactly once, on its thread or in task_join (or
 * task_run_here) when the thread has not begun it; its result comes back; its warnings are held, in order, until
 * task_warnings, and never mix with the caller's held ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../src/util/task.h"

struct job {
        int runs; /* atomic */
        int n;
};

static int job(void *p)
{
        struct job *j = p;
        __atomic_add_fetch(&j->runs, 1, __ATOMIC_RELAXED);
        warnf("job %d first", j->n);
        warnf("job %d second", j->n);
        return j->n % 7;
}

static void test_once_and_result(void **state)
{
        (void)state;
        setenv("PRISM_THREADS", "2", 1);
        for (int i = 0; i < 300; i++) {
                struct job j = {0, i};
                struct task t;
                struct strbuf mine = {0};
                warn_hold(&mine);
                task_start(&t, job, &j);
                if (i % 3 == 0) /* sometimes the caller works a little first */
                        for (volatile int k = 0; k < 1000 * (i % 5); k++)
                                ;
                warnf("caller %d", i);
                assert_int_equal(task_join(&t), i % 7);
                warn_hold(NULL);
                assert_int_equal(__atomic_load_n(&j.runs, __ATOMIC_RELAXED), 1);
                char want[128];
                snprintf(want, sizeof want,
                         "prism: warning: job %d first\nprism: warning: job %d second\n", i, i);
                assert_non_null(t.warnings.buf);
                assert_string_equal(t.warnings.buf, want);
                snprintf(want, sizeof want, "prism: warning: caller %d\n", i);
                assert_string_equal(mine.buf, want);
                sb_free(&mine);
                sb_free(&t.warnings);
        }
}

static void test_one_thread(void **state)
{
        (void)state;
        setenv("PRISM_THREADS", "1", 1);
        assert_int_equal(task_workers(), 1);
        struct job j = {0, 5};
        struct task t;
        task_start(&t, job, &j);
        assert_int_equal(t.started, 0); /* ran in task_start */
        assert_int_equal(j.runs, 1);
        assert_int_equal(task_join(&t), 5);
        assert_int_equal(j.runs, 1);
        sb_free(&t.warnings);
        unsetenv("PRISM_THREADS");
}

/* a job that says it began, then waits to be let go */
struct held_job {
        int begun, go; /* atomic */
};

static int held(void *p)
{
        struct held_job *h = p;
        __atomic_store_n(&h->begun, 1, __ATOMIC_RELEASE);
        while (!__atomic_load_n(&h->go, __ATOMIC_ACQUIRE))
                ;
        return 3;
}

/* task_run_here: 0 while the task's thread has it, 1 once it ran here (exactly once) */
static void test_run_here(void **state)
{
        (void)state;
        setenv("PRISM_THREADS", "2", 1);
        struct held_job h = {0, 0};
        struct task t;
        if (task_workers() > 1) { /* (one CPU: no second thread) */
                task_start(&t, held, &h);
                assert_int_equal(t.started, 1);
                while (!__atomic_load_n(&h.begun, __ATOMIC_ACQUIRE))
                        ;
                assert_int_equal(task_run_here(&t), 0); /* the thread has it, still running */
                __atomic_store_n(&h.go, 1, __ATOMIC_RELEASE);
                assert_int_equal(task_join(&t), 3);
                sb_free(&t.warnings);
        }
        for (int i = 0; i < 300; i++) {
                struct job j = {0, i};
                task_start(&t, job, &j);
                int here = task_run_here(&t);
                if (here) /* then it is done, here */
                        assert_int_equal(__atomic_load_n(&j.runs, __ATOMIC_RELAXED), 1);
                assert_int_equal(task_join(&t), i % 7);
                assert_int_equal(__atomic_load_n(&j.runs, __ATOMIC_RELAXED), 1);
                sb_free(&t.warnings);
        }
        setenv("PRISM_THREADS", "1", 1);
        struct job j = {0, 4};
        task_start(&t, job, &j);
        assert_int_equal(task_run_here(&t), 1); /* ran in task_start */
        assert_int_equal(j.runs, 1);
        assert_int_equal(task_join(&t), 4);
        sb_free(&t.warnings);
        unsetenv("PRISM_THREADS");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_once_and_result),
            cmocka_unit_test(test_one_thread),
            cmocka_unit_test(test_run_here),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
