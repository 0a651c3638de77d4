/* Text tables with box-drawing characters, panels in catalogue order. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../store/columns.h"
#include "render.h"

static double round_half_even(double x, int nd)
{
        static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
        if (!isfinite(x))
                return x;
        /* pow(10, nd) is exact up to 10^22: the same double as the table's */
        double s = nd >= 0 && nd <= 22 ? p10[nd] : pow(10.0, nd), y = x * s, a = fabs(y);
        if (a < 4503599627370496.0) /* 2^52: adding it rounds to a whole number, to even */
                return copysign((a + 4503599627370496.0) - 4503599627370496.0, y) / s;
        return nearbyint(y) / s;
}

/* display width of UTF-8 text: count of lead bytes (all but 10xxxxxx), eight at a time */
static size_t u8len(const char *s, size_t n)
{
        const uint64_t hi = UINT64_C(0x8080808080808080);
        size_t w = n, i = 0;
        for (; i + 8 <= n; i += 8) {
                uint64_t x;
                memcpy(&x, s + i, sizeof x);
                if (x & hi) /* bytes with bit 7 set and bit 6 clear */
                        w -= (size_t)__builtin_popcountll(x & ~(x << 1) & hi);
        }
        for (; i < n; i++)
                w -= ((unsigned char)s[i] & 0xC0) == 0x80;
        return w;
}

static size_t line_count(const char *s, size_t len)
{
        size_t n = 1;
        for (const char *e = s + len; (s = memchr(s, '\n', (size_t)(e - s))); s++)
                n++;
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

/* n copies of the UTF-8 character c (cl bytes: a box-drawing line, padding) at p; the end */
static char *put_run(char *p, const char *c, size_t cl, size_t n)
{
        size_t total = n * cl, done = total ? cl : 0;
        if (cl == 1) {
                memset(p, *c, n);
                return p + n;
        }
        memcpy(p, c, done);
        while (done < total) { /* doubling what is there */
                size_t k = done < total - done ? done : total - done;
                memcpy(p + done, p, k);
                done += k;
        }
        return p + total;
}

/* a line of the grid, added to sb */
static void hline(struct strbuf *sb, const size_t *w, size_t ncols, const char *l,
                  const char *m, const char *r, const char *fill)
{
        size_t fl = strlen(fill), ll = strlen(l), ml = strlen(m), rl = strlen(r), need = ll + 2;
        for (size_t c = 0; c < ncols; c++)
                need += (w[c] + 2) * fl + (c + 1 < ncols ? ml : rl);
        xgrow(&sb->buf, &sb->cap, sb->len + need, 1);
        char *p = sb->buf + sb->len;
        memcpy(p, l, ll);
        p += ll;
        for (size_t c = 0; c < ncols; c++) {
                p = put_run(p, fill, fl, w[c] + 2);
                memcpy(p, c + 1 < ncols ? m : r, c + 1 < ncols ? ml : rl);
                p += c + 1 < ncols ? ml : rl;
        }
        *p++ = '\n';
        *p = 0;
        sb->len = (size_t)(p - sb->buf);
}

void render_grid(FILE *f, char **cells, size_t nrows, size_t ncols, const char *align)
{
        /* per column: width, and the most bytes a line of it has beyond its width */
        size_t *w = xcalloc(2 * ncols, sizeof *w), *extra = w + ncols;
        /* per cell: its lines, and for one line its length and width (most cells) */
        size_t ncell = nrows * ncols, *nl = xmalloc((ncell + 1) * 3 * sizeof *nl);
        size_t *clen = nl + ncell, *cw1 = clen + ncell;
        for (size_t i = 0; i < ncell; i++) {
                const char *s = cells[i];
                size_t c = i % ncols;
                clen[i] = strlen(s);
                nl[i] = line_count(s, clen[i]);
                if (nl[i] == 1) {
                        cw1[i] = u8len(s, clen[i]);
                        if (cw1[i] > w[c])
                                w[c] = cw1[i];
                        if (clen[i] - cw1[i] > extra[c])
                                extra[c] = clen[i] - cw1[i];
                        continue;
                }
                for (size_t k = 0; k < nl[i]; k++) {
                        size_t len;
                        const char *ln = line_at(s, k, &len);
                        size_t cw = u8len(ln, len);
                        if (cw > w[c])
                                w[c] = cw;
                        if (len - cw > extra[c])
                                extra[c] = len - cw;
                }
        }
        /* the whole table in one buffer, written at once */
        struct strbuf sb = {0}, mid = {0}; /* mid: the line between rows, the same each time */
        static const char bar[] = "│";
        const size_t bl = sizeof bar - 1;
        hline(&mid, w, ncols, "├", "┼", "┤", "─");
        hline(&sb, w, ncols, "╒", "╤", "╕", "═");
        size_t most = bl + 2; /* the most bytes a line of cells takes, its newline included */
        for (size_t c = 0; c < ncols; c++)
                most += w[c] + extra[c] + 2 + bl;
        for (size_t r = 0; r < nrows; r++) {
                size_t lines = 1;
                for (size_t c = 0; c < ncols; c++)
                        if (nl[r * ncols + c] > lines)
                                lines = nl[r * ncols + c];
                xgrow(&sb.buf, &sb.cap, sb.len + lines * most + mid.len + 1, 1);
                for (size_t k = 0; k < lines; k++) {
                        memcpy(sb.buf + sb.len, bar, bl);
                        sb.len += bl;
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
                                char *p = sb.buf + sb.len;
                                size_t lead = 1 + (right ? pad : 0), trail = right ? 0 : pad;
                                memset(p, ' ', lead);
                                p += lead;
                                memcpy(p, ln, len);
                                p += len;
                                memset(p, ' ', trail + 1);
                                p += trail + 1;
                                memcpy(p, bar, bl);
                                p += bl;
                                sb.len = (size_t)(p - sb.buf);
                        }
                        sb.buf[sb.len++] = '\n';
                        sb.buf[sb.len] = 0;
                }
                if (r == 0)
                        hline(&sb, w, ncols, "╞", "╪", "╡", "═");
                else if (r + 1 < nrows) {
                        memcpy(sb.buf + sb.len, mid.buf, mid.len + 1);
                        sb.len += mid.len;
                }
        }
        hline(&sb, w, ncols, "╘", "╧", "╛", "═");
        fwrite(sb.buf, 1, sb.len, f);
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
        g->text = NULL;
        size_t *off = text ? xmalloc((nrows + 1) * ncols * sizeof *off) : NULL;
        int sysinfo = t->pt->source && !strcmp(t->pt->source, "sysinfo");
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
                        if (wrap_names && cl->text && is_top_stats(t) &&
                            !strcmp(t->cols[c], COL_KERNEL_NAME)) {
                                char *w = !strcmp(t->pt->source, "top_kernels")
                                              ? wrap(cl->text, 40, 3)
                                              : wrap(cl->text, 80, 4);
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

void render_text(FILE *f, const struct analysis *an, const struct render_opts *o)
{
        const struct panel *cur = NULL;
        for (size_t i = 0; i < an->ntables; i++) {
                const struct rtable *t = &an->tables[i];
                if (t->panel != cur) {
                        if (cur)
                                render_figures(f, an, cur, o); /* memory chart, roofline */
                        cur = t->panel;
                        render_panel_heading(f, cur, o->table_width);
                }
                render_table_title(f, t);
                render_table(f, t, o);
                fputc('\n', f);
        }
        if (cur)
                render_figures(f, an, cur, o);
}
