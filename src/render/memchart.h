/* The memory chart: a box-drawing diagram of the memory hierarchy with the values of the
 * memory-chart table (3.1) on its boxes and arrows. */
#ifndef PRISM_MEMCHART_H
#define PRISM_MEMCHART_H

#include <stdio.h>

#include "../analyze/analysis.h"
#include "canvas.h"

/* The table whose rows are the memory chart's metrics (keys memchart.*), or NULL. The chart
 * is drawn only when the table has most of them (not for a -b selection of a few rows). */
const struct rtable *memchart_table(const struct analysis *an);

/* Draw the chart on a new canvas (free with canvas_free) that fits `width` columns where it
 * can: the hierarchy left to right at 120 columns, in two bands below about 100. */
void memchart_draw(struct canvas *cv, const struct rtable *t, int width);

/* The chart as text, with a caption naming the normalization (NULL: none named). */
void memchart_text(FILE *f, const struct rtable *t, const char *norm, int width);

/* The chart as an SVG file (the 120-column layout drawn with strokes). */
int memchart_svg(const char *path, const struct rtable *t, const char *norm, struct err *err);

#endif
