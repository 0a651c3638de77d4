/* Text tables, panels in catalogue order (the box-drawn grid itself: grid.c; the report in
 * parts on two threads: report.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../store/columns.h"
#include "render.h"
#include "text_int.h"
#include "../util/esc.h"
#include "../util/round.h"

/* cells with their control characters escaped now, as the output stream would show them
 * (esc.h), so that columns are measured in what the terminal prints; NULL when no cell
 * holds one (the usual case: nothing copied) */
static char **escaped_cells(char **cells, size_t n)
{
        size_t i = 0;
        while (i < n && !esc_needed(cells[i], strlen(cells[i]), ESC_KEEP_NL))
                i++;
        if (i == n)
                return NULL;
        char **e = xmalloc(n * sizeof *e);
        for (i = 0; i < n; i++) {
                struct strbuf sb = {0};
                e[i] = xstrdup(esc_view(cells[i], &sb, ESC_KEEP_NL));
                sb_free(&sb);
        }
        return e;
}

void render_grid_w(FILE *f, char **cells, size_t nrows, size_t ncols, const char *align,
                   size_t width)
{
        size_t nc;
        char **esc = escaped_cells(cells, nrows * ncols);
        if (esc)
                cells = esc;
        char **fit = render_grid_layout(cells, nrows, ncols, align, width, &nc);
        if (!fit) {
                render_grid(f, cells, nrows, ncols, align);
        } else {
                render_grid(f, fit, nrows, nc, nc == ncols ? align : "lll");
                for (size_t i = 0; i < nrows * nc; i++)
                        free(fit[i]);
                free(fit);
        }
        for (size_t i = 0; esc && i < nrows * ncols; i++)
                free(esc[i]);
        free(esc);
}

/* wrap text into lines of at most width characters, at most maxl lines ("..." if cut) */
static char *wrap(const char *s, size_t width, size_t maxl)
{
        struct strbuf sb = {0};
        size_t len = strlen(s), i = 0, lines = 0;
        while (i < len && lines < maxl) {
                size_t n = len - i < width ? len - i : width;
                if (lines)
                        sb_addc(&sb, '\n');
                if (lines + 1 == maxl && i + n < len && n > 3) {
                        sb_addn(&sb, s + i, n - 3);
                        sb_add(&sb, "...");
                } else {
                        sb_addn(&sb, s + i, n);
                }
                i += n;
                lines++;
        }
        return sb_detach(&sb);
}

int render_col_shown(const struct rtable *t, const struct render_opts *o, size_t c)
{
        if (!o->ncols || !t->metric_table)
                return 1;
        for (size_t i = 0; i < o->ncols; i++)
                if (o->cols[i] == (long)c)
                        return 1;
        return 0;
}

/* a cell's text: its own, or its number formatted into buf (48 bytes) */
static const char *cell_text(const struct rtable *t, const struct cell *cl, int decimal,
                             int int_col, char *buf)
{
        if (cl->text)
                return cl->text;
        if (isnan(cl->v))
                return "";
        if (t->metric_table)
                return fmt_num(round_half_even(cl->v, decimal), buf);
        return fmt_fixed(cl->v, int_col ? 0 : decimal, buf, 48);
}

char *rtable_cell_text(const struct rtable *t, const struct cell *cl, int decimal, int int_col)
{
        char buf[48];
        return xstrdup(cell_text(t, cl, decimal, int_col, buf));
}

/* dispatch ids, GPU ids and the like: whole numbers in a built-in table other than the
 * top kernels (whose counts the reference shows with decimals) */
int rtable_int_col(const struct rtable *t, size_t c)
{
        if (t->metric_table || t->pt->props.ranked)
                return 0;
        for (size_t r = 0; r < t->nrows; r++) {
                double v = t->cells[r * t->ncols + c].v;
                if (isfinite(v) && v != floor(v))
                        return 0;
        }
        return 1;
}

/* grid cell i: a copy of s, its own allocation or (text) at an offset of one buffer */
static void grid_put(struct rgrid *g, struct strbuf *text, size_t *off, size_t i, const char *s)
{
        if (!text) {
                g->cells[i] = xstrdup(s);
                return;
        }
        size_t l = strlen(s) + 1; /* with its NUL */
        if (text->len + l > text->cap)
                xgrow(&text->buf, &text->cap, text->len + l, 1);
        off[i] = text->len;
        memcpy(text->buf + text->len, s, l);
        text->len += l;
}

