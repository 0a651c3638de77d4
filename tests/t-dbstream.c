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
        /* more than two 64 KiB pages hold: a chain of overflow pages */
        char *longname = xmalloc(140001);
        memset(longname, 'k', 140000);
        longname[140000] = '\0';
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
                    "UPDATE pmc_perf SET \"B\" = '12abc' WHERE dispatch = 9000;");
        check_same(p, 0);
        check_same(p, 1);
        /* such a cell is n/a, whichever way it is read (SQLite would make 'abc' 0 and
         * '12abc' 12) */
        struct workload w;
        struct err err = {0};
        if (db_open_workload(p, NULL, NULL, &w, &err))
                fail_msg("%s", err.msg);
        int ca = table_col(&w.pmc, "A"), cb = table_col(&w.pmc, "B");
        assert_true(isnan(w.pmc.num[ca][5]) && isnan(w.pmc.num[cb][4097]) &&
                    isnan(w.pmc.num[cb][9000]));
        assert_string_equal(w.pmc.str[cb][9000], "12abc");
        workload_close(&w);
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

/* path fails to open, in memory, streamed by pages and streamed by SQL, with an error
 * naming it and holding what */
/* the streamed reading's error, on one thread (its check, then its pages) or two (the
 * check beside the reading, db_read.c): the same either way */
static int open_streamed(const char *path, int one, struct workload *w, struct err *err)
{
        if (one)
                setenv("PRISM_THREADS", "1", 1);
        int rc = db_open_streamed(path, keep_ids, NULL, NULL, NULL, w, err);
        unsetenv("PRISM_THREADS");
        return rc;
}

static void check_fails(const char *path, const char *what)
{
        char two[sizeof ((struct err *)0)->msg] = "";
        for (int mode = 0; mode < 4; mode++) {
                struct workload w;
                struct err err = {0};
                if (mode == 2)
                        setenv("PRISM_DB_SQL", "1", 1);
                int rc = mode ? open_streamed(path, mode == 3, &w, &err)
                              : db_open_workload(path, NULL, NULL, &w, &err);
                unsetenv("PRISM_DB_SQL");
                if (!rc) {
                        workload_close(&w);
                        fail_msg("mode %d: %s opens", mode, path);
                }
                if (!strstr(err.msg, path) || !strstr(err.msg, what))
                        fail_msg("mode %d: '%s' (wanted '%s')", mode, err.msg, what);
                if (mode == 1)
                        snprintf(two, sizeof two, "%s", err.msg);
                if (mode == 3)
                        assert_string_equal(two, err.msg);
        }
}

/* a pass's rows are 0 .. nrows - 1, each once: a row missing, renumbered or repeated, or
 * a recorded count that is not the table's, is an error (it was a phantom dispatch of
 * n/a values); metadata that is NULL is an error, never a crash */
