/* Allocation helpers: the arena (src/util/arena.h) and the key blocks of result tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/rtable.h"
#include "util/arena.h"

/* many allocations of mixed sizes keep their contents and alignment */
static void test_arena_contents(void **state)
{
        (void)state;
        struct arena a = ARENA_INIT;
        enum { N = 5000 };
        unsigned char **p = calloc(N, sizeof *p);
        size_t *len = calloc(N, sizeof *len);
        for (size_t i = 0; i < N; i++) {
                len[i] = (i * 7919) % 300; /* 0 .. 299, some larger than a first block half */
                if (i % 997 == 0)
                        len[i] = 40000; /* own blocks */
                p[i] = arena_alloc(&a, len[i]);
                assert_non_null(p[i]);
                assert_int_equal((uintptr_t)p[i] % alignof(max_align_t), 0);
                memset(p[i], (int)(i & 255), len[i]);
        }
        for (size_t i = 0; i < N; i++)
                for (size_t k = 0; k < len[i]; k++)
                        assert_int_equal(p[i][k], i & 255);
        /* (had two overlapped, the later memset would have changed the earlier bytes) */
        size_t blocks = arena_blocks(&a);
        /* about 750 KB: blocks of up to 64 KiB, a few own ones; far fewer than N */
        assert_true(blocks >= 10 && blocks < 40);
        arena_free(&a);
        assert_int_equal(arena_blocks(&a), 0);
        /* usable again */
        char *s = arena_strdup(&a, "again");
        assert_string_equal(s, "again");
        arena_free(&a);
        free(p);
        free(len);
}

static void test_arena_strings(void **state)
{
        (void)state;
        struct arena a;
        arena_init(&a, 64);
        char *s[100];
        char buf[32];
        for (int i = 0; i < 100; i++) {
                snprintf(buf, sizeof buf, "name-%d", i);
                s[i] = arena_strdup(&a, buf);
        }
        for (int i = 0; i < 100; i++) {
                snprintf(buf, sizeof buf, "name-%d", i);
                assert_string_equal(s[i], buf);
        }
        char *t = arena_strndup(&a, "abcdef", 3);
        assert_string_equal(t, "abc");
        char *e = arena_strdup(&a, "");
        assert_string_equal(e, "");
        /* a zeroed allocation is zero, also after the arena's blocks were written */
        unsigned char *z = arena_zalloc(&a, 500);
        for (int i = 0; i < 500; i++)
                assert_int_equal(z[i], 0);
        arena_free(&a);
}

/* a small user of an arena costs one block; the first block's size is the one asked */
static void test_arena_small(void **state)
{
        (void)state;
        struct arena a = ARENA_INIT;
        for (int i = 0; i < 20; i++)
                arena_alloc(&a, 16);
        assert_int_equal(arena_blocks(&a), 1);
        arena_free(&a);
        arena_init(&a, 256);
        for (int i = 0; i < 20; i++)
                arena_alloc(&a, 16); /* 20 * 16 > 256: a second block, of 512 */
        assert_int_equal(arena_blocks(&a), 2);
        for (int i = 0; i < 25; i++)
                arena_alloc(&a, 16);
        assert_int_equal(arena_blocks(&a), 2);
        /* a large request takes a block of its own behind the newest, which stays in use */
        arena_alloc(&a, 100000);
        assert_int_equal(arena_blocks(&a), 3);
        arena_alloc(&a, 16);
        assert_int_equal(arena_blocks(&a), 3);
        arena_free(&a);
        /* the first request of an arena may be a large one */
        arena_init(&a, 0);
        memset(arena_alloc(&a, 200000), 1, 200000);
        assert_int_equal(arena_blocks(&a), 1);
        memset(arena_alloc(&a, 10), 2, 10);
        assert_int_equal(arena_blocks(&a), 2);
        arena_free(&a);
}

/* key len of the smap test, its last byte the c-th letter ("" once, for c 0); 0: skip */
static int smap_test_key(char *k, int len, int c)
{
        if (!len && c)
                return 0;
        memset(k, 'x', (size_t)len);
        if (len)
                k[len - 1] = (char)('a' + c);
        k[len] = 0;
        return 1;
}

