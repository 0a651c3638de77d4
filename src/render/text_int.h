/* Private to src/render/: the text report's tables in a range (text.c), for the report's
 * parts (report.c). */
#ifndef PRISM_TEXT_INT_H
#define PRISM_TEXT_INT_H

#include <stdio.h>

#include "render.h"

/* Tables [from, to) of an, each panel's heading before its first table and its figures
 * after its last; from starts a panel, and to ends one (or is an->ntables). */
void render_range(FILE *f, const struct analysis *an, const struct render_opts *o, size_t from,
                  size_t to);

#endif
