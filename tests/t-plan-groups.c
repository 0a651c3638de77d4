/* NVIDIA pass planning (plan_groups.c) against a fake pass counter: every group fits one
 * pass of its kind, every metric is collected once, SASS metrics stay apart, a metric that
 * needs several passes alone runs alone, the plan does not depend on the order of
 * formulas, and errors name what failed. The last tests plan metrics/hopper.yaml. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arch/arch.h"
#include "expr/expr.h"
#include "profile/plan.h"
#include "profile/profile.h"

/* The fake chip: each unit (the name's part before "__") has CAP counter slots per pass;
 * "wide__" metrics take CAP + 1 slots (two passes even alone); SASS metrics need a pass of
 * their own; "bad__" metrics are unknown. */
enum { CAP = 3 };
static int calls;
/* the fake chip's instrumented metrics, by name prefix (hopper.yaml's instrumented:) */
static const char *const instr[] = {"smsp__sass_", "sm__sass_"};

static int fake_passes(const char *chip, const char *const *m, size_t n, struct err *err)
{
        char units[64][32];
        int used[64] = {0};
        size_t nu = 0;
        int sass = 0, hw = 0, worst = 0;
        calls++;
        if (strcmp(chip, "FAKE1"))
                return err_set(err, ERR_INPUT, "unknown chip '%s'", chip);
        for (size_t i = 0; i < n; i++) {
                if (!strncmp(m[i], "bad__", 5))
                        return err_set(err, ERR_INPUT, "unknown metric '%s' for chip '%s'", m[i],
                                       chip);
                if (plan_is_instrumented(m[i], instr, 2)) {
                        sass = 1;
                        continue;
                }
                hw = 1;
                size_t ul = strstr(m[i], "__") - m[i];
                size_t u;
                for (u = 0; u < nu; u++)
                        if (strlen(units[u]) == ul && !strncmp(units[u], m[i], ul))
                                break;
                if (u == nu) {
                        snprintf(units[nu], sizeof units[nu], "%.*s", (int)ul, m[i]);
                        nu++;
                }
                used[u] += !strncmp(m[i], "wide__", 6) ? CAP + 1 : 1;
        }
        for (size_t u = 0; u < nu; u++) {
                int p = (used[u] + CAP - 1) / CAP;
                if (p > worst)
                        worst = p;
        }
        return (hw ? (worst ? worst : 1) : 0) + sass;
}

static const char *const per_pass[] = {"gpu__time_duration.sum"};

static void req_of(struct plan_req *r, const char *const *formulas, size_t n)
{
        struct err err = {0};
        plan_req_init(r, NULL, 0);
        for (size_t i = 0; i < n; i++)
                assert_int_equal(plan_req_formula(r, formulas[i], NULL, NULL, &err), 0);
}

/* every pass's names (in order) as one string per pass */
static char **lines_of(const struct plan *p)
{
        char **v = calloc(p->npasses + 1, sizeof *v);
        for (size_t i = 0; i < p->npasses; i++)
                v[i] = plan_pass_line(p, i);
        return v;
}

static void lines_free(char **v)
{
        for (size_t i = 0; v[i]; i++)
                free(v[i]);
        free(v);
}

static const char *const formulas[] = {
    "dram__bytes_read.sum / (End_Timestamp - Start_Timestamp)",
    "dram__bytes_write.sum + dram__sectors_read.sum",
    "100 * lts__t_sectors_lookup_hit.sum / lts__t_sectors.sum if lts__t_sectors.sum != 0 "
    "else None",
    "lts__t_bytes.sum / $denom",
    "lts__t_requests.sum + lts__t_requests_op_read.sum + lts__t_requests_op_write.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum * 2 + "
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "sm__cycles_active.sum / sm__cycles_active.max",
    "wide__ops.sum / Grid_Size",
    "sm__warps_active.sum / sm__cycles_elapsed.avg",
    "gpu__time_duration.sum",
};
#define NF (sizeof formulas / sizeof formulas[0])

/* Checks shared by the tests: each pass starts with the per-pass metric, fits its kind's
 * budget, holds one kind, and every metric of the formulas appears in exactly one pass. */
