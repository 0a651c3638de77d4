/* The pass planner: name classification, the plan's invariants (every needed counter
 * planned exactly once, no pass over a block limit, ratio pairs together, accumulate
 * counters alone, deterministic), on small requests and on every architecture of metrics/. */
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

/* ---- checking a plan ---- */

static int pass_of(const struct plan *p, const char *counter, int accum)
{
        int found = -1;
        for (size_t i = 0; i < p->npasses; i++) {
                if (!!p->passes[i].accum != accum)
                        continue;
                for (size_t k = 0; k < p->passes[i].n; k++)
                        if (!strcmp(p->counters[p->passes[i].counters[k]].name, counter)) {
                                if (found >= 0)
                                        fail_msg("'%s' planned in passes %d and %zu", counter,
                                                 found, i);
                                found = (int)i;
                        }
        }
        return found;
}

static int limit_of(const struct block_limit *lim, size_t n, const char *block)
{
        for (size_t i = 0; i < n; i++)
                if (!strcmp(lim[i].block, block))
                        return lim[i].limit;
        fail_msg("no limit for block '%s'", block);
        return 0;
}

/* No pass over a limit (an accumulate pass's value takes one more slot of its counter's
 * block); accumulate passes last, each starting with its own accumulate counter, which no
 * other pass holds; every counter of a pass counts against a block of the limits; each
 * counter is home (pmc_perf.csv takes it from there) in at most one pass. */
static void check_shape(const struct plan *p, const struct block_limit *lim, size_t nlim)
{
        size_t first_accum = p->npasses - p->naccum;
        for (size_t i = 0; i < p->npasses; i++) {
                const struct plan_pass *ps = &p->passes[i];
                assert_int_equal(!!ps->accum, i >= first_accum);
                assert_non_null(ps->home);
                for (size_t b = 0; b < nlim; b++) {
                        int cnt = 0;
                        for (size_t k = 0; k < ps->n; k++)
                                cnt += !strcmp(p->counters[ps->counters[k]].block, lim[b].block);
                        if (ps->accum && !strcmp(p->counters[ps->counters[0]].block, lim[b].block))
                                cnt++; /* the accumulated value */
                        if (cnt > lim[b].limit)
                                fail_msg("pass %zu has %d %s counters, limit %d", i, cnt,
                                         lim[b].block, lim[b].limit);
                }
                for (size_t k = 0; k < ps->n; k++) {
                        limit_of(lim, nlim, p->counters[ps->counters[k]].block);
                        for (size_t j = 0; j < i; j++)
                                for (size_t m = 0; m < p->passes[j].n; m++)
                                        if (ps->home[k] && p->passes[j].home[m] &&
                                            p->passes[j].counters[m] == ps->counters[k])
                                                fail_msg("%s home in passes %zu and %zu",
                                                         p->counters[ps->counters[k]].name, j, i);
                }
                if (!ps->accum)
                        continue;
                assert_string_equal(p->counters[ps->counters[0]].name, ps->accum);
                assert_false(ps->home[0]);
                for (size_t j = 0; j < p->npasses; j++) {
                        if (j == i)
                                continue;
                        for (size_t k = 0; k < p->passes[j].n; k++)
                                if (!strcmp(p->counters[p->passes[j].counters[k]].name,
                                            ps->accum))
                                        fail_msg("accumulate counter %s also in pass %zu",
                                                 ps->accum, j);
                }
        }
}

/* The pass pmc_perf.csv takes a counter from, -1 if none. */
static int home_of(const struct plan *p, const char *counter)
{
        for (size_t i = 0; i < p->npasses; i++)
                for (size_t k = 0; k < p->passes[i].n; k++)
                        if (p->passes[i].home[k] &&
                            !strcmp(p->counters[p->passes[i].counters[k]].name, counter))
                                return (int)i;
        return -1;
}

