/* Pass planning for NVIDIA: the profiler's metrics a request names, packed first fit into groups
 * that the Profiler Host API says need one hardware pass each; the program runs once per
 * group. Metrics the profiler collects by instrumenting the code are grouped apart from hardware counters (they never
 * share a pass with them: the profiler instruments the code in a pass of its own). */
#include "plan_int.h"
#include "../store/columns.h"

#include <stdlib.h>
#include <string.h>

int plan_is_instrumented(const char *name, const char *const *prefixes, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
                        return 1;
        return 0;
}

struct gmetric {
        char *name;
        int inst;
        int solo; /* hardware passes it needs alone (with the per-pass metrics); 1 unless it
                     opened a group */
};

struct ggroup {
        size_t *members; /* indices into the metric list */
        size_t n, cap;
        int inst;
        int budget; /* hardware passes of its first metric alone; more than one pass of its
                       kind costs (limit below) closes the group */
};

/* Sort: hardware counters before instrumented metrics, then by name (which keeps a unit's
 * counters together: dram__, l1tex__, lts__, sm__, smsp__). */
static int cmp_gmetric(const void *a, const void *b)
{
        const struct gmetric *x = a, *y = b;
        if (x->inst != y->inst)
                return x->inst - y->inst;
        return strcmp(x->name, y->name);
}

