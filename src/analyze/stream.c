/* Formula evaluation for analysis, the running half: the selected dispatches go through
 * the formulas a chunk at a time, and every accumulator keeps only what its aggregates
 * need, so memory grows with the number of formulas, not of dispatches. The results are
 * the in-memory evaluation's, bit for bit: sums follow numpy's pairwise order across
 * chunks, and median, quartiles and standard deviation see every value (kept in a
 * temporary file when there are many). */
#include "eval_int.h"
#include "../store/wstream.h"
#include "../util/round.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* $PRISM_EVAL_CHUNK (rows) and $PRISM_EVAL_VALUES_MB override the chunk size and the
 * memory for values, so that tests/stream.sh can compare one chunk held in memory with
 * many small ones and a temporary file */
static size_t env_size(const char *name, size_t dflt)
{
        const char *v = getenv(name);
        double n;
        return v && parse_double(v, &n) == 0 && n >= 0 && n < 1e15 ? (size_t)n : dflt;
}

/* ---- numpy's pairwise summation, block by block ---- */

/* the blocks pairwise_sum splits n values into, in order, and how many additions of the
 * two latest partial sums follow each */
static void pw_plan(struct eval *ev, size_t n, size_t depth)
{
        if (depth + 1 > ev->pw_depth)
                ev->pw_depth = depth + 1;
        if (n <= 128) {
                xgrow(&ev->leaf_len, &ev->capleaves, ev->nleaves + 1, sizeof *ev->leaf_len);
                ev->leaf_comb = xrealloc(ev->leaf_comb, ev->capleaves);
                ev->leaf_len[ev->nleaves] = n;
                ev->leaf_comb[ev->nleaves++] = 0;
                return;
        }
        size_t i = n / 2;
        i -= i % 8;
        pw_plan(ev, i, depth + 1);
        pw_plan(ev, n - i, depth + 1);
        ev->leaf_comb[ev->nleaves - 1]++;
}

static void pw_push(struct pwacc *p, const struct eval *ev, double s)
{
        p->stack[p->sp++] = s;
        for (unsigned k = 0; k < ev->leaf_comb[p->leaf]; k++) {
                double b = p->stack[--p->sp];
                double a = p->stack[--p->sp];
                p->stack[p->sp++] = a + b;
        }
        p->leaf++;
}

static void pw_feed(struct pwacc *p, const struct eval *ev, const double *v, size_t n)
{
        while (n && p->leaf < ev->nleaves) {
                size_t len = ev->leaf_len[p->leaf];
                if (p->npend == 0 && n >= len) {
                        pw_push(p, ev, expr_pw_sum(v, len));
                        v += len;
                        n -= len;
                        continue;
                }
                size_t take = len - p->npend < n ? len - p->npend : n;
                if (!p->pend)
                        p->pend = xmalloc(128 * sizeof *p->pend);
                memcpy(p->pend + p->npend, v, take * sizeof *v);
                p->npend += take;
                v += take;
                n -= take;
                if (p->npend == len) {
                        p->npend = 0;
                        pw_push(p, ev, expr_pw_sum(p->pend, len));
                }
        }
}

/* ndarray.sum(): 0.0 + the pairwise sum */
static double pw_total(const struct pwacc *p)
{
        return 0.0 + (p->sp ? p->stack[0] : 0.0);
}

/* ---- accumulators ---- */

/* v: a's values of chunk b (n rows) */
static void acc_feed(struct eval *ev, struct acc *a, const double *v, size_t n, size_t b)
{
        double mn, mx;
        size_t m = expr_minmax(v, n, &mn, &mx);
        if (m) {
                a->m += m;
                if (isnan(a->mn) || mn < a->mn)
                        a->mn = mn;
                if (isnan(a->mx) || mx > a->mx)
                        a->mx = mx;
        }
        pw_feed(&a->pw, ev, v, n);
        if (a->need_vals)
                accvals_put(&ev->vals, b, a->vidx, v);
}

/* every value of a, in row order (malloc'd), or NULL when they could not be read back */
static double *acc_values(struct eval *ev, struct acc *a)
{
        double *v = xmalloc((ev->n ? ev->n : 1) * sizeof *v);
        if (accvals_get(&ev->vals, a->vidx, v)) {
                free(v);
                return NULL;
        }
        return v;
}

