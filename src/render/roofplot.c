/* The roofline plot in the terminal (braille dots for the ceilings, letters for the
 * kernels' points) and as SVG. Both take their geometry from the same axes and ceilings. */
#include "roofplot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

/* rocprof-compute's intensity range, widened when a point falls outside */
#define AI_MIN 0.01
#define AI_MAX 1000.0

/* the memory levels' styles and colours, by their place in the family's order */
static const int styles[] = {CV_S1, CV_S2, CV_S3, CV_S4};
static const char *const colors[] = {"#c0392b", "#1f6fb5", "#1e8449", "#8e44ad"};
#define NSTYLES (int)(sizeof styles / sizeof *styles)
#define level_style(l) styles[(l) % NSTYLES]
#define level_color(l) colors[(l) % NSTYLES]
#define NLEVELS(r) ((int)(r)->spec->nlevels)
#define NCEIL(r) ((int)(r)->spec->nceilings)
#define CEIL(r, k) (&(r)->spec->ceilings[k])
#define LEVEL(r, l) (&(r)->spec->levels[l])

const char *roof_si(double v, char *buf, size_t len)
{
        static const char *const sfx[] = {"", "k", "M", "G", "T", "P", "E"};
        if (!isfinite(v)) {
                snprintf(buf, len, "%s", isnan(v) ? "n/a" : v > 0 ? "inf" : "-inf");
                return buf;
        }
        int k = 0;
        double a = fabs(v);
        while (a >= 999.5 && k < 6) {
                a /= 1000;
                v /= 1000;
                k++;
        }
        snprintf(buf, len, "%.3g%s", v, sfx[k]);
        return buf;
}

/* "1.39 TB/s": 3 significant digits, an SI prefix, the unit */
static const char *si_unit(double v, const char *unit, char *buf, size_t len)
{
        static const char *const sfx[] = {"", "k", "M", "G", "T", "P", "E"};
        int k = 0;
        while (isfinite(v) && fabs(v) >= 999.5 && k < 6) {
                v /= 1000;
                k++;
        }
        snprintf(buf, len, "%.3g %s%s", v, sfx[k], unit);
        return buf;
}

static int shown(const struct roofline *r, int l)
{
        return (r->levels >> l) & 1;
}

static int usable(double v)
{
        return isfinite(v) && v > 0;
}

/* the highest measured compute ceiling and the highest bandwidth of the levels shown */
static double top_peak(const struct roofline *r)
{
        double m = NAN;
        for (int d = 0; d < NCEIL(r); d++)
                if (usable(r->c.peak[d]) && !(r->c.peak[d] <= m))
                        m = r->c.peak[d];
        return m;
}

static double top_bw(const struct roofline *r)
{
        double m = NAN;
        for (int l = 0; l < NLEVELS(r); l++)
                if (shown(r, l) && usable(r->c.bw[l]) && !(r->c.bw[l] <= m))
                        m = r->c.bw[l];
        return m;
}

void roofplot_axes(const struct roofline *r, struct roof_axes *ax)
{
        double xmin = AI_MIN, xmax = AI_MAX, ymin = INFINITY, ymax = -INFINITY;
        for (int l = 0; l < NLEVELS(r); l++)
                if (shown(r, l) && usable(r->c.bw[l]) && r->c.bw[l] * AI_MIN < ymin)
                        ymin = r->c.bw[l] * AI_MIN;
        double tp = top_peak(r);
        if (usable(tp))
                ymax = tp;
        for (size_t i = 0; i < r->npts; i++) {
                const struct roof_point *p = &r->pts[i];
                if (!usable(p->perf))
                        continue;
                ymin = p->perf < ymin ? p->perf : ymin;
                ymax = p->perf > ymax ? p->perf : ymax;
                for (int l = 0; l < NLEVELS(r); l++) {
                        if (!shown(r, l) || !usable(p->ai[l]))
                                continue;
                        xmin = p->ai[l] < xmin ? p->ai[l] : xmin;
                        xmax = p->ai[l] > xmax ? p->ai[l] : xmax;
                }
        }
        if (!isfinite(ymin) || !isfinite(ymax)) {
                ymin = 1;
                ymax = 1e6;
        }
        ax->lx0 = floor(log10(xmin) + 1e-9);
        ax->lx1 = ceil(log10(xmax) - 1e-9);
        ax->ly0 = floor(log10(ymin) + 1e-9);
        ax->ly1 = ceil(log10(ymax) - 1e-9);
        /* room above the highest roof for its label */
        if (log10(ymax) > ax->ly1 - 0.25)
                ax->ly1 += 1;
        if (ax->ly1 - ax->ly0 < 2)
                ax->ly0 = ax->ly1 - 2;
}

