/* rocprof-compute 3.6+'s per-pass layout (src/store/passes.c, rocpd.c, bytesrc.c;
 * docs/FORMATS.md): gzip read by content, the passes concatenated in file-name order, the
 * grouping rules of 3.3 and of 3.10 (struct pass_rules), sysinfo's renamed fields, and the
 * layout's bad inputs. Every expected value is worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "store/bytesrc.h"
#include "store/formats.h"
#include "store/workload.h"
#include "tmpfiles.h"

static void rmdir_all(char *dir)
{
        char *cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        free(cmd);
        free(dir);
}

/* text gzip-compressed into dir/name, as members members (gzip allows several) */
static void put_gz(const char *dir, const char *name, const char *text, int members)
{
        char *p = xasprintf("%s/%s", dir, name);
        FILE *f = fopen(p, "wb");
        assert_non_null(f);
        size_t len = strlen(text), at = 0;
        for (int m = 0; m < members; m++) {
                size_t part = m == members - 1 ? len - at : len / (size_t)members;
                z_stream z = {0};
                assert_int_equal(deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8,
                                              Z_DEFAULT_STRATEGY),
                                 Z_OK);
                unsigned char out[1 << 16];
                z.next_in = (unsigned char *)text + at;
                z.avail_in = (uInt)part;
                z.next_out = out;
                z.avail_out = sizeof out;
                assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
                fwrite(out, 1, sizeof out - z.avail_out, f);
                deflateEnd(&z);
                at += part;
        }
        fclose(f);
        free(p);
}

#define SYSINFO_NEW                                                                            \
        "workload_path,version,gpu_model,gpu_arch,max_sclk,num_memory_channels,sa_per_se,"      \
        "l2_banks\n"                                                                           \
        "/w,3,MI300X_A1,gfx942,2100,128,2,16\n"

#define HEAD17                                                                                 \
        "GPU_ID,GUID,Correlation_Id,Dispatch_ID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,"    \
        "Scratch_Per_Workitem,Arch_VGPR,Accum_VGPR,SGPR,Kernel_Name,Start_Timestamp,"          \
        "End_Timestamp,Kernel_ID,Counter_Name,Counter_Value\n"

/* Three passes of two dispatches (ids 1 and 2 of kernel k on GPU 4), in files whose name
 * order is pmc_perf_0, pmc_perf_10, pmc_perf_2 (rocprof-compute sorts the names):
 *   pass 0:  dispatch 1 times 1000..1100 (100), A=1; dispatch 2 times 3000..3050 (50), A=2
 *   pass 10: dispatch 1 times 5000..5120 (120), B=10; dispatch 2 times 7000..7070 (70), B=20
 *   pass 2:  dispatch 1 times 9000..9300 (300), B=11;  dispatch 2 times 9500..9530 (30), C=5
 * B of dispatch 1 is in passes 10 and 2: the later in name order, pass 2, gives 11.
 * 3.3's rules: Start 0, End the median of the rows' durations: dispatch 1 100, 120, 300 ->
 * 120; dispatch 2 50, 70, 30 -> 50. Dispatches numbered 0, 1.
 * 3.10's rules: the first row's (pass 0's): dispatch 1 1000..1100, dispatch 2 3000..3050,
 * both relative to the earliest start (1000): 0..100 and 2000..2050. Numbered 1, 2. */
#define ROW(d, s, e, name, v)                                                                  \
        "4,g,7," #d ",1024,256,0,0,8,0,16,k," #s "," #e ",3," name "," #v "\n"
#define PASS0 HEAD17 ROW(1, 1000, 1100, "A", 1) ROW(2, 3000, 3050, "A", 2)
#define PASS10 HEAD17 ROW(1, 5000, 5120, "B", 10) ROW(2, 7000, 7070, "B", 20)
#define PASS2 HEAD17 ROW(1, 9000, 9300, "B", 11) ROW(2, 9500, 9530, "C", 5)

static char *three_passes(int gz)
{
        char *d = tmpdir_new("prism-t-passes");
        put(d, "sysinfo.csv", SYSINFO_NEW);
        if (gz) {
                put_gz(d, "results_pmc_perf_0.csv.gz", PASS0, 1);
                put_gz(d, "results_pmc_perf_10.csv.gz", PASS10, 2); /* two members */
                put_gz(d, "results_pmc_perf_2.csv.gz", PASS2, 1);
        } else {
                put(d, "results_pmc_perf_0.csv", PASS0);
                put(d, "results_pmc_perf_10.csv", PASS10);
                put(d, "results_pmc_perf_2.csv", PASS2);
        }
        char *pm = xasprintf("%s/perfmon", d);
        assert_int_equal(mkdir(pm, 0755), 0);
        put(pm, "pmc_perf_0.yaml", "jobs:\n  - pmc: [A]\n");
        put(pm, "pmc_perf_10.yaml", "jobs:\n  - pmc: [B]\n");
        put(pm, "pmc_perf_2.yaml", "jobs:\n  - pmc: [B, C]\n");
        free(pm);
        return d;
}

