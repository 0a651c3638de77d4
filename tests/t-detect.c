/* GPU detection on fake sysfs trees (tests/fake/sysfs-*): KFD topology parsing, the
 * gfx_target_version and device-id tables, and the sysinfo.csv row built from them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/backend.h"
#include "profile/backend/amd/detect.h"
#include "store/table.h"

static const char *fake_dir(void)
{
        const char *d = getenv("PRISM_TEST_FAKE");
        return d ? d : "tests/fake";
}

static void use_tree(const char *name)
{
        char *root = xasprintf("%s/%s", fake_dir(), name);
        setenv("PRISM_SYSFS_ROOT", root, 1);
        free(root);
}

/* ---- gfx_target_version -> name ---- */

static const struct {
        unsigned version;
        const char *name;
} gfx_cases[] = {
        {90008, "gfx908"},  {90010, "gfx90a"},  {90400, "gfx940"}, {90401, "gfx941"},
        {90402, "gfx942"},  {90006, "gfx906"},  {100300, "gfx1030"}, {110000, "gfx1100"},
        {120001, "gfx1201"},
};

static void test_gfx_name(void **state)
{
        (void)state;
        char buf[16];
        for (size_t i = 0; i < sizeof gfx_cases / sizeof gfx_cases[0]; i++) {
                assert_int_equal(detect_gfx_name(gfx_cases[i].version, buf, sizeof buf), 0);
                assert_string_equal(buf, gfx_cases[i].name);
        }
        assert_int_equal(detect_gfx_name(0, buf, sizeof buf), -1);
        assert_int_equal(detect_gfx_name(90010, buf, 4), -1); /* does not fit */
}

/* ---- gfx + device id -> gpu_model ---- */

static const struct {
        const char *gfx;
        unsigned device;
        const char *model; /* NULL: unknown */
} model_cases[] = {
        {"gfx908", 0x738c, "MI100"},     {"gfx90a", 0x740f, "MI200"},
        {"gfx90a", 0x740c, "MI200"},     {"gfx940", 0x74a0, "MI300A_A0"},
        {"gfx941", 0x74a1, "MI300X_A0"}, {"gfx942", 0x74a0, "MI300A_A1"},
        {"gfx942", 0x74a1, "MI300X_A1"}, {"gfx942", 0x74a2, "MI308X"},
        {"gfx942", 0x74b5, "MI300X_A1"}, {"gfx950", 0x75a0, "MI350"},
        {"gfx1100", 0x744c, NULL},       {"gfx90", 0, NULL},
        {"sm_90", 0, NULL}, /* a target of the data without models */
};

static void test_models(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof model_cases / sizeof model_cases[0]; i++) {
                char m[32] = "";
                int rc = detect_amd_model(model_cases[i].gfx, model_cases[i].device, m, sizeof m);
                if (!model_cases[i].model) {
                        assert_int_equal(rc, -1);
                } else {
                        assert_int_equal(rc, 0);
                        assert_string_equal(m, model_cases[i].model);
                }
        }
}

/* the models are data: another metrics directory gives other models and facts; a
 * malformed model makes its target unknown */
