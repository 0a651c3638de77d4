/* A database streamed into the spill (db_open_streamed) holds exactly what the in-memory
 * reading (db_open_workload) holds: every value of every pass bit for bit, the texts of the
 * columns kept in memory, the rows' counts. Both ways of reading a pass are checked: the
 * file's pages decoded directly (db_pages.c) and SQL (PRISM_DB_SQL), on a workload with
 * interior b-tree pages, kernel names on overflow pages, every integer width, -0.0, inf,
 * NaN, text columns with numbers; then with cells prism never writes (text in a counter
 * column, a blob, a number in a text column), a missing row, a table whose rowid is not
 * its row number, a WAL database, and damaged pages (an error naming the file, never a
 * crash). */
/* cmocka needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/db.h"
#include "store/workload.h"
#include "store/wstream.h"

static char *dir;

static const double nums[] = {0.0,   -0.0,  1.0,     -3.0,    0.1,    1e300, -1e-300,
                              INFINITY, NAN, 100,    30000,   8e6,    2e9,   -2e9,
                              1e12,  1e17,  9007199254740993.0, 4.5e15, 123456789.125};
#define NNUMS (sizeof nums / sizeof nums[0])
#define NROWS 10000

static void make_db(const char *path)
{
        struct workload w;
        struct err err = {0};
        memset(&w, 0, sizeof w);
        w.path = xstrdup("mem");
        w.arch = xstrdup("gfx90a");
        w.model = xstrdup("MI210");
        table_add_row(&w.sysinfo);
        int c = table_add_col(&w.sysinfo, "gpu_arch");
        table_set_str(&w.sysinfo, c, 0, "gfx90a");
        for (size_t r = 0; r < NROWS; r++)
                table_add_row(&w.pmc);
        int id = table_add_col(&w.pmc, "Dispatch_ID"), k = table_add_col(&w.pmc, "Kernel_Name"),
            a = table_add_col(&w.pmc, "A"), m = table_add_col(&w.pmc, "MIXED"),
            b = table_add_col(&w.pmc, "B");
        char *longname = xmalloc(70001); /* more than a 64 KiB page holds: overflow pages */
        memset(longname, 'k', 70000);
        longname[70000] = '\0';
        for (size_t r = 0; r < NROWS; r++) {
                char name[64];
                snprintf(name, sizeof name, "kernel<%zu>(int, \"q\")", r % 7);
                w.pmc.num[id][r] = (double)r;
                table_set_str(&w.pmc, k, r, r % 997 == 5 ? longname : name);
                w.pmc.num[a][r] = nums[r % NNUMS];
                w.pmc.num[b][r] = (double)(r * r);
                if (r % 3 == 1) { /* a text column: numbers keep their text */
                        w.pmc.num[m][r] = 1.5;
                        table_set_str(&w.pmc, m, r, "1.50");
                } else if (r % 3 == 2) {
                        table_set_str(&w.pmc, m, r, r % 11 ? "0x7f" : ""); /* '' is no NULL */
                }
        }
        free(longname);
        w.acc = xcalloc(1, sizeof *w.acc);
        w.acc_names = xcalloc(1, sizeof *w.acc_names);
        w.acc_names[0] = xstrdup("SQ_LEVEL_WAVES");
        w.nacc = 1;
        for (size_t r = 0; r + 1 < NROWS; r++) /* a row short */
                table_add_row(&w.acc[0]);
        c = table_add_col(&w.acc[0], "SQ_LEVEL_WAVES");
        for (size_t r = 0; r + 1 < NROWS; r++)
                w.acc[0].num[c][r] = (double)(r * 7) - 3;
        if (db_write(path, &w, NULL, NULL, 0, 1, &err))
                fail_msg("%s", err.msg);
        workload_close(&w);
}

static int keep_ids(void *ctx, const char *name)
{
        (void)ctx;
        return !strcmp(name, "Dispatch_ID") || !strcmp(name, "MIXED") ||
               !strcmp(name, "Kernel_Name");
}

