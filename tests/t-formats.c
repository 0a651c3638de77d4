/* Workload layouts (src/store/formats.c, rocpd.c; docs/FORMATS.md): detection of each layout
 * and of mixed or unknown ones, rocpd's grouping into dispatches, csv_stream, the recorded
 * 3.1+ directories of ../shared/rocprof-workloads-3.3 when present, and the probe of a
 * workload path with the loads that follow it (src/store/probe.c, workload.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/workload.h"
#include "store/db.h"
#include "store/formats.h"
#include "store/csvpipe.h"
#include "store/probe.h"
#include "tmpfiles.h"

static void rmdir_all(char *dir)
{
        char *cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        free(cmd);
        free(dir);
}

#define SYSINFO                                                                                \
        "version,gpu_series,gpu_model,gpu_arch,gpu_chip_id,max_sclk,num_hbm_channels\n"         \
        "3,MI300,MI300X_A1,gfx942,29857,2100,128\n"

/* a wide pmc_perf.csv as rocprof-compute 3.0 and prism write it */
#define WIDE                                                                                   \
        "Dispatch_ID,Kernel_Name,Start_Timestamp,End_Timestamp,SQ_WAVES\n"                      \
        "0,k,100,160,64\n"

/* rocpd's long layout: two dispatches, rows out of order. Dispatch 7 on GPU 5 has durations
 * 10 and 31 (median 20.5); dispatch 3 on GPU 2 has 21, 40 and 10 (median 21), its first
 * timestamps past 2^53, where a double would be off by one. Counter A of dispatch 3 comes
 * twice with other values: the last (5) counts. X_ACCUM makes the accumulate table X. */
#define LONG_HEAD                                                                              \
        "GPU_ID,Dispatch_ID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,Scratch_Per_Workitem,"   \
        "Arch_VGPR,Accum_VGPR,SGPR,Kernel_Name,Start_Timestamp,End_Timestamp,Kernel_ID,"        \
        "Counter_Name,Counter_Value\n"
#define LONG_ROWS                                                                              \
        "5,7,256,64,0,0,8,0,16,\"k2(int, int)\",1000,1010,4,A,2.0\n"                             \
        "2,3,1024,256,0,0,4,4,16,k1,13386742234691895,13386742234691916,12,A,1.0\n"            \
        "2,3,1024,256,0,0,4,4,16,k1,100,140,12,B,7\n"                                          \
        "5,7,256,64,0,0,8,0,16,\"k2(int, int)\",2000,2031,4,X_ACCUM,9\n"                         \
        "2,3,1024,256,0,0,4,4,16,k1,200,210,12,A,5\n"                                          \
        "2,3,1024,256,0,0,4,4,16,k1,300,310,12,X_ACCUM,11\n"                                   \
        "2,3,1024,256,0,0,4,4,16,k1,300,310,12,X,3\n"
#define LONG LONG_HEAD LONG_ROWS

/* an accumulate file: named after a counter among its columns, its value beside it */
#define ACCUM                                                                                  \
        "Dispatch_ID,Kernel_Name,SQ_LEVEL_WAVES,ACC\n"                                          \
        "0,k,3,11\n"

static double cell(const struct table *t, const char *col, size_t row)
{
        int c = table_col(t, col);
        assert_true(c >= 0);
        assert_true(row < t->nrows);
        return t->num[c][row];
}

static void test_rocpd_grouping(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-t-formats");
        put(d, "sysinfo.csv", SYSINFO);
        put(d, "profiling_config.yaml", "format_rocprof_output: rocpd\nname: t\n");
        /* with the out-of-order median rows: dispatch 3's durations are 21, 40, 10, 10, 10 */
        put(d, "pmc_perf.csv", LONG);
        struct workload w;
        struct err err = {0};
        warn_quiet = 1;
        assert_int_equal(workload_open(d, &w, &err), 0);
        warn_quiet = 0;
        const struct table *t = &w.pmc;
        assert_int_equal(t->nrows, 2);
        /* ordered by Dispatch_ID, renumbered from 0 */
        assert_true(cell(t, "Dispatch_ID", 0) == 0 && cell(t, "Dispatch_ID", 1) == 1);
        char buf[64];
        assert_string_equal(table_cell(t, table_col(t, "Kernel_Name"), 0, buf, sizeof buf), "k1");
        assert_string_equal(table_cell(t, table_col(t, "Kernel_Name"), 1, buf, sizeof buf),
                            "k2(int, int)");
        /* GPU ids ranked: 2 -> 0, 5 -> 1 */
        assert_true(cell(t, "GPU_ID", 0) == 0 && cell(t, "GPU_ID", 1) == 1);
        assert_true(cell(t, "Grid_Size", 0) == 1024 && cell(t, "Workgroup_Size", 1) == 64);
        assert_true(cell(t, "Kernel_ID", 0) == 12 && cell(t, "Arch_VGPR", 1) == 8);
        /* the last of two values; a counter a dispatch lacks is n/a */
        assert_true(cell(t, "A", 0) == 5 && cell(t, "A", 1) == 2);
        assert_true(cell(t, "B", 0) == 7 && isnan(cell(t, "B", 1)));
        /* durations: median of 21, 40, 10, 10, 10 is 10; of 10 and 31 is 20.5 */
        assert_true(cell(t, "Start_Timestamp", 0) == 0 && cell(t, "Start_Timestamp", 1) == 0);
        assert_true(cell(t, "End_Timestamp", 0) == 10);
        assert_true(cell(t, "End_Timestamp", 1) == 20.5);
        /* the accumulate table X: X_ACCUM beside pmc's columns, and under the name the
         * architecture gives the accumulated value once it is named */
        assert_int_equal(w.nacc, 1);
        const struct table *x = workload_table(&w, "X");
        assert_non_null(x);
        assert_int_equal(x->nrows, 2);
        assert_true(cell(x, "X_ACCUM", 0) == 11 && cell(x, "X_ACCUM", 1) == 9);
        assert_true(cell(x, "X", 0) == 3 && cell(x, "B", 0) == 7);
        assert_true(table_col(x, "ACC_VALUE") < 0);
        workload_accum_value(&w, "ACC_VALUE");
        assert_true(cell(x, "ACC_VALUE", 0) == 11 && cell(x, "ACC_VALUE", 1) == 9);
        workload_accum_value(&w, NULL);
        assert_true(table_col(&w.pmc, "ACC_VALUE") < 0);
        workload_close(&w);
        rmdir_all(d);
}

