/* Pass planner: formulas -> hardware counters -> clusters of counters that formulas
 * combine -> passes packed under the per-block limits (first fit, several orders, the
 * fewest passes wins), then one pass per accumulate counter. */
#include "plan.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../expr/expr.h"

enum src_kind { SRC_FORMULA, SRC_BUILTIN, SRC_NORM };

struct plan_src {
        enum src_kind kind;
        char *name;  /* builtin name */
        char *table; /* accumulate counter, or NULL */
        char **names;
        size_t nnames, cap;
};

static const char accum_value[] = "SQ_ACCUM_PREV_HIRES";

const char *const plan_dispatch_cols[] = {
        "Dispatch_ID", "Kernel_Name", "GPU_ID", "Grid_Size", "Workgroup_Size",
        "LDS_Per_Workgroup", "Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR",
        "wave_size", NULL,
};

int plan_is_dispatch_col(const char *name)
{
        for (size_t i = 0; plan_dispatch_cols[i]; i++)
                if (!strcmp(plan_dispatch_cols[i], name))
                        return 1;
        return !strcmp(name, "Start_Timestamp") || !strcmp(name, "End_Timestamp");
}

void plan_req_init(struct plan_req *r, const struct block_limit *limits, size_t nlimits)
{
        memset(r, 0, sizeof *r);
        r->limits = xcalloc(nlimits ? nlimits : 1, sizeof *r->limits);
        for (size_t i = 0; i < nlimits; i++) {
                r->limits[i].block = xstrdup(limits[i].block);
                r->limits[i].limit = limits[i].limit;
        }
        r->nlimits = nlimits;
}

void plan_req_free(struct plan_req *r)
{
        for (size_t i = 0; i < r->nlimits; i++)
                free(r->limits[i].block);
        free(r->limits);
        for (size_t i = 0; i < r->nsrcs; i++) {
                struct plan_src *s = &r->srcs[i];
                for (size_t j = 0; j < s->nnames; j++)
                        free(s->names[j]);
                free(s->names);
                free(s->name);
                free(s->table);
        }
        free(r->srcs);
        memset(r, 0, sizeof *r);
}

static struct plan_src *add_src(struct plan_req *r, enum src_kind kind, const char *name,
                                const char *table)
{
        xgrow(&r->srcs, &r->cap_srcs, r->nsrcs + 1, sizeof *r->srcs);
        struct plan_src *s = &r->srcs[r->nsrcs++];
        memset(s, 0, sizeof *s);
        s->kind = kind;
        s->name = name ? xstrdup(name) : NULL;
        s->table = table ? xstrdup(table) : NULL;
        return s;
}

static void src_add_name(struct plan_src *s, const char *name)
{
        xgrow(&s->names, &s->cap, s->nnames + 1, sizeof *s->names);
        s->names[s->nnames++] = xstrdup(name);
}

static void collect_name(void *ctx, const char *name, int dollar)
{
        struct plan_src *s = ctx;
        if (dollar) {
                char *d = xasprintf("$%s", name);
                src_add_name(s, d);
                free(d);
        } else {
                src_add_name(s, name);
        }
}

static int add_formula(struct plan_req *r, enum src_kind kind, const char *name,
                       const char *src, const struct expr_loc *loc, const char *table,
                       struct err *err)
{
        struct expr *e = expr_parse(src, loc, name, err);
        if (!e)
                return err && err->code ? err->code : ERR_INPUT;
        struct plan_src *s = add_src(r, kind, name, table);
        expr_names(e, collect_name, s);
        expr_free(e);
        return 0;
}

int plan_req_formula(struct plan_req *r, const char *src, const struct expr_loc *loc,
                     const char *table, struct err *err)
{
        return add_formula(r, SRC_FORMULA, NULL, src, loc, table, err);
}

void plan_req_expr(struct plan_req *r, const struct expr *e, const char *table)
{
        struct plan_src *s = add_src(r, SRC_FORMULA, NULL, table);
        expr_names(e, collect_name, s);
}

void plan_req_names(struct plan_req *r, const char *const *names, size_t n, const char *table)
{
        struct plan_src *s = add_src(r, SRC_FORMULA, NULL, table);
        for (size_t i = 0; i < n; i++)
                src_add_name(s, names[i]);
}