static int cmp_name(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Passes for the per-pass metrics plus list[0..n). */
static int count(plan_passes_fn fn, const char *chip, const char *const *per_pass, size_t nper,
                 const char **buf, const char *const *list, size_t n, struct err *err)
{
        size_t k = 0;
        for (size_t i = 0; i < nper; i++)
                buf[k++] = per_pass[i];
        for (size_t i = 0; i < n; i++)
                buf[k++] = list[i];
        int r = fn(chip, buf, k, err);
        if (r < 0 && err && !err->code)
                err_set(err, ERR_SYS, "cannot count the hardware passes on %s", chip);
        return r < 0 ? r : (r < 1 ? 1 : r);
}

/* The metric names of the request, deduplicated (per-pass metrics left out; launch metrics,
 * which need no hardware pass, to *lout). */
static int collect(const struct plan_req *r, const char *const *per_pass, size_t nper,
                   const char *const *pfx, size_t npfx, const struct plan_launch *la,
                   struct smap *seen, struct gmetric **out, size_t *nout, char ***lout,
                   size_t *nlout, struct err *err)
{
        size_t cap = 0, lcap = 0;
        for (size_t i = 0; i < nper; i++)
                smap_put(seen, per_pass[i], -1);
        for (size_t s = 0; s < r->nsrcs; s++) {
                size_t n;
                const char *const *names = plan_req_src_names(r, s, &n);
                for (size_t k = 0; k < n; k++) {
                        const char *nm = names[k];
                        int idx;
                        if (nm[0] == '$' || col_is_dispatch(nm) || smap_get(seen, nm, &idx))
                                continue;
                        if (la && plan_is_instrumented(nm, la->prefixes, la->n)) {
                                xgrow(lout, &lcap, *nlout + 1, sizeof **lout);
                                (*lout)[(*nlout)++] = xstrdup(nm);
                                smap_put(seen, nm, -1);
                                continue;
                        }
                        if (!strstr(nm, "__") || strchr(nm, '['))
                                return err_set(err, ERR_INPUT,
                                               "'%s' is not a metric name of the "
                                               "profiler (unit__counter.rollup)",
                                               nm);
                        xgrow(out, &cap, *nout + 1, sizeof **out);
                        (*out)[*nout].name = xstrdup(nm);
                        (*out)[*nout].inst = plan_is_instrumented(nm, pfx, npfx);
                        (*out)[*nout].solo = 1;
                        smap_put(seen, nm, (int)*nout);
                        (*nout)++;
                }
        }
        return 0;
}

static void group_add(struct ggroup *g, size_t m)
{
        xgrow(&g->members, &g->cap, g->n + 1, sizeof *g->members);
        g->members[g->n++] = m;
}

static size_t uf_find(size_t *parent, size_t x)
{
        while (parent[x] != x) {
                parent[x] = parent[parent[x]];
                x = parent[x];
        }
        return x;
}

/* A side of a division: the request's metrics it names (index into ms), of one kind. */
static size_t side_metrics(const struct plan_div *d, int side, int inst, const struct smap *seen,
                           const struct gmetric *ms, size_t *out)
{
        size_t n = 0;
        for (size_t k = 0; k < d->n[side]; k++) {
                int idx;
                if (smap_get(seen, d->names[side][k], &idx) && idx >= 0 &&
                    ms[idx].inst == inst)
                        out[n++] = (size_t)idx;
        }
        return n;
}

struct tie {
        size_t *m; /* metric indices, both sides of one division, one kind */
        size_t n;
};

static int cmp_tie(const void *a, const void *b)
{
        const struct tie *x = a, *y = b;
        if (x->n != y->n)
                return x->n < y->n ? -1 : 1;
        for (size_t i = 0; i < x->n; i++)
                if (x->m[i] != y->m[i])
                        return x->m[i] < y->m[i] ? -1 : 1;
        return 0;
}

/* Ratios (plan.h): per division, the metrics of one kind (hardware or instrumented) found on both
 * sides. Joined by union-find, smallest first, while the joined metrics still need no more
 * hardware passes than one run of their kind allows; *nties receives how many ratios the
 * request has. */
static int join_ratios(const struct plan_req *r, const struct smap *seen, const struct gmetric *ms,
                       size_t nm, size_t *parent, struct tie **out, size_t *nout,
                       plan_passes_fn fn, const char *chip, const char *const *per_pass,
                       size_t nper, const char **buf, const char **list, const int *limit,
                       struct err *err)
{
        struct tie *ties = NULL;
        size_t nt = 0, cap = 0;
        int rc = 0;
        for (size_t s = 0; s < r->nsrcs; s++)
                for (size_t d = 0; d < r->srcs[s].ndivs; d++)
                        for (int inst = 0; inst <= 1; inst++) {
                                const struct plan_div *dv = &r->srcs[s].divs[d];
                                size_t *v = xmalloc((dv->n[0] + dv->n[1] + 1) * sizeof *v);
                                size_t na = side_metrics(dv, 0, inst, seen, ms, v);
                                size_t nb = side_metrics(dv, 1, inst, seen, ms, v + na);
                                if (!na || !nb) {
                                        free(v);
                                        continue;
                                }
                                /* sorted, unique */
                                size_t n = na + nb, u = 0;
                                for (size_t i = 1; i < n; i++)
                                        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
                                                size_t t = v[j];
                                                v[j] = v[j - 1];
                                                v[j - 1] = t;
                                        }
                                for (size_t i = 0; i < n; i++)
                                        if (!u || v[u - 1] != v[i])
                                                v[u++] = v[i];
                                xgrow(&ties, &cap, nt + 1, sizeof *ties);
                                ties[nt++] = (struct tie){v, u};
                        }
        if (nt > 1)
                qsort(ties, nt, sizeof *ties, cmp_tie);
        /* distinct ratios only */
        size_t u = 0;
        for (size_t t = 0; t < nt; t++) {
                if (u && !cmp_tie(&ties[u - 1], &ties[t])) {
                        free(ties[t].m);
                        continue;
                }
                ties[u++] = ties[t];
        }
        nt = u;
        for (size_t t = 0; t < nt; t++) {
                if (rc || ties[t].n < 2)
                        continue;
                /* the metrics of every cluster the ratio touches */
                unsigned char *in = xcalloc(nm + 1, 1);
                for (size_t k = 0; k < ties[t].n; k++)
                        in[uf_find(parent, ties[t].m[k])] = 1;
                size_t n = 0, roots = 0;
                for (size_t i = 0; i < nm; i++) {
                        roots += in[i] && uf_find(parent, i) == i;
                        if (in[uf_find(parent, i)])
                                list[n++] = ms[i].name;
                }
                if (roots > 1) {
                        int c = count(fn, chip, per_pass, nper, buf, list, n, err);
                        if (c < 0)
                                rc = c;
                        else if (c <= limit[ms[ties[t].m[0]].inst]) {
                                size_t into = nm;
                                for (size_t i = 0; i < nm; i++)
                                        if (in[i] && uf_find(parent, i) == i && into == nm)
                                                into = i;
                                for (size_t i = 0; i < nm; i++)
                                        if (in[i] && parent[i] == i)
                                                parent[i] = into;
                        }
                }
                free(in);
        }
        *out = ties;
        *nout = nt;
        return rc;
}

/* Passes for the per-pass metrics plus the metrics unit[0..nu) of ms. */
static int unit_count(plan_passes_fn fn, const char *chip, const char *const *per_pass,
                      size_t nper, const char **buf, const char **list, const struct gmetric *ms,
                      const size_t *unit, size_t nu, struct err *err)
{
        for (size_t k = 0; k < nu; k++)
                list[k] = ms[unit[k]].name;
        return count(fn, chip, per_pass, nper, buf, list, nu, err);
}

