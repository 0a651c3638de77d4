/* The roofline arithmetic: intensity and rate helpers, ceilings from roofline.csv, and the
 * whole chain (metrics/ roof.* formulas -> per-kernel means -> AI and GFLOP/s) on the hand-made
 * workload tests/data/roofline/wl, against values computed by hand below; and the roofline as
 * data: a family with other levels and ceilings (a test YAML) gets those rows, columns and
 * labels, and a missing or malformed `roofline:` section is a one-line error naming its file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "analyze/roofline.h"
#include "render/roofplot.h"
#include "render/roofplot_int.h"
#include "tmpfiles.h"

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

/* the index of the level or ceiling named so in spec (fails the test if there is none) */
static int lv(const struct roof_spec *spec, const char *name)
{
        int l = roof_level_parse(spec, name);
        if (l < 0) {
                fprintf(stderr, "no level %s\n", name);
                fail();
        }
        return l;
}

static int cl(const struct roof_spec *spec, const char *name)
{
        for (size_t i = 0; i < spec->nceilings; i++)
                if (!strcmp(spec->ceilings[i].name, name))
                        return (int)i;
        fprintf(stderr, "no ceiling %s\n", name);
        fail();
        return -1;
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
}

/* ---- ceilings ---- */

static void test_ceilings(void **state)
{
        (void)state;
        struct table t;
        struct err err = {0};
        struct roof_ceilings c;
        struct arch a;
        assert_int_equal(arch_load("metrics", "gfx90a", &a, &err), 0);
        const struct roof_spec *sp = &a.roof;
        /* the levels as cdna.yaml lists them, under their names and other names */
        assert_int_equal(sp->nlevels, 4);
        assert_int_equal(sp->nceilings, 8);
        assert_int_equal(roof_level_parse(sp, "HBM"), 0);
        assert_int_equal(roof_level_parse(sp, "hbm"), 0);
        assert_int_equal(roof_level_parse(sp, "L2"), 1);
        assert_int_equal(roof_level_parse(sp, "vL1D"), 2);
        assert_int_equal(roof_level_parse(sp, "L1"), 2);
        assert_int_equal(roof_level_parse(sp, "lds"), 3);
        assert_int_equal(roof_level_parse(sp, "L3"), -1);
        table_init(&t);
        assert_int_equal(table_load_csv(&t, WL "/roofline.csv", &err), 0);
        /* the mean of the two devices */
        assert_int_equal(roof_ceilings_read(&t, sp, -1, &c, &err), 0);
        assert_int_equal(c.have, 1);
        assert_int_equal(c.ndevices, 2);
        near(1100, c.bw[lv(sp, "HBM")], "HBM");
        near(4500, c.bw[lv(sp, "L2")], "L2");
        near(8500, c.bw[lv(sp, "vL1D")], "L1");
        near(17000, c.bw[lv(sp, "LDS")], "LDS");
        near(21000, c.peak[cl(sp, "VALU FP32")], "FP32");
        near(11000, c.peak[cl(sp, "VALU FP64")], "FP64");
        near(NAN, c.peak[cl(sp, "VALU FP16")], "no FP16 VALU ceiling is measured");
        near(170000, c.peak[cl(sp, "MFMA FP16")], "MFMA F16");
        near(171000, c.peak[cl(sp, "MFMA BF16")], "MFMA BF16");
        near(41000, c.peak[cl(sp, "MFMA FP32")], "MFMA F32");
        near(42000, c.peak[cl(sp, "MFMA FP64")], "MFMA F64");
        near(160000, c.peak[cl(sp, "MFMA I8")], "MFMA I8");
        assert_int_equal(sp->ceilings[cl(sp, "MFMA I8")].integer, 1);
        assert_int_equal(sp->ceilings[cl(sp, "MFMA I8")].matrix, 1);
        assert_int_equal(sp->ceilings[cl(sp, "VALU FP64")].matrix, 0);
        /* one device */
        assert_int_equal(roof_ceilings_read(&t, sp, 1, &c, &err), 0);
        assert_int_equal(c.ndevices, 1);
        near(1200, c.bw[lv(sp, "HBM")], "HBM of device 1");
        near(44000, c.peak[cl(sp, "MFMA FP64")], "MFMA F64 of device 1");
        /* a device that is not there */
        assert_int_not_equal(roof_ceilings_read(&t, sp, 3, &c, &err), 0);
        assert_string_equal(err.msg, "--device 3: roofline.csv has devices 0, 1");
        /* --mem-level names */
        char *names[] = {"l2", "LDS"};
        unsigned mask = 7;
        assert_int_equal(roof_levels_mask(sp, names, 2, &mask, &err), 0);
        assert_int_equal(mask, (1u << 1) | (1u << 3));
        assert_int_equal(roof_levels_mask(sp, NULL, 0, &mask, &err), 0);
        assert_int_equal(mask, 0);
        char *bad[] = {"L2", "L3"};
        assert_int_equal(roof_levels_mask(sp, bad, 2, &mask, &err), ERR_USAGE);
        assert_string_equal(err.msg, "unknown memory level 'L3' (HBM, L2, vL1D, LDS)");
        table_free(&t);
        arch_free(&a);
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
static int run_panel4(struct fixture *f, const struct roof_opts *ro, struct analysis *an,
                      struct err *err)
{
        const char *blocks[] = {"4"};
        struct analysis_opts o = {.norm = "per_wave",
                                  .time_unit = "ns",
                                  .blocks = blocks,
                                  .nblocks = 1,
                                  .kernel_verbose = 5,
                                  .no_findings = 1, /* panel 0: its top-stats tables only */
                                  .roof = ro};
        return analysis_run(&f->w, &f->a, &f->ps, &o, an, err);
}

static const struct roofline *build(struct fixture *f, const struct roof_opts *ro,
                                    struct analysis *an)
{
        struct err err = {0};
        if (run_panel4(f, ro, an, &err)) {
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
        const struct roof_spec *sp = r.spec;
        assert_ptr_equal(sp, &f->a.roof);
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
        near(37.5, a->ai[lv(sp, "HBM")], "kernA AI HBM");
        near(288000.0 / 21760.0, a->ai[lv(sp, "L2")], "kernA AI L2");
        near(4.5, a->ai[lv(sp, "vL1D")], "kernA AI vL1D");
        near(NAN, a->ai[lv(sp, "LDS")], "kernA AI LDS");
        near(144, a->dtype_perf[cl(sp, "VALU FP32")], "kernA VALU FP32");
        near(0, a->dtype_perf[cl(sp, "VALU FP64")], "kernA VALU FP64");
        near(17920, b->flops, "kernB FLOPs");
        near(1.792, b->perf, "kernB GFLOP/s");
        near(0.7, b->ai[lv(sp, "LDS")], "kernB AI LDS");
        near(NAN, b->ai[lv(sp, "HBM")], "kernB AI HBM");
        near(0.512, b->dtype_perf[cl(sp, "MFMA FP16")], "kernB MFMA F16");
        near(1.28, b->dtype_perf[cl(sp, "VALU FP64")], "kernB VALU FP64");
        near(0.2048, b->dtype_perf[cl(sp, "MFMA I8")], "kernB MFMA I8");

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
        const struct roof_spec *sp = &f->a.roof;
        struct roof_opts ro = {.device = 1, .by_dispatch = 1, .levels = 1u << lv(sp, "HBM")};
        const struct roofline *rp = build(f, &ro, &an), r = *rp;
        assert_int_equal(r.npts, 3);
        near(1, r.pts[0].dispatch_id, "longest dispatch");
        near(2, r.pts[1].dispatch_id, "second");
        near(0, r.pts[2].dispatch_id, "third");
        near(416000.0 / 3000.0, r.pts[1].perf, "dispatch 2 GFLOP/s");
        near(416000.0 / 7680.0, r.pts[1].ai[lv(sp, "HBM")], "dispatch 2 AI HBM");
        near(160, r.pts[2].perf, "dispatch 0 GFLOP/s");
        near(1200, r.c.bw[lv(sp, "HBM")], "device 1 ceiling");
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

/* ---- the levels and ceilings are the family's data ---- */

/* A family of its own for the hand-made workload's gfx90a: two levels under other names
 * (one with a row key of its own), a vector and a matrix ceiling and an integer one with no
 * measured peak, with roof.* formulas over the workload's counters. */
static const char fam_head[] =
    "family: twolevel\narchs: [gfx90a]\ndescription: a roofline of two levels\n";
static const char fam_roof[] =
    "roofline:\n"
    "  total: roof.total_flops\n"
    "  duration: roof.duration\n"
    "  levels:\n"
    "    - {name: Far, also: [F], mark: F, column: HBMBw, row: FarBw, bytes: roof.hbm_bytes}\n"
    "    - {name: Near, mark: N, column: LDSBw, bytes: roof.lds_bytes}\n"
    "  ceilings:\n"
    "    - {unit: Scalar, type: D, kind: vector, ops: roof.valu_flops_f64, column: FP64Flops}\n"
    "    - {unit: Grid, type: H, kind: matrix, ops: roof.mfma_flops_f16, column: MFMAF16Flops}\n"
    "    - {unit: Grid, type: B8, kind: matrix, integer: true, ops: roof.mfma_iops_i8}\n";
static const char fam_metrics[] =
    "metrics:\n"
    "  roof.total_flops:\n"
    "    name: Total FLOPs\n"
    "    expr: 128 * SQ_INSTS_VALU_FMA_F64 + 512 * SQ_INSTS_VALU_MFMA_MOPS_F16\n"
    "  roof.valu_flops_f64: {name: D FLOPs, expr: 128 * SQ_INSTS_VALU_FMA_F64}\n"
    "  roof.mfma_flops_f16: {name: H FLOPs, expr: 512 * SQ_INSTS_VALU_MFMA_MOPS_F16}\n"
    "  roof.mfma_iops_i8: {name: B8 OPs, expr: 512 * SQ_INSTS_VALU_MFMA_MOPS_I8}\n"
    "  roof.hbm_bytes: {name: Far Bytes, expr: 64 * TCC_EA_RDREQ_sum}\n"
    "  roof.lds_bytes:\n"
    "    name: Near Bytes\n"
    "    expr: (SQ_LDS_IDX_ACTIVE - SQ_LDS_BANK_CONFLICT) * 128\n"
    "  roof.duration: {name: Duration, expr: End_Timestamp - Start_Timestamp}\n";

/* dir/twolevel.yaml from the three parts (roof NULL: no roofline section) */
static char *put_family(const char *dir, const char *roof)
{
        char *text = xasprintf("%s%s%s", fam_head, roof ? roof : "", fam_metrics);
        put(dir, "twolevel.yaml", text);
        free(text);
        return xasprintf("%s/twolevel.yaml", dir);
}

static void test_other_family(void **state)
{
        struct fixture *f = *state;
        struct err err = {0};
        char *dir = tmpdir_new("prism-roof");
        char *path = put_family(dir, fam_roof);
        arch_free(&f->a);
        assert_int_equal(arch_load(dir, "gfx90a", &f->a, &err), 0);
        const struct roof_spec *sp = &f->a.roof;
        assert_int_equal(sp->nlevels, 2);
        assert_int_equal(sp->nceilings, 3);
        assert_int_equal(roof_level_parse(sp, "f"), 0);
        assert_int_equal(roof_level_parse(sp, "NEAR"), 1);
        assert_int_equal(roof_level_parse(sp, "HBM"), -1);
        char *hbm[] = {"HBM"};
        unsigned mask;
        assert_int_equal(roof_levels_mask(sp, hbm, 1, &mask, &err), ERR_USAGE);
        assert_string_equal(err.msg, "unknown memory level 'HBM' (Far, Near)");

        struct analysis an;
        struct roof_opts ro = {.device = -1};
        const struct roofline *r = build(f, &ro, &an);
        /* kernB: 128 * 100 + 512 * 10 FLOPs in 10000 ns; (300 - 100) * 128 bytes near */
        assert_int_equal(r->npts, 2);
        assert_string_equal(r->pts[0].name, "kernB");
        near(1.792, r->pts[0].perf, "kernB GFLOP/s");
        near(17920.0 / 25600.0, r->pts[0].ai[1], "kernB AI Near");
        near(NAN, r->pts[0].ai[0], "kernB AI Far (no bytes)");
        near(1.28, r->pts[0].dtype_perf[0], "kernB D");
        near(0.512, r->pts[0].dtype_perf[1], "kernB H");
        near(0.2048, r->pts[0].dtype_perf[2], "kernB B8");
        near(1100, r->c.bw[0], "Far ceiling: the HBMBw column");
        near(17000, r->c.bw[1], "Near ceiling: the LDSBw column");
        near(11000, r->c.peak[0], "D peak");
        near(NAN, r->c.peak[2], "B8: no column, no peak");
        /* 4.3: a row per level and per measured ceiling, by its row key (or column) */
        const struct rtable *ceil = &an.tables[4], *pts = &an.tables[5], *dt = &an.tables[6];
        static const char *const keys[] = {"FarBw", "LDSBw", "FP64Flops", "MFMAF16Flops"};
        static const char *const what[] = {"Far Bandwidth", "Near Bandwidth", "Peak Scalar D",
                                           "Peak Grid H"};
        assert_int_equal(ceil->nrows, 4);
        for (size_t i = 0; i < 4; i++) {
                assert_string_equal(ceil->rkeys[i], keys[i]);
                assert_string_equal(ceil->cells[i * ceil->ncols].text, what[i]);
        }
        /* 4.4: an intensity column per level; 4.5: a column per ceiling */
        static const char *const pcols[] = {"Kernel_Name", "Dispatches", "AI Far (FLOP/B)",
                                            "AI Near (FLOP/B)", "Performance (GFLOP/s)"};
        assert_int_equal(pts->ncols, 5);
        for (size_t i = 0; i < 5; i++)
                assert_string_equal(pts->cols[i], pcols[i]);
        static const char *const dcols[] = {"Kernel_Name", "Scalar D", "Grid H",
                                            "Grid B8 (GIOP/s)"};
        assert_int_equal(dt->ncols, 4);
        for (size_t i = 0; i < 4; i++)
                assert_string_equal(dt->cols[i], dcols[i]);
        /* the plot: the levels' marks and names; in SVG the matrix ceiling is dotted and the
         * vector one dashed by their kind, whatever their names */
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        roofplot_text(m, r, 120);
        fclose(m);
        assert_non_null(strstr(text, "points: F Far, N Near; kN: row N of table 4.4"));
        assert_non_null(strstr(text, "Far 1.1 TB/s, Near 17 TB/s, Scalar D 11 TFLOP/s, "
                                     "Grid H 170 TFLOP/s"));
        free(text);
        char *svg = xasprintf("%s/roofline.svg", dir);
        assert_int_equal(roofplot_svg(svg, r, &err), 0);
        FILE *sf = fopen(svg, "r");
        assert_non_null(sf);
        char line[1024];
        int dotted = 0, dashed = 0;
        while (fgets(line, sizeof line, sf)) {
                dotted += strstr(line, "stroke-dasharray=\"2 3\"") != NULL;
                dashed += strstr(line, "stroke-dasharray=\"6 3\"") != NULL;
        }
        fclose(sf);
        assert_int_equal(dotted, 1);
        assert_int_equal(dashed, 1);
        unlink(svg);
        free(svg);
        analysis_free(&an);
        unlink(path);
        rmdir(dir);
        free(path);
        free(dir);
}

/* a family without the section: the roofline tables are an error naming its file */
static void test_no_section(void **state)
{
        struct fixture *f = *state;
        struct err err = {0};
        char *dir = tmpdir_new("prism-roof");
        char *path = put_family(dir, NULL);
        arch_free(&f->a);
        assert_int_equal(arch_load(dir, "gfx90a", &f->a, &err), 0);
        assert_null(f->a.roof.file);
        struct roof_opts ro = {.device = -1};
        struct analysis an;
        assert_int_equal(run_panel4(f, &ro, &an, &err), ERR_INPUT);
        char *want = xasprintf("%s: family twolevel has no 'roofline:' section (the levels and "
                               "ceilings of panel 4)",
                               path);
        assert_string_equal(err.msg, want);
        free(want);
        unlink(path);
        rmdir(dir);
        free(path);
        free(dir);
}

/* malformed sections: one line, file:line:col, naming what is wrong */
static void test_bad_sections(void **state)
{
        (void)state;
        static const struct {
                const char *from, *to, *msg;
        } cases[] = {
            {"kind: matrix, ops: roof.mfma_flops_f16", "kind: tensor, ops: roof.mfma_flops_f16",
             "a ceiling's kind is vector or matrix, not 'tensor'"},
            {"mark: N, ", "", "an entry of 'levels' lacks 'mark'"},
            {"mark: N,", "mark: NN,", "a level's mark is one character, not 'NN'"},
            {"bytes: roof.lds_bytes", "bytes: roof.lds_bytez", "'roof.lds_bytez' is no metric"},
            {"row: FarBw", "rwo: FarBw", "unknown key 'rwo' in 'levels'"},
            {"name: Near", "name: F", "the level name 'F' is used twice"},
            {"integer: true", "integer: yes", "'integer' is true or false"},
            {"  levels:\n", "  levelz:\n", "unknown key 'levelz' in 'roofline'"},
            {"also: [F]", "also: F", "'also' must be a list of names"},
        };
        char *dir = tmpdir_new("prism-roof");
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                const char *at = strstr(fam_roof, cases[i].from);
                assert_non_null(at);
                char *roof = xasprintf("%.*s%s%s", (int)(at - fam_roof), fam_roof, cases[i].to,
                                       at + strlen(cases[i].from));
                char *path = put_family(dir, roof);
                struct arch a;
                struct err err = {0};
                assert_int_equal(arch_load(dir, "gfx90a", &a, &err), ERR_INPUT);
                if (strncmp(err.msg, path, strlen(path)) || !strstr(err.msg, "roofline: ") ||
                    !strstr(err.msg, cases[i].msg) || strchr(err.msg, '\n')) {
                        fprintf(stderr, "case %zu: %s\n", i, err.msg);
                        fail();
                }
                unlink(path);
                free(path);
                free(roof);
        }
        rmdir(dir);
        free(dir);
}

/* ---- where the plots' labels go (render/roofplot.c) ---- */

static void test_label_placement(void **state)
{
        (void)state;
        /* ceilings by peak, highest first, ties in spec order, unmeasured left out */
        struct roof_ceiling_def defs[4] = {{.name = "A"}, {.name = "B"}, {.name = "C"},
                                           {.name = "D"}};
        struct roof_spec spec = {.ceilings = defs, .nceilings = 4};
        struct roofline r = {.spec = &spec};
        double peaks[4] = {10, NAN, 40, 10};
        memcpy(r.c.peak, peaks, sizeof peaks);
        int order[4];
        assert_int_equal(roof_ceilings_by_peak(&r, order), 3);
        assert_int_equal(order[0], 2);
        assert_int_equal(order[1], 0);
        assert_int_equal(order[2], 3);

        /* stacked from the top: at least gap apart, the first where it was */
        double y[] = {100, 105, 130, 131, 200};
        roof_stack_down(y, 5, 14);
        static const double want[] = {100, 114, 130, 144, 200};
        for (int i = 0; i < 5; i++)
                near(want[i], y[i], "stacked label");

        /* a marker moves right past those it would cover (2r + 1 apart), chain by chain */
        double pos[3][2] = {{100, 50}, {114, 50}, {300, 50}};
        near(128, roof_place_point(pos, 3, 100, 50, 6), "marker on two others");
        near(100, roof_place_point(pos, 3, 100, 64, 6), "marker a row below");
        near(150, roof_place_point(pos, 3, 150, 50, 6), "marker between");

        /* labels along a horizontal line (ux 1): a second one in the first's band moves
         * past its end (+10), one a band away stays */
        struct roof_span placed[2];
        int n = 0;
        double px = 10, py = 20;
        roof_place_along(placed, &n, 2, 15, 1, 0, 50, &px, &py);
        near(10, px, "first label");
        px = 20, py = 25;
        roof_place_along(placed, &n, 2, 15, 1, 0, 30, &px, &py);
        near(70, px, "second label moved past the first");
        near(25, py, "along x only");
        assert_int_equal(n, 2);
        px = 10, py = 60;
        roof_place_along(placed, &n, 2, 15, 1, 0, 30, &px, &py);
        near(10, px, "a label a band away");
        assert_int_equal(n, 2); /* full: not added */

        /* ceilings on one text row: vector ones first, a unit's types after its name */
        struct roof_ceiling_def cd[3] = {
            {.unit = "MFMA", .type = "F16", .name = "MFMA F16", .matrix = 1},
            {.unit = "VALU", .type = "FP32", .name = "VALU FP32"},
            {.unit = "MFMA", .type = "BF16", .name = "MFMA BF16", .matrix = 1}};
        struct roof_spec s3 = {.ceilings = cd, .nceilings = 3};
        struct roofline r3 = {.spec = &s3};
        int row[3] = {4, 4, 4};
        char buf[64];
        roof_ceiling_names(&r3, row, 4, buf, sizeof buf);
        assert_string_equal(buf, "VALU FP32, MFMA F16/BF16");
        row[1] = 5;
        roof_ceiling_names(&r3, row, 5, buf, sizeof buf);
        assert_string_equal(buf, "VALU FP32");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_helpers),
            cmocka_unit_test(test_label_placement),
            cmocka_unit_test(test_ceilings),
            cmocka_unit_test_setup_teardown(test_kernels, setup, teardown),
            cmocka_unit_test_setup_teardown(test_dispatches, setup, teardown),
            cmocka_unit_test_setup_teardown(test_no_ceilings, setup, teardown),
            cmocka_unit_test_setup_teardown(test_other_family, setup, teardown),
            cmocka_unit_test_setup_teardown(test_no_section, setup, teardown),
            cmocka_unit_test(test_bad_sections),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
