/* Private to src/render/: the text report's tables in a range (text.c), for the report's
 * parts (report.c). */
#ifndef PRISM_TEXT_INT_H
#define PRISM_TEXT_INT_H

#include <stdio.h>

#include "render.h"

/* Tables [from, to) of an, each panel's heading before its first table and its figures
 * after its last: a range that starts or ends inside a panel leaves those to the range
 * before or after it (ranges that meet give the bytes of the one range they make). */
void render_range(FILE *f, const struct analysis *an, const struct render_opts *o, size_t from,
                  size_t to);

#endif