int plan_req_builtin(struct plan_req *r, const char *name, const char *src,
                     const struct expr_loc *loc, struct err *err)
{
        return add_formula(r, SRC_BUILTIN, name, src, loc, NULL, err);
}

int plan_req_norm(struct plan_req *r, const char *src, const struct expr_loc *loc,
                  struct err *err)
{
        return add_formula(r, SRC_NORM, NULL, src, loc, NULL, err);
}

/* ---- names -> hardware counters ---- */

static int block_index(const struct block_limit *limits, size_t nlimits, const char *block)
{
        for (size_t i = 0; i < nlimits; i++)
                if (!strcmp(limits[i].block, block))
                        return (int)i;
        /* a sub-block (SQC) counts against the longest block name that prefixes it (SQ) */
        int best = -1;
        size_t bestlen = 0;
        for (size_t i = 0; i < nlimits; i++) {
                size_t l = strlen(limits[i].block);
                if (l > bestlen && !strncmp(limits[i].block, block, l)) {
                        best = (int)i;
                        bestlen = l;
                }
        }
        return best;
}

int plan_classify(const struct block_limit *limits, size_t nlimits, const char *name,
                  char **slot, const char **block, unsigned *forms)
{
        *slot = NULL;
        *block = NULL;
        *forms = 0;
        if (!strcmp(name, accum_value) || !isupper((unsigned char)name[0]) ||
            plan_is_dispatch_col(name))
                return 1;
        size_t len = strcspn(name, "[");
        unsigned form = PLAN_FORM_PLAIN;
        if (name[len] == '[') {
                form = PLAN_FORM_CHANNELS;
        } else if (len > 4 && !strcmp(name + len - 4, "_sum")) {
                form = PLAN_FORM_SUM;
                len -= 4;
        }
        /* a hardware counter is spelt in upper case; Grid_Size, End_Timestamp are columns */
        for (size_t i = 0; i < len; i++)
                if (!isupper((unsigned char)name[i]) && !isdigit((unsigned char)name[i]) &&
                    name[i] != '_')
                        return 1;
        *slot = xstrndup(name, len);
        *forms = form;
        size_t bl = strcspn(*slot, "_");
        char *b = xstrndup(*slot, bl);
        int bi = block_index(limits, nlimits, b);
        free(b);
        if (bi < 0 || limits[bi].limit <= 0) {
                *block = NULL;
                return -1;
        }
        *block = limits[bi].block;
        return 0;
}

/* ---- the planner's working state ---- */

struct group {
        size_t *slots; /* sorted, unique */
        size_t n;
        const char *table;
        size_t mult;   /* formulas with exactly these counters */
        int nblocks;   /* distinct blocks among them */
};

struct work {
        const struct plan_req *req;
        struct smap slot_index;  /* name -> counter index (before canonical sort) */
        struct plan_counter *counters;
        int *blk;                /* block index per counter */
        size_t ncounters, cap, cap_blk;
        struct group *groups;
        size_t ngroups, cap_groups;
        char **tables;           /* accumulate counters, sorted, unique */
        size_t ntables, cap_tables;
};

static int slot_get(struct work *w, const char *name, struct err *err, size_t *out)
{
        char *slot;
        const char *block;
        unsigned forms;
        int k = plan_classify(w->req->limits, w->req->nlimits, name, &slot, &block, &forms);
        if (k == 1)
                return 1;
        if (k < 0) {
                size_t bl = strcspn(slot, "_");
                int rc = err_set(err, ERR_INPUT,
                                 "counter '%s' belongs to block '%.*s', which has no limit in "
                                 "block_limits",
                                 name, (int)bl, slot);
                free(slot);
                return rc;
        }
        int idx;
        if (smap_get(&w->slot_index, slot, &idx)) {
                w->counters[idx].forms |= forms;
                free(slot);
                *out = (size_t)idx;
                return 0;
        }
        xgrow(&w->counters, &w->cap, w->ncounters + 1, sizeof *w->counters);
        xgrow(&w->blk, &w->cap_blk, w->ncounters + 1, sizeof *w->blk);
        struct plan_counter *c = &w->counters[w->ncounters];
        c->name = slot;
        c->block = xstrdup(block);
        c->forms = forms;
        w->blk[w->ncounters] = block_index(w->req->limits, w->req->nlimits, block);
        smap_put(&w->slot_index, slot, (int)w->ncounters);
        *out = w->ncounters++;
        return 0;
}

