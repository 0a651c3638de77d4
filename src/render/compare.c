/* Two workloads side by side: tables matched by id, rows by metric (so workloads of two
 * architectures compare on the metrics they share), numeric columns as baseline, new
 * value, and the change. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../store/table.h"
#include "render.h"

static const struct rtable *find_table(const struct analysis *an, const char *id)
{
        for (size_t i = 0; i < an->ntables; i++)
                if (!strcmp(an->tables[i].id, id))
                        return &an->tables[i];
        return NULL;
}

static long find_row(const struct rtable *t, const char *rkey)
{
        for (size_t r = 0; r < t->nrows; r++)
                if (!strcmp(t->rkeys[r], rkey))
                        return (long)r;
        return -1;
}

static long find_col(const struct rtable *t, const char *title)
{
        for (size_t c = 0; c < t->ncols; c++)
                if (!strcmp(t->cols[c], title))
                        return (long)c;
        return -1;
}

/* a column is numeric when no row has text in it */
int rtable_numeric_col(const struct rtable *t, size_t c)
{
        for (size_t r = 0; r < t->nrows; r++)
                if (t->cells[r * t->ncols + c].text)
                        return 0;
        return t->nrows > 0;
}

double compare_new_value(const struct rtable *b, const struct rtable *n, size_t r, size_t c)
{
        if (!n)
                return NAN;
        long nr = find_row(n, b->rkeys[r]);
        long nc = find_col(n, b->cols[c]);
        if (nr < 0 || nc < 0)
                return NAN;
        const struct cell *cl = &n->cells[(size_t)nr * n->ncols + (size_t)nc];
        return cl->text ? NAN : cl->v;
}

/* relative change in percent; a zero baseline compares against 1, as the reference does */
double compare_rel_change(double base, double cur)
{
        return (cur - base) / (base == 0 ? 1.0 : base) * 100.0;
}

char *compare_delta_text(double base, double cur, int decimal)
{
        if (isnan(base) || isnan(cur))
                return xstrdup("");
        char a[48], b[48];
        double d = cur - base;
        double s = pow(10.0, decimal);
        fmt_num(nearbyint(d * s) / s, a);
        fmt_num(nearbyint(compare_rel_change(base, cur) * s) / s, b);
        return xasprintf("%s%s (%s%s%%)", d > 0 ? "+" : "", a,
                         compare_rel_change(base, cur) > 0 ? "+" : "", b);
}

char *compare_num_text(double v, int decimal)
{
        char buf[48];
        if (isnan(v))
                return xstrdup("");
        double s = pow(10.0, decimal);
        return xstrdup(fmt_num(isfinite(v) ? nearbyint(v * s) / s : v, buf));
}

void render_compare(FILE *f, const struct analysis *base, const struct analysis *cur,
                    const struct render_opts *o)
{
        const struct panel *pan = NULL;
        for (size_t i = 0; i < base->ntables; i++) {
                const struct rtable *b = &base->tables[i];
                const struct rtable *n = find_table(cur, b->id);
                if (b->pt->props.ranked && !n)
                        continue;
                if (b->panel != pan) {
                        pan = b->panel;
                        render_panel_heading(f, pan);
                }
                render_table_title(f, b);
                /* columns: key, then each column; numeric ones get "new" and "change" */
                size_t ncols = 1;
                for (size_t c = 0; c < b->ncols; c++)
                        ncols += rtable_numeric_col(b, c) ? 3 : 1;
                char **cells = xcalloc((b->nrows + 1) * ncols, sizeof *cells);
                char *align = xcalloc(ncols + 1, 1);
                memset(align, 'l', ncols);
                cells[0] = xstrdup(b->metric_table ? b->key_title : "");
                size_t k = 1;
                for (size_t c = 0; c < b->ncols; c++) {
                        cells[k++] = xstrdup(b->cols[c]);
                        if (rtable_numeric_col(b, c)) {
                                cells[k++] = xasprintf("%s (new)", b->cols[c]);
                                cells[k++] = xstrdup("Change");
                        }
                }
                for (size_t r = 0; r < b->nrows; r++) {
                        char **row = &cells[(r + 1) * ncols];
                        row[0] = xstrdup(b->keys[r]);
                        k = 1;
                        for (size_t c = 0; c < b->ncols; c++) {
                                const struct cell *cl = &b->cells[r * b->ncols + c];
                                if (!rtable_numeric_col(b, c)) {
                                        row[k++] = xstrdup(cl->text ? cl->text : "");
                                        continue;
                                }
                                double nv = compare_new_value(b, n, r, c);
                                row[k++] = compare_num_text(cl->v, o->decimal);
                                row[k++] = compare_num_text(nv, o->decimal);
                                row[k++] = compare_delta_text(cl->v, nv, o->decimal);
                        }
                }
                render_grid(f, cells, b->nrows + 1, ncols, align);
                fputc('\n', f);
                for (size_t x = 0; x < (b->nrows + 1) * ncols; x++)
                        free(cells[x]);
                free(cells);
                free(align);
        }
}

int render_save_dfs_compare(const char *dir, const struct analysis *base,
                            const struct analysis *cur, struct err *err)
{
        int rc = make_dir(dir, err);
        char buf[48];
        for (size_t i = 0; i < base->ntables && !rc; i++) {
                const struct rtable *b = &base->tables[i];
                const struct rtable *n = find_table(cur, b->id);
                struct table out;
                table_init(&out);
                table_add_col(&out, b->key_title);
                for (size_t c = 0; c < b->ncols; c++) {
                        table_add_col(&out, b->cols[c]);
                        if (rtable_numeric_col(b, c)) {
                                char *h = xasprintf("%s (new)", b->cols[c]);
                                table_add_col(&out, h);
                                free(h);
                                h = xasprintf("%s (diff)", b->cols[c]);
                                table_add_col(&out, h);
                                free(h);
                                h = xasprintf("%s (diff %%)", b->cols[c]);
                                table_add_col(&out, h);
                                free(h);
                        }
                }
                for (size_t r = 0; r < b->nrows; r++) {
                        size_t row = table_add_row(&out);
                        int k = 0;
                        table_set_str(&out, k++, row, b->keys[r]);
                        for (size_t c = 0; c < b->ncols; c++) {
                                const struct cell *cl = &b->cells[r * b->ncols + c];
                                if (!rtable_numeric_col(b, c)) {
                                        table_set_str(&out, k++, row, cl->text ? cl->text : "");
                                        continue;
                                }
                                double nv = compare_new_value(b, n, r, c);
                                double vals[4] = {cl->v, nv, nv - cl->v, compare_rel_change(cl->v, nv)};
                                for (int j = 0; j < 4; j++, k++)
                                        if (!isnan(vals[j]))
                                                table_set_str(&out, k, row, fmt_num(vals[j], buf));
                        }
                }
                char *path = dfs_path(dir, b);
                rc = table_save_csv(&out, path, err);
                free(path);
                table_free(&out);
        }
        return rc;
}