static char *plan_text(const struct plan *p)
{
        struct strbuf sb = {0};
        sb_add(&sb, "");
        for (size_t i = 0; i < p->npasses; i++) {
                char *l = plan_pass_line(p, i);
                sb_addf(&sb, "pass %zu: %s\n", i, l);
                free(l);
        }
        return sb_detach(&sb);
}

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

/* ---- every architecture of metrics/ ---- */

struct needs {
        struct smap normal;   /* counters pmc_perf.csv needs */
        struct smap tables[16];
        const char *tnames[16];
        size_t ntables;
        const struct arch *a;
        const char *table;
        int depth;
};

static struct smap *needs_set(struct needs *nd, const char *table)
{
        if (!table)
                return &nd->normal;
        for (size_t i = 0; i < nd->ntables; i++)
                if (!strcmp(nd->tnames[i], table))
                        return &nd->tables[i];
        assert_true(nd->ntables < 16);
        nd->tnames[nd->ntables] = table;
        return &nd->tables[nd->ntables++];
}

static void need_name(void *ctx, const char *name, int dollar);

static void need_expr(struct needs *nd, const struct expr *e)
{
        if (e && nd->depth < 16) {
                nd->depth++;
                expr_names(e, need_name, nd);
                nd->depth--;
        }
}

/* Independent of the planner: what a formula needs, builtins expanded by hand. */
static void need_name(void *ctx, const char *name, int dollar)
{
        struct needs *nd = ctx;
        const struct arch *a = nd->a;
        if (dollar) {
                if (!strcmp(name, "denom") && nd->table)
                        for (size_t i = 0; i < a->nnorms; i++)
                                need_expr(nd, a->norms[i].expr);
                for (size_t i = 0; i < a->nbuiltins; i++)
                        if (!strcmp(a->builtins[i].name, name))
                                need_expr(nd, a->builtins[i].expr);
                return;
        }
        char *slot;
        const char *block;
        unsigned forms;
        if (a->accum_value && !strcmp(name, a->accum_value))
                return;
        int r = plan_classify(a->limits, a->nlimits, name, &slot, &block, &forms);
        if (r < 0)
                fail_msg("%s: counter '%s' has no block limit", a->target, name);
        if (r == 0) {
                /* an accumulate counter named in a pmc_perf formula is collected in its pass */
                int is_table = 0;
                for (size_t m = 0; m < a->nmetrics; m++)
                        if (a->metrics[m].table && !strcmp(a->metrics[m].table, slot))
                                is_table = 1;
                if (!(is_table && !nd->table))
                        smap_put(needs_set(nd, nd->table), slot, 1);
        }
        free(slot);
}

/* per-channel templates are not parsed by arch_load: parse them for channel 0 */
static void need_field(struct needs *nd, const struct metric_field *f)
{
        if (f->expr || !f->src) {
                need_expr(nd, f->expr);
                return;
        }
        char *src = xstrdup(f->src);
        for (char *c = src; *c; c++)
                if (*c == '@')
                        *c = '0';
        struct err err = {0};
        struct expr *e = expr_parse(src, NULL, NULL, &err);
        if (!e)
                fail_msg("%s: %s", f->src, err.msg);
        need_expr(nd, e);
        expr_free(e);
        free(src);
}

static void metric_needs(struct needs *nd, const struct metric *m)
{
        nd->table = m->table;
        need_field(nd, &m->expr);
        need_field(nd, &m->peak);
        for (size_t i = 0; i < m->nfields; i++)
                need_field(nd, &m->fields[i]);
        for (size_t i = 0; i < m->noverrides; i++)
                need_field(nd, &m->overrides[i]);
        nd->table = NULL;
}

/* ---- ratios, derived here from the formulas independently of the planner ---- */

static size_t ratios_over; /* ratios wider than a run of their block */
static size_t ratios_bad;  /* ratios that fit a run but were spread */
static struct smap spread_keys; /* the distinct ratios of both kinds */

