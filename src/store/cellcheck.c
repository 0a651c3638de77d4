/* Damaged cells of the tables of a workload (cellcheck.h), found chunk by chunk. */
#include "cellcheck.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"

/* ---- damaged cells (docs/HARDENING.md) ----
 * Every cell of pmc_perf.csv and of the accumulate tables but Kernel_Name is a count, an
 * id, a size or a timestamp: a finite number >= 0. A cell that is empty, text, nan, inf
 * (or too large for a double) or negative is damaged: it is read as n/a, so that every
 * metric that uses it is n/a for that dispatch and the aggregates over dispatches are
 * taken over the others, and a warning names file:line and the column, never silently.
 * Only the loaded columns are checked: with column projection, those analysis reads. */

#define MAX_CELL_WARNINGS 5

/* The checks, chunk by chunk: damaged cells (reported column by column, as many as
 * MAX_CELL_WARNINGS), dispatches that end before they start (row by row). */
struct cellcheck {
        char ***msgs;  /* per column: its first warnings */
        size_t *nmsgs, ncols;
        size_t bad, back;
        char *back_msgs[MAX_CELL_WARNINGS];
        unsigned char *col_bad;
        int s0, s1, kname; /* the timestamps' and Kernel_Name's columns (-2: not looked up) */
};

struct cellcheck *cellcheck_new(void)
{
        struct cellcheck *cc = xcalloc(1, sizeof *cc);
        cc->s0 = cc->s1 = -2;
        return cc;
}

/* file: as messages name it; the line of row r */
static size_t row_line(const struct table *t, size_t r, size_t row0)
{
        return t->line ? t->line[r] : row0 + r + 2;
}

/* the first row from r on whose value is no count (finite and >= 0), or n; two rows at a
 * time with SSE2 (a chunk holds hundreds of columns of counts, nearly all good) */
static size_t next_bad(const double *v, size_t r, size_t n)
{
#if defined(__SSE2__)
        const __m128d zero = _mm_setzero_pd(), inf = _mm_set1_pd(INFINITY);
        /* eight at a time while all are good, then the pair that is not */
        for (; r + 8 <= n; r += 8) {
                __m128d a = _mm_loadu_pd(v + r), b = _mm_loadu_pd(v + r + 2),
                        c = _mm_loadu_pd(v + r + 4), d = _mm_loadu_pd(v + r + 6);
                __m128d ok = _mm_and_pd(
                    _mm_and_pd(_mm_and_pd(_mm_cmpge_pd(a, zero), _mm_cmplt_pd(a, inf)),
                               _mm_and_pd(_mm_cmpge_pd(b, zero), _mm_cmplt_pd(b, inf))),
                    _mm_and_pd(_mm_and_pd(_mm_cmpge_pd(c, zero), _mm_cmplt_pd(c, inf)),
                               _mm_and_pd(_mm_cmpge_pd(d, zero), _mm_cmplt_pd(d, inf))));
                if (_mm_movemask_pd(ok) != 3)
                        break;
        }
        for (; r + 2 <= n; r += 2) {
                __m128d x = _mm_loadu_pd(v + r);
                if (_mm_movemask_pd(_mm_and_pd(_mm_cmpge_pd(x, zero), _mm_cmplt_pd(x, inf))) != 3)
                        break;
        }
#endif
        while (r < n && isfinite(v[r]) && v[r] >= 0)
                r++;
        return r;
}

/* column c's damaged cells: counted, the first warned of, read as n/a */
static void check_col(struct cellcheck *cc, struct table *t, size_t c, const char *file,
                      size_t row0)
{
        char desc[100];
        for (size_t r = next_bad(t->num[c], 0, t->nrows); r < t->nrows;
             r = next_bad(t->num[c], r + 1, t->nrows)) {
                cc->bad++;
                cc->col_bad[c] = 1;
                if (cc->nmsgs[c] < MAX_CELL_WARNINGS)
                        cc->msgs[c][cc->nmsgs[c]++] = xasprintf(
                            "%s:%zu: column '%s' %s; the metrics that use it are "
                            "n/a for that dispatch",
                            file, row_line(t, r, row0), t->names[c],
                            table_cell_desc(t, (int)c, r, "a count", desc, sizeof desc));
                t->num[c][r] = NAN;
        }
}

void cellcheck_begin(struct cellcheck *cc, struct table *t, const char *file, size_t row0)
{
        if (cc->ncols < t->ncols) {
                cc->msgs = xrealloc(cc->msgs, t->ncols * sizeof *cc->msgs);
                cc->nmsgs = xrealloc(cc->nmsgs, t->ncols * sizeof *cc->nmsgs);
                cc->col_bad = xrealloc(cc->col_bad, t->ncols);
                for (size_t c = cc->ncols; c < t->ncols; c++) {
                        cc->msgs[c] = xcalloc(MAX_CELL_WARNINGS, sizeof **cc->msgs);
                        cc->nmsgs[c] = 0;
                        cc->col_bad[c] = 0;
                }
                cc->ncols = t->ncols;
        }
        if (cc->s0 == -2) {
                cc->s0 = table_col(t, COL_START);
                cc->s1 = table_col(t, COL_END);
                cc->kname = table_col(t, COL_KERNEL_NAME);
        }
        /* the timestamps checked first (a column's checks are its own: the order of the
         * columns changes no message) */
        if (cc->s0 >= 0)
                check_col(cc, t, (size_t)cc->s0, file, row0);
        if (cc->s1 >= 0 && cc->s1 != cc->s0)
                check_col(cc, t, (size_t)cc->s1, file, row0);
        /* a dispatch that ends before it starts has no duration: n/a, not negative */
        for (size_t r = 0; cc->s0 >= 0 && cc->s1 >= 0 && r < t->nrows; r++)
                if (t->num[cc->s1][r] < t->num[cc->s0][r]) {
                        if (cc->back < MAX_CELL_WARNINGS)
                                cc->back_msgs[cc->back] = xasprintf(
                                    "%s:%zu: End_Timestamp is before Start_Timestamp; the "
                                    "metrics that use the duration are n/a for that dispatch",
                                    file, row_line(t, r, row0));
                        cc->back++;
                        t->num[cc->s1][r] = NAN;
                }
}