/* agg of a's rows, as agg_by_name gives it over the whole column */
static double acc_result(struct eval *ev, struct acc *a, const char *agg, double q)
{
        if (a->missing || a->failed == 1)
                return NAN;
        if (a->scalar)
                return a->sval;
        if (!strcmp(agg, "avg"))
                return a->m ? pw_total(&a->pw) / (double)a->m : NAN;
        if (!strcmp(agg, "sum"))
                return a->m ? pw_total(&a->pw) : NAN;
        if (!strcmp(agg, "min"))
                return a->mn;
        if (!strcmp(agg, "max"))
                return a->mx;
        /* median, quartiles and deviation: every value read once for all four */
        static const char *const byval[] = {"median", "q1", "q3", "std"};
        size_t k = 0;
        while (k < 4 && strcmp(agg, byval[k]))
                k++;
        if (k < 4 && a->have_r)
                return a->r[k];
        double *v = acc_values(ev, a);
        if (!v) {
                warnf("cannot read back the values of a formula from a temporary file; its "
                      "median, quartiles and deviation are n/a");
                return NAN;
        }
        double r;
        if (k < 4) {
                /* the deviation first: agg_mq_own rearranges v (one copy of n values the
                 * less, per half of a two-thread evaluation at once) */
                a->r[3] = agg_std(v, ev->n);
                agg_mq_own(v, ev->n, a->r); /* median, q1, q3 */
                a->have_r = 1;
                r = a->r[k];
        } else {
                r = !strcmp(agg, "quantile") ? agg_quantile(v, ev->n, q)
                                             : agg_by_name(agg, v, ev->n);
        }
        free(v);
        return r;
}

static int needs_values(const char *agg)
{
        return strcmp(agg, "avg") && strcmp(agg, "sum") && strcmp(agg, "min") &&
               strcmp(agg, "max");
}

/* ---- aggregate calls inside formulas ---- */

static int tag_agg(void *p, struct expr *arg, const char *agg, struct expr *q)
{
        struct eval *ev = p;
        xgrow(&ev->accs, &ev->capaccs, ev->naccs + 1, sizeof *ev->accs);
        struct acc *a = &ev->accs[ev->naccs];
        memset(a, 0, sizeof *a);
        a->e = arg;
        a->agg = agg;
        a->q = q;
        a->inner = 1;
        a->mn = a->mx = NAN;
        xgrow(&ev->owned, &ev->capowned, ev->nowned + 2, sizeof *ev->owned);
        ev->owned[ev->nowned++] = arg;
        if (q)
                ev->owned[ev->nowned++] = q;
        return (int)ev->naccs++;
}

/* levels computed once each, as a formula's walk first needs them: a slot's (its formula's,
 * SK_EXPR; 0 for a column or a scalar) and an accumulator's (its formula's, + 1 for an
 * aggregate call's argument). What they depend on was made before them (a slot's formula is
 * bound before the slot is added; a tagged call lies inside the formula that tags it), so
 * the walks end; a circle would read the level in progress as 0. */
struct levels {
        struct eval *ev;
        int *sl, *tl;
        unsigned char *sdone, *tdone; /* 1: in progress, 2: known */
};

static int level_of(void *p, int slot, int tag)
{
        struct levels *L = p;
        struct eval *ev = L->ev;
        if (tag >= 0) {
                if ((size_t)tag >= ev->naccs)
                        return -1;
                if (!L->tdone[tag]) {
                        L->tdone[tag] = 1;
                        struct acc *a = &ev->accs[tag];
                        L->tl[tag] = expr_level(a->e, level_of, L) + a->inner;
                        L->tdone[tag] = 2;
                }
                return L->tl[tag];
        }
        if ((size_t)slot >= ev->nslots || ev->slots[slot].kind != SK_EXPR)
                return 0;
        if (!L->sdone[slot]) {
                L->sdone[slot] = 1;
                L->sl[slot] = expr_level(ev->slots[slot].e, level_of, L);
                L->sdone[slot] = 2;
        }
        return L->sl[slot];
}

