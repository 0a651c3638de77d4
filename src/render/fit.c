/* Fitting a text table into a width: column widths chosen so that the table's lines are no
 * wider than the terminal, and the cells of narrowed columns wrapped inside them. */
#include <stdlib.h>
#include <string.h>

#include "render.h"

/* display width of n bytes of UTF-8 (lead bytes) */
static size_t dwidth(const char *s, size_t n)
{
        size_t w = 0;
        for (size_t i = 0; i < n; i++)
                w += ((unsigned char)s[i] & 0xC0) != 0x80;
        return w;
}

/* bytes of the first `cols` characters of s (at most n bytes) */
static size_t dbytes(const char *s, size_t n, size_t cols)
{
        size_t i = 0, w = 0;
        while (i < n) {
                size_t k = 1;
                while (i + k < n && ((unsigned char)s[i + k] & 0xC0) == 0x80)
                        k++;
                if (w + 1 > cols)
                        break;
                w++;
                i += k;
        }
        return i;
}

/* the widest line of s, and (word) its longest run that cannot break (at a space, or
 * after '/', '-' or ',') */
static void measure(const char *s, size_t *line, size_t *word)
{
        *line = *word = 0;
        size_t lw = 0, ww = 0;
        for (;; s++) {
                if (!*s || *s == '\n') {
                        if (lw > *line)
                                *line = lw;
                        if (ww > *word)
                                *word = ww;
                        lw = ww = 0;
                        if (!*s)
                                return;
                        continue;
                }
                if (((unsigned char)*s & 0xC0) == 0x80)
                        continue;
                lw++;
                if (*s == ' ') {
                        if (ww > *word)
                                *word = ww;
                        ww = 0;
                } else if (*s == '/' || *s == '-' || *s == ',') { /* a word may break after */
                        ww++;
                        if (ww > *word)
                                *word = ww;
                        ww = 0;
                } else {
                        ww++;
                }
        }
}

/* where to cut a run of n bytes that is wider than w columns: after a punctuation mark in
 * its second half ("(", ",", "_", "/", ".", ":", "-", ";"), else at w columns */
static size_t cut_word(const char *s, size_t n, size_t w)
{
        size_t hard = dbytes(s, n, w);
        for (size_t i = hard; i > hard / 2 && i > 1; i--)
                if (strchr("(,_/.:-;<", s[i - 1]))
                        return i;
        return hard ? hard : 1;
}

/* one line of text (n bytes, no '\n') wrapped to w columns, appended to sb */
static void wrap_line(struct strbuf *sb, const char *s, size_t n, size_t w)
{
        size_t i = 0;
        int first = 1;
        while (i < n || first) {
                if (!first)
                        sb_addc(sb, '\n');
                first = 0;
                while (i < n && s[i] == ' ' && i) /* spaces at a break are dropped */
                        i++;
                size_t rest = n - i;
                if (dwidth(s + i, rest) <= w) {
                        sb_addn(sb, s + i, rest);
                        return;
                }
                /* the last space that leaves at most w columns */
                size_t fit = dbytes(s + i, rest, w), brk = 0;
                for (size_t k = fit; k > 0; k--)
                        if (s[i + k] == ' ') {
                                brk = k;
                                break;
                        }
                if (!brk) /* a word wider than the column */
                        brk = cut_word(s + i, rest, w);
                size_t end = brk;
                while (end > 0 && s[i + end - 1] == ' ')
                        end--;
                sb_addn(sb, s + i, end ? end : brk);
                i += brk;
        }
}

static char *wrap_cell(const char *s, size_t w)
{
        struct strbuf sb = {0};
        for (;;) {
                const char *e = strchr(s, '\n');
                size_t n = e ? (size_t)(e - s) : strlen(s);
                wrap_line(&sb, s, n, w);
                if (!e)
                        break;
                sb_addc(&sb, '\n');
                s = e + 1;
        }
        return sb_detach(&sb);
}

/* the widths of the columns with nat[c] natural widths and fl[c] floors, at most avail in
 * all: every column min(nat, max(cap, floor)) for the largest cap that fits, the columns
 * left over widened by one from the left. 0 when even the floors do not fit. */