static const struct plan_src *find_builtin(const struct plan_req *r, const char *name)
{
        for (size_t i = 0; i < r->nsrcs; i++)
                if (r->srcs[i].kind == SRC_BUILTIN && !strcmp(r->srcs[i].name, name))
                        return &r->srcs[i];
        return NULL;
}

static int is_table(const struct work *w, const char *name)
{
        for (size_t i = 0; i < w->ntables; i++)
                if (!strcmp(w->tables[i], name))
                        return 1;
        return 0;
}

struct idxset {
        size_t *v;
        size_t n, cap;
};

static void set_add(struct idxset *s, size_t x)
{
        for (size_t i = 0; i < s->n; i++)
                if (s->v[i] == x)
                        return;
        xgrow(&s->v, &s->cap, s->n + 1, sizeof *s->v);
        s->v[s->n++] = x;
}

/* The counters of a list of names, builtins expanded; $denom stands for the normalizations
 * only where a table is given (an accumulate pass must hold what its rows divide by). */
static int expand(struct work *w, char *const *names, size_t n, const char *table,
                  struct idxset *out, int depth, struct err *err)
{
        if (depth > 32)
                return err_set(err, ERR_INPUT, "builtins refer to each other in a cycle");
        for (size_t i = 0; i < n; i++) {
                const char *nm = names[i];
                int rc;
                if (nm[0] == '$') {
                        if (!strcmp(nm + 1, "denom")) {
                                if (!table)
                                        continue;
                                for (size_t k = 0; k < w->req->nsrcs; k++) {
                                        const struct plan_src *s = &w->req->srcs[k];
                                        if (s->kind == SRC_NORM &&
                                            (rc = expand(w, s->names, s->nnames, table, out,
                                                         depth + 1, err)))
                                                return rc;
                                }
                                continue;
                        }
                        const struct plan_src *b = find_builtin(w->req, nm + 1);
                        if (b && (rc = expand(w, b->names, b->nnames, table, out, depth + 1,
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

static void add_group(struct work *w, struct idxset *s, const char *table)
{
        xgrow(&w->groups, &w->cap_groups, w->ngroups + 1, sizeof *w->groups);
        struct group *g = &w->groups[w->ngroups++];
        g->slots = s->v;
        g->n = s->n;
        g->table = table;
        s->v = NULL;
        s->n = s->cap = 0;
}

/* Renumber counters in name order, so that nothing depends on the order of formulas. */
static void canonical_order(struct work *w)
{
        size_t n = w->ncounters;
        char **names = xmalloc((n ? n : 1) * sizeof *names);
        for (size_t i = 0; i < n; i++)
                names[i] = w->counters[i].name;
        if (n > 1)
                qsort(names, n, sizeof *names, cmp_str);
        size_t *map = xmalloc((n ? n : 1) * sizeof *map);
        struct plan_counter *nc = xmalloc((n ? n : 1) * sizeof *nc);
        int *nb = xmalloc((n ? n : 1) * sizeof *nb);
        for (size_t i = 0; i < n; i++) {
                int old;
                smap_get(&w->slot_index, names[i], &old);
                map[old] = i;
                nc[i] = w->counters[old];
                nb[i] = w->blk[old];
        }
        for (size_t i = 0; i < n; i++)
                smap_put(&w->slot_index, nc[i].name, (int)i);
        for (size_t g = 0; g < w->ngroups; g++) {
                for (size_t k = 0; k < w->groups[g].n; k++)
                        w->groups[g].slots[k] = map[w->groups[g].slots[k]];
                if (w->groups[g].n > 1)
                        qsort(w->groups[g].slots, w->groups[g].n, sizeof(size_t), cmp_size);
        }
        free(w->counters);
        free(w->blk);
        w->counters = nc;
        w->blk = nb;
        w->cap = w->cap_blk = n;
        free(map);
        free(names);
}

static int cmp_group(const void *a, const void *b)
{
        const struct group *x = a, *y = b;
        int t = strcmp(x->table ? x->table : "", y->table ? y->table : "");
        if (t)
                return t;
        if (x->n != y->n)
                return x->n < y->n ? -1 : 1;
        for (size_t i = 0; i < x->n; i++)
                if (x->slots[i] != y->slots[i])
                        return x->slots[i] < y->slots[i] ? -1 : 1;
        return 0;
}

/* Merge identical formulas' counter sets (after sorting) and count them. */
static void dedupe_groups(struct work *w)
{
        size_t out = 0;
        for (size_t g = 0; g < w->ngroups; g++) {
                if (out && !cmp_group(&w->groups[out - 1], &w->groups[g])) {
                        w->groups[out - 1].mult++;
                        free(w->groups[g].slots);
                        continue;
                }
                w->groups[out] = w->groups[g];
                w->groups[out].mult = 1;
                int nbk = 0;
                for (size_t k = 0; k < w->groups[out].n; k++) {
                        int seen = 0;
                        for (size_t j = 0; j < k && !seen; j++)
                                seen = w->blk[w->groups[out].slots[j]] ==
                                       w->blk[w->groups[out].slots[k]];
                        nbk += !seen;
                }
                w->groups[out].nblocks = nbk;
                out++;
        }
        w->ngroups = out;
}

/* ---- clusters (union-find) and packing ---- */

/* The order in which formulas may pull their counters together. Formulas within one block
 * first (a hit rate: its parts are of one block), small before wide, frequent before rare;
 * the planner tries each order and keeps the best plan. */
enum { NSTRATEGIES = 3 };
static int group_strategy;
static const struct group *group_base;

static int cmp_group_order(const void *a, const void *b)
{
        const struct group *x = &group_base[*(const size_t *)a];
        const struct group *y = &group_base[*(const size_t *)b];
        if (group_strategy == 0 && x->nblocks != y->nblocks)
                return x->nblocks < y->nblocks ? -1 : 1;
        if (group_strategy == 2 && x->mult != y->mult)
                return x->mult > y->mult ? -1 : 1;
        if (x->n != y->n)
                return x->n < y->n ? -1 : 1;
        if (x->mult != y->mult)
                return x->mult > y->mult ? -1 : 1;
        size_t i = *(const size_t *)a, j = *(const size_t *)b;
        return i < j ? -1 : i > j;
}

struct cluster {
        size_t *members;
        size_t n;
        int *cnt; /* per block */
        double weight;
        size_t first; /* smallest member, for ties */
};

static size_t uf_find(size_t *parent, size_t x)
{
        while (parent[x] != x) {
                parent[x] = parent[parent[x]];
                x = parent[x];
        }
        return x;
}

static int fits(const int *a, const int *b, const struct block_limit *lim, size_t nb)
{
        for (size_t i = 0; i < nb; i++)
                if (a[i] + (b ? b[i] : 0) > lim[i].limit)
                        return 0;
        return 1;
}

/* Order for first-fit: heaviest first by `key`, ties by size then name. */
static int sort_key;
static const struct block_limit *sort_lim;
static size_t sort_nb;

static double cluster_key(const struct cluster *c)
{
        double k = 0;
        for (size_t b = 0; b < sort_nb; b++) {
                double f = (double)c->cnt[b] / sort_lim[b].limit;
                if (sort_key == 0 && f > k)
                        k = f;           /* the fullest block */
                else if (sort_key == 1)
                        k += f;          /* the total share */
                else if (sort_key == 2 && b == 0)
                        k = c->cnt[b];   /* the first block of the limits (SQ) */
        }
        return k;
}

static int cmp_cluster(const void *a, const void *b)
{
        const struct cluster *x = a, *y = b;
        if (x->weight != y->weight)
                return x->weight > y->weight ? -1 : 1;
        if (x->n != y->n)
                return x->n > y->n ? -1 : 1;
        return x->first < y->first ? -1 : x->first > y->first;
}

/* First-fit of the clusters (in their current order) into passes; returns the pass count
 * and fills assign[cluster] with the pass number. */
static size_t first_fit(const struct cluster *cl, size_t ncl, const struct block_limit *lim,
                        size_t nb, size_t *assign)
{
        int *load = NULL;
        size_t npass = 0, cap = 0;
        for (size_t i = 0; i < ncl; i++) {
                size_t p = 0;
                while (p < npass && !fits(load + p * nb, cl[i].cnt, lim, nb))
                        p++;
                if (p == npass) {
                        size_t need = (npass + 1) * nb;
                        xgrow(&load, &cap, need, sizeof *load);
                        memset(load + npass * nb, 0, nb * sizeof *load);
                        npass++;
                }
                for (size_t b = 0; b < nb; b++)
                        load[p * nb + b] += cl[i].cnt[b];
                assign[i] = p;
        }
        free(load);
        return npass;
}

static const struct plan_counter *cmp_counters;
static const int *cmp_blk;

static int cmp_in_pass(const void *a, const void *b)
{
        size_t x = *(const size_t *)a, y = *(const size_t *)b;
        if (cmp_blk[x] != cmp_blk[y])
                return cmp_blk[x] < cmp_blk[y] ? -1 : 1;
        return strcmp(cmp_counters[x].name, cmp_counters[y].name);
}

static void pass_sort(struct work *w, struct plan_pass *ps)
{
        cmp_counters = w->counters;
        cmp_blk = w->blk;
        if (ps->n > 1)
                qsort(ps->counters, ps->n, sizeof(size_t), cmp_in_pass);
}

/* Normal passes: cluster the counters that formulas combine, then pack the clusters. */
static void pack_normal(struct work *w, const int *needed, int strategy, struct plan *p)
{
        const struct block_limit *lim = w->req->limits;
        size_t nb = w->req->nlimits, n = w->ncounters;
        size_t *parent = xmalloc((n ? n : 1) * sizeof *parent);
        int *cnt = xcalloc((n ? n : 1) * (nb ? nb : 1), sizeof *cnt);
        for (size_t i = 0; i < n; i++) {
                parent[i] = i;
                if (needed[i])
                        cnt[i * nb + (size_t)w->blk[i]] = 1;
        }
        size_t *gorder = xmalloc((w->ngroups ? w->ngroups : 1) * sizeof *gorder);
        for (size_t g = 0; g < w->ngroups; g++)
                gorder[g] = g;
        group_strategy = strategy;
        group_base = w->groups;
        if (w->ngroups > 1)
                qsort(gorder, w->ngroups, sizeof *gorder, cmp_group_order);
        int *sum = xmalloc((nb ? nb : 1) * sizeof *sum);
        size_t *roots = xmalloc((n ? n : 1) * sizeof *roots);
        for (size_t gi = 0; gi < w->ngroups; gi++) {
                const struct group *gr = &w->groups[gorder[gi]];
                if (gr->table || gr->n < 2)
                        continue;
                size_t nr = 0;
                for (size_t k = 0; k < gr->n; k++) {
                        size_t r = uf_find(parent, gr->slots[k]);
                        size_t j = 0;
                        while (j < nr && roots[j] != r)
                                j++;
                        if (j == nr)
                                roots[nr++] = r;
                }
                if (nr < 2)
                        continue;
                memset(sum, 0, nb * sizeof *sum);
                for (size_t j = 0; j < nr; j++)
                        for (size_t b = 0; b < nb; b++)
                                sum[b] += cnt[roots[j] * nb + b];
                if (!fits(sum, NULL, lim, nb))
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
        free(gorder);

        /* clusters in member order */
        size_t ncl = 0;
        struct cluster *cl = xcalloc(n ? n : 1, sizeof *cl);
        size_t *cl_of = xmalloc((n ? n : 1) * sizeof *cl_of);
        for (size_t i = 0; i < n; i++) {
                cl_of[i] = (size_t)-1;
                if (!needed[i])
                        continue;
                size_t r = uf_find(parent, i);
                if (cl_of[r] == (size_t)-1) {
                        cl_of[r] = ncl;
                        cl[ncl].cnt = cnt + r * nb;
                        cl[ncl].first = i;
                        ncl++;
                }
                struct cluster *c = &cl[cl_of[r]];
                c->members = xrealloc(c->members, (c->n + 1) * sizeof *c->members);
                c->members[c->n++] = i;
        }

        /* try a few first-fit orders; keep the fewest passes (the first on ties) */
        size_t *assign = xmalloc((ncl ? ncl : 1) * sizeof *assign);
        size_t *best = xmalloc((ncl ? ncl : 1) * sizeof *best);
        struct cluster *order = xmalloc((ncl ? ncl : 1) * sizeof *order);
        struct cluster *best_order = xmalloc((ncl ? ncl : 1) * sizeof *best_order);
        size_t best_n = (size_t)-1;
        sort_lim = lim;
        sort_nb = nb;
        for (int key = 0; key < 3; key++) {
                memcpy(order, cl, ncl * sizeof *cl);
                sort_key = key;
                for (size_t i = 0; i < ncl; i++)
                        order[i].weight = cluster_key(&order[i]);
                if (ncl > 1)
                        qsort(order, ncl, sizeof *order, cmp_cluster);
                size_t np = first_fit(order, ncl, lim, nb, assign);
                if (np < best_n) {
                        best_n = np;
                        memcpy(best, assign, ncl * sizeof *assign);
                        memcpy(best_order, order, ncl * sizeof *order);
                }
        }
        p->npasses = ncl ? best_n : 0;
        p->passes = xcalloc(p->npasses + w->ntables + 1, sizeof *p->passes);
        for (size_t i = 0; i < ncl; i++) {
                struct plan_pass *ps = &p->passes[best[i]];
                ps->counters = xrealloc(ps->counters,
                                        (ps->n + best_order[i].n) * sizeof *ps->counters);
                memcpy(ps->counters + ps->n, best_order[i].members,
                       best_order[i].n * sizeof(size_t));
                ps->n += best_order[i].n;
        }
        for (size_t i = 0; i < p->npasses; i++)
                pass_sort(w, &p->passes[i]);

        /* statistics: formulas whose counters ended in more than one pass */
        size_t *pass_of = xmalloc((n ? n : 1) * sizeof *pass_of);
        for (size_t i = 0; i < p->npasses; i++)
                for (size_t k = 0; k < p->passes[i].n; k++)
                        pass_of[p->passes[i].counters[k]] = i;
        for (size_t g = 0; g < w->ngroups; g++) {
                const struct group *gr = &w->groups[g];
                if (gr->table || gr->n < 2)
                        continue;
                p->groups += gr->mult;
                for (size_t k = 1; k < gr->n; k++)
                        if (pass_of[gr->slots[k]] != pass_of[gr->slots[0]]) {
                                p->groups_split += gr->mult;
                                break;
                        }
        }
        int *tot = xcalloc(nb ? nb : 1, sizeof *tot);
        for (size_t i = 0; i < n; i++)
                if (needed[i])
                        tot[w->blk[i]]++;
        for (size_t b = 0; b < nb; b++) {
                size_t lb = ((size_t)tot[b] + (size_t)lim[b].limit - 1) / (size_t)lim[b].limit;
                if (lb > p->lower_bound)
                        p->lower_bound = lb;
        }
        free(tot);
        free(pass_of);
        for (size_t i = 0; i < ncl; i++)
                free(cl[i].members);
        free(cl);
        free(cl_of);
        free(order);
        free(best_order);
        free(assign);
        free(best);
        free(parent);
        free(cnt);
}

/* One pass per accumulate counter: the counters its formulas need, the counter itself
 * and SQ_ACCUM_PREV_HIRES (one more slot of the counter's block). */
static int pack_accum(struct work *w, struct plan *p, struct err *err)
{
        size_t nb = w->req->nlimits;
        int *cnt = xcalloc(nb ? nb : 1, sizeof *cnt);
        int rc = 0;
        for (size_t t = 0; t < w->ntables && !rc; t++) {
                struct idxset s = {0};
                for (size_t g = 0; g < w->ngroups; g++)
                        if (w->groups[g].table && !strcmp(w->groups[g].table, w->tables[t]))
                                for (size_t k = 0; k < w->groups[g].n; k++)
                                        set_add(&s, w->groups[g].slots[k]);
                int idx;
                smap_get(&w->slot_index, w->tables[t], &idx);
                size_t self = (size_t)idx;
                memset(cnt, 0, nb * sizeof *cnt);
                for (size_t k = 0; k < s.n; k++)
                        if (s.v[k] != self)
                                cnt[w->blk[s.v[k]]]++;
                cnt[w->blk[self]] += 2;
                for (size_t b = 0; b < nb && !rc; b++)
                        if (cnt[b] > w->req->limits[b].limit)
                                rc = err_set(err, ERR_INPUT,
                                             "the accumulate pass of '%s' needs %d %s counters "
                                             "(with %s and %s), over the limit of %d",
                                             w->tables[t], cnt[b], w->req->limits[b].block,
                                             w->tables[t], accum_value,
                                             w->req->limits[b].limit);
                struct plan_pass *ps = &p->passes[p->npasses];
                ps->accum = xstrdup(w->tables[t]);
                ps->counters = xmalloc((s.n + 1) * sizeof *ps->counters);
                for (size_t k = 0; k < s.n; k++)
                        if (s.v[k] != self)
                                ps->counters[ps->n++] = s.v[k];
                pass_sort(w, ps);
                ps->counters[ps->n++] = self; /* last: SQ_ACCUM_PREV_HIRES follows it */
                p->npasses++;
                p->naccum++;
                free(s.v);
        }
        free(cnt);
        return rc;
}

int plan_make(const struct plan_req *r, struct plan *p, struct err *err)
{
        memset(p, 0, sizeof *p);
        struct work w = {0};
        w.req = r;
        int rc = 0;
        int *needed = NULL;

        for (size_t i = 0; i < r->nsrcs; i++) {
                const char *t = r->srcs[i].table;
                if (t && !is_table(&w, t)) {
                        xgrow(&w.tables, &w.cap_tables, w.ntables + 1, sizeof *w.tables);
                        w.tables[w.ntables++] = (char *)t;
                }
        }
        if (w.ntables > 1)
                qsort(w.tables, w.ntables, sizeof *w.tables, cmp_str);
        for (size_t t = 0; t < w.ntables; t++) {
                size_t idx;
                rc = slot_get(&w, w.tables[t], err, &idx);
                if (rc > 0)
                        rc = err_set(err, ERR_INPUT, "'%s' is not a counter name",
                                     w.tables[t]);
                if (rc)
                        goto out;
        }
        for (size_t i = 0; i < r->nsrcs; i++) {
                const struct plan_src *s = &r->srcs[i];
                struct idxset set = {0};
                rc = expand(&w, s->names, s->nnames, s->table, &set, 0, err);
                if (rc) {
                        free(set.v);
                        goto out;
                }
                add_group(&w, &set, s->table);
        }
        canonical_order(&w);
        if (w.ngroups > 1)
                qsort(w.groups, w.ngroups, sizeof *w.groups, cmp_group);
        dedupe_groups(&w);

        needed = xcalloc(w.ncounters ? w.ncounters : 1, sizeof *needed);
        for (size_t g = 0; g < w.ngroups; g++)
                if (!w.groups[g].table)
                        for (size_t k = 0; k < w.groups[g].n; k++)
                                needed[w.groups[g].slots[k]] = 1;
        /* the fewest passes, then the fewest formulas spread over passes */
        for (int st = 0; st < NSTRATEGIES; st++) {
                struct plan t = {0};
                pack_normal(&w, needed, st, &t);
                if (st == 0 || t.npasses < p->npasses ||
                    (t.npasses == p->npasses && t.groups_split < p->groups_split)) {
                        plan_free(p);
                        *p = t;
                } else {
                        plan_free(&t);
                }
        }
        rc = pack_accum(&w, p, err);
        p->counters = w.counters;
        p->ncounters = w.ncounters;
        w.counters = NULL;
        w.ncounters = 0;
out:
        for (size_t i = 0; i < w.ncounters; i++) {
                free(w.counters[i].name);
                free(w.counters[i].block);
        }
        free(w.counters);
        free(w.blk);
        for (size_t g = 0; g < w.ngroups; g++)
                free(w.groups[g].slots);
        free(w.groups);
        free(w.tables);
        free(needed);
        smap_free(&w.slot_index);
        if (rc)
                plan_free(p);
        return rc;
}

void plan_free(struct plan *p)
{
        for (size_t i = 0; i < p->ncounters; i++) {
                free(p->counters[i].name);
                free(p->counters[i].block);
        }
        free(p->counters);
        if (p->passes)
                for (size_t i = 0; i < p->npasses; i++) {
                        free(p->passes[i].counters);
                        free(p->passes[i].accum);
                }
        free(p->passes);
        memset(p, 0, sizeof *p);
}

/* ---- output ---- */

static void names_add(char ***v, size_t *n, size_t *cap, char *s)
{
        xgrow(v, cap, *n + 1, sizeof **v);
        (*v)[(*n)++] = s;
}

char **plan_pass_names(const struct plan *p, size_t i, int nchan, size_t *n)
{
        char **v = NULL;
        size_t cap = 0;
        *n = 0;
        const struct plan_pass *ps = &p->passes[i];
        for (size_t k = 0; k < ps->n; k++) {
                const struct plan_counter *c = &p->counters[ps->counters[k]];
                if (ps->accum && !strcmp(c->name, ps->accum)) {
                        names_add(&v, n, &cap, xstrdup(c->name));
                        names_add(&v, n, &cap, xstrdup(accum_value));
                        continue;
                }
                if (c->forms & PLAN_FORM_PLAIN)
                        names_add(&v, n, &cap, xstrdup(c->name));
                if (c->forms & PLAN_FORM_SUM)
                        names_add(&v, n, &cap, xasprintf("%s_sum", c->name));
                if (c->forms & PLAN_FORM_CHANNELS)
                        for (int ch = 0; ch < nchan; ch++)
                                names_add(&v, n, &cap, xasprintf("%s[%d]", c->name, ch));
        }
        return v;
}

void plan_names_free(char **names, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
}

char *plan_pass_line(const struct plan *p, size_t i)
{
        struct strbuf sb = {0};
        const struct plan_pass *ps = &p->passes[i];
        for (size_t k = 0; k < ps->n; k++)
                sb_addf(&sb, "%s%s", k ? " " : "", p->counters[ps->counters[k]].name);
        if (ps->accum)
                sb_addf(&sb, " %s", accum_value);
        return sb_detach(&sb);
}

int plan_write_perfmon(const struct plan *p, const char *dir, int nchan, struct err *err)
{
        int rc = 0;
        for (size_t i = 0; i < p->npasses && !rc; i++) {
                size_t n;
                char **names = plan_pass_names(p, i, nchan, &n);
                char *path = xasprintf("%s/pmc_perf_%zu.txt", dir, i);
                char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
                FILE *f = fopen(tmp, "w");
                if (!f) {
                        rc = err_set(err, ERR_SYS, "cannot write '%s': %s", tmp,
                                     strerror(errno));
                } else {
                        fputs("pmc:", f);
                        for (size_t k = 0; k < n; k++)
                                fprintf(f, " %s", names[k]);
                        fputc('\n', f);
                        if (fclose(f) != 0)
                                rc = err_set(err, ERR_SYS, "cannot write '%s': %s", tmp,
                                             strerror(errno));
                        else if (rename(tmp, path) != 0)
                                rc = err_set(err, ERR_SYS, "cannot rename '%s' to '%s': %s",
                                             tmp, path, strerror(errno));
                        if (rc)
                                unlink(tmp);
                }
                free(tmp);
                free(path);
                plan_names_free(names, n);
        }
        return rc;
}

/* ---- for plan_groups.c (NVIDIA), which packs by the profiler's own pass count ---- */

const char *const *plan_req_src_names(const struct plan_req *r, size_t i, size_t *n)
{
        *n = r->srcs[i].nnames;
        return (const char *const *)r->srcs[i].names;
}
