/* The store: the projected CSV loader, database write/read round trips (every cell, text
 * and number, bit for bit), projection, several databases at once, bad databases, and
 * multi-rank trees and concatenation. Tables of cases where the cases differ by data. */
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
#include "store/multi.h"
#include "store/table.h"
#include "store/workload.h"

static char tmpdir[] = "/tmp/prism-t-db-XXXXXX";

static char *tpath(const char *name)
{
        return xasprintf("%s/%s", tmpdir, name);
}

static void write_text(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* ---- table_load_csv_cols ---- */

static int want_list(void *ctx, const char *name)
{
        for (const char *const *p = ctx; *p; p++)
                if (!strcmp(*p, name))
                        return 1;
        return 0;
}

struct proj_case {
        const char *csv;
        const char *keep[4];
        size_t cols; /* columns kept */
};

static const struct proj_case proj[] = {
    {"a,b,c\n1,2,3\n4,5,6\n", {"c", "a", NULL}, 2},
    {"a,b,c\n1,x,3\n4,5,\n", {"b", NULL}, 1}, /* text column */
    {"\xEF\xBB\xBF"
     "a,b\r\n1,2\r\n",
     {"a", NULL},
     1},                                                  /* BOM, CRLF */
    {"a,a,b\n1,2,3\n", {"a", "a#1", NULL}, 2},            /* duplicate header */
    {"k,v\n\"q, \"\"x\"\"\",1\n\n2,3\n", {"k", NULL}, 1}, /* quotes, blank line */
    {"a,b\n1,2\n", {"zz", NULL}, 0},                      /* nothing kept */
};

static void test_projection(void **state)
{
        (void)state;
        char *p = tpath("proj.csv");
        for (size_t i = 0; i < sizeof proj / sizeof proj[0]; i++) {
                struct table full, part;
                struct err err = {0};
                write_text(p, proj[i].csv);
                assert_int_equal(table_load_csv(&full, p, &err), 0);
                assert_int_equal(
                    table_load_csv_cols(&part, p, want_list, (void *)proj[i].keep, &err), 0);
                assert_int_equal(part.ncols, proj[i].cols);
                assert_int_equal(part.nrows, full.nrows);
                for (size_t c = 0; c < part.ncols; c++) {
                        int fc = table_col(&full, part.names[c]);
                        assert_true(fc >= 0);
                        for (size_t r = 0; r < part.nrows; r++) {
                                char b1[64], b2[64];
                                assert_memory_equal(&part.num[c][r], &full.num[fc][r],
                                                    sizeof(double));
                                assert_string_equal(table_cell(&part, (int)c, r, b1, sizeof b1),
                                                    table_cell(&full, fc, r, b2, sizeof b2));
                                assert_int_equal(part.str[c] != NULL, full.str[fc] != NULL);
                        }
                }
                table_free(&full);
                table_free(&part);
        }
        /* the same errors, counted against the whole header */
        static const struct {
                const char *csv, *msg;
        } bad[] = {
            {"a,b\n1,2,3\n", ":2: 3 fields, but the header has 2"},
            {"a,b,c\n1,2,3\n4,5\n", ":3: 2 fields, but the header has 3 (truncated"},
            {"", "is empty"},
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                struct table t;
                struct err err = {0};
                static const char *const keep[] = {"a", NULL};
                write_text(p, bad[i].csv);
                assert_int_not_equal(table_load_csv_cols(&t, p, want_list, (void *)keep, &err), 0);
                if (!strstr(err.msg, bad[i].msg))
                        fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].msg);
        }
        unlink(p);
        free(p);
}

/* ---- database round trips ---- */

/* numbers that must survive bit for bit */
static const double nums[] = {0.0,
                              -0.0,
                              1.0,
                              -3.0,
                              0.1,
                              1e300,
                              -1e-300,
                              INFINITY,
                              -INFINITY,
                              NAN,
                              9007199254740993.0,
                              1411551767635712.0,
                              4.5e15,
                              123456789.125};
#define NNUMS (sizeof nums / sizeof nums[0])