/* rtable_grid; text: the cells' strings go into one buffer (g->text) instead */
static void grid_build(const struct rtable *t, const struct render_opts *o, int wrap_names,
                       struct rgrid *g, struct strbuf *text)
{
        size_t nrows = t->nrows;
        if (t->pt->props.stat_rows && o->max_stat_num >= 0 && (size_t)o->max_stat_num < nrows)
                nrows = (size_t)o->max_stat_num;
        size_t ncols = 1;
        for (size_t c = 0; c < t->ncols; c++)
                ncols += render_col_shown(t, o, c);
        g->nrows = nrows + 1;
        g->ncols = ncols;
        g->cells = xcalloc((nrows + 1) * ncols, sizeof *g->cells);
        g->align = xcalloc(ncols + 1, 1);
        g->src_col = xcalloc(ncols, sizeof *g->src_col);
        g->text = NULL;
        size_t *off = text ? xmalloc((nrows + 1) * ncols * sizeof *off) : NULL;
        int sysinfo = t->pt->props.fields;
        grid_put(g, text, off, 0, t->metric_table ? t->key_title : "");
        g->src_col[0] = -1;
        /* numbers right-aligned in built-in tables, as the reference shows them */
        g->align[0] = !t->metric_table && !sysinfo ? 'r' : 'l';
        size_t k = 1;
        for (size_t c = 0; c < t->ncols; c++) {
                if (!render_col_shown(t, o, c))
                        continue;
                grid_put(g, text, off, k, t->cols[c]);
                g->src_col[k] = (long)c;
                g->align[k] = 'l';
                if (!t->metric_table && !sysinfo) {
                        int num = 1;
                        for (size_t r = 0; r < t->nrows; r++)
                                num &= t->cells[r * t->ncols + c].text == NULL;
                        g->align[k] = num ? 'r' : 'l';
                }
                k++;
        }
        int *whole = xcalloc(t->ncols + 1, sizeof *whole);
        for (size_t c = 0; c < t->ncols; c++)
                whole[c] = rtable_int_col(t, c);
        char buf[48];
        for (size_t r = 0; r < nrows; r++) {
                size_t row = (r + 1) * ncols;
                grid_put(g, text, off, row, t->keys[r]);
                for (k = 1; k < ncols; k++) {
                        size_t c = (size_t)g->src_col[k];
                        const struct cell *cl = &t->cells[r * t->ncols + c];
                        if (wrap_names && cl->text && t->pt->props.stat_rows &&
                            !strcmp(t->cols[c], COL_KERNEL_NAME)) {
                                char *w = wrap(cl->text, t->pt->props.name_width,
                                               t->pt->props.name_lines);
                                grid_put(g, text, off, row + k, w);
                                free(w);
                        } else {
                                grid_put(g, text, off, row + k,
                                         cell_text(t, cl, o->decimal, whole[c], buf));
                        }
                }
        }
        free(whole);
        if (text) { /* the buffer no longer moves: offsets to pointers */
                g->text = sb_detach(text);
                for (size_t i = 0; i < g->nrows * g->ncols; i++)
                        g->cells[i] = g->text + off[i];
                free(off);
        }
}

void rtable_grid(const struct rtable *t, const struct render_opts *o, int wrap_names,
                 struct rgrid *g)
{
        grid_build(t, o, wrap_names, g, NULL);
}

void rgrid_free(struct rgrid *g)
{
        for (size_t i = 0; !g->text && g->cells && i < g->nrows * g->ncols; i++)
                free(g->cells[i]);
        free(g->text);
        free(g->cells);
        free(g->align);
        free(g->src_col);
        memset(g, 0, sizeof *g);
}

static void render_table(FILE *f, const struct rtable *t, const struct render_opts *o)
{
        struct rgrid g;
        struct strbuf text = {0};
        grid_build(t, o, o->table_width <= 0, &g, &text); /* a width wraps them itself */
        render_grid_w(f, g.cells, g.nrows, g.ncols, g.align,
                      o->table_width > 0 ? (size_t)o->table_width : 0);
        rgrid_free(&g);
}

void render_panel_heading(FILE *f, const struct panel *p, int width)
{
        static const char rule[] = "--------------------------------------------------------"
                                   "------------------------";
        int n = width > 0 && width < (int)sizeof rule - 1 ? width : (int)sizeof rule - 1;
        fprintf(f, "\n%.*s\n%d. %s\n", n, rule, p->id, p->title);
}

void render_table_title(FILE *f, const struct rtable *t)
{
        if (t->pt->title) {
                fputs(t->id, f);
                fputc(' ', f);
                fputs(t->pt->title, f);
                fputc('\n', f);
        }
}

void render_range(FILE *f, const struct analysis *an, const struct render_opts *o, size_t from,
                  size_t to)
{
        /* a range that starts inside a panel continues its heading's; one that ends inside
         * a panel leaves its figures to the range that ends it */
        const struct panel *cur = from > 0 && from < to ? an->tables[from - 1].panel : NULL;
        for (size_t i = from; i < to; i++) {
                const struct rtable *t = &an->tables[i];
                if (t->panel != cur) {
                        if (cur && i > from)
                                render_figures(f, an, cur, o); /* memory chart, roofline */
                        cur = t->panel;
                        render_panel_heading(f, cur, o->table_width);
                }
                render_table_title(f, t);
                render_table(f, t, o);
                fputc('\n', f);
        }
        if (cur && from < to && (to == an->ntables || an->tables[to].panel != cur))
                render_figures(f, an, cur, o);
}

