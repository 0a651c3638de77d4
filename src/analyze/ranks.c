/* Tables of multi-rank workloads: totals and top kernels per rank, and the spread across
 * ranks of speed-of-light metrics (the slowest rank is what users look for). */
#include "build.h"

#include "../store/columns.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* kernels listed per rank in rank_kernels */
#define RANK_TOP_KERNELS 10

/* ---- ranks of the selection ---- */

struct rank {
        long rank;
        char *node;
        size_t *rows;
        size_t n, cap;
        double sum; /* kernel time, ns */
};

static int cmp_rank(const void *a, const void *b)
{
        const struct rank *x = a, *y = b;
        return (x->rank > y->rank) - (x->rank < y->rank);
}

static struct rank *collect(const struct workload *w, const size_t *sel, size_t n, size_t *nr)
{
        int cr = table_col(&w->pmc, COL_RANK), cn = table_col(&w->pmc, COL_NODE);
        struct rank *v = NULL;
        size_t cap = 0;
        struct smap idx = {0};
        *nr = 0;
        if (cr < 0)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                size_t r = sel[i];
                char key[32], buf[64];
                double rk = w->pmc.num[cr][r];
                if (isnan(rk))
                        continue;
                snprintf(key, sizeof key, "%.0f", rk);
                int k;
                if (!smap_get(&idx, key, &k)) {
                        xgrow(&v, &cap, *nr + 1, sizeof *v);
                        k = (int)(*nr)++;
                        memset(&v[k], 0, sizeof *v);
                        v[k].rank = (long)rk;
                        v[k].node =
                            xstrdup(cn >= 0 ? table_cell(&w->pmc, cn, r, buf, sizeof buf) : "");
                        smap_put(&idx, key, k);
                }
                xgrow(&v[k].rows, &v[k].cap, v[k].n + 1, sizeof *v[k].rows);
                v[k].rows[v[k].n++] = r;
                double d = row_duration(w, r);
                if (!isnan(d))
                        v[k].sum += d;
        }
        smap_free(&idx);
        if (*nr)
                qsort(v, *nr, sizeof *v, cmp_rank);
        return v;
}

static void ranks_free(struct rank *v, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(v[i].node);
                free(v[i].rows);
        }
        free(v);
}

static size_t slowest(const struct rank *v, size_t n)
{
        size_t s = 0;
        for (size_t i = 1; i < n; i++)
                if (v[i].sum > v[s].sum)
                        s = i;
        return s;
}

/* rank r's text in column name of the workload's rank table ("" when not recorded) */
static const char *rank_gpu(const struct workload *w, long r, const char *name, char *buf,
                            size_t len)
{
        const struct table *t = &w->ranks;
        int cr = table_col(t, COL_RANK), c = table_col(t, name);
        if (cr < 0 || c < 0)
                return "";
        for (size_t i = 0; i < t->nrows; i++)
                if (t->num[cr][i] == (double)r)
                        return table_cell(t, c, i, buf, len);
        return "";
}