static void check_plan(const struct plan *p, size_t nmetrics)
{
        struct err err = {0};
        size_t seen_total = 0;
        for (size_t i = 0; i < p->npasses; i++) {
                size_t n;
                char **names = plan_pass_names(p, i, 16, &n);
                assert_true(n >= 1);
                assert_string_equal(names[0], "gpu__time_duration.sum");
                int sass = 0, hw = 0, wide = 0;
                for (size_t k = 1; k < n; k++) {
                        sass |= plan_is_instrumented(names[k], instr, 2);
                        hw |= !plan_is_instrumented(names[k], instr, 2);
                        wide |= !strncmp(names[k], "wide__", 6);
                        assert_string_not_equal(names[k], "gpu__time_duration.sum");
                }
                assert_false(sass && hw);
                int c = fake_passes("FAKE1", (const char *const *)names, n, &err);
                if (wide)
                        assert_int_equal(n, 2); /* alone with the per-pass metric */
                else
                        assert_int_equal(c, sass ? 2 : 1);
                seen_total += n - 1;
                /* pmc_perf.csv takes every metric of a group from its run */
                size_t nh;
                char **home = plan_pass_home_names(p, i, 16, &nh);
                assert_int_equal(nh, n);
                for (size_t k = 0; k < n; k++)
                        assert_string_equal(home[k], names[k]);
                plan_names_free(home, nh);
                plan_names_free(names, n);
        }
        /* the distinct metrics besides gpu__time_duration.sum */
        assert_int_equal(seen_total, nmetrics);
        assert_int_equal(p->naccum, 0);
}

static void test_groups_fit(void **state)
{
        (void)state;
        struct plan_req r;
        struct plan p;
        struct err err = {0};
        req_of(&r, formulas, NF);
        assert_int_equal(plan_req_norm(&r, "smsp__warps_launched.sum", NULL, &err), 0);
        assert_int_equal(plan_make_groups(&r, "FAKE1", fake_passes, per_pass, 1, instr, 2, NULL, &p, &err), 0);
        check_plan(&p, 17);
        /* the normalization's metric is collected too */
        int found = 0;
        for (size_t i = 0; i < p.ncounters; i++)
                found |= !strcmp(p.counters[i].name, "smsp__warps_launched.sum");
        assert_true(found);
        /* dram 3, gpu 0, lts 6, sm 4 (+1 smsp), sass 2, wide 1: hw needs ceil(6/3)=2
         * passes by the fullest unit, wide 2, sass 1 -> all at once: 2 + 1 */
        assert_true(p.lower_bound >= 3);
        /* ratios (plan.h): lts hits over sectors, sm cycles over cycles, sm warps over
         * cycles; each in one run */
        assert_int_equal(p.groups, 3);
        assert_int_equal(p.groups_split, 0);
        const char *pairs[][2] = {{"lts__t_sectors_lookup_hit.sum", "lts__t_sectors.sum"},
                                  {"sm__cycles_active.sum", "sm__cycles_active.max"},
                                  {"sm__warps_active.sum", "sm__cycles_elapsed.avg"}};
        for (size_t i = 0; i < 3; i++) {
                int at[2] = {-1, -1};
                for (size_t g = 0; g < p.npasses; g++)
                        for (size_t k = 0; k < p.passes[g].n; k++)
                                for (int j = 0; j < 2; j++)
                                        if (!strcmp(p.counters[p.passes[g].counters[k]].name,
                                                    pairs[i][j]))
                                                at[j] = (int)g;
                assert_true(at[0] >= 0);
                assert_int_equal(at[0], at[1]);
        }
        plan_free(&p);
        plan_req_free(&r);
}

static void test_deterministic(void **state)
{
        (void)state;
        const char *rev[NF];
        for (size_t i = 0; i < NF; i++)
                rev[i] = formulas[NF - 1 - i];
        struct plan_req r1, r2;
        struct plan p1, p2;
        struct err err = {0};
        req_of(&r1, formulas, NF);
        req_of(&r2, rev, NF);
        assert_int_equal(plan_make_groups(&r1, "FAKE1", fake_passes, per_pass, 1, instr, 2, NULL, &p1, &err), 0);
        assert_int_equal(plan_make_groups(&r2, "FAKE1", fake_passes, per_pass, 1, instr, 2, NULL, &p2, &err), 0);
        assert_int_equal(p1.npasses, p2.npasses);
        char **l1 = lines_of(&p1), **l2 = lines_of(&p2);
        for (size_t i = 0; i < p1.npasses; i++)
                assert_string_equal(l1[i], l2[i]);
        lines_free(l1);
        lines_free(l2);
        check_plan(&p2, 16);
        plan_free(&p1);
        plan_free(&p2);
        plan_req_free(&r1);
        plan_req_free(&r2);
}

