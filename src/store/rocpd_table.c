/* rocpd's values as given (each group's counter's last) and the wide table made of the
 * groups (rocpd_int.h): a row per dispatch in 3.3's order, its fields, counters and times
 * as rocpd.c's header comment says. */
#include "rocpd_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t slot_hash(size_t g, int ci)
{
        /* splitmix64's finaliser: every bit of both mixed into the low ones */
        uint64_t h = (uint64_t)g * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)(unsigned)ci;
        h = (h ^ (h >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        h = (h ^ (h >> 27)) * UINT64_C(0x94D049BB133111EB);
        return (size_t)(h ^ (h >> 31));
}

struct given *given_slot(struct rocpd *rp, size_t g, int ci)
{
        if (!rp->cap_slot)
                return NULL;
        for (size_t i = slot_hash(g, ci) & (rp->cap_slot - 1);; i = (i + 1) & (rp->cap_slot - 1)) {
                size_t k = rp->slot[i];
                if (!k)
                        return NULL;
                if (rp->val[k - 1].g == g && rp->val[k - 1].ci == ci)
                        return &rp->val[k - 1];
        }
}

static void slot_insert(size_t *slot, size_t cap, const struct given *val, size_t k)
{
        size_t i = slot_hash(val[k - 1].g, val[k - 1].ci) & (cap - 1);
        while (slot[i])
                i = (i + 1) & (cap - 1);
        slot[i] = k;
}

/* val[k - 1] is group g's value of ci (the table grown at half full) */
size_t rocpd_dense_spare = (size_t)1 << 20;
unsigned rocpd_dense_per_value = 4;

void given_put(struct rocpd *rp, size_t g, int ci, size_t k)
{
        if (!rp->hashed) {
                struct group *gr = &rp->g[g];
                if ((size_t)ci >= gr->cap_vi) {
                        size_t cap = rp->nc > (size_t)ci ? rp->nc : (size_t)ci + 1;
                        rp->dense += cap - gr->cap_vi;
                        if (rp->dense <= rocpd_dense_per_value * k + rocpd_dense_spare && k < UINT32_MAX) {
                                gr->vi = xrealloc(gr->vi, cap * sizeof *gr->vi);
                                memset(gr->vi + gr->cap_vi, 0,
                                       (cap - gr->cap_vi) * sizeof *gr->vi);
                                gr->cap_vi = cap;
                        } else { /* too sparse for the groups' indexes: the slots */
                                rp->hashed = 1;
                                for (size_t i = 0; i < rp->ng; i++) {
                                        free(rp->g[i].vi);
                                        rp->g[i].vi = NULL;
                                        rp->g[i].cap_vi = 0;
                                }
                                for (size_t j = 1; j <= k; j++)
                                        given_put(rp, rp->val[j - 1].g, rp->val[j - 1].ci, j);
                                return;
                        }
                }
                gr->vi[ci] = (uint32_t)k;
                return;
        }
        if (2 * k > rp->cap_slot) {
                size_t cap = rp->cap_slot ? 2 * rp->cap_slot : 1024;
                size_t *slot = xcalloc(cap, sizeof *slot);
                for (size_t j = 1; j < k; j++)
                        slot_insert(slot, cap, rp->val, j);
                free(rp->slot);
                rp->slot = slot;
                rp->cap_slot = cap;
        }
        slot_insert(rp->slot, rp->cap_slot, rp->val, k);
}



static int cmp_dur(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

static double median(struct group *g)
{
        if (!g->ndur)
                return NAN;
        qsort(g->dur, g->ndur, sizeof *g->dur, cmp_dur);
        size_t m = g->ndur / 2;
        return g->ndur % 2 ? g->dur[m] : (g->dur[m - 1] + g->dur[m]) / 2;
}

static int cmp_group(const void *a, const void *b)
{
        const struct group *x = *(struct group *const *)a, *y = *(struct group *const *)b;
        if (x->id != y->id)
                return x->id < y->id ? -1 : 1;
        int c = strcmp(x->kernel, y->kernel);
        if (c)
                return c;
        for (int k = F_GRID; k < NKEY; k++)
                if (x->key[k] != y->key[k])
                        return x->key[k] < y->key[k] ? -1 : 1;
        return 0;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

/* GPU_ID as rank: the lowest id 0, the next 1, ... */
static void rank_gpus(struct group **order, size_t n)
{
        double *ids = xmalloc((n ? n : 1) * sizeof *ids);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (!isnan(order[i]->fixed[0]))
                        ids[k++] = order[i]->fixed[0];
        qsort(ids, k, sizeof *ids, cmp_double);
        size_t m = 0; /* the distinct ids, ascending: an id's rank is its index */
        for (size_t j = 0; j < k; j++)
                if (!m || ids[j] != ids[m - 1])
                        ids[m++] = ids[j];
        for (size_t i = 0; i < n; i++) {
                double *v = &order[i]->fixed[0];
                if (isnan(*v))
                        continue;
                const double *at = bsearch(v, ids, m, sizeof *ids, cmp_double);
                *v = (double)(at - ids);
        }
        free(ids);
}

static int want_col(const struct rocpd *rp, const char *name)
{
        return !rp->want || !strcmp(name, COL_KERNEL_NAME) || rp->want(rp->ctx, name);
}

void rocpd_build(struct rocpd *rp, struct table *t, unsigned long long **sig_out)
{
        struct group **order = xmalloc((rp->ng ? rp->ng : 1) * sizeof *order);
        for (size_t i = 0; i < rp->ng; i++)
                order[i] = &rp->g[i];
        qsort(order, rp->ng, sizeof *order, cmp_group);
        rank_gpus(order, rp->ng);
        if (sig_out) {
                *sig_out = xmalloc((rp->ng ? rp->ng : 1) * sizeof **sig_out);
                for (size_t r = 0; r < rp->ng; r++)
                        (*sig_out)[r] = order[r]->sig;
        }
        table_init(t);
        double *dur = xmalloc((rp->ng ? rp->ng : 1) * sizeof *dur);
        double *start = xmalloc((rp->ng ? rp->ng : 1) * sizeof *start);
        /* the first row's timestamps (3.10): relative to the earliest, so that End - Start
         * stays exact in a double (today's timestamps are past 2^53) */
        struct ts t0 = {0, 0, 1};
        int any = 0, ovf;
        for (size_t r = 0; rp->rules.first_times && r < rp->ng; r++)
                if (order[r]->first_ok == 1 && (!any || ts_sub(order[r]->s0, t0, &ovf) < 0))
                        t0 = order[r]->s0, any = 1;
        for (size_t r = 0; r < rp->ng; r++) {
                size_t row = table_add_row(t); /* may move t->line */
                t->line[row] = order[r]->line;
                if (!rp->rules.first_times) {
                        dur[r] = median(order[r]);
                        start[r] = isnan(dur[r]) ? NAN : 0;
                } else if (order[r]->first_ok == 1) {
                        start[r] = ts_sub(order[r]->s0, t0, &ovf);
                        dur[r] = ts_sub(order[r]->e0, t0, &ovf);
                } else {
                        start[r] = dur[r] = NAN;
                }
        }
        /* the columns in 3.3's order: the first row's fields, the counters, the times */
        static const int head[] = {F_GPU, F_GRID, F_WG, F_LDS, F_SCRATCH, F_AVGPR,
                                   F_ACCVGPR, F_SGPR, F_KERNEL, F_KID};
        for (size_t h = 0; h < sizeof head / sizeof *head; h++) {
                int k = head[h];
                if (rp->col[k] < 0 || !want_col(rp, field_name[k]))
                        continue;
                int c = table_add_col(t, field_name[k]);
                for (size_t r = 0; r < rp->ng; r++) {
                        if (k == F_KERNEL)
                                table_set_str(t, c, r, order[r]->kernel);
                        else
                                t->num[c][r] = k < NKEY ? order[r]->key[k]
                                                        : order[r]->fixed[k - F_GPU];
                }
        }
        size_t missing = 0;
        const char *mname = NULL;
        long long mdisp = 0;
        /* the values given, each into its dispatch's row; then the cells none was given
         * for, the first of them (counter by counter, row by row) named */
        size_t *row = xmalloc((rp->ng ? rp->ng : 1) * sizeof *row);
        for (size_t r = 0; r < rp->ng; r++)
                row[(size_t)(order[r] - rp->g)] = r;
        int *col = xmalloc((rp->nc ? rp->nc : 1) * sizeof *col);
        unsigned char *given = xcalloc(rp->ng * rp->nc + 1, 1);
        for (size_t i = 0; i < rp->nc; i++) {
                col[i] = table_add_col(t, rp->cname[i]);
                for (size_t r = 0; r < rp->ng; r++)
                        t->num[col[i]][r] = NAN;
        }
        for (size_t k = 0; k < rp->nval; k++) {
                const struct given *v = &rp->val[k];
                t->num[col[v->ci]][row[v->g]] = v->v;
                given[(size_t)v->ci * rp->ng + row[v->g]] = 1;
        }
        missing = rp->ng * rp->nc - rp->nval;
        for (size_t k = 0; missing && k < rp->ng * rp->nc; k++)
                if (!given[k]) {
                        mname = rp->cname[k / rp->ng];
                        mdisp = order[k % rp->ng]->id;
                        break;
                }
        free(given);
        free(col);
        free(row);
        if (missing)
                warnf("%s: %zu counter value%s missing (dispatch %lld has no row for '%s'); "
                      "the metrics that use %s are n/a for %s dispatch%s",
                      rp->path, missing, missing == 1 ? " is" : "s are", mdisp, mname,
                      missing == 1 ? "it" : "them", missing == 1 ? "that" : "those",
                      missing == 1 ? "" : "es");
        if (want_col(rp, COL_END)) {
                int c = table_add_col(t, COL_END);
                for (size_t r = 0; r < rp->ng; r++)
                        t->num[c][r] = dur[r];
        }
        if (want_col(rp, COL_START)) {
                int c = table_add_col(t, COL_START);
                for (size_t r = 0; r < rp->ng; r++)
                        t->num[c][r] = start[r];
        }
        if (want_col(rp, COL_DISPATCH_ID)) {
                int c = table_add_col(t, COL_DISPATCH_ID);
                for (size_t r = 0; r < rp->ng; r++)
                        t->num[c][r] = (double)(r + (size_t)rp->rules.dispatch_base);
        }
        free(dur);
        free(start);
        free(order);
}
