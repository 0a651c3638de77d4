/* The roofline plot in the terminal: braille dots for the roofs, a letter per memory level
 * for each kernel's points, the ceilings named in the right margin, and below the plot the
 * legend, the ceilings' values and the kernels that cannot be placed. */
#include "roofplot_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dots {
        int w, h;          /* in dots (2 x 4 per cell) */
        unsigned char *on; /* w * h */
        unsigned char *st; /* style of each dot */
};

static void dot(struct dots *d, int x, int y, int style)
{
        if (x < 0 || y < 0 || x >= d->w || y >= d->h)
                return;
        d->on[y * d->w + x] = 1;
        d->st[y * d->w + x] = (unsigned char)style;
}

static void dot_line(struct dots *d, int x0, int y0, int x1, int y1, int style)
{
        int dx = abs(x1 - x0), dy = -abs(y1 - y0);
        int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1, e = dx + dy;
        for (;;) {
                dot(d, x0, y0, style);
                if (x0 == x1 && y0 == y1)
                        break;
                int e2 = 2 * e;
                if (e2 >= dy) {
                        e += dy;
                        x0 += sx;
                }
                if (e2 <= dx) {
                        e += dx;
                        y0 += sy;
                }
        }
}

struct plot {
        struct roof_axes ax;
        int x0, y0, w, h; /* plot area on the canvas, in cells */
};

static double px_of(const struct plot *p, double v, int dots)
{
        return (log10(v) - p->ax.lx0) / (p->ax.lx1 - p->ax.lx0) * (dots - 1);
}

static double py_of(const struct plot *p, double v, int dots)
{
        return (p->ax.ly1 - log10(v)) / (p->ax.ly1 - p->ax.ly0) * (dots - 1);
}

