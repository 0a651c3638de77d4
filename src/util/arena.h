/* An arena: many small allocations carved from a few large blocks and freed together
 * (arena_free), for what is built once and dropped as a whole (a formula's nodes, an
 * architecture's names and texts). Not shared between threads: each structure owns its
 * own arena, so two threads building two structures need no lock. Memory from an arena
 * is never freed alone: a text replaced by another stays in the arena until arena_free. */
#ifndef PRISM_ARENA_H
#define PRISM_ARENA_H

#include <stddef.h>

struct arena {
        char *blk;       /* the newest block: a link to the one before, then the data */
        size_t used, cap; /* bytes of blk taken (the link included), its size */
        size_t next;      /* the size of the next block (0: ARENA_FIRST_BLOCK; doubles up
                           * to ARENA_MAX_BLOCK) */
        char *user;       /* the caller's first block (arena_init_buf), never freed here */
};

/* the size of the first block of an arena that was zeroed (or ARENA_INIT), and the
 * largest block size the doubling reaches; a larger request gets a block of its own */
#define ARENA_FIRST_BLOCK 1024
#define ARENA_MAX_BLOCK 65536
#define ARENA_INIT {0}

/* An arena whose first block is `first` bytes (0: ARENA_FIRST_BLOCK); no allocation yet. */
void arena_init(struct arena *a, size_t first);
/* An arena whose first block is the caller's buf of size bytes (aligned for any type, a
 * stack buffer for a short-lived arena): nothing is malloc'd until it is full, and
 * arena_free frees every block but buf. */
void arena_init_buf(struct arena *a, void *buf, size_t size);
/* n bytes aligned for any type (max_align_t), uninitialized; never NULL (aborts when
 * memory is out, as xmalloc does). */
static inline void *arena_alloc(struct arena *a, size_t n);
/* the same, zeroed */
void *arena_zalloc(struct arena *a, size_t n);
/* copies of texts, not aligned */
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* Free every block; the arena is empty (and usable) afterwards. */
void arena_free(struct arena *a);
/* arena_take when the newest block has no room: a new block (arena.c) */
void *arena_take_slow(struct arena *a, size_t n, size_t align);

/* n bytes at an offset aligned to align (a power of two) in the newest block when they fit
 * there (the common case, inline), else from a new block */
static inline void *arena_take(struct arena *a, size_t n, size_t align)
{
        if (a->blk) {
                size_t off = (a->used + align - 1) & ~(align - 1); /* blocks are aligned */
                if (off <= a->cap && n <= a->cap - off) {
                        a->used = off + n;
                        return a->blk + off;
                }
        }
        return arena_take_slow(a, n, align);
}

static inline void *arena_alloc(struct arena *a, size_t n)
{
        return arena_take(a, n ? n : 1, _Alignof(max_align_t));
}

/* The number of blocks held (the mallocs made; for tests and measurements). */
size_t arena_blocks(const struct arena *a);

#endif
