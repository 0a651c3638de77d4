/* The roofline plot: log-log axes, the bandwidth and compute ceilings of roofline.csv and
 * each top kernel at its arithmetic intensity per memory level, in the terminal (Unicode
 * braille) or as SVG. */
#ifndef PRISM_ROOFPLOT_H
#define PRISM_ROOFPLOT_H

#include <stdio.h>

#include "../analyze/roofline.h"
#include "canvas.h"

/* Axis ranges (log10 of the data bounds), chosen to hold the ceilings and every point. */
struct roof_axes {
        double lx0, lx1; /* log10 FLOP/byte */
        double ly0, ly1; /* log10 GFLOP/s */
};
void roofplot_axes(const struct roofline *r, struct roof_axes *ax);

/* Draw the plot (with axes, labels and legend) on a new canvas about `width` columns wide
 * (free with canvas_free). Without ceilings the canvas holds only the note. */
void roofplot_draw(struct canvas *cv, const struct roofline *r, int width);

/* The plot as text: the note when there are no ceilings, else the plot and its legend. */
void roofplot_text(FILE *f, const struct roofline *r, int width);

/* The plot as an SVG file (needs ceilings). */
int roofplot_svg(const char *path, const struct roofline *r, struct err *err);

/* Short number text: 3 significant digits with k, M, G... ("1.39k", "171k", "20"). */
const char *roof_si(double v, char *buf, size_t len);

#endif