/* smap: keys of every length up to 40 that differ only in their last bytes (the hash reads
 * the tail of a key apart from its 8-byte words) */
static void test_smap_keys(void **state)
{
        (void)state;
        struct smap m = {0};
        char k[48];
        int n = 0;
        for (int len = 0; len <= 40; len++)
                for (int c = 0; c < 26; c++) {
                        if (!smap_test_key(k, len, c))
                                continue;
                        smap_put(&m, k, n++);
                }
        assert_int_equal(m.len, (size_t)n);
        n = 0;
        for (int len = 0; len <= 40; len++)
                for (int c = 0; c < 26; c++) {
                        if (!smap_test_key(k, len, c))
                                continue;
                        int v = -1;
                        assert_true(smap_get(&m, k, &v));
                        assert_int_equal(v, n++);
                }
        assert_false(smap_get(&m, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxa", NULL));
        assert_false(smap_get(&m, "ax", NULL));
        smap_free(&m);
}

/* smap_add puts only a new key (its copy returned, a present one left with its value);
 * smap_put returns its copy too; copies stay where they are as the map grows; a reserved
 * map does not grow for as many keys */
static void test_smap_add(void **state)
{
        (void)state;
        struct smap m = {0};
        char k[32];
        const char *copy[600];
        smap_reserve(&m, 600);
        size_t cap = m.cap;
        for (int i = 0; i < 600; i++) {
                snprintf(k, sizeof k, "key%d", i);
                copy[i] = smap_add(&m, k, i);
                assert_non_null(copy[i]);
                assert_ptr_not_equal(copy[i], k);
                assert_string_equal(copy[i], k);
        }
        assert_int_equal(m.cap, cap);
        assert_int_equal(m.len, 600);
        for (int i = 0; i < 600; i++) {
                snprintf(k, sizeof k, "key%d", i);
                assert_null(smap_add(&m, k, -5)); /* there: unchanged */
                int v = -1;
                assert_true(smap_get(&m, k, &v));
                assert_int_equal(v, i);
                assert_ptr_equal(smap_put(&m, k, i + 1), copy[i]);
                assert_true(smap_get(&m, k, &v));
                assert_int_equal(v, i + 1);
        }
        for (int i = 600; i < 5000; i++) { /* grown past the reserve */
                snprintf(k, sizeof k, "key%d", i);
                assert_non_null(smap_add(&m, k, i));
        }
        assert_true(m.cap > cap);
        assert_string_equal(copy[0], "key0");
        assert_string_equal(copy[599], "key599");
        assert_int_equal(m.len, 5000);
        smap_free(&m);
}

static char id11[] = "1.1";
/* a caller's buffer as the first block: no malloc until it is full, never freed */
static void test_arena_buf(void **state)
{
        (void)state;
        union {
                max_align_t align;
                char b[1024];
        } buf;
        struct arena a;
        arena_init_buf(&a, &buf, sizeof buf);
        char *first = arena_alloc(&a, 100);
        assert_true(first > buf.b && first < buf.b + sizeof buf.b);
        for (int i = 0; i < 8; i++)
                arena_strdup(&a, "in the buffer");
        assert_int_equal(arena_blocks(&a), 1);
        char *out = arena_alloc(&a, 900); /* no room left: a malloc'd block */
        assert_true(out < buf.b || out >= buf.b + sizeof buf.b);
        memset(out, 7, 900);
        assert_int_equal(arena_blocks(&a), 2);
        memset(first, 1, 100);
        arena_free(&a); /* frees the second block only (ASan and valgrind would see more) */
        assert_int_equal(arena_blocks(&a), 0);
        /* reused after arena_free: plain malloc'd blocks, the buffer no longer */
        char *again = arena_strdup(&a, "x");
        assert_true(again < buf.b || again >= buf.b + sizeof buf.b);
        arena_free(&a);
}

static const struct panel_table dummy_pt = {.id = id11};

static size_t key_blocks(const struct rtable *t)
{
        return t->nkblk;
}

/* a three-row table holds its keys in one small block; a large one in blocks that grow to
 * 64 KiB, not one block a row */
static void test_rtable_keys(void **state)
{
        (void)state;
        struct rtable t;
        rtable_init(&t, NULL, &dummy_pt, "index", 0, rtable_titles(NULL, 0));
        rtable_add_row(&t, "1.1.0", "m.a#0");
        rtable_add_row(&t, "1.1.1", "m.b#0");
        rtable_add_row(&t, "1.1.2", NULL);
        assert_int_equal(t.nrows, 3);
        assert_string_equal(t.keys[0], "1.1.0");
        assert_string_equal(t.rkeys[1], "m.b#0");
        assert_ptr_equal(t.rkeys[2], t.keys[2]);
        assert_int_equal(key_blocks(&t), 1);
        assert_true(t.kbsz <= 1024);
        rtable_free(&t);

        rtable_init(&t, NULL, &dummy_pt, "index", 0, rtable_titles(NULL, 0));
        char k[32], r[32];
        enum { ROWS = 200000 };
        for (int i = 0; i < ROWS; i++) {
                snprintf(k, sizeof k, "%d", i);
                snprintf(r, sizeof r, "row-%d", i);
                rtable_add_row(&t, k, r);
        }
        for (int i = 0; i < ROWS; i += 997) {
                snprintf(k, sizeof k, "%d", i);
                snprintf(r, sizeof r, "row-%d", i);
                assert_string_equal(t.keys[i], k);
                assert_string_equal(t.rkeys[i], r);
        }
        /* about 2.5 MB of keys: blocks of at most 64 KiB after the first few */
        assert_int_equal(t.kbsz, 65536);
        assert_true(key_blocks(&t) > 30 && key_blocks(&t) < 60);
        /* a key longer than a block gets a block of its size */
        char *big = malloc(100000);
        memset(big, 'x', 99999);
        big[99999] = 0;
        rtable_add_row(&t, big, NULL);
        assert_string_equal(t.keys[ROWS], big);
        free(big);
        rtable_free(&t);
}

/* rows identified by a cell's text and an occurrence (the dispatch list): no text kept per
 * row, the identity "TEXT#k" built on demand, keys and cells as rtable_add_row's */
static void test_rtable_occ(void **state)
{
        (void)state;
        struct rtable t;
        const char *cols[] = {"Dispatch_ID", "Kernel_Name"};
        rtable_init(&t, NULL, &dummy_pt, "index", 2, rtable_titles(cols, 2));
        enum { ROWS = 100000 };
        char k[32];
        for (int i = 0; i < ROWS; i++) {
                snprintf(k, sizeof k, "%d", i);
                struct cell *row = rtable_add_row_occ(&t, k, 1, (unsigned)(i / 3));
                row[0].v = i;
                row[1].text = rtable_pool_text(&t, i % 3 ? "kern_b(int)" : "kern_a");
        }
        assert_int_equal(t.nrows, ROWS);
        assert_null(t.rkeys);
        struct strbuf sb = {0};
        for (int i = 0; i < ROWS; i += 331) {
                char want[64];
                snprintf(want, sizeof want, "%s#%d", i % 3 ? "kern_b(int)" : "kern_a", i / 3);
                snprintf(k, sizeof k, "%d", i);
                assert_string_equal(rtable_rkey(&t, (size_t)i, &sb), want);
                assert_string_equal(t.keys[i], k);
                assert_true(t.cells[i * 2].v == i);
        }
        /* 0.6 MB of keys for 100,000 rows (with the identities as texts: 1.8 MB, 35 blocks) */
        assert_true(key_blocks(&t) < 20);
        rtable_free(&t);
        /* a table of rtable_add_row rows answers with its rkeys */
        rtable_init(&t, NULL, &dummy_pt, "index", 0, rtable_titles(NULL, 0));
        rtable_add_row(&t, "1", "m.a#0");
        assert_string_equal(rtable_rkey(&t, 0, &sb), "m.a#0");
        rtable_free(&t);
        sb_free(&sb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_arena_contents),
            cmocka_unit_test(test_arena_strings),
            cmocka_unit_test(test_arena_small),
            cmocka_unit_test(test_arena_buf),
            cmocka_unit_test(test_smap_keys),
            cmocka_unit_test(test_smap_add),
            cmocka_unit_test(test_rtable_keys),
            cmocka_unit_test(test_rtable_occ),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