/* the median of durations is exact past 2^53: one row of 21 ns */
static void test_rocpd_exact_timestamps(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-t-formats");
        put(d, "sysinfo.csv", SYSINFO);
        put(d, "pmc_perf.csv",
            LONG_HEAD "2,3,1024,256,0,0,4,4,16,k1,13386742234691895,13386742234691916,12,A,1\n");
        struct workload w;
        struct err err = {0};
        assert_int_equal(workload_open(d, &w, &err), 0);
        assert_true(cell(&w.pmc, "End_Timestamp", 0) == 21);
        workload_close(&w);
        rmdir_all(d);
}

/* column projection keeps the wanted counters, Kernel_Name and the *_ACCUM ones */
static int want_a(void *ctx, const char *name)
{
        (void)ctx;
        return !strcmp(name, "A") || !strcmp(name, "End_Timestamp");
}

static void test_rocpd_projection(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-t-formats");
        put(d, "sysinfo.csv", SYSINFO);
        put(d, "pmc_perf.csv", LONG);
        struct workload w;
        struct err err = {0};
        warn_quiet = 1;
        assert_int_equal(workload_open_cols(d, want_a, NULL, &w, &err), 0);
        warn_quiet = 0;
        assert_true(table_col(&w.pmc, "A") >= 0 && table_col(&w.pmc, "Kernel_Name") >= 0);
        assert_true(table_col(&w.pmc, "X_ACCUM") >= 0);
        assert_true(table_col(&w.pmc, "B") < 0 && table_col(&w.pmc, "Grid_Size") < 0);
        assert_true(cell(&w.pmc, "End_Timestamp", 1) == 20.5);
        workload_close(&w);
        rmdir_all(d);
}

/* each layout, and the mixed and unknown ones: the error names the file */
struct layout_case {
        const char *what;
        const char *cfg;    /* profiling_config.yaml, or NULL */
        const char *pmc;    /* pmc_perf.csv */
        const char *sq;     /* SQ_LEVEL_WAVES.csv, or NULL */
        const char *sys;    /* sysinfo.csv (NULL: SYSINFO) */
        int layout;         /* expected layout, or -1: an error naming... */
        const char *file;   /* ...this file, with... */
        const char *phrase; /* ...this phrase */
};

static const struct layout_case layouts[] = {
    {"wide, no config", NULL, WIDE, NULL, NULL, WL_LAYOUT_WIDE, NULL, NULL},
    {"wide, config csv", "format_rocprof_output: csv\n", WIDE, WIDE, NULL, WL_LAYOUT_WIDE, NULL,
     NULL},
    {"wide, config json", "format_rocprof_output: 'json'\n", WIDE, NULL, NULL, WL_LAYOUT_WIDE,
     NULL, NULL},
    {"wide, config without the key", "name: x\nremaining:\n- a\n", WIDE, NULL, NULL,
     WL_LAYOUT_WIDE, NULL, NULL},
    {"sysinfo version 2", NULL, WIDE, NULL, "version,gpu_arch\n2,gfx90a\n", WL_LAYOUT_WIDE, NULL,
     NULL},
    {"rocpd, config rocpd", "format_rocprof_output: rocpd\n", LONG, NULL, NULL, WL_LAYOUT_ROCPD,
     NULL, NULL},
    {"rocpd, no config", NULL, LONG, NULL, NULL, WL_LAYOUT_ROCPD, NULL, NULL},
    {"config rocpd, wide file", "format_rocprof_output: rocpd\n", WIDE, NULL, NULL, -1,
     "pmc_perf.csv", "says format_rocprof_output: rocpd"},
    {"config csv, long file", "format_rocprof_output: csv\n", LONG, NULL, NULL, -1,
     "pmc_perf.csv", "rocpd's long layout"},
    {"wide with an accumulate file", NULL, WIDE, ACCUM, NULL, WL_LAYOUT_WIDE, NULL, NULL},
    {"a CSV file that is no accumulate file", NULL, LONG, WIDE, NULL, WL_LAYOUT_ROCPD, NULL,
     NULL},
    {"rocpd with a wide SQ file", NULL, LONG, ACCUM, NULL, -1, "SQ_LEVEL_WAVES.csv", "mixed"},
    {"rocpd with a long SQ file", NULL, LONG, LONG, NULL, -1, "SQ_LEVEL_WAVES.csv", "mixed"},
    {"wide with a long SQ file", NULL, WIDE, LONG, NULL, -1, "SQ_LEVEL_WAVES.csv", "mixed"},
    {"Counter_Name without Counter_Value", NULL,
     "Dispatch_ID,Kernel_Name,Counter_Name\n0,k,A\n", NULL, NULL, -1, "pmc_perf.csv",
     "neither the wide layout"},
    {"unknown format_rocprof_output", "format_rocprof_output: parquet\n", WIDE, NULL, NULL, -1,
     "profiling_config.yaml", "'parquet' is not a layout"},
    {"profiling_config.yaml not YAML", "a: [1,\n", WIDE, NULL, NULL, -1,
     "profiling_config.yaml", ""},
    {"profiling_config.yaml a list", "- 1\n- 2\n", WIDE, NULL, NULL, -1,
     "profiling_config.yaml", "not a YAML mapping"},
    {"unknown sysinfo version", NULL, WIDE, NULL, "version,gpu_arch\n9,gfx942\n", -1,
     "sysinfo.csv", "layout version '9'"},
};