/* the levels of slots and accumulators: a pass per level of nested aggregate calls */
static int plan_passes(struct eval *ev)
{
        int *sl = xcalloc(ev->nslots + 1, sizeof *sl), *tl = xcalloc(ev->naccs + 1, sizeof *tl);
        unsigned char *done = xcalloc(ev->nslots + ev->naccs + 1, 1);
        struct levels L = {ev, sl, tl, done, done + ev->nslots};
        for (size_t i = 0; i < ev->nslots; i++)
                level_of(&L, (int)i, -1);
        for (size_t i = 0; i < ev->naccs; i++)
                level_of(&L, -1, (int)i);
        free(done);
        int npass = 0;
        for (size_t i = 0; i < ev->nslots; i++)
                ev->slots[i].level = sl[i];
        for (size_t i = 0; i < ev->naccs; i++) {
                struct acc *a = &ev->accs[i];
                a->level = tl[i];
                /* an aggregate call's argument runs in the pass of its level; a formula in
                 * the pass after its aggregate calls are known */
                a->pass = a->inner ? a->level : a->level + 1;
                if (a->pass > npass)
                        npass = a->pass;
        }
        free(sl);
        free(tl);
        return npass;
}

/* ---- the passes ---- */

struct chunk {
        const size_t *sel; /* selected rows of this chunk */
        size_t n;
        long blk;          /* streamed: the spill block holding them, else -1 */
        double **cols;     /* per slot: a gathered column (owned) or NULL */
        double *buf;       /* streamed: a block's column */
};

/* slot i's values for the chunk's rows */
static void fill_col_slot(struct eval *ev, struct chunk *ch, size_t i, struct expr_slot *es)
{
        const struct slot *s = &ev->slots[i];
        es->s = NAN;
        es->col = NULL;
        if (s->col < 0)
                return;
        const size_t *sel = ch->sel;
        size_t n = ch->n;
        if (ch->blk >= 0) {
                /* a column of a block of the temporary file: rows row0 ... (every row of
                 * the block selected: read in place) */
                size_t row0 = (size_t)ch->blk * SPILL_CHUNK, len = 0;
                int whole = sel[0] == row0 && sel[n - 1] == row0 + n - 1 &&
                            n == spill_block_rows(ev->w->spill, (size_t)s->table, (size_t)ch->blk);
                double *v = xmalloc(n * sizeof *v);
                if (spill_read(ev->w->spill, (size_t)s->table, (size_t)ch->blk, s->col,
                               whole ? v : ch->buf, &len))
                        len = 0; /* unreadable: n/a */
                if (whole && len != n)
                        for (size_t k = 0; k < n; k++)
                                v[k] = NAN;
                for (size_t k = 0; !whole && k < n; k++)
                        v[k] = sel[k] - row0 < len ? ch->buf[sel[k] - row0] : NAN;
                ch->cols[i] = v;
                es->col = v;
                return;
        }
        const struct table *t = s->table ? &ev->w->acc[s->table - 1] : &ev->w->pmc;
        if (sel[n - 1] - sel[0] == n - 1 && sel[n - 1] < t->nrows) {
                es->col = t->num[s->col] + sel[0]; /* consecutive rows: read in place */
                return;
        }
        double *v = xmalloc(n * sizeof *v);
        for (size_t k = 0; k < n; k++)
                v[k] = sel[k] < t->nrows ? t->num[s->col][sel[k]] : NAN;
        ch->cols[i] = v;
        es->col = v;
}

/* slot i's column for the chunk into es[i] (a built-in's or a column's; n/a where its
 * formula cannot be computed in this pass) */
static void fill_slot(struct eval *ev, struct chunk *ch, size_t i, struct expr_slot *es,
                      const struct expr_env *env, int pass)
{
        struct slot *s = &ev->slots[i];
        if (s->kind == SK_COL) {
                fill_col_slot(ev, ch, i, &es[i]);
        } else if (s->kind == SK_SCALAR) {
                es[i].col = NULL;
                es[i].s = s->s;
        } else if (s->tainted || s->level >= pass) {
                /* n/a as a whole, or not computable yet: unused now */
                es[i].col = NULL;
                es[i].s = NAN;
        } else {
                struct expr_val v = {0};
                struct err e2;
                e2.code = 0; /* not zeroed whole: 1 KiB a formula a chunk */
                e2.msg[0] = 0;
                if (expr_eval(s->e, env, &v, &e2)) {
                        v.col = NULL;
                        v.s = NAN;
                }
                ch->cols[i] = v.col;
                es[i].col = v.col;
                es[i].s = v.s;
        }
}