/* Without per-pass metrics a SASS group needs one pass, and the counts still hold. */
static void test_no_per_pass(void **state)
{
        (void)state;
        struct plan_req r;
        struct plan p;
        struct err err = {0};
        req_of(&r, formulas, NF);
        assert_int_equal(plan_make_groups(&r, "FAKE1", fake_passes, NULL, 0, instr, 2, NULL, &p, &err), 0);
        for (size_t i = 0; i < p.npasses; i++) {
                size_t n;
                char **names = plan_pass_names(&p, i, 16, &n);
                int c = fake_passes("FAKE1", (const char *const *)names, n, &err);
                int wide = !strncmp(names[0], "wide__", 6);
                assert_int_equal(c, wide ? 2 : 1);
                plan_names_free(names, n);
        }
        plan_free(&p);
        plan_req_free(&r);
}

/* Units of CAP slots: 7 counters of one unit need ceil(7/3) = 3 groups. */
static void test_limits(void **state)
{
        (void)state;
        const char *f[] = {"x__a.sum + x__b.sum + x__c.sum + x__d.sum",
                           "x__e.sum + x__f.sum + x__g.sum"};
        struct plan_req r;
        struct plan p;
        struct err err = {0};
        req_of(&r, f, 2);
        calls = 0;
        assert_int_equal(plan_make_groups(&r, "FAKE1", fake_passes, NULL, 0, instr, 2, NULL, &p, &err), 0);
        assert_int_equal(p.npasses, 3);
        assert_int_equal(p.lower_bound, 3);
        char *l = plan_pass_line(&p, 0);
        assert_string_equal(l, "x__a.sum x__b.sum x__c.sum");
        free(l);
        l = plan_pass_line(&p, 2);
        assert_string_equal(l, "x__g.sum");
        free(l);
        assert_true(calls < 30);
        plan_free(&p);
        plan_req_free(&r);
}

static void test_errors(void **state)
{
        (void)state;
        struct plan_req r;
        struct plan p;
        struct err err = {0};
        const char *bad[] = {"dram__bytes_read.sum + bad__nothing.sum"};
        req_of(&r, bad, 1);
        assert_true(plan_make_groups(&r, "FAKE1", fake_passes, per_pass, 1, instr, 2, NULL, &p, &err) < 0);
        assert_non_null(strstr(err.msg, "unknown metric 'bad__nothing.sum'"));
        plan_req_free(&r);

        memset(&err, 0, sizeof err);
        const char *amd[] = {"SQ_WAVES + dram__bytes_read.sum"};
        req_of(&r, amd, 1);
        assert_true(plan_make_groups(&r, "FAKE1", fake_passes, per_pass, 1, instr, 2, NULL, &p, &err) < 0);
        assert_non_null(strstr(err.msg, "'SQ_WAVES' is not a metric name of the profiler"));

        memset(&err, 0, sizeof err);
        assert_true(plan_make_groups(&r, "FAKE1", NULL, per_pass, 1, instr, 2, NULL, &p, &err) < 0);
        memset(&err, 0, sizeof err);
        assert_true(plan_make_groups(&r, "OTHER", fake_passes, NULL, 0, instr, 2, NULL, &p, &err) < 0);
        plan_req_free(&r);
}

/* Launch metrics (the family's `launch:` prefixes): never counted by the profiler (the fake
 * counter would call them unknown: "bad__" prefix), in the first run only, block "launch";
 * the hardware plan is the same as without them; alone they still get one run. */