static double cell(const struct table *t, const char *col, size_t row)
{
        int c = table_col(t, col);
        assert_true(c >= 0);
        assert_true(row < t->nrows);
        return t->num[c][row];
}

static void check_common(const struct workload *w)
{
        const struct table *t = &w->pmc;
        assert_int_equal(t->nrows, 2);
        assert_true(cell(t, "A", 0) == 1 && cell(t, "A", 1) == 2);
        assert_true(cell(t, "B", 0) == 11 && cell(t, "B", 1) == 20); /* pass 2 after 10 */
        assert_true(isnan(cell(t, "C", 0)) && cell(t, "C", 1) == 5);
        assert_true(cell(t, "GPU_ID", 0) == 0); /* ranked */
        assert_true(cell(t, "Kernel_ID", 1) == 3);
}

static void test_rules_33(void **state)
{
        (void)state;
        for (int gz = 0; gz < 2; gz++) {
                char *d = three_passes(gz);
                formats_rules_set(NULL);
                struct workload w;
                struct err err = {0};
                warn_quiet = 1; /* C is missing for dispatch 1 */
                int rc = workload_open(d, &w, &err);
                warn_quiet = 0;
                assert_int_equal(rc, 0);
                check_common(&w);
                const struct table *t = &w.pmc;
                assert_true(cell(t, "Dispatch_ID", 0) == 0 && cell(t, "Dispatch_ID", 1) == 1);
                assert_true(cell(t, "Start_Timestamp", 0) == 0);
                assert_true(cell(t, "End_Timestamp", 0) == 120);
                assert_true(cell(t, "End_Timestamp", 1) == 50);
                /* 3.3's sysinfo names */
                assert_true(workload_sys_num(&w, "num_hbm_channels") == 128);
                assert_true(table_col(&w.sysinfo, "num_memory_channels") < 0);
                assert_string_equal(workload_sys_str(&w, "workload_name"), "/w");
                workload_close(&w);
                rmdir_all(d);
        }
}

static void test_rules_310(void **state)
{
        (void)state;
        for (int gz = 0; gz < 2; gz++) {
                char *d = three_passes(gz);
                struct pass_rules r = {.first_times = 1, .dispatch_base = 1,
                                       .new_sysinfo_names = 1};
                formats_rules_set(&r);
                struct workload w;
                struct err err = {0};
                warn_quiet = 1;
                int rc = workload_open(d, &w, &err);
                warn_quiet = 0;
                formats_rules_set(NULL);
                assert_int_equal(rc, 0);
                check_common(&w);
                const struct table *t = &w.pmc;
                assert_true(cell(t, "Dispatch_ID", 0) == 1 && cell(t, "Dispatch_ID", 1) == 2);
                assert_true(cell(t, "Start_Timestamp", 0) == 0);
                assert_true(cell(t, "End_Timestamp", 0) == 100);
                assert_true(cell(t, "Start_Timestamp", 1) == 2000);
                assert_true(cell(t, "End_Timestamp", 1) == 2050);
                assert_true(workload_sys_num(&w, "num_memory_channels") == 128);
                assert_true(table_col(&w.sysinfo, "num_hbm_channels") < 0);
                workload_close(&w);
                rmdir_all(d);
        }
}

/* the first row's timestamps past 2^53: End - Start stays exact (21, not 20 or 22) */
static void test_first_exact(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-t-passes");
        put(d, "sysinfo.csv", SYSINFO_NEW);
        put(d, "results_pmc_perf_0.csv",
            HEAD17 ROW(1, 13386742234691895, 13386742234691916, "A", 1)
                ROW(2, 13386742234700001, 13386742234700031, "A", 1));
        struct pass_rules r = {.first_times = 1, .dispatch_base = 1};
        formats_rules_set(&r);
        struct workload w;
        struct err err = {0};
        int rc = workload_open(d, &w, &err);
        formats_rules_set(NULL);
        assert_int_equal(rc, 0);
        const struct table *t = &w.pmc;
        assert_true(cell(t, "End_Timestamp", 0) - cell(t, "Start_Timestamp", 0) == 21);
        /* 13386742234700001 - 13386742234691895 = 8106 */
        assert_true(cell(t, "Start_Timestamp", 1) == 8106);
        assert_true(cell(t, "End_Timestamp", 1) - cell(t, "Start_Timestamp", 1) == 30);
        workload_close(&w);
        rmdir_all(d);
}