int plan_make_groups(const struct plan_req *r, const char *chip, plan_passes_fn num_passes,
                     const char *const *per_pass, size_t nper_pass, const char *const *pfx,
                     size_t npfx, const struct plan_launch *la, struct plan *p,
                     struct err *err)
{
        struct smap seen = {0};
        char **lnames = NULL;
        size_t nl = 0;
        struct gmetric *ms = NULL;
        struct ggroup *gs = NULL;
        size_t nm = 0, ng = 0, cap_g = 0;
        const char **buf = NULL, **list = NULL;
        size_t *pass_of = NULL, *parent = NULL, *unit = NULL, nties = 0;
        struct tie *ties = NULL;
        unsigned char *placed = NULL;
        int rc;

        memset(p, 0, sizeof *p);
        if (!num_passes || !chip || !*chip)
                return err_set(err, ERR_SYS, "no way to count hardware passes here");
        if ((rc = collect(r, per_pass, nper_pass, pfx, npfx, la, &seen, &ms, &nm, &lnames, &nl,
                          err)))
                goto out;
        buf = xcalloc(nm + nper_pass + 1, sizeof *buf);
        list = xcalloc(nm + 1, sizeof *list);

        if (nm > 1)
                qsort(ms, nm, sizeof *ms, cmp_gmetric);

        /* What one pass of each kind costs with the per-pass metrics: those alone (at
         * least 1) for hardware counters; one more for instrumented metrics, which the profiler collects
         * in a pass of their own (the per-pass hardware counters then take a second). */
        int limit[2] = {1, 1};
        if (nper_pass) {
                int c = count(num_passes, chip, per_pass, nper_pass, buf, NULL, 0, err);
                if (c < 0) {
                        rc = c;
                        goto out;
                }
                limit[0] = c;
                limit[1] = c + 1;
        }

        /* ratios: metrics to measure in one run (plan.h), joined by union-find */
        struct smap pos = {0};
        for (size_t i = 0; i < nm; i++)
                smap_put(&pos, ms[i].name, (int)i);
        parent = xmalloc((nm + 1) * sizeof *parent);
        unit = xmalloc((nm + 1) * sizeof *unit);
        placed = xcalloc(nm + 1, 1);
        for (size_t i = 0; i < nm; i++)
                parent[i] = i;
        rc = join_ratios(r, &pos, ms, nm, parent, &ties, &nties, num_passes, chip, per_pass,
                         nper_pass, buf, list, limit, err);
        p->groups = nties;
        smap_free(&pos);
        if (rc)
                goto out;

        /* first fit: each metric, with the metrics of its ratios, joins the first open group
         * of its kind that still needs no more passes with them, else opens a group. A unit
         * that needs more passes even alone keeps its group to itself: the profiler replays the
         * kernel within that run, which disturbs the caches, so nothing else is measured
         * there; ratios that need more than one pass alone are placed metric by metric. */
        for (size_t i = 0; i < nm; i++) {
                if (placed[i])
                        continue;
                size_t nu = 0, root = uf_find(parent, i);
                for (size_t j = i; j < nm; j++)
                        if (!placed[j] && uf_find(parent, j) == root)
                                unit[nu++] = j;
                int alone = unit_count(num_passes, chip, per_pass, nper_pass, buf, list, ms,
                                       unit, nu, err);
                if (alone >= 0 && nu > 1 && alone > limit[ms[i].inst]) {
                        nu = 1; /* spread: this metric alone, the others later */
                        alone = unit_count(num_passes, chip, per_pass, nper_pass, buf, list, ms,
                                           unit, nu, err);
                }
                if (alone < 0) {
                        rc = alone;
                        goto out;
                }
                size_t g;
                for (g = 0; g < ng; g++) {
                        struct ggroup *gr = &gs[g];
                        if (gr->inst != ms[i].inst || gr->budget > limit[gr->inst])
                                continue;
                        for (size_t k = 0; k < gr->n; k++)
                                list[k] = ms[gr->members[k]].name;
                        for (size_t k = 0; k < nu; k++)
                                list[gr->n + k] = ms[unit[k]].name;
                        int c = count(num_passes, chip, per_pass, nper_pass, buf, list,
                                      gr->n + nu, err);
                        if (c < 0) {
                                rc = c;
                                goto out;
                        }
                        if (c <= gr->budget)
                                break;
                }
                if (g == ng) {
                        int c = alone;
                        ms[i].solo = c;
                        xgrow(&gs, &cap_g, ng + 1, sizeof *gs);
                        memset(&gs[ng], 0, sizeof *gs);
                        gs[ng].inst = ms[i].inst;
                        gs[ng].budget = c;
                        ng++;
                }
                for (size_t k = 0; k < nu; k++) {
                        group_add(&gs[g], unit[k]);
                        placed[unit[k]] = 1;
                }
        }

