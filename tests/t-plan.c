/* The pass planner on small requests: name classification, the plan's invariants (no pass
 * over a block limit, ratio pairs together, accumulate runs filled, deterministic), errors,
 * perfmon files and -b selectors. Every architecture of metrics/: t-plan-archs.c. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile/plan.h"
#include "profile/profile.h"

static const struct block_limit gfx9_limits[] = {
        {"SQ", 8},   {"TA", 2},  {"TD", 2},  {"TCP", 4},  {"TCC", 4},
        {"CPC", 2},  {"CPF", 2}, {"SPI", 6}, {"GRBM", 2}, {"GDS", 4},
};
#define NLIM (sizeof gfx9_limits / sizeof gfx9_limits[0])

/* ---- classification ---- */

static const struct {
        const char *name;
        int ret;
        const char *slot, *block;
        unsigned forms;
} classify_cases[] = {
        {"SQ_WAVES", 0, "SQ_WAVES", "SQ", PLAN_FORM_PLAIN},
        {"SQC_ICACHE_HITS", 0, "SQC_ICACHE_HITS", "SQ", PLAN_FORM_PLAIN},
        {"TCC_HIT_sum", 0, "TCC_HIT", "TCC", PLAN_FORM_SUM},
        {"TCC_HIT[3]", 0, "TCC_HIT", "TCC", PLAN_FORM_CHANNELS},
        {"TCC_HIT[@]", 0, "TCC_HIT", "TCC", PLAN_FORM_CHANNELS},
        {"TCC_EA0_RDREQ_sum", 0, "TCC_EA0_RDREQ", "TCC", PLAN_FORM_SUM},
        {"TCP_TOTAL_CACHE_ACCESSES_sum", 0, "TCP_TOTAL_CACHE_ACCESSES", "TCP", PLAN_FORM_SUM},
        {"GRBM_GUI_ACTIVE", 0, "GRBM_GUI_ACTIVE", "GRBM", PLAN_FORM_PLAIN},
        {"SPI_CSN_BUSY", 0, "SPI_CSN_BUSY", "SPI", PLAN_FORM_PLAIN},
        {"Grid_Size", 1, NULL, NULL, 0},
        {"End_Timestamp", 1, NULL, NULL, 0},
        {"SGPR", 1, NULL, NULL, 0},
        {"GPU_ID", 1, NULL, NULL, 0},
        {"wave_size", 1, NULL, NULL, 0},
        {"denom", 1, NULL, NULL, 0},
        {"FOO_BAR", -1, "FOO_BAR", NULL, PLAN_FORM_PLAIN},
        {"UTCL1_X_sum", -1, "UTCL1_X", NULL, PLAN_FORM_SUM},
};

static void test_classify(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof classify_cases / sizeof classify_cases[0]; i++) {
                char *slot;
                const char *block;
                unsigned forms;
                int r = plan_classify(gfx9_limits, NLIM, classify_cases[i].name, &slot, &block,
                                      &forms);
                if (r != classify_cases[i].ret)
                        fail_msg("%s: got %d", classify_cases[i].name, r);
                if (classify_cases[i].slot)
                        assert_string_equal(slot, classify_cases[i].slot);
                else
                        assert_null(slot);
                if (classify_cases[i].block)
                        assert_string_equal(block, classify_cases[i].block);
                else
                        assert_null(block);
                assert_int_equal(forms, classify_cases[i].forms);
                free(slot);
        }
}

#include "plan-check.h"

/* ---- a small request: exact expectations ---- */

static const char *const small_formulas[][2] = {
        /* table, formula */
        {NULL, "100 * TCC_HIT_sum / (TCC_HIT_sum + TCC_MISS_sum)"},
        {NULL, "100 * TCC_HIT[@] / (TCC_HIT[@] + TCC_MISS[@])"},
        {NULL, "100 * SQC_ICACHE_HITS / (SQC_ICACHE_HITS + SQC_ICACHE_MISSES)"},
        {NULL, "SQ_WAVES / $denom"},
        {NULL, "100 * TA_TA_BUSY_sum / $GRBM_GUI_ACTIVE_PER_XCD"},
        {NULL, "(SQ_INSTS_VALU + SQ_INSTS_SALU + SQ_INSTS_SMEM) / (End_Timestamp - Start_Timestamp)"},
        {NULL, "SQ_INSTS_LDS * Grid_Size"},
        {"SQ_INST_LEVEL_LDS", "SQ_ACCUM_PREV_HIRES / SQ_INSTS_LDS"},
        {"SQ_LEVEL_WAVES", "SQ_ACCUM_PREV_HIRES / $GRBM_GUI_ACTIVE_PER_XCD / $denom"},
};