static int water_fill(const size_t *nat, const size_t *fl, size_t n, size_t avail, size_t *out)
{
        size_t sum = 0, top = 0;
        for (size_t c = 0; c < n; c++) {
                sum += nat[c] < fl[c] ? nat[c] : fl[c];
                if (nat[c] > top)
                        top = nat[c];
        }
        if (sum > avail)
                return 0;
        size_t lo = 0, hi = top; /* the largest cap whose total fits */
        while (lo < hi) {
                size_t mid = (lo + hi + 1) / 2, t = 0;
                for (size_t c = 0; c < n; c++) {
                        size_t x = mid > fl[c] ? mid : fl[c];
                        t += x < nat[c] ? x : nat[c];
                }
                if (t <= avail)
                        lo = mid;
                else
                        hi = mid - 1;
        }
        size_t used = 0;
        for (size_t c = 0; c < n; c++) {
                size_t x = lo > fl[c] ? lo : fl[c];
                out[c] = x < nat[c] ? x : nat[c];
                used += out[c];
        }
        for (size_t c = 0; c < n && used < avail; c++)
                if (out[c] < nat[c]) {
                        out[c]++;
                        used++;
                }
        return 1;
}

/* the widths for avail columns in all, each at least min(nat, fl): what is left over goes to
 * the columns in proportion to the text they hold (area: their cells' widths summed), none
 * beyond its natural width, so that the columns with the most text wrap least. 0 when the
 * floors do not fit. */
static int share_fill(const size_t *nat, const size_t *fl, const double *area, size_t n,
                      size_t avail, size_t *out)
{
        size_t used = 0;
        for (size_t c = 0; c < n; c++) {
                out[c] = nat[c] < fl[c] ? nat[c] : fl[c];
                used += out[c];
        }
        if (used > avail)
                return 0;
        for (int round = 0; round < 64 && used < avail; round++) {
                double total = 0;
                for (size_t c = 0; c < n; c++)
                        if (out[c] < nat[c])
                                total += area[c] > 0 ? area[c] : 1;
                if (total <= 0)
                        break;
                size_t rem = avail - used, gave = 0;
                for (size_t c = 0; c < n; c++) {
                        if (out[c] >= nat[c])
                                continue;
                        size_t g = (size_t)((double)rem * (area[c] > 0 ? area[c] : 1) / total);
                        if (g > nat[c] - out[c])
                                g = nat[c] - out[c];
                        out[c] += g;
                        gave += g;
                }
                used += gave;
                if (!gave) { /* what rounding left: one each to the widest texts */
                        for (size_t c = 0; c < n && used < avail; c++)
                                if (out[c] < nat[c]) {
                                        out[c]++;
                                        used++;
                                }
                }
        }
        return 1;
}

char **render_grid_fit(char **cells, size_t nrows, size_t ncols, const char *align,
                       size_t width)
{
        if (!width || !ncols)
                return NULL;
        size_t *nat = xcalloc(4 * ncols, sizeof *nat), *fl = nat + ncols, *word = fl + ncols,
               *out = word + ncols;
        double *area = xcalloc(ncols, sizeof *area);
        for (size_t i = 0; i < nrows * ncols; i++) {
                size_t c = i % ncols, lw, ww;
                measure(cells[i], &lw, &ww);
                if (lw > nat[c])
                        nat[c] = lw;
                if (i >= ncols)
                        area[c] += (double)strlen(cells[i]);
                /* numbers (right-aligned body cells) are not broken; headers at spaces */
                size_t keep = i < ncols ? ww : align[c] == 'r' ? lw : 0;
                if (keep > word[c])
                        word[c] = keep;
        }
        size_t need = 1 + 3 * ncols;
        for (size_t c = 0; c < ncols; c++)
                need += nat[c];
        char **res = NULL;
        if (need <= width)
                goto done;
        size_t avail = width > 1 + 3 * ncols ? width - 1 - 3 * ncols : ncols;
        /* text columns keep at least 12 columns (or their whole width), numbers their own;
         * where even that is too wide, every column may be cut down to one */
        /* numbers and their headers whole where that fits, else words whole */
        for (size_t c = 0; c < ncols; c++)
                fl[c] = align[c] == 'r' ? nat[c] : word[c] > 12 ? word[c] : 12;
        int ok = share_fill(nat, fl, area, ncols, avail, out);
        for (size_t c = 0; c < ncols && !ok; c++)
                fl[c] = word[c] > 12 ? word[c] : 12;
        if (!ok && !share_fill(nat, fl, area, ncols, avail, out)) {
                for (size_t c = 0; c < ncols; c++)
                        fl[c] = word[c] < 12 ? word[c] : 12;
                if (!water_fill(nat, fl, ncols, avail, out)) {
                        for (size_t c = 0; c < ncols; c++)
                                fl[c] = 1;
                        if (!water_fill(nat, fl, ncols, avail < ncols ? ncols : avail, out))
                                goto done;
                }
        }
        res = xcalloc(nrows * ncols + 1, sizeof *res);
        for (size_t i = 0; i < nrows * ncols; i++) {
                size_t c = i % ncols, lw, ww;
                measure(cells[i], &lw, &ww);
                res[i] = lw <= out[c] ? xstrdup(cells[i]) : wrap_cell(cells[i], out[c]);
        }
done:
        free(nat);
        free(area);
        return res;
}