void cellcheck_col(struct cellcheck *cc, struct table *t, size_t c, const char *file,
                   size_t row0)
{
        if ((int)c == cc->kname || (int)c == cc->s0 || (int)c == cc->s1)
                return; /* the text column; the timestamps checked in cellcheck_begin */
        check_col(cc, t, c, file, row0);
}

void cellcheck_chunk(struct cellcheck *cc, struct table *t, const char *file, size_t row0)
{
        cellcheck_begin(cc, t, file, row0);
        for (size_t c = 0; c < t->ncols; c++)
                cellcheck_col(cc, t, c, file, row0);
}

struct idrow {
        double id;
        size_t row;
};

static int cmp_idrow(const void *a, const void *b)
{
        const struct idrow *x = a, *y = b;
        if (x->id != y->id)
                return x->id < y->id ? -1 : 1;
        if (signbit(x->id) != signbit(y->id)) /* -0 and 0 are told apart, as in text */
                return signbit(x->id) ? -1 : 1;
        return (x->row > y->row) - (x->row < y->row);
}

void cellcheck_rise(struct cellcheck_rise *r, const double *v, size_t n)
{
        for (size_t i = 0; r->rising && i < n; i++) {
                if (isnan(v[i]))
                        continue;
                struct idrow x = {v[i], 0}, prev = {r->prev, 0};
                r->rising = !r->seen || cmp_idrow(&prev, &x) < 0;
                r->prev = v[i];
                r->seen = 1;
        }
}

void cellcheck_report(struct cellcheck *cc, const struct table *t, const char *dup,
                      const char *file)
{
        size_t shown = 0, cols = 0;
        for (size_t c = 0; c < cc->ncols; c++) {
                cols += cc->col_bad[c];
                for (size_t k = 0; k < cc->nmsgs[c]; k++) {
                        if (shown++ < MAX_CELL_WARNINGS)
                                warnf("%s", cc->msgs[c][k]);
                        free(cc->msgs[c][k]);
                }
                free(cc->msgs[c]);
        }
        if (cc->bad > MAX_CELL_WARNINGS)
                warnf("%s: %zu more damaged cells (%zu in all, in %zu column%s) read as n/a", file,
                      cc->bad - MAX_CELL_WARNINGS, cc->bad, cols, cols == 1 ? "" : "s");
        if (dup)
                warnf("%s: column '%s' appears more than once; the first is used", file, dup);
        /* two rows under one Dispatch_ID: -d selects both, and nothing says which is right;
         * the first row that repeats an earlier id is named */
        int id = table_col(t, COL_DISPATCH_ID);
        /* ids that rise row by row (as recorded) repeat none: no sort */
        struct cellcheck_rise rise = {0, 0, id >= 0};
        if (id >= 0)
                cellcheck_rise(&rise, t->num[id], t->nrows);
        if (id >= 0 && !rise.rising) {
                struct idrow *v = xcalloc(t->nrows + 1, sizeof *v);
                size_t n = 0;
                for (size_t r = 0; r < t->nrows; r++)
                        if (!isnan(t->num[id][r]))
                                v[n++] = (struct idrow){t->num[id][r], r};
                if (n)
                        qsort(v, n, sizeof *v, cmp_idrow);
                size_t best = (size_t)-1, first = 0;
                for (size_t i = 1; i < n; i++)
                        if (!cmp_idrow(&(struct idrow){v[i].id, 0}, &(struct idrow){v[i - 1].id, 0}) &&
                            (i < 2 || cmp_idrow(&(struct idrow){v[i - 1].id, 0},
                                                &(struct idrow){v[i - 2].id, 0})) &&
                            (best == (size_t)-1 || v[i].row < best)) {
                                /* v[i - 1] is the first row of this id, v[i] its second */
                                best = v[i].row;
                                first = v[i - 1].row;
                        }
                if (best != (size_t)-1) {
                        char key[64];
                        snprintf(key, sizeof key, "%.17g", t->num[id][best]);
                        warnf("%s:%zu: Dispatch_ID %s also at line %zu; both rows are counted",
                              file, row_line(t, best, 0), key, row_line(t, first, 0));
                }
                free(v);
        }
        for (size_t k = 0; k < cc->back && k < MAX_CELL_WARNINGS; k++)
                warnf("%s", cc->back_msgs[k]);
        for (size_t k = 0; k < MAX_CELL_WARNINGS; k++)
                free(cc->back_msgs[k]);
        if (cc->back > MAX_CELL_WARNINGS)
                warnf("%s: %zu more dispatches end before they start", file,
                      cc->back - MAX_CELL_WARNINGS);
        free(cc->msgs);
        free(cc->nmsgs);
        free(cc->col_bad);
        free(cc);
}

void cellcheck_discard(struct cellcheck *cc)
{
        for (size_t c = 0; c < cc->ncols; c++) {
                for (size_t k = 0; k < cc->nmsgs[c]; k++)
                        free(cc->msgs[c][k]);
                free(cc->msgs[c]);
        }
        for (size_t k = 0; k < MAX_CELL_WARNINGS; k++)
                free(cc->back_msgs[k]);
        free(cc->msgs);
        free(cc->nmsgs);
        free(cc->col_bad);
        free(cc);
}