static void small_req(struct plan_req *r, int reverse)
{
        struct err err = {0};
        plan_req_init(r, gfx9_limits, NLIM);
        plan_req_accum_value(r, "SQ_ACCUM_PREV_HIRES");
        assert_int_equal(plan_req_builtin(r, "GRBM_GUI_ACTIVE_PER_XCD", "GRBM_GUI_ACTIVE / $num_xcd",
                                          NULL, &err),
                         0);
        assert_int_equal(plan_req_norm(r, "SQ_WAVES", NULL, &err), 0);
        assert_int_equal(plan_req_norm(r, "$GRBM_GUI_ACTIVE_PER_XCD", NULL, &err), 0);
        size_t n = sizeof small_formulas / sizeof small_formulas[0];
        for (size_t i = 0; i < n; i++) {
                size_t k = reverse ? n - 1 - i : i;
                assert_int_equal(plan_req_formula(r, small_formulas[k][1], NULL,
                                                  small_formulas[k][0], &err),
                                 0);
        }
}

static void test_small(void **state)
{
        (void)state;
        struct plan_req r;
        struct plan p;
        struct err err = {0};
        small_req(&r, 0);
        assert_int_equal(plan_make(&r, &p, &err), 0);
        check_shape(&p, gfx9_limits, NLIM);
        /* 7 SQ counters and two accumulate pairs need 11 SQ slots: two runs, both of them
         * accumulate runs, which take the ordinary counters in their free slots */
        assert_int_equal(p.npasses, 2);
        assert_int_equal(p.naccum, 2);
        assert_int_equal(p.lower_bound, 2);
        assert_int_equal(p.nblocks, NLIM);
        assert_string_equal(p.blocks[0].block, "SQ");
        assert_int_equal(p.blocks[0].counters, 7);
        assert_int_equal(p.blocks[0].accum, 2);
        assert_int_equal(p.blocks[0].bound, 2);
        /* ratios: TCC hits over hits and misses, SQC the same; TA over GRBM and the
         * instructions over time are across blocks or over no counter */
        assert_int_equal(p.groups, 2);
        assert_int_equal(p.groups_split, 0);
        assert_int_equal(home_of(&p, "TCC_HIT"), home_of(&p, "TCC_MISS"));
        assert_int_equal(home_of(&p, "SQC_ICACHE_HITS"), home_of(&p, "SQC_ICACHE_MISSES"));
        const char *normal[] = {"TCC_HIT", "TCC_MISS", "SQC_ICACHE_HITS", "SQC_ICACHE_MISSES",
                                "SQ_WAVES", "TA_TA_BUSY", "GRBM_GUI_ACTIVE", "SQ_INSTS_VALU",
                                "SQ_INSTS_SALU", "SQ_INSTS_SMEM", "SQ_INSTS_LDS"};
        for (size_t i = 0; i < sizeof normal / sizeof normal[0]; i++)
                if (home_of(&p, normal[i]) < 0)
                        fail_msg("%s has no home", normal[i]);
        /* accumulate passes, sorted by counter; what their formulas read is there already
         * ($denom brings the normalizations), so those counters cost no second slot */
        assert_string_equal(p.passes[0].accum, "SQ_INST_LEVEL_LDS");
        assert_string_equal(p.passes[1].accum, "SQ_LEVEL_WAVES");
        assert_int_equal(home_of(&p, "SQ_INSTS_LDS"), 0);
        assert_int_equal(home_of(&p, "SQ_WAVES"), 1);
        assert_int_equal(home_of(&p, "GRBM_GUI_ACTIVE"), 1);
        char *l1 = plan_pass_line(&p, 1);
        assert_true(!strncmp(l1, "SQ_LEVEL_WAVES SQ_ACCUM_PREV_HIRES ", 35));
        free(l1);
        /* what the backend collects: every form a formula names; pmc_perf.csv's share */
        size_t n, nh;
        char **names = plan_pass_names(&p, 1, 4, &n);
        char **home = plan_pass_home_names(&p, 1, 4, &nh);
        assert_string_equal(names[0], "SQ_LEVEL_WAVES");
        assert_string_equal(names[1], "SQ_ACCUM_PREV_HIRES");
        assert_true(nh + 2 <= n);
        for (size_t i = 0; i < nh; i++)
                assert_string_not_equal(home[i], "SQ_LEVEL_WAVES");
        plan_names_free(names, n);
        plan_names_free(home, nh);
        int tcc = home_of(&p, "TCC_HIT");
        names = plan_pass_names(&p, (size_t)tcc, 4, &n);
        const char *want[] = {"TCC_HIT_sum", "TCC_HIT[0]", "TCC_HIT[1]", "TCC_HIT[2]",
                              "TCC_HIT[3]", "TCC_MISS_sum", "TCC_MISS[0]", "TCC_MISS[1]",
                              "TCC_MISS[2]", "TCC_MISS[3]"};
        size_t at = 0;
        while (at < n && strcmp(names[at], want[0]))
                at++;
        assert_true(at + 10 <= n);
        for (size_t i = 0; i < 10; i++)
                assert_string_equal(names[at + i], want[i]);
        plan_names_free(names, n);

        /* the same request in the other order gives the same plan */
        struct plan_req r2;
        struct plan p2;
        small_req(&r2, 1);
        assert_int_equal(plan_make(&r2, &p2, &err), 0);
        char *t1 = plan_text(&p), *t2 = plan_text(&p2);
        assert_string_equal(t1, t2);
        free(t1);
        free(t2);
        plan_free(&p2);
        plan_req_free(&r2);
        plan_free(&p);
        plan_req_free(&r);
}