static void test_layouts(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++) {
                const struct layout_case *c = &layouts[i];
                char *d = tmpdir_new("prism-t-formats");
                put(d, "sysinfo.csv", c->sys ? c->sys : SYSINFO);
                put(d, "pmc_perf.csv", c->pmc);
                if (c->cfg)
                        put(d, "profiling_config.yaml", c->cfg);
                if (c->sq)
                        put(d, "SQ_LEVEL_WAVES.csv", c->sq);
                struct table sys;
                struct err err = {0};
                char *sp = xasprintf("%s/sysinfo.csv", d);
                assert_int_equal(table_load_csv(&sys, sp, &err), 0);
                enum wl_layout got = WL_LAYOUT_WIDE;
                char **acc = NULL;
                size_t nacc = 0;
                int rc = formats_detect(d, &sys, &got, &acc, &nacc, &err);
                if (c->layout >= 0) {
                        if (rc)
                                fail_msg("%s: %s", c->what, err.msg);
                        if ((int)got != c->layout)
                                fail_msg("%s: layout %d, want %d", c->what, (int)got, c->layout);
                        /* the accumulate file listed: the wide layout's, by its header */
                        int listed = c->layout == WL_LAYOUT_WIDE && c->sq &&
                                     strstr(c->sq, "SQ_LEVEL_WAVES");
                        assert_int_equal(nacc, listed);
                        if (listed)
                                assert_string_equal(acc[0], "SQ_LEVEL_WAVES");
                        for (size_t k = 0; k < nacc; k++)
                                free(acc[k]);
                        free(acc);
                } else {
                        char *file = xasprintf("%s/%s", d, c->file);
                        if (rc != ERR_INPUT || !strstr(err.msg, file) ||
                            !strstr(err.msg, c->phrase) || strchr(err.msg, '\n'))
                                fail_msg("%s: rc %d, message '%s'", c->what, rc, err.msg);
                        /* the whole open gives the same one-line error */
                        struct workload w;
                        struct err e2 = {0};
                        assert_int_equal(workload_open(d, &w, &e2), ERR_INPUT);
                        assert_string_equal(e2.msg, err.msg);
                        free(file);
                }
                table_free(&sys);
                free(sp);
                rmdir_all(d);
        }
}

/* sysinfo version 3 may record clocks as 0: one warning names them (stderr captured) */
static void test_zero_clocks(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-t-formats");
        put(d, "sysinfo.csv", "version,gpu_arch,max_sclk,cur_sclk,max_mclk\n3,gfx950,0,0,\n");
        put(d, "pmc_perf.csv", WIDE);
        char *log = xasprintf("%s/stderr", d), *sp = xasprintf("%s/sysinfo.csv", d);
        struct table sys;
        struct err err = {0};
        assert_int_equal(table_load_csv(&sys, sp, &err), 0);
        fflush(stderr);
        int saved = dup(2);
        assert_non_null(freopen(log, "w", stderr));
        enum wl_layout got;
        int rc = formats_detect(d, &sys, &got, NULL, NULL, &err);
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        assert_int_equal(rc, 0);
        size_t len;
        char *text = read_file(log, &len, &err);
        assert_non_null(text);
        char *want = xasprintf("%s: max_sclk, cur_sclk are 0 (not recorded)", sp);
        if (!strstr(text, want))
                fail_msg("stderr: '%s'", text);
        assert_null(strstr(text, "max_mclk")); /* empty, not 0: n/a where used, said there */
        free(want);
        free(text);
        free(log);
        free(sp);
        table_free(&sys);
        rmdir_all(d);
}

/* bad rocpd rows: one-line errors naming file:line */
struct bad_case {
        const char *rows;
        const char *phrase;
};

static const struct bad_case bad_rows[] = {
    {"2,x3,1024,256,0,0,4,4,16,k1,1,2,12,A,1\n", "pmc_perf.csv:2: Dispatch_ID holds 'x3'"},
    {"2,3,1024,,0,0,4,4,16,k1,1,2,12,A,1\n", "pmc_perf.csv:2: Workgroup_Size is empty"},
    {"2,3,1024,256,0,0,4,4,16,k1,1,2,12,A,1\n2,3,1024,256,0,0,4,4,16,,1,2,12,A,1\n",
     "pmc_perf.csv:3: Kernel_Name is empty"},
    {"2,3,1024,256,0,0,4,4,16,k1,1,2,12,A\n", "pmc_perf.csv:2: 14 fields, but the header has 15"},
};