/* a pmc_perf.csv beside the results files is 3.6-3.8's joined copy: not read */
static void test_joined_ignored(void **state)
{
        (void)state;
        char *d = three_passes(0);
        put(d, "pmc_perf.csv", "Dispatch_ID,Kernel_Name,A\n0,k,999\n");
        struct workload w;
        struct err err = {0};
        warn_quiet = 1;
        assert_int_equal(workload_open(d, &w, &err), 0);
        warn_quiet = 0;
        check_common(&w);
        workload_close(&w);
        rmdir_all(d);
}

/* 3.9+'s joined pmc_perf.csv.gz alone: read like pmc_perf.csv */
static void test_joined_gz(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-t-passes");
        put(d, "sysinfo.csv", SYSINFO_NEW);
        put_gz(d, "pmc_perf.csv.gz",
               "Dispatch_ID,Kernel_Name,Start_Timestamp,End_Timestamp,A\n0,k,10,30,7\n", 1);
        struct workload w;
        struct err err = {0};
        assert_int_equal(workload_open(d, &w, &err), 0);
        assert_true(cell(&w.pmc, "A", 0) == 7 && cell(&w.pmc, "End_Timestamp", 0) == 30);
        workload_close(&w);
        /* both pmc_perf.csv and pmc_perf.csv.gz: which one? an error naming it */
        put(d, "pmc_perf.csv", "Dispatch_ID,Kernel_Name,A\n0,k,8\n");
        assert_int_not_equal(workload_open(d, &w, &err), 0);
        assert_non_null(strstr(err.msg, "pmc_perf.csv.gz"));
        rmdir_all(d);
}

/* each bad input: a one-line error naming the file */
static void expect_error(const char *dir, const char *needle)
{
        struct workload w;
        struct err err = {0};
        assert_int_not_equal(workload_open(dir, &w, &err), 0);
        if (!strstr(err.msg, needle))
                fail_msg("'%s' does not name '%s'", err.msg, needle);
        assert_null(strchr(err.msg, '\n'));
}

static void test_bad(void **state)
{
        (void)state;
        /* damaged gzip: bytes of the compressed stream changed */
        char *d = three_passes(1);
        char *p = xasprintf("%s/results_pmc_perf_10.csv.gz", d);
        int fd = open(p, O_WRONLY);
        assert_true(fd >= 0);
        assert_int_equal(pwrite(fd, "\xff\xff\xff\xff\xff\xff", 6, 14), 6);
        close(fd);
        expect_error(d, "results_pmc_perf_10.csv.gz");
        /* truncated gzip */
        put_gz(d, "results_pmc_perf_10.csv.gz", PASS10, 1);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(truncate(p, st.st_size - 9), 0);
        expect_error(d, "results_pmc_perf_10.csv.gz");
        free(p);
        rmdir_all(d);
        /* a plain pass cut inside a number: the last line has no end */
        d = three_passes(0);
        put(d, "results_pmc_perf_2.csv", HEAD17 ROW(1, 9000, 9300, "B", 11) "4,g,7,2,1024,256,0,0,8,0,16,k,9500,9530,3,C,5");
        expect_error(d, "results_pmc_perf_2.csv");
        rmdir_all(d);
        /* a pass perfmon/ does not list */
        d = three_passes(0);
        put(d, "results_pmc_perf_3.csv", PASS2);
        expect_error(d, "results_pmc_perf_3.csv");
        rmdir_all(d);
        /* sysinfo with both names */
        d = three_passes(0);
        put(d, "sysinfo.csv", "gpu_arch,num_hbm_channels,num_memory_channels\ngfx942,128,128\n");
        expect_error(d, "sysinfo.csv");
        rmdir_all(d);
        /* a results file without the long layout's columns */
        d = three_passes(0);
        put(d, "results_pmc_perf_2.csv", "Dispatch_ID,Kernel_Name,A\n1,k,3\n");
        expect_error(d, "results_pmc_perf_2.csv");
        rmdir_all(d);
}

/* bytesrc on its own: plain bytes handed out whole, gzip by content whatever the name */
static void test_bytesrc(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-t-passes");
        put(d, "plain.gz", "x"); /* a 1-byte plain file named .gz */
        put_gz(d, "gz.csv", "hello, world\n", 3);
        const char *names[] = {"plain.gz", "gz.csv"};
        const char *want[] = {"x", "hello, world\n"};
        for (int i = 0; i < 2; i++) {
                char *p = xasprintf("%s/%s", d, names[i]);
                int fd = open(p, O_RDONLY);
                assert_true(fd >= 0);
                struct bsrc b;
                assert_int_equal(bsrc_open(&b, fd, p), 0);
                assert_int_equal(bsrc_compressed(&b), i == 1);
                char buf[64];
                size_t n = 0;
                ssize_t r;
                while ((r = bsrc_read(&b, buf + n, 3)) > 0) /* 3 at a time */
                        n += (size_t)r;
                assert_int_equal(r, 0);
                assert_int_equal(n, strlen(want[i]));
                assert_memory_equal(buf, want[i], n);
                bsrc_close(&b);
                close(fd);
                free(p);
        }
        rmdir_all(d);
}