static int cmp_cstr(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

struct ratio_name {
        int k, side;
        char *slot;
        const char *block;
};

struct ratio_walk {
        const struct arch *a;
        struct ratio_name *v;
        size_t n, cap;
        int k, side, depth;
};

static void ratio_add(struct ratio_walk *rw, const char *name, int dollar);

static void ratio_builtin_name(void *ctx, const char *name, int dollar)
{
        ratio_add(ctx, name, dollar);
}

static void ratio_add(struct ratio_walk *rw, const char *name, int dollar)
{
        const struct arch *a = rw->a;
        if (dollar) {
                for (size_t i = 0; i < a->nbuiltins && rw->depth < 16; i++)
                        if (!strcmp(a->builtins[i].name, name) && a->builtins[i].expr &&
                            !expr_has_aggregate(a->builtins[i].expr)) {
                                rw->depth++;
                                expr_names(a->builtins[i].expr, ratio_builtin_name, rw);
                                rw->depth--;
                        }
                return; /* $denom and constants: no counters */
        }
        if (a->accum_value && !strcmp(name, a->accum_value))
                return;
        char *slot;
        const char *block;
        unsigned forms;
        if (plan_classify(a->limits, a->nlimits, name, &slot, &block, &forms) != 0) {
                free(slot);
                return;
        }
        xgrow(&rw->v, &rw->cap, rw->n + 1, sizeof *rw->v);
        rw->v[rw->n++] = (struct ratio_name){rw->k, rw->side, slot, block};
}

static void ratio_div_name(void *ctx, int k, int side, const char *name, int dollar)
{
        struct ratio_walk *rw = ctx;
        rw->k = k;
        rw->side = side;
        ratio_add(rw, name, dollar);
}

/* Every division of e: the counters of one block found on both sides share a home run.
 * Returns how many such ratios e has. */
static size_t check_ratios(const struct arch *a, const struct plan *p, const struct expr *e,
                           const char *what)
{
        struct ratio_walk rw = {.a = a};
        int nd = expr_div_names(e, ratio_div_name, &rw);
        size_t nratios = 0;
        for (int k = 0; k < nd; k++)
                for (size_t b = 0; b < a->nlimits; b++) {
                        int on[2] = {0, 0};
                        for (size_t i = 0; i < rw.n; i++)
                                if (rw.v[i].k == k && !strcmp(rw.v[i].block, a->limits[b].block))
                                        on[rw.v[i].side] = 1;
                        if (!on[0] || !on[1])
                                continue;
                        /* more distinct counters than one run of the block holds: the ratio
                         * cannot share a run (plan.h: it is spread) */
                        struct smap distinct = {0};
                        for (size_t i = 0; i < rw.n; i++)
                                if (rw.v[i].k == k && !strcmp(rw.v[i].block, a->limits[b].block))
                                        smap_put(&distinct, rw.v[i].slot, 1);
                        size_t nd_ = distinct.len;
                        /* the ratio's key: its counters in name order */
                        char **keys = calloc(nd_ + 1, sizeof *keys);
                        size_t nk = 0;
                        for (size_t i = 0; i < distinct.cap; i++)
                                if (distinct.keys[i])
                                        keys[nk++] = distinct.keys[i];
                        qsort(keys, nk, sizeof *keys, cmp_cstr);
                        struct strbuf key = {0};
                        for (size_t i = 0; i < nk; i++)
                                sb_addf(&key, "%s ", keys[i]);
                        free(keys);
                        smap_free(&distinct);
                        if (nd_ > (size_t)a->limits[b].limit) {
                                ratios_over++;
                                smap_put(&spread_keys, key.buf, 1);
                                sb_free(&key);
                                continue;
                        }
                        int home = -2;
                        for (size_t i = 0; i < rw.n; i++) {
                                if (rw.v[i].k != k || strcmp(rw.v[i].block, a->limits[b].block))
                                        continue;
                                int h = home_of(p, rw.v[i].slot);
                                if (h < 0)
                                        continue; /* an accumulate counter */
                                if (home != -2 && h != home && getenv("T_PLAN_DEBUG"))
                                        printf("%s: %s: %s in run %d, another counter of %s "
                                                 "of that ratio in run %d",
                                                 a->target, what, rw.v[i].slot, h,
                                                 a->limits[b].block, home);
                                if (home != -2 && h != home) {
                                        ratios_bad++;
                                        smap_put(&spread_keys, key.buf, 1);
                                }
                                home = h;
                        }
                        sb_free(&key);
                        nratios++;
                }
        for (size_t i = 0; i < rw.n; i++)
                free(rw.v[i].slot);
        free(rw.v);
        return nratios;
}

static size_t check_field_ratios(const struct arch *a, const struct plan *p,
                                 const struct metric *m, const struct metric_field *f)
{
        if (m->table)
                return 0; /* one run holds all an accumulate table's counters */
        if (f->expr || !f->src)
                return f->expr ? check_ratios(a, p, f->expr, m->key) : 0;
        char *src = xstrdup(f->src);
        for (char *c = src; *c; c++)
                if (*c == '@')
                        *c = '0';
        struct err err = {0};
        struct expr *e = expr_parse(src, NULL, NULL, &err);
        size_t n = e ? check_ratios(a, p, e, m->key) : 0;
        expr_free(e);
        free(src);
        return n;
}

/* The counters rocprof-compute 3.3.0 reads for target (tests/data), NULL-terminated. */
static char **counters_33(const char *target)
{
        char *text = read_file("tests/data/rocprof-compute-3.3-counters.txt", NULL, NULL);
        if (!text)
                return NULL;
        char **v = calloc(1024, sizeof *v);
        size_t n = 0;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
                size_t tl = strlen(target);
                if (strncmp(line, target, tl) || line[tl] != ':')
                        continue;
                for (char *w = strtok(line + tl + 1, " "); w && n < 1023; w = strtok(NULL, " "))
                        v[n++] = xstrdup(w);
                break;
        }
        free(text);
        return v;
}