static void test_rows(void **state)
{
        (void)state;
        static const struct {
                const char *sql, *what;
        } cases[] = {
            {"DELETE FROM pmc_perf WHERE dispatch = 9", "records 10000 rows but its table"},
            {"DELETE FROM SQ_LEVEL_WAVES WHERE dispatch BETWEEN 4000 AND 4200",
             "records 9999 rows"},
            {"UPDATE pmc_perf SET dispatch = 20000 WHERE dispatch = 9", "row 9 is missing"},
            {"UPDATE passes SET nrows = 1000000000000000 WHERE name = 'pmc_perf'",
             "records 1000000000000000 rows"},
            {"UPDATE passes SET nrows = 'many' WHERE name = 'pmc_perf'", "row count"},
            {"ALTER TABLE pmc_perf RENAME TO old; CREATE TABLE pmc_perf AS SELECT * FROM old; "
             "DROP TABLE old; UPDATE pmc_perf SET dispatch = 8 WHERE dispatch = 9",
             "row 9 is missing"},
            {"ALTER TABLE pmc_perf RENAME TO old; CREATE TABLE pmc_perf AS SELECT * FROM old; "
             "DROP TABLE old; UPDATE pmc_perf SET dispatch = '9x' WHERE dispatch = 9",
             "row 9 is missing"},
            {"CREATE TABLE x AS SELECT * FROM passes; DROP TABLE passes; "
             "ALTER TABLE x RENAME TO passes; UPDATE passes SET kind = NULL",
             "without its kind"},
            {"CREATE TABLE x AS SELECT * FROM passes; DROP TABLE passes; "
             "ALTER TABLE x RENAME TO passes; UPDATE passes SET name = NULL",
             "without its name"},
            {"CREATE TABLE x AS SELECT * FROM pass_columns; DROP TABLE pass_columns; "
             "ALTER TABLE x RENAME TO pass_columns; UPDATE pass_columns SET col = NULL "
             "WHERE pos = 2",
             "without its name, table or table column"},
            {"UPDATE pass_columns SET counter_id = 99999 WHERE pos = 2",
             "without its name, table or table column"},
            {"UPDATE pass_columns SET counter_id = (SELECT counter_id FROM pass_columns WHERE "
             "pass_id = 0 AND pos = 2) WHERE pass_id = 0 AND pos = 3",
             "twice in pass 0"},
            {"DROP VIEW wide_sysinfo; CREATE TABLE x AS SELECT * FROM sysinfo; DROP TABLE "
             "sysinfo; ALTER TABLE x RENAME TO sysinfo; UPDATE sysinfo SET field = NULL",
             "no field name"},
            {"DROP VIEW wide_sysinfo; CREATE TABLE x AS SELECT * FROM sysinfo; DROP TABLE "
             "sysinfo; ALTER TABLE x RENAME TO sysinfo; INSERT INTO sysinfo SELECT pos + 100, "
             "field, 'x', text FROM sysinfo WHERE field = 'gpu_arch'",
             "sysinfo field 'gpu_arch' twice"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                char *p = xasprintf("%s/r%zu.db", dir, i);
                make_db(p);
                sql_exec(p, cases[i].sql);
                check_fails(p, cases[i].what);
                unlink(p);
                free(p);
        }
}

static uint32_t be32(const unsigned char *b);

/* the three readings agree: each fails (naming the file), or all hold the same values */
static void check_agree(const char *path)
{
        struct workload w;
        struct err err = {0};
        if (db_open_workload(path, NULL, NULL, &w, &err) == 0) {
                workload_close(&w);
                check_same(path, 0);
                check_same(path, 1);
                return;
        }
        assert_non_null(strstr(err.msg, path));
        check_fails(path, "");
}

static void put_file(const char *path, const unsigned char *img, size_t size)
{
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(img, 1, size, f), size);
        assert_int_equal(fclose(f), 0);
}

static unsigned char *get_file(const char *path, size_t *size)
{
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        *size = (size_t)ftell(f);
        unsigned char *img = xmalloc(*size);
        fseek(f, 0, SEEK_SET);
        assert_int_equal(fread(img, 1, *size, f), *size);
        fclose(f);
        return img;
}

/* A log beside a database whose header says rollback: SQLite applies it, so the pages
 * are not read from the file; a looping chain of overflow pages: the file's pages are not
 * trusted, SQLite decides. Either way the three readings agree. */