static void test_models_from_data(void **state)
{
        (void)state;
        const char *old = getenv("PRISM_DATA_DIR");
        char *keep = old ? xstrdup(old) : NULL;
        setenv("PRISM_DATA_DIR", "tests/data/models", 1);
        char m[32];
        assert_int_equal(detect_amd_model("gfxM", 0x1234, m, sizeof m), 0);
        assert_string_equal(m, "M_ONE");
        assert_int_equal(detect_amd_model("gfxM", 0x9999, m, sizeof m), 0);
        assert_string_equal(m, "M_ANY");
        assert_int_equal(detect_amd_model("gfx90a", 0, m, sizeof m), -1);
        struct amd_gpu g;
        struct err err = {0};
        assert_int_equal(detect_amd_defaults("gfxM", &g, &err), 0);
        assert_string_equal(g.model, "M_ANY");
        /* the model's own facts, then the family's */
        assert_int_equal(g.cu_per_gpu, 10);
        assert_int_equal(g.num_xcd, 1);
        assert_int_equal(g.max_mclk, 800);
        assert_int_equal(g.max_sclk, 1000);
        assert_int_equal(g.total_l2_chan, 4);
        assert_int_equal(g.hbm_channels, 4); /* 0: as many as L2 channels */
        assert_int_equal(g.lds_banks_per_cu, 16);
        assert_int_equal(g.pipes_per_gpu, 2);
        assert_int_equal(g.wave_size, 32);
        assert_int_equal(g.simd_per_cu, 2);
        assert_int_equal(g.l2_kb, 1024);
        assert_true(detect_amd_defaults("gfx942", &g, &err) < 0);
        assert_non_null(strstr(err.msg, "known: gfxM"));
        setenv("PRISM_DATA_DIR", "tests/data/bad-models/..", 1); /* no metrics/ there */
        assert_int_equal(detect_amd_model("gfxM", 0, m, sizeof m), -1);
        if (keep)
                setenv("PRISM_DATA_DIR", keep, 1);
        else
                unsetenv("PRISM_DATA_DIR");
        free(keep);
}

/* ---- whole trees: what recorded rocprof-compute workloads report for these GPUs ---- */

static const struct tree_case {
        const char *tree;
        size_t ngpus;
        int first_node;
        const char *gfx, *model;
        int cu, se, simd, waves, sclk, mclk, l1, l2, chan, sqc, xcd;
        double hbm_bw;
        const char *compute_partition, *memory_partition, *vbios;
} tree_cases[] = {
        {"sysfs-mi200", 2, 1, "gfx90a", "MI200", 104, 8, 4, 32, 1700, 1600, 16, 8192, 32, 56,
         1, 1638.4, "NA", "NA", "113-D67301-059"},
        {"sysfs-mi100", 1, 1, "gfx908", "MI100", 120, 8, 4, 40, 1502, 1200, 16, 8192, 32, 64,
         1, 1228.8, "NA", "NA", "113-D3431401-100"},
        {"sysfs-mi300x", 1, 1, "gfx942", "MI300X_A1", 304, 32, 4, 32, 2100, 1300, 32, 4096,
         128, 160, 8, 5324.8, "SPX", "NPS1", "113-MI3SRIOV-001"},
        {"sysfs-mi300a", 1, 1, "gfx942", "MI300A_A1", 228, 24, 4, 32, 2100, 1300, 32, 4096,
         96, 120, 6, 5324.8, "SPX", "NPS1", "N/A"},
};

static void test_trees(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof tree_cases / sizeof tree_cases[0]; i++) {
                const struct tree_case *c = &tree_cases[i];
                use_tree(c->tree);
                struct amd_gpu *g = NULL;
                size_t n = 0;
                struct err err = {0};
                assert_int_equal(detect_amd_gpus(&g, &n, &err), 0);
                assert_int_equal(n, c->ngpus);
                assert_int_equal(g[0].node, c->first_node);
                assert_int_equal(g[0].index, 0);
                assert_string_equal(g[0].gfx, c->gfx);
                assert_string_equal(g[0].model, c->model);
                assert_int_equal(g[0].cu_per_gpu, c->cu);
                assert_int_equal(g[0].se_per_gpu, c->se);
                assert_int_equal(g[0].simd_per_cu, c->simd);
                assert_int_equal(g[0].max_waves_per_cu, c->waves);
                assert_int_equal(g[0].max_sclk, c->sclk);
                assert_int_equal(g[0].max_mclk, c->mclk);
                assert_int_equal(g[0].l1_kb, c->l1);
                assert_int_equal(g[0].l2_kb, c->l2);
                assert_int_equal(g[0].total_l2_chan, c->chan);
                assert_int_equal(g[0].sqc_per_gpu, c->sqc);
                assert_int_equal(g[0].num_xcd, c->xcd);
                assert_int_equal(g[0].wave_size, 64);
                assert_int_equal(g[0].workgroup_max_size, 1024);
                assert_true(fabs(g[0].hbm_bw - c->hbm_bw) < 1e-9);
                assert_string_equal(g[0].compute_partition, c->compute_partition);
                assert_string_equal(g[0].memory_partition, c->memory_partition);
                assert_string_equal(g[0].vbios, c->vbios);
                if (n > 1) {
                        assert_int_equal(g[1].index, 1);
                        assert_int_equal(g[1].node, 2);
                        assert_int_equal(g[1].drm_render_minor, 136);
                }
                free(g);
        }
}

