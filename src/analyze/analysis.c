/* Evaluate panels for one workload: select dispatches, bind formula names to columns of
 * the selected rows, evaluate each table cell, and build the built-in tables. */
#include "analysis.h"
#include "findings.h"
#include "ranks.h"

#include "kname.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- evaluation context: slots for columns, built-ins and sysinfo scalars ---- */

struct ctx {
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

static int add_slot(struct ctx *c, const char *key, double *col, double s)
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

static void note_missing(struct ctx *c, const char *name)
{
        if (smap_get(&c->missing, name, NULL))
                return;
        smap_put(&c->missing, name, 1);
        struct analysis *an = c->an;
        an->missing = xrealloc(an->missing, (an->nmissing + 1) * sizeof *an->missing);
        an->missing[an->nmissing++] = xstrdup(name);
}

static int eval_into_slot(struct ctx *c, const char *key, struct expr *e, const char *table,
                          struct err *err);

static double time_div(const char *unit)
{
        if (!unit || !strcmp(unit, "ns"))
                return 1;
        if (!strcmp(unit, "us"))
                return 1e3;
        if (!strcmp(unit, "ms"))
                return 1e6;
        return 1e9;
}

static int resolve(void *p, const char *name, int dollar, struct err *err)
{
        struct ctx *c = p;
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
                if (!strcmp(name, "timeDiv")) {
                        /* nanoseconds per unit of -t, for rows shown in it ($timeUnit) */
                        slot = add_slot(c, key, NULL,
                                        time_div(c->o->time_unit ? c->o->time_unit : "ns"));
                        goto done;
                }
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

static void make_env(struct ctx *c, struct expr_env *env)
{
        env->n = c->n;
        env->slots = c->slots;
        env->nslots = c->nslots;
}

/* Bind e in the given table's context and evaluate it to a value (scalar or column). */
static int eval_expr(struct ctx *c, struct expr *e, const char *table, struct expr_val *out,
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

static int eval_into_slot(struct ctx *c, const char *key, struct expr *e, const char *table,
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
static double eval_agg(struct ctx *c, struct expr *e, const char *table, const char *agg)
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

static void ctx_free(struct ctx *c)
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

char *unit_display(const char *unit, const char *norm, const char *time_unit)
{
        if (!unit)
                return NULL;
        if (!strcmp(unit, "$timeUnit"))
                return xstrdup(time_unit ? time_unit : "ns");
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

/* -b matching: a panel id ("2"), a table id ("2.1") or a metric id ("2.1.3"). */
static int block_selects(const struct analysis_opts *o, const char *id)
{
        if (!o->nblocks)
                return 1;
        for (size_t i = 0; i < o->nblocks; i++)
                if (!strcmp(o->blocks[i], id))
                        return 1;
        return 0;
}

/* 1 if a -b id names a table of panel 0 ("0.3"): panel 0 then shows only those */
static int names_panel0_table(const struct analysis_opts *o)
{
        for (size_t i = 0; i < o->nblocks; i++)
                if (!strncmp(o->blocks[i], "0.", 2))
                        return 1;
        return 0;
}

int analysis_table_wanted(const struct analysis_opts *o, const struct panel *p,
                          const struct panel_table *t)
{
        if (!o->nblocks)
                return 1;
        if (p->id == 0)
                return !names_panel0_table(o) || block_selects(o, t->id);
        char pid[16];
        snprintf(pid, sizeof pid, "%d", p->id);
        if (block_selects(o, pid) || block_selects(o, t->id))
                return 1;
        size_t l = strlen(t->id);
        for (size_t i = 0; i < o->nblocks; i++)
                if (!strncmp(o->blocks[i], t->id, l) && o->blocks[i][l] == '.')
                        return 1;
        return 0;
}

static int row_wanted(const struct analysis_opts *o, const struct panel *p,
                      const struct panel_table *t, const char *rid)
{
        char pid[16];
        if (!o->nblocks)
                return 1;
        snprintf(pid, sizeof pid, "%d", p->id);
        return block_selects(o, pid) || block_selects(o, t->id) || block_selects(o, rid);
}

static void table_set_cols(struct rtable *t, size_t n, char **titles)
{
        t->ncols = n;
        t->cols = titles;
}

struct rtable *analysis_insert_table(struct analysis *an, size_t at, const struct panel *p,
                                     const struct panel_table *pt, const char *key_title,
                                     size_t ncols, char **cols)
{
        an->tables = xrealloc(an->tables, (an->ntables + 1) * sizeof *an->tables);
        memmove(&an->tables[at + 1], &an->tables[at], (an->ntables - at) * sizeof *an->tables);
        an->ntables++;
        struct rtable *t = &an->tables[at];
        memset(t, 0, sizeof *t);
        t->panel = p;
        t->pt = pt;
        t->arch = an->arch;
        t->id = xstrdup(pt->id);
        t->key_title = xstrdup(key_title);
        t->ncols = ncols;
        t->cols = cols;
        return t;
}

struct cell *rtable_add_row(struct rtable *t, const char *key, const char *rkey)
{
        t->keys = xrealloc(t->keys, (t->nrows + 1) * sizeof *t->keys);
        t->keys[t->nrows] = xstrdup(key);
        t->rkeys = xrealloc(t->rkeys, (t->nrows + 1) * sizeof *t->rkeys);
        t->rkeys[t->nrows] = xstrdup(rkey ? rkey : key);
        t->cells = xrealloc(t->cells, (t->nrows + 1) * t->ncols * sizeof *t->cells);
        struct cell *row = &t->cells[t->nrows * t->ncols];
        for (size_t i = 0; i < t->ncols; i++) {
                row[i].v = NAN;
                row[i].text = NULL;
        }
        t->nrows++;
        return row;
}

static struct rtable *new_table(struct analysis *an, const struct panel *p,
                                const struct panel_table *pt, const char *key_title)
{
        return analysis_insert_table(an, an->ntables, p, pt, key_title, 0, NULL);
}

static struct cell *add_row(struct rtable *t, const char *key)
{
        return rtable_add_row(t, key, NULL);
}

/* ---- metric tables ---- */

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

static double cached_agg(struct ctx *c, struct row_cache *rc, struct expr *e, const char *table,
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

static void fill_metric_row(struct ctx *c, const struct panel_table *pt, const struct metric *m,
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
                        cl->text = unit_display(m->unit, arch_title(c->a, c->o->norm, c->o->norm),
                                                c->o->time_unit);
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

static int eval_template_row(struct ctx *c, const struct panel_table *pt, const struct metric *m,
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

static int eval_metric_table(struct ctx *c, struct analysis *an, const struct panel *p,
                             const struct panel_table *pt, struct err *err)
{
        /* a family may hide the rows it has no counterpart for: they keep their ids */
        int hide = c->a->hide_empty_rows && !c->o->all_rows, shown = 0;
        for (size_t r = 0; r < pt->nrows; r++) {
                const struct metric *m = arch_metric(c->a, pt->rows[r]);
                shown += m && (!hide || m->expr.src);
        }
        if (!shown)
                return 0;
        struct rtable *t = new_table(an, p, pt, "Metric_ID");
        t->metric_table = 1;
        char **titles = xcalloc(pt->ncols, sizeof *titles);
        for (size_t k = 0; k < pt->ncols; k++)
                titles[k] = xstrdup(pt->cols[k].title);
        table_set_cols(t, pt->ncols, titles);
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
                        if (!row_wanted(c->o, p, pt, rid))
                                continue;
                        if (hide && !m->expr.src) {
                                t->nhidden++;
                                continue;
                        }
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

/* ---- built-in tables ---- */


struct kstat {
        char *name;
        double *t;
        size_t n, cap;
        double sum;
};

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

static int cmp_kstat_sum(const void *a, const void *b)
{
        const struct kstat *x = a, *y = b;
        if (x->sum != y->sum)
                return x->sum < y->sum ? 1 : -1;
        return strcmp(x->name, y->name);
}

static int cmp_kstat_name(const void *a, const void *b)
{
        return strcmp(((const struct kstat *)a)->name, ((const struct kstat *)b)->name);
}

/* a row's kernel name as shown (shortened by --kernel-verbose), malloc'd */
static char *kname(const struct workload *w, const struct analysis_opts *o, size_t row)
{
        int c = table_col(&w->pmc, "Kernel_Name");
        char buf[64];
        return kname_shorten(c >= 0 ? table_cell(&w->pmc, c, row, buf, sizeof buf) : "",
                             o->kernel_verbose ? o->kernel_verbose : 5);
}

/* rows passing the gpu and dispatch filters (not the kernel filter) */
static int base_selected(const struct workload *w, const struct analysis_opts *o, size_t r)
{
        if (o->gpu_id) {
                int c = table_col(&w->pmc, "GPU_ID");
                char buf[64];
                if (c < 0 || strcmp(table_cell(&w->pmc, c, r, buf, sizeof buf), o->gpu_id))
                        return 0;
        }
        if (o->rank) {
                /* --rank (multi-rank trees: the Rank column src/store/multi.c adds) */
                int c = table_col(&w->pmc, "Rank");
                char buf[64];
                if (c < 0 || strcmp(table_cell(&w->pmc, c, r, buf, sizeof buf), o->rank))
                        return 0;
        }
        if (o->ndispatches) {
                int c = table_col(&w->pmc, "Dispatch_ID");
                double id = c >= 0 ? w->pmc.num[c][r] : (double)r;
                size_t i;
                for (i = 0; i < o->ndispatches; i++)
                        if ((double)o->dispatches[i] == id)
                                break;
                if (i == o->ndispatches)
                        return 0;
        }
        return 1;
}

static struct kstat *kernel_stats(const struct workload *w, const struct analysis_opts *o,
                                  size_t *nk)
{
        struct kstat *ks = NULL;
        size_t n = 0, cap = 0;
        struct smap idx = {0};
        int cs = table_col(&w->pmc, "Start_Timestamp"), ce = table_col(&w->pmc, "End_Timestamp");
        for (size_t r = 0; r < w->pmc.nrows; r++) {
                if (!base_selected(w, o, r))
                        continue;
                char *name = kname(w, o, r);
                int k;
                if (!smap_get(&idx, name, &k)) {
                        xgrow(&ks, &cap, n + 1, sizeof *ks);
                        memset(&ks[n], 0, sizeof *ks);
                        ks[n].name = xstrdup(name);
                        k = (int)n++;
                        smap_put(&idx, name, k);
                }
                double d = (cs >= 0 && ce >= 0) ? w->pmc.num[ce][r] - w->pmc.num[cs][r] : NAN;
                xgrow(&ks[k].t, &ks[k].cap, ks[k].n + 1, sizeof(double));
                ks[k].t[ks[k].n++] = d;
                ks[k].sum += d;
                free(name);
        }
        smap_free(&idx);
        if (n) /* qsort(NULL, 0, ...) is undefined (UBSan) */
                qsort(ks, n, sizeof *ks, o->sort_by_kernel ? cmp_kstat_name : cmp_kstat_sum);
        *nk = n;
        return ks;
}

static void kstats_free(struct kstat *ks, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(ks[i].name);
                free(ks[i].t);
        }
        free(ks);
}

int analysis_top_kernels(const struct workload *w, const struct analysis_opts *o, char ***names,
                         size_t *n)
{
        size_t nk;
        struct kstat *ks = kernel_stats(w, o, &nk);
        *names = xcalloc(nk ? nk : 1, sizeof **names);
        for (size_t i = 0; i < nk; i++)
                (*names)[i] = xstrdup(ks[i].name);
        *n = nk;
        kstats_free(ks, nk);
        return 0;
}

static char **titles_of(const char *const *list, size_t n)
{
        char **t = xcalloc(n, sizeof *t);
        for (size_t i = 0; i < n; i++)
                t[i] = xstrdup(list[i]);
        return t;
}

static void build_top_kernels(const struct workload *w, const struct analysis_opts *o,
                              struct analysis *an, const struct panel *p,
                              const struct panel_table *pt, const char *const *selected,
                              size_t nsel)
{
        size_t nk;
        struct kstat *ks = kernel_stats(w, o, &nk);
        const char *u = o->time_unit ? o->time_unit : "ns";
        char sum[32], mean[32], med[32];
        snprintf(sum, sizeof sum, "Sum(%s)", u);
        snprintf(mean, sizeof mean, "Mean(%s)", u);
        snprintf(med, sizeof med, "Median(%s)", u);
        const char *cols[] = {"Kernel_Name", "Count", sum, mean, med, "Pct", "S"};
        struct rtable *t = new_table(an, p, pt, "index");
        table_set_cols(t, nsel ? 7 : 6, titles_of(cols, nsel ? 7 : 6));
        double total = 0, div = time_div(u);
        for (size_t i = 0; i < nk; i++)
                total += ks[i].sum / div;
        for (size_t i = 0; i < nk; i++) {
                char key[32];
                snprintf(key, sizeof key, "%zu", i);
                struct cell *row = add_row(t, key);
                qsort(ks[i].t, ks[i].n, sizeof(double), cmp_double);
                row[0].text = xstrdup(ks[i].name);
                row[1].v = (double)ks[i].n;
                row[2].v = ks[i].sum / div;
                row[3].v = ks[i].sum / (double)ks[i].n / div;
                row[4].v = agg_median(ks[i].t, ks[i].n) / div;
                row[5].v = row[2].v / total * 100.0;
                if (nsel) {
                        int mark = 0;
                        for (size_t j = 0; j < nsel; j++)
                                mark |= !strcmp(selected[j], ks[i].name);
                        row[6].text = xstrdup(mark ? "*" : "");
                }
        }
        kstats_free(ks, nk);
}

static void build_dispatch_list(const struct workload *w, const struct analysis_opts *o,
                                struct analysis *an, const struct panel *p,
                                const struct panel_table *pt)
{
        const char *cols[] = {"Dispatch_ID", "Kernel_Name", "GPU_ID"};
        struct rtable *t = new_table(an, p, pt, "index");
        table_set_cols(t, 3, titles_of(cols, 3));
        int cd = table_col(&w->pmc, "Dispatch_ID"), cg = table_col(&w->pmc, "GPU_ID");
        for (size_t r = 0; r < w->pmc.nrows; r++) {
                if (!base_selected(w, o, r))
                        continue;
                char key[32];
                snprintf(key, sizeof key, "%zu", r);
                struct cell *row = add_row(t, key);
                row[0].v = cd >= 0 ? w->pmc.num[cd][r] : (double)r;
                row[1].text = kname(w, o, r);
                row[2].v = cg >= 0 ? w->pmc.num[cg][r] : NAN;
        }
}

static void build_sysinfo(const struct workload *w, struct analysis *an, const struct panel *p,
                          const struct panel_table *pt)
{
        const char *cols[] = {"Info"};
        struct rtable *t = new_table(an, p, pt, "index");
        table_set_cols(t, 1, titles_of(cols, 1));
        char buf[64];
        for (size_t c = 0; c < w->sysinfo.ncols; c++) {
                /* the family's name for the field ("sysinfo.cu_per_gpu" in its words); an
                 * empty one hides a field it has no use for */
                char wkey[160];
                snprintf(wkey, sizeof wkey, "sysinfo.%s", w->sysinfo.names[c]);
                const char *label = arch_title(an->arch, wkey, w->sysinfo.names[c]);
                if (!*label)
                        continue;
                struct cell *row = add_row(t, label);
                const char *s = table_cell(&w->sysinfo, (int)c, 0, buf, sizeof buf);
                /* the spellings of "not available" that the reference's CSV reader knows */
                static const char *const na[] = {"NA", "N/A", "n/a", "NaN", "nan", "null",
                                                 "NULL", "None", "<NA>", "#N/A", NULL};
                int is_na = 0;
                for (size_t k = 0; na[k]; k++)
                        is_na |= !strcmp(s, na[k]);
                /* the recorded text as is; n/a shows as "nan", as the reference prints it */
                row[0].text = xstrdup(is_na || !*s ? "nan" : s);
        }
}

static void build_raw(const struct table *src, struct analysis *an, const struct panel *p,
                      const struct panel_table *pt)
{
        struct rtable *t = new_table(an, p, pt, "index");
        table_set_cols(t, src->ncols, titles_of((const char *const *)src->names, src->ncols));
        char buf[64];
        for (size_t r = 0; r < src->nrows; r++) {
                char key[32];
                snprintf(key, sizeof key, "%zu", r);
                struct cell *row = add_row(t, key);
                for (size_t c = 0; c < src->ncols; c++) {
                        if (src->str[c])
                                row[c].text =
                                    xstrdup(table_cell(src, (int)c, r, buf, sizeof buf));
                        else
                                row[c].v = src->num[c][r];
                }
        }
}

/* ---- the driver ---- */

void rtable_free(struct rtable *t)
{
        for (size_t k = 0; k < t->ncols; k++)
                free(t->cols[k]);
        free(t->cols);
        for (size_t r = 0; r < t->nrows; r++) {
                free(t->keys[r]);
                free(t->rkeys[r]);
                for (size_t k = 0; k < t->ncols; k++)
                        free(t->cells[r * t->ncols + k].text);
        }
        free(t->keys);
        free(t->rkeys);
        free(t->cells);
        free(t->id);
        free(t->key_title);
}

/* a metric table none of whose rows -b selected */
static void drop_last_table(struct analysis *an)
{
        rtable_free(&an->tables[--an->ntables]);
}

int analysis_run(const struct workload *w, const struct arch *a, const struct panel_set *ps,
                 const struct analysis_opts *o, struct analysis *an, struct err *err)
{
        int rc = 0;
        memset(an, 0, sizeof *an);
        an->arch = a;
        struct ctx c = {.w = w, .a = a, .o = o, .an = an};
        char **top = NULL;
        size_t ntop = 0;
        const char **knames = NULL;
        size_t nknames = 0;
        size_t *sel = xcalloc(w->pmc.nrows ? w->pmc.nrows : 1, sizeof *sel);

        analysis_top_kernels(w, o, &top, &ntop);
        knames = xcalloc(o->nkernels + o->nkernel_names + 1, sizeof *knames);
        for (size_t i = 0; i < o->nkernels; i++) {
                if (o->kernels[i] < 0 || (size_t)o->kernels[i] >= ntop) {
                        rc = err_set(err, ERR_INPUT,
                                     "kernel index %ld is out of range (0-%zd, see --list-stats)",
                                     o->kernels[i], (ssize_t)ntop - 1);
                        goto out;
                }
                knames[nknames++] = top[o->kernels[i]];
        }
        for (size_t i = 0; i < o->nkernel_names; i++)
                knames[nknames++] = o->kernel_names[i];

        size_t n = 0;
        for (size_t r = 0; r < w->pmc.nrows; r++) {
                if (!base_selected(w, o, r))
                        continue;
                if (nknames) {
                        char *name = kname(w, o, r);
                        size_t k;
                        for (k = 0; k < nknames; k++)
                                if (!strcmp(name, knames[k]))
                                        break;
                        free(name);
                        if (k == nknames)
                                continue;
                }
                sel[n++] = r;
        }
        if (!n) {
                rc = err_set(err, ERR_INPUT, "the filters select no dispatch in '%s'", w->path);
                goto out;
        }
        c.sel = sel;
        c.n = n;
        c.identity = n == w->pmc.nrows;
        an->nselected = n;

        for (size_t i = 0; i < ps->npanels; i++) {
                const struct panel *p = &ps->panels[i];
                for (size_t j = 0; j < p->ntables; j++) {
                        const struct panel_table *pt = &p->tables[j];
                        if (!panel_table_for(pt, a->target) || !analysis_table_wanted(o, p, pt))
                                continue;
                        if (!pt->source) {
                                if ((rc = eval_metric_table(&c, an, p, pt, err)))
                                        goto out;
                                if (an->tables[an->ntables - 1].nrows == 0)
                                        drop_last_table(an);
                        } else if (!strcmp(pt->source, "top_kernels")) {
                                build_top_kernels(w, o, an, p, pt, knames, nknames);
                        } else if (!strcmp(pt->source, "dispatch_list")) {
                                build_dispatch_list(w, o, an, p, pt);
                        } else if (!strcmp(pt->source, "sysinfo")) {
                                build_sysinfo(w, an, p, pt);
                        } else if (ranks_is_source(pt->source)) {
                                if ((rc = ranks_build(w, a, o, sel, n, knames, nknames, p, pt,
                                                      an, err)))
                                        goto out;
                        } else if (!strcmp(pt->source, "pc_sampling")) {
                                continue; /* PC-sampling records are not read (yet) */
                        } else if (findings_is_source(pt->source)) {
                                if ((rc = findings_build(w, a, ps, o, knames, nknames, p, an,
                                                         err)))
                                        goto out;
                        } else if (!strcmp(pt->source, "roofline")) {
                                if (w->has_roofline)
                                        build_raw(&w->roofline, an, p, pt);
                        } else {
                                rc = err_set(err, ERR_INPUT, "%s: unknown table source '%s'",
                                             p->file, pt->source);
                                goto out;
                        }
                }
        }
        if (o->nblocks) {
                /* every -b id must name something */
                for (size_t b = 0; b < o->nblocks; b++) {
                        int found = 0;
                        struct analysis_opts one = *o;
                        one.blocks = &o->blocks[b];
                        one.nblocks = 1;
                        for (size_t i = 0; i < an->ntables && !found; i++) {
                                const struct rtable *t = &an->tables[i];
                                if (t->panel->id == 0) {
                                        found = !strcmp(o->blocks[b], t->id);
                                        continue;
                                }
                                if (!t->metric_table) {
                                        found = analysis_table_wanted(&one, t->panel, t->pt);
                                        continue;
                                }
                                for (size_t r = 0; r < t->nrows && !found; r++)
                                        found = row_wanted(&one, t->panel, t->pt, t->keys[r]);
                        }
                        if (!found) {
                                rc = err_set(err, ERR_INPUT,
                                             "-b %s: no panel, table or metric has that id "
                                             "on %s",
                                             o->blocks[b], a->target);
                                goto out;
                        }
                }
        }
out:
        for (size_t i = 0; i < ntop; i++)
                free(top[i]);
        free(top);
        free(knames);
        free(sel);
        ctx_free(&c);
        if (rc)
                analysis_free(an);
        return rc;
}

void analysis_free(struct analysis *an)
{
        for (size_t i = 0; i < an->ntables; i++)
                rtable_free(&an->tables[i]);
        free(an->tables);
        for (size_t i = 0; i < an->nmissing; i++)
                free(an->missing[i]);
        free(an->missing);
        memset(an, 0, sizeof *an);
}
