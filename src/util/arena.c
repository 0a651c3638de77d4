/* The arena (arena.h): blocks chained newest first, each beginning with a pointer to the
 * one before. */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define LINK (sizeof(char *))

void arena_init(struct arena *a, size_t first)
{
        memset(a, 0, sizeof *a);
        a->next = first;
}

void arena_init_buf(struct arena *a, void *buf, size_t size)
{
        memset(a, 0, sizeof *a);
        if (size < 2 * LINK) {
                a->next = 0;
                return;
        }
        a->blk = a->user = buf;
        *(char **)a->blk = NULL;
        a->used = LINK;
        a->cap = size;
        a->next = size < ARENA_MAX_BLOCK / 2 ? size * 2 : ARENA_MAX_BLOCK;
}

static char *aligned(char *p, size_t align)
{
        return (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
}

/* A request larger than half a block gets a block of its own, put behind the newest one
 * so that what is left of the newest is still used. */
static void *own_block(struct arena *a, size_t n, size_t align)
{
        size_t need = LINK + align - 1 + n;
        char *b = xmalloc(need);
        if (a->blk) {
                *(char **)b = *(char **)a->blk;
                *(char **)a->blk = b;
        } else {
                *(char **)b = NULL;
                a->blk = b;
                a->used = a->cap = need; /* full: the next request starts a block */
        }
        return aligned(b + LINK, align);
}

void *arena_take_slow(struct arena *a, size_t n, size_t align)
{
        if (a->blk) {
                char *p = aligned(a->blk + a->used, align);
                size_t off = (size_t)(p - a->blk);
                if (off <= a->cap && n <= a->cap - off) {
                        a->used = off + n;
                        return p;
                }
        }
        size_t sz = a->next ? a->next : ARENA_FIRST_BLOCK;
        if (LINK + align - 1 + n > sz / 2)
                return own_block(a, n, align);
        char *b = xmalloc(sz);
        *(char **)b = a->blk;
        a->blk = b;
        a->cap = sz;
        a->next = sz < ARENA_MAX_BLOCK / 2 ? sz * 2 : ARENA_MAX_BLOCK;
        char *p = aligned(b + LINK, align);
        a->used = (size_t)(p - b) + n;
        return p;
}

void *arena_zalloc(struct arena *a, size_t n)
{
        void *p = arena_alloc(a, n);
        memset(p, 0, n ? n : 1);
        return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
        char *p = arena_take(a, n + 1, 1);
        memcpy(p, s, n);
        p[n] = 0;
        return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
        return arena_strndup(a, s, strlen(s));
}

void arena_free(struct arena *a)
{
        while (a->blk) {
                char *prev = *(char **)a->blk;
                if (a->blk != a->user)
                        free(a->blk);
                a->blk = prev;
        }
        a->user = NULL;
        a->used = a->cap = 0;
}

size_t arena_blocks(const struct arena *a)
{
        size_t n = 0;
        for (char *b = a->blk; b; n++)
                b = *(char **)b;
        return n;
}