static void test_no_gpu(void **state)
{
        (void)state;
        const char *trees[] = {"sysfs-cpuonly", "no-such-tree"};
        for (size_t i = 0; i < 2; i++) {
                use_tree(trees[i]);
                struct amd_gpu *g = (struct amd_gpu *)1;
                size_t n = 99;
                struct err err = {0};
                assert_int_equal(detect_amd_gpus(&g, &n, &err), 0);
                assert_int_equal(n, 0);
                assert_null(g);
        }
}

static void test_broken_tree(void **state)
{
        (void)state;
        use_tree("sysfs-broken");
        struct amd_gpu *g = NULL;
        size_t n = 0;
        struct err err = {0};
        assert_true(detect_amd_gpus(&g, &n, &err) < 0);
        assert_int_equal(n, 0);
        /* names the file and line of the bad property */
        assert_non_null(strstr(err.msg, "nodes/1/properties:12:"));
        assert_non_null(strstr(err.msg, "num_gws"));
}

static void test_defaults(void **state)
{
        (void)state;
        const struct {
                const char *gfx, *model;
                int chan, xcd;
        } cases[] = {
                {"gfx908", "MI100", 32, 1},      {"gfx90a", "MI200", 32, 1},
                {"gfx940", "MI300A_A0", 96, 6},  {"gfx941", "MI300X_A0", 128, 8},
                {"gfx942", "MI300X_A1", 128, 8}, {"gfx950", "MI350", 128, 8},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct amd_gpu g;
                struct err err = {0};
                assert_int_equal(detect_amd_defaults(cases[i].gfx, &g, &err), 0);
                assert_string_equal(g.model, cases[i].model);
                assert_int_equal(g.total_l2_chan, cases[i].chan);
                assert_int_equal(g.num_xcd, cases[i].xcd);
                assert_int_equal(g.wave_size, 64);
                assert_int_equal(g.simd_per_cu, 4);
                assert_true(g.cu_per_gpu > 0 && g.max_sclk > 0 && g.max_mclk > 0);
        }
        /* MI350: 128 HBM channels at 2000 MHz */
        struct amd_gpu m350;
        struct err e350 = {0};
        assert_int_equal(detect_amd_defaults("gfx950", &m350, &e350), 0);
        assert_int_equal(m350.hbm_channels, 128);
        assert_int_equal(m350.max_mclk, 2000);
        assert_int_equal(m350.cu_per_gpu, 256);
        struct amd_gpu g;
        struct err err = {0};
        assert_true(detect_amd_defaults("gfx1100", &g, &err) < 0);
        assert_non_null(strstr(err.msg, "unknown AMD target 'gfx1100'"));
        assert_non_null(strstr(err.msg, "gfx90a"));
}

/* sysinfo.csv: rocprof-compute's column order, then prism's GPU identity (the node's
 * unique_id and PCI address), host facts from the same tree */
static const char *const sysinfo_cols[] = {
        "workload_name", "command", "ip_blocks", "timestamp", "version", "hostname",
        "cpu_model", "sbios", "linux_distro", "linux_kernel_version", "amd_gpu_kernel_version",
        "cpu_memory", "gpu_memory", "rocm_version", "vbios", "compute_partition",
        "memory_partition", "gpu_model", "gpu_arch", "gpu_l1", "gpu_l2", "cu_per_gpu",
        "simd_per_cu", "se_per_gpu", "wave_size", "workgroup_max_size", "max_waves_per_cu",
        "max_sclk", "max_mclk", "cur_sclk", "cur_mclk", "total_l2_chan", "lds_banks_per_cu",
        "sqc_per_gpu", "pipes_per_gpu", "hbm_bw", "num_xcd", "num_hbm_channels", "gpu_uuid",
        "gpu_pci_bus",
};

