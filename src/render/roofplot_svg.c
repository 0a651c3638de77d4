/* The roofline plot as SVG: log-log grid and ticks, the roofs (memory solid in the level's
 * colour, compute dashed by kind), their labels, each kernel's points (colour: level, shape:
 * kernel) and the legend. */
#include "roofplot_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "svg.h"

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
                else
                        roof_decade(e, buf, sizeof buf);
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
        double xl = pow(10, s.ax.lx0), xr = pow(10, s.ax.lx1);
        for (int k = 0; k < NCEIL(r); k++) {
                if (!roof_usable(r->c.peak[k]))
                        continue;
                sb_addf(&sb,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555555\" "
                        "stroke-width=\"1.5\" stroke-dasharray=\"%s\"/>\n",
                        sx(&s, roof_ceiling_start(r, k, xl)), sy(&s, r->c.peak[k]), s.x0 + s.w,
                        sy(&s, r->c.peak[k]), CEIL(r, k)->matrix ? "2 3" : "6 3");
        }
        for (int l = 0; l < NLEVELS(r); l++) {
                if (!roof_shown(r, l) || !roof_usable(r->c.bw[l]))
                        continue;
                double x1 = roof_level_end(r, l, xr);
                sb_addf(&sb,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                        "stroke-width=\"2.2\"/>\n",
                        sx(&s, xl), sy(&s, r->c.bw[l] * xl), sx(&s, x1), sy(&s, r->c.bw[l] * x1),
                        level_color(l));
        }
        sb_add(&sb, "</g>\n");
        /* labels of the roofs: compute at the right end, from the highest down, each at
         * least a line below the one above (roof_stack_down); memory along their start */
        {
                int order[ROOF_MAX_CEILINGS];
                double y[ROOF_MAX_CEILINGS];
                int n = roof_ceilings_by_peak(r, order);
                for (int i = 0; i < n; i++)
                        y[i] = sy(&s, r->c.peak[order[i]]) - 4;
                roof_stack_down(y, n, 14);
                for (int i = 0; i < n; i++) {
                        int k = order[i];
                        snprintf(buf, sizeof buf, "%s %s", CEIL(r, k)->name,
                                 roof_si_unit(r->c.peak[k] * 1e9,
                                              CEIL(r, k)->integer ? "OP/s" : "FLOP/s", v,
                                              sizeof v));
                        svg_text(&sb, s.x0 + s.w + 8, y[i] + 4, "start", "fill=\"#444444\"", buf);
                }
        }
        /* along each line, a little right of where it enters the plot; lines closer than
         * a label's height (L1 and shared memory) get theirs one after the other */
        double ang =
            -atan2(s.h / (s.ax.ly1 - s.ax.ly0), s.w / (s.ax.lx1 - s.ax.lx0)) * 180 / M_PI;
        double ux = cos(ang * M_PI / 180), uy = sin(ang * M_PI / 180);
        struct roof_span placed[ROOF_MAX_LEVELS];
        int nplaced = 0;
        for (int l = 0; l < NLEVELS(r); l++) {
                if (!roof_shown(r, l) || !roof_usable(r->c.bw[l]))
                        continue;
                double x = xl * pow(10, 0.15 * (s.ax.lx1 - s.ax.lx0) / 5.0);
                snprintf(buf, sizeof buf, "%s %s", LEVEL(r, l)->name,
                         roof_si_unit(r->c.bw[l] * 1e9, "B/s", v, sizeof v));
                double px = sx(&s, x), py = sy(&s, r->c.bw[l] * x) - 6;
                roof_place_along(placed, &nplaced, ROOF_MAX_LEVELS, SVG_LINE_H, ux, uy,
                                 SVG_CHAR_W * (double)u8_width(buf), &px, &py);
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
                if (!roof_usable(pt->perf))
                        continue;
                for (int l = 0; l < NLEVELS(r); l++) {
                        if (!roof_shown(r, l) || !roof_usable(pt->ai[l]))
                                continue;
                        double x0 = sx(&s, pt->ai[l]), y = sy(&s, pt->perf);
                        double x = roof_place_point(pos, npos, x0, y, MARK_R);
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
                if (!roof_shown(r, l))
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
                if (roof_usable(pt->perf))
                        sb_addf(&t, "  (%s)", roof_si_unit(pt->perf * 1e9, "FLOP/s", v, sizeof v));
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