static void build_summary(const struct workload *w, const struct analysis_opts *o,
                          const struct rank *rk, size_t nr, const struct panel *p,
                          const struct panel_table *pt, struct analysis *an)
{
        const char *u = o->time_unit ? o->time_unit : "ns";
        char sum[32], mean[32], buf[64];
        snprintf(sum, sizeof sum, "Sum(%s)", u);
        snprintf(mean, sizeof mean, "Mean(%s)", u);
        /* each rank's GPU, when the ranks' sysinfo names it (UUID and PCI address) */
        int ident = 0;
        for (size_t i = 0; i < nr; i++)
                ident |= *rank_gpu(w, rk[i].rank, "gpu_uuid", buf, sizeof buf) ||
                         *rank_gpu(w, rk[i].rank, "gpu_pci_bus", buf, sizeof buf);
        const char *cols[] = {COL_RANK, COL_NODE,         "Dispatches", "Kernels",
                              sum,      mean,             "Pct of Slowest", "Slowest",
                              "GPU",    "PCI Bus"};
        size_t ncols = ident ? 10 : 8;
        struct rtable *t =
            analysis_add_table(an, p, pt, "index", ncols, rtable_titles(cols, ncols));
        double div = time_div(u);
        size_t s = slowest(rk, nr);
        for (size_t i = 0; i < nr; i++) {
                char key[32];
                size_t nk;
                struct kstat *ks = kstats_of(w, o, rk[i].rows, rk[i].n, 0, 0, &nk);
                kstats_free(ks, nk);
                snprintf(key, sizeof key, "%zu", i);
                struct cell *row = rtable_add_row(t, key, NULL);
                row[0].v = (double)rk[i].rank;
                row[1].text = xstrdup(rk[i].node);
                row[2].v = (double)rk[i].n;
                row[3].v = (double)nk;
                row[4].v = rk[i].sum / div;
                row[5].v = rk[i].sum / (double)rk[i].n / div;
                row[6].v = 100.0 * rk[i].sum / rk[s].sum;
                row[7].text = xstrdup(i == s ? "*" : "");
                if (ident) {
                        row[8].text =
                            xstrdup(rank_gpu(w, rk[i].rank, "gpu_uuid", buf, sizeof buf));
                        row[9].text =
                            xstrdup(rank_gpu(w, rk[i].rank, "gpu_pci_bus", buf, sizeof buf));
                }
        }
}

static void build_kernels(const struct workload *w, const struct analysis_opts *o,
                          const struct rank *rk, size_t nr, const struct panel *p,
                          const struct panel_table *pt, struct analysis *an)
{
        const char *u = o->time_unit ? o->time_unit : "ns";
        char sum[32], mean[32], med[32];
        snprintf(sum, sizeof sum, "Sum(%s)", u);
        snprintf(mean, sizeof mean, "Mean(%s)", u);
        snprintf(med, sizeof med, "Median(%s)", u);
        const char *cols[] = {COL_RANK, COL_KERNEL_NAME, "Count", sum, mean, med, "Pct"};
        struct rtable *t = analysis_add_table(an, p, pt, "index", 7, rtable_titles(cols, 7));
        double div = time_div(u);
        size_t row_no = 0;
        for (size_t i = 0; i < nr; i++) {
                size_t nk;
                struct kstat *ks = kstats_of(w, o, rk[i].rows, rk[i].n, 0, 1, &nk);
                for (size_t k = 0; k < nk && k < RANK_TOP_KERNELS; k++) {
                        char key[32];
                        snprintf(key, sizeof key, "%zu", row_no++);
                        struct cell *row = rtable_add_row(t, key, NULL);
                        row[0].v = (double)rk[i].rank;
                        row[1].text = xstrdup(ks[k].name);
                        row[2].v = (double)ks[k].n;
                        row[3].v = ks[k].sum / div;
                        row[4].v = ks[k].sum / (double)ks[k].n / div;
                        row[5].v = kstat_median(&ks[k]) / div;
                        row[6].v = 100.0 * ks[k].sum / rk[i].sum;
                }
                kstats_free(ks, nk);
        }
}

/* The average of each listed metric over one rank's dispatches: pt's metrics as a table
 * of name and average, evaluated over the rank's rows. vals[m] for the m-th metric of pt
 * that the architecture has (templates excluded). */
static int rank_avgs(const struct build_ctx *bc, const struct panel *p,
                     const struct panel_table *pt, const struct rank *rk, char **keys,
                     size_t nkeys, double *vals, struct err *err)
{
        struct panel_col cols[] = {{"Metric", "name", NULL, -1}, {"Avg", "avg", NULL, -1}};
        struct panel_table spt = {.id = pt->id,
                                  .title = pt->title,
                                  .cols = cols,
                                  .ncols = 2,
                                  .rows = keys,
                                  .nrows = nkeys};
        struct rtable sub;
        int rc = eval_table(bc, p, &spt, rk->rows, rk->n, &sub, err);
        if (rc)
                return rc;
        for (size_t m = 0; m < nkeys; m++)
                vals[m] = NAN;
        if (sub.ncols == 2)
                for (size_t r = 0; r < sub.nrows && r < nkeys; r++)
                        vals[r] = sub.cells[r * 2 + 1].v;
        rtable_free(&sub);
        return 0;
}

