/* Merge passes per dispatch: key every row by kernel (and grid) and occurrence, check that
 * every pass saw the same dispatches, then lay the counters of all passes side by side. */
#include "merge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../store/columns.h"
#include "plan.h"

static const char *cell(const struct table *t, int c, size_t r, char *buf, size_t len)
{
        return c < 0 ? "" : table_cell(t, c, r, buf, len);
}

/* kernel (and grid) of a row: what occurrences are counted within */
static char *group_of(const struct table *t, size_t r, enum merge_join join)
{
        char b1[64], b2[64];
        const char *k = cell(t, table_col(t, COL_KERNEL_NAME), r, b1, sizeof b1);
        if (join == MERGE_JOIN_GRID)
                return xasprintf("%s\x1f%s", k,
                                 cell(t, table_col(t, COL_GRID_SIZE), r, b2, sizeof b2));
        return xstrdup(k);
}

struct keyed {
        char **groups;      /* per row */
        size_t *nth;        /* occurrence of the row within its group */
        struct smap rows;   /* full key -> row */
        struct smap counts; /* group -> dispatches */
        size_t n;
};

static void keyed_build(const struct table *t, enum merge_join join, struct keyed *k)
{
        memset(k, 0, sizeof *k);
        k->n = t->nrows;
        k->groups = xcalloc(t->nrows ? t->nrows : 1, sizeof *k->groups);
        k->nth = xcalloc(t->nrows ? t->nrows : 1, sizeof *k->nth);
        for (size_t r = 0; r < t->nrows; r++) {
                k->groups[r] = group_of(t, r, join);
                int c = 0;
                smap_get(&k->counts, k->groups[r], &c);
                smap_put(&k->counts, k->groups[r], c + 1);
                k->nth[r] = (size_t)c;
                char *key = xasprintf("%s\x1e%zu", k->groups[r], k->nth[r]);
                smap_put(&k->rows, key, (int)r);
                free(key);
        }
}

static void keyed_free(struct keyed *k)
{
        for (size_t r = 0; r < k->n; r++)
                free(k->groups[r]);
        free(k->groups);
        free(k->nth);
        smap_free(&k->rows);
        smap_free(&k->counts);
}

/* "kernel 'name'" or "kernel 'name' with grid N" for a group key */
static void describe(const char *group, char *buf, size_t len)
{
        const char *sep = strchr(group, '\x1f');
        if (sep)
                snprintf(buf, len, "kernel '%.*s' with grid %s", (int)(sep - group), group,
                         sep + 1);
        else
                snprintf(buf, len, "kernel '%s'", group);
}

static void count_text(int n, char *buf, size_t len)
{
        if (n == 0)
                snprintf(buf, len, "no dispatches");
        else
                snprintf(buf, len, "%d dispatch%s", n, n == 1 ? "" : "es");
}

static int mismatch(struct err *err, int id_a, int na, int id_b, int nb, const char *group)
{
        char what[700], ca[32], cb[32];
        describe(group, what, sizeof what);
        count_text(na, ca, sizeof ca);
        count_text(nb, cb, sizeof cb);
        return err_set(err, ERR_INPUT,
                       "pass %d has %s of %s but pass %d has %s; the application must launch "
                       "the same kernels in every run",
                       id_a, ca, what, id_b, cb);
}

/* map[r] = row of b holding ref row r; an error names the passes when they differ. */
static int match(const struct keyed *ref, int ref_id, const struct keyed *b, int id,
                 size_t *map, struct err *err)
{
        for (size_t r = 0; r < ref->n; r++) {
                if (ref->nth[r])
                        continue;
                int na = 0, nb = 0;
                smap_get(&ref->counts, ref->groups[r], &na);
                smap_get(&b->counts, ref->groups[r], &nb);
                if (na != nb)
                        return mismatch(err, id, nb, ref_id, na, ref->groups[r]);
        }
        for (size_t r = 0; r < b->n; r++) {
                int na = 0, nb = 0;
                if (b->nth[r] || smap_get(&ref->counts, b->groups[r], &na))
                        continue;
                smap_get(&b->counts, b->groups[r], &nb);
                return mismatch(err, id, nb, ref_id, 0, b->groups[r]);
        }
        for (size_t r = 0; r < ref->n; r++) {
                char *key = xasprintf("%s\x1e%zu", ref->groups[r], ref->nth[r]);
                int row = -1;
                smap_get(&b->rows, key, &row);
                free(key);
                map[r] = (size_t)row;
        }
        return 0;
}

static void copy_cell(struct table *dst, int dc, size_t dr, const struct table *src, int sc,
                      size_t sr)
{
        if (src->str[sc] && src->str[sc][sr])
                table_set_str(dst, dc, dr, src->str[sc][sr]);
        else
                table_set_num(dst, dc, dr, src->num[sc][sr]);
}

/* out: one row per ref row with ref's dispatch columns, Dispatch_ID from 0 (renumber) or
 * copied from ref */