static void make_workload(struct workload *w, const char *arch, size_t nrows, double shift)
{
        memset(w, 0, sizeof *w);
        w->path = xstrdup("mem");
        w->arch = xstrdup(arch);
        w->model = xstrdup("MODEL X");
        int c;
        table_add_row(&w->sysinfo);
        c = table_add_col(&w->sysinfo, "gpu_arch");
        table_set_str(&w->sysinfo, c, 0, arch);
        c = table_add_col(&w->sysinfo, "gpu_model");
        table_set_str(&w->sysinfo, c, 0, "MODEL X");
        c = table_add_col(&w->sysinfo, "cu_per_gpu");
        table_set_num(&w->sysinfo, c, 0, 104);
        c = table_add_col(&w->sysinfo, "empty");
        for (size_t r = 0; r < nrows; r++)
                table_add_row(&w->pmc);
        int id = table_add_col(&w->pmc, "Dispatch_ID"), k = table_add_col(&w->pmc, "Kernel_Name"),
            v = table_add_col(&w->pmc, "TCC_HIT[0]"), m = table_add_col(&w->pmc, "MIXED"),
            s = table_add_col(&w->pmc, "Start_Timestamp"),
            e = table_add_col(&w->pmc, "End_Timestamp");
        for (size_t r = 0; r < nrows; r++) {
                char name[64];
                snprintf(name, sizeof name, "kernel<%zu>(int, \"q\")", r % 3);
                w->pmc.num[id][r] = (double)r;
                table_set_str(&w->pmc, k, r, name);
                w->pmc.num[v][r] = nums[r % NNUMS] + shift;
                w->pmc.num[s][r] = 1000.0 * (double)r;
                w->pmc.num[e][r] = 1000.0 * (double)r + 100 + (double)r;
                /* a text column whose numeric cells keep their recorded text */
                if (r % 2) {
                        w->pmc.num[m][r] = 1.5;
                        table_set_str(&w->pmc, m, r, "1.50");
                } else {
                        table_set_str(&w->pmc, m, r, "0x7f");
                }
        }
        w->acc = xcalloc(1, sizeof *w->acc);
        w->acc_names = xcalloc(1, sizeof *w->acc_names);
        w->acc_names[0] = xstrdup("SQ_LEVEL_WAVES");
        w->nacc = 1;
        for (size_t r = 0; r + 1 < nrows; r++) /* one row short: kept as recorded */
                table_add_row(&w->acc[0]);
        c = table_add_col(&w->acc[0], "SQ_LEVEL_WAVES");
        for (size_t r = 0; r + 1 < nrows; r++)
                w->acc[0].num[c][r] = (double)(r * 7) + shift;
        table_add_row(&w->roofline);
        c = table_add_col(&w->roofline, "HBMBw");
        w->roofline.num[c][0] = 1388.93;
        w->has_roofline = 1;
}

/* a: as written, b: as read back. counts: a pass of counts, where the damaged-cell check
 * of the CSV reader applies on reading (a database reads as its directory would): a value
 * that is no count (negative, inf, NaN) but in Kernel_Name reads as n/a */
static void assert_tables_equal_as(const struct table *a, const struct table *b, int counts)
{
        assert_int_equal(a->nrows, b->nrows);
        assert_int_equal(a->ncols, b->ncols);
        for (size_t c = 0; c < a->ncols; c++) {
                assert_string_equal(a->names[c], b->names[c]);
                assert_int_equal(a->str[c] != NULL, b->str[c] != NULL);
                for (size_t r = 0; r < a->nrows; r++) {
                        double x = a->num[c][r], y = b->num[c][r];
                        if (counts && strcmp(a->names[c], "Kernel_Name") &&
                            !(isfinite(x) && x >= 0))
                                x = NAN;
                        if (isnan(x))
                                assert_true(isnan(y));
                        else
                                assert_memory_equal(&x, &y, sizeof x); /* -0.0 too */
                        const char *s = a->str[c] ? a->str[c][r] : NULL;
                        const char *t = b->str[c] ? b->str[c][r] : NULL;
                        assert_int_equal(s != NULL, t != NULL);
                        if (s)
                                assert_string_equal(s, t);
                }
        }
}

static void assert_tables_equal(const struct table *a, const struct table *b)
{
        assert_tables_equal_as(a, b, 0);
}

