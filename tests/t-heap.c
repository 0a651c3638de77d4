/* util/heap.c (with M_MMAP_THRESHOLD set as analyze sets it): a heap's next allocations land past the 2 MiB boundary that follows its
 * first page, in a range the kernel was asked to back with 2 MiB pages (VmFlags "hg" in
 * /proc/self/smaps), on a new thread's heap and on the main heap; a second call on the
 * main heap does nothing more; memory so placed reads back what was written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/heap.h"
#include "util/util.h"

#define MIB ((uintptr_t)1 << 20)

/* the VmFlags line of the mapping that holds a, or "" */
static void flags_of(uintptr_t a, char *out, size_t n)
{
        FILE *f = fopen("/proc/self/smaps", "r");
        char line[512];
        int in = 0;
        out[0] = 0;
        while (f && fgets(line, sizeof line, f)) {
                unsigned long lo, hi;
                if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
                        in = a >= lo && a < hi;
                else if (in && !strncmp(line, "VmFlags:", 8)) {
                        snprintf(out, n, "%s", line + 8);
                        break;
                }
        }
        if (f)
                fclose(f);
}

/* the flag, where the kernel has transparent huge pages at all (else 1: nothing to see) */
static int asked(uintptr_t a)
{
        FILE *t = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
        if (!t)
                return 1;
        fclose(t);
        char fl[512];
        flags_of(a, fl, sizeof fl);
        return strstr(fl, " hg") != NULL;
}

/* a sanitizer's allocator, or no glibc on Linux: heap_*_prepare do nothing there */
static int expect_inactive(void)
{
#if !defined(__GLIBC__) || !defined(__linux__)
        return 1;
#else
        return PRISM_SANITIZED;
#endif
}

struct seen {
        uintptr_t before, after;
        int hg_after;
        int ok;
};

static void *thread_main(void *p)
{
        struct seen *s = p;
        char *b = malloc(64); /* the thread's heap, before */
        s->before = (uintptr_t)b;
        free(b);
        heap_thread_prepare();
        char *q = malloc(100000);
        s->after = (uintptr_t)q;
        s->hg_after = asked((uintptr_t)q + 50000);
        memset(q, 0x5a, 100000);
        s->ok = q[0] == 0x5a && q[99999] == 0x5a;
        free(q);
        return NULL;
}

static void test_thread_heap(void **state)
{
        (void)state;
        struct seen s = {0};
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, thread_main, &s), 0);
        pthread_join(th, NULL);
        assert_true(s.ok);
        if (!heap_prepare_active()) {
                assert_true(expect_inactive()); /* only where heap.h says so */
                return;
        }
        uintptr_t base = s.before & ~(64 * MIB - 1);
        /* before: inside the heap's first 2 MiB; after: past them, in the asked range */
        assert_true(s.before < base + 2 * MIB);
        assert_true(s.after >= base + 2 * MIB - 16384);
        assert_true(s.after < base + 6 * MIB);
        assert_true(s.hg_after);
        assert_true(s.ok);
}

static void test_main_heap(void **state)
{
        (void)state;
        char *b = malloc(64);
        uintptr_t before = (uintptr_t)b;
        free(b);
        heap_main_prepare(6 * MIB);
        char *q = malloc(100000);
        uintptr_t after = (uintptr_t)q;
        if (!heap_prepare_active()) {
                assert_true(expect_inactive());
                free(q);
                return;
        }
        uintptr_t boundary = (before + 8192 + 2 * MIB - 1) & ~(2 * MIB - 1);
        assert_true(after >= boundary - 16384 && after < boundary + 4 * MIB);
        assert_true(asked(after + 50000));
        memset(q, 0x33, 100000);
        assert_int_equal(q[99999], 0x33);
        free(q);
        /* once: a second call reserves nothing more */
        heap_main_prepare(6 * MIB);
        char *r = malloc(64);
        assert_true((uintptr_t)r < boundary + 4 * MIB);
        free(r);
}

int main(void)
{
        /* as analyze sets it: blocks up to 64 MiB from the heap */
        mallopt(M_MMAP_THRESHOLD, 64 << 20);
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_thread_heap),
            cmocka_unit_test(test_main_heap),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
