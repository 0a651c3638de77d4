/* Iteration multiplexing's imputation (formats.h: formats_impute), as rocprof-compute 3.7+
 * does it (utils_analysis.py, impute_counters_iteration_multiplex): with all passes in one
 * run of the application, each dispatch has the counters of one pass (a bucket); the
 * buckets repeat round robin over a kernel's dispatches, and a dispatch's missing counters
 * are taken from its neighbours in the same round. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "formats.h"

/* the columns that are no counters (rocprof-compute's list) */
static int is_counter(const struct table *t, size_t c)
{
        static const char *const not_counters[] = {
                COL_DISPATCH_ID, COL_GPU_ID, COL_GRID_SIZE, COL_WORKGROUP_SIZE,
                COL_LDS_PER_WORKGROUP, COL_SCRATCH_PER_WORKITEM, COL_ARCH_VGPR, COL_ACCUM_VGPR,
                COL_SGPR, COL_KERNEL_NAME, COL_START, COL_END, COL_KERNEL_ID};
        if (t->str[c])
                return 0;
        for (size_t i = 0; i < sizeof not_counters / sizeof *not_counters; i++)
                if (!strcmp(t->names[c], not_counters[i]))
                        return 0;
        return 1;
}

/* a group's key text: the kernel, and for policies other than "kernel" its launch
 * configuration */
static void group_key(struct strbuf *sb, const struct table *t, size_t r, int by_kernel)
{
        char buf[64];
        sb_reset(sb);
        int k = table_col(t, COL_KERNEL_NAME);
        sb_add(sb, table_cell(t, k, r, buf, sizeof buf));
        if (by_kernel)
                return;
        static const char *const launch[] = {COL_GRID_SIZE, COL_WORKGROUP_SIZE,
                                             COL_LDS_PER_WORKGROUP};
        for (size_t i = 0; i < 3; i++) {
                int c = table_col(t, launch[i]);
                sb_addf(sb, "\x1f%s", c >= 0 ? table_cell(t, c, r, buf, sizeof buf) : "");
        }
}

static void fill_run(struct table *t, const size_t *rows, size_t n, const char *is_ctr)
{
        for (size_t c = 0; c < t->ncols; c++) {
                if (!is_ctr[c])
                        continue;
                double *v = t->num[c];
                /* backward fill: each n/a takes the next value of the run */
                double next = NAN;
                for (size_t j = n; j-- > 0;) {
                        if (isnan(v[rows[j]]))
                                v[rows[j]] = next;
                        else
                                next = v[rows[j]];
                }
                /* then forward: the run's tail takes the last value before it */
                double prev = NAN;
                for (size_t j = 0; j < n; j++) {
                        if (isnan(v[rows[j]]))
                                v[rows[j]] = prev;
                        else
                                prev = v[rows[j]];
                }
        }
}

void formats_impute(struct table *pmc, const unsigned long long *sig, const char *policy,
                    size_t nperfmon, const char *dir)
{
        int by_kernel = !strcmp(policy, "kernel");
        size_t n = pmc->nrows;
        char *is_ctr = xcalloc(pmc->ncols ? pmc->ncols : 1, 1);
        for (size_t c = 0; c < pmc->ncols; c++)
                is_ctr[c] = (char)is_counter(pmc, c);
        /* the groups, each a list of its rows in row (dispatch) order */
        struct smap idx = {0};
        size_t *group = xmalloc((n ? n : 1) * sizeof *group), ng = 0;
        size_t *first = xmalloc((n ? n : 1) * sizeof *first);
        struct strbuf key = {0};
        for (size_t r = 0; r < n; r++) {
                group_key(&key, pmc, r, by_kernel);
                int g;
                if (!smap_get(&idx, key.buf, &g)) {
                        g = (int)ng;
                        first[ng++] = r;
                        smap_put(&idx, key.buf, g);
                }
                group[r] = (size_t)g;
        }
        /* each group's rows together, in row order (a counting sort by group) */
        size_t *at = xcalloc(ng + 1, sizeof *at), *all = xmalloc((n ? n : 1) * sizeof *all);
        for (size_t r = 0; r < n; r++)
                at[group[r] + 1]++;
        for (size_t g = 0; g < ng; g++)
                at[g + 1] += at[g];
        for (size_t g = 0; g < ng; g++)
                first[g] = at[g]; /* now each group's next free place in all */
        for (size_t r = 0; r < n; r++)
                all[first[group[r]]++] = r;
        unsigned long long *seen = xmalloc((n ? n : 1) * sizeof *seen);
        int kcol = table_col(pmc, COL_KERNEL_NAME);
        size_t left_out = 0;
        for (size_t g = 0; g < ng; g++) {
                size_t *rows = all + at[g], m = at[g + 1] - at[g];
                char buf[64];
                if (m < nperfmon) {
                        /* too few dispatches to hold every counter set: left out */
                        for (size_t j = 0; j < m; j++)
                                for (size_t c = 0; c < pmc->ncols; c++)
                                        if (is_ctr[c])
                                                pmc->num[c][rows[j]] = NAN;
                        if (++left_out > 5)
                                continue;
                        warnf("%s: kernel '%s' has %zu dispatch%s for %zu counter sets "
                              "(iteration multiplexing): its counters are n/a, the metrics "
                              "leave it out (its times stay in the top stats)",
                              dir, kcol >= 0 ? table_cell(pmc, kcol, rows[0], buf, sizeof buf)
                                             : "?",
                              m, m == 1 ? "" : "es", nperfmon);
                        continue;
                }
                /* the buckets: the counter sets in dispatch order until one repeats */
                size_t k = 0;
                for (size_t j = 0; j < m; j++) {
                        unsigned long long s = sig[rows[j]];
                        if (!s)
                                continue; /* no counter at all */
                        size_t i;
                        for (i = 0; i < k && seen[i] != s; i++)
                                ;
                        if (i < k)
                                break;
                        seen[k++] = s;
                }
                if (!k)
                        continue; /* no counters: nothing to fill */
                for (size_t j = 0; j < m; j += k)
                        fill_run(pmc, rows + j, m - j < k ? m - j : k, is_ctr);
        }
        if (left_out > 5)
                warnf("%s: %zu more kernels left out of the metrics (too few dispatches for "
                      "iteration multiplexing's counter sets)",
                      dir, left_out - 5);
        free(all);
        free(at);
        free(seen);
        free(group);
        free(first);
        free(is_ctr);
        sb_free(&key);
        smap_free(&idx);
}