static void assert_workloads_equal(const struct workload *a, const struct workload *b)
{
        assert_string_equal(a->arch, b->arch);
        assert_string_equal(a->model, b->model);
        assert_tables_equal(&a->sysinfo, &b->sysinfo);
        assert_tables_equal_as(&a->pmc, &b->pmc, 1);
        assert_int_equal(a->nacc, b->nacc);
        for (size_t i = 0; i < a->nacc; i++) {
                assert_string_equal(a->acc_names[i], b->acc_names[i]);
                assert_tables_equal_as(&a->acc[i], &b->acc[i], 1);
        }
        assert_int_equal(a->has_roofline, b->has_roofline);
        assert_tables_equal(&a->roofline, &b->roofline);
}

static void test_roundtrip(void **state)
{
        (void)state;
        static const size_t sizes[] = {1, 2, NNUMS, 3 * NNUMS + 1};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                struct workload w, back;
                struct err err = {0};
                char *db = tpath("rt.db");
                make_workload(&w, "gfx90a", sizes[i], 0);
                struct db_meta_kv kv[] = {{"rank", "3"}};
                assert_int_equal(db_write(db, &w, NULL, kv, 1, 1, &err), 0);
                assert_true(db_is_path(db));
                if (db_open_workload(db, NULL, NULL, &back, &err))
                        fail_msg("%s", err.msg);
                assert_workloads_equal(&w, &back);
                char *v = db_read_meta(db, "rank", &err);
                assert_string_equal(v, "3");
                free(v);
                char *arch = NULL;
                assert_int_equal(db_read_arch(db, &arch, &err), 0);
                assert_string_equal(arch, "gfx90a");
                free(arch);
                /* workload_open dispatches on the database */
                workload_close(&back);
                assert_int_equal(workload_open(db, &back, &err), 0);
                assert_workloads_equal(&w, &back);
                workload_close(&back);
                /* no replacing without asking */
                assert_int_not_equal(db_write(db, &w, NULL, NULL, 0, 0, &err), 0);
                assert_non_null(strstr(err.msg, "exists"));
                workload_close(&w);
                unlink(db);
                free(db);
        }
}

static void test_db_projection(void **state)
{
        (void)state;
        struct workload w, back;
        struct err err = {0};
        char *db = tpath("proj.db");
        static const char *const keep[] = {"TCC_HIT[0]", NULL};
        make_workload(&w, "gfx90a", 5, 0);
        assert_int_equal(db_write(db, &w, NULL, NULL, 0, 1, &err), 0);
        assert_int_equal(db_open_workload(db, want_list, (void *)keep, &back, &err), 0);
        assert_int_equal(back.pmc.ncols, 2); /* TCC_HIT[0] and Kernel_Name, always */
        assert_true(table_col(&back.pmc, "Kernel_Name") >= 0);
        int c = table_col(&back.pmc, "TCC_HIT[0]");
        for (size_t r = 0; r < 5; r++) { /* -3 is no count: n/a, as in the directory */
                double x = w.pmc.num[table_col(&w.pmc, "TCC_HIT[0]")][r];
                if (!(isfinite(x) && x >= 0))
                        assert_true(isnan(back.pmc.num[c][r]));
                else
                        assert_memory_equal(&back.pmc.num[c][r], &x, sizeof(double));
        }
        assert_int_equal(back.acc[0].ncols, 0);   /* projected away, rows kept */
        assert_int_equal(back.roofline.ncols, 1); /* not per-dispatch: never projected */
        workload_close(&back);
        workload_close(&w);
        unlink(db);
        free(db);
}

static void test_open_many(void **state)
{
        (void)state;
        size_t n = db_attach_limit() + 1;
        assert_true(n >= 2);
        char **paths = xcalloc(n, sizeof *paths);
        struct workload *w = xcalloc(n, sizeof *w), *back = xcalloc(n, sizeof *back);
        struct err err = {0};
        for (size_t i = 0; i < n; i++) {
                char name[32];
                snprintf(name, sizeof name, "m%zu.db", i);
                paths[i] = tpath(name);
                make_workload(&w[i], "gfx90a", 3 + i, (double)i);
                assert_int_equal(db_write(paths[i], &w[i], NULL, NULL, 0, 1, &err), 0);
        }
        /* more than SQLite attaches at once is refused; up to the limit works */
        assert_int_not_equal(db_open_many((const char *const *)paths, n, NULL, NULL, back, &err),
                             0);
        assert_non_null(strstr(err.msg, "at once"));
        assert_int_equal(db_open_many((const char *const *)paths, n - 1, NULL, NULL, back, &err),
                         0);
        for (size_t i = 0; i + 1 < n; i++) {
                assert_workloads_equal(&w[i], &back[i]);
                workload_close(&back[i]);
        }
        for (size_t i = 0; i < n; i++) {
                workload_close(&w[i]);
                unlink(paths[i]);
                free(paths[i]);
        }
        free(paths);
        free(w);
        free(back);
}