/* Per accumulator of the pass, the slots its formula reads and, for a slot's formula that
 * is computed in this pass, the slots that one reads, in index order (a slot's formula
 * reads slots made before it); last[slot]: the last accumulator that reads it. A chunk then
 * makes a slot's column as the first accumulator reading it needs it and frees it after
 * the last: it holds the columns in use, not every one of the pass (at 1M dispatches the
 * two halves' chunks held 4,096 rows of some thousand columns each). */
struct needs {
        size_t *pool;     /* the accumulators' slots, one after another */
        size_t *off, *n;  /* per accumulator: where its slots are in pool, how many */
        long *last;
};

/* the slots of one accumulator's formula being gathered: each once (stamp), with those the
 * formulas of computed slots read */
struct gather {
        const struct eval *ev;
        int pass;
        unsigned *stamp, cur;
        size_t *list, n, cap;
};

static void gather_slot(void *p, int slot)
{
        struct gather *g = p;
        if ((size_t)slot >= g->ev->nslots || g->stamp[slot] == g->cur)
                return;
        g->stamp[slot] = g->cur;
        if (g->n == g->cap)
                xgrow(&g->list, &g->cap, g->n + 1, sizeof *g->list);
        g->list[g->n++] = (size_t)slot;
        const struct slot *sl = &g->ev->slots[slot];
        if (sl->kind == SK_EXPR && !sl->tainted && sl->level < g->pass)
                expr_slots_each(sl->e, gather_slot, g);
}


static void needs_plan(struct eval *ev, int pass, struct needs *nd)
{
        nd->off = xcalloc(ev->naccs + 1, sizeof *nd->off);
        nd->n = xcalloc(ev->naccs + 1, sizeof *nd->n);
        nd->last = xmalloc((ev->nslots + 1) * sizeof *nd->last);
        for (size_t k = 0; k < ev->nslots; k++)
                nd->last[k] = -1;
        struct gather g = {.ev = ev, .pass = pass,
                           .stamp = xcalloc(ev->nslots + 1, sizeof *g.stamp)};
        for (size_t i = 0; i < ev->naccs; i++) {
                const struct acc *a = &ev->accs[i];
                if (a->pass != pass || a->missing || a->failed == 1)
                        continue;
                size_t from = g.n;
                g.cur++;
                expr_slots_each(a->e, gather_slot, &g);
                /* made in index order (a slot's formula reads earlier ones): a few each,
                 * sorted by insertion */
                size_t *l = g.list + from;
                for (size_t k = 1; k < g.n - from; k++) {
                        size_t x = l[k], m = k;
                        for (; m > 0 && l[m - 1] > x; m--)
                                l[m] = l[m - 1];
                        l[m] = x;
                }
                nd->off[i] = from;
                nd->n[i] = g.n - from;
                for (size_t k = from; k < g.n; k++)
                        nd->last[g.list[k]] = (long)i;
        }
        nd->pool = g.list;
        free(g.stamp);
}

static void needs_free(struct eval *ev, struct needs *nd)
{
        (void)ev;
        free(nd->pool);
        free(nd->off);
        free(nd->n);
        free(nd->last);
}