/* braille: dot (dx, dy) of a cell -> bit */
static unsigned braille_bit(int dx, int dy)
{
        static const unsigned bits[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
        return bits[dy][dx];
}

static void draw_axes(struct canvas *cv, const struct plot *p)
{
        char buf[32];
        for (int y = 0; y < p->h; y++)
                canvas_put(cv, p->x0 - 1, p->y0 + y, CV_V, CV_PLAIN);
        canvas_put(cv, p->x0 - 1, p->y0 + p->h, CV_BL, CV_PLAIN);
        for (int x = 0; x < p->w; x++)
                canvas_put(cv, p->x0 + x, p->y0 + p->h, CV_H, CV_PLAIN);
        /* y ticks at decades: GFLOP/s shown as FLOP/s with SI prefixes */
        for (int e = (int)p->ax.ly0; e <= (int)p->ax.ly1; e++) {
                int row = (int)lround(py_of(p, pow(10, e), p->h * 4) / 4.0 - 0.375);
                row = row < 0 ? 0 : row >= p->h ? p->h - 1 : row;
                canvas_put(cv, p->x0 - 1, p->y0 + row, CV_RT, CV_PLAIN);
                roof_si(pow(10, e) * 1e9, buf, sizeof buf);
                canvas_text(cv, p->x0 - 2 - u8_width(buf), p->y0 + row, buf, CV_PLAIN);
        }
        /* x ticks at decades */
        for (int e = (int)p->ax.lx0; e <= (int)p->ax.lx1; e++) {
                int col = (int)lround(px_of(p, pow(10, e), p->w * 2) / 2.0 - 0.25);
                col = col < 0 ? 0 : col >= p->w ? p->w - 1 : col;
                canvas_put(cv, p->x0 + col, p->y0 + p->h, CV_TT, CV_PLAIN);
                roof_decade(e, buf, sizeof buf);
                int n = u8_width(buf), lx = p->x0 + col - n / 2;
                canvas_text(cv, lx, p->y0 + p->h + 1, buf, CV_PLAIN);
        }
}

void roofplot_draw(struct canvas *cv, const struct roofline *r, int width)
{
        if (width <= 0)
                width = 120;
        if (width < 60)
                width = 60;
        struct plot p;
        roofplot_axes(r, &p.ax);
        /* the compute ceilings' rows decide the label margin */
        const int left = 8;
        p.h = width >= 100 ? 22 : 18;
        int crow[ROOF_MAX_CEILINGS];
        for (int d = 0; d < NCEIL(r); d++)
                crow[d] =
                    roof_usable(r->c.peak[d]) ? (int)lround(py_of(&p, r->c.peak[d], p.h * 4)) / 4 : -1;
        int margin = 0;
        char names[128];
        for (int d = 0; d < NCEIL(r); d++) {
                if (crow[d] < 0)
                        continue;
                roof_ceiling_names(r, crow, crow[d], names, sizeof names);
                int n = u8_width(names);
                margin = n > margin ? n : margin;
        }
        p.x0 = left;
        p.y0 = 1;
        p.w = width - left - margin - 2;
        if (p.w < 30)
                p.w = 30;
        canvas_init(cv, width + 40, p.h + 8 + (int)r->npts + 8);

        /* dots: memory roofs up to the highest compute roof, compute roofs from the highest
         * bandwidth's ridge to the right edge */
        struct dots d = {p.w * 2, p.h * 4, NULL, NULL};
        d.on = xcalloc((size_t)d.w * d.h, 1);
        d.st = xcalloc((size_t)d.w * d.h, 1);
        double xl = pow(10, p.ax.lx0), xr = pow(10, p.ax.lx1);
        for (int l = 0; l < NLEVELS(r); l++) {
                if (!roof_shown(r, l) || !roof_usable(r->c.bw[l]))
                        continue;
                double bw = r->c.bw[l];
                double x1 = roof_level_end(r, l, xr);
                x1 = x1 > xr ? xr : x1;
                dot_line(&d, (int)lround(px_of(&p, xl, d.w)), (int)lround(py_of(&p, bw * xl, d.h)),
                         (int)lround(px_of(&p, x1, d.w)), (int)lround(py_of(&p, bw * x1, d.h)),
                         level_style(l));
        }
        for (int k = 0; k < NCEIL(r); k++) {
                if (!roof_usable(r->c.peak[k]))
                        continue;
                int y = (int)lround(py_of(&p, r->c.peak[k], d.h));
                dot_line(&d, (int)lround(px_of(&p, roof_ceiling_start(r, k, xl), d.w)), y,
                         d.w - 1, y, CV_DIM);
        }
        for (int cy = 0; cy < p.h; cy++)
                for (int cx = 0; cx < p.w; cx++) {
                        unsigned bits = 0;
                        int style = CV_PLAIN;
                        for (int j = 0; j < 4; j++)
                                for (int i = 0; i < 2; i++) {
                                        size_t k = (size_t)(cy * 4 + j) * d.w + cx * 2 + i;
                                        if (d.on[k]) {
                                                bits |= braille_bit(i, j);
                                                if (style == CV_PLAIN || style == CV_DIM)
                                                        style = d.st[k];
                                        }
                                }
                        if (bits)
                                canvas_put(cv, p.x0 + cx, p.y0 + cy, 0x2800 + bits, style);
                }
        free(d.on);
        free(d.st);
        draw_axes(cv, &p);

        /* labels: memory roofs where they enter the plot, compute roofs in the margin */
        for (int l = 0; l < NLEVELS(r); l++) {
                if (!roof_shown(r, l) || !roof_usable(r->c.bw[l]))
                        continue;
                int row = (int)floor(py_of(&p, r->c.bw[l] * xl, p.h * 4) / 4.0) - 1;
                if (row < 0 || row >= p.h)
                        continue;
                canvas_text(cv, p.x0 + 1, p.y0 + row, LEVEL(r, l)->name, level_style(l));
        }
        for (int k = 0; k < NCEIL(r); k++) {
                if (crow[k] < 0 || crow[k] >= p.h)
                        continue;
                int first = 1;
                for (int j = 0; j < k; j++)
                        first &= crow[j] != crow[k];
                if (!first)
                        continue;
                roof_ceiling_names(r, crow, crow[k], names, sizeof names);
                canvas_text(cv, p.x0 + p.w + 1, p.y0 + crow[k], names, CV_DIM);
        }

        /* points: a letter per level at (intensity, performance); the kernel's tag after the
         * rightmost of its points */
        for (size_t i = 0; i < r->npts; i++) {
                const struct roof_point *pt = &r->pts[i];
                if (!roof_usable(pt->perf))
                        continue;
                int row = (int)lround(py_of(&p, pt->perf, p.h * 4)) / 4, right = -1;
                for (int l = 0; l < NLEVELS(r); l++) {
                        if (!roof_shown(r, l) || !roof_usable(pt->ai[l]))
                                continue;
                        int col = (int)lround(px_of(&p, pt->ai[l], p.w * 2)) / 2;
                        char m[2] = {LEVEL(r, l)->mark, 0};
                        canvas_text(cv, p.x0 + col, p.y0 + row, m, level_style(l));
                        right = col > right ? col : right;
                }
                if (right >= 0) {
                        char tag[32];
                        snprintf(tag, sizeof tag, "k%zu", i);
                        int tx = p.x0 + right + 2;
                        if (tx + u8_width(tag) > p.x0 + p.w)
                                tx = p.x0 + right - 1 - u8_width(tag);
                        canvas_text(cv, tx, p.y0 + row, tag, CV_TITLE);
                }
        }

        /* captions */
        int y = p.y0 + p.h + 2;
        canvas_text(cv, 0, 0, "FLOP/s", CV_PLAIN);
        const char *xt = "arithmetic intensity (FLOP/byte)";
        canvas_text(cv, p.x0 + p.w - u8_width(xt), y++, xt, CV_PLAIN);
        struct strbuf sb = {0};
        const char *pts_id = r->points_id;
        sb_add(&sb, "points:");
        for (int l = 0; l < NLEVELS(r); l++)
                if (roof_shown(r, l))
                        sb_addf(&sb, " %c %s,", LEVEL(r, l)->mark, LEVEL(r, l)->name);
        sb.buf[--sb.len] = 0;
        sb_addf(&sb, "; kN: row N of %s%s", pts_id ? "table " : "",
                pts_id ? pts_id : "the plot points");
        canvas_text(cv, 0, y++, sb.buf, CV_PLAIN);
        /* the ceilings' values, wrapped to the width */
        sb_reset(&sb);
        char v[32], item[96];
        if (r->c.device >= 0)
                sb_addf(&sb, "ceilings (device %ld):", r->c.device);
        else
                sb_addf(&sb, "ceilings (mean of %zu device%s):", r->c.ndevices,
                        r->c.ndevices == 1 ? "" : "s");
        int first = 1;
        for (int k = 0; k < NLEVELS(r) + NCEIL(r); k++) {
                if (k < NLEVELS(r)) {
                        if (!roof_shown(r, k) || !roof_usable(r->c.bw[k]))
                                continue;
                        snprintf(item, sizeof item, "%s %s", LEVEL(r, k)->name,
                                 roof_si_unit(r->c.bw[k] * 1e9, "B/s", v, sizeof v));
                } else {
                        const struct roof_ceiling_def *dt = CEIL(r, k - NLEVELS(r));
                        double pk = r->c.peak[k - NLEVELS(r)];
                        if (!roof_usable(pk))
                                continue;
                        snprintf(item, sizeof item, "%s %s", dt->name,
                                 roof_si_unit(pk * 1e9, dt->integer ? "OP/s" : "FLOP/s", v, sizeof v));
                }
                if (!first)
                        sb_addc(&sb, ',');
                if ((int)(sb.len + strlen(item) + 2) > width) {
                        canvas_text(cv, 0, y++, sb.buf, CV_PLAIN);
                        sb_reset(&sb);
                        sb_add(&sb, " ");
                }
                sb_addf(&sb, " %s", item);
                first = 0;
        }
        canvas_text(cv, 0, y++, sb.buf, CV_PLAIN);
        /* kernels that cannot be placed on log axes */
        for (size_t i = 0; i < r->npts; i++) {
                const struct roof_point *pt = &r->pts[i];
                int any = 0;
                for (int l = 0; l < NLEVELS(r); l++)
                        any |= roof_shown(r, l) && roof_usable(pt->ai[l]);
                if (roof_usable(pt->perf) && any)
                        continue;
                const char *why = pt->flops == 0      ? "no floating-point operations"
                                  : !roof_usable(pt->perf) ? "no FLOP rate (FLOPs or duration n/a)"
                                                      : "no byte count at the levels shown";
                sb_reset(&sb);
                sb_addf(&sb, "not plotted: k%zu ", i);
                size_t n0 = sb.len;
                sb_add(&sb, pt->name);
                if (!isnan(pt->dispatch_id))
                        sb_addf(&sb, " [dispatch %.0f]", pt->dispatch_id);
                /* the name shortened so that the line fits the width */
                int room = width - (int)n0 - 2 - (int)strlen(why);
                if (room < 20)
                        room = 20;
                if (u8_width(sb.buf + n0) > room) {
                        sb.len = n0 + (size_t)room - 3;
                        while (sb.len > n0 && ((unsigned char)sb.buf[sb.len] & 0xC0) == 0x80)
                                sb.len--; /* not inside a UTF-8 sequence */
                        sb.buf[sb.len] = 0;
                        sb_add(&sb, "...");
                }
                sb_addf(&sb, ": %s", why);
                canvas_text(cv, 0, y++, sb.buf, CV_PLAIN);
        }
        sb_free(&sb);
}

void roofplot_text(FILE *f, const struct roofline *r, int width)
{
        if (!r->c.have) {
                if (r->note)
                        fprintf(f, "%s\n", r->note);
                return;
        }
        struct canvas cv;
        roofplot_draw(&cv, r, width);
        fprintf(f, "Roofline (%s)\n", r->by_dispatch ? "top dispatches" : "top kernels");
        canvas_print(&cv, f);
        canvas_free(&cv);
}