static void test_bad_databases(void **state)
{
        (void)state;
        char *notdb = tpath("text.db"), *other = tpath("other.db"), *newer = tpath("newer.db");
        char *missing = tpath("missing.db");
        write_text(notdb, "this is not SQLite at all, just a text file of some length\n");
        sqlite3 *db;
        assert_int_equal(sqlite3_open(other, &db), SQLITE_OK);
        assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(db);
        struct workload w;
        struct err err = {0};
        make_workload(&w, "gfx942", 2, 0);
        assert_int_equal(db_write(newer, &w, NULL, NULL, 0, 1, &err), 0);
        workload_close(&w);
        assert_int_equal(sqlite3_open(newer, &db), SQLITE_OK);
        assert_int_equal(sqlite3_exec(db,
                                      "UPDATE meta SET value = '99' WHERE key = "
                                      "'schema_version'",
                                      NULL, NULL, NULL),
                         SQLITE_OK);
        sqlite3_close(db);
        static const struct {
                int which;
                const char *msg;
        } cases[] = {
            {0, "not an SQLite database"},
            {1, "not a prism database"},
            {2, "schema version 99"},
            {3, "no such file"},
        };
        const char *paths[] = {notdb, other, newer, missing};
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                const char *p = paths[cases[i].which];
                assert_int_not_equal(db_open_workload(p, NULL, NULL, &w, &err), 0);
                if (!strstr(err.msg, cases[i].msg) || !strstr(err.msg, p))
                        fail_msg("case %zu: '%s'", i, err.msg);
        }
        /* a .db path is a database, a text file is not (by content) */
        assert_true(db_is_path(missing));
        assert_false(db_is_path(notdb));
        unlink(notdb);
        unlink(other);
        unlink(newer);
        free(notdb);
        free(other);
        free(newer);
        free(missing);
}

/* ---- multi-rank trees ---- */

static void test_append(void **state)
{
        (void)state;
        struct workload a, b, all = {0};
        make_workload(&a, "gfx90a", 3, 0);
        make_workload(&b, "gfx90a", 4, 100);
        /* b has a column a lacks and lacks the accumulate table */
        int x = table_add_col(&b.pmc, "ONLY_B");
        b.pmc.num[x][0] = 42;
        table_free(&b.acc[0]);
        free(b.acc_names[0]);
        b.nacc = 0;
        multi_append(&all, &a, 0, "n0");
        multi_append(&all, &b, 5, "n1");
        assert_int_equal(all.pmc.nrows, 7);
        int cr = table_col(&all.pmc, "Rank"), cn = table_col(&all.pmc, "Node");
        assert_true(cr >= 0 && cn >= 0);
        assert_true(all.pmc.num[cr][2] == 0 && all.pmc.num[cr][3] == 5);
        char buf[64];
        assert_string_equal(table_cell(&all.pmc, cn, 6, buf, sizeof buf), "n1");
        int ob = table_col(&all.pmc, "ONLY_B");
        assert_true(isnan(all.pmc.num[ob][0]) && all.pmc.num[ob][3] == 42);
        /* a's accumulate rows stay at a's dispatches; b's rows are empty */
        assert_int_equal(all.nacc, 1);
        int cw = table_col(&all.acc[0], "SQ_LEVEL_WAVES");
        assert_true(all.acc[0].num[cw][1] == 7);
        assert_true(isnan(all.acc[0].num[cw][2])); /* a was one row short */
        assert_string_equal(all.arch, "gfx90a");
        workload_close(&a);
        workload_close(&b);
        workload_close(&all);
}