/* A table too wide for its columns to stay readable, one record a row: its key, then each
 * column's header beside the row's cell (wrapped to what is left of width). */
static char **stack(char **cells, size_t nrows, size_t ncols, size_t width)
{
        size_t kw = 0, fw = 0, lw, ww;
        for (size_t r = 0; r < nrows; r++) {
                measure(cells[r * ncols], &lw, &ww);
                kw = lw > kw ? lw : kw;
        }
        for (size_t c = 1; c < ncols; c++) {
                measure(cells[c], &lw, &ww);
                fw = lw > fw ? lw : fw;
        }
        size_t used = 1 + 9 + kw + fw, vw = width > used + 12 ? width - used : 12;
        char **res = xcalloc(nrows * 3 + 1, sizeof *res);
        res[0] = xstrdup(cells[0]);
        res[1] = xstrdup("Field");
        res[2] = xstrdup("Value");
        for (size_t r = 1; r < nrows; r++) {
                struct strbuf f = {0}, v = {0};
                for (size_t c = 1; c < ncols; c++) {
                        char *val = wrap_cell(cells[r * ncols + c], vw);
                        if (c > 1) {
                                sb_addc(&f, '\n');
                                sb_addc(&v, '\n');
                        }
                        for (const char *h = cells[c]; *h; h++) /* one line */
                                sb_addc(&f, *h == '\n' ? ' ' : *h);
                        for (const char *x = val; *x; x++)
                                if (*x == '\n')
                                        sb_addc(&f, '\n');
                        sb_add(&v, val);
                        free(val);
                }
                res[r * 3] = xstrdup(cells[r * ncols]);
                res[r * 3 + 1] = sb_detach(&f);
                res[r * 3 + 2] = sb_detach(&v);
        }
        return res;
}

/* 1 when the table fits width with its text columns at least 12 wide and no word broken */
static int fits_readably(char **cells, size_t nrows, size_t ncols, const char *align,
                         size_t width)
{
        size_t *nat = xcalloc(3 * ncols, sizeof *nat), *fl = nat + ncols, *out = fl + ncols;
        for (size_t i = 0; i < nrows * ncols; i++) {
                size_t c = i % ncols, lw, ww;
                measure(cells[i], &lw, &ww);
                nat[c] = lw > nat[c] ? lw : nat[c];
                size_t keep = i < ncols ? ww : align[c] == 'r' ? lw : ww;
                keep = keep > 12 ? keep : 12;
                fl[c] = keep > fl[c] ? keep : fl[c];
        }
        int ok = width > 1 + 3 * ncols &&
                 water_fill(nat, fl, ncols, width - 1 - 3 * ncols, out);
        free(nat);
        return ok;
}

char **render_grid_layout(char **cells, size_t nrows, size_t ncols, const char *align,
                          size_t width, size_t *out_ncols)
{
        *out_ncols = ncols;
        char **fit = render_grid_fit(cells, nrows, ncols, align, width);
        if (!fit || ncols < 3 || nrows < 2 || fits_readably(cells, nrows, ncols, align, width))
                return fit;
        for (size_t i = 0; i < nrows * ncols; i++)
                free(fit[i]);
        free(fit);
        char **st = stack(cells, nrows, ncols, width);
        *out_ncols = 3;
        fit = render_grid_fit(st, nrows, 3, "lll", width);
        if (!fit)
                return st;
        for (size_t i = 0; i < nrows * 3; i++)
                free(st[i]);
        free(st);
        return fit;
}
