/* A few helpers to write SVG pictures by hand (no library): document frame, escaped text,
 * and writing the result to a file. */
#ifndef PRISM_SVG_H
#define PRISM_SVG_H

#include "../util/util.h"

/* The width of a character and the height of a line of the default 13-pixel monospace
 * text (DejaVu Sans Mono advances 0.602 em), for placing labels apart. */
#define SVG_CHAR_W 7.9
#define SVG_LINE_H 14.0

/* Open a w x h picture (white background, monospace text of `font` pixels). */
void svg_begin(struct strbuf *sb, double w, double h, double font);
void svg_end(struct strbuf *sb);

/* Text at (x, y) (baseline); anchor "start", "middle" or "end"; attrs: extra attributes
 * (may be NULL), e.g. "fill=\"red\" font-size=\"11\"". s is escaped. */
void svg_text(struct strbuf *sb, double x, double y, const char *anchor, const char *attrs,
              const char *s);
/* Append s with XML escapes. */
void svg_escape(struct strbuf *sb, const char *s);

/* Write the picture to path (via a temporary file and rename). */
int svg_write(const char *path, const struct strbuf *sb, struct err *err);

#endif
