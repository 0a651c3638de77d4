/* 2 MiB pages for the first megabytes of a heap (heap.h).
 *
 * A 4 KiB page the kernel maps at its first touch cost 1.3 us on the 2-CPU virtual
 * machine prism is measured on (zeroing and accounting; 1.1 us mapped 2,000 at a time):
 * a one-workload analysis touched ~780 new pages, ~450 on the main thread and ~340 on the
 * task threads, a millisecond of CPU. A 2 MiB page is one fault. Where transparent huge
 * pages are given only on request ("madvise", as there and on many distributions), a
 * heap has to ask, and before the range is touched: a 2 MiB range that already holds a
 * 4 KiB page keeps 4 KiB pages. glibc writes a heap's first page (its own header) before
 * the program can ask, so the heap's allocations are moved past the 2 MiB boundary that
 * follows (a block reserved up to it, never written, kept) into a range asked for while
 * untouched. Only that range: a large run's memory beyond it stays in 4 KiB pages, its
 * resident size is not rounded up to 2 MiB pieces (at most 4 MiB more a heap).
 * Where the heap is not laid out as assumed (another allocator, a sanitizer's, blocks of
 * 2 MiB mapped apart: the caller sets M_MMAP_THRESHOLD above that), nothing is asked, or
 * a hint on a range the program owns anyway. */
#include "heap.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "util.h"

#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE) && \
    UINTPTR_MAX > 0xffffffffu && !PRISM_SANITIZED
#define ACTIVE 1
#else
#define ACTIVE 0
#endif

#define HUGE_PAGE ((uintptr_t)2 << 20)
#define THREAD_HEAP ((uintptr_t)64 << 20) /* glibc aligns a thread's heap to this */
#define THREAD_ASK ((size_t)4 << 20)
#define SLACK ((uintptr_t)8192) /* room below the boundary for the heap's next header */

#if ACTIVE
/* the reserved blocks, reachable from here (a leak checker sees them in use) */
static void *reserved_main, *reserved[16];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
#endif

int heap_prepare_active(void)
{
        return ACTIVE;
}

#if ACTIVE
/* a block from a (a chunk just taken from the heap's top) up to below the 2 MiB boundary
 * past it, so that the heap's next allocation starts near that boundary; NULL where malloc
 * did not place it so (it maps blocks that large apart: M_MMAP_THRESHOLD below 2 MiB) */
static void *reserve_to_boundary(uintptr_t a, uintptr_t *boundary)
{
        *boundary = (a + SLACK + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        char *r = malloc((size_t)(*boundary - a - SLACK));
        if (r && ((uintptr_t)r <= a || (uintptr_t)r >= *boundary)) {
                free(r);
                r = NULL;
        }
        return r;
}
#endif

void heap_main_prepare(size_t bytes)
{
#if ACTIVE
        char *p = malloc(64);
        /* the main heap lies below the program break; prepared once */
        if (!p || (uintptr_t)sbrk(0) <= (uintptr_t)p || reserved_main) {
                free(p);
                return;
        }
        uintptr_t boundary;
        void *r = reserve_to_boundary((uintptr_t)p, &boundary);
        /* the break moved past the boundary (the block is only given a header, at its
         * start, below the boundary; the next header lands at its end, above the range) */
        char *big = r ? malloc(bytes) : NULL;
        if (big && (uintptr_t)big < boundary) {
                uintptr_t hi = ((uintptr_t)big + bytes) & ~(HUGE_PAGE - 1);
                if (hi > boundary)
                        madvise((void *)boundary, hi - boundary, MADV_HUGEPAGE);
                free(big);
        }
        reserved_main = r;
        free(p);
#else
        (void)bytes;
#endif
}

void heap_thread_prepare(void)
{
#if ACTIVE
        char *p = malloc(64);
        if (!p)
                return;
        uintptr_t a = (uintptr_t)p, base = a & ~(THREAD_HEAP - 1);
        /* not the main heap, and still in the thread heap's first 2 MiB (a heap handed on
         * by an ended thread has its allocations past them already) */
        if ((uintptr_t)sbrk(0) > a || a >= base + HUGE_PAGE - 2 * SLACK) {
                free(p);
                return;
        }
        pthread_mutex_lock(&mu);
        size_t slot = 0;
        while (slot < sizeof reserved / sizeof reserved[0] && reserved[slot])
                slot++;
        int room = slot < sizeof reserved / sizeof reserved[0];
        if (room)
                reserved[slot] = p; /* taken (p itself is freed below) */
        pthread_mutex_unlock(&mu);
        if (!room) {
                free(p);
                return;
        }
        uintptr_t boundary;
        void *r = reserve_to_boundary(a, &boundary);
        /* glibc maps a thread's heap whole, inaccessible past what it made writable: the
         * request holds for the range as the heap grows into it */
        if (r && boundary == base + HUGE_PAGE)
                madvise((void *)boundary, THREAD_ASK, MADV_HUGEPAGE);
        pthread_mutex_lock(&mu);
        reserved[slot] = r; /* NULL: the slot is free again */
        pthread_mutex_unlock(&mu);
        free(p);
#endif
}
