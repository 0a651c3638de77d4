/* Hot spots: PC-sample lines grouped per kernel and source line or instruction (hotspots.h). */
#include "hotspots.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int kernel_wanted(const char *k, const char *const *knames, size_t nk)
{
        if (!nk)
                return 1;
        for (size_t i = 0; i < nk; i++)
                if (k && !strcmp(k, knames[i]))
                        return 1;
        return 0;
}

static int str_cmp0(const char *a, const char *b)
{
        return strcmp(a ? a : "", b ? b : "");
}

static int hot_cmp(const void *pa, const void *pb)
{
        const struct hotspot *a = pa, *b = pb;
        if (a->count != b->count)
                return a->count > b->count ? -1 : 1;
        int c = str_cmp0(a->kernel, b->kernel);
        if (!c)
                c = str_cmp0(a->source, b->source);
        if (!c && a->offset != b->offset)
                c = a->offset < b->offset ? -1 : 1;
        return c;
}

size_t hotspots(const struct pcsamp *ps, const char *const *knames, size_t nk, int by_source,
                struct hotspot **out)
{
        struct hotspot *h = NULL;
        size_t n = 0, cap = 0;
        struct smap idx = {0};
        /* per group: the samples of each stall reason, to find the top one */
        double **rc = NULL, *best = NULL;
        struct strbuf key = {0};
        for (size_t i = 0; i < ps->nlines; i++) {
                const struct pcs_line *l = &ps->lines[i];
                if (!kernel_wanted(l->kernel, knames, nk))
                        continue;
                sb_reset(&key);
                sb_addf(&key, "%s\x1f", l->kernel ? l->kernel : "");
                if (by_source)
                        sb_addf(&key, "%s", l->source ? l->source : "");
                else
                        sb_addf(&key, "%lld:%llu", l->code_object, l->offset); /* processes merged */
                int g;
                if (!smap_get(&idx, key.buf, &g)) {
                        xgrow(&h, &cap, n + 1, sizeof *h);
                        rc = xrealloc(rc, cap * sizeof *rc);
                        best = xrealloc(best, cap * sizeof *best);
                        best[n] = -1;
                        g = (int)n++;
                        smap_put(&idx, key.buf, g);
                        memset(&h[g], 0, sizeof h[g]);
                        h[g].kernel = l->kernel;
                        h[g].source = l->source;
                        h[g].instruction = l->instruction;
                        h[g].offset = l->offset;
                        h[g].has_offset = l->has_offset && !by_source;
                        h[g].stalled = NAN;
                        rc[g] = xcalloc(ps->nreasons ? ps->nreasons : 1, sizeof **rc);
                }
                struct hotspot *x = &h[g];
                /* a source line shows its busiest instruction */
                if (by_source && l->count > best[g]) {
                        best[g] = l->count;
                        x->instruction = l->instruction;
                        x->offset = l->offset;
                }
                x->count += l->count;
                if (!isnan(l->stalled))
                        x->stalled = (isnan(x->stalled) ? 0 : x->stalled) + l->stalled;
                for (size_t r = 0; r < l->nreason; r++)
                        rc[g][l->reason[r]] += l->rcount[r];
        }
        /* the kernels' totals, and each group's top reason */
        struct smap kidx = {0};
        double *kc = xcalloc(n ? n : 1, sizeof *kc), *ks = xcalloc(n ? n : 1, sizeof *ks);
        int *kof = xcalloc(n ? n : 1, sizeof *kof), nk2 = 0;
        for (size_t g = 0; g < n; g++) {
                int k;
                const char *name = h[g].kernel ? h[g].kernel : "";
                if (!smap_get(&kidx, name, &k)) {
                        k = nk2++;
                        smap_put(&kidx, name, k);
                        ks[k] = NAN;
                }
                kof[g] = k;
                kc[k] += h[g].count;
                if (!isnan(h[g].stalled))
                        ks[k] = (isnan(ks[k]) ? 0 : ks[k]) + h[g].stalled;
        }
        for (size_t g = 0; g < n; g++) {
                double best = 0;
                for (size_t r = 0; r < ps->nreasons; r++)
                        if (rc[g][r] > best) /* first of equals: the reason seen first */
                                best = rc[g][r], h[g].reason = ps->reasons[r];
                h[g].rcount = best;
                h[g].kcount = kc[kof[g]];
                h[g].kstalled = ks[kof[g]];
                free(rc[g]);
        }
        FREE_ALL(kc, ks, kof);
        smap_free(&kidx);
        free(rc);
        free(best);
        smap_free(&idx);
        sb_free(&key);
        if (n > 1)
                qsort(h, n, sizeof *h, hot_cmp);
        *out = h;
        return n;
}

char *hotspot_short_source(const char *source)
{
        if (!source || !*source)
                return xstrdup("N/A");
        const char *base = strrchr(source, '/');
        return xasprintf(".../%s", base ? base + 1 : source);
}