static int build_spread(const struct build_ctx *bc, const struct rank *rk, size_t nr,
                        const struct panel *p, const struct panel_table *pt, struct err *err)
{
        const struct analysis_opts *o = bc->o;
        char **keys = xcalloc(pt->nrows + 1, sizeof *keys);
        const struct metric **ms = xcalloc(pt->nrows + 1, sizeof *ms);
        size_t nkeys = 0;
        int rc = 0;
        for (size_t r = 0; r < pt->nrows; r++) {
                const struct metric *m = arch_metric(bc->a, pt->rows[r]);
                if (m && !m->is_template) {
                        ms[nkeys] = m;
                        keys[nkeys++] = pt->rows[r];
                }
        }
        double *vals = xcalloc(nkeys * nr + 1, sizeof *vals), *col = xcalloc(nr + 1, sizeof *col);
        for (size_t i = 0; i < nr && !rc; i++) {
                double *one = xcalloc(nkeys + 1, sizeof *one);
                rc = rank_avgs(bc, p, pt, &rk[i], keys, nkeys, one, err);
                for (size_t m = 0; m < nkeys; m++)
                        vals[m * nr + i] = one[m];
                free(one);
        }
        if (rc)
                goto out;
        size_t s = slowest(rk, nr);
        char slow[64];
        snprintf(slow, sizeof slow, "Slowest (rank %ld)", rk[s].rank);
        const char *cols[] = {"Metric",   "Unit",     "Mean",       "Min", "Min Rank",
                              "Max",      "Max Rank", "Spread Pct", slow};
        struct rtable *t =
            analysis_add_table(bc->an, p, pt, "Metric_ID", 9, rtable_titles(cols, 9));
        t->metric_table = 1;
        for (size_t m = 0; m < nkeys; m++) {
                char key[64];
                snprintf(key, sizeof key, "%s.%zu", pt->id, m);
                char *rkey = xasprintf("%s#spread", ms[m]->key);
                struct cell *row = rtable_add_row(t, key, rkey);
                free(rkey);
                const double *v = &vals[m * nr];
                size_t lo = nr, hi = nr;
                for (size_t i = 0; i < nr; i++) {
                        col[i] = v[i];
                        if (isnan(v[i]))
                                continue;
                        if (lo == nr || v[i] < v[lo])
                                lo = i;
                        if (hi == nr || v[i] > v[hi])
                                hi = i;
                }
                row[0].text = xstrdup(ms[m]->name);
                row[1].text = unit_display(ms[m]->unit ? ms[m]->unit : "", o->norm, o->time_unit);
                row[2].v = agg_avg(col, nr);
                if (lo < nr) {
                        row[3].v = v[lo];
                        row[4].text = xasprintf("%ld", rk[lo].rank);
                        row[5].v = v[hi];
                        row[6].text = xasprintf("%ld", rk[hi].rank);
                        /* how far apart the ranks are, relative to their mean */
                        row[7].v = 100.0 * (v[hi] - v[lo]) / fabs(row[2].v);
                }
                row[8].v = v[s];
        }
out:
        free(keys);
        free(ms);
        free(vals);
        free(col);
        return rc;
}

int ranks_build(const struct build_ctx *bc, const struct panel *p, const struct panel_table *pt,
                struct err *err)
{
        size_t nr;
        struct rank *rk = collect(bc->w, bc->sel, bc->n, &nr);
        int rc = 0;
        if (nr >= 2) {
                if (!strcmp(pt->source, "rank_summary"))
                        build_summary(bc->w, bc->o, rk, nr, p, pt, bc->an);
                else if (!strcmp(pt->source, "rank_kernels"))
                        build_kernels(bc->w, bc->o, rk, nr, p, pt, bc->an);
                else
                        rc = build_spread(bc, rk, nr, p, pt, err);
        }
        ranks_free(rk, nr);
        return rc;
}
