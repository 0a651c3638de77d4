/* render_grid: a grid of text cells drawn with box-drawing characters, each column as wide
 * as its widest line (fitting a grid into a width: fit.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

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
