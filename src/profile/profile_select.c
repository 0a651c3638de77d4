/* Choosing what to plan: the formulas of every metric, or of those the -b selectors pick
 * (hardware blocks, panel and table ids), with the family's builtins and normalizations. */
#include "profile.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- choosing metrics ---- */

int profile_sel_is_id(const char *s)
{
        if (!isdigit((unsigned char)*s))
                return 0;
        for (; *s; s++)
                if (!isdigit((unsigned char)*s) && *s != '.')
                        return 0;
        return 1;
}

/* A field's parsed formula; per-channel templates ("TCC_HIT[@]") are parsed here with
 * channel 0, which names the same counters. Returns NULL for a field without formula;
 * *owned says whether the caller frees it. */
static struct expr *field_expr(const struct metric_field *f, int *owned, struct err *err)
{
        *owned = 0;
        if (f->expr || !f->src)
                return f->expr;
        char *src = xstrdup(f->src);
        for (char *c = src; *c; c++)
                if (*c == '@')
                        *c = '0';
        struct expr *e = expr_parse(src, &f->loc, f->key, err);
        free(src);
        *owned = e != NULL;
        return e;
}

/* Visit every formula of a metric; stops at the first parse error. */
static int metric_formulas(const struct metric *m, void (*fn)(void *, const struct expr *),
                           void *ctx, struct err *err)
{
        const struct metric_field *one[] = {&m->expr, &m->peak};
        for (size_t i = 0; i < 2 + m->nfields + m->noverrides; i++) {
                const struct metric_field *f = i < 2           ? one[i]
                                               : i < 2 + m->nfields ? &m->fields[i - 2]
                                                                    : &m->overrides[i - 2 - m->nfields];
                int owned;
                struct expr *e = field_expr(f, &owned, err);
                if (!e && f->src)
                        return err && err->code ? err->code : ERR_INPUT;
                if (e)
                        fn(ctx, e);
                if (owned)
                        expr_free(e);
        }
        return 0;
}

struct block_match {
        const char *block;
        int hit;
};

static void match_block(void *ctx, const char *name, int dollar)
{
        struct block_match *m = ctx;
        size_t n = strcspn(name, "_[");
        if (!dollar && n == strlen(m->block) && !strncasecmp(name, m->block, n))
                m->hit = 1;
}

static void match_expr(void *ctx, const struct expr *e)
{
        expr_names(e, match_block, ctx);
}

struct add_ctx {
        struct plan_req *r;
        const char *table;
};

static void add_expr(void *ctx, const struct expr *e)
{
        struct add_ctx *a = ctx;
        plan_req_expr(a->r, e, a->table);
}

static int table_for_arch(const struct panel_table *t, const char *target)
{
        if (!t->narchs)
                return 1;
        for (size_t i = 0; i < t->narchs; i++)
                if (!strcmp(t->archs[i], target))
                        return 1;
        return 0;
}

/* Mark the metrics of panel "N" or table "N.M". Returns 0, or -1 if there is no such id. */
static int select_id(const struct arch *a, const struct panel_set *ps, const char *id,
                     char *chosen)
{
        int found = 0;
        int whole = !strchr(id, '.');
        for (size_t p = 0; ps && p < ps->npanels; p++) {
                const struct panel *pn = &ps->panels[p];
                char pid[32];
                snprintf(pid, sizeof pid, "%d", pn->id);
                for (size_t t = 0; t < pn->ntables; t++) {
                        const struct panel_table *tb = &pn->tables[t];
                        if (whole ? strcmp(pid, id) : strcmp(tb->id, id))
                                continue;
                        found = 1;
                        if (!table_for_arch(tb, a->target))
                                continue;
                        for (size_t r = 0; r < tb->nrows; r++) {
                                int k;
                                if (smap_get(&a->index, tb->rows[r], &k))
                                        chosen[k] = 1;
                        }
                }
                if (whole && !strcmp(pid, id))
                        found = 1;
        }
        return found ? 0 : -1;
}

int profile_plan_req(const struct arch *a, const struct panel_set *ps, char *const *sel,
                     size_t nsel, struct plan_req *r, struct err *err)
{
        plan_req_init(r, a->limits, a->nlimits);
        plan_req_accum_value(r, a->accum_value);
        plan_req_counters(r, a->counter_defs, a->ncounter_defs);
        int rc = 0;
        for (size_t i = 0; i < a->nbuiltins && !rc; i++)
                rc = plan_req_builtin(r, a->builtins[i].name, a->builtins[i].src,
                                      &a->builtins[i].loc, err);
        for (size_t i = 0; i < a->nnorms && !rc; i++)
                rc = plan_req_norm(r, a->norms[i].src, &a->norms[i].loc, err);
        if (rc)
                return rc;
        char *chosen = xcalloc(a->nmetrics ? a->nmetrics : 1, 1);
        if (nsel == 0)
                memset(chosen, 1, a->nmetrics);
        for (size_t s = 0; s < nsel && !rc; s++) {
                if (profile_sel_is_id(sel[s])) {
                        if (select_id(a, ps, sel[s], chosen) < 0)
                                rc = err_set(err, ERR_INPUT, "no panel or table '%s'", sel[s]);
                        continue;
                }
                int any = 0;
                for (size_t m = 0; m < a->nmetrics && !rc; m++) {
                        struct block_match bm = {sel[s], 0};
                        rc = metric_formulas(&a->metrics[m], match_expr, &bm, err);
                        if (bm.hit)
                                chosen[m] = any = 1;
                }
                if (!any && !rc)
                        rc = err_set(err, ERR_INPUT,
                                     "no %s metric uses a counter of block '%s' (blocks are "
                                     "counter prefixes such as SQ, SQC, TA, TCC)",
                                     a->target, sel[s]);
        }
        for (size_t m = 0; m < a->nmetrics && !rc; m++) {
                struct add_ctx ac = {r, a->metrics[m].table};
                if (chosen[m])
                        rc = metric_formulas(&a->metrics[m], add_expr, &ac, err);
        }
        free(chosen);
        return rc;
}