/* A request over the limits: 20 SQ counters in ratio pairs, a 3-way TD ratio and a hub. */
static void test_pairs_and_limits(void **state)
{
        (void)state;
        struct plan_req r;
        struct plan p;
        struct err err = {0};
        plan_req_init(&r, gfx9_limits, NLIM);
        char f[128];
        for (int i = 0; i < 10; i++) {
                snprintf(f, sizeof f, "SQ_A%02d / (SQ_A%02d + SQ_B%02d)", i, i, i);
                assert_int_equal(plan_req_formula(&r, f, NULL, NULL, &err), 0);
                /* every counter is also divided by the hub GRBM_GUI_ACTIVE */
                snprintf(f, sizeof f, "SQ_B%02d / GRBM_GUI_ACTIVE", i);
                assert_int_equal(plan_req_formula(&r, f, NULL, NULL, &err), 0);
        }
        assert_int_equal(plan_req_formula(&r, "TD_X / (TD_Y + TD_Z)", NULL, NULL, &err), 0);
        assert_int_equal(plan_make(&r, &p, &err), 0);
        check_shape(&p, gfx9_limits, NLIM);
        /* 20 SQ counters need 3 passes of 8; pairs never split */
        assert_int_equal(p.lower_bound, 3);
        assert_int_equal(p.npasses, 3);
        for (int i = 0; i < 10; i++) {
                char a[16], b[16];
                snprintf(a, sizeof a, "SQ_A%02d", i);
                snprintf(b, sizeof b, "SQ_B%02d", i);
                assert_int_equal(pass_of(&p, a, 0), pass_of(&p, b, 0));
                assert_int_equal(home_of(&p, a), pass_of(&p, a, 0));
        }
        /* TD limit 2: the 3-way ratio cannot share one pass, but every counter is planned */
        assert_true(pass_of(&p, "TD_X", 0) >= 0 && pass_of(&p, "TD_Y", 0) >= 0 &&
                    pass_of(&p, "TD_Z", 0) >= 0);
        /* ratios: the 10 SQ pairs and the TD triple (SQ over GRBM crosses blocks) */
        assert_int_equal(p.groups, 11);
        assert_int_equal(p.groups_split, 1);
        plan_free(&p);
        plan_req_free(&r);
}

