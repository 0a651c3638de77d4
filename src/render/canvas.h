/* A character canvas for figures: a grid of Unicode cells, each with a style, drawn with
 * box-drawing characters and printed as text, or converted to SVG (lines for the box-drawing
 * characters, text runs for the rest) so that a picture matches its terminal form. */
#ifndef PRISM_CANVAS_H
#define PRISM_CANVAS_H

#include <stdint.h>
#include <stdio.h>

#include "../util/util.h"

enum canvas_style { CV_PLAIN, CV_VALUE, CV_TITLE, CV_DIM, CV_S1, CV_S2, CV_S3, CV_S4 };

struct canvas {
        int w, h;
        uint32_t *cp;   /* w * h code points, ' ' when empty */
        uint8_t *style; /* w * h enum canvas_style */
};

void canvas_init(struct canvas *cv, int w, int h);
void canvas_free(struct canvas *cv);

uint32_t canvas_get(const struct canvas *cv, int x, int y);
/* Put one code point (outside the canvas: ignored). */
void canvas_put(struct canvas *cv, int x, int y, uint32_t cp, int style);
/* Put UTF-8 text from (x, y) rightwards; returns the number of cells written. */
int canvas_text(struct canvas *cv, int x, int y, const char *s, int style);
/* Number of cells (code points) of UTF-8 text. */
int u8_width(const char *s);

/* A box from (x, y) of w x h cells; title (may be NULL) in the top border. */
void canvas_box(struct canvas *cv, int x, int y, int w, int h, const char *title);
/* A horizontal rule inside a box at row y from x to x + w - 1 (├──┤), with a title. */
void canvas_rule(struct canvas *cv, int x, int y, int w, const char *title);

/* Print rows, trailing blanks cut, trailing empty rows dropped. */
void canvas_print(const struct canvas *cv, FILE *f);

/* The canvas as SVG (cell = cw x ch pixels, monospace text), appended to sb. x0, y0: the
 * offset of the canvas in the picture. */
void canvas_svg(const struct canvas *cv, struct strbuf *sb, double x0, double y0, double cw,
                double ch);

/* Box-drawing and arrow code points used by the figures. */
#define CV_H 0x2500  /* ─ */
#define CV_V 0x2502  /* │ */
#define CV_TL 0x250C /* ┌ */
#define CV_TR 0x2510 /* ┐ */
#define CV_BL 0x2514 /* └ */
#define CV_BR 0x2518 /* ┘ */
#define CV_LT 0x251C /* ├ */
#define CV_RT 0x2524 /* ┤ */
#define CV_TT 0x252C /* ┬ */
#define CV_BT 0x2534 /* ┴ */
#define CV_X 0x253C  /* ┼ */
#define CV_AL 0x25C0 /* ◀ */
#define CV_AR 0x25B6 /* ▶ */
#define CV_AU 0x25B2 /* ▲ */
#define CV_AD 0x25BC /* ▼ */

#endif
