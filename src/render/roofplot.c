/* The roofline plots' shared geometry (roofplot_int.h): the axes that hold the ceilings and
 * every point, which levels and ceilings are shown, numbers with SI prefixes, and where
 * labels and points go so that none covers another. The terminal plot is roofplot_text.c,
 * the SVG one roofplot_svg.c. */
#include "roofplot_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* rocprof-compute's intensity range, widened when a point falls outside */
#define AI_MIN 0.01
#define AI_MAX 1000.0

const int roof_styles[4] = {CV_S1, CV_S2, CV_S3, CV_S4};
const char *const roof_colors[4] = {"#c0392b", "#1f6fb5", "#1e8449", "#8e44ad"};

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

void roof_decade(int e, char *buf, size_t len)
{
        snprintf(buf, len, "%.*f", e < 0 ? -e : 0, pow(10, e));
}

const char *roof_si_unit(double v, const char *unit, char *buf, size_t len)
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

int roof_shown(const struct roofline *r, int l)
{
        return (r->levels >> l) & 1;
}

int roof_usable(double v)
{
        return isfinite(v) && v > 0;
}

double roof_top_peak(const struct roofline *r)
{
        double m = NAN;
        for (int d = 0; d < NCEIL(r); d++)
                if (roof_usable(r->c.peak[d]) && !(r->c.peak[d] <= m))
                        m = r->c.peak[d];
        return m;
}

/* the highest bandwidth of the levels shown (NaN: none) */
static double roof_top_bw(const struct roofline *r)
{
        double m = NAN;
        for (int l = 0; l < NLEVELS(r); l++)
                if (roof_shown(r, l) && roof_usable(r->c.bw[l]) && !(r->c.bw[l] <= m))
                        m = r->c.bw[l];
        return m;
}

double roof_level_end(const struct roofline *r, int l, double xr)
{
        double tp = roof_top_peak(r);
        return roof_usable(tp) ? tp / r->c.bw[l] : xr;
}

double roof_ceiling_start(const struct roofline *r, int k, double xl)
{
        double tb = roof_top_bw(r), x0 = roof_usable(tb) ? r->c.peak[k] / tb : xl;
        return x0 < xl ? xl : x0;
}

void roofplot_axes(const struct roofline *r, struct roof_axes *ax)
{
        double xmin = AI_MIN, xmax = AI_MAX, ymin = INFINITY, ymax = -INFINITY;
        for (int l = 0; l < NLEVELS(r); l++)
                if (roof_shown(r, l) && roof_usable(r->c.bw[l]) && r->c.bw[l] * AI_MIN < ymin)
                        ymin = r->c.bw[l] * AI_MIN;
        double tp = roof_top_peak(r);
        if (roof_usable(tp))
                ymax = tp;
        for (size_t i = 0; i < r->npts; i++) {
                const struct roof_point *p = &r->pts[i];
                if (!roof_usable(p->perf))
                        continue;
                ymin = p->perf < ymin ? p->perf : ymin;
                ymax = p->perf > ymax ? p->perf : ymax;
                for (int l = 0; l < NLEVELS(r); l++) {
                        if (!roof_shown(r, l) || !roof_usable(p->ai[l]))
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

/* ---- where labels go ---- */

void roof_ceiling_names(const struct roofline *r, const int *row, int target, char *buf,
                        size_t len)
{
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

int roof_ceilings_by_peak(const struct roofline *r, int *order)
{
        int n = 0;
        for (int k = 0; k < NCEIL(r); k++)
                if (roof_usable(r->c.peak[k]))
                        order[n++] = k;
        for (int i = 1; i < n; i++)
                for (int j = i; j > 0 && r->c.peak[order[j]] > r->c.peak[order[j - 1]]; j--) {
                        int t = order[j];
                        order[j] = order[j - 1];
                        order[j - 1] = t;
                }
        return n;
}

void roof_stack_down(double *y, int n, double gap)
{
        double last = -1e9;
        for (int i = 0; i < n; i++) {
                if (y[i] < last + gap)
                        y[i] = last + gap;
                last = y[i];
        }
}

void roof_place_along(struct roof_span *placed, int *nplaced, int cap, double line_h, double ux,
                      double uy, double len, double *px, double *py)
{
        double a0 = *px * ux + *py * uy, across = -*px * uy + *py * ux;
        for (int moved = 1; moved;) {
                moved = 0;
                for (int i = 0; i < *nplaced; i++)
                        if (fabs(placed[i].across - across) < line_h && a0 < placed[i].a1 + 6 &&
                            a0 + len + 6 > placed[i].a0) {
                                double d = placed[i].a1 + 10 - a0;
                                *px += d * ux;
                                *py += d * uy;
                                a0 += d;
                                moved = 1;
                        }
        }
        if (*nplaced < cap) {
                placed[*nplaced].a0 = a0;
                placed[*nplaced].a1 = a0 + len;
                placed[(*nplaced)++].across = across;
        }
}

double roof_place_point(double (*pos)[2], size_t n, double x, double y, double r)
{
        for (int moved = 1; moved;) {
                moved = 0;
                for (size_t k = 0; k < n; k++)
                        if (fabs(pos[k][0] - x) < 2 * r + 1 && fabs(pos[k][1] - y) < 2 * r + 1) {
                                x = pos[k][0] + 2 * r + 2;
                                moved = 1;
                        }
        }
        return x;
}