/* ---- the terminal plot ---- */

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

static void ceiling_names(const struct roofline *r, const int *row, int target, char *buf,
                          size_t len)
{
        /* the compute ceilings that fall on one text row, as "<unit> BF16/FP16/I8": vector
         * ceilings first, then matrix ones */
        buf[0] = 0;
        for (int k = 0; k < 2; k++) {
                const char *unit = NULL; /* of the ceiling before, in this kind */
                for (int d = 0; d < NCEIL(r); d++) {
                        if (row[d] != target || CEIL(r, d)->matrix != k)
                                continue;
                        size_t n = strlen(buf);
                        int same = unit && !strcmp(unit, CEIL(r, d)->unit);
                        snprintf(buf + n, len - n, "%s%s", same ? "/" : (n ? ", " : ""),
                                 same ? CEIL(r, d)->type : CEIL(r, d)->name);
                        unit = CEIL(r, d)->unit;
                }
        }
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
                if (e < 0)
                        snprintf(buf, sizeof buf, "%.*f", -e, pow(10, e));
                else
                        snprintf(buf, sizeof buf, "%.0f", pow(10, e));
                int n = u8_width(buf), lx = p->x0 + col - n / 2;
                canvas_text(cv, lx, p->y0 + p->h + 1, buf, CV_PLAIN);
        }
}

/* where the memory roof of a level ends: on the highest compute roof */
static double ridge(const struct roofline *r, int l)
{
        return top_peak(r) / r->c.bw[l];
}