static void test_sysinfo(void **state)
{
        (void)state;
        use_tree("sysfs-mi200");
        struct amd_gpu *g = NULL;
        size_t n = 0;
        struct err err = {0};
        assert_int_equal(detect_amd_gpus(&g, &n, &err), 0);
        assert_int_equal(n, 2);
        struct table si;
        table_init(&si);
        detect_amd_sysinfo(&g[1], &si);
        assert_int_equal(si.nrows, 1);
        assert_int_equal(si.ncols, sizeof sysinfo_cols / sizeof sysinfo_cols[0]);
        for (size_t i = 0; i < si.ncols; i++)
                assert_string_equal(si.names[i], sysinfo_cols[i]);
        char buf[64];
        const struct {
                const char *col, *val;
        } cells[] = {
                {"cpu_model", "AMD EPYC 7V13 64-Core Processor"},
                {"sbios", "American Megatrends Inc.0602"},
                {"linux_distro", "Debian GNU/Linux 12 (bookworm)"},
                {"cpu_memory", "527650760"},
                {"gpu_model", "MI200"},
                {"gpu_uuid", "GPU-d531f770b27dc50f"},
                {"gpu_pci_bus", "0000:05:00.0"},
                {"gpu_arch", "gfx90a"},
                {"cu_per_gpu", "104"},
                {"hbm_bw", "1638.4"},
                {"total_l2_chan", "32"},
                {"sqc_per_gpu", "56"},
                {"num_xcd", "1"},
                {"num_hbm_channels", "32"}, /* 3.3's hbmBandwidth: 1600 / 1000 * 32 * 32 */
                {"compute_partition", "NA"},
                {"workload_name", ""},
        };
        for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
                int c = table_col(&si, cells[i].col);
                assert_true(c >= 0);
                assert_string_equal(table_cell(&si, c, 0, buf, sizeof buf), cells[i].val);
        }
        table_free(&si);
        free(g);
}

/* planning without a GPU: the backend that knows the target fills sysinfo from its model
 * table; a target no backend knows keeps only its name */
static void test_offline_sysinfo(void **state)
{
        (void)state;
        char buf[64];
        struct table si;
        table_init(&si);
        backend_offline_sysinfo("gfx90a", &si);
        assert_string_equal(table_cell(&si, table_col(&si, "gpu_model"), 0, buf, sizeof buf),
                            "MI200");
        assert_string_equal(table_cell(&si, table_col(&si, "total_l2_chan"), 0, buf, sizeof buf),
                            "32");
        table_free(&si);
        table_init(&si);
        backend_offline_sysinfo("gfx1234", &si);
        assert_int_equal(si.nrows, 1);
        assert_int_equal(si.ncols, 2);
        assert_string_equal(table_cell(&si, table_col(&si, "gpu_arch"), 0, buf, sizeof buf),
                            "gfx1234");
        assert_string_equal(table_cell(&si, table_col(&si, "gpu_model"), 0, buf, sizeof buf),
                            "gfx1234");
        table_free(&si);
}


int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_offline_sysinfo),
                cmocka_unit_test(test_gfx_name),   cmocka_unit_test(test_models),
                cmocka_unit_test(test_models_from_data),
                cmocka_unit_test(test_trees),      cmocka_unit_test(test_no_gpu),
                cmocka_unit_test(test_broken_tree), cmocka_unit_test(test_defaults),
                cmocka_unit_test(test_sysinfo),    
        };
        /* the architecture data of this checkout unless told otherwise */
        setenv("PRISM_DATA_DIR", ".", 0);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