static void test_launch_metrics(void **state)
{
        (void)state;
        static const char *const lp[] = {"bad__launch_"};
        const struct plan_launch la = {lp, 1};
        struct plan_req r, r0;
        struct plan p, p0;
        struct err err = {0};
        const char *f[] = {"dram__bytes_read.sum + bad__launch_smem_static",
                           "lts__t_bytes.sum / bad__launch_stack if bad__launch_stack else 0",
                           "sm__cycles_active.sum + dram__bytes_write.sum + lts__t_requests.sum"};
        const char *f0[] = {"dram__bytes_read.sum", "lts__t_bytes.sum",
                            "sm__cycles_active.sum + dram__bytes_write.sum + lts__t_requests.sum"};
        req_of(&r, f, 3);
        req_of(&r0, f0, 3);
        calls = 0;
        /* without the prefixes they are metrics the profiler does not know */
        assert_true(plan_make_groups(&r, "FAKE1", fake_passes, per_pass, 1, instr, 2, NULL, &p,
                                     &err) < 0);
        memset(&err, 0, sizeof err);
        assert_int_equal(plan_make_groups(&r, "FAKE1", fake_passes, per_pass, 1, instr, 2, &la,
                                          &p, &err), 0);
        assert_int_equal(plan_make_groups(&r0, "FAKE1", fake_passes, per_pass, 1, instr, 2, NULL,
                                          &p0, &err), 0);
        assert_int_equal(p.npasses, p0.npasses);
        assert_int_equal(p.lower_bound, p0.lower_bound);
        assert_int_equal(p.ncounters, p0.ncounters + 2);
        for (size_t i = 0; i < p.npasses; i++) {
                size_t n, n0;
                char **names = plan_pass_names(&p, i, 16, &n);
                char **names0 = plan_pass_names(&p0, i, 16, &n0);
                size_t nl = 0;
                for (size_t k = 0; k < n; k++)
                        nl += !strncmp(names[k], "bad__launch_", 12);
                assert_int_equal(nl, i == 0 ? 2 : 0);
                assert_int_equal(n, n0 + nl);
                plan_names_free(names, n);
                plan_names_free(names0, n0);
        }
        for (size_t i = 0; i < p.ncounters; i++)
                assert_string_equal(p.counters[i].block,
                                    !strncmp(p.counters[i].name, "bad__launch_", 12) ? "launch"
                                    : plan_is_instrumented(p.counters[i].name, instr, 2)
                                        ? "instrumented"
                                        : "hw");
        plan_free(&p);
        plan_free(&p0);
        plan_req_free(&r);
        plan_req_free(&r0);

        /* launch metrics alone: one run, the per-pass metric and them */
        const char *only[] = {"bad__launch_smem_static * 2"};
        req_of(&r, only, 1);
        assert_int_equal(plan_make_groups(&r, "FAKE1", fake_passes, per_pass, 1, instr, 2, &la,
                                          &p, &err), 0);
        assert_int_equal(p.npasses, 1);
        size_t n;
        char **names = plan_pass_names(&p, 0, 16, &n);
        assert_int_equal(n, 2);
        assert_string_equal(names[0], "gpu__time_duration.sum");
        assert_string_equal(names[1], "bad__launch_smem_static");
        plan_names_free(names, n);
        plan_free(&p);
        plan_req_free(&r);
}

/* ---- hopper's ratios, derived from its formulas independently of the planner ---- */

struct hdiv {
        int k, side;
        const char *name;
};

struct hwalk {
        struct hdiv v[256];
        size_t n;
};

static void hdiv_name(void *ctx, int k, int side, const char *name, int dollar)
{
        struct hwalk *w = ctx;
        if (!dollar && strstr(name, "__") && strcmp(name, "gpu__time_duration.sum") &&
            w->n < 256)
                w->v[w->n++] = (struct hdiv){k, side, name};
}

static int group_of(const struct plan *p, const char *name)
{
        for (size_t g = 0; g < p->npasses; g++)
                for (size_t k = 0; k < p->passes[g].n; k++)
                        if (!strcmp(p->counters[p->passes[g].counters[k]].name, name))
                                return (int)g;
        return -1;
}

