/* Two workloads side by side: tables matched by id, rows by metric (so workloads of two
 * architectures compare on the metrics they share), numeric columns as baseline, new
 * value, and the change. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../store/columns.h"
#include "../store/table.h"
#include "render.h"

static const struct rtable *find_table(const struct analysis *an, const char *id)
{
        for (size_t i = 0; i < an->ntables; i++)
                if (!strcmp(an->tables[i].id, id))
                        return &an->tables[i];
        return NULL;
}

static long find_col(const struct rtable *t, const char *title)
{
        if (!t)
                return -1;
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

/* numeric in either run (and text in neither) */
static int numeric_in(const struct rtable *b, const struct rtable *n, size_t c)
{
        long nc = find_col(n, b->cols[c]);
        int bn = rtable_numeric_col(b, c), nn = nc >= 0 && rtable_numeric_col(n, (size_t)nc);
        if (!b->nrows)
                return nn;
        return bn && (nc < 0 || !n->nrows || nn);
}

/* identities (dispatch, GPU, rank ids): both values shown, their difference is no change */
static int id_col(const struct rtable *t, size_t c)
{
        return !t->metric_table &&
               (!strcmp(t->cols[c], COL_DISPATCH_ID) || !strcmp(t->cols[c], COL_GPU_ID) ||
                !strcmp(t->cols[c], COL_RANK));
}

void compare_pairs(const struct rtable *b, const struct rtable *n, struct cmp_pair **out,
                   size_t *np)
{
        size_t cap = b->nrows + (n ? n->nrows : 0) + 1, k = 0;
        struct cmp_pair *p = xcalloc(cap, sizeof *p);
        struct smap nidx = {0};
        char *used = n ? xcalloc(n->nrows + 1, 1) : NULL;
        struct strbuf sb = {0};
        for (size_t r = 0; n && r < n->nrows; r++) {
                int x;
                const char *rk = rtable_rkey(n, r, &sb);
                if (!smap_get(&nidx, rk, &x)) /* the first row of a repeated key */
                        smap_put(&nidx, rk, (int)r);
        }
        for (size_t r = 0; r < b->nrows; r++) {
                int x = -1;
                if (n && smap_get(&nidx, rtable_rkey(b, r, &sb), &x) && !used[x])
                        used[x] = 1;
                else
                        x = -1;
                p[k++] = (struct cmp_pair){(long)r, x};
        }
        for (size_t r = 0; n && r < n->nrows; r++)
                if (!used[r])
                        p[k++] = (struct cmp_pair){-1, (long)r};
        smap_free(&nidx);
        sb_free(&sb);
        free(used);
        *out = p;
        *np = k;
}

double compare_value(const struct rtable *t, long r, const char *col)
{
        long c = find_col(t, col);
        if (r < 0 || c < 0)
                return NAN;
        const struct cell *cl = &t->cells[(size_t)r * t->ncols + (size_t)c];
        return cl->text ? NAN : cl->v;
}

/* relative change in percent; a zero baseline compares against 1, as the reference does
 * (the text and CSV say "new" instead) */
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
        if (base == 0 && cur != 0) /* from nothing: no percentage */
                return xasprintf("%s%s (new)", d > 0 ? "+" : "", a);
        fmt_num(nearbyint(compare_rel_change(base, cur) * s) / s, b);
        return xasprintf("%s%s (%s%s%%)", d > 0 ? "+" : "", a,
                         compare_rel_change(base, cur) > 0 ? "+" : "", b);
}

char *compare_num_text(double v, int decimal)
{
        char buf[48];
        if (isnan(v))
                return xstrdup("");
        if (!decimal && isfinite(v)) /* ids: whole numbers */
                return xstrdup(fmt_fixed(v, 0, buf, sizeof buf));
        double s = pow(10.0, decimal);
        return xstrdup(fmt_num(isfinite(v) ? nearbyint(v * s) / s : v, buf));
}