static void test_bad_rows(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof bad_rows / sizeof *bad_rows; i++) {
                char *d = tmpdir_new("prism-t-formats");
                put(d, "sysinfo.csv", SYSINFO);
                char *text = xasprintf("%s%s", LONG_HEAD, bad_rows[i].rows);
                put(d, "pmc_perf.csv", text);
                struct workload w;
                struct err err = {0};
                assert_int_equal(workload_open(d, &w, &err), ERR_INPUT);
                if (!strstr(err.msg, bad_rows[i].phrase))
                        fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad_rows[i].phrase);
                free(text);
                rmdir_all(d);
        }
        /* a rocpd header without one of the grouping columns */
        char *d = tmpdir_new("prism-t-formats");
        put(d, "sysinfo.csv", SYSINFO);
        put(d, "pmc_perf.csv", "Dispatch_ID,Kernel_Name,Counter_Name,Counter_Value\n0,k,A,1\n");
        struct workload w;
        struct err err = {0};
        assert_int_equal(workload_open(d, &w, &err), ERR_INPUT);
        assert_non_null(strstr(err.msg, "pmc_perf.csv: no Grid_Size column"));
        rmdir_all(d);
}

/* damaged values warn and read as n/a; the other dispatches keep theirs */
static void test_rocpd_damage(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-t-formats");
        put(d, "sysinfo.csv", SYSINFO);
        put(d, "pmc_perf.csv",
            LONG_HEAD "2,3,1024,256,0,0,4,4,16,k1,1,2,12,A,abc\n"
                      "2,3,1024,256,0,0,4,4,16,k1,1,2,12,B,-4\n"
                      "2,4,1024,256,0,0,4,4,16,k1,9,5,12,A,6\n"
                      "2,4,1024,256,0,0,4,4,16,k1,1,x,12,B,8\n");
        struct workload w;
        struct err err = {0};
        warn_quiet = 1;
        assert_int_equal(workload_open(d, &w, &err), 0);
        warn_quiet = 0;
        assert_int_equal(w.pmc.nrows, 2);
        assert_true(isnan(cell(&w.pmc, "A", 0)) && isnan(cell(&w.pmc, "B", 0)));
        assert_true(cell(&w.pmc, "A", 1) == 6 && cell(&w.pmc, "B", 1) == 8);
        assert_true(cell(&w.pmc, "GPU_ID", 0) == 0 && cell(&w.pmc, "GPU_ID", 1) == 0);
        /* dispatch 4: one row ends before it starts, the other has no end: no duration */
        assert_true(cell(&w.pmc, "End_Timestamp", 0) == 1);
        assert_true(isnan(cell(&w.pmc, "End_Timestamp", 1)));
        workload_close(&w);
        rmdir_all(d);
}

/* csv_stream: records with their lines, stopping early, errors */
struct seen {
        size_t n, last_line, stop_at;
        char first[32];
};

static int count_rows(void *p, char **f, const size_t *lens, size_t n, size_t line,
                      struct err *err)
{
        struct seen *s = p;
        (void)lens, (void)err;
        if (s->n++ == 0)
                snprintf(s->first, sizeof s->first, "%s", n ? f[0] : "");
        s->last_line = line;
        return s->stop_at && s->n == s->stop_at;
}

static void test_csv_stream(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-t-formats");
        put(d, "a.csv", "\xEF\xBB\xBFx,y\n1,2\n\n\"a\nb\",3\n4,5\n");
        char *p = xasprintf("%s/a.csv", d);
        struct seen s = {0};
        struct err err = {0};
        assert_int_equal(csv_stream(p, count_rows, &s, &err), 0);
        assert_int_equal(s.n, 4); /* header and three records; the blank line skipped */
        assert_string_equal(s.first, "x");
        assert_int_equal(s.last_line, 6);
        struct seen s2 = {.stop_at = 2};
        assert_int_equal(csv_stream(p, count_rows, &s2, &err), 0);
        assert_int_equal(s2.n, 2);
        put(d, "a.csv", "x,y\n1,2,3\n");
        struct seen s3 = {0};
        assert_int_equal(csv_stream(p, count_rows, &s3, &err), ERR_INPUT);
        assert_non_null(strstr(err.msg, "a.csv:2: 3 fields, but the header has 2"));
        put(d, "a.csv", "");
        assert_int_equal(csv_stream(p, count_rows, &s3, &err), ERR_INPUT);
        assert_non_null(strstr(err.msg, "is empty"));
        free(p);
        rmdir_all(d);
}

/* 3.6+'s kernel_symbols files (ksyms.c): pairs of every file, once; a row lacking a name
 * skipped; an empty file skipped; no short-name column, a cut last line, or a kernel given
 * two short names: an error naming the file */
