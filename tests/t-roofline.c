/* The roofline arithmetic: intensity and rate helpers, ceilings from roofline.csv, and the
 * whole chain (metrics/ roof.* formulas -> per-kernel means -> AI and GFLOP/s) on the hand-made
 * workload tests/data/roofline/wl, against values computed by hand below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/roofline.h"

#define WL "tests/data/roofline/wl"

/* equal within a relative 1e-12, NaN == NaN */
static void near(double want, double got, const char *what)
{
        if (isnan(want) && isnan(got))
                return;
        if (!(fabs(want - got) <= 1e-12 * fabs(want) + 1e-15)) {
                fprintf(stderr, "%s: want %.17g, got %.17g\n", what, want, got);
                fail();
        }
}

/* ---- the helpers, as a table of cases ---- */

static void test_helpers(void **state)
{
        (void)state;
        static const struct {
                double flops, bytes, ai;
        } ai[] = {
            {288000, 7680, 37.5}, {288000, 21760, 13.235294117647058},
            {0, 64000, 0},   /* no FLOPs: intensity 0 (not plottable, still a value) */
            {17920, 0, NAN}, /* no bytes at that level: n/a, not inf */
            {NAN, 100, NAN}, /* a counter missing */
            {100, NAN, NAN},      {100, -5, NAN},
        };
        for (size_t i = 0; i < sizeof ai / sizeof ai[0]; i++)
                near(ai[i].ai, roof_ai(ai[i].flops, ai[i].bytes), "roof_ai");
        /* FLOP per ns is GFLOP per s */
        near(144, roof_gflops(288000, 2000), "gflops");
        near(1.792, roof_gflops(17920, 10000), "gflops");
        near(NAN, roof_gflops(1, 0), "gflops of 0 ns");
        near(0, roof_gflops(0, 10), "gflops of no work");
        /* min(bw * ai, peak) */
        near(4950, roof_attainable(1100, 21000, 4.5), "memory bound");
        near(21000, roof_attainable(1100, 21000, 37.5), "compute bound");
        assert_int_equal(roof_level_parse("HBM"), ROOF_HBM);
        assert_int_equal(roof_level_parse("hbm"), ROOF_HBM);
        assert_int_equal(roof_level_parse("L2"), ROOF_L2);
        assert_int_equal(roof_level_parse("vL1D"), ROOF_L1);
        assert_int_equal(roof_level_parse("L1"), ROOF_L1);
        assert_int_equal(roof_level_parse("lds"), ROOF_LDS);
        assert_int_equal(roof_level_parse("L3"), -1);
}

/* ---- ceilings ---- */

static void test_ceilings(void **state)
{
        (void)state;
        struct table t;
        struct err err = {0};
        struct roof_ceilings c;
        table_init(&t);
        assert_int_equal(table_load_csv(&t, WL "/roofline.csv", &err), 0);
        /* the mean of the two devices */
        assert_int_equal(roof_ceilings_read(&t, -1, &c, &err), 0);
        assert_int_equal(c.have, 1);
        assert_int_equal(c.ndevices, 2);
        near(1100, c.bw[ROOF_HBM], "HBM");
        near(4500, c.bw[ROOF_L2], "L2");
        near(8500, c.bw[ROOF_L1], "L1");
        near(17000, c.bw[ROOF_LDS], "LDS");
        near(21000, c.peak[ROOF_VALU_F32], "FP32");
        near(11000, c.peak[ROOF_VALU_F64], "FP64");
        near(NAN, c.peak[ROOF_VALU_F16], "no FP16 VALU ceiling is measured");
        near(170000, c.peak[ROOF_MFMA_F16], "MFMA F16");
        near(171000, c.peak[ROOF_MFMA_BF16], "MFMA BF16");
        near(41000, c.peak[ROOF_MFMA_F32], "MFMA F32");
        near(42000, c.peak[ROOF_MFMA_F64], "MFMA F64");
        near(160000, c.peak[ROOF_MFMA_I8], "MFMA I8");
        /* one device */
        assert_int_equal(roof_ceilings_read(&t, 1, &c, &err), 0);
        assert_int_equal(c.ndevices, 1);
        near(1200, c.bw[ROOF_HBM], "HBM of device 1");
        near(44000, c.peak[ROOF_MFMA_F64], "MFMA F64 of device 1");
        /* a device that is not there */
        assert_int_not_equal(roof_ceilings_read(&t, 3, &c, &err), 0);
        assert_string_equal(err.msg, "--device 3: roofline.csv has devices 0, 1");
        table_free(&t);
}

