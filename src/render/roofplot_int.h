/* What the roofline's two plots (roofplot_text.c, roofplot_svg.c) share, from roofplot.c:
 * the spec's levels and ceilings, which are shown and measured, the roofs' extent, numbers
 * with SI prefixes, and where labels and points go so that none covers another. Internal
 * to src/render. */
#ifndef PRISM_ROOFPLOT_INT_H
#define PRISM_ROOFPLOT_INT_H

#include "roofplot.h"

/* the memory levels' styles (terminal) and colours (SVG), by their place in the family's
 * order */
extern const int roof_styles[4];
extern const char *const roof_colors[4];
#define level_style(l) roof_styles[(l) % 4]
#define level_color(l) roof_colors[(l) % 4]
#define NLEVELS(r) ((int)(r)->spec->nlevels)
#define NCEIL(r) ((int)(r)->spec->nceilings)
#define CEIL(r, k) (&(r)->spec->ceilings[k])
#define LEVEL(r, l) (&(r)->spec->levels[l])

/* 1 if memory level l is shown (--mem-level) */
int roof_shown(const struct roofline *r, int l);
/* 1 if v can be placed on a log axis (finite, > 0) */
int roof_usable(double v);
/* the highest measured compute ceiling (NaN: none) */
double roof_top_peak(const struct roofline *r);
/* where the memory roof of level l ends: on the highest compute roof (its intensity), xr
 * when none is measured */
double roof_level_end(const struct roofline *r, int l, double xr);
/* where compute ceiling k starts: on the highest bandwidth shown, never left of xl (xl when
 * none is shown) */
double roof_ceiling_start(const struct roofline *r, int k, double xl);
/* the intensity 10^e as its tick label: "0.01", "1", "100" */
void roof_decade(int e, char *buf, size_t len);
/* "1.39 TB/s": 3 significant digits, an SI prefix, the unit */
const char *roof_si_unit(double v, const char *unit, char *buf, size_t len);

/* ---- where labels go ---- */

/* The names of the compute ceilings whose text row (row[k]) is target, as one label
 * "<unit> BF16/FP16/I8, <unit> FP32": vector ceilings first, then matrix ones, a unit's
 * types after its name. */
void roof_ceiling_names(const struct roofline *r, const int *row, int target, char *buf,
                        size_t len);

/* The measured compute ceilings into order, highest peak first (ties in spec order); their
 * count. */
int roof_ceilings_by_peak(const struct roofline *r, int *order);

/* Labels stacked from the top (y grows down): each y[i] moved down to at least gap below
 * the one before. */
void roof_stack_down(double *y, int n, double gap);

/* A label of length len written along direction (ux, uy) from (*px, *py), moved along it
 * until it keeps clear of those placed (a line_h band across, 6 units along), then added
 * to them (while fewer than cap). */
struct roof_span {
        double a0, a1; /* along: start, end */
        double across;
};
void roof_place_along(struct roof_span *placed, int *nplaced, int cap, double line_h, double ux,
                      double uy, double len, double *px, double *py);

/* The x where a marker of half size r at (x, y) covers none of the n placed at pos: x, or
 * moved right past the ones it would cover. */
double roof_place_point(double (*pos)[2], size_t n, double x, double y, double r);

#endif