static void test_kernel_symbols(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-t-formats");
        struct table t;
        struct err err = {0};
        assert_int_equal(ksyms_load(d, &t, &err), 0); /* none: no rows */
        assert_int_equal(t.nrows, 0);
        table_free(&t);
        put(d, "kernel_symbols_pmc_perf_0.csv",
            "Kernel_Name,Kernel_Short_Name\n\"k1(int, int)\",k1\nk2,\n");
        put(d, "kernel_symbols_pmc_perf_1.csv",
            "Kernel_ID,Kernel_Name,Kernel_Short_Name\n3,\"k1(int, int)\",k1\n4,k3<2>(),k3\n");
        put(d, "kernel_symbols_pmc_perf_2.csv", "");
        put(d, "results_pmc_perf_0.csv", "not,read\n");
        assert_int_equal(ksyms_load(d, &t, &err), 0);
        assert_int_equal(t.nrows, 2); /* k1 once, k2 (no short name) skipped, k3 */
        assert_string_equal(t.str[0][0], "k1(int, int)");
        assert_string_equal(t.str[1][0], "k1");
        assert_string_equal(t.str[0][1], "k3<2>()");
        assert_string_equal(t.str[1][1], "k3");
        table_free(&t);
        put(d, "kernel_symbols_pmc_perf_2.csv", "Kernel_Name,Kernel_Short_Name\nk3<2>(),k3b\n");
        assert_int_equal(ksyms_load(d, &t, &err), ERR_INPUT);
        assert_non_null(strstr(err.msg, "kernel_symbols_pmc_perf_2.csv:2: kernel 'k3<2>()' has "
                                        "the short name 'k3b' here and 'k3' in"));
        put(d, "kernel_symbols_pmc_perf_2.csv", "Kernel_Name,Kernel_Short_Name\nk4,k");
        assert_int_equal(ksyms_load(d, &t, &err), ERR_INPUT);
        assert_non_null(strstr(err.msg, "kernel_symbols_pmc_perf_2.csv: the last line has no end"));
        put(d, "kernel_symbols_pmc_perf_2.csv", "Kernel_Name\nk4\n");
        assert_int_equal(ksyms_load(d, &t, &err), ERR_INPUT);
        assert_non_null(strstr(err.msg, "kernel_symbols_pmc_perf_2.csv: no Kernel_Name and "
                                        "Kernel_Short_Name columns"));
        rmdir_all(d);
}

/* ---- the recordings of rocprof-compute 3.3's test suite, when present ---- */

/* The recording at rel, or NULL (skip). Under tests/run-all.sh with ../shared
 * (PRISM_REQUIRE_DATA=1, not the bundled copy, which holds only the rocpd one) the
 * recordings are there: their absence fails rather than skips. */
static int env_is(const char *name, const char *value)
{
        const char *v = getenv(name);
        return v && !strcmp(v, value);
}

static char *recording(const char *rel)
{
        const char *s = getenv("PRISM_SHARED");
        char *p = xasprintf("%s/rocprof-workloads-3.3/%s", s ? s : "../shared", rel);
        char *probe = xasprintf("%s/pmc_perf.csv", p);
        int ok = access(probe, R_OK) == 0;
        free(probe);
        if (!ok) {
                print_message("no %s\n", p);
                free(p);
                if (env_is("PRISM_REQUIRE_DATA", "1") && !env_is("PRISM_SHARED_BUNDLED", "1"))
                        fail();
                return NULL;
        }
        return p;
}

/* MI350 (gfx950): sysinfo version 3, profiling_config.yaml (csv), per-pass files, the
 * per-channel TCC counters beside the SQ level counters; loads in the wide layout */
static void test_mi350_loads(void **state)
{
        (void)state;
        char *p = recording("vcopy/MI350");
        if (!p)
                skip();
        struct workload w;
        struct err err = {0};
        warn_quiet = 1;
        int rc = workload_open(p, &w, &err);
        warn_quiet = 0;
        if (rc)
                fail_msg("%s", err.msg);
        assert_string_equal(w.arch, "gfx950");
        assert_string_equal(workload_sys_str(&w, "gpu_series"), "MI350");
        assert_true(workload_sys_num(&w, "num_hbm_channels") == 128);
        assert_true(workload_sys_num(&w, "max_sclk") == 0);
        assert_true(isnan(workload_sys_num(&w, "max_mclk")));
        assert_int_equal(w.pmc.nrows, 3);
        assert_int_equal(w.nacc, 5);
        /* a per-channel TCC counter of an SQ level file, row for row */
        const struct table *lw = workload_table(&w, "SQ_LEVEL_WAVES");
        assert_non_null(lw);
        assert_true(table_col(lw, "SQ_LEVEL_WAVES") >= 0);
        /* rocprofv3 wrote no accumulate column here: those metrics are n/a (as in 3.3) */
        assert_true(table_col(lw, "SQ_ACCUM_PREV_HIRES") < 0);
        int c = table_col(lw, "TCC_EA0_RDREQ_LEVEL[0]");
        assert_true(c >= 0);
        assert_int_equal(lw->nrows, 3);
        workload_close(&w);
        free(p);
}

/* rocpd: 6027 rows make 3 dispatches; durations as 3.3 computed them (its 16.3 Cache BW is
 * TCP_TOTAL_CACHE_ACCESSES_sum * 128 / duration: 8613, 6730 and 6730 ns) */
static void test_rocpd_recording(void **state)
{
        (void)state;
        char *p = recording("vcopy/MI300X_A1_rocpd");
        if (!p)
                skip();
        struct workload w;
        struct err err = {0};
        warn_quiet = 1;
        int rc = workload_open(p, &w, &err);
        warn_quiet = 0;
        if (rc)
                fail_msg("%s", err.msg);
        assert_int_equal(w.pmc.nrows, 3);
        for (size_t r = 0; r < 3; r++) {
                assert_true(cell(&w.pmc, "Dispatch_ID", r) == (double)r);
                assert_true(cell(&w.pmc, "GPU_ID", r) == 0);
                double bw = cell(&w.pmc, "TCP_TOTAL_CACHE_ACCESSES_sum", r) * 128 /
                            cell(&w.pmc, "End_Timestamp", r);
                static const double ref[] = {7791.578311854174, 9971.599405646359,
                                             9971.599405646359};
                assert_true(fabs(bw - ref[r]) <= 1e-9 * ref[r]);
        }
        assert_int_equal(w.nacc, 5);
        assert_non_null(workload_table(&w, "SQ_INST_LEVEL_VMEM"));
        workload_close(&w);
        free(p);
}

