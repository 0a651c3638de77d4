/* The pass planner on every architecture of metrics/: every counter planned, accumulate
 * runs holding what their formulas read, every ratio of every formula (derived here from
 * the formulas' divisions) in one run or reported spread, as few runs as the lower bound,
 * the same plan in any order of formulas; and with rocprof-compute 3.3.0's counters too
 * (tests/data/rocprof-compute-3.3-counters.txt). */
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

#include "plan-check.h"

/* ---- every architecture of metrics/ ---- */

/* A counter name under the family's `counters:` (read here from the arch, not through the
 * planner): 2 if it is not on the architecture, else 0 with *slot the hardware counter it
 * is collected as (an alias's own); 1 for a name that is no counter. */
static int hw_slot(const struct arch *a, const char *name, char **slot, const char **block,
                   unsigned *forms)
{
        int r = plan_classify(a->limits, a->nlimits, name, slot, block, forms);
        if (r != 0)
                return r;
        const struct counter_def *d = arch_counter_def(a->counter_defs, a->ncounter_defs, *slot);
        if (d && d->kind == COUNTER_ABSENT)
                return 2;
        if (d && d->kind == COUNTER_ALIAS) {
                unsigned f;
                free(*slot);
                assert_int_equal(plan_classify(a->limits, a->nlimits, d->same_as, slot, block, &f), 0);
        }
        return 0;
}

static int in_list(char *const *v, size_t n, const char *s)
{
        for (size_t i = 0; i < n; i++)
                if (!strcmp(v[i], s))
                        return 1;
        return 0;
}

struct needs {
        struct smap normal;   /* counters pmc_perf.csv needs */
        struct smap absent;   /* counters the formulas read that the family says are absent */
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
        int r = hw_slot(a, name, &slot, &block, &forms);
        if (r < 0)
                fail_msg("%s: counter '%s' has no block limit", a->target, name);
        if (r == 2)
                smap_put(&nd->absent, slot, 1);
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
        if (hw_slot(a, name, &slot, &block, &forms) != 0) {
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
        /* the family's absent counters: listed by the plan, never planned; its aliases: no
         * slot of their own, their names collected with the hardware counter's */
        assert_int_equal(p.nabsent, nd.absent.len);
        for (size_t i = 0; i < p.nabsent; i++) {
                assert_true(smap_get(&nd.absent, p.absent[i], NULL));
                assert_true(home_of(&p, p.absent[i]) < 0 && pass_of(&p, p.absent[i], 1) < 0);
        }
        for (size_t d = 0; d < a->ncounter_defs; d++) {
                const struct counter_def *cd = &a->counter_defs[d];
                if (cd->kind == COUNTER_ALIAS)
                        for (size_t i = 0; i < p.ncounters; i++)
                                assert_string_not_equal(p.counters[i].name, cd->name);
                if (cd->kind != COUNTER_ALIAS || home_of(&p, cd->same_as) < 0)
                        continue;
                int h = home_of(&p, cd->same_as), seen = 0;
                size_t nn;
                char **names = plan_pass_names(&p, (size_t)h, 16, &nn);
                for (size_t k = 0; k < nn; k++)
                        seen |= !strncmp(names[k], cd->name, strlen(cd->name)) &&
                                strchr("_[", names[k][strlen(cd->name)] ? names[k][strlen(cd->name)] : '_');
                plan_names_free(names, nn);
                if (!seen)
                        fail_msg("%s: alias %s of %s not collected in run %d", a->target,
                                 cd->name, cd->same_as, h);
        }
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
        plan_req_counters(&r2, a->counter_defs, a->ncounter_defs);
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
                /* every counter 3.3.0 reads that is on the architecture is planned (as the
                 * hardware counter an alias names); the absent ones are listed, not planned */
                struct smap per_block = {0};
                for (size_t i = 0; extra[i]; i++) {
                        char *slot;
                        const char *block;
                        unsigned forms;
                        int k = hw_slot(a, extra[i], &slot, &block, &forms);
                        assert_true(k == 0 || k == 2);
                        if (k == 2) {
                                if (!in_list(p3.absent, p3.nabsent, slot))
                                        fail_msg("%s: absent %s not listed", a->target, slot);
                                assert_true(home_of(&p3, slot) < 0);
                        } else if (!(strstr(extra[i], "LEVEL") && strncmp(extra[i], "TCC", 3)) &&
                                   home_of(&p3, slot) < 0) {
                                fail_msg("%s: 3.3's %s not planned", a->target, extra[i]);
                        }
                        if (k == 0)
                                smap_put(&per_block, slot, 1);
                        free(slot);
                }
                /* the printed bound, recounted here: per block, its distinct hardware
                 * counters (3.3's and prism's own) plus one more slot per accumulate
                 * counter, over the block's limit */
                size_t bound = p3.naccum;
                for (size_t b = 0; b < a->nlimits; b++) {
                        size_t cnt = 0;
                        for (size_t i = 0; i < p3.ncounters; i++)
                                if (!strcmp(p3.counters[i].block, a->limits[b].block)) {
                                        cnt++;
                                        for (size_t t = 0; t < p3.npasses; t++)
                                                if (p3.passes[t].accum &&
                                                    !strcmp(p3.passes[t].accum, p3.counters[i].name))
                                                        cnt++;
                                }
                        size_t bb = (cnt + (size_t)a->limits[b].limit - 1) / (size_t)a->limits[b].limit;
                        if (bb > bound)
                                bound = bb;
                        assert_int_equal(bb, p3.blocks[b].bound);
                }
                assert_int_equal(bound, p3.lower_bound);
                for (size_t i = 0; i < per_block.cap; i++)
                        if (per_block.keys[i] && !strstr(per_block.keys[i], "LEVEL"))
                                assert_true(home_of(&p3, per_block.keys[i]) >= 0);
                smap_free(&per_block);
                char *bt = NULL;
                size_t blen = 0;
                FILE *bf = open_memstream(&bt, &blen);
                plan_print_bound(&p3, bf);
                fclose(bf);
                char want_line[96];
                snprintf(want_line, sizeof want_line, "%zu application runs (%zu accumulating); "
                         "no plan can have fewer than %zu:", p3.npasses, p3.naccum, p3.lower_bound);
                assert_non_null(strstr(bt, want_line));
                free(bt);
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
        smap_free(&nd.absent);
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
int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_metrics),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
