/* Pass planning for AMD: formulas -> hardware counters, ratios (plan.h) -> clusters of
 * counters that share a run, then the clusters packed under the per-block limits into as
 * few runs as possible: the lower bound first, one more run only when the packing fails.
 * Accumulate runs are laid out first (their counter, its value and what their formulas
 * need) and take ordinary counters in their free slots like any other run. */
#include "plan_int.h"

#include <stdlib.h>
#include <string.h>

struct idxset {
        size_t *v;
        size_t n, cap;
};

static int set_has(const struct idxset *s, size_t x)
{
        for (size_t i = 0; i < s->n; i++)
                if (s->v[i] == x)
                        return 1;
        return 0;
}

static void set_add(struct idxset *s, size_t x)
{
        if (set_has(s, x))
                return;
        xgrow(&s->v, &s->cap, s->n + 1, sizeof *s->v);
        s->v[s->n++] = x;
}

struct work {
        const struct plan_req *req;
        size_t nb;                /* block limits */
        struct smap index;        /* counter name -> index */
        struct plan_counter *counters;
        int *blk;                 /* limit index per counter */
        size_t n, cap, cap_blk;
        char **tables;            /* accumulate counters, sorted, unique */
        size_t ntables, cap_tables;
        struct idxset *tneed;     /* per table: the counters its formulas need (not itself) */
        unsigned char *normal;    /* per counter: pmc_perf.csv needs it */
        struct idxset *ties;      /* ratios: counters to collect in one run */
        size_t nties, cap_ties;
        char **absent;            /* counters not on this architecture, sorted, unique */
        size_t nabsent, cap_absent;
};

static int block_of(const struct work *w, const char *block)
{
        for (size_t i = 0; i < w->nb; i++)
                if (!strcmp(w->req->limits[i].block, block))
                        return (int)i;
        return -1;
}

/* The counter index of a name: 0 and *out set, 1 for a name that is no counter (or the
 * accumulate value, or a counter not on this architecture), < 0 for a counter of a block
 * without a limit. A family's alias is the counter it names. */
static int slot_get(struct work *w, const char *name, struct err *err, size_t *out)
{
        if (w->req->accum_value && !strcmp(name, w->req->accum_value))
                return 1;
        char *slot, *alias;
        const char *block;
        unsigned forms;
        int k = plan_resolve(w->req, name, &slot, &block, &forms, &alias);
        if (k == 2) {
                int added;
                plan_sorted_add(&w->absent, &w->nabsent, &w->cap_absent, slot, &added);
                free(slot);
                return 1;
        }
        if (k == 1)
                return 1;
        if (k < 0) {
                size_t bl = strcspn(slot, "_");
                int rc = err_set(err, ERR_INPUT,
                                 "counter '%s' belongs to block '%.*s', which has no limit in "
                                 "block_limits",
                                 name, (int)bl, slot);
                free(slot);
                free(alias);
                return rc;
        }
        int idx;
        if (!smap_get(&w->index, slot, &idx)) {
                xgrow(&w->counters, &w->cap, w->n + 1, sizeof *w->counters);
                xgrow(&w->blk, &w->cap_blk, w->n + 1, sizeof *w->blk);
                memset(&w->counters[w->n], 0, sizeof *w->counters);
                w->counters[w->n].name = slot;
                w->counters[w->n].block = xstrdup(block);
                w->blk[w->n] = block_of(w, block);
                smap_put(&w->index, slot, (int)w->n);
                idx = (int)w->n++;
        } else {
                free(slot);
        }
        if (alias)
                plan_aka_add(&w->counters[idx], alias, forms);
        else
                w->counters[idx].forms |= forms;
        free(alias);
        *out = (size_t)idx;
        return 0;
}

static int is_table(const struct work *w, const char *name)
{
        for (size_t i = 0; i < w->ntables; i++)
                if (!strcmp(w->tables[i], name))
                        return 1;
        return 0;
}

enum { EXPAND_RATIO = 1 }; /* a side of a division: no $denom, no aggregate builtins */

/* The counters of a list of names, builtins expanded; $denom stands for the normalizations
 * only where a table is given (an accumulate pass must hold what its rows divide by). */
