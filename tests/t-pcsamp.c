/* PC samples: the JSON reader (a table of good and bad texts), rocprofiler-sdk's results
 * JSON grouped per kernel and offset (tests/data/pcsamp, made by its gen.py), the summary
 * CSV written and read back, bad summaries, and the hot spots and their shares. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/hotspots.h"
#include "profile/backend/nvidia/pcs_cupti.h"
#include "tui/tui.h"
#include "store/pcsamp.h"
#include "util/arena.h"
#include "util/json.h"
#include "util/util.h"
#include "tmpfiles.h"

static void test_json_cases(void **state)
{
        (void)state;
        static const struct {
                const char *text;
                int ok;
                const char *probe; /* path whose value, as text or number, is want */
                const char *want;
        } cases[] = {
            {"{\"a\": {\"b\": [1, 2.5e1, -3]}}", 1, "a.b", "3 items"},
            {"{\"s\": \"x\\ny\\u00e9\\ud83d\\ude00\\\"\"}", 1, "s", "x\ny\xc3\xa9\xf0\x9f\x98\x80\""},
            {"{\"u\": 18446744073709551615}", 1, "u", "u18446744073709551615"},
            {"{\"u\": 18446744073709551616}", 1, "u", "double"},
            {"{\"t\": true, \"n\": null}", 1, "t", "true"},
            {" [ ] ", 1, NULL, NULL},
            {"{\"a\": 1,}", 0, NULL, NULL},
            {"{\"a\" 1}", 0, NULL, NULL},
            {"[1 2]", 0, NULL, NULL},
            {"\"abc", 0, NULL, NULL},
            {"\"a\tb\"", 0, NULL, NULL},
            {"\"\\ud800\"", 0, NULL, NULL},
            {"01", 0, NULL, NULL},
            {"1.", 0, NULL, NULL},
            {"tru", 0, NULL, NULL},
            {"{} x", 0, NULL, NULL},
            {"", 0, NULL, NULL},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                struct arena a = ARENA_INIT;
                struct err err = {0};
                const struct json *v =
                    json_parse(&a, cases[i].text, strlen(cases[i].text), "t.json", &err);
                if (!cases[i].ok) {
                        assert_null(v);
                        assert_int_equal(err.code, ERR_INPUT);
                        assert_non_null(strstr(err.msg, "t.json:1: "));
                        assert_null(strchr(err.msg, '\n'));
                } else {
                        assert_non_null(v);
                }
                if (cases[i].probe) {
                        const struct json *x = json_path(v, cases[i].probe);
                        assert_non_null(x);
                        const char *w = cases[i].want;
                        if (x->type == JSON_ARR)
                                assert_int_equal(x->n, (size_t)atoi(w));
                        else if (x->type == JSON_STR)
                                assert_string_equal(x->str, w);
                        else if (x->type == JSON_BOOL)
                                assert_int_equal(x->b, !strcmp(w, "true"));
                        else if (w[0] == 'u')
                                assert_true(x->is_uint && x->u == strtoull(w + 1, NULL, 10));
                        else
                                assert_false(x->is_uint);
                }
                arena_free(&a);
        }
        /* nesting deeper than the limit is an error, not a crash */
        char deep[2001];
        memset(deep, '[', 2000);
        deep[2000] = 0;
        struct arena a = ARENA_INIT;
        struct err err = {0};
        assert_null(json_parse(&a, deep, 2000, "deep.json", &err));
        assert_non_null(strstr(err.msg, "nested too deep"));
        arena_free(&a);
}

static const struct pcs_line *find(const struct pcsamp *ps, long long pid,
                                   unsigned long long off)
{
        for (size_t i = 0; i < ps->nlines; i++)
                if (ps->lines[i].pid == pid && ps->lines[i].offset == off)
                        return &ps->lines[i];
        return NULL;
}

static double reason_n(const struct pcsamp *ps, const struct pcs_line *l, const char *name)
{
        for (size_t r = 0; r < l->nreason; r++)
                if (!strcmp(ps->reasons[l->reason[r]], name))
                        return l->rcount[r];
        return 0;
}