static int run_pass(struct eval *ev, int pass, double *aggs, struct err *err)
{
        (void)err;
        struct expr_slot *es = xcalloc(ev->nslots + 1, sizeof *es);
        struct chunk ch = {.cols = xcalloc(ev->nslots + 1, sizeof *ch.cols)};
        if (ev->w->spill)
                ch.buf = xmalloc(SPILL_CHUNK * sizeof *ch.buf);
        struct expr_env env = {.slots = es, .nslots = ev->nslots, .aggs = aggs,
                               .naggs = ev->naccs};
        /* the slots this pass reads: its accumulators', and theirs (a built-in reads
         * counters); the others are neither read from the spill nor evaluated */
        struct needs nd;
        needs_plan(ev, pass, &nd);
        unsigned char *made = xcalloc(ev->nslots + 1, 1);
        for (size_t j = 0; j < ev->nchunks; j++) {
                size_t s0 = ev->chunks[j].s0;
                ch.sel = ev->sel + s0;
                ch.n = ev->chunks[j].n;
                ch.blk = ev->chunks[j].blk;
                env.n = ch.n;
                for (size_t i = 0; i < ev->nslots; i++) {
                        es[i].col = NULL; /* made when read */
                        es[i].s = NAN;
                        made[i] = 0;
                }
                for (size_t i = 0; i < ev->naccs; i++) {
                        struct acc *a = &ev->accs[i];
                        if (a->pass != pass || a->missing || a->failed == 1 || a->scalar)
                                continue;
                        const size_t *need = nd.pool + nd.off[i];
                        for (size_t k = 0; k < nd.n[i]; k++) {
                                size_t sl = need[k];
                                if (!made[sl]) {
                                        fill_slot(ev, &ch, sl, es, &env, pass);
                                        made[sl] = 1;
                                }
                        }
                        struct expr_val v = {0};
                        struct err e2;
                        e2.code = 0;
                        e2.msg[0] = 0;
                        if (expr_eval(a->e, &env, &v, &e2)) {
                                warnf("%s", e2.msg);
                                a->failed = 1;
                        } else if (!v.col) {
                                /* a value that is not per row: the same for every chunk */
                                a->scalar = 1;
                                a->sval = v.s;
                        } else {
                                acc_feed(ev, a, v.col, ch.n, j);
                                expr_val_free(&v);
                        }
                        /* the columns no later accumulator reads */
                        for (size_t k = 0; k < nd.n[i]; k++) {
                                size_t sl = need[k];
                                if (nd.last[sl] == (long)i) {
                                        free(ch.cols[sl]);
                                        ch.cols[sl] = NULL;
                                        es[sl].col = NULL;
                                        es[sl].s = NAN;
                                }
                        }
                }
                for (size_t i = 0; i < ev->nslots; i++) {
                        free(ch.cols[i]);
                        ch.cols[i] = NULL;
                }
        }
        free(ch.cols);
        free(ch.buf);
        free(es);
        free(made);
        needs_free(ev, &nd);
        return 0;
}

static void add_chunk(struct eval *ev, size_t s0, size_t n, long blk)
{
        xgrow(&ev->chunks, &ev->capchunks, ev->nchunks + 1, sizeof *ev->chunks);
        ev->chunks[ev->nchunks].s0 = s0;
        ev->chunks[ev->nchunks].n = n;
        ev->chunks[ev->nchunks++].blk = blk;
}

void eval_stream_free(struct eval *ev)
{
        free(ev->chunks);
        ev->chunks = NULL;
        for (size_t i = 0; i < ev->naccs; i++) {
                free(ev->accs[i].pw.pend);
                ev->accs[i].pw.pend = ev->accs[i].pw.stack = NULL;
        }
        accvals_free(&ev->vals);
        free(ev->pw_stacks);
        ev->pw_stacks = NULL;
        free(ev->leaf_len);
        free(ev->leaf_comb);
        free(ev->blk_n);
        ev->leaf_len = NULL;
        ev->leaf_comb = NULL;
        ev->blk_n = NULL;
}