static void same_num(double x, double y, const char *what, size_t r)
{
        if (isnan(x) ? !isnan(y) : memcmp(&x, &y, sizeof x))
                fail_msg("%s row %zu: %.17g, streamed %.17g", what, r, x, y);
}

/* the spill's table ti against ref, value by value */
static void same_spill(const struct workload *ws, size_t ti, const struct table *ref)
{
        const struct table *h = spill_head(ws->spill, ti);
        assert_non_null(h);
        assert_int_equal(h->ncols, ref->ncols);
        assert_int_equal(spill_rows(ws->spill, ti), ref->nrows);
        double *v = xmalloc(SPILL_CHUNK * sizeof *v);
        for (size_t c = 0; c < h->ncols; c++) {
                assert_string_equal(h->names[c], ref->names[c]);
                size_t r0 = 0, n;
                for (size_t k = 0; spill_block_rows(ws->spill, ti, k); k++, r0 += n) {
                        assert_int_equal(spill_read(ws->spill, ti, k, (int)c, v, &n), 0);
                        for (size_t j = 0; j < n; j++)
                                same_num(ref->num[c][r0 + j], v[j], h->names[c], r0 + j);
                }
                assert_int_equal(r0, ref->nrows);
        }
        free(v);
}

/* path streamed (by pages, or by SQL) = path in memory */
static void check_same(const char *path, int sql)
{
        struct workload ref, ws;
        struct err err = {0};
        if (db_open_workload(path, NULL, NULL, &ref, &err))
                fail_msg("%s", err.msg);
        if (sql)
                setenv("PRISM_DB_SQL", "1", 1);
        int rc = db_open_streamed(path, keep_ids, NULL, NULL, NULL, &ws, &err);
        unsetenv("PRISM_DB_SQL");
        if (rc)
                fail_msg("%s", err.msg);
        same_spill(&ws, 0, &ref.pmc);
        /* the resident columns: numbers and texts */
        assert_int_equal(ws.pmc.nrows, ref.pmc.nrows);
        assert_true(ws.pmc.ncols >= 2);
        for (size_t c = 0; c < ws.pmc.ncols; c++) {
                int rc2 = table_col(&ref.pmc, ws.pmc.names[c]);
                assert_true(rc2 >= 0);
                for (size_t r = 0; r < ref.pmc.nrows; r++) {
                        same_num(ref.pmc.num[rc2][r], ws.pmc.num[c][r], ws.pmc.names[c], r);
                        const char *s = ref.pmc.str[rc2] ? ref.pmc.str[rc2][r] : NULL;
                        const char *t = ws.pmc.str[c] ? ws.pmc.str[c][r] : NULL;
                        assert_int_equal(s != NULL, t != NULL);
                        if (s)
                                assert_string_equal(s, t);
                }
        }
        assert_int_equal(ws.nacc, ref.nacc);
        for (size_t i = 0; i < ref.nacc; i++) {
                assert_string_equal(ws.acc_names[i], ref.acc_names[i]);
                assert_int_equal(ws.acc[i].nrows, ref.acc[i].nrows);
                same_spill(&ws, 1 + i, &ref.acc[i]);
        }
        workload_close(&ref);
        workload_close(&ws);
}

static void sql_exec(const char *path, const char *sql)
{
        sqlite3 *db;
        assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
        if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
                fail_msg("%s: %s", sql, sqlite3_errmsg(db));
        sqlite3_close(db);
}