static int cmp_cstr(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every division of e: the metrics of one kind on both sides; *spread collects (by their
 * names in order) those not in one group. Returns the ratios found. */
static size_t hopper_ratios(const struct plan *p, const struct expr *e, struct smap *all,
                            struct smap *spread)
{
        struct hwalk w = {.n = 0};
        int nd = expr_div_names(e, hdiv_name, &w);
        size_t found = 0;
        for (int k = 0; k < nd; k++)
                for (int sass = 0; sass <= 1; sass++) {
                        const char *names[256];
                        size_t n = 0;
                        int on[2] = {0, 0};
                        for (size_t i = 0; i < w.n; i++)
                                if (w.v[i].k == k && plan_is_instrumented(w.v[i].name, instr, 2) == sass) {
                                        on[w.v[i].side] = 1;
                                        names[n++] = w.v[i].name;
                                }
                        if (!on[0] || !on[1])
                                continue;
                        qsort(names, n, sizeof *names, cmp_cstr);
                        struct strbuf key = {0};
                        int g0 = group_of(p, names[0]), split = 0;
                        for (size_t i = 0; i < n; i++) {
                                if (i && !strcmp(names[i], names[i - 1]))
                                        continue;
                                sb_addf(&key, "%s ", names[i]);
                                int g = group_of(p, names[i]);
                                if (g < 0)
                                        fail_msg("%s is not planned", names[i]);
                                split |= g != g0;
                        }
                        smap_put(all, key.buf, 1);
                        if (split)
                                smap_put(spread, key.buf, 1);
                        sb_free(&key);
                        found++;
                }
        return found;
}

/* metrics/hopper.yaml: its chip and per-pass metric, and a plan of all its metrics. */
static void test_hopper(void **state)
{
        (void)state;
        struct arch a;
        struct plan_req r;
        struct plan p;
        struct err err = {0};
        if (arch_load("metrics", "sm_90", &a, &err)) {
                print_message("cannot load metrics/hopper.yaml: %s\n", err.msg);
                fail();
        }
        assert_non_null(a.chip);
        assert_string_equal(a.chip, "GH100");
        assert_int_equal(a.nper_pass, 1);
        assert_string_equal(a.per_pass[0], "gpu__time_duration.sum");
        assert_int_equal(a.nlimits, 0);
        assert_int_equal(profile_plan_req(&a, NULL, NULL, 0, &r, &err), 0);
        /* the fake chip has its own names */
        /* the family names its instrumented metrics */
        assert_int_equal(a.ninstrumented, 2);
        assert_int_equal(plan_make_groups(&r, "FAKE1", fake_passes, (const char *const *)a.per_pass,
                                          a.nper_pass, (const char *const *)a.instrumented,
                                          a.ninstrumented, NULL, &p, &err),
                         0);
        assert_true(p.npasses >= 2);
        int has_sass = 0, has_dram = 0;
        for (size_t i = 0; i < p.ncounters; i++) {
                has_sass |= !strcmp(p.counters[i].block, "instrumented");
                has_dram |= !strcmp(p.counters[i].name, "dram__bytes_read.sum");
                assert_non_null(strstr(p.counters[i].name, "__"));
        }
        assert_true(has_sass && has_dram);
        /* hopper's ratios (a hit rate's hits over its lookups, ...): every division of every
         * formula, checked here; the planner knows the same ratios and spreads only those
         * found spread here (the fake chip holds 3 metrics of a unit per pass) */
        struct smap all = {0}, spread = {0};
        size_t found = 0;
        for (size_t m = 0; m < a.nmetrics; m++) {
                const struct metric *mt = &a.metrics[m];
                if (mt->expr.expr)
                        found += hopper_ratios(&p, mt->expr.expr, &all, &spread);
                if (mt->peak.expr)
                        found += hopper_ratios(&p, mt->peak.expr, &all, &spread);
                for (size_t k = 0; k < mt->nfields; k++)
                        if (mt->fields[k].expr)
                                found += hopper_ratios(&p, mt->fields[k].expr, &all, &spread);
                for (size_t k = 0; k < mt->noverrides; k++)
                        if (mt->overrides[k].expr)
                                found += hopper_ratios(&p, mt->overrides[k].expr, &all, &spread);
        }
        printf("hopper on the fake chip: %zu runs, %zu ratios (%zu in the formulas), %zu "
               "spread\n",
               p.npasses, p.groups, found, p.groups_split);
        assert_true(found >= 10);
        /* the planner also sees the divisions inside the family's builtins, which this
         * walk of the metrics' own formulas does not expand: at least these are known */
        assert_true(all.len <= p.groups);
        assert_true(spread.len <= p.groups_split);
        assert_true(p.groups_split < p.groups);
        smap_free(&all);
        smap_free(&spread);
        plan_free(&p);
        plan_req_free(&r);
        arch_free(&a);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_groups_fit),  cmocka_unit_test(test_deterministic),
            cmocka_unit_test(test_no_per_pass), cmocka_unit_test(test_limits),
            cmocka_unit_test(test_errors),      cmocka_unit_test(test_hopper),
            cmocka_unit_test(test_launch_metrics),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