static void write_dir_workload(const char *dir, const char *arch, int ndisp)
{
        struct err err = {0};
        assert_int_equal(make_dir(dir, &err), 0);
        char *p = xasprintf("%s/sysinfo.csv", dir);
        char *text = xasprintf("gpu_arch,gpu_model,cu_per_gpu\n%s,MX,104\n", arch);
        write_text(p, text);
        free(text);
        free(p);
        struct strbuf sb = {0};
        sb_add(&sb, "Dispatch_ID,Kernel_Name,GPU_ID,SQ_WAVES,Start_Timestamp,End_Timestamp\n");
        for (int i = 0; i < ndisp; i++)
                sb_addf(&sb, "%d,\"k(%d)\",2,%d,%d,%d\n", i, i % 2, 64 * i, 1000 * i,
                        1000 * i + 50);
        p = xasprintf("%s/pmc_perf.csv", dir);
        write_text(p, sb.buf);
        free(p);
        sb_free(&sb);
}

static void test_tree(void **state)
{
        (void)state;
        struct err err = {0};
        char *root = tpath("tree");
        static const struct {
                const char *rel;
                int ndisp, as_db;
        } ranks[] = {
            {"nodeA/rank0/MX", 2, 0},
            {"nodeA/rank1", 3, 0},     /* workload directly in the rank directory */
            {"nodeB/rank10/MX", 1, 1}, /* a database */
            {"nodeB/rank2/MX", 4, 0},
        };
        for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
                char *d = xasprintf("%s/%s", root, ranks[i].rel);
                write_dir_workload(d, "gfx90a", ranks[i].ndisp);
                if (ranks[i].as_db) {
                        char *db = xasprintf("%s/%s", d, DB_DEFAULT_NAME);
                        assert_int_equal(db_import_dir(d, db, NULL, NULL, 0, 1, NULL, NULL, &err), 0);
                        char *f = xasprintf("%s/pmc_perf.csv", d);
                        unlink(f);
                        free(f);
                        f = xasprintf("%s/sysinfo.csv", d);
                        unlink(f);
                        free(f);
                        free(db);
                }
                free(d);
        }
        char *junk = xasprintf("%s/nodeB/notarank", root);
        assert_int_equal(make_dir(junk, &err), 0);
        free(junk);
        assert_true(multi_is_tree(root));
        struct rank_tree t;
        assert_int_equal(multi_scan(root, &t, &err), 0);
        assert_int_equal(t.n, 4);
        static const long order[] = {0, 1, 2, 10};
        for (size_t i = 0; i < t.n; i++)
                assert_int_equal(t.v[i].rank, order[i]);
        assert_true(t.v[3].is_db);
        multi_free(&t);
        struct workload w;
        if (workload_open(root, &w, &err))
                fail_msg("%s", err.msg);
        assert_int_equal(w.pmc.nrows, 10);
        int cr = table_col(&w.pmc, "Rank");
        assert_true(w.pmc.num[cr][0] == 0 && w.pmc.num[cr][9] == 10);
        char *arch = NULL;
        assert_int_equal(workload_arch(root, &arch, &err), 0);
        assert_string_equal(arch, "gfx90a");
        free(arch);
        workload_close(&w);
        /* the same rank on two nodes, and a second architecture, are errors */
        char *dup = xasprintf("%s/nodeC/rank1/MX", root);
        write_dir_workload(dup, "gfx90a", 1);
        assert_int_not_equal(workload_open(root, &w, &err), 0);
        assert_non_null(strstr(err.msg, "rank 1 was recorded on two nodes"));
        char *dupr = xasprintf("%s/nodeC", root), *cmd = xasprintf("rm -rf '%s'", dupr);
        assert_int_equal(system(cmd), 0);
        free(cmd);
        char *other = xasprintf("%s/nodeC/rank7/MX", root);
        write_dir_workload(other, "gfx942", 1);
        assert_int_not_equal(workload_open(root, &w, &err), 0);
        assert_non_null(strstr(err.msg, "one architecture"));
        free(dup);
        free(dupr);
        free(other);
        free(root);
}

static int setup(void **state)
{
        (void)state;
        warn_quiet = 1;
        return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
        (void)state;
        char *cmd = xasprintf("rm -rf '%s'", tmpdir);
        int rc = system(cmd);
        free(cmd);
        return rc == 0 ? 0 : -1;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_projection),    cmocka_unit_test(test_roundtrip),
            cmocka_unit_test(test_db_projection), cmocka_unit_test(test_open_many),
            cmocka_unit_test(test_bad_databases), cmocka_unit_test(test_append),
            cmocka_unit_test(test_tree),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