static void test_same(void **state)
{
        (void)state;
        char *p = xasprintf("%s/w.db", dir);
        make_db(p);
        check_same(p, 0);
        check_same(p, 1);
        /* what prism never writes: SQL reads those rows, with its conversions */
        sql_exec(p, "UPDATE pmc_perf SET \"A\" = 'abc' WHERE dispatch = 5;"
                    "UPDATE pmc_perf SET \"B\" = x'0102' WHERE dispatch = 4097;"
                    "UPDATE pmc_perf SET \"Kernel_Name\" = 42 WHERE dispatch = 6;"
                    "UPDATE pmc_perf SET \"MIXED\" = 2.5 WHERE dispatch = 8;"
                    "DELETE FROM pmc_perf WHERE dispatch = 9;"
                    "DELETE FROM SQ_LEVEL_WAVES WHERE dispatch BETWEEN 4000 AND 4200;");
        check_same(p, 0);
        check_same(p, 1);
        /* a table whose rowid is not its row number: SQL reads it (rows stored backwards) */
        char *q = xasprintf("%s/w2.db", dir);
        make_db(q);
        sql_exec(q, "ALTER TABLE pmc_perf RENAME TO old;"
                    "CREATE TABLE pmc_perf AS SELECT * FROM old ORDER BY dispatch DESC;"
                    "DROP TABLE old");
        check_same(q, 0);
        unlink(q);
        free(q);
        /* a WAL database: its pages may be in the log, so SQL reads it */
        sql_exec(p, "PRAGMA journal_mode = WAL; UPDATE pmc_perf SET \"B\" = -7 WHERE "
                    "dispatch < 100");
        check_same(p, 0);
        unlink(p);
        free(p);
}

static uint32_t be32(const unsigned char *b)
{
        return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* damaged pages of the pass tables: an error naming the file, or (where the damage is in
 * no value read) the workload; never a crash (the sanitizer run checks reads) */
static void test_damaged(void **state)
{
        (void)state;
        char *p = xasprintf("%s/d.db", dir), *q = xasprintf("%s/d2.db", dir);
        make_db(p);
        sqlite3 *db;
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
        assert_int_equal(sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_master WHERE name "
                                                "= 'pmc_perf'", -1, &st, NULL),
                         SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        long root = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        sqlite3_close(db);
        FILE *f = fopen(p, "rb");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        unsigned char *img = xmalloc((size_t)size);
        fseek(f, 0, SEEK_SET);
        assert_int_equal(fread(img, 1, (size_t)size, f), (size_t)size);
        fclose(f);
        const long ps = 65536;
        assert_int_equal(img[(root - 1) * ps], 5); /* an interior page: rows on leaves */
        srand(17);
        for (int trial = 0; trial < 60; trial++) {
                unsigned char *cp = xmalloc((size_t)size);
                memcpy(cp, img, (size_t)size);
                /* trial 0: the root's first child is no b-tree page; then random bytes */
                long leaf = (long)be32(cp + (root - 1) * ps + ((cp[(root - 1) * ps + 12] << 8) |
                                                               cp[(root - 1) * ps + 13]));
                if (trial == 0) {
                        cp[(leaf - 1) * ps] = 0x42;
                } else {
                        long pg = root + rand() % (size / ps - root);
                        for (int i = 0; i < 1 + trial % 8; i++)
                                cp[pg * ps - 1 - rand() % ps] = (unsigned char)rand();
                }
                f = fopen(q, "wb");
                assert_non_null(f);
                assert_int_equal(fwrite(cp, 1, (size_t)size, f), (size_t)size);
                fclose(f);
                free(cp);
                struct workload ws;
                struct err err = {0};
                if (db_open_streamed(q, keep_ids, NULL, NULL, NULL, &ws, &err) == 0)
                        workload_close(&ws);
                else if (!strstr(err.msg, q))
                        fail_msg("trial %d: '%s'", trial, err.msg);
                else if (trial == 0 && !strstr(err.msg, "damaged database"))
                        fail_msg("a damaged leaf: '%s'", err.msg);
        }
        free(img);
        unlink(p);
        unlink(q);
        free(p);
        free(q);
}

static int setup(void **state)
{
        (void)state;
        warn_quiet = 1;
        dir = xstrdup("/tmp/prism-t-dbstream-XXXXXX");
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
        (void)state;
        char *cmd = xasprintf("rm -rf '%s'", dir);
        int rc = system(cmd);
        free(cmd);
        free(dir);
        return rc == 0 ? 0 : -1;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_same),
            cmocka_unit_test(test_damaged),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