/* Iteration multiplexing (profiling_config.yaml: iteration_multiplexing: kernel; perfmon/
 * lists 2 counter sets, so a kernel needs 2 dispatches). One results file, one row per
 * dispatch and counter, each dispatch with one bucket ({X} or {Y}):
 *   kernel a: d1 X=1, d2 Y=10, d3 X=3, d4 Y=30 -> buckets {X},{Y}: k = 2, runs (d1,d2),
 *             (d3,d4): d1 Y=10 (the next in its run), d2 X=1 (the previous), d3 Y=30, d4 X=3
 *   kernel b: d5 X=5 -> 1 dispatch < 2 sets: X n/a, left out (a warning names it)
 *   kernel c: d6 X=6, d7 Y=60, d8 X=8 -> runs (d6,d7), (d8): d8's Y stays n/a */
#define MROW(d, k, name, v) "4,g,7," #d ",1024,256,0,0,8,0,16," k ",100,200,3," name "," #v "\n"

static void test_multiplexing(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-t-passes");
        put(d, "sysinfo.csv", SYSINFO_NEW);
        put(d, "profiling_config.yaml", "iteration_multiplexing: kernel\n");
        put(d, "results_pmc_perf.csv",
            HEAD17 MROW(1, "a", "X", 1) MROW(2, "a", "Y", 10) MROW(3, "a", "X", 3)
                MROW(4, "a", "Y", 30) MROW(5, "b", "X", 5) MROW(6, "c", "X", 6)
                    MROW(7, "c", "Y", 60) MROW(8, "c", "X", 8));
        char *pm = xasprintf("%s/perfmon", d);
        assert_int_equal(mkdir(pm, 0755), 0);
        put(pm, "pmc_perf_0.yaml", "jobs:\n  - pmc: [X]\n");
        put(pm, "pmc_perf_1.yaml", "jobs:\n  - pmc: [Y]\n");
        free(pm);
        struct workload w;
        struct err err = {0};
        warn_quiet = 1;
        int rc = workload_open(d, &w, &err);
        warn_quiet = 0;
        assert_int_equal(rc, 0);
        const struct table *t = &w.pmc;
        assert_int_equal(t->nrows, 8);
        static const double x[] = {1, 1, 3, 3, NAN, 6, 6, 8};
        static const double y[] = {10, 10, 30, 30, NAN, 60, 60, NAN};
        for (size_t r = 0; r < 8; r++) {
                double gx = cell(t, "X", r), gy = cell(t, "Y", r);
                if (!(isnan(x[r]) ? isnan(gx) : gx == x[r]) ||
                    !(isnan(y[r]) ? isnan(gy) : gy == y[r]))
                        fail_msg("row %zu: X %g Y %g, want %g %g", r, gx, gy, x[r], y[r]);
        }
        /* the left-out kernel keeps its time */
        assert_true(cell(t, "End_Timestamp", 4) == 100);
        workload_close(&w);
        /* without iteration multiplexing nothing is filled in (and the one results file
         * is a pass perfmon/ must list: without its lists, nothing to check) */
        put(d, "profiling_config.yaml", "iteration_multiplexing: null\n");
        char *y0 = xasprintf("%s/perfmon/pmc_perf_0.yaml", d), *y1 = xasprintf("%s/perfmon/pmc_perf_1.yaml", d);
        assert_int_equal(unlink(y0) | unlink(y1), 0);
        free(y0);
        free(y1);
        warn_quiet = 1;
        rc = workload_open(d, &w, &err);
        warn_quiet = 0;
        assert_int_equal(rc, 0);
        assert_true(isnan(cell(&w.pmc, "Y", 0)) && cell(&w.pmc, "X", 4) == 5);
        workload_close(&w);
        rmdir_all(d);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rules_33),       cmocka_unit_test(test_rules_310),
                cmocka_unit_test(test_first_exact),    cmocka_unit_test(test_joined_ignored),
                cmocka_unit_test(test_joined_gz),      cmocka_unit_test(test_bad),
                cmocka_unit_test(test_bytesrc),        cmocka_unit_test(test_multiplexing),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