static void test_sidefiles(void **state)
{
        (void)state;
        char *p = xasprintf("%s/s.db", dir), *wal = xasprintf("%s/s.db-wal", dir);
        make_db(p);
        sqlite3 *db;
        assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
        sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
        assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA "
                                          "wal_autocheckpoint = 0; UPDATE pmc_perf SET \"B\" "
                                          "= 7 WHERE dispatch < 5000",
                                      NULL, NULL, NULL),
                         SQLITE_OK);
        sqlite3_close(db);
        assert_int_equal(access(wal, F_OK), 0);
        size_t size;
        unsigned char *img = get_file(p, &size);
        img[18] = img[19] = 1; /* the header says rollback */
        put_file(p, img, size);
        free(img);
        check_agree(p);
        struct workload w;
        struct err err = {0};
        if (db_open_streamed(p, keep_ids, NULL, NULL, NULL, &w, &err) == 0) {
                /* the log's values, not the file's */
                int b = table_col(spill_head(w.spill, 0), "B");
                double v[SPILL_CHUNK];
                size_t n = 0;
                assert_int_equal(spill_read(w.spill, 0, 0, b, v, &n), 0);
                assert_true(n > 100 && v[100] == 7);
                workload_close(&w);
        }
        unlink(wal);
        unlink(p);
        /* an overflow chain whose first page points back to itself */
        make_db(p);
        img = get_file(p, &size);
        const size_t ps = 65536;
        int looped = 0;
        for (size_t pg = 1; pg < size / ps; pg++) {
                unsigned char *b = img + pg * ps;
                if (be32(b) && b[4] == 'k' && b[5000] == 'k' && b[ps - 1] == 'k') {
                        uint32_t self = (uint32_t)pg + 1;
                        b[0] = (unsigned char)(self >> 24), b[1] = (unsigned char)(self >> 16);
                        b[2] = (unsigned char)(self >> 8), b[3] = (unsigned char)self;
                        looped++;
                }
        }
        assert_true(looped > 0);
        put_file(p, img, size);
        free(img);
        /* SQLite reads it as garbage without a word; its quick_check finds it */
        check_fails(p, "database disk image is malformed (table 'pmc_perf'");
        unlink(p);
        free(p);
        free(wal);
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
                struct err err = {0}, err1 = {0};
                int rc1 = open_streamed(q, 1, &ws, &err1);
                if (rc1 == 0)
                        workload_close(&ws);
                int rc = open_streamed(q, 0, &ws, &err);
                assert_int_equal(rc, rc1);
                assert_string_equal(err.msg, err1.msg);
                if (rc == 0)
                        workload_close(&ws);
                else if (!strstr(err.msg, q))
                        fail_msg("trial %d: '%s'", trial, err.msg);
                else if (trial == 0 && !strstr(err.msg, "malformed"))
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

/* the spill's whole-number test (which narrows a block to 1, 2 or 4 bytes a value): AVX2
 * and the byte-by-byte loop agree on every block, and the values and bits they give are
 * the doubles' own; blocks of 1 to 70 values (the vector tail), one odd value placed
 * anywhere: a fraction, -0.0, a negative, 2^32 and 2^32 - 1, NaN, inf, 2^52 + 1 */
static void test_whole32(void **state)
{
        (void)state;
        static const double odd[] = {0.5, -0.0, -1.0, 4294967296.0, 4294967295.0, NAN,
                                     INFINITY, 4503599627370497.0, 1e-300, 255.0, 65536.0,
                                     4294967295.5, -4503599627370496.0};
        double v[70];
        uint32_t u1[70], u2[70], b1, b2;
        unsigned long long r = 0x9E3779B97F4A7C15ULL;
        int whole = 0, not_whole = 0;
        for (int k = 0; k < 30000; k++) {
                size_t n = 1 + (size_t)(k % 70);
                for (size_t i = 0; i < n; i++) {
                        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
                        v[i] = (double)((r >> 20) % (k % 3 == 0 ? 256 : k % 3 == 1 ? 70000 : 4294967296ULL));
                }
                if (k % 2)
                        v[(r >> 7) % n] = odd[(r >> 40) % (sizeof odd / sizeof *odd)];
                b1 = b2 = 7;
                int a = vcode_whole32(v, n, u1, &b1, 0), b = vcode_whole32(v, n, u2, &b2, 1);
                assert_int_equal(a, b);
                if (!a) {
                        not_whole++;
                        continue;
                }
                whole++;
                uint32_t bits = 0;
                for (size_t i = 0; i < n; i++) {
                        assert_true((double)u1[i] == v[i] && !signbit(v[i]));
                        assert_int_equal(u1[i], u2[i]);
                        bits |= u1[i];
                }
                assert_int_equal(b1, bits);
                assert_int_equal(b2, bits);
        }
        assert_true(whole > 10000 && not_whole > 5000);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_same),
            cmocka_unit_test(test_rows),
            cmocka_unit_test(test_sidefiles),
            cmocka_unit_test(test_damaged),
            cmocka_unit_test(test_whole32),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
