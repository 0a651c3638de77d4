/* Text tables with box-drawing characters, panels in catalogue order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../store/columns.h"
#include "render.h"

static double round_half_even(double x, int nd)
{
        if (!isfinite(x))
                return x;
        double s = pow(10.0, nd);
        return nearbyint(x * s) / s;
}

/* display width of UTF-8 text: count of lead bytes */
static size_t u8len(const char *s, size_t n)
{
        size_t w = 0;
        for (size_t i = 0; i < n; i++)
                w += ((unsigned char)s[i] & 0xC0) != 0x80;
        return w;
}

static size_t line_count(const char *s)
{
        size_t n = 1;
        for (; *s; s++)
                n += *s == '\n';
        return n;
}

/* the k-th line of s: start and length */
static const char *line_at(const char *s, size_t k, size_t *len)
{
        while (k && s) {
                s = strchr(s, '\n');
                if (s)
                        s++;
                k--;
        }
        if (!s) {
                *len = 0;
                return "";
        }
        const char *e = strchr(s, '\n');
        *len = e ? (size_t)(e - s) : strlen(s);
        return s;
}

/* n copies of the UTF-8 character c (a box-drawing line, padding) */
static void add_run(struct strbuf *sb, const char *c, size_t n)
{
        size_t cl = strlen(c);
        xgrow(&sb->buf, &sb->cap, sb->len + n * cl + 1, 1);
        char *p = sb->buf + sb->len;
        size_t total = n * cl, done = cl == 1 ? total : total ? cl : 0;
        if (cl == 1) /* a one-byte character (a space): set at once */
                memset(p, *c, total);
        else
                memcpy(p, c, done);
        while (done < total) { /* doubling what is there */
                size_t k = done < total - done ? done : total - done;
                memcpy(p + done, p, k);
                done += k;
        }
        sb->len += total;
        sb->buf[sb->len] = 0;
}

/* a line of the grid, built in sb */
static void hline(struct strbuf *sb, const size_t *w, size_t ncols, const char *l,
                  const char *m, const char *r, const char *fill)
{
        sb_reset(sb);
        sb_add(sb, l);
        for (size_t c = 0; c < ncols; c++) {
                add_run(sb, fill, w[c] + 2);
                sb_add(sb, c + 1 < ncols ? m : r);
        }
        sb_addc(sb, '\n');
}

static void put_hline(FILE *f, struct strbuf *sb, const size_t *w, size_t ncols, const char *l,
                      const char *m, const char *r, const char *fill)
{
        hline(sb, w, ncols, l, m, r, fill);
        fwrite(sb->buf, 1, sb->len, f);
}