static char *data(const char *name)
{
        return xasprintf("%s/tests/data/pcsamp/%s", getenv("PRISM_SRC") ? getenv("PRISM_SRC") : ".",
                         name);
}

static void test_sdk_stochastic(void **state)
{
        (void)state;
        struct pcsamp ps = {0};
        struct err err = {0};
        char *p = data("4242_ps_file_results.json");
        assert_int_equal(pcsamp_read_sdk_json(&ps, p, 4242, &err), 0);
        assert_string_equal(ps.method, "stochastic");
        /* six offsets sampled; the sample without an instruction index is skipped */
        assert_int_equal(ps.nlines, 6);
        const struct pcs_line *w = find(&ps, 4242, 0x1938);
        assert_non_null(w);
        assert_true(w->count == 40 && w->issued == 5 && w->stalled == 35);
        assert_true(reason_n(&ps, w, "WAITCNT") == 30 && reason_n(&ps, w, "ALU_DEPENDENCY") == 5);
        assert_string_equal(ps.reasons[w->reason[0]], "WAITCNT"); /* descending */
        assert_string_equal(w->source, "/app/src/vcopy.cpp:42");
        assert_string_equal(w->instruction, "s_waitcnt vmcnt(0)");
        assert_string_equal(w->kernel, "vecCopy(double*, double*, double*, int, int)");
        const struct pcs_line *g = find(&ps, 4242, 0x1920);
        assert_true(g->count == 8); /* not 9: the unplaced sample */
        /* dispatch 2 ran vecAdd */
        assert_string_equal(find(&ps, 4242, 0x2010)->kernel, "vecAdd(double*, double*, int)");
        assert_null(find(&ps, 4242, 0x1960)->source); /* an empty comment: no source */
        free(p);

        /* written as pc_sampling_summary.csv and read back: the same lines */
        char *dir = tmpdir_new("prism-pcs"), *csv = xasprintf("%s/pc_sampling_summary.csv", dir);
        assert_int_equal(pcsamp_write_summary(&ps, csv, &err), 0);
        struct pcsamp back = {0};
        assert_int_equal(pcsamp_load(dir, &back, &err), 0);
        assert_int_equal(back.nlines, ps.nlines);
        for (size_t i = 0; i < ps.nlines; i++) {
                const struct pcs_line *a = &ps.lines[i], *b = &back.lines[i];
                assert_true(a->offset == b->offset && a->count == b->count &&
                            a->issued == b->issued && a->stalled == b->stalled &&
                            a->pid == b->pid && a->code_object == b->code_object);
                assert_int_equal(a->nreason, b->nreason);
                for (size_t r = 0; r < a->nreason; r++) {
                        assert_string_equal(ps.reasons[a->reason[r]], back.reasons[b->reason[r]]);
                        assert_true(a->rcount[r] == b->rcount[r]);
                }
                assert_string_equal(a->kernel, b->kernel);
        }
        pcsamp_free(&back);

        /* hot spots: vcopy.cpp:42 holds 48 of vecCopy's 61 samples, 37 of its 42 stalls */
        struct hotspot *h;
        const char *k = "vecCopy(double*, double*, double*, int, int)";
        size_t n = hotspots(&ps, &k, 1, 1, &h);
        assert_int_equal(n, 4); /* lines 42, 43, 44 and one with no source */
        assert_string_equal(h[0].source, "/app/src/vcopy.cpp:42");
        assert_true(h[0].count == 48 && h[0].kcount == 61);
        assert_true(h[0].stalled == 37 && h[0].kstalled == 42);
        assert_string_equal(h[0].reason, "WAITCNT");
        assert_true(h[0].rcount == 30);
        free(h);
        char *s = hotspot_short_source("/app/src/vcopy.cpp:42");
        assert_string_equal(s, ".../vcopy.cpp:42");
        free(s);
        size_t pl;
        assert_int_equal(pcsamp_source_line("/a/b.cu:17", &pl), 17);
        assert_int_equal(pl, 7);
        assert_int_equal(pcsamp_source_line("/a/b.cu", &pl), 0);
        pcsamp_free(&ps);
        remove(csv);
        rmdir(dir);
        FREE_ALL(csv, dir);
}