/* ---- the probe (probe.h) and the steps after it ---- */

/* the 3.0 recording bundled with the tree (tests/data/shared) */
#define WIDE_30 "tests/data/shared/rocprof-workloads/dispatch_0/MI200"

static long long file_size(const char *path)
{
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        return (long long)st.st_size;
}

/* probe, sysinfo, detect: the layout path is in (the kind must be a directory) */
static enum wl_layout dir_layout(const char *path)
{
        struct store_probe p;
        struct workload w;
        struct err err = {0};
        warn_quiet = 1;
        if (store_probe(path, &p, &err) || store_open_sysinfo(&p, &w, &err) ||
            store_detect(&p, &w, 1, &err))
                fail_msg("%s: %s", path, err.msg);
        warn_quiet = 0;
        assert_int_equal(p.kind, STORE_DIR);
        assert_true(p.detected);
        enum wl_layout l = p.layout;
        workload_close(&w);
        store_probe_free(&p);
        return l;
}

/* each kind of directory: 3.0's wide one, rocpd's long one (3.3), 3.6+'s results files */
static void test_probe_layouts(void **state)
{
        (void)state;
        assert_int_equal(dir_layout(WIDE_30), WL_LAYOUT_WIDE);
        assert_int_equal(dir_layout("tests/data/rocpd-vcopy"), WL_LAYOUT_ROCPD);
        char *d = tmpdir_new("prism-probe");
        put(d, "sysinfo.csv", SYSINFO);
        put(d, "results_pmc_perf_0.csv", LONG);
        assert_int_equal(dir_layout(d), WL_LAYOUT_PASSES);
        rmdir_all(d);
}

/* what the probe records of a directory, and the sysinfo step after it */
static void test_probe_dir(void **state)
{
        (void)state;
        struct store_probe p;
        struct err err = {0};
        assert_int_equal(store_probe(WIDE_30, &p, &err), 0);
        assert_int_equal(p.kind, STORE_DIR);
        assert_string_equal(p.sys, WIDE_30 "/sysinfo.csv");
        assert_true(p.pmc_there);
        assert_null(p.db);
        assert_false(p.detected);
        /* streaming keys on pmc_perf.csv's size */
        assert_true(p.data_bytes == file_size(WIDE_30 "/pmc_perf.csv"));
        struct workload w;
        assert_int_equal(store_open_sysinfo(&p, &w, &err), 0);
        assert_string_equal(w.arch, "gfx90a");
        assert_string_equal(w.model, "MI200");
        assert_string_equal(w.sysinfo_file, WIDE_30 "/sysinfo.csv");
        assert_int_equal(w.sysinfo.nrows, 1);
        assert_int_equal(w.pmc.nrows, 0); /* nothing but sysinfo yet */
        struct store_cols c = {0};
        warn_quiet = 1;
        int rc = store_load(&p, &c, &w, &err);
        warn_quiet = 0;
        if (rc)
                fail_msg("%s", err.msg);
        assert_true(p.detected);
        assert_int_equal(p.layout, WL_LAYOUT_WIDE);
        /* the same workload workload_open gives */
        struct workload w2;
        warn_quiet = 1;
        assert_int_equal(workload_open(WIDE_30, &w2, &err), 0);
        warn_quiet = 0;
        assert_int_equal(w.pmc.nrows, w2.pmc.nrows);
        assert_int_equal(w.pmc.ncols, w2.pmc.ncols);
        assert_int_equal(w.nacc, w2.nacc);
        assert_true(w.pmc.nrows > 0);
        workload_close(&w);
        workload_close(&w2);
        store_probe_free(&p);
}

/* a database (a file, or a directory holding only prism.db) and a rank tree */
static void test_probe_stores(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-probe");
        struct workload w;
        struct err err = {0};
        warn_quiet = 1;
        assert_int_equal(workload_open(WIDE_30, &w, &err), 0);
        warn_quiet = 0;
        char *db = xasprintf("%s/run.db", d), *sub = xasprintf("%s/only", d),
             *subdb = xasprintf("%s/only/prism.db", d);
        assert_int_equal(mkdir(sub, 0700), 0);
        assert_int_equal(db_write(db, &w, NULL, NULL, 0, 0, &err), 0);
        assert_int_equal(db_write(subdb, &w, NULL, NULL, 0, 0, &err), 0);
        size_t nrows = w.pmc.nrows;
        workload_close(&w);

        struct store_probe p;
        assert_int_equal(store_probe(db, &p, &err), 0);
        assert_int_equal(p.kind, STORE_DB);
        assert_string_equal(p.db, db);
        assert_true(p.data_bytes == file_size(db));
        assert_int_equal(store_open_sysinfo(&p, &w, &err), 0);
        assert_string_equal(w.arch, "gfx90a");
        assert_null(w.sysinfo_file);
        struct store_cols c = {0};
        assert_int_equal(store_load(&p, &c, &w, &err), 0);
        assert_int_equal(w.pmc.nrows, nrows);
        assert_int_equal(store_detect(&p, &w, 1, &err), 0); /* nothing for a database */
        assert_false(p.detected);
        workload_close(&w);
        store_probe_free(&p);

        assert_int_equal(store_probe(sub, &p, &err), 0);
        assert_int_equal(p.kind, STORE_DB);
        assert_string_equal(p.db, subdb);
        store_probe_free(&p);

        /* NAME/<node>/rank<N>/: a copy of the 3.0 recording as rank 0 */
        char *cmd = xasprintf("mkdir -p '%s/tree/n1' && cp -r " WIDE_30 " '%s/tree/n1/rank0'", d,
                              d);
        assert_int_equal(system(cmd), 0);
        free(cmd);
        char *tree = xasprintf("%s/tree", d);
        assert_int_equal(store_probe(tree, &p, &err), 0);
        assert_int_equal(p.kind, STORE_RANKS);
        assert_true(p.data_bytes < 0); /* a tree is never streamed */
        assert_int_equal(store_open_sysinfo(&p, &w, &err), 0);
        assert_string_equal(w.arch, "gfx90a");
        warn_quiet = 1;
        assert_int_equal(store_load(&p, &c, &w, &err), 0);
        warn_quiet = 0;
        assert_int_equal(w.pmc.nrows, nrows);
        assert_true(table_col(&w.pmc, "Rank") >= 0);
        workload_close(&w);
        store_probe_free(&p);
        free(tree);
        free(db);
        free(sub);
        free(subdb);
        rmdir_all(d);
}

