/* Pass planning for NVIDIA: the CUPTI metrics a request names, packed first fit into groups
 * that the Profiler Host API says need one hardware pass each; the program runs once per
 * group. SASS-instrumented metrics are grouped apart from hardware counters (they never
 * share a pass with them: CUPTI instruments the code in a pass of its own). */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

int plan_is_sass_metric(const char *name)
{
        return !strncmp(name, "smsp__sass_", 11) || !strncmp(name, "sm__sass_", 9);
}

struct gmetric {
        char *name;
        int sass;
        int solo; /* hardware passes it needs alone (with the per-pass metrics); 1 unless it
                     opened a group */
};

struct ggroup {
        size_t *members; /* indices into the metric list */
        size_t n, cap;
        int sass;
        int budget; /* hardware passes of its first metric alone; more than one pass of its
                       kind costs (limit below) closes the group */
};

/* Sort: hardware counters before SASS metrics, then by name (which keeps a unit's
 * counters together: dram__, l1tex__, lts__, sm__, smsp__). */
static int cmp_gmetric(const void *a, const void *b)
{
        const struct gmetric *x = a, *y = b;
        if (x->sass != y->sass)
                return x->sass - y->sass;
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

/* The metric names of the request, deduplicated (per-pass metrics left out). */
static int collect(const struct plan_req *r, const char *const *per_pass, size_t nper,
                   struct smap *seen, struct gmetric **out, size_t *nout, struct err *err)
{
        size_t cap = 0;
        for (size_t i = 0; i < nper; i++)
                smap_put(seen, per_pass[i], -1);
        for (size_t s = 0; s < r->nsrcs; s++) {
                size_t n;
                const char *const *names = plan_req_src_names(r, s, &n);
                for (size_t k = 0; k < n; k++) {
                        const char *nm = names[k];
                        int idx;
                        if (nm[0] == '$' || plan_is_dispatch_col(nm) || smap_get(seen, nm, &idx))
                                continue;
                        if (!strstr(nm, "__") || strchr(nm, '['))
                                return err_set(err, ERR_INPUT,
                                               "'%s' is not a CUPTI metric name (such as "
                                               "dram__bytes_read.sum)",
                                               nm);
                        xgrow(out, &cap, *nout + 1, sizeof **out);
                        (*out)[*nout].name = xstrdup(nm);
                        (*out)[*nout].sass = plan_is_sass_metric(nm);
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

int plan_make_groups(const struct plan_req *r, const char *chip, plan_passes_fn num_passes,
                     const char *const *per_pass, size_t nper_pass, struct plan *p, struct err *err)
{
        struct smap seen = {0};
        struct gmetric *ms = NULL;
        struct ggroup *gs = NULL;
        size_t nm = 0, ng = 0, cap_g = 0;
        const char **buf = NULL, **list = NULL;
        size_t *pass_of = NULL;
        int rc;

        memset(p, 0, sizeof *p);
        if (!num_passes || !chip || !*chip)
                return err_set(err, ERR_SYS, "no way to count hardware passes here");
        if ((rc = collect(r, per_pass, nper_pass, &seen, &ms, &nm, err)))
                goto out;
        buf = xcalloc(nm + nper_pass + 1, sizeof *buf);
        list = xcalloc(nm + 1, sizeof *list);

        if (nm > 1)
                qsort(ms, nm, sizeof *ms, cmp_gmetric);

        /* What one pass of each kind costs with the per-pass metrics: those alone (at
         * least 1) for hardware counters; one more for SASS metrics, which CUPTI collects
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

        /* first fit: each metric joins the first open group of its kind that still needs
         * no more passes with it, else opens a group. A metric that needs more passes even
         * alone keeps its group to itself: CUPTI replays the kernel within that run, which
         * disturbs the caches, so nothing else is measured there. */
        for (size_t i = 0; i < nm; i++) {
                size_t g;
                for (g = 0; g < ng; g++) {
                        struct ggroup *gr = &gs[g];
                        if (gr->sass != ms[i].sass || gr->budget > limit[gr->sass])
                                continue;
                        for (size_t k = 0; k < gr->n; k++)
                                list[k] = ms[gr->members[k]].name;
                        list[gr->n] = ms[i].name;
                        int c =
                            count(num_passes, chip, per_pass, nper_pass, buf, list, gr->n + 1, err);
                        if (c < 0) {
                                rc = c;
                                goto out;
                        }
                        if (c <= gr->budget)
                                break;
                }
                if (g == ng) {
                        list[0] = ms[i].name;
                        int c = count(num_passes, chip, per_pass, nper_pass, buf, list, 1, err);
                        if (c < 0) {
                                rc = c;
                                goto out;
                        }
                        ms[i].solo = c;
                        xgrow(&gs, &cap_g, ng + 1, sizeof *gs);
                        memset(&gs[ng], 0, sizeof *gs);
                        gs[ng].sass = ms[i].sass;
                        gs[ng].budget = c;
                        ng++;
                }
                group_add(&gs[g], i);
        }

        /* the plan: counters in name order, per-pass metrics included */
        size_t nc = nm + nper_pass;
        char **names = xcalloc(nc + 1, sizeof *names);
        for (size_t i = 0; i < nper_pass; i++)
                names[i] = (char *)per_pass[i];
        for (size_t i = 0; i < nm; i++)
                names[nper_pass + i] = ms[i].name;
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
                c->block = xstrdup(plan_is_sass_metric(names[i]) ? "sass" : "hw");
                c->forms = PLAN_FORM_PLAIN;
                smap_put(&index, names[i], (int)p->ncounters++);
        }
        free(names);
        p->npasses = ng;
        p->passes = xcalloc(ng ? ng : 1, sizeof *p->passes);
        for (size_t g = 0; g < ng; g++) {
                struct plan_pass *ps = &p->passes[g];
                ps->counters = xcalloc(gs[g].n + nper_pass + 1, sizeof *ps->counters);
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
        }

        /* hardware passes for everything at once: the bound CUPTI itself would need */
        for (int sass = 0; sass <= 1; sass++) {
                size_t n = 0;
                for (size_t i = 0; i < nm; i++)
                        if (ms[i].sass == sass)
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

        /* formulas whose metrics ended in different runs */
        pass_of = xcalloc(p->ncounters ? p->ncounters : 1, sizeof *pass_of);
        for (size_t g = 0; g < p->npasses; g++)
                for (size_t k = 0; k < p->passes[g].n; k++)
                        pass_of[p->passes[g].counters[k]] = g;
        for (size_t s = 0; s < r->nsrcs; s++) {
                size_t n;
                int first = -1, several = 0, split = 0;
                const char *const *nms = plan_req_src_names(r, s, &n);
                for (size_t k = 0; k < n; k++) {
                        int idx, pp;
                        if (nms[k][0] == '$' || !smap_get(&index, nms[k], &idx) ||
                            !smap_get(&seen, nms[k], &pp) || pp < 0)
                                continue; /* not a metric, or collected in every pass */
                        if (first < 0) {
                                first = idx;
                                continue;
                        }
                        several |= idx != first;
                        split |= pass_of[idx] != pass_of[first];
                }
                if (several) {
                        p->groups++;
                        p->groups_split += (size_t)split;
                }
        }
        smap_free(&index);
out:
        for (size_t i = 0; i < nm; i++)
                free(ms[i].name);
        free(ms);
        for (size_t g = 0; g < ng; g++)
                free(gs[g].members);
        free(gs);
        free(buf);
        free(list);
        free(pass_of);
        smap_free(&seen);
        if (rc)
                plan_free(p);
        return rc;
}