void compare_grid(const struct rtable *b, const struct rtable *n, int decimal,
                  struct cmp_grid *g)
{
        memset(g, 0, sizeof *g);
        struct cmp_pair *pr;
        size_t np;
        compare_pairs(b, n, &pr, &np);
        int status = 0; /* a row in one run only: the Status column says which */
        for (size_t i = 0; i < np; i++)
                status |= pr[i].b < 0 || pr[i].n < 0;
        /* (the findings' comparison has its own: appeared, disappeared; findings.c) */
        status &= n != NULL && find_col(b, "Status") < 0;
        /* columns: key, then each column; numeric ones get "new" and "change", ids "new" */
        size_t ncols = 1 + (size_t)status;
        char *kind = xcalloc(b->ncols + 1, 1);
        for (size_t c = 0; c < b->ncols; c++) {
                kind[c] = !numeric_in(b, n, c) ? 't' : id_col(b, c) ? 'i' : 'v';
                ncols += kind[c] == 't' ? 1 : kind[c] == 'i' ? 2 : 3;
        }
        g->nrows = np + 1;
        g->ncols = ncols;
        g->cells = xcalloc(g->nrows * ncols, sizeof *g->cells);
        g->info = xcalloc(g->nrows * ncols, sizeof *g->info);
        g->align = xcalloc(ncols + 1, 1);
        g->col = xcalloc(ncols, sizeof *g->col);
        g->pairs = pr;
        memset(g->align, 'l', ncols);
        g->cells[0] = xstrdup(b->metric_table ? b->key_title : "");
        size_t k = 1;
        g->col[0] = (struct cmp_cell){CK_KEY, 0, NAN, NAN};
        for (size_t c = 0; c < b->ncols; c++) {
                g->col[k] = (struct cmp_cell){kind[c] == 't' ? CK_TEXT : CK_BASE, c, NAN, NAN};
                g->cells[k++] = xstrdup(b->cols[c]);
                if (kind[c] != 't') {
                        g->col[k] = (struct cmp_cell){CK_NEW, c, NAN, NAN};
                        g->cells[k++] = xasprintf("%s (new)", b->cols[c]);
                }
                if (kind[c] == 'v') {
                        g->col[k] = (struct cmp_cell){CK_CHANGE, c, NAN, NAN};
                        g->cells[k++] = xstrdup("Change");
                }
        }
        if (status) {
                g->col[k] = (struct cmp_cell){CK_STATUS, 0, NAN, NAN};
                g->cells[k++] = xstrdup("Status");
        }
        for (size_t i = 0; i < np; i++) {
                char **row = &g->cells[(i + 1) * ncols];
                struct cmp_cell *inf = &g->info[(i + 1) * ncols];
                long br = pr[i].b, nr = pr[i].n;
                /* texts of the run that has the row, the baseline's where both do */
                const struct rtable *t = br >= 0 ? b : n;
                long tr = br >= 0 ? br : nr;
                row[0] = xstrdup(t->keys[tr]);
                inf[0] = (struct cmp_cell){CK_KEY, 0, NAN, NAN};
                k = 1;
                for (size_t c = 0; c < b->ncols; c++) {
                        if (kind[c] == 't') {
                                long tc = t == b ? (long)c : find_col(n, b->cols[c]);
                                const char *x = tc >= 0 ? t->cells[(size_t)tr * t->ncols +
                                                                   (size_t)tc].text
                                                        : NULL;
                                inf[k] = (struct cmp_cell){CK_TEXT, c, NAN, NAN};
                                row[k++] = xstrdup(x ? x : "");
                                continue;
                        }
                        double bv = br >= 0 ? b->cells[(size_t)br * b->ncols + c].v : NAN;
                        double nv = n ? compare_value(n, nr, b->cols[c]) : NAN;
                        inf[k] = (struct cmp_cell){CK_BASE, c, bv, nv};
                        row[k++] = compare_num_text(bv, kind[c] == 'i' ? 0 : decimal);
                        inf[k] = (struct cmp_cell){CK_NEW, c, bv, nv};
                        row[k++] = compare_num_text(nv, kind[c] == 'i' ? 0 : decimal);
                        if (kind[c] == 'v') {
                                inf[k] = (struct cmp_cell){CK_CHANGE, c, bv, nv};
                                row[k++] = compare_delta_text(bv, nv, decimal);
                        }
                }
                if (status) {
                        inf[k] = (struct cmp_cell){CK_STATUS, 0, NAN, NAN};
                        row[k++] = xstrdup(br < 0 ? "added" : nr < 0 ? "removed" : "");
                }
        }
        free(kind);
}

void cmp_grid_free(struct cmp_grid *g)
{
        for (size_t i = 0; i < g->nrows * g->ncols; i++)
                free(g->cells[i]);
        free(g->cells);
        free(g->info);
        free(g->col);
        free(g->align);
        free(g->pairs);
        memset(g, 0, sizeof *g);
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
                        render_panel_heading(f, pan, o->table_width);
                }
                render_table_title(f, b);
                struct cmp_grid g;
                compare_grid(b, n, o->decimal, &g);
                render_grid_w(f, g.cells, g.nrows, g.ncols, g.align,
                              o->table_width > 0 ? (size_t)o->table_width : 0);
                fputc('\n', f);
                cmp_grid_free(&g);
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
                /* the text report's rows and columns, values at full precision: numeric
                 * columns as baseline, new, difference and relative difference ("new" from
                 * a zero baseline), ids as baseline and new */
                struct cmp_grid g;
                compare_grid(b, n, 2, &g);
                struct table out;
                table_init(&out);
                table_add_col(&out, b->key_title);
                for (size_t k = 1; k < g.ncols; k++) {
                        const struct cmp_cell *in = &g.col[k];
                        if (in->kind == CK_CHANGE) {
                                char *h = xasprintf("%s (diff)", b->cols[in->col]);
                                table_add_col(&out, h);
                                free(h);
                                h = xasprintf("%s (diff %%)", b->cols[in->col]);
                                table_add_col(&out, h);
                                free(h);
                        } else {
                                table_add_col(&out, g.cells[k]);
                        }
                }
                for (size_t r = 1; r < g.nrows; r++) {
                        size_t row = table_add_row(&out);
                        int c = 0;
                        table_set_str(&out, c++, row, g.cells[r * g.ncols]);
                        for (size_t k = 1; k < g.ncols; k++) {
                                const struct cmp_cell *in = &g.info[r * g.ncols + k];
                                double v = in->kind == CK_BASE ? in->bv : in->nv;
                                switch (in->kind) {
                                case CK_BASE:
                                case CK_NEW:
                                        if (!isnan(v))
                                                table_set_str(&out, c, row, fmt_num(v, buf));
                                        c++;
                                        break;
                                case CK_CHANGE:
                                        if (!isnan(in->bv) && !isnan(in->nv)) {
                                                table_set_str(&out, c, row,
                                                              fmt_num(in->nv - in->bv, buf));
                                                if (in->bv == 0 && in->nv != 0)
                                                        table_set_str(&out, c + 1, row, "new");
                                                else
                                                        table_set_str(
                                                            &out, c + 1, row,
                                                            fmt_num(compare_rel_change(in->bv,
                                                                                       in->nv),
                                                                    buf));
                                        }
                                        c += 2;
                                        break;
                                default:
                                        table_set_str(&out, c++, row, g.cells[r * g.ncols + k]);
                                }
                        }
                }
                cmp_grid_free(&g);
                char *path = dfs_path(dir, b);
                rc = table_save_csv(&out, path, err);
                free(path);
                table_free(&out);
        }
        return rc;
}