/* what is no workload: one line naming the path */
static void expect_probe_error(const char *path, const char *msg)
{
        struct store_probe p;
        struct err err = {0};
        assert_int_not_equal(store_probe(path, &p, &err), 0);
        char *want = xasprintf("cannot open workload '%s': %s", path, msg);
        assert_string_equal(err.msg, want);
        free(want);
        store_probe_free(&p);
}

static void test_probe_errors(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-probe");
        char *none = xasprintf("%s/none", d), *file = xasprintf("%s/notes.txt", d);
        expect_probe_error(none, "not a directory");
        put(d, "notes.txt", "hello\n");
        expect_probe_error(file, "not a directory");
        expect_probe_error(d, "no pmc_perf.csv or sysinfo.csv found");
        put(d, "pmc_perf.csv", WIDE);
        expect_probe_error(d, "no sysinfo.csv");
        /* sysinfo.csv there but no dispatch file: the load says so, after the sysinfo */
        char *d2 = tmpdir_new("prism-probe");
        put(d2, "sysinfo.csv", SYSINFO);
        struct store_probe p;
        struct workload w;
        struct err err = {0};
        assert_int_equal(store_probe(d2, &p, &err), 0);
        assert_false(p.pmc_there);
        assert_int_equal(store_open_sysinfo(&p, &w, &err), 0);
        assert_string_equal(w.arch, "gfx942");
        struct store_cols c = {0};
        assert_int_not_equal(store_load(&p, &c, &w, &err), 0);
        char *want = xasprintf("cannot open workload '%s': no pmc_perf.csv", d2);
        assert_string_equal(err.msg, want);
        free(want);
        store_probe_free(&p);
        free(none);
        free(file);
        rmdir_all(d);
        rmdir_all(d2);
}

/* A generated long file (passes: every dispatch's rows for a pass's counters, then the next
 * pass's, so dispatches come back; counters given twice with other values; damaged values
 * and timestamps; a kernel name with a quoted newline; a dispatch lacking a pass) read with
 * values found through the slots only (the one way before), through each dispatch's index
 * (going over to the slots midway or not), and read ahead by a second thread in batches of
 * 1, 7 and 4096 records: the same table, cell for cell, and the same warnings. Then damaged
 * files (a bad grouping field, a short record) fail with the same error every way. */
static char *gen_long(unsigned seed, size_t *nlines)
{
        struct strbuf sb = {0};
        sb_add(&sb, LONG_HEAD);
        size_t lines = 1;
        for (int pass = 0; pass < 3; pass++)
                for (int d = 0; d < 40; d++) {
                        if (d == 17 && pass == 1)
                                continue; /* a dispatch without this pass's counters */
                        for (int c = 0; c < 12; c++) {
                                seed = seed * 1103515245u + 12345u;
                                unsigned r = seed >> 8;
                                const char *k = d % 5 == 4 ? "\"k(a,\nb)\"" : "\"k1(int)\"";
                                char val[40];
                                if (r % 97 == 0)
                                        snprintf(val, sizeof val, "bad");
                                else
                                        snprintf(val, sizeof val, "%u.%u", r % 1000, r % 7);
                                sb_addf(&sb, "%d,%d,%d,64,0,0,8,0,16,%s,%u,%s,4,C%d_%d,%s\n",
                                        d % 3, d, 256 * (d % 4 + 1), k, 1000 + r % 50,
                                        r % 89 == 0 ? "x" : "2000", pass, c, val);
                                lines += d % 5 == 4 ? 2 : 1;
                                if (r % 31 == 0) { /* the same counter again */
                                        sb_addf(&sb,
                                                "%d,%d,%d,64,0,0,8,0,16,%s,1,5,4,C%d_%d,%u\n",
                                                d % 3, d, 256 * (d % 4 + 1), k, pass, c,
                                                r % 2 ? r % 1000 : 7u);
                                        lines += d % 5 == 4 ? 2 : 1;
                                }
                        }
                }
        *nlines = lines;
        return sb.buf;
}

struct rocpd_way {
        size_t spare;
        unsigned per_value;
        size_t pipe_min, records;
};

static int load_way(const char *path, const struct rocpd_way *w, struct table *t,
                    struct strbuf *warns, struct err *err)
{
        size_t spare = rocpd_dense_spare, pipe_min = csv_pipe_min, rec = csv_pipe_records;
        unsigned per = rocpd_dense_per_value;
        rocpd_dense_spare = w->spare, rocpd_dense_per_value = w->per_value;
        csv_pipe_min = w->pipe_min, csv_pipe_records = w->records;
        struct strbuf *outer = warn_hold(warns);
        int rc = rocpd_load(path, NULL, NULL, t, err);
        warn_hold(outer);
        rocpd_dense_spare = spare, rocpd_dense_per_value = per;
        csv_pipe_min = pipe_min, csv_pipe_records = rec;
        return rc;
}