        /* launch metrics alone still need a run to be written in */
        if (ng == 0 && nl) {
                xgrow(&gs, &cap_g, 1, sizeof *gs);
                memset(&gs[0], 0, sizeof *gs);
                ng = 1;
        }
        /* the plan: counters in name order, per-pass and launch metrics included */
        size_t nc = nm + nper_pass + nl;
        char **names = xcalloc(nc + 1, sizeof *names);
        for (size_t i = 0; i < nper_pass; i++)
                names[i] = (char *)per_pass[i];
        for (size_t i = 0; i < nm; i++)
                names[nper_pass + i] = ms[i].name;
        for (size_t i = 0; i < nl; i++)
                names[nper_pass + nm + i] = lnames[i];
        if (nc > 1)
                qsort(names, nc, sizeof *names, cmp_name);
        struct smap index = {0};
        p->counters = xcalloc(nc ? nc : 1, sizeof *p->counters);
        for (size_t i = 0; i < nc; i++) {
                int dup;
                if (smap_get(&index, names[i], &dup))
                        continue; /* a per-pass metric listed twice */
                struct plan_counter *c = &p->counters[p->ncounters];
                c->name = xstrdup(names[i]);
                c->block = xstrdup(plan_is_instrumented(names[i], pfx, npfx) ? "instrumented"
                                   : la && plan_is_instrumented(names[i], la->prefixes, la->n)
                                       ? "launch"
                                       : "hw");
                c->forms = PLAN_FORM_PLAIN;
                smap_put(&index, names[i], (int)p->ncounters++);
        }
        free(names);
        p->npasses = ng;
        p->passes = xcalloc(ng ? ng : 1, sizeof *p->passes);
        for (size_t g = 0; g < ng; g++) {
                struct plan_pass *ps = &p->passes[g];
                ps->counters = xcalloc(gs[g].n + nper_pass + nl + 1, sizeof *ps->counters);
                for (size_t k = 0; k < nper_pass; k++) {
                        int idx;
                        smap_get(&index, per_pass[k], &idx);
                        int dup = 0;
                        for (size_t j = 0; j < ps->n; j++)
                                dup |= ps->counters[j] == (size_t)idx;
                        if (!dup)
                                ps->counters[ps->n++] = (size_t)idx;
                }
                for (size_t k = 0; k < gs[g].n; k++)
                        list[k] = ms[gs[g].members[k]].name;
                if (gs[g].n > 1)
                        qsort(list, gs[g].n, sizeof *list, cmp_name);
                for (size_t k = 0; k < gs[g].n; k++) {
                        int idx;
                        smap_get(&index, list[k], &idx);
                        ps->counters[ps->n++] = (size_t)idx;
                }
                /* launch metrics: in the first run (the collector writes them from the
                 * launch, whatever the counters) */
                for (size_t k = 0; g == 0 && k < nl; k++) {
                        int idx;
                        smap_get(&index, lnames[k], &idx);
                        ps->counters[ps->n++] = (size_t)idx;
                }
        }

        /* hardware passes for everything at once: the bound the profiler itself would need */
        for (int inst = 0; inst <= 1; inst++) {
                size_t n = 0;
                for (size_t i = 0; i < nm; i++)
                        if (ms[i].inst == inst)
                                list[n++] = ms[i].name;
                if (!n)
                        continue;
                int c = count(num_passes, chip, per_pass, nper_pass, buf, list, n, err);
                if (c < 0) {
                        rc = c;
                        smap_free(&index);
                        goto out;
                }
                p->lower_bound += (size_t)c;
        }

        /* ratios whose metrics ended in different runs */
        pass_of = xcalloc(nm + 1, sizeof *pass_of);
        for (size_t g = 0; g < ng; g++)
                for (size_t k = 0; k < gs[g].n; k++)
                        pass_of[gs[g].members[k]] = g;
        for (size_t t = 0; t < nties; t++)
                for (size_t k = 1; k < ties[t].n; k++)
                        if (pass_of[ties[t].m[k]] != pass_of[ties[t].m[0]]) {
                                p->groups_split++;
                                break;
                        }
        smap_free(&index);
out:
        for (size_t i = 0; i < nm; i++)
                free(ms[i].name);
        free(ms);
        for (size_t g = 0; g < ng; g++)
                free(gs[g].members);
        for (size_t t = 0; t < nties; t++)
                free(ties[t].m);
        for (size_t i = 0; i < nl; i++)
                free(lnames[i]);
        FREE_ALL(gs, buf, list, pass_of, ties, parent, unit, placed, lnames);
        smap_free(&seen);
        if (rc)
                plan_free(p);
        return rc;
}
