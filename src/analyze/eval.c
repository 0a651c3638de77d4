/* Formula evaluation for analysis, the planning half: bind the names of a metric's
 * formulas to slots (counter columns of the selected dispatches, built-ins, sysinfo
 * fields), give each formula an accumulator and each table cell the accumulators it reads.
 * stream.c then evaluates the formulas chunk by chunk and fills the cells. */
#include "eval_int.h"
#include "../store/wstream.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- slots ---- */

static int add_slot(struct eval *c, const char *key, enum slot_kind kind)
{
        xgrow(&c->slots, &c->capslots, c->nslots + 1, sizeof *c->slots);
        struct slot *s = &c->slots[c->nslots];
        memset(s, 0, sizeof *s);
        s->kind = kind;
        s->col = -1;
        s->s = NAN;
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

static int bind_expr(struct eval *c, struct expr *e, const char *table, int *missing,
                     struct err *err);

/* a built-in or the normalization as a slot: its formula cloned and bound in the table's
 * context; tainted when it reads a missing counter */
static int expr_slot(struct eval *c, const char *key, const struct expr *src, const char *table,
                     struct err *err)
{
        struct expr *e = expr_clone(src);
        int missing = 0;
        int rc = bind_expr(c, e, table, &missing, err);
        if (rc) {
                expr_free(e);
                return rc;
        }
        int slot = add_slot(c, key, SK_EXPR);
        c->slots[slot].e = e;
        c->slots[slot].tainted = missing;
        return slot;
}

/* a slot's key, a + sep + b: in buf when it fits, else malloc'd (free_key); no printf:
 * binding runs for every formula */
static char *join_key(char *buf, size_t size, const char *a, const char *sep, const char *b)
{
        size_t la = strlen(a), ls = strlen(sep), lb = strlen(b);
        char *k = la + ls + lb < size ? buf : xmalloc(la + ls + lb + 1);
        memcpy(k, a, la);
        memcpy(k + la, sep, ls);
        memcpy(k + la + ls, b, lb + 1);
        return k;
}

static void free_key(char *key, const char *kbuf)
{
        if (key != kbuf)
                free(key);
}

static int resolve(void *p, const char *name, int dollar, struct err *err)
{
        struct eval *c = p;
        int slot;
        char kbuf[192], *key; /* on the stack when it fits: a key a name bound */
        if (dollar) {
                if (!strcmp(name, "denom")) {
                        /* $denom stands for the normalization's formula, read in the same
                         * table as the metric (the reference substitutes the text) */
                        key = join_key(kbuf, sizeof kbuf, c->table ? c->table : "", "|",
                                       "$denom");
                        if (smap_get(&c->slotmap, key, &slot))
                                goto done;
                        struct expr *ne = arch_norm(c->a, c->o->norm);
                        if (!ne) {
                                free_key(key, kbuf);
                                return err_set(err, ERR_INPUT, "unknown normalization '%s'",
                                               c->o->norm);
                        }
                        slot = expr_slot(c, key, ne, c->table, err);
                        if (slot < 0) {
                                free_key(key, kbuf);
                                return slot;
                        }
                        goto done;
                }
                key = join_key(kbuf, sizeof kbuf, "", "$", name);
                if (smap_get(&c->slotmap, key, &slot))
                        goto done;
                if (!strcmp(name, "timeDiv")) {
                        /* nanoseconds per unit of -t, for rows shown in it ($timeUnit) */
                        slot = add_slot(c, key, SK_SCALAR);
                        c->slots[slot].s = time_div(c->o->time_unit ? c->o->time_unit : "ns");
                        goto done;
                }
                for (size_t i = 0; i < c->a->nbuiltins; i++) {
                        if (strcmp(c->a->builtins[i].name, name))
                                continue;
                        /* built-ins always read pmc_perf */
                        slot = expr_slot(c, key, c->a->builtins[i].expr, NULL, err);
                        if (slot < 0) {
                                free_key(key, kbuf);
                                return slot;
                        }
                        goto done;
                }
                if (table_col(&c->w->sysinfo, name) >= 0) {
                        slot = add_slot(c, key, SK_SCALAR);
                        c->slots[slot].s = workload_sys_num(c->w, name);
                        goto done;
                }
                free_key(key, kbuf);
                return err_set(err, ERR_INPUT, "unknown built-in '$%s'", name);
        }
        key = join_key(kbuf, sizeof kbuf, c->table ? c->table : "", "|", name);
        if (smap_get(&c->slotmap, key, &slot))
                goto done;
        {
                int ti = 0;
                const struct table *t = &c->w->pmc;
                if (c->table && strcmp(c->table, "pmc_perf")) {
                        t = NULL;
                        for (size_t i = 0; i < c->w->nacc; i++)
                                if (!strcmp(c->w->acc_names[i], c->table)) {
                                        t = &c->w->acc[i];
                                        ti = 1 + (int)i;
                                }
                }
                /* streamed: the columns are those of the temporary file */
                if (t && c->w->spill)
                        t = spill_head(c->w->spill, (size_t)ti);
                int col = t ? table_col(t, name) : -1;
                slot = add_slot(c, key, SK_COL);
                c->slots[slot].table = ti;
                c->slots[slot].col = col;
                if (col < 0) {
                        note_missing(c, name);
                        c->slots[slot].tainted = 1;
                }
        }
done:
        free_key(key, kbuf);
        if (c->slots[slot].tainted)
                c->bind_missing = 1;
        return slot;
}

/* Bind e in the given table's context; *missing: it reads a missing counter. */
static int bind_expr(struct eval *c, struct expr *e, const char *table, int *missing,
                     struct err *err)
{
        const char *saved = c->table;
        if (++c->depth > 16) {
                c->depth--;
                return err_set(err, ERR_INPUT, "built-ins refer to each other in a loop");
        }
        c->table = table;
        int outer = c->bind_missing;
        c->bind_missing = 0;
        int rc = expr_bind(e, resolve, c, err);
        *missing = c->bind_missing;
        c->bind_missing = outer;
        c->table = saved;
        c->depth--;
        return rc;
}

/* Bind every formula (slots for what they read), in the order they were planned, before
 * eval_run: one that fails is warned about and left out. */
static void eval_bind(struct eval *ev)
{
        for (size_t i = 0; i < ev->naccs; i++) {
                struct acc *a = &ev->accs[i];
                struct err e2 = {0};
                if (bind_expr(ev, a->e, a->table, &a->missing, &e2)) {
                        warnf("%s", e2.msg);
                        a->failed = 1;
                }
        }
}

/* ---- planning: accumulators and the cells that read them ---- */

static void own_expr(struct eval *c, struct expr *e);

/* where the accumulator of (e, table) is or goes in the open-addressed map accmap */
static size_t acc_probe(const struct eval *c, const struct expr *e, const char *table)
{
        uint64_t h = (uint64_t)(uintptr_t)e * 0x9E3779B97F4A7C15ULL ^
                     (uint64_t)(uintptr_t)table * 0xC2B2AE3D27D4EB4FULL;
        size_t j = (size_t)(h ^ (h >> 29)) & (c->capaccmap - 1);
        while (c->accmap[j].e && (c->accmap[j].e != e || c->accmap[j].table != table))
                j = (j + 1) & (c->capaccmap - 1);
        return j;
}

/* The accumulator of e (read in table), found by the two addresses (a cell is planned per
 * metric and column, a string key cost a hash and a copy each): e itself is bound, unless
 * the architecture's formulas are private (o->private_formulas) and e is one of them: then
 * a copy of it. */
static int acc_for(struct eval *c, struct expr *e, const char *table)
{
        if ((c->naccs + 1) * 2 > c->capaccmap) {
                /* rehash into twice the room (the entries are never dropped) */
                size_t ocap = c->capaccmap;
                struct accslot *old = c->accmap;
                c->capaccmap = ocap ? ocap * 2 : 64;
                c->accmap = xcalloc(c->capaccmap, sizeof *c->accmap);
                for (size_t i = 0; i < ocap; i++)
                        if (old[i].e)
                                c->accmap[acc_probe(c, old[i].e, old[i].table)] = old[i];
                free(old);
        }
        size_t j = acc_probe(c, e, table);
        if (c->accmap[j].e)
                return c->accmap[j].i;
        if (c->naccs == c->capaccs)
                xgrow(&c->accs, &c->capaccs, c->naccs + 1, sizeof *c->accs);
        struct acc *a = &c->accs[c->naccs];
        memset(a, 0, sizeof *a);
        a->e = e;
        if (c->o->private_formulas && !c->owned_row) {
                a->e = expr_clone(e);
                own_expr(c, a->e);
        }
        a->table = table;
        a->mn = a->mx = NAN;
        c->accmap[j].e = e;
        c->accmap[j].table = table;
        c->accmap[j].i = (int)c->naccs;
        return (int)c->naccs++;
}

static void own_expr(struct eval *c, struct expr *e)
{
        xgrow(&c->owned, &c->capowned, c->nowned + 1, sizeof *c->owned);
        c->owned[c->nowned++] = e;
}

/* cell (table t, row, col) will read agg of e (and of peak for pop) */
static void plan_cell(struct eval *c, size_t t, size_t row, size_t col, struct expr *e,
                      struct expr *peak, const char *table, const char *agg, int round, int pop)
{
        if (!e || (pop && !peak))
                return; /* n/a */
        if (c->npend == c->cappend)
                xgrow(&c->pend, &c->cappend, c->npend + 1, sizeof *c->pend);
        struct pending *p = &c->pend[c->npend++];
        memset(p, 0, sizeof *p);
        p->table = t;
        p->row = row;
        p->col = col;
        p->a = acc_for(c, e, table);
        p->b = pop ? acc_for(c, peak, table) : -1;
        memcpy(p->agg, agg, strnlen(agg, sizeof p->agg - 1)); /* zeroed above */
        p->round = round;
        p->pop = pop;
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
        /* the text before, the normalization's name with '_' as ' ', the text after */
        const char *after = p + strlen("$normUnit");
        size_t head = (size_t)(p - unit), ln = strlen(norm), tail = strlen(after);
        char *out = xmalloc(head + ln + tail + 1);
        memcpy(out, unit, head);
        for (size_t i = 0; i < ln; i++)
                out[head + i] = norm[i] == '_' ? ' ' : norm[i];
        memcpy(out + head + ln, after, tail + 1);
        return out;
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

/* what a panel column shows (its `show`), told by the first letter where it can be */
enum show { SHOW_NAME, SHOW_UNIT, SHOW_TEXT, SHOW_AGG, SHOW_PEAK, SHOW_POP, SHOW_OTHER };

static enum show show_kind(const char *s)
{
        switch (s[0]) {
        case 'n':
                return !strcmp(s, "name") ? SHOW_NAME : SHOW_OTHER;
        case 'u':
                return !strcmp(s, "unit") ? SHOW_UNIT : SHOW_OTHER;
        case 't':
                return !strcmp(s, "text") ? SHOW_TEXT : SHOW_OTHER;
        case 'p':
                return !strcmp(s, "peak") ? SHOW_PEAK : !strcmp(s, "pop") ? SHOW_POP : SHOW_OTHER;
        default:
                return is_agg(s) ? SHOW_AGG : SHOW_OTHER;
        }
}

/* ---- means as ratios of sums (rocprof-compute 3.7+, analysis_opts.ratio_avg) ---- */

static int name_per_row(void *p, const char *name);

struct per_row_walk {
        struct eval *c;
        int per_row, depth;
};

static void per_row_name(void *p, const char *name, int dollar)
{
        struct per_row_walk *w = p;
        if (!dollar)
                w->per_row = 1; /* a counter or a dispatch column */
        else if (w->depth < 16) {
                w->depth++;
                w->per_row |= name_per_row(w->c, name);
                w->depth--;
        }
}

/* 1 if the $name differs between dispatches: $denom under a normalization that reads
 * counters, a built-in that reads them outside an aggregate; sysinfo fields do not */
static int name_per_row(void *p, const char *name)
{
        struct eval *c = p;
        const struct expr *e = NULL;
        if (!strcmp(name, "denom")) {
                e = arch_norm(c->a, c->o->norm);
        } else {
                for (size_t i = 0; i < c->a->nbuiltins; i++)
                        if (!strcmp(c->a->builtins[i].name, name))
                                e = c->a->builtins[i].expr;
        }
        if (!e || expr_has_aggregate(e))
                return 0;
        struct per_row_walk w = {c, 0, 0};
        expr_names(e, per_row_name, &w);
        return w.per_row;
}

/* the mean of e as its version computes it: e itself (its cells take AVG), or, under
 * ratio_avg, the ratio of sums (expr_ratio_of_sums), parsed once per metric and cell */
static struct expr *mean_expr(struct eval *c, const struct metric *m, struct expr *e)
{
        if (!c->o->ratio_avg || !e)
                return e;
        char *src = expr_ratio_of_sums(e, name_per_row, c);
        if (!src)
                return e;
        struct err ignore = {0};
        struct expr *r = expr_parse(src, &m->expr.loc, m->name, &ignore);
        free(src);
        if (!r)
                return e;
        own_expr(c, r);
        return r;
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
        char num[24];
        size_t nl = long_text(num, i), len = strlen(s), ats = 0;
        for (const char *p = strchr(s, '@'); p; p = strchr(p + 1, '@'))
                ats++;
        char *out = xmalloc(len + ats * nl + 1), *o = out;
        for (const char *p; (p = strchr(s, '@')); s = p + 1) {
                memcpy(o, s, (size_t)(p - s));
                o += p - s;
                memcpy(o, num, nl);
                o += nl;
        }
        memcpy(o, s, strlen(s) + 1);
        return out;
}

static void fill_metric_row(struct eval *c, size_t ti, const struct panel_table *pt,
                            const struct metric *m, const char *name, struct cell *row,
                            size_t r)
{
        for (size_t k = 0; k < pt->ncols; k++) {
                const struct panel_col *pc = &pt->cols[k];
                struct cell *cl = &row[k];
                enum show sk = show_kind(pc->show);
                struct metric_field *ov =
                    sk > SHOW_TEXT && m->noverrides
                        ? find_field(m->overrides, m->noverrides, pc->show)
                        : NULL;
                if (sk == SHOW_NAME) {
                        cl->text = xstrdup(name);
                } else if (sk == SHOW_UNIT) {
                        cl->text = unit_display(m->unit, arch_title(c->a, c->o->norm, c->o->norm),
                                                c->o->time_unit);
                } else if (sk == SHOW_TEXT) {
                        struct metric_field *f =
                            pc->field ? find_field(m->texts, m->ntexts, pc->field) : NULL;
                        cl->text = xstrdup(f && f->src ? f->src : "");
                } else if (ov) {
                        plan_cell(c, ti, r, k, ov->expr, NULL, m->table, "avg", -1, 0);
                } else if (sk == SHOW_AGG) {
                        struct expr *e = m->expr.expr;
                        if (pc->field) {
                                struct metric_field *f =
                                    find_field(m->fields, m->nfields, pc->field);
                                e = f ? f->expr : NULL;
                        }
                        if (!strcmp(pc->show, "avg"))
                                e = mean_expr(c, m, e);
                        plan_cell(c, ti, r, k, e, NULL, m->table, pc->show, pc->round, 0);
                } else if (sk == SHOW_PEAK) {
                        plan_cell(c, ti, r, k, m->peak.expr, NULL, m->table, "avg", -1, 0);
                } else if (sk == SHOW_POP) {
                        /* 100 * the mean / the peak */
                        plan_cell(c, ti, r, k, mean_expr(c, m, m->expr.expr), m->peak.expr,
                                  m->table, "avg", -1, 1);
                }
        }
}

/* f's formula parsed with its '@' (once for every channel), or NULL when it does not parse */
static const struct expr *template_expr(struct eval *c, const struct metric_field *f,
                                        const char *what)
{
        char key[24];
        key_num(key, sizeof key, "", '@', (long)(size_t)f);
        int i;
        if (smap_get(&c->tmplmap, key, &i))
                return c->tmpls[i];
        struct err ignore;
        ignore.code = 0;
        ignore.msg[0] = 0;
        xgrow(&c->tmpls, &c->captmpls, c->ntmpls + 1, sizeof *c->tmpls);
        c->tmpls[c->ntmpls] = expr_parse(f->src, &f->loc, what, &ignore);
        smap_put(&c->tmplmap, key, (int)c->ntmpls);
        return c->tmpls[c->ntmpls++];
}

static struct metric_field clone_field(struct eval *c, const struct metric_field *f, long i,
                                       const char *what, struct err *err, int *bad)
{
        struct metric_field r = {0};
        if (!f->src)
                return r;
        r.key = f->key; /* the metric's: the instance lives while the metric does */
        r.loc = f->loc;
        /* a clone of the parsed template is the instance's parse; a template that does not
         * parse is parsed per instance, for the instance's own message */
        const struct expr *t = template_expr(c, f, what);
        if (t) {
                r.expr = expr_instance(t, f->src, &f->loc, i);
        } else {
                char *src = subst_at(f->src, i);
                r.expr = expr_parse(src, &r.loc, what, err);
                free(src);
        }
        if (!r.expr)
                *bad = 1;
        return r;
}

static int eval_template_row(struct eval *c, size_t ti, const struct panel_table *pt,
                             const struct metric *m, long i, struct cell *row, size_t r,
                             struct err *err)
{
        struct metric inst = *m;
        int bad = 0;
        inst.expr = clone_field(c, &m->expr, i, m->key, err, &bad);
        inst.peak = clone_field(c, &m->peak, i, m->key, err, &bad);
        inst.fields = xcalloc(m->nfields ? m->nfields : 1, sizeof *inst.fields);
        for (size_t j = 0; j < m->nfields; j++)
                inst.fields[j] = clone_field(c, &m->fields[j], i, m->key, err, &bad);
        inst.noverrides = 0;
        char *name = subst_at(m->name, i);
        if (!bad) {
                c->owned_row = 1;
                fill_metric_row(c, ti, pt, &inst, name, row, r);
                c->owned_row = 0;
        }
        free(name);
        /* the formulas live until the evaluation has run (keys are the metric's, no source
         * was kept) */
        struct metric_field *fs[] = {&inst.expr, &inst.peak};
        for (size_t j = 0; j < 2; j++)
                if (fs[j]->expr)
                        own_expr(c, fs[j]->expr);
        for (size_t j = 0; j < m->nfields; j++)
                if (inst.fields[j].expr)
                        own_expr(c, inst.fields[j].expr);
        free(inst.fields);
        return bad ? ERR_INPUT : 0;
}

int eval_metric_rows(struct eval *c, struct rtable *t, const struct panel *p,
                     const struct panel_table *pt, struct err *err)
{
        /* the table's place: in the analysis, or the one table of eval_table */
        size_t ti = c->single ? 0 : (size_t)(t - c->an->tables);
        t->metric_table = 1;
        /* a family may hide the rows it has no counterpart for: they keep their ids */
        int hide = c->a->hide_empty_rows && !c->o->all_rows;
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
                        key_num(rid, sizeof rid, pt->id, '.', pos++);
                        if (!analysis_row_wanted(c->o, p, pt, rid))
                                continue;
                        if (hide && !m->expr.src) {
                                t->nhidden++;
                                continue;
                        }
                        char rkey[256];
                        key_num(rkey, sizeof rkey, m->key, '#', i);
                        struct cell *row = rtable_add_row(t, rid, rkey);
                        if (m->is_template) {
                                int rc = eval_template_row(c, ti, pt, m, i, row, t->nrows - 1,
                                                           err);
                                if (rc)
                                        return rc;
                        } else {
                                fill_metric_row(c, ti, pt, m, m->name, row, t->nrows - 1);
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
        c->an = an;
        return c;
}

void eval_free(struct eval *c)
{
        if (!c)
                return;
        eval_stream_free(c);
        for (size_t i = 0; i < c->nslots; i++)
                expr_free(c->slots[i].e);
        free(c->slots);
        smap_free(&c->slotmap);
        smap_free(&c->missing);
        free(c->accs);
        free(c->accmap);
        free(c->pend);
        for (size_t i = 0; i < c->nowned; i++)
                expr_free(c->owned[i]);
        free(c->owned);
        for (size_t i = 0; i < c->ntmpls; i++)
                expr_free(c->tmpls[i]);
        free(c->tmpls);
        smap_free(&c->tmplmap);
        free(c);
}

int eval_finish(struct eval *ev, struct err *err)
{
        eval_bind(ev);
        return eval_run(ev, err);
}

int eval_table(const struct build_ctx *bc, const struct panel *p, const struct panel_table *pt,
               const size_t *sel, size_t n, struct rtable *out, struct err *err)
{
        /* every row of pt: a builder asks for the table it needs, whatever -b shows */
        struct analysis_opts o = *bc->o;
        o.blocks = NULL;
        o.nblocks = 0;
        struct eval *c = eval_new(bc->w, bc->a, &o, sel, n, NULL);
        c->single = out;
        char **titles = xcalloc(pt->ncols ? pt->ncols : 1, sizeof *titles);
        for (size_t k = 0; k < pt->ncols; k++)
                titles[k] = xstrdup(pt->cols[k].title);
        rtable_init(out, p, pt, "Metric_ID", pt->ncols, titles);
        int rc = eval_metric_rows(c, out, p, pt, err);
        if (!rc) {
                eval_bind(c);
                rc = eval_run(c, err);
        }
        eval_free(c);
        if (rc)
                rtable_free(out);
        return rc;
}