int eval_run(struct eval *ev, struct err *err)
{
        ev->chunk = env_size("PRISM_EVAL_CHUNK", EVAL_CHUNK);
        if (ev->chunk < 1)
                ev->chunk = 1;
        size_t ntop = ev->naccs;
        /* every formula is bound (eval_bind: slots for what they read) */
        /* aggregate calls in built-ins and formulas get accumulators of their own */
        for (size_t i = 0; i < ev->nslots; i++)
                if (ev->slots[i].kind == SK_EXPR)
                        expr_tag_aggregates(ev->slots[i].e, tag_agg, ev);
        for (size_t i = 0; i < ntop; i++)
                if (!ev->accs[i].failed && !ev->accs[i].missing)
                        expr_tag_aggregates(ev->accs[i].e, tag_agg, ev);
        int npass = plan_passes(ev);
        /* which need every value, and where those go */
        for (size_t p = 0; p < ev->npend; p++) {
                struct acc *a = &ev->accs[ev->pend[p].a];
                if (needs_values(ev->pend[p].agg))
                        a->need_vals = 1;
        }
        for (size_t i = ntop; i < ev->naccs; i++)
                if (needs_values(ev->accs[i].agg))
                        ev->accs[i].need_vals = 1;
        for (size_t i = 0; i < ev->naccs; i++)
                if (ev->accs[i].need_vals)
                        ev->accs[i].vidx = ev->nvacc++;
        /* the chunks: the selected rows of each spill block, or ev->chunk rows at a time */
        if (ev->w->spill) {
                size_t s0 = 0;
                for (size_t k = 0; s0 < ev->n; k++) {
                        size_t end = (k + 1) * SPILL_CHUNK, s1 = s0;
                        while (s1 < ev->n && ev->sel[s1] < end)
                                s1++;
                        if (s1 > s0)
                                add_chunk(ev, s0, s1 - s0, (long)k);
                        s0 = s1;
                }
        } else {
                for (size_t s0 = 0; s0 < ev->n; s0 += ev->chunk)
                        add_chunk(ev, s0, ev->n - s0 < ev->chunk ? ev->n - s0 : ev->chunk, -1);
        }
        /* the kept values: a block per chunk and accumulator, coded; in memory when as
         * doubles they take up to 32 MiB */
        ev->blk_n = xmalloc((ev->nchunks ? ev->nchunks : 1) * sizeof *ev->blk_n);
        for (size_t j = 0; j < ev->nchunks; j++)
                ev->blk_n[j] = ev->chunks[j].n;
        accvals_init(&ev->vals, ev->nvacc, ev->nchunks, ev->blk_n,
                     env_size("PRISM_EVAL_VALUES_MB", 32) * 1024 * 1024);
        pw_plan(ev, ev->n, 0);
        /* a block's sum waits at most for one sum per level above it: every accumulator's
         * stack in one array */
        ev->pw_stacks = xmalloc((ev->naccs ? ev->naccs : 1) * (ev->pw_depth + 1) *
                                sizeof *ev->pw_stacks);
        for (size_t i = 0; i < ev->naccs; i++)
                ev->accs[i].pw.stack = ev->pw_stacks + i * (ev->pw_depth + 1);
        double *aggs = xcalloc(ev->naccs + 1, sizeof *aggs);
        for (size_t i = 0; i < ev->naccs; i++)
                aggs[i] = NAN;
        int rc = 0;
        for (int pass = 1; pass <= npass && !rc; pass++) {
                rc = run_pass(ev, pass, aggs, err);
                /* the aggregate calls of this pass are known now */
                for (size_t i = ntop; i < ev->naccs && !rc; i++) {
                        struct acc *a = &ev->accs[i];
                        if (a->pass != pass)
                                continue;
                        double q = NAN;
                        if (a->q) {
                                struct expr_env env = {.n = 1, .aggs = aggs, .naggs = ev->naccs};
                                struct expr_val v = {0};
                                struct err e2 = {0};
                                if (!expr_eval(a->q, &env, &v, &e2) && !v.col)
                                        q = v.s;
                                expr_val_free(&v);
                        }
                        aggs[i] = acc_result(ev, a, a->agg, q);
                }
        }
        free(aggs);
        /* the cells */
        for (size_t p = 0; p < ev->npend && !rc; p++) {
                const struct pending *pd = &ev->pend[p];
                struct rtable *t = ev->single ? ev->single : &ev->an->tables[pd->table];
                double v = acc_result(ev, &ev->accs[pd->a], pd->agg, NAN);
                if (pd->pop)
                        v = 100.0 * v / acc_result(ev, &ev->accs[pd->b], "avg", NAN);
                else if (pd->round >= 0)
                        v = round_half_even(v, pd->round);
                t->cells[pd->row * t->ncols + pd->col].v = v;
        }
        return rc;
}
