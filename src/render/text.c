/* Text tables with box-drawing characters, panels in catalogue order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

/* The common case without printf: v is a decimal of at most 9 places (counts, values
 * rounded for display) in 1e-4 <= |v| < 2^50. The fewest places d for which
 * k = round(v * 10^d) gives k / 10^d == v (one correctly rounded division, so the text
 * k·10^-d reads back as v, and no shorter text does) are the places repr shows. The
 * bound |v| * 10^d < 2^50 keeps k exact and its neighbours k±1 far from v (more than
 * an ulp), so the text is the nearest one too. 0 when v is not such a value. */
static int fmt_short_decimal(double v, char *buf)
{
        static const double p10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
        double a = fabs(v);
        if (v == 0) {
                strcpy(buf, signbit(v) ? "-0.0" : "0.0");
                return 1;
        }
        if (!(a >= 1e-4) || a >= 1125899906842624.0) /* 2^50 */
                return 0;
        for (int d = 0; d <= 9; d++) {
                double x = a * p10[d];
                if (x >= 1125899906842624.0)
                        return 0;
                double k = nearbyint(x);
                if (k / p10[d] != a)
                        continue;
                unsigned long long n = (unsigned long long)k;
                unsigned long long ip = n / (unsigned long long)p10[d];
                unsigned long long fp = n % (unsigned long long)p10[d];
                char tmp[32];
                int len = 0;
                do
                        tmp[len++] = (char)('0' + ip % 10);
                while ((ip /= 10));
                char *o = buf;
                if (v < 0)
                        *o++ = '-';
                while (len)
                        *o++ = tmp[--len];
                *o++ = '.';
                if (d == 0) {
                        *o++ = '0';
                } else {
                        for (int i = d - 1; i >= 0; i--, fp /= 10)
                                o[i] = (char)('0' + fp % 10);
                        o += d;
                }
                *o = 0;
                return 1;
        }
        return 0;
}

const char *fmt_num(double v, char *buf)
{
        if (isnan(v)) {
                buf[0] = 0;
                return buf;
        }
        if (isinf(v)) {
                strcpy(buf, v > 0 ? "inf" : "-inf");
                return buf;
        }
        if (fmt_short_decimal(v, buf))
                return buf;
        /* the fewest significant digits that read back as v, laid out as Python's repr:
         * fixed notation for exponents -4..15, else scientific */
        char e[40];
        int p = 15;
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        if (strtod(e, NULL) == v) {
                /* short enough: find the shortest; a text of p digits that reads back
                 * as v means p + 1 digits do too, so a binary search finds it */
                int lo = 1, hi = 15;
                while (lo < hi) {
                        int mid = (lo + hi) / 2;
                        snprintf(e, sizeof e, "%.*e", mid - 1, v);
                        if (strtod(e, NULL) == v)
                                hi = mid;
                        else
                                lo = mid + 1;
                }
                p = lo;
        } else {
                snprintf(e, sizeof e, "%.15e", v);
                p = strtod(e, NULL) == v ? 16 : 17;
        }
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        int exp10 = atoi(strchr(e, 'e') + 1);
        if (exp10 >= -5 && exp10 < 16) {
                int dec = p - 1 - exp10;
                snprintf(buf, 40, "%.*f", dec > 0 ? dec : 0, v);
                if (!strchr(buf, '.'))
                        strcat(buf, ".0");
        } else {
                strcpy(buf, e);
        }
        return buf;
}

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

static void hline(FILE *f, const size_t *w, size_t ncols, const char *l, const char *m,
                  const char *r, const char *fill)
{
        /* the line built once and written at once (a character at a time was a tenth of
         * a small report's time) */
        struct strbuf sb = {0};
        size_t fl = strlen(fill);
        sb_add(&sb, l);
        for (size_t c = 0; c < ncols; c++) {
                for (size_t i = 0; i < w[c] + 2; i++)
                        sb_addn(&sb, fill, fl);
                sb_add(&sb, c + 1 < ncols ? m : r);
        }
        sb_addc(&sb, '\n');
        fwrite(sb.buf, 1, sb.len, f);
        sb_free(&sb);
}

