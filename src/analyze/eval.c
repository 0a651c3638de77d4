/* Formula evaluation for analysis: bind the names of a metric's formulas to columns of the
 * selected dispatches (counters, built-ins, sysinfo fields), evaluate each formula once per
 * row and aggregate it per table column. */
#include "build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- evaluation context: slots for columns, built-ins and sysinfo scalars ---- */

struct eval {
        const struct workload *w;
        const struct arch *a;
        const struct analysis_opts *o;
        const size_t *sel;
        size_t n;
        struct smap slotmap;
        struct expr_slot *slots;
        double **owned;
        size_t nslots, cap;
        const char *table; /* the table names resolve in; NULL: pmc_perf */
        int depth;
        struct smap missing;
        int identity; /* sel is every row of pmc in order */
        unsigned char *slot_missing; /* per slot: a missing counter went into it */
        int bind_missing;            /* the formula being bound uses such a slot */
        struct analysis *an;
};

static int add_slot(struct eval *c, const char *key, double *col, double s)
{
        if (c->nslots == c->cap) {
                c->cap = c->cap ? c->cap * 2 : 64;
                c->slots = xrealloc(c->slots, c->cap * sizeof *c->slots);
                c->owned = xrealloc(c->owned, c->cap * sizeof *c->owned);
                c->slot_missing = xrealloc(c->slot_missing, c->cap);
        }
        c->slot_missing[c->nslots] = 0;
        c->slots[c->nslots].col = col;
        c->slots[c->nslots].s = s;
        c->owned[c->nslots] = col;
        smap_put(&c->slotmap, key, (int)c->nslots);
        return (int)c->nslots++;
}

static void note_missing(struct eval *c, const char *name)
{
        if (smap_get(&c->missing, name, NULL))
                return;
        smap_put(&c->missing, name, 1);
        struct analysis *an = c->an;
        if (!an)
                return;
        an->missing = xrealloc(an->missing, (an->nmissing + 1) * sizeof *an->missing);
        an->missing[an->nmissing++] = xstrdup(name);
}

static int eval_into_slot(struct eval *c, const char *key, struct expr *e, const char *table,
                          struct err *err);

static int resolve(void *p, const char *name, int dollar, struct err *err)
{
        struct eval *c = p;
        int slot;
        char *key;
        if (dollar) {
                if (!strcmp(name, "denom")) {
                        /* $denom stands for the normalization's formula, read in the same
                         * table as the metric (the reference substitutes the text) */
                        key = xasprintf("%s|$denom", c->table ? c->table : "");
                        if (smap_get(&c->slotmap, key, &slot))
                                goto done;
                        struct expr *ne = NULL;
                        for (size_t i = 0; i < c->a->nnorms; i++)
                                if (!strcmp(c->a->norms[i].name, c->o->norm))
                                        ne = c->a->norms[i].expr;
                        if (!ne) {
                                free(key);
                                return err_set(err, ERR_INPUT, "unknown normalization '%s'",
                                               c->o->norm);
                        }
                        int rc = eval_into_slot(c, key, ne, c->table, err);
                        if (rc) {
                                free(key);
                                return rc;
                        }
                        smap_get(&c->slotmap, key, &slot);
                        goto done;
                }
                key = xasprintf("$%s", name);
                if (smap_get(&c->slotmap, key, &slot))
                        goto done;
                for (size_t i = 0; i < c->a->nbuiltins; i++) {
                        if (strcmp(c->a->builtins[i].name, name))
                                continue;
                        /* built-ins always read pmc_perf */
                        int rc = eval_into_slot(c, key, c->a->builtins[i].expr, NULL, err);
                        if (rc) {
                                free(key);
                                return rc;
                        }
                        smap_get(&c->slotmap, key, &slot);
                        goto done;
                }
                if (table_col(&c->w->sysinfo, name) >= 0) {
                        slot = add_slot(c, key, NULL, workload_sys_num(c->w, name));
                        goto done;
                }
                free(key);
                return err_set(err, ERR_INPUT, "unknown built-in '$%s'", name);
        }
        key = xasprintf("%s|%s", c->table ? c->table : "", name);
        if (smap_get(&c->slotmap, key, &slot))
                goto done;
        {
                const struct table *t = workload_table(c->w, c->table);
                int col = t ? table_col(t, name) : -1;
                if (col >= 0 && c->identity && t->nrows >= c->n) {
                        /* every row selected, in order: read the column in place, so that
                         * memory stays that of the loaded columns (100k-dispatch runs) */
                        slot = add_slot(c, key, t->num[col], NAN);
                        c->owned[slot] = NULL;
                        goto done;
                }
                double *v = xmalloc((c->n ? c->n : 1) * sizeof(double));
                for (size_t i = 0; i < c->n; i++)
                        v[i] = (col >= 0 && c->sel[i] < t->nrows) ? t->num[col][c->sel[i]] : NAN;
                slot = add_slot(c, key, v, NAN);
                if (col < 0) {
                        note_missing(c, name);
                        c->slot_missing[slot] = 1; /* done: below flags the formula */
                }
        }
done:
        free(key);
        if (c->slot_missing[slot])
                c->bind_missing = 1;
        return slot;
}