static const struct {
        const char *table, *formula, *msg;
} error_cases[] = {
        {NULL, "FOO_BAR / SQ_WAVES", "counter 'FOO_BAR' belongs to block 'FOO', which has no limit"},
        {NULL, "SQ_WAVES / (", NULL},
        {"SQ_LEVEL_WAVES",
         "SQ_A + SQ_B + SQ_C + SQ_D + SQ_E + SQ_F + SQ_ACCUM_PREV_HIRES",
         "the accumulate pass of 'SQ_LEVEL_WAVES' needs 8 SQ counters"},
        {"SQ_LEVEL_WAVES",
         "SQ_A + SQ_B + SQ_C + SQ_D + SQ_E + SQ_F + SQ_G + SQ_ACCUM_PREV_HIRES",
         "the accumulate pass of 'SQ_LEVEL_WAVES' needs 9 SQ counters (with SQ_LEVEL_WAVES and "
         "its accumulated value), over the limit of 8"},
        {"Level_Waves", "SQ_ACCUM_PREV_HIRES", "'Level_Waves' is not a counter name"},
};

static void test_errors(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++) {
                struct plan_req r;
                struct plan p;
                struct err err = {0};
                plan_req_init(&r, gfx9_limits, NLIM);
                plan_req_accum_value(&r, "SQ_ACCUM_PREV_HIRES");
                int rc = plan_req_formula(&r, error_cases[i].formula, NULL, error_cases[i].table,
                                          &err);
                if (!error_cases[i].msg) { /* a syntax error, from the parser */
                        assert_true(rc < 0);
                        assert_true(err.msg[0] != 0);
                        plan_req_free(&r);
                        continue;
                }
                assert_int_equal(rc, 0);
                rc = plan_make(&r, &p, &err);
                if (strstr(error_cases[i].msg, "needs 8 SQ")) {
                        /* 6 + the counter + SQ_ACCUM_PREV_HIRES = 8: fits exactly */
                        assert_int_equal(rc, 0);
                        check_shape(&p, gfx9_limits, NLIM);
                        plan_free(&p);
                } else if (rc == 0 || !strstr(err.msg, error_cases[i].msg)) {
                        fail_msg("case %zu: rc %d '%s'", i, rc, err.msg);
                }
                plan_req_free(&r);
        }
}

static void test_perfmon_files(void **state)
{
        (void)state;
        struct plan_req r;
        struct plan p;
        struct err err = {0};
        small_req(&r, 0);
        assert_int_equal(plan_make(&r, &p, &err), 0);
        char dir[] = "/tmp/prism-t-plan-XXXXXX";
        assert_non_null(mkdtemp(dir));
        assert_int_equal(plan_write_perfmon(&p, dir, 2, &err), 0);
        for (size_t i = 0; i < p.npasses; i++) {
                char *path = p.passes[i].accum
                                     ? xasprintf("%s/%s.txt", dir, p.passes[i].accum)
                                     : xasprintf("%s/pmc_perf_%zu.txt", dir, i);
                char *text = read_file(path, NULL, &err);
                assert_non_null(text);
                size_t n;
                char **names = plan_pass_names(&p, i, 2, &n);
                char *want = xasprintf("pmc:");
                for (size_t k = 0; k < n; k++) {
                        char *w = xasprintf("%s %s", want, names[k]);
                        free(want);
                        want = w;
                }
                char *w = xasprintf("%s\n", want);
                assert_string_equal(text, w);
                free(w);
                free(want);
                plan_names_free(names, n);
                free(text);
                unlink(path);
                free(path);
        }
        rmdir(dir);
        plan_free(&p);
        plan_req_free(&r);
}