static int expand(struct work *w, char *const *names, size_t n, const char *table, int how,
                  struct idxset *out, int depth, struct err *err)
{
        if (depth > 32)
                return err_set(err, ERR_INPUT, "builtins refer to each other in a cycle");
        for (size_t i = 0; i < n; i++) {
                const char *nm = names[i];
                int rc;
                if (nm[0] == '$') {
                        if (!strcmp(nm + 1, "denom")) {
                                if (!table || how == EXPAND_RATIO)
                                        continue;
                                for (size_t k = 0; k < w->req->nsrcs; k++) {
                                        const struct plan_src *s = &w->req->srcs[k];
                                        if (s->kind == SRC_NORM &&
                                            (rc = expand(w, s->names, s->nnames, table, how,
                                                         out, depth + 1, err)))
                                                return rc;
                                }
                                continue;
                        }
                        const struct plan_src *b = plan_find_builtin(w->req, nm + 1);
                        if (b && !(how == EXPAND_RATIO && b->aggregate) &&
                            (rc = expand(w, b->names, b->nnames, table, how, out, depth + 1,
                                         err)))
                                return rc;
                        continue;
                }
                if (!table && is_table(w, nm))
                        continue; /* an accumulate counter is collected in its own pass */
                size_t idx;
                rc = slot_get(w, nm, err, &idx);
                if (rc < 0)
                        return rc;
                if (rc == 0)
                        set_add(out, idx);
        }
        return 0;
}