static void make_env(struct eval *c, struct expr_env *env)
{
        env->n = c->n;
        env->slots = c->slots;
        env->nslots = c->nslots;
}

/* Bind e in the given table's context and evaluate it to a value (scalar or column). */
static int eval_expr(struct eval *c, struct expr *e, const char *table, struct expr_val *out,
                     struct err *err)
{
        const char *saved = c->table;
        int rc;
        if (++c->depth > 16) {
                c->depth--;
                return err_set(err, ERR_INPUT, "built-ins refer to each other in a loop");
        }
        c->table = table;
        int outer_missing = c->bind_missing;
        c->bind_missing = 0;
        rc = expr_bind(e, resolve, c, err);
        int missing = c->bind_missing;
        c->bind_missing = outer_missing | missing;
        c->table = saved;
        c->depth--;
        if (rc)
                return rc;
        if (missing) {
                /* a formula that names a counter the workload lacks is n/a as a whole,
                 * even where a condition would not use it (the reference fails the
                 * whole formula) */
                out->col = NULL;
                out->s = NAN;
                return 0;
        }
        struct expr_env env;
        make_env(c, &env);
        return expr_eval(e, &env, out, err);
}

static int eval_into_slot(struct eval *c, const char *key, struct expr *e, const char *table,
                          struct err *err)
{
        struct expr_val v = {0};
        int outer = c->bind_missing;
        c->bind_missing = 0;
        int rc = eval_expr(c, e, table, &v, err);
        /* a built-in or normalization computed from a missing counter taints every
         * formula that uses it */
        int tainted = c->bind_missing;
        c->bind_missing = outer;
        if (rc)
                return rc;
        int slot = add_slot(c, key, v.col, v.s);
        c->slot_missing[slot] = (unsigned char)tainted;
        return 0;
}

/* Bind, evaluate and aggregate. NaN when a name cannot be bound. */
static double eval_agg(struct eval *c, struct expr *e, const char *table, const char *agg)
{
        struct expr_val v = {0};
        struct err err = {0};
        if (!e)
                return NAN;
        if (eval_expr(c, e, table, &v, &err)) {
                warnf("%s", err.msg);
                return NAN;
        }
        double r = v.col ? agg_by_name(agg, v.col, c->n) : v.s;
        expr_val_free(&v);
        return r;
}

static void ctx_free(struct eval *c)
{
        for (size_t i = 0; i < c->nslots; i++)
                free(c->owned[i]);
        free(c->owned);
        free(c->slot_missing);
        free(c->slots);
        smap_free(&c->slotmap);
        smap_free(&c->missing);
}

/* ---- helpers ---- */

char *unit_display(const char *unit, const char *norm)
{
        if (!unit)
                return NULL;
        const char *p = strstr(unit, "$normUnit");
        if (!p)
                return xstrdup(unit);
        struct strbuf sb = {0};
        sb_addn(&sb, unit, (size_t)(p - unit));
        for (const char *q = norm; *q; q++)
                sb_addc(&sb, *q == '_' ? ' ' : *q);
        sb_add(&sb, p + strlen("$normUnit"));
        return sb_detach(&sb);
}