static void same_table(const struct table *a, const struct table *b)
{
        assert_int_equal(a->nrows, b->nrows);
        assert_int_equal(a->ncols, b->ncols);
        for (size_t c = 0; c < a->ncols; c++) {
                assert_string_equal(a->names[c], b->names[c]);
                for (size_t r = 0; r < a->nrows; r++) {
                        double x = a->num[c][r], y = b->num[c][r];
                        assert_true(x == y || (isnan(x) && isnan(y)));
                        assert_int_equal(!a->str[c], !b->str[c]);
                        if (a->str[c])
                                assert_string_equal(a->str[c][r] ? a->str[c][r] : "",
                                                    b->str[c][r] ? b->str[c][r] : "");
                }
        }
        for (size_t r = 0; r < a->nrows; r++)
                assert_int_equal(a->line[r], b->line[r]);
}

static void test_rocpd_ways(void **state)
{
        (void)state;
        static const struct rocpd_way ways[] = {
            {0, 0, (size_t)-1, 4096},       /* the slots, one thread: the reference */
            {(size_t)1 << 20, 4, (size_t)-1, 4096}, /* indexes, one thread */
            {500, 0, (size_t)-1, 4096},     /* indexes, then the slots midway */
            {(size_t)1 << 20, 4, 0, 1},     /* indexes, read ahead a record a batch */
            {0, 0, 0, 7},                   /* the slots, read ahead */
            {500, 0, 0, 4096}};
        char *d = tmpdir_new("prism-t-formats");
        char *p = xasprintf("%s/pmc_perf.csv", d);
        size_t nlines;
        for (unsigned seed = 1; seed <= 3; seed++) {
                char *text = gen_long(seed, &nlines);
                put(d, "pmc_perf.csv", text);
                struct table ref;
                struct strbuf rw = {0};
                struct err err = {0};
                if (load_way(p, &ways[0], &ref, &rw, &err))
                        fail_msg("%s", err.msg);
                assert_int_equal(ref.nrows, 40);
                assert_non_null(strstr(rw.buf, "with another value"));
                assert_non_null(strstr(rw.buf, "holds 'bad'"));
                assert_non_null(strstr(rw.buf, "holds 'x'"));
                assert_non_null(strstr(rw.buf, "counter values are missing"));
                for (size_t i = 1; i < sizeof ways / sizeof *ways; i++) {
                        struct table t;
                        struct strbuf w = {0};
                        if (load_way(p, &ways[i], &t, &w, &err))
                                fail_msg("%s", err.msg);
                        same_table(&ref, &t);
                        assert_string_equal(rw.buf, w.buf);
                        table_free(&t);
                        sb_free(&w);
                }
                /* damaged at the middle line: a grouping field, then a short record */
                for (int kind = 0; kind < 2; kind++) {
                        char *mid = text + strlen(text) / 2;
                        mid = strchr(mid, '\n') + 1;
                        char *end = strchr(mid, '\n');
                        struct strbuf bad = {0};
                        sb_addn(&bad, text, (size_t)(mid - text));
                        sb_add(&bad, kind ? "1,2,3\n" : "0,zz,256,64,0,0,8,0,16,k,1,2,4,C,1\n");
                        sb_add(&bad, end + 1);
                        put(d, "pmc_perf.csv", bad.buf);
                        struct err e0 = {0};
                        struct strbuf w0 = {0};
                        struct table bt;
                        assert_int_equal(load_way(p, &ways[0], &bt, &w0, &e0), ERR_INPUT);
                        table_free(&bt);
                        assert_non_null(strstr(e0.msg, kind ? "fields, but the header has 15"
                                                            : "Dispatch_ID holds 'zz'"));
                        for (size_t i = 1; i < sizeof ways / sizeof *ways; i++) {
                                struct err e = {0};
                                struct strbuf w = {0};
                                struct table t;
                                assert_int_equal(load_way(p, &ways[i], &t, &w, &e), ERR_INPUT);
                                table_free(&t);
                                assert_string_equal(e0.msg, e.msg);
                                assert_string_equal(w0.buf ? w0.buf : "", w.buf ? w.buf : "");
                                sb_free(&w);
                        }
                        sb_free(&w0);
                        sb_free(&bad);
                }
                table_free(&ref);
                sb_free(&rw);
                free(text);
        }
        (void)nlines;
        free(p);
        rmdir_all(d);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_rocpd_grouping), cmocka_unit_test(test_rocpd_exact_timestamps),
            cmocka_unit_test(test_rocpd_projection), cmocka_unit_test(test_layouts),
            cmocka_unit_test(test_bad_rows), cmocka_unit_test(test_rocpd_damage),
            cmocka_unit_test(test_csv_stream), cmocka_unit_test(test_zero_clocks),
            cmocka_unit_test(test_kernel_symbols),
            cmocka_unit_test(test_mi350_loads),
            cmocka_unit_test(test_rocpd_recording), cmocka_unit_test(test_rocpd_ways),
            cmocka_unit_test(test_probe_layouts), cmocka_unit_test(test_probe_dir),
            cmocka_unit_test(test_probe_stores), cmocka_unit_test(test_probe_errors)};
        return cmocka_run_group_tests(tests, NULL, NULL);
}