void render_grid(FILE *f, char **cells, size_t nrows, size_t ncols, const char *align)
{
        size_t *w = xcalloc(ncols, sizeof *w);
        /* per cell: its lines, and for one line its length and width (most cells) */
        size_t ncell = nrows * ncols, *nl = xmalloc((ncell + 1) * 3 * sizeof *nl);
        size_t *clen = nl + ncell, *cw1 = clen + ncell;
        struct strbuf sb = {0};
        for (size_t i = 0; i < ncell; i++) {
                const char *s = cells[i];
                size_t c = i % ncols;
                nl[i] = line_count(s);
                if (nl[i] == 1) {
                        clen[i] = strlen(s);
                        cw1[i] = u8len(s, clen[i]);
                        if (cw1[i] > w[c])
                                w[c] = cw1[i];
                        continue;
                }
                for (size_t k = 0; k < nl[i]; k++) {
                        size_t len;
                        const char *ln = line_at(s, k, &len);
                        size_t cw = u8len(ln, len);
                        if (cw > w[c])
                                w[c] = cw;
                }
        }
        struct strbuf mid = {0}; /* the line between rows, the same every time */
        hline(&mid, w, ncols, "├", "┼", "┤", "─");
        put_hline(f, &sb, w, ncols, "╒", "╤", "╕", "═");
        for (size_t r = 0; r < nrows; r++) {
                size_t lines = 1;
                for (size_t c = 0; c < ncols; c++)
                        if (nl[r * ncols + c] > lines)
                                lines = nl[r * ncols + c];
                for (size_t k = 0; k < lines; k++) {
                        sb_reset(&sb);
                        sb_add(&sb, "│");
                        for (size_t c = 0; c < ncols; c++) {
                                size_t i = r * ncols + c, len, cw;
                                const char *ln;
                                if (nl[i] == 1) {
                                        ln = k ? "" : cells[i];
                                        len = k ? 0 : clen[i];
                                        cw = k ? 0 : cw1[i];
                                } else {
                                        ln = line_at(cells[i], k, &len);
                                        cw = u8len(ln, len);
                                }
                                size_t pad = w[c] - cw;
                                int right = align[c] == 'r' && r > 0;
                                add_run(&sb, " ", 1 + (right ? pad : 0));
                                sb_addn(&sb, ln, len);
                                add_run(&sb, " ", right ? 0 : pad);
                                sb_add(&sb, " │");
                        }
                        sb_addc(&sb, '\n');
                        fwrite(sb.buf, 1, sb.len, f);
                }
                if (r == 0)
                        put_hline(f, &sb, w, ncols, "╞", "╪", "╡", "═");
                else if (r + 1 < nrows)
                        fwrite(mid.buf, 1, mid.len, f);
        }
        put_hline(f, &sb, w, ncols, "╘", "╧", "╛", "═");
        sb_free(&mid);
        sb_free(&sb);
        free(nl);
        free(w);
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

char *rtable_cell_text(const struct rtable *t, const struct cell *cl, int decimal, int int_col)
{
        char buf[48];
        if (cl->text)
                return xstrdup(cl->text);
        if (isnan(cl->v))
                return xstrdup("");
        if (t->metric_table)
                return xstrdup(fmt_num(round_half_even(cl->v, decimal), buf));
        return xstrdup(fmt_fixed(cl->v, int_col ? 0 : decimal, buf, sizeof buf));
}

/* dispatch ids, GPU ids and the like: whole numbers in a built-in table other than the
 * top kernels (whose counts the reference shows with decimals) */
int rtable_int_col(const struct rtable *t, size_t c)
{
        if (t->metric_table || (t->pt->source && !strcmp(t->pt->source, "top_kernels")))
                return 0;
        for (size_t r = 0; r < t->nrows; r++) {
                double v = t->cells[r * t->ncols + c].v;
                if (isfinite(v) && v != floor(v))
                        return 0;
        }
        return 1;
}

static int is_top_stats(const struct rtable *t)
{
        return t->pt->source && (!strcmp(t->pt->source, "top_kernels") ||
                                 !strcmp(t->pt->source, "dispatch_list"));
}

void rtable_grid(const struct rtable *t, const struct render_opts *o, int wrap_names,
                 struct rgrid *g)
{
        size_t nrows = t->nrows;
        if (is_top_stats(t) && o->max_stat_num >= 0 && (size_t)o->max_stat_num < nrows)
                nrows = (size_t)o->max_stat_num;
        size_t ncols = 1;
        for (size_t c = 0; c < t->ncols; c++)
                ncols += render_col_shown(t, o, c);
        g->nrows = nrows + 1;
        g->ncols = ncols;
        g->cells = xcalloc((nrows + 1) * ncols, sizeof *g->cells);
        g->align = xcalloc(ncols + 1, 1);
        g->src_col = xcalloc(ncols, sizeof *g->src_col);
        int sysinfo = t->pt->source && !strcmp(t->pt->source, "sysinfo");
        g->cells[0] = xstrdup(t->metric_table ? t->key_title : "");
        g->src_col[0] = -1;
        /* numbers right-aligned in built-in tables, as the reference shows them */
        g->align[0] = !t->metric_table && !sysinfo ? 'r' : 'l';
        size_t k = 1;
        for (size_t c = 0; c < t->ncols; c++) {
                if (!render_col_shown(t, o, c))
                        continue;
                g->cells[k] = xstrdup(t->cols[c]);
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
        for (size_t r = 0; r < nrows; r++) {
                char **row = &g->cells[(r + 1) * ncols];
                row[0] = xstrdup(t->keys[r]);
                for (k = 1; k < ncols; k++) {
                        size_t c = (size_t)g->src_col[k];
                        const struct cell *cl = &t->cells[r * t->ncols + c];
                        if (wrap_names && cl->text && is_top_stats(t) &&
                            !strcmp(t->cols[c], COL_KERNEL_NAME))
                                row[k] = !strcmp(t->pt->source, "top_kernels")
                                             ? wrap(cl->text, 40, 3)
                                             : wrap(cl->text, 80, 4);
                        else
                                row[k] = rtable_cell_text(t, cl, o->decimal, whole[c]);
                }
        }
        free(whole);
}

void rgrid_free(struct rgrid *g)
{
        for (size_t i = 0; g->cells && i < g->nrows * g->ncols; i++)
                free(g->cells[i]);
        free(g->cells);
        free(g->align);
        free(g->src_col);
        memset(g, 0, sizeof *g);
}

static void render_table(FILE *f, const struct rtable *t, const struct render_opts *o)
{
        struct rgrid g;
        rtable_grid(t, o, 1, &g);
        render_grid(f, g.cells, g.nrows, g.ncols, g.align);
        rgrid_free(&g);
}

void render_panel_heading(FILE *f, const struct panel *p)
{
        fprintf(f, "\n%s\n%d. %s\n",
                "--------------------------------------------------------"
                "------------------------",
                p->id, p->title);
}

void render_table_title(FILE *f, const struct rtable *t)
{
        if (t->pt->title)
                fprintf(f, "%s %s\n", t->id, t->pt->title);
}

void render_text(FILE *f, const struct analysis *an, const struct render_opts *o)
{
        const struct panel *cur = NULL;
        for (size_t i = 0; i < an->ntables; i++) {
                const struct rtable *t = &an->tables[i];
                if (t->panel != cur) {
                        if (cur)
                                render_figures(f, an, cur, o); /* memory chart, roofline */
                        cur = t->panel;
                        render_panel_heading(f, cur);
                }
                render_table_title(f, t);
                render_table(f, t, o);
                fputc('\n', f);
        }
        if (cur)
                render_figures(f, an, cur, o);
}