static double round_half_even(double x, int nd)
{
        if (!isfinite(x))
                return x;
        double s = pow(10.0, nd);
        return nearbyint(x * s) / s;
}

static int is_agg(const char *show)
{
        static const char *const aggs[] = {"avg", "min", "max", "median", "std",
                                           "sum", "q1",  "q3",  NULL};
        for (size_t i = 0; aggs[i]; i++)
                if (!strcmp(aggs[i], show))
                        return 1;
        return 0;
}

static struct metric_field *find_field(struct metric_field *f, size_t n, const char *key)
{
        for (size_t i = 0; i < n; i++)
                if (!strcmp(f[i].key, key))
                        return &f[i];
        return NULL;
}

/* ---- metric rows ---- */

static char *subst_at(const char *s, long i)
{
        if (!s)
                return NULL;
        struct strbuf sb = {0};
        for (; *s; s++) {
                if (*s == '@')
                        sb_addf(&sb, "%ld", i);
                else
                        sb_addc(&sb, *s);
        }
        return sb_detach(&sb);
}

/* The values of one row's formulas, each evaluated once and then aggregated per column
 * (avg, min, max, ... of the same column of values). */
struct row_cache {
        const struct expr *e[8];
        struct expr_val v[8];
        int ok[8];
        size_t n;
};

static double cached_agg(struct eval *c, struct row_cache *rc, struct expr *e, const char *table,
                         const char *agg)
{
        if (!e)
                return NAN;
        size_t i;
        for (i = 0; i < rc->n; i++)
                if (rc->e[i] == e)
                        break;
        if (i == rc->n) {
                if (rc->n == 8)
                        return eval_agg(c, e, table, agg);
                struct err err = {0};
                rc->e[i] = e;
                rc->ok[i] = eval_expr(c, e, table, &rc->v[i], &err) == 0;
                if (!rc->ok[i])
                        warnf("%s", err.msg);
                rc->n++;
        }
        if (!rc->ok[i])
                return NAN;
        return rc->v[i].col ? agg_by_name(agg, rc->v[i].col, c->n) : rc->v[i].s;
}

static void fill_metric_row(struct eval *c, const struct panel_table *pt, const struct metric *m,
                            const char *name, struct cell *row)
{
        struct row_cache rc = {0};
        for (size_t k = 0; k < pt->ncols; k++) {
                const struct panel_col *pc = &pt->cols[k];
                struct cell *cl = &row[k];
                struct metric_field *ov =
                    find_field(m->overrides, m->noverrides, pc->show);
                if (!strcmp(pc->show, "name")) {
                        cl->text = xstrdup(name);
                } else if (!strcmp(pc->show, "unit")) {
                        cl->text = unit_display(m->unit, c->o->norm);
                } else if (!strcmp(pc->show, "text")) {
                        struct metric_field *f =
                            pc->field ? find_field(m->texts, m->ntexts, pc->field) : NULL;
                        cl->text = xstrdup(f && f->src ? f->src : "");
                } else if (ov) {
                        cl->v = cached_agg(c, &rc, ov->expr, m->table, "avg");
                } else if (is_agg(pc->show)) {
                        struct expr *e = m->expr.expr;
                        if (pc->field) {
                                struct metric_field *f =
                                    find_field(m->fields, m->nfields, pc->field);
                                e = f ? f->expr : NULL;
                        }
                        cl->v = cached_agg(c, &rc, e, m->table, pc->show);
                        if (pc->round >= 0)
                                cl->v = round_half_even(cl->v, pc->round);
                } else if (!strcmp(pc->show, "peak")) {
                        cl->v = cached_agg(c, &rc, m->peak.expr, m->table, "avg");
                } else if (!strcmp(pc->show, "pop")) {
                        double avg = cached_agg(c, &rc, m->expr.expr, m->table, "avg");
                        double peak = cached_agg(c, &rc, m->peak.expr, m->table, "avg");
                        cl->v = m->peak.expr ? 100.0 * avg / peak : NAN;
                }
        }
        for (size_t i = 0; i < rc.n; i++)
                expr_val_free(&rc.v[i]);
}