void render_grid_fn(FILE *f, size_t nrows, size_t ncols, const char *align, grid_cell_fn cell,
                    void *ctx)
{
        size_t *w = xcalloc(ncols, sizeof *w);
        char **row = xcalloc(ncols, sizeof *row);
        /* the widths, then the rows: a cell's text is made when needed and dropped, so a
         * table of a million dispatches costs no copy of its texts */
        for (size_t r = 0; r < nrows; r++)
                for (size_t c = 0; c < ncols; c++) {
                        char *s = cell(ctx, r, c);
                        for (size_t k = 0, n = line_count(s); k < n; k++) {
                                size_t len;
                                const char *ln = line_at(s, k, &len);
                                size_t cw = u8len(ln, len);
                                if (cw > w[c])
                                        w[c] = cw;
                        }
                        free(s);
                }
        hline(f, w, ncols, "╒", "╤", "╕", "═");
        for (size_t r = 0; r < nrows; r++) {
                size_t lines = 1;
                for (size_t c = 0; c < ncols; c++) {
                        row[c] = cell(ctx, r, c);
                        size_t n = line_count(row[c]);
                        if (n > lines)
                                lines = n;
                }
                for (size_t k = 0; k < lines; k++) {
                        fputs("│", f);
                        for (size_t c = 0; c < ncols; c++) {
                                size_t len;
                                const char *ln = line_at(row[c], k, &len);
                                size_t pad = w[c] - u8len(ln, len);
                                if (align[c] == 'r' && r > 0)
                                        fprintf(f, " %*s%.*s │", (int)pad, "", (int)len, ln);
                                else
                                        fprintf(f, " %.*s%*s │", (int)len, ln, (int)pad, "");
                        }
                        fputc('\n', f);
                }
                for (size_t c = 0; c < ncols; c++)
                        free(row[c]);
                if (r == 0)
                        hline(f, w, ncols, "╞", "╪", "╡", "═");
                else if (r + 1 < nrows)
                        hline(f, w, ncols, "├", "┼", "┤", "─");
        }
        hline(f, w, ncols, "╘", "╧", "╛", "═");
        free(row);
        free(w);
}

struct cells_ctx {
        char **cells;
        size_t ncols;
};

static char *array_cell(void *p, size_t r, size_t c)
{
        const struct cells_ctx *x = p;
        return xstrdup(x->cells[r * x->ncols + c]);
}

void render_grid(FILE *f, char **cells, size_t nrows, size_t ncols, const char *align)
{
        struct cells_ctx x = {cells, ncols};
        render_grid_fn(f, nrows, ncols, align, array_cell, &x);
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
        if (int_col)
                snprintf(buf, sizeof buf, "%.0f", cl->v);
        else
                snprintf(buf, sizeof buf, "%.*f", decimal, cl->v);
        return xstrdup(buf);
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

struct table_ctx {
        const struct rtable *t;
        const struct render_opts *o;
        size_t *cols; /* the shown columns of t, after the key */
        int *whole;
};

/* the text of grid cell (r, c): row 0 the titles, column 0 the keys */
static char *table_cell_text(void *p, size_t r, size_t c)
{
        const struct table_ctx *x = p;
        const struct rtable *t = x->t;
        if (r == 0)
                return xstrdup(c == 0 ? (t->metric_table ? t->key_title : "")
                                      : t->cols[x->cols[c - 1]]);
        if (c == 0)
                return xstrdup(t->keys[r - 1]);
        size_t tc = x->cols[c - 1];
        const struct cell *cl = &t->cells[(r - 1) * t->ncols + tc];
        if (cl->text && is_top_stats(t) && !strcmp(t->cols[tc], "Kernel_Name"))
                return !strcmp(t->pt->source, "top_kernels") ? wrap(cl->text, 40, 3)
                                                              : wrap(cl->text, 80, 4);
        return rtable_cell_text(t, cl, x->o->decimal, x->whole[tc]);
}

static void render_table(FILE *f, const struct rtable *t, const struct render_opts *o)
{
        size_t nrows = t->nrows;
        if (is_top_stats(t) && o->max_stat_num >= 0 && (size_t)o->max_stat_num < nrows)
                nrows = (size_t)o->max_stat_num;
        size_t ncols = 1;
        struct table_ctx x = {t, o, xcalloc(t->ncols + 1, sizeof(size_t)),
                              xcalloc(t->ncols + 1, sizeof(int))};
        for (size_t c = 0; c < t->ncols; c++)
                if (render_col_shown(t, o, c))
                        x.cols[ncols++ - 1] = c;
        char *align = xcalloc(ncols + 1, 1);
        int sysinfo = t->pt->source && !strcmp(t->pt->source, "sysinfo");
        align[0] = 'l';
        for (size_t k = 1; k < ncols; k++) {
                size_t c = x.cols[k - 1];
                /* numbers right-aligned in built-in tables, as the reference shows them */
                align[k] = 'l';
                if (!t->metric_table && !sysinfo) {
                        int num = 1;
                        for (size_t r = 0; r < t->nrows; r++)
                                num &= t->cells[r * t->ncols + c].text == NULL;
                        align[k] = num ? 'r' : 'l';
                }
        }
        if (!t->metric_table && !sysinfo)
                align[0] = 'r';
        for (size_t c = 0; c < t->ncols; c++)
                x.whole[c] = rtable_int_col(t, c);
        render_grid_fn(f, nrows + 1, ncols, align, table_cell_text, &x);
        free(x.whole);
        free(x.cols);
        free(align);
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
                        fprintf(f, "\n%s\n%d. %s\n",
                                "--------------------------------------------------------"
                                "------------------------",
                                cur->id, cur->title);
                }
                if (t->pt->title)
                        fprintf(f, "%s %s\n", t->id, t->pt->title);
                render_table(f, t, o);
                fputc('\n', f);
        }
        if (cur)
                render_figures(f, an, cur, o);
}
