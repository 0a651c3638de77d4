/* The first megabytes of a heap in 2 MiB pages (heap.c). */
#ifndef PRISM_HEAP_H
#define PRISM_HEAP_H

#include <stddef.h>

/* The main heap (the program's first thread, once): its next `bytes` (less up to 2 MiB
 * for alignment) asked to be backed by 2 MiB pages, the heap's allocations moved there.
 * Acts only where malloc takes blocks of 2 MiB and more from its heap (M_MMAP_THRESHOLD
 * set above that, as analyze does). */
void heap_main_prepare(size_t bytes);
/* The same, first thing on a new thread that glibc gave a heap of its own (a thread heap
 * handed on by a thread that ended was prepared then): its next 4 MiB. */
void heap_thread_prepare(void);
/* Whether heap_*_prepare act in this build on this system (glibc, Linux, 64 bits, no
 * sanitizer's allocator); for tests */
int heap_prepare_active(void);

#endif