static struct metric_field clone_field(const struct metric_field *f, long i, const char *what,
                                       struct err *err, int *bad)
{
        struct metric_field r = {0};
        if (!f->src)
                return r;
        r.key = f->key ? xstrdup(f->key) : NULL;
        r.src = subst_at(f->src, i);
        r.loc = f->loc;
        r.expr = expr_parse(r.src, &r.loc, what, err);
        if (!r.expr)
                *bad = 1;
        return r;
}

static void free_field(struct metric_field *f)
{
        free(f->key);
        free(f->src);
        expr_free(f->expr);
}

static int eval_template_row(struct eval *c, const struct panel_table *pt, const struct metric *m,
                             long i, struct cell *row, struct err *err)
{
        struct metric inst = *m;
        int bad = 0;
        inst.expr = clone_field(&m->expr, i, m->key, err, &bad);
        inst.peak = clone_field(&m->peak, i, m->key, err, &bad);
        inst.fields = xcalloc(m->nfields ? m->nfields : 1, sizeof *inst.fields);
        for (size_t j = 0; j < m->nfields; j++)
                inst.fields[j] = clone_field(&m->fields[j], i, m->key, err, &bad);
        inst.noverrides = 0;
        char *name = subst_at(m->name, i);
        if (!bad)
                fill_metric_row(c, pt, &inst, name, row);
        free(name);
        free_field(&inst.expr);
        free_field(&inst.peak);
        for (size_t j = 0; j < m->nfields; j++)
                free_field(&inst.fields[j]);
        free(inst.fields);
        return bad ? ERR_INPUT : 0;
}

int eval_metric_rows(struct eval *c, struct rtable *t, const struct panel *p,
                     const struct panel_table *pt, struct err *err)
{
        t->metric_table = 1;
        long pos = 0;
        for (size_t r = 0; r < pt->nrows; r++) {
                const struct metric *m = arch_metric(c->a, pt->rows[r]);
                if (!m)
                        continue; /* the architecture lacks it: hidden, uses no id */
                long reps = 1;
                if (pt->repeat) {
                        double n = workload_sys_num(c->w, pt->repeat);
                        reps = isfinite(n) && n > 0 && n < 100000 ? (long)n : 0;
                }
                for (long i = 0; i < reps; i++) {
                        char rid[64];
                        snprintf(rid, sizeof rid, "%s.%ld", pt->id, pos++);
                        if (!analysis_row_wanted(c->o, p, pt, rid))
                                continue;
                        char rkey[256];
                        snprintf(rkey, sizeof rkey, "%s#%ld", m->key, i);
                        struct cell *row = rtable_add_row(t, rid, rkey);
                        if (m->is_template) {
                                int rc = eval_template_row(c, pt, m, i, row, err);
                                if (rc)
                                        return rc;
                        } else {
                                fill_metric_row(c, pt, m, m->name, row);
                        }
                }
        }
        return 0;
}

struct eval *eval_new(const struct workload *w, const struct arch *a,
                      const struct analysis_opts *o, const size_t *sel, size_t n,
                      struct analysis *an)
{
        struct eval *c = xcalloc(1, sizeof *c);
        c->w = w;
        c->a = a;
        c->o = o;
        c->sel = sel;
        c->n = n;
        c->identity = n == w->pmc.nrows;
        c->an = an;
        return c;
}

void eval_free(struct eval *c)
{
        if (!c)
                return;
        ctx_free(c);
        free(c);
}

int eval_table(const struct build_ctx *bc, const struct panel *p, const struct panel_table *pt,
               const size_t *sel, size_t n, struct rtable *out, struct err *err)
{
        /* every row of pt: a builder asks for the table it needs, whatever -b shows */
        struct analysis_opts o = *bc->o;
        o.blocks = NULL;
        o.nblocks = 0;
        struct eval *c = eval_new(bc->w, bc->a, &o, sel, n, NULL);
        char **titles = xcalloc(pt->ncols ? pt->ncols : 1, sizeof *titles);
        for (size_t k = 0; k < pt->ncols; k++)
                titles[k] = xstrdup(pt->cols[k].title);
        rtable_init(out, p, pt, "Metric_ID", pt->ncols, titles);
        int rc = eval_metric_rows(c, out, p, pt, err);
        eval_free(c);
        if (rc)
                rtable_free(out);
        return rc;
}