static void test_sdk_host_trap_by_address(void **state)
{
        (void)state;
        struct pcsamp ps = {0};
        struct err err = {0};
        char *p = data("ps_file_results.json");
        assert_int_equal(pcsamp_read_sdk_json(&ps, p, -1, &err), 0);
        assert_string_equal(ps.method, "host_trap");
        assert_int_equal(ps.nlines, 3);
        const struct pcs_line *l = find(&ps, 99, 0x2010); /* pid from metadata */
        assert_non_null(l);
        /* no dispatch records: the kernel whose code starts last before the offset */
        assert_string_equal(l->kernel, "vecAdd(double*, double*, int)");
        assert_true(isnan(l->issued) && isnan(l->stalled) && l->count == 4);
        pcsamp_free(&ps);
        free(p);
}

static void test_bad_files(void **state)
{
        (void)state;
        static const struct {
                const char *name, *text, *msg;
        } cases[] = {
            {"pc_sampling_summary.csv", "kernel_name,count\nk,1\n", "no 'offset' column"},
            {"pc_sampling_summary.csv", "kernel_name,offset,count\nk,0x10,lots\n",
             "count 'lots' is not a sample count"},
            {"pc_sampling_summary.csv", "kernel_name,offset,count\nk,-4,1\n", "offset '-4'"},
            {"pc_sampling_summary.csv",
             "kernel_name,offset,count,stall_reason\nk,16,3,\"{\"\"A\"\":\"\"x\"\"}\"\n",
             "'A' is not a sample count"},
            {"pc_sampling_summary.csv", "kernel_name,offset,count,stall_reason\nk,16,3,{oops\n",
             "stall_reason"},
            {"pc_sampling_summary.csv", "kernel_name,offset,count,issue_count\nk,16,3,9\n",
             "issue_count '9'"},
            {"ps_file_results.json", "{\"kernel_symbols\": []}", "no 'pc_sample_stochastic'"},
            {"ps_file_results.json", "{\"pc_sample_host_trap\": {}}", "not an array"},
            {"ps_file_results.json",
             "{\"pc_sample_host_trap\": [{\"inst_index\": 0, \"record\": {\"pc\": "
             "{\"code_object_id\": 1, \"code_object_offset\": \"0x10\"}}}]}",
             "not a non-negative integer"},
            {"7_ps_file_results.json", "{\"pc_sample_stochastic\": [", "ends early"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                char *dir = tmpdir_new("prism-pcsbad");
                put(dir, cases[i].name, cases[i].text);
                struct pcsamp ps = {0};
                struct err err = {0};
                assert_int_equal(pcsamp_load(dir, &ps, &err), ERR_INPUT);
                if (!strstr(err.msg, cases[i].msg) || !strstr(err.msg, cases[i].name))
                        fail_msg("case %zu: '%s'", i, err.msg);
                assert_null(strchr(err.msg, '\n'));
                pcsamp_free(&ps);
                char *f = xasprintf("%s/%s", dir, cases[i].name);
                remove(f);
                rmdir(dir);
                FREE_ALL(f, dir);
        }
        /* no samples at all: nothing, no error */
        char *dir = tmpdir_new("prism-pcsnone");
        struct pcsamp ps = {0};
        struct err err = {0};
        assert_int_equal(pcsamp_load(dir, &ps, &err), 0);
        assert_int_equal(ps.nlines, 0);
        assert_null(ps.file);
        rmdir(dir);
        free(dir);
}

/* SASS listings of the H100 recording's cubin (tests/data/pcsamp/sass: the heads of
 * `nvdisasm -c` and `cuobjdump -sass`): each offset's instruction, per function */
static void test_sass_listings(void **state)
{
        (void)state;
        static const char *const files[] = {"sass/nvdisasm.txt", "sass/cuobjdump.txt"};
        for (size_t f = 0; f < 2; f++) {
                struct sass_index ix = {0};
                char *p = data(files[f]);
                char *text = read_file(p, NULL, NULL);
                assert_non_null(text);
                pcs_sass_parse(&ix, text);
                const char *s = pcs_sass_at(&ix, "_Z13bank_conflictPfi", 0x40);
                assert_non_null(s);
                assert_string_equal(s, "ISETP.GT.AND P0, PT, R2, 0x3ff, PT");
                /* a branch: nvdisasm names its label, cuobjdump its address */
                assert_string_equal(pcs_sass_at(&ix, "_Z13bank_conflictPfi", 0x30),
                                    f ? "BSSY B0, 0x120" : "BSSY B0, `(.L_x_0)");
                assert_string_equal(pcs_sass_at(&ix, "_Z13bank_conflictPfi", 0x10),
                                    "S2R R2, SR_TID.X");
                assert_null(pcs_sass_at(&ix, "_Z13bank_conflictPfi", 0x18));
                assert_null(pcs_sass_at(&ix, "_Z5otherv", 0x10));
                if (f == 1) /* the second function of the listing */
                        assert_string_equal(pcs_sass_at(&ix, "_Z16divergent_branchPfi", 0x30),
                                            "HFMA2.MMA R5, -RZ, RZ, 0, 0");
                pcs_sass_free(&ix);
                FREE_ALL(text, p);
        }
}

/* the TUI's source view: the H100 recording over tests/gpu/hotspots.cu (found by its name
 * in the directory given), else (no file) the sampled instructions by offset */
static void test_source_view(void **state)
{
        (void)state;
        struct pcsamp ps = {0};
        struct err err = {0};
        char *dir = data("h100");
        assert_int_equal(pcsamp_load(dir, &ps, &err), 0);
        char **lines, *title;
        size_t n, focus;
        assert_int_equal(tui_source_lines(&ps, "strided_load(float const*, float*, long, int)",
                                          "tests/gpu", &lines, &n, &focus, &title),
                         0);
        assert_non_null(strstr(title, "hotspots.cu"));
        assert_true(focus < n);
        assert_true(!strncmp(lines[focus], "   28 ####################", 26));
        assert_non_null(strstr(lines[focus], "lg_throttle"));
        assert_non_null(strstr(lines[focus], "// HOT strided"));
        assert_non_null(strstr(lines[focus - 1], "for (int k = 0; k < 64; k++)"));
        for (size_t i = 0; i < n; i++)
                free(lines[i]);
        FREE_ALL(lines, title);
        /* unknown kernel: an error, nothing allocated */
        assert_int_equal(tui_source_lines(&ps, "nope", NULL, &lines, &n, &focus, &title),
                         ERR_INPUT);
        pcsamp_free(&ps);
        free(dir);

        char *p = data("4242_ps_file_results.json");
        assert_int_equal(pcsamp_read_sdk_json(&ps, p, 4242, &err), 0);
        assert_int_equal(tui_source_lines(&ps, "vecCopy(double*, double*, double*, int, int)",
                                          NULL, &lines, &n, &focus, &title),
                         0);
        assert_non_null(strstr(title, "Instructions:"));
        assert_int_equal(n, 1 + 5); /* a header and the five sampled offsets */
        assert_non_null(strstr(lines[focus], "s_waitcnt vmcnt(0)"));
        assert_non_null(strstr(lines[focus], "WAITCNT 86%"));
        for (size_t i = 0; i < n; i++)
                free(lines[i]);
        FREE_ALL(lines, title, p);
        pcsamp_free(&ps);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_json_cases),
            cmocka_unit_test(test_sdk_stochastic),
            cmocka_unit_test(test_sdk_host_trap_by_address),
            cmocka_unit_test(test_bad_files),
            cmocka_unit_test(test_sass_listings),
            cmocka_unit_test(test_source_view),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