static void point_tag(const struct roofline *r, size_t i, char *buf, size_t len)
{
        (void)r;
        snprintf(buf, len, "k%zu", i);
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
                    usable(r->c.peak[d]) ? (int)lround(py_of(&p, r->c.peak[d], p.h * 4)) / 4 : -1;
        int margin = 0;
        char names[128];
        for (int d = 0; d < NCEIL(r); d++) {
                if (crow[d] < 0)
                        continue;
                ceiling_names(r, crow, crow[d], names, sizeof names);
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
        double tp = top_peak(r), tb = top_bw(r);
        double xl = pow(10, p.ax.lx0), xr = pow(10, p.ax.lx1);
        for (int l = 0; l < NLEVELS(r); l++) {
                if (!shown(r, l) || !usable(r->c.bw[l]))
                        continue;
                double bw = r->c.bw[l];
                double x1 = usable(tp) ? ridge(r, l) : xr;
                x1 = x1 > xr ? xr : x1;
                dot_line(&d, (int)lround(px_of(&p, xl, d.w)), (int)lround(py_of(&p, bw * xl, d.h)),
                         (int)lround(px_of(&p, x1, d.w)), (int)lround(py_of(&p, bw * x1, d.h)),
                         level_style(l));
        }
        for (int k = 0; k < NCEIL(r); k++) {
                if (!usable(r->c.peak[k]))
                        continue;
                double x0 = usable(tb) ? r->c.peak[k] / tb : xl;
                int y = (int)lround(py_of(&p, r->c.peak[k], d.h));
                dot_line(&d, (int)lround(px_of(&p, x0 < xl ? xl : x0, d.w)), y, d.w - 1, y, CV_DIM);
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
                if (!shown(r, l) || !usable(r->c.bw[l]))
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
                ceiling_names(r, crow, crow[k], names, sizeof names);
                canvas_text(cv, p.x0 + p.w + 1, p.y0 + crow[k], names, CV_DIM);
        }

        /* points: a letter per level at (intensity, performance); the kernel's tag after the
         * rightmost of its points */
        for (size_t i = 0; i < r->npts; i++) {
                const struct roof_point *pt = &r->pts[i];
                if (!usable(pt->perf))
                        continue;
                int row = (int)lround(py_of(&p, pt->perf, p.h * 4)) / 4, right = -1;
                for (int l = 0; l < NLEVELS(r); l++) {
                        if (!shown(r, l) || !usable(pt->ai[l]))
                                continue;
                        int col = (int)lround(px_of(&p, pt->ai[l], p.w * 2)) / 2;
                        char m[2] = {LEVEL(r, l)->mark, 0};
                        canvas_text(cv, p.x0 + col, p.y0 + row, m, level_style(l));
                        right = col > right ? col : right;
                }
                if (right >= 0) {
                        char tag[32];
                        point_tag(r, i, tag, sizeof tag);
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
                if (shown(r, l))
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
                        if (!shown(r, k) || !usable(r->c.bw[k]))
                                continue;
                        snprintf(item, sizeof item, "%s %s", LEVEL(r, k)->name,
                                 si_unit(r->c.bw[k] * 1e9, "B/s", v, sizeof v));
                } else {
                        const struct roof_ceiling_def *dt = CEIL(r, k - NLEVELS(r));
                        double pk = r->c.peak[k - NLEVELS(r)];
                        if (!usable(pk))
                                continue;
                        snprintf(item, sizeof item, "%s %s", dt->name,
                                 si_unit(pk * 1e9, dt->integer ? "OP/s" : "FLOP/s", v, sizeof v));
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
                        any |= shown(r, l) && usable(pt->ai[l]);
                if (usable(pt->perf) && any)
                        continue;
                const char *why = pt->flops == 0      ? "no floating-point operations"
                                  : !usable(pt->perf) ? "no FLOP rate (FLOPs or duration n/a)"
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

/* ---- SVG ---- */

struct sv {
        struct roof_axes ax;
        double x0, y0, w, h; /* plot area, pixels */
};

static double sx(const struct sv *s, double v)
{
        return s->x0 + (log10(v) - s->ax.lx0) / (s->ax.lx1 - s->ax.lx0) * s->w;
}

static double sy(const struct sv *s, double v)
{
        return s->y0 + (s->ax.ly1 - log10(v)) / (s->ax.ly1 - s->ax.ly0) * s->h;
}

/* a marker's half size: the largest shape (the diamond) reaches 1.3 r */
#define MARK_R 6.5

static void marker(struct strbuf *sb, int shape, double x, double y, const char *color)
{
        const double r = 5;
        switch (shape % 5) {
        case 0:
                sb_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>\n", x, y, r,
                        color);
                break;
        case 1:
                sb_addf(sb,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                        "fill=\"%s\"/>\n",
                        x - r, y - r, 2 * r, 2 * r, color);
                break;
        case 2:
                sb_addf(sb, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\"/>\n", x,
                        y - r * 1.2, x + r * 1.1, y + r * 0.8, x - r * 1.1, y + r * 0.8, color);
                break;
        case 3:
                sb_addf(sb, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\"/>\n",
                        x, y - r * 1.3, x + r * 1.3, y, x, y + r * 1.3, x - r * 1.3, y, color);
                break;
        default:
                sb_addf(sb,
                        "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke=\"%s\" "
                        "stroke-width=\"2.5\"/>\n",
                        x - r, y - r, x + r, y + r, x - r, y + r, x + r, y - r, color);
                break;
        }
}

int roofplot_svg(const char *path, const struct roofline *r, struct err *err)
{
        if (!r->c.have)
                return err_set(err, ERR_INPUT, "no roofline ceilings to plot");
        struct sv s;
        roofplot_axes(r, &s.ax);
        const double W = 1060, H = 640;
        s.x0 = 90;
        s.y0 = 40;
        s.w = 620;
        s.h = 500;
        struct strbuf sb = {0};
        char buf[160], v[32];
        svg_begin(&sb, W, H + 22.0 * (double)(r->npts ? r->npts : 1), 13);
        if (r->c.device >= 0)
                snprintf(buf, sizeof buf, "Empirical roofline: top %s (ceilings of device %ld)",
                         r->by_dispatch ? "dispatches" : "kernels", r->c.device);
        else
                snprintf(buf, sizeof buf,
                         "Empirical roofline: top %s (ceilings: mean of %zu device%s)",
                         r->by_dispatch ? "dispatches" : "kernels", r->c.ndevices,
                         r->c.ndevices == 1 ? "" : "s");
        svg_text(&sb, s.x0, 24, "start", "font-size=\"16\" font-weight=\"bold\"", buf);
        /* grid and ticks */
        sb_add(&sb, "<g stroke=\"#e3e3e3\" stroke-width=\"1\">\n");
        for (int e = (int)s.ax.lx0; e <= (int)s.ax.lx1; e++)
                sb_addf(&sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                        sx(&s, pow(10, e)), s.y0, sx(&s, pow(10, e)), s.y0 + s.h);
        for (int e = (int)s.ax.ly0; e <= (int)s.ax.ly1; e++)
                sb_addf(&sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", s.x0,
                        sy(&s, pow(10, e)), s.x0 + s.w, sy(&s, pow(10, e)));
        sb_add(&sb, "</g>\n");
        sb_addf(&sb,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                "stroke=\"#333333\"/>\n",
                s.x0, s.y0, s.w, s.h);
        /* tick labels that would touch their neighbours: "1eN", then every k-th decade */
        int nx = (int)s.ax.lx1 - (int)s.ax.lx0, ny = (int)s.ax.ly1 - (int)s.ax.ly0;
        double dx = nx > 0 ? s.w * (1.0 / (s.ax.lx1 - s.ax.lx0)) : s.w, widest = 0;
        int sci = 0;
        for (int e = (int)s.ax.lx0; e <= (int)s.ax.lx1; e++) {
                double tw = SVG_CHAR_W * (e < 0 ? 2 - e : e + 1);
                widest = tw > widest ? tw : widest;
        }
        if (widest + 8 > dx) {
                sci = 1;
                widest = SVG_CHAR_W * 4;
        }
        int xstep = 1;
        while (xstep * dx < widest + 8)
                xstep++;
        for (int e = (int)s.ax.lx0; e <= (int)s.ax.lx1; e++) {
                if ((e - (int)s.ax.lx0) % xstep)
                        continue;
                if (sci)
                        snprintf(buf, sizeof buf, "1e%d", e);
                else if (e < 0)
                        snprintf(buf, sizeof buf, "%.*f", -e, pow(10, e));
                else
                        snprintf(buf, sizeof buf, "%.0f", pow(10, e));
                svg_text(&sb, sx(&s, pow(10, e)), s.y0 + s.h + 18, "middle", NULL, buf);
        }
        double dy = ny > 0 ? s.h * (1.0 / (s.ax.ly1 - s.ax.ly0)) : s.h;
        int ystep = 1;
        while (ystep * dy < 16)
                ystep++;
        for (int e = (int)s.ax.ly0; e <= (int)s.ax.ly1; e++) {
                if ((e - (int)s.ax.ly0) % ystep)
                        continue;
                roof_si(pow(10, e) * 1e9, buf, sizeof buf);
                svg_text(&sb, s.x0 - 8, sy(&s, pow(10, e)) + 4, "end", NULL, buf);
        }
        svg_text(&sb, s.x0 + s.w / 2, s.y0 + s.h + 40, "middle", NULL,
                 "Arithmetic intensity (FLOP/byte)");
        sb_addf(&sb,
                "<text x=\"22\" y=\"%.1f\" text-anchor=\"middle\" "
                "transform=\"rotate(-90 22 %.1f)\">Performance (FLOP/s)</text>\n",
                s.y0 + s.h / 2, s.y0 + s.h / 2);
        /* clip the roofs to the plot area */
        sb_addf(&sb,
                "<clipPath id=\"area\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                "height=\"%.1f\"/></clipPath>\n<g clip-path=\"url(#area)\">\n",
                s.x0, s.y0, s.w, s.h);
        double tp = top_peak(r), tb = top_bw(r);
        double xl = pow(10, s.ax.lx0), xr = pow(10, s.ax.lx1);
        for (int k = 0; k < NCEIL(r); k++) {
                if (!usable(r->c.peak[k]))
                        continue;
                double x0 = usable(tb) ? r->c.peak[k] / tb : xl;
                sb_addf(&sb,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555555\" "
                        "stroke-width=\"1.5\" stroke-dasharray=\"%s\"/>\n",
                        sx(&s, x0 < xl ? xl : x0), sy(&s, r->c.peak[k]), s.x0 + s.w,
                        sy(&s, r->c.peak[k]), CEIL(r, k)->matrix ? "2 3" : "6 3");
        }
        for (int l = 0; l < NLEVELS(r); l++) {
                if (!shown(r, l) || !usable(r->c.bw[l]))
                        continue;
                double x1 = usable(tp) ? ridge(r, l) : xr;
                sb_addf(&sb,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                        "stroke-width=\"2.2\"/>\n",
                        sx(&s, xl), sy(&s, r->c.bw[l] * xl), sx(&s, x1), sy(&s, r->c.bw[l] * x1),
                        level_color(l));
        }
        sb_add(&sb, "</g>\n");
        /* labels of the roofs: compute at the right end, memory along their start */
        double last_y = -1e9;
        {
                int order[ROOF_MAX_CEILINGS], n = 0;
                for (int k = 0; k < NCEIL(r); k++)
                        if (usable(r->c.peak[k]))
                                order[n++] = k;
                for (int i = 1; i < n; i++)
                        for (int j = i; j > 0 && r->c.peak[order[j]] > r->c.peak[order[j - 1]];
                             j--) {
                                int t = order[j];
                                order[j] = order[j - 1];
                                order[j - 1] = t;
                        }
                for (int i = 0; i < n; i++) {
                        int k = order[i];
                        double y = sy(&s, r->c.peak[k]) - 4;
                        if (y < last_y + 14)
                                y = last_y + 14;
                        last_y = y;
                        snprintf(buf, sizeof buf, "%s %s", CEIL(r, k)->name,
                                 si_unit(r->c.peak[k] * 1e9,
                                         CEIL(r, k)->integer ? "OP/s" : "FLOP/s", v, sizeof v));
                        svg_text(&sb, s.x0 + s.w + 8, y + 4, "start", "fill=\"#444444\"", buf);
                }
        }
        /* along each line, a little right of where it enters the plot; lines closer than
         * a label's height (L1 and shared memory) get theirs one after the other */
        double ang =
            -atan2(s.h / (s.ax.ly1 - s.ax.ly0), s.w / (s.ax.lx1 - s.ax.lx0)) * 180 / M_PI;
        double ux = cos(ang * M_PI / 180), uy = sin(ang * M_PI / 180);
        double placed[ROOF_MAX_LEVELS][3]; /* along-start, along-end, across */
        int nplaced = 0;
        for (int l = 0; l < NLEVELS(r); l++) {
                if (!shown(r, l) || !usable(r->c.bw[l]))
                        continue;
                double x = xl * pow(10, 0.15 * (s.ax.lx1 - s.ax.lx0) / 5.0);
                snprintf(buf, sizeof buf, "%s %s", LEVEL(r, l)->name,
                         si_unit(r->c.bw[l] * 1e9, "B/s", v, sizeof v));
                double px = sx(&s, x), py = sy(&s, r->c.bw[l] * x) - 6;
                double len = SVG_CHAR_W * (double)u8_width(buf);
                double a0 = px * ux + py * uy, across = -px * uy + py * ux;
                for (int moved = 1; moved;) {
                        moved = 0;
                        for (int i = 0; i < nplaced; i++)
                                if (fabs(placed[i][2] - across) < SVG_LINE_H &&
                                    a0 < placed[i][1] + 6 && a0 + len + 6 > placed[i][0]) {
                                        double d = placed[i][1] + 10 - a0;
                                        px += d * ux;
                                        py += d * uy;
                                        a0 += d;
                                        moved = 1;
                                }
                }
                if (nplaced < ROOF_MAX_LEVELS) {
                        placed[nplaced][0] = a0;
                        placed[nplaced][1] = a0 + len;
                        placed[nplaced++][2] = across;
                }
                sb_addf(&sb,
                        "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" transform=\"rotate(%.1f %.1f "
                        "%.1f)\">",
                        px, py, level_color(l), ang, px, py);
                svg_escape(&sb, buf);
                sb_add(&sb, "</text>\n");
        }
        /* the points: colour = level, shape = kernel; a point that would cover another
         * moves right of it, a thin line to where it belongs */
        double (*pos)[2] = xcalloc(r->npts * (size_t)NLEVELS(r) + 1, sizeof *pos);
        size_t npos = 0;
        for (size_t i = 0; i < r->npts; i++) {
                const struct roof_point *pt = &r->pts[i];
                if (!usable(pt->perf))
                        continue;
                for (int l = 0; l < NLEVELS(r); l++) {
                        if (!shown(r, l) || !usable(pt->ai[l]))
                                continue;
                        double x = sx(&s, pt->ai[l]), y = sy(&s, pt->perf), x0 = x;
                        for (int moved = 1; moved;) {
                                moved = 0;
                                for (size_t k = 0; k < npos; k++)
                                        if (fabs(pos[k][0] - x) < 2 * MARK_R + 1 &&
                                            fabs(pos[k][1] - y) < 2 * MARK_R + 1) {
                                                x = pos[k][0] + 2 * MARK_R + 2;
                                                moved = 1;
                                        }
                        }
                        if (x != x0)
                                sb_addf(&sb,
                                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                                        "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\"/>\n",
                                        x0, y, x - MARK_R, y, level_color(l));
                        pos[npos][0] = x;
                        pos[npos++][1] = y;
                        marker(&sb, (int)i, x, y, level_color(l));
                }
        }
        free(pos);
        /* legend: levels, then kernels with their marker shape */
        double ly = s.y0 + s.h + 70;
        double lx = s.x0;
        for (int l = 0; l < NLEVELS(r); l++) {
                if (!shown(r, l))
                        continue;
                marker(&sb, 0, lx + 5, ly - 4, level_color(l));
                snprintf(buf, sizeof buf, "AI %s", LEVEL(r, l)->name);
                svg_text(&sb, lx + 14, ly, "start", NULL, buf);
                lx += 110;
        }
        for (size_t i = 0; i < r->npts; i++) {
                const struct roof_point *pt = &r->pts[i];
                double y = ly + 22.0 * (double)(i + 1);
                marker(&sb, (int)i, s.x0 + 5, y - 4, "#333333");
                struct strbuf t = {0};
                sb_addf(&t, "k%zu ", i);
                sb_add(&t, pt->name);
                if (!isnan(pt->dispatch_id))
                        sb_addf(&t, " [dispatch %.0f]", pt->dispatch_id);
                if (t.len > 80) {
                        t.len = 77;
                        while (t.len > 0 && ((unsigned char)t.buf[t.len] & 0xC0) == 0x80)
                                t.len--;
                        t.buf[t.len] = 0;
                        sb_add(&t, "...");
                }
                if (usable(pt->perf))
                        sb_addf(&t, "  (%s)", si_unit(pt->perf * 1e9, "FLOP/s", v, sizeof v));
                else
                        sb_add(&t, pt->flops == 0 ? "  (not plotted: no floating-point operations)"
                                                  : "  (not plotted: no FLOP rate)");
                svg_text(&sb, s.x0 + 16, y, "start", NULL, t.buf);
                sb_free(&t);
        }
        svg_end(&sb);
        int rc = svg_write(path, &sb, err);
        sb_free(&sb);
        return rc;
}