/* -b selectors: blocks and panel/table ids */
static void test_selectors(void **state)
{
        (void)state;
        if (!is_dir("metrics") || !is_dir("panels"))
                skip();
        struct arch a;
        struct panel_set ps;
        struct err err = {0};
        assert_int_equal(arch_load("metrics", "gfx90a", &a, &err), 0);
        assert_int_equal(panels_load("panels", &ps, &err), 0);
        const struct {
                const char *sel;
                const char *has, *lacks; /* a counter the plan must have / must not have */
                const char *msg;
        } cases[] = {
                {"TCC", "TCC_HIT", "SQC_ICACHE_HITS", NULL},
                {"sqc", "SQC_ICACHE_HITS", "TCC_EA_RDREQ", NULL},
                {"17", "TCC_HIT", "SQC_DCACHE_HITS", NULL},
                {"13.1", "SQC_ICACHE_HITS", "TCC_MISS", NULL},
                {"XYZ", NULL, NULL, "no gfx90a metric uses a counter of block 'XYZ'"},
                {"99", NULL, NULL, "no panel or table '99'"},
                {"17.99", NULL, NULL, "no panel or table '17.99'"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct plan_req r;
                struct plan p;
                char *sel[] = {(char *)cases[i].sel};
                int rc = profile_plan_req(&a, &ps, sel, 1, &r, &err);
                if (cases[i].msg) {
                        if (rc == 0 || !strstr(err.msg, cases[i].msg))
                                fail_msg("%s: rc %d '%s'", cases[i].sel, rc, err.msg);
                        plan_req_free(&r);
                        continue;
                }
                assert_int_equal(rc, 0);
                assert_int_equal(plan_make(&r, &p, &err), 0);
                check_shape(&p, a.limits, a.nlimits);
                if (pass_of(&p, cases[i].has, 0) < 0)
                        fail_msg("-b %s: no %s", cases[i].sel, cases[i].has);
                if (pass_of(&p, cases[i].lacks, 0) >= 0)
                        fail_msg("-b %s: has %s", cases[i].sel, cases[i].lacks);
                plan_free(&p);
                plan_req_free(&r);
        }
        panels_free(&ps);
        arch_free(&a);
}

/* A family's counters the profiler lacks: an absent counter is not planned and is listed;
 * an alias and the counter it names take one slot, both names collected in its run; the
 * bound counts the slot once. */
static void test_family_counters(void **state)
{
        (void)state;
        struct counter_def defs[] = {
            {.name = "TCC_EA0_WRREQ", .kind = COUNTER_ALIAS, .same_as = "TCC_EA_WRREQ"},
            {.name = "SQ_GONE", .kind = COUNTER_ABSENT},
        };
        struct plan_req r;
        struct plan p;
        struct err err = {0};
        plan_req_init(&r, gfx9_limits, NLIM);
        plan_req_counters(&r, defs, 2);
        assert_int_equal(plan_req_formula(&r, "TCC_EA0_WRREQ_sum / TCC_HIT_sum", NULL, NULL, &err), 0);
        assert_int_equal(plan_req_formula(&r, "TCC_EA_WRREQ[@] + TCC_MISS[1] + TCC_READ_sum", NULL,
                                          NULL, &err), 0);
        assert_int_equal(plan_req_formula(&r, "SQ_GONE + SQ_WAVES", NULL, NULL, &err), 0);
        assert_int_equal(plan_make(&r, &p, &err), 0);
        assert_int_equal(p.nabsent, 1);
        assert_string_equal(p.absent[0], "SQ_GONE");
        assert_int_equal(p.ncounters, 5); /* TCC_EA_WRREQ, TCC_HIT, TCC_MISS, TCC_READ, SQ_WAVES */
        int tcc = 0;
        for (size_t i = 0; i < p.ncounters; i++) {
                assert_string_not_equal(p.counters[i].name, "SQ_GONE");
                assert_string_not_equal(p.counters[i].name, "TCC_EA0_WRREQ");
                tcc += !strcmp(p.counters[i].block, "TCC");
        }
        assert_int_equal(tcc, 4);
        assert_int_equal(p.lower_bound, 1); /* 4 TCC counters fit one run */
        assert_int_equal(p.npasses, 1);
        size_t n;
        char **names = plan_pass_names(&p, 0, 2, &n);
        int sum = 0, ch = 0, plain = 0;
        for (size_t i = 0; i < n; i++) {
                sum += !strcmp(names[i], "TCC_EA0_WRREQ_sum");
                ch += !strcmp(names[i], "TCC_EA_WRREQ[1]");
                plain += !strcmp(names[i], "TCC_EA_WRREQ") || !strcmp(names[i], "TCC_EA0_WRREQ[0]");
        }
        assert_int_equal(sum, 1);
        assert_int_equal(ch, 1);
        assert_int_equal(plain, 0); /* only the forms the formulas read */
        plan_names_free(names, n);
        plan_free(&p);
        plan_req_free(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_classify),   cmocka_unit_test(test_small),
                cmocka_unit_test(test_pairs_and_limits), cmocka_unit_test(test_errors),
                cmocka_unit_test(test_perfmon_files), cmocka_unit_test(test_selectors),
                cmocka_unit_test(test_family_counters),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