static int cmp_size(const void *a, const void *b)
{
        size_t x = *(const size_t *)a, y = *(const size_t *)b;
        return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static int table_index(const struct work *w, const char *name)
{
        for (size_t i = 0; i < w->ntables; i++)
                if (!strcmp(w->tables[i], name))
                        return (int)i;
        return -1;
}

/* The ratios of one formula: per division, the counters of each block found on both sides. */
static int add_ties(struct work *w, const struct plan_src *s, struct err *err)
{
        for (size_t d = 0; d < s->ndivs; d++) {
                struct idxset side[2] = {{0}, {0}};
                int rc = 0;
                for (int k = 0; k < 2 && !rc; k++)
                        rc = expand(w, s->divs[d].names[k], s->divs[d].n[k], NULL, EXPAND_RATIO,
                                    &side[k], 0, err);
                for (size_t b = 0; b < w->nb && !rc; b++) {
                        struct idxset t = {0};
                        int on[2] = {0, 0};
                        for (int k = 0; k < 2; k++)
                                for (size_t i = 0; i < side[k].n; i++)
                                        if ((size_t)w->blk[side[k].v[i]] == b) {
                                                on[k] = 1;
                                                set_add(&t, side[k].v[i]);
                                        }
                        if (on[0] && on[1] && t.n > 1) {
                                qsort(t.v, t.n, sizeof *t.v, cmp_size);
                                size_t j = 0;
                                while (j < w->nties &&
                                       !(w->ties[j].n == t.n &&
                                         !memcmp(w->ties[j].v, t.v, t.n * sizeof *t.v)))
                                        j++;
                                if (j == w->nties) {
                                        xgrow(&w->ties, &w->cap_ties, w->nties + 1,
                                              sizeof *w->ties);
                                        w->ties[w->nties++] = t;
                                        continue;
                                }
                        }
                        free(t.v);
                }
                free(side[0].v);
                free(side[1].v);
                if (rc)
                        return rc;
        }
        return 0;
}

/* Everything the request needs, in counter indices. Run twice: the first run only
 * registers the counters, which are then renumbered in name order, so that nothing
 * depends on the order of formulas. */
static int collect(struct work *w, int final, struct err *err)
{
        const struct plan_req *r = w->req;
        if (final) {
                w->tneed = xcalloc(w->ntables ? w->ntables : 1, sizeof *w->tneed);
                w->normal = xcalloc(w->n ? w->n : 1, 1);
        }
        for (size_t i = 0; i < r->nsrcs; i++) {
                const struct plan_src *s = &r->srcs[i];
                struct idxset set = {0};
                int rc = expand(w, s->names, s->nnames, s->table, 0, &set, 0, err);
                if (!rc && final && !s->table)
                        rc = add_ties(w, s, err);
                if (final && !rc) {
                        int t = s->table ? table_index(w, s->table) : -1;
                        for (size_t k = 0; k < set.n; k++) {
                                if (t < 0)
                                        w->normal[set.v[k]] = 1;
                                else if (strcmp(w->counters[set.v[k]].name, s->table))
                                        set_add(&w->tneed[t], set.v[k]);
                        }
                }
                free(set.v);
                if (rc)
                        return rc;
        }
        return 0;
}

static void canonical_order(struct work *w)
{
        struct plan_counter *c = w->counters;
        int *blk = w->blk;
        size_t *ord = xmalloc((w->n ? w->n : 1) * sizeof *ord);
        char **names = xmalloc((w->n ? w->n : 1) * sizeof *names);
        for (size_t i = 0; i < w->n; i++)
                names[i] = c[i].name;
        if (w->n > 1)
                qsort(names, w->n, sizeof *names, cmp_str);
        for (size_t i = 0; i < w->n; i++) {
                int old;
                smap_get(&w->index, names[i], &old);
                ord[i] = (size_t)old;
        }
        w->counters = xmalloc((w->n ? w->n : 1) * sizeof *w->counters);
        w->blk = xmalloc((w->n ? w->n : 1) * sizeof *w->blk);
        smap_free(&w->index);
        memset(&w->index, 0, sizeof w->index);
        for (size_t i = 0; i < w->n; i++) {
                w->counters[i] = c[ord[i]];
                w->blk[i] = blk[ord[i]];
                smap_put(&w->index, w->counters[i].name, (int)i);
        }
        w->cap = w->cap_blk = w->n;
        free(c);
        free(blk);
        free(ord);
        free(names);
}

/* ---- clusters and packing ---- */

static size_t uf_find(size_t *parent, size_t x)
{
        while (parent[x] != x) {
                parent[x] = parent[parent[x]];
                x = parent[x];
        }
        return x;
}

struct cluster {
        size_t *m; /* members, ascending */
        size_t n;
        int *cnt;  /* per block */
        double weight;
};

struct bins {
        size_t np;            /* runs */
        int *load;            /* np * nb */
        unsigned char *has;   /* np * n: the counter is collected in that run */
        size_t *at;           /* per cluster: its run */
};

static int order_key;
static int cmp_cluster(const void *a, const void *b)
{
        const struct cluster *x = a, *y = b;
        if (order_key == 0 && x->weight != y->weight)
                return x->weight > y->weight ? -1 : 1;
        if (x->n != y->n)
                return x->n > y->n ? -1 : 1;
        if (order_key == 1 && x->weight != y->weight)
                return x->weight > y->weight ? -1 : 1;
        return x->m[0] < y->m[0] ? -1 : x->m[0] > y->m[0];
}

/* Place every cluster in np runs, the last ntables of which are the accumulate runs
 * (already holding their counters): into the run where it costs the fewest new slots,
 * the first of those. Returns 0, or -1 if some cluster fits nowhere. */
static int place(const struct work *w, const struct cluster *cl, size_t ncl, size_t np,
                 struct bins *bn)
{
        size_t nb = w->nb, n = w->n, nn = np - w->ntables;
        const struct block_limit *lim = w->req->limits;
        bn->np = np;
        bn->load = xcalloc(np * nb + 1, sizeof *bn->load);
        bn->has = xcalloc(np * n + 1, 1);
        bn->at = xcalloc(ncl + 1, sizeof *bn->at);
        for (size_t t = 0; t < w->ntables; t++) {
                size_t p = nn + t;
                int self;
                smap_get(&w->index, w->tables[t], &self);
                bn->has[p * n + (size_t)self] = 1;
                bn->load[p * nb + (size_t)w->blk[self]] += 2;
                for (size_t k = 0; k < w->tneed[t].n; k++) {
                        size_t c = w->tneed[t].v[k];
                        bn->has[p * n + c] = 1;
                        bn->load[p * nb + (size_t)w->blk[c]]++;
                }
        }
        int *cost = xmalloc((nb ? nb : 1) * sizeof *cost);
        int rc = 0;
        for (size_t i = 0; i < ncl && !rc; i++) {
                size_t best = np;
                int best_cost = 0;
                for (size_t p = 0; p < np; p++) {
                        memset(cost, 0, nb * sizeof *cost);
                        int total = 0, ok = 1;
                        for (size_t k = 0; k < cl[i].n; k++)
                                if (!bn->has[p * n + cl[i].m[k]]) {
                                        cost[w->blk[cl[i].m[k]]]++;
                                        total++;
                                }
                        for (size_t b = 0; b < nb && ok; b++)
                                ok = bn->load[p * nb + b] + cost[b] <= lim[b].limit;
                        if (ok && (best == np || total < best_cost)) {
                                best = p;
                                best_cost = total;
                                if (!total)
                                        break;
                        }
                }
                if (best == np) {
                        rc = -1;
                        break;
                }
                bn->at[i] = best;
                for (size_t k = 0; k < cl[i].n; k++) {
                        size_t c = cl[i].m[k];
                        if (!bn->has[best * n + c]) {
                                bn->has[best * n + c] = 1;
                                bn->load[best * nb + (size_t)w->blk[c]]++;
                        }
                }
        }
        free(cost);
        return rc;
}

static void bins_free(struct bins *bn)
{
        free(bn->load);
        free(bn->has);
        free(bn->at);
        memset(bn, 0, sizeof *bn);
}

static const struct work *sort_w;
static int cmp_in_pass(const void *a, const void *b)
{
        size_t x = *(const size_t *)a, y = *(const size_t *)b;
        if (sort_w->blk[x] != sort_w->blk[y])
                return sort_w->blk[x] < sort_w->blk[y] ? -1 : 1;
        return strcmp(sort_w->counters[x].name, sort_w->counters[y].name);
}

/* The clusters: ratios joined (smallest first) while the joined set fits one run; a ratio
 * that does not fit is left spread. */
static size_t make_clusters(const struct work *w, struct cluster **out)
{
        size_t n = w->n, nb = w->nb;
        size_t *parent = xmalloc((n ? n : 1) * sizeof *parent);
        int *cnt = xcalloc((n ? n : 1) * (nb ? nb : 1), sizeof *cnt);
        for (size_t i = 0; i < n; i++) {
                parent[i] = i;
                if (w->normal[i])
                        cnt[i * nb + (size_t)w->blk[i]] = 1;
        }
        size_t *order = xmalloc((w->nties ? w->nties : 1) * sizeof *order);
        for (size_t i = 0; i < w->nties; i++)
                order[i] = i;
        /* smallest ratios first, then in counter order (ties are sorted sets) */
        for (size_t i = 1; i < w->nties; i++)
                for (size_t j = i; j > 0; j--) {
                        const struct idxset *a = &w->ties[order[j - 1]], *b = &w->ties[order[j]];
                        int swap = a->n > b->n ||
                                   (a->n == b->n && memcmp(a->v, b->v, a->n * sizeof *a->v) > 0);
                        if (!swap)
                                break;
                        size_t t = order[j];
                        order[j] = order[j - 1];
                        order[j - 1] = t;
                }
        int *sum = xmalloc((nb ? nb : 1) * sizeof *sum);
        size_t *roots = xmalloc((n ? n : 1) * sizeof *roots);
        for (size_t ti = 0; ti < w->nties; ti++) {
                const struct idxset *t = &w->ties[order[ti]];
                size_t nr = 0;
                for (size_t k = 0; k < t->n; k++) {
                        size_t r = uf_find(parent, t->v[k]);
                        size_t j = 0;
                        while (j < nr && roots[j] != r)
                                j++;
                        if (j == nr)
                                roots[nr++] = r;
                }
                if (nr < 2)
                        continue;
                memset(sum, 0, nb * sizeof *sum);
                int ok = 1;
                for (size_t j = 0; j < nr; j++)
                        for (size_t b = 0; b < nb; b++)
                                sum[b] += cnt[roots[j] * nb + b];
                for (size_t b = 0; b < nb && ok; b++)
                        ok = sum[b] <= w->req->limits[b].limit;
                if (!ok)
                        continue;
                size_t into = roots[0];
                for (size_t j = 1; j < nr; j++)
                        if (roots[j] < into)
                                into = roots[j];
                for (size_t j = 0; j < nr; j++)
                        parent[roots[j]] = into;
                memcpy(cnt + into * nb, sum, nb * sizeof *sum);
        }
        free(sum);
        free(roots);
        free(order);
        size_t ncl = 0;
        struct cluster *cl = xcalloc(n ? n : 1, sizeof *cl);
        size_t *cl_of = xmalloc((n ? n : 1) * sizeof *cl_of);
        for (size_t i = 0; i < n; i++) {
                cl_of[i] = (size_t)-1;
                if (!w->normal[i])
                        continue;
                size_t r = uf_find(parent, i);
                if (cl_of[r] == (size_t)-1) {
                        cl_of[r] = ncl;
                        cl[ncl].cnt = xmalloc((nb ? nb : 1) * sizeof *cl[ncl].cnt);
                        memcpy(cl[ncl].cnt, cnt + r * nb, nb * sizeof *cnt);
                        double wt = 0;
                        for (size_t b = 0; b < nb; b++) {
                                double f = (double)cnt[r * nb + b] / w->req->limits[b].limit;
                                if (f > wt)
                                        wt = f;
                        }
                        cl[ncl].weight = wt;
                        ncl++;
                }
                struct cluster *c = &cl[cl_of[r]];
                c->m = xrealloc(c->m, (c->n + 1) * sizeof *c->m);
                c->m[c->n++] = i;
        }
        free(cl_of);
        free(parent);
        free(cnt);
        *out = cl;
        return ncl;
}

/* The bound: per block, its slots over its limit; at least one run per accumulate counter. */
static void bound(const struct work *w, struct plan *p)
{
        p->blocks = xcalloc(w->nb ? w->nb : 1, sizeof *p->blocks);
        p->nblocks = w->nb;
        unsigned char *any = xcalloc(w->n ? w->n : 1, 1);
        for (size_t i = 0; i < w->n; i++)
                any[i] = w->normal[i];
        for (size_t t = 0; t < w->ntables; t++)
                for (size_t k = 0; k < w->tneed[t].n; k++)
                        any[w->tneed[t].v[k]] = 1;
        p->lower_bound = w->ntables;
        for (size_t b = 0; b < w->nb; b++) {
                struct plan_block *pb = &p->blocks[b];
                pb->block = xstrdup(w->req->limits[b].block);
                pb->limit = w->req->limits[b].limit;
                for (size_t i = 0; i < w->n; i++)
                        pb->counters += any[i] && (size_t)w->blk[i] == b;
                for (size_t t = 0; t < w->ntables; t++) {
                        int self;
                        smap_get(&w->index, w->tables[t], &self);
                        pb->accum += (size_t)w->blk[self] == b;
                }
                size_t slots = pb->counters + 2 * pb->accum;
                pb->bound = pb->limit > 0 ? (slots + (size_t)pb->limit - 1) / (size_t)pb->limit : 0;
                if (pb->bound > p->lower_bound)
                        p->lower_bound = pb->bound;
        }
        free(any);
}

static int check_accum(const struct work *w, struct err *err)
{
        int *cnt = xcalloc(w->nb ? w->nb : 1, sizeof *cnt);
        int rc = 0;
        for (size_t t = 0; t < w->ntables && !rc; t++) {
                int self;
                smap_get(&w->index, w->tables[t], &self);
                memset(cnt, 0, w->nb * sizeof *cnt);
                for (size_t k = 0; k < w->tneed[t].n; k++)
                        cnt[w->blk[w->tneed[t].v[k]]]++;
                cnt[w->blk[self]] += 2;
                for (size_t b = 0; b < w->nb && !rc; b++)
                        if (cnt[b] > w->req->limits[b].limit)
                                rc = err_set(err, ERR_INPUT,
                                             "the accumulate pass of '%s' needs %d %s counters "
                                             "(with %s and its accumulated value), over the "
                                             "limit of %d",
                                             w->tables[t], cnt[b], w->req->limits[b].block,
                                             w->tables[t], w->req->limits[b].limit);
        }
        free(cnt);
        return rc;
}

/* The plan's runs from a placement: normal runs that hold something, then the accumulate
 * runs (their counter first); home marks where pmc_perf.csv takes each counter from. */
static void build(struct work *w, const struct cluster *cl, size_t ncl, const struct bins *bn,
                  struct plan *p)
{
        size_t nn = bn->np - w->ntables;
        size_t *home = xmalloc((w->n ? w->n : 1) * sizeof *home);
        for (size_t i = 0; i < w->n; i++)
                home[i] = (size_t)-1;
        for (size_t c = 0; c < ncl; c++)
                for (size_t k = 0; k < cl[c].n; k++)
                        home[cl[c].m[k]] = bn->at[c];
        p->passes = xcalloc(bn->np + 1, sizeof *p->passes);
        sort_w = w;
        for (size_t r = 0; r < bn->np; r++) {
                int self = -1;
                if (r >= nn)
                        smap_get(&w->index, w->tables[r - nn], &self);
                struct plan_pass ps = {0};
                ps.counters = xmalloc((w->n + 1) * sizeof *ps.counters);
                ps.home = xcalloc(w->n + 1, 1);
                for (size_t i = 0; i < w->n; i++)
                        if (bn->has[r * w->n + i] && (int)i != self)
                                ps.counters[ps.n++] = i;
                if (!ps.n && self < 0) {
                        free(ps.counters);
                        free(ps.home);
                        continue;
                }
                if (ps.n > 1)
                        qsort(ps.counters, ps.n, sizeof *ps.counters, cmp_in_pass);
                if (self >= 0) {
                        memmove(ps.counters + 1, ps.counters, ps.n * sizeof *ps.counters);
                        ps.counters[0] = (size_t)self;
                        ps.n++;
                        ps.accum = xstrdup(w->tables[r - nn]);
                        p->naccum++;
                }
                for (size_t k = 0; k < ps.n; k++)
                        ps.home[k] = home[ps.counters[k]] == r;
                p->passes[p->npasses++] = ps;
        }
        /* ratios spread over runs */
        for (size_t t = 0; t < w->nties; t++) {
                p->groups++;
                for (size_t k = 1; k < w->ties[t].n; k++)
                        if (home[w->ties[t].v[k]] != home[w->ties[t].v[0]]) {
                                p->groups_split++;
                                break;
                        }
        }
        free(home);
}

int plan_make(const struct plan_req *r, struct plan *p, struct err *err)
{
        memset(p, 0, sizeof *p);
        struct work w = {0};
        w.req = r;
        w.nb = r->nlimits;
        struct cluster *cl = NULL;
        size_t ncl = 0;
        int rc = 0;

        for (size_t i = 0; i < r->nsrcs; i++) {
                const char *t = r->srcs[i].table;
                if (t && !is_table(&w, t)) {
                        xgrow(&w.tables, &w.cap_tables, w.ntables + 1, sizeof *w.tables);
                        w.tables[w.ntables++] = r->srcs[i].table;
                }
        }
        if (w.ntables > 1)
                qsort(w.tables, w.ntables, sizeof *w.tables, cmp_str);
        for (size_t t = 0; t < w.ntables && !rc; t++) {
                size_t idx;
                rc = slot_get(&w, w.tables[t], err, &idx);
                if (rc > 0)
                        rc = err_set(err, ERR_INPUT, "'%s' is not a counter name", w.tables[t]);
        }
        if (rc || (rc = collect(&w, 0, err)))
                goto out;
        canonical_order(&w);
        if ((rc = collect(&w, 1, err)) || (rc = check_accum(&w, err)))
                goto out;
        bound(&w, p);
        ncl = make_clusters(&w, &cl);

        /* the bound first; a few orders per run count; one more run only when all fail */
        struct bins bn = {0};
        for (size_t np = p->lower_bound; !bn.np; np++) {
                for (order_key = 0; order_key < 2; order_key++) {
                        if (ncl > 1)
                                qsort(cl, ncl, sizeof *cl, cmp_cluster);
                        if (place(&w, cl, ncl, np, &bn) == 0)
                                break;
                        bins_free(&bn);
                }
        }
        build(&w, cl, ncl, &bn, p);
        bins_free(&bn);
        p->accum_value = r->accum_value ? xstrdup(r->accum_value) : NULL;
        p->counters = w.counters;
        p->ncounters = w.n;
        w.counters = NULL;
        w.n = 0;
        p->defs = plan_defs_copy(r->defs, r->ndefs);
        p->ndefs = r->ndefs;
        p->absent = w.absent;
        p->nabsent = w.nabsent;
        w.absent = NULL;
        w.nabsent = 0;
out:
        for (size_t i = 0; i < ncl; i++) {
                free(cl[i].m);
                free(cl[i].cnt);
        }
        free(cl);
        for (size_t i = 0; i < w.n; i++)
                plan_counter_clear(&w.counters[i]);
        free(w.counters);
        for (size_t i = 0; i < w.nabsent; i++)
                free(w.absent[i]);
        free(w.absent);
        free(w.blk);
        for (size_t t = 0; w.tneed && t < w.ntables; t++)
                free(w.tneed[t].v);
        free(w.tneed);
        free(w.normal);
        for (size_t t = 0; t < w.nties; t++)
                free(w.ties[t].v);
        free(w.ties);
        free(w.tables);
        smap_free(&w.index);
        if (rc)
                plan_free(p);
        return rc;
}