static void dispatch_cols(struct table *out, const struct table *ref, int renumber)
{
        for (size_t i = 0; dispatch_info_cols[i]; i++) {
                int sc = table_col(ref, dispatch_info_cols[i]);
                if (sc >= 0 || !strcmp(dispatch_info_cols[i], COL_DISPATCH_ID))
                        table_add_col(out, dispatch_info_cols[i]);
        }
        for (size_t r = 0; r < ref->nrows; r++)
                table_add_row(out);
        for (size_t i = 0; dispatch_info_cols[i]; i++) {
                int dc = table_col(out, dispatch_info_cols[i]);
                int sc = table_col(ref, dispatch_info_cols[i]);
                if (dc < 0)
                        continue;
                for (size_t r = 0; r < ref->nrows; r++) {
                        if (renumber && !strcmp(dispatch_info_cols[i], COL_DISPATCH_ID))
                                table_set_num(out, dc, r, (double)r);
                        else if (sc >= 0)
                                copy_cell(out, dc, r, ref, sc, r);
                }
        }
}

/* the counters of one pass, mapped to out's rows */
static void counter_cols(struct table *out, const struct table *p, const size_t *map)
{
        for (size_t c = 0; c < p->ncols; c++) {
                const char *name = p->names[c];
                if (col_is_dispatch(name) || table_col(out, name) >= 0)
                        continue;
                int dc = table_add_col(out, name);
                for (size_t r = 0; r < out->nrows; r++)
                        copy_cell(out, dc, r, p, (int)c, map[r]);
        }
}

/* the dispatch columns that must agree between passes (one warning per column) */
static void check_agree(const struct table *ref, int ref_id, const struct table *p, int id,
                        const size_t *map, int *warned)
{
        const char *const *cols = dispatch_launch_cols;
        for (size_t i = 0; i < DISPATCH_LAUNCH_NCOLS; i++) {
                int a = table_col(ref, cols[i]), b = table_col(p, cols[i]);
                if (a < 0 || b < 0 || warned[i])
                        continue;
                for (size_t r = 0; r < ref->nrows; r++) {
                        double x = ref->num[a][r], y = p->num[b][map[r]];
                        if (x == y || (isnan(x) && isnan(y)))
                                continue;
                        char buf[64];
                        warnf("passes %d and %d differ in %s of dispatch %zu ('%s'): %.17g and "
                              "%.17g",
                              ref_id, id, cols[i], r,
                              cell(ref, table_col(ref, COL_KERNEL_NAME), r, buf, sizeof buf), x, y);
                        warned[i] = 1;
                        break;
                }
        }
}

int merge_passes(const struct table *const *passes, const int *ids, size_t n,
                 enum merge_join join, struct table *out, struct err *err)
{
        table_init(out);
        if (n == 0)
                return 0;
        const struct table *ref = passes[0];
        struct keyed kref, kp;
        keyed_build(ref, join, &kref);
        size_t rows = ref->nrows ? ref->nrows : 1;
        size_t *maps = xmalloc(n * rows * sizeof *maps);
        int rc = 0, warned[DISPATCH_LAUNCH_NCOLS] = {0};
        for (size_t r = 0; r < ref->nrows; r++)
                maps[r] = r;
        for (size_t i = 1; i < n && !rc; i++) {
                keyed_build(passes[i], join, &kp);
                rc = match(&kref, ids[0], &kp, ids[i], maps + i * rows, err);
                keyed_free(&kp);
                if (!rc)
                        check_agree(ref, ids[0], passes[i], ids[i], maps + i * rows, warned);
        }
        keyed_free(&kref);
        if (rc)
                goto out;
        dispatch_cols(out, ref, 1);
        for (size_t i = 0; i < n; i++)
                counter_cols(out, passes[i], maps + i * rows);
        /* each pass timed the dispatch once: report the mean start and end */
        static const char *const ts[] = {COL_START, COL_END};
        for (size_t k = 0; k < 2; k++) {
                int dc = table_add_col(out, ts[k]);
                for (size_t r = 0; r < out->nrows; r++) {
                        double sum = 0;
                        size_t cnt = 0;
                        for (size_t i = 0; i < n; i++) {
                                int sc = table_col(passes[i], ts[k]);
                                if (sc < 0)
                                        continue;
                                double v = passes[i]->num[sc][maps[i * rows + r]];
                                if (!isnan(v)) {
                                        sum += v;
                                        cnt++;
                                }
                        }
                        table_set_num(out, dc, r, cnt ? round(sum / (double)cnt) : NAN);
                }
        }
out:
        free(maps);
        if (rc)
                table_free(out);
        return rc;
}

int merge_align(const struct table *ref, int ref_id, const struct table *pass, int id,
                enum merge_join join, struct table *out, struct err *err)
{
        table_init(out);
        struct keyed kref, kp;
        keyed_build(ref, join, &kref);
        keyed_build(pass, join, &kp);
        size_t *map = xmalloc((ref->nrows ? ref->nrows : 1) * sizeof *map);
        int rc = match(&kref, ref_id, &kp, id, map, err);
        keyed_free(&kref);
        keyed_free(&kp);
        if (!rc) {
                dispatch_cols(out, ref, 0);
                counter_cols(out, pass, map);
                for (size_t c = 0; c < pass->ncols; c++) {
                        if (!col_is_timestamp(pass->names[c]))
                                continue;
                        int dc = table_add_col(out, pass->names[c]);
                        for (size_t r = 0; r < out->nrows; r++)
                                copy_cell(out, dc, r, pass, (int)c, map[r]);
                }
        }
        free(map);
        return rc;
}
