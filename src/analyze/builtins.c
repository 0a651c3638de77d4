/* The built-in tables of panels 0, 1 and 4 (top kernels, dispatch list, system info, the
 * recorded roofline.csv) and the selection helpers that builders share. */
#include "build.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../store/columns.h"
#include "kname.h"

double time_div(const char *unit)
{
        if (!unit || !strcmp(unit, "ns"))
                return 1;
        if (!strcmp(unit, "us"))
                return 1e3;
        if (!strcmp(unit, "ms"))
                return 1e6;
        return 1e9;
}

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

char *row_kname(const struct workload *w, const struct analysis_opts *o, size_t row)
{
        int c = table_col(&w->pmc, COL_KERNEL_NAME);
        char buf[64];
        return kname_shorten(c >= 0 ? table_cell(&w->pmc, c, row, buf, sizeof buf) : "",
                             o->kernel_verbose ? o->kernel_verbose : 5);
}

double row_duration(const struct workload *w, size_t r)
{
        int cs = table_col(&w->pmc, COL_START), ce = table_col(&w->pmc, COL_END);
        return cs >= 0 && ce >= 0 ? w->pmc.num[ce][r] - w->pmc.num[cs][r] : NAN;
}

int row_base_selected(const struct workload *w, const struct analysis_opts *o, size_t r)
{
        if (o->gpu_id) {
                int c = table_col(&w->pmc, COL_GPU_ID);
                char buf[64];
                if (c < 0 || strcmp(table_cell(&w->pmc, c, r, buf, sizeof buf), o->gpu_id))
                        return 0;
        }
        if (o->rank) {
                /* --rank (multi-rank trees: the Rank column src/store/multi.c adds) */
                int c = table_col(&w->pmc, COL_RANK);
                char buf[64];
                if (c < 0 || strcmp(table_cell(&w->pmc, c, r, buf, sizeof buf), o->rank))
                        return 0;
        }
        if (o->ndispatches) {
                int c = table_col(&w->pmc, COL_DISPATCH_ID);
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

size_t kptr_slot(const struct kptr *m, const char *key)
{
        size_t h = ((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15u, i = h & (m->cap - 1);
        while (m->key[i] && m->key[i] != key)
                i = (i + 1) & (m->cap - 1);
        return i;
}

int kptr_get(const struct kptr *m, const char *key, int *k)
{
        if (!key || !m->cap)
                return 0;
        size_t i = kptr_slot(m, key);
        if (!m->key[i])
                return 0;
        *k = m->k[i];
        return 1;
}

void kptr_free(struct kptr *m)
{
        free(m->key);
        free(m->k);
        memset(m, 0, sizeof *m);
}

void kptr_put(struct kptr *m, const char *key, int k)
{
        if (!key)
                return;
        if (2 * (m->n + 1) > m->cap) {
                struct kptr g = {.cap = m->cap ? 2 * m->cap : 64};
                g.key = xcalloc(g.cap, sizeof *g.key);
                g.k = xcalloc(g.cap, sizeof *g.k);
                for (size_t i = 0; i < m->cap; i++)
                        if (m->key[i]) {
                                size_t j = kptr_slot(&g, m->key[i]);
                                g.key[j] = m->key[i];
                                g.k[j] = m->k[i];
                                g.n++;
                        }
                free(m->key);
                free(m->k);
                *m = g;
        }
        size_t i = kptr_slot(m, key);
        m->n += !m->key[i];
        m->key[i] = key;
        m->k[i] = k;
}

struct kstat *kstats_of(const struct workload *w, const struct analysis_opts *o,
                        const size_t *rows, size_t nrows, int by_name, int times, size_t *nk)
{
        struct kstat *ks = NULL;
        size_t n = 0, cap = 0;
        struct smap idx = {0};
        struct kptr byptr = {0};
        /* a kernel's name is shortened once per cell text */
        int kc = table_col(&w->pmc, COL_KERNEL_NAME);
        const char *const *texts = kc >= 0 ? (const char *const *)w->pmc.str[kc] : NULL;
        int cs = table_col(&w->pmc, COL_START), ce = table_col(&w->pmc, COL_END);
        for (size_t i = 0; i < nrows; i++) {
                size_t r = rows[i];
                const char *text = texts ? texts[r] : NULL;
                int k;
                if (!kptr_get(&byptr, text, &k)) {
                        char *name = row_kname(w, o, r);
                        if (!smap_get(&idx, name, &k)) {
                                xgrow(&ks, &cap, n + 1, sizeof *ks);
                                memset(&ks[n], 0, sizeof *ks);
                                ks[n].name = xstrdup(name);
                                k = (int)n++;
                                smap_put(&idx, name, k);
                        }
                        kptr_put(&byptr, text, k);
                        free(name);
                }
                double d = cs >= 0 && ce >= 0 ? w->pmc.num[ce][r] - w->pmc.num[cs][r] : NAN;
                if (times) {
                        xgrow(&ks[k].t, &ks[k].cap, ks[k].n + 1, sizeof(double));
                        ks[k].t[ks[k].n] = d;
                }
                ks[k].n++;
                ks[k].sum += d;
        }
        smap_free(&idx);
        kptr_free(&byptr);
        if (n) /* qsort(NULL, 0, ...) is undefined (UBSan) */
                qsort(ks, n, sizeof *ks, by_name ? cmp_kstat_name : cmp_kstat_sum);
        *nk = n;
        return ks;
}

double kstat_median(struct kstat *k)
{
        for (size_t i = 0; i < k->n; i++)
                if (k->t[i] == 0) {
                        qsort(k->t, k->n, sizeof(double), cmp_double);
                        break;
                }
        return agg_median(k->t, k->n);
}

void kstats_free(struct kstat *ks, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(ks[i].name);
                free(ks[i].t);
        }
        free(ks);
}

/* the rows passing the gpu, rank and dispatch filters */
static size_t *base_rows(const struct workload *w, const struct analysis_opts *o, size_t *n)
{
        size_t *rows = xmalloc((w->pmc.nrows ? w->pmc.nrows : 1) * sizeof *rows); /* (as sel) */
        *n = 0;
        for (size_t r = 0; r < w->pmc.nrows; r++)
                if (row_base_selected(w, o, r))
                        rows[(*n)++] = r;
        return rows;
}

int analysis_top_kernels(const struct workload *w, const struct analysis_opts *o, char ***names,
                         size_t *n)
{
        size_t nk, nrows;
        size_t *rows = base_rows(w, o, &nrows);
        struct kstat *ks = kstats_of(w, o, rows, nrows, o->sort_by_kernel, 0, &nk);
        free(rows);
        *names = xcalloc(nk ? nk : 1, sizeof **names);
        for (size_t i = 0; i < nk; i++)
                (*names)[i] = xstrdup(ks[i].name);
        *n = nk;
        kstats_free(ks, nk);
        return 0;
}

int build_top_kernels(const struct build_ctx *bc, const struct panel *p,
                      const struct panel_table *pt, struct err *err)
{
        (void)err;
        const struct analysis_opts *o = bc->o;
        size_t nk, nrows;
        /* every kernel the gpu/dispatch filters leave, the -k ones marked */
        size_t *rows = base_rows(bc->w, o, &nrows);
        struct kstat *ks = kstats_of(bc->w, o, rows, nrows, o->sort_by_kernel, 1, &nk);
        free(rows);
        const char *u = o->time_unit ? o->time_unit : "ns";
        char sum[32], mean[32], med[32];
        snprintf(sum, sizeof sum, "Sum(%s)", u);
        snprintf(mean, sizeof mean, "Mean(%s)", u);
        snprintf(med, sizeof med, "Median(%s)", u);
        const char *cols[] = {COL_KERNEL_NAME, "Count", sum, mean, med, "Pct", "S"};
        size_t nc = bc->nknames ? 7 : 6;
        struct rtable *t = analysis_add_table(bc->an, p, pt, "index", nc, rtable_titles(cols, nc));
        double total = 0, div = time_div(u);
        for (size_t i = 0; i < nk; i++)
                total += ks[i].sum / div;
        for (size_t i = 0; i < nk; i++) {
                char key[32];
                snprintf(key, sizeof key, "%zu", i);
                /* a comparison pairs the kernels of two runs by name */
                struct cell *row = rtable_add_row(t, key, ks[i].name);
                row[0].text = xstrdup(ks[i].name);
                row[1].v = (double)ks[i].n;
                row[2].v = ks[i].sum / div;
                row[3].v = ks[i].sum / (double)ks[i].n / div;
                row[4].v = kstat_median(&ks[i]) / div;
                row[5].v = row[2].v / total * 100.0;
                if (bc->nknames) {
                        int mark = 0;
                        for (size_t j = 0; j < bc->nknames; j++)
                                mark |= !strcmp(bc->knames[j], ks[i].name);
                        row[6].text = xstrdup(mark ? "*" : "");
                }
        }
        kstats_free(ks, nk);
        return 0;
}

int build_dispatch_list(const struct build_ctx *bc, const struct panel *p,
                        const struct panel_table *pt, struct err *err)
{
        (void)err;
        const struct workload *w = bc->w;
        const char *cols[] = {COL_DISPATCH_ID, COL_KERNEL_NAME, COL_GPU_ID};
        struct rtable *t = analysis_add_table(bc->an, p, pt, "index", 3, rtable_titles(cols, 3));
        int cd = table_col(&w->pmc, COL_DISPATCH_ID), cg = table_col(&w->pmc, COL_GPU_ID);
        int kc = table_col(&w->pmc, COL_KERNEL_NAME);
        char **texts = kc >= 0 ? w->pmc.str[kc] : NULL;
        /* per kernel (its name as shown): its text in the table and its dispatches so far;
         * a cell text's kernel looked up once (bytext) */
        struct smap idx = {0};
        struct kptr bytext = {0};
        char **pooled = NULL;
        unsigned *count = NULL;
        size_t nk = 0, capk = 0, capc = 0;
        for (size_t r = 0; r < w->pmc.nrows; r++) {
                if (!row_base_selected(w, bc->o, r))
                        continue;
                char key[32];
                snprintf(key, sizeof key, "%zu", r);
                const char *text = texts ? texts[r] : NULL;
                int k;
                if (!kptr_get(&bytext, text, &k)) {
                        char *name = row_kname(w, bc->o, r);
                        if (!smap_get(&idx, name, &k)) {
                                xgrow(&pooled, &capk, nk + 1, sizeof *pooled);
                                xgrow(&count, &capc, nk + 1, sizeof *count);
                                pooled[nk] = rtable_pool_text(t, name); /* one copy */
                                count[nk] = 0;
                                k = (int)nk++;
                                smap_put(&idx, name, k);
                        }
                        free(name);
                        kptr_put(&bytext, text, k);
                }
                /* a comparison pairs dispatches by kernel and occurrence: "name#k" */
                struct cell *row = rtable_add_row_occ(t, key, 1, count[k]++);
                row[0].v = cd >= 0 ? w->pmc.num[cd][r] : (double)r;
                row[1].text = pooled[k];
                row[2].v = cg >= 0 ? w->pmc.num[cg][r] : NAN;
        }
        smap_free(&idx);
        kptr_free(&bytext);
        free(pooled);
        free(count);
        return 0;
}

int build_sysinfo(const struct build_ctx *bc, const struct panel *p,
                  const struct panel_table *pt, struct err *err)
{
        (void)err;
        const struct workload *w = bc->w;
        const char *cols[] = {"Info"};
        struct rtable *t = analysis_add_table(bc->an, p, pt, "index", 1, rtable_titles(cols, 1));
        char buf[64];
        for (size_t c = 0; c < w->sysinfo.ncols; c++) {
                /* the family's name for the field ("sysinfo.cu_per_gpu" in its words); an
                 * empty one hides a field it has no use for */
                char wkey[160];
                snprintf(wkey, sizeof wkey, "sysinfo.%s", w->sysinfo.names[c]);
                const char *label = arch_title(bc->a, wkey, w->sysinfo.names[c]);
                if (!*label)
                        continue;
                struct cell *row = rtable_add_row(t, label, NULL);
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
        return 0;
}

int build_roofline_csv(const struct build_ctx *bc, const struct panel *p,
                       const struct panel_table *pt, struct err *err)
{
        (void)err;
        if (!bc->w->has_roofline)
                return 0;
        const struct table *src = &bc->w->roofline;
        struct rtable *t =
            analysis_add_table(bc->an, p, pt, "index", src->ncols,
                               rtable_titles((const char *const *)src->names, src->ncols));
        char buf[64];
        for (size_t r = 0; r < src->nrows; r++) {
                char key[32];
                snprintf(key, sizeof key, "%zu", r);
                struct cell *row = rtable_add_row(t, key, NULL);
                for (size_t c = 0; c < src->ncols; c++) {
                        if (src->str[c])
                                row[c].text =
                                    xstrdup(table_cell(src, (int)c, r, buf, sizeof buf));
                        else
                                row[c].v = src->num[c][r];
                }
        }
        return 0;
}