/* ---- the whole chain on the hand-made workload ---- */

struct fixture {
        struct workload w;
        struct arch a;
        struct panel_set ps;
};

static int setup(void **state)
{
        struct fixture *f = xcalloc(1, sizeof *f);
        struct err err = {0};
        warn_quiet = 1;
        if (workload_open(WL, &f->w, &err) || arch_load("metrics", f->w.arch, &f->a, &err) ||
            panels_load("panels", &f->ps, &err)) {
                fprintf(stderr, "fixture: %s\n", err.msg);
                return -1;
        }
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *f = *state;
        workload_close(&f->w);
        arch_free(&f->a);
        panels_free(&f->ps);
        free(f);
        return 0;
}

/* the analysis of panel 4, which builds the roofline and its tables */
static const struct roofline *build(struct fixture *f, const struct roof_opts *ro,
                                    struct analysis *an)
{
        struct err err = {0};
        const char *blocks[] = {"4"};
        struct analysis_opts o = {.norm = "per_wave",
                                  .time_unit = "ns",
                                  .blocks = blocks,
                                  .nblocks = 1,
                                  .kernel_verbose = 5,
                                  .no_findings = 1, /* panel 0: its top-stats tables only */
                                  .roof = ro};
        if (analysis_run(&f->w, &f->a, &f->ps, &o, an, &err)) {
                fprintf(stderr, "%s\n", err.msg);
                fail();
        }
        assert_non_null(an->roof);
        return an->roof;
}

/*
 * By hand, with the formulas of metrics/cdna.yaml (roof.*):
 *
 * kernA, dispatches 0 and 2 (1000 ns and 3000 ns):
 *   FLOPs   64 * (ADD_F32 + 2 * FMA_F32): 64 * (500 + 2000) = 160000 and
 *           64 * (500 + 6000) = 416000; mean 288000; mean duration 2000 ns -> 144 GFLOP/s
 *   HBM     32 * RDREQ_32B + 64 * (RDREQ - RDREQ_32B) + 64 * WRREQ_64B + 32 * (WRREQ -
 *           WRREQ_64B) = 32*20 + 64*80 + 64*10 + 32*40 = 7680 B     -> AI 288000/7680 = 37.5
 *   L2      64 * (200 + 100 + 10 + 30) = 21760 B                    -> AI 13.2352941176...
 *   vL1D    64 * 1000 = 64000 B                                     -> AI 4.5
 *   LDS     (0 - 0) * 4 * 32 = 0 B                                  -> AI n/a
 * kernB, dispatch 1 (10000 ns):
 *   FLOPs   512 * MFMA_F16 + 64 * 2 * FMA_F64 = 5120 + 12800 = 17920 (the I8 MFMA ops,
 *           512 * 4 = 2048, are not FLOPs)                          -> 1.792 GFLOP/s
 *   LDS     (300 - 100) * 4 * lds_banks_per_cu (32) = 25600 B       -> AI 0.7
 *   HBM, L2, vL1D: no bytes                                         -> AI n/a
 * Top kernels by total time: kernB (10000 ns) first, then kernA (4000 ns).
 */