static void check_arch(const struct arch *a)
{
        struct plan_req r;
        struct plan p;
        struct err err = {0};
        if (profile_plan_req(a, NULL, NULL, 0, &r, &err) || plan_make(&r, &p, &err))
                fail_msg("%s: %s", a->target, err.msg);
        check_shape(&p, a->limits, a->nlimits);

        struct needs nd;
        memset(&nd, 0, sizeof nd);
        nd.a = a;
        for (size_t i = 0; i < a->nbuiltins; i++)
                need_expr(&nd, a->builtins[i].expr);
        for (size_t i = 0; i < a->nnorms; i++)
                need_expr(&nd, a->norms[i].expr);
        for (size_t m = 0; m < a->nmetrics; m++)
                metric_needs(&nd, &a->metrics[m]);

        /* every counter pmc_perf.csv needs has exactly one home run, and nothing else has */
        size_t nnormal = p.npasses - p.naccum, nhome = 0;
        for (size_t i = 0; i < nd.normal.cap; i++)
                if (nd.normal.keys[i] && home_of(&p, nd.normal.keys[i]) < 0)
                        fail_msg("%s: '%s' is not planned", a->target, nd.normal.keys[i]);
        for (size_t i = 0; i < p.npasses; i++)
                for (size_t k = 0; k < p.passes[i].n; k++)
                        nhome += p.passes[i].home[k];
        assert_int_equal(nhome, nd.normal.len);
        /* each accumulate counter: one run holding what its formulas need */
        assert_int_equal(p.naccum, nd.ntables);
        for (size_t t = 0; t < nd.ntables; t++) {
                int pi = pass_of(&p, nd.tnames[t], 1);
                if (pi < 0)
                        fail_msg("%s: no pass for accumulate counter %s", a->target, nd.tnames[t]);
                const struct plan_pass *ps = &p.passes[pi];
                assert_string_equal(ps->accum, nd.tnames[t]);
                for (size_t i = 0; i < nd.tables[t].cap; i++) {
                        const char *c = nd.tables[t].keys[i];
                        int found = 0;
                        for (size_t k = 0; c && k < ps->n; k++)
                                found |= !strcmp(p.counters[ps->counters[k]].name, c);
                        if (c && !found)
                                fail_msg("%s: the run of %s lacks %s", a->target, ps->accum, c);
                }
        }
        /* every ratio of every formula (the rule of plan.h), checked from the formulas */
        size_t nratios = 0;
        ratios_over = ratios_bad = 0;
        smap_free(&spread_keys);
        memset(&spread_keys, 0, sizeof spread_keys);
        for (size_t m = 0; m < a->nmetrics; m++) {
                const struct metric *mt = &a->metrics[m];
                nratios += check_field_ratios(a, &p, mt, &mt->expr);
                for (size_t k = 0; k < mt->nfields; k++)
                        nratios += check_field_ratios(a, &p, mt, &mt->fields[k]);
                for (size_t k = 0; k < mt->noverrides; k++)
                        nratios += check_field_ratios(a, &p, mt, &mt->overrides[k]);
        }
        /* the ratios the formulas make are those the planner kept; those it reports spread
         * are exactly the ones found spread here: wider than a run of their block, or
         * sharing a counter with ratios that filled its run first (CPC_CPC_STAT_BUSY
         * divides five CPC counters, two fit a run) */
        assert_true(nratios > 50);
        if (spread_keys.len != p.groups_split)
                fail_msg("%s: the planner spreads %zu ratios, the formulas show %zu", a->target,
                         p.groups_split, spread_keys.len);
        /* hit rates always share a run */
        assert_int_equal(home_of(&p, "TCC_HIT"), home_of(&p, "TCC_MISS"));
        assert_int_equal(home_of(&p, "SQC_ICACHE_HITS"), home_of(&p, "SQC_ICACHE_MISSES"));
        /* as few runs as the hardware allows: the bound the busiest block (or the number of
         * accumulate counters) sets */
        assert_int_equal(p.npasses, p.lower_bound);

        /* deterministic: the same plan when the metrics come in reverse order */
        struct plan_req r2;
        struct plan p2;
        plan_req_init(&r2, a->limits, a->nlimits);
        plan_req_accum_value(&r2, a->accum_value);
        for (size_t i = 0; i < a->nbuiltins; i++)
                plan_req_builtin(&r2, a->builtins[i].name, a->builtins[i].src, NULL, &err);
        for (size_t i = a->nnorms; i-- > 0;)
                plan_req_norm(&r2, a->norms[i].src, NULL, &err);
        for (size_t m = a->nmetrics; m-- > 0;) {
                const struct metric *mt = &a->metrics[m];
                const struct metric_field *fs[64];
                size_t nf = 0;
                fs[nf++] = &mt->expr;
                for (size_t k = 0; k < mt->nfields && nf < 60; k++)
                        fs[nf++] = &mt->fields[k];
                fs[nf++] = &mt->peak;
                for (size_t k = 0; k < mt->noverrides && nf < 63; k++)
                        fs[nf++] = &mt->overrides[k];
                for (size_t k = 0; k < nf; k++) {
                        if (fs[k]->expr) {
                                plan_req_expr(&r2, fs[k]->expr, mt->table);
                        } else if (fs[k]->src) {
                                char *src = xstrdup(fs[k]->src);
                                for (char *c = src; *c; c++)
                                        if (*c == '@')
                                                *c = '7';
                                assert_int_equal(plan_req_formula(&r2, src, NULL, mt->table, &err),
                                                 0);
                                free(src);
                        }
                }
        }
        assert_int_equal(plan_make(&r2, &p2, &err), 0);
        char *t1 = plan_text(&p), *t2 = plan_text(&p2);
        assert_string_equal(t1, t2);
        free(t1);
        free(t2);

        printf("%s: %zu runs (%zu counter + %zu accumulate), lower bound %zu; %zu ratios (%zu "
               "in the formulas: %zu wider than a run, %zu spread by shared counters), %zu "
               "spread\n",
               a->target, p.npasses, nnormal, p.naccum, p.lower_bound, p.groups, nratios,
               ratios_over, ratios_bad, p.groups_split);

        /* with every counter rocprof-compute 3.3.0 reads for the target as well: at most
         * the runs the issue asks for, or the bound where that is higher */
        char **extra = counters_33(a->target);
        if (extra && extra[0]) {
                struct plan_req r3;
                struct plan p3;
                assert_int_equal(profile_plan_req(a, NULL, NULL, 0, &r3, &err), 0);
                for (size_t i = 0; extra[i]; i++) {
                        const char *c = extra[i];
                        /* its accumulate counters (LEVEL outside the L2) get runs of their own */
                        int accum = strstr(c, "LEVEL") && strncmp(c, "TCC", 3);
                        assert_int_equal(plan_req_formula(&r3, accum ? a->accum_value : c, NULL,
                                                          accum ? c : NULL, &err),
                                         0);
                }
                if (plan_make(&r3, &p3, &err))
                        fail_msg("%s with 3.3's counters: %s", a->target, err.msg);
                check_shape(&p3, a->limits, a->nlimits);
                for (size_t i = 0; extra[i]; i++)
                        if (!(strstr(extra[i], "LEVEL") && strncmp(extra[i], "TCC", 3)) &&
                            home_of(&p3, extra[i]) < 0)
                                fail_msg("%s: 3.3's %s not planned", a->target, extra[i]);
                size_t want = !strcmp(a->target, "gfx908") ? 10 : !strcmp(a->target, "gfx950") ? 13 : 12;
                assert_int_equal(p3.npasses, p3.lower_bound);
                assert_true(p3.groups_split <= p.groups_split);
                printf("%s with rocprof-compute 3.3.0's counters: %zu runs, lower bound %zu "
                       "(the issue's target %zu)\n",
                       a->target, p3.npasses, p3.lower_bound, want);
                if (p3.npasses > want && p3.npasses > p3.lower_bound)
                        fail_msg("%s: %zu runs", a->target, p3.npasses);
                plan_free(&p3);
                plan_req_free(&r3);
        }
        for (size_t i = 0; extra && extra[i]; i++)
                free(extra[i]);
        free(extra);
        smap_free(&spread_keys);
        memset(&spread_keys, 0, sizeof spread_keys);
        smap_free(&nd.normal);
        for (size_t t = 0; t < nd.ntables; t++)
                smap_free(&nd.tables[t]);
        plan_free(&p2);
        plan_req_free(&r2);
        plan_free(&p);
        plan_req_free(&r);
}

static void test_metrics(void **state)
{
        (void)state;
        if (!is_dir("metrics"))
                skip();
        char **t;
        size_t n;
        struct err err = {0};
        assert_int_equal(arch_list("metrics", &t, &n, &err), 0);
        assert_true(n >= 5);
        for (size_t i = 0; i < n; i++) {
                struct arch a;
                if (arch_load("metrics", t[i], &a, &err))
                        fail_msg("%s: %s", t[i], err.msg);
                /* a chip's profiler counts its passes: plan_groups.c, t-plan-groups.c */
                if (!a.chip)
                        check_arch(&a);
                arch_free(&a);
                free(t[i]);
        }
        free(t);
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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_classify),   cmocka_unit_test(test_small),
                cmocka_unit_test(test_pairs_and_limits), cmocka_unit_test(test_errors),
                cmocka_unit_test(test_perfmon_files), cmocka_unit_test(test_metrics),
                cmocka_unit_test(test_selectors),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