static void test_kernels(void **state)
{
        struct fixture *f = *state;
        struct analysis an;
        struct roof_opts ro = {.device = -1};
        const struct roofline *rp = build(f, &ro, &an), r = *rp;
        assert_int_equal(r.npts, 2);
        assert_null(r.note);
        const struct roof_point *b = &r.pts[0], *a = &r.pts[1];
        assert_string_equal(b->name, "kernB");
        assert_string_equal(a->name, "kernA");
        assert_int_equal(a->calls, 2);
        assert_int_equal(b->calls, 1);
        near(288000, a->flops, "kernA FLOPs");
        near(2000, a->duration, "kernA duration");
        near(144, a->perf, "kernA GFLOP/s");
        near(37.5, a->ai[ROOF_HBM], "kernA AI HBM");
        near(288000.0 / 21760.0, a->ai[ROOF_L2], "kernA AI L2");
        near(4.5, a->ai[ROOF_L1], "kernA AI vL1D");
        near(NAN, a->ai[ROOF_LDS], "kernA AI LDS");
        near(144, a->dtype_perf[ROOF_VALU_F32], "kernA VALU FP32");
        near(0, a->dtype_perf[ROOF_VALU_F64], "kernA VALU FP64");
        near(17920, b->flops, "kernB FLOPs");
        near(1.792, b->perf, "kernB GFLOP/s");
        near(0.7, b->ai[ROOF_LDS], "kernB AI LDS");
        near(NAN, b->ai[ROOF_HBM], "kernB AI HBM");
        near(0.512, b->dtype_perf[ROOF_MFMA_F16], "kernB MFMA F16");
        near(1.28, b->dtype_perf[ROOF_VALU_F64], "kernB VALU FP64");
        near(0.2048, b->dtype_perf[ROOF_MFMA_I8], "kernB MFMA I8");

        /* the computed tables follow panel 4's own, with their ids */
        static const char *const ids[] = {"0.1", "0.2", "4.1", "4.2", "4.3", "4.4", "4.5"};
        assert_int_equal(an.ntables, 7);
        for (size_t i = 0; i < 7; i++)
                assert_string_equal(an.tables[i].id, ids[i]);
        const struct rtable *pts = &an.tables[5];
        assert_int_equal(pts->nrows, 2);
        assert_string_equal(pts->cols[2], "AI HBM (FLOP/B)");
        near(37.5, pts->cells[1 * pts->ncols + 2].v, "table: kernA AI HBM");
        near(144, pts->cells[1 * pts->ncols + pts->ncols - 1].v, "table: kernA GFLOP/s");
        const struct rtable *ceil = &an.tables[4];
        near(1100, ceil->cells[0 * ceil->ncols + 1].v, "table: HBM ceiling");
        analysis_free(&an);
}

/* --sort dispatches: one point per dispatch, longest first */
static void test_dispatches(void **state)
{
        struct fixture *f = *state;
        struct analysis an;
        struct roof_opts ro = {.device = 1, .by_dispatch = 1, .levels = 1u << ROOF_HBM};
        const struct roofline *rp = build(f, &ro, &an), r = *rp;
        assert_int_equal(r.npts, 3);
        near(1, r.pts[0].dispatch_id, "longest dispatch");
        near(2, r.pts[1].dispatch_id, "second");
        near(0, r.pts[2].dispatch_id, "third");
        near(416000.0 / 3000.0, r.pts[1].perf, "dispatch 2 GFLOP/s");
        near(416000.0 / 7680.0, r.pts[1].ai[ROOF_HBM], "dispatch 2 AI HBM");
        near(160, r.pts[2].perf, "dispatch 0 GFLOP/s");
        near(1200, r.c.bw[ROOF_HBM], "device 1 ceiling");
        /* --mem-level HBM: one intensity column */
        const struct rtable *pts = NULL;
        for (size_t i = 0; i < an.ntables; i++)
                if (!strcmp(an.tables[i].pt->source ? an.tables[i].pt->source : "",
                            "roofline_points"))
                        pts = &an.tables[i];
        assert_non_null(pts);
        assert_int_equal(pts->ncols, 4);
        assert_string_equal(pts->cells[1 * pts->ncols].text, "kernA [dispatch 2]");
        analysis_free(&an);
}

/* no roofline.csv: the points and a note, no ceilings table; --top limits the points */
static void test_no_ceilings(void **state)
{
        struct fixture *f = *state;
        struct analysis an;
        struct roof_opts ro = {.device = -1, .top = 1};
        f->w.has_roofline = 0;
        const struct roofline *rp = build(f, &ro, &an), r = *rp;
        f->w.has_roofline = 1;
        assert_int_equal(r.c.have, 0);
        assert_non_null(r.note);
        assert_non_null(strstr(r.note, "no roofline.csv"));
        assert_int_equal(r.npts, 1);
        assert_string_equal(r.pts[0].name, "kernB");
        /* 4.1 (roofline.csv) and 4.3 (ceilings) are absent, 4.2, 4.4, 4.5 there */
        static const char *const ids[] = {"0.1", "0.2", "4.2", "4.4", "4.5"};
        assert_int_equal(an.ntables, 5);
        for (size_t i = 0; i < 5; i++)
                assert_string_equal(an.tables[i].id, ids[i]);
        analysis_free(&an);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_helpers),
            cmocka_unit_test(test_ceilings),
            cmocka_unit_test_setup_teardown(test_kernels, setup, teardown),
            cmocka_unit_test_setup_teardown(test_dispatches, setup, teardown),
            cmocka_unit_test_setup_teardown(test_no_ceilings, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
