/* A character canvas: Unicode cells with styles, box drawing, text output and SVG output
 * (box-drawing characters become strokes, arrowheads triangles, the rest text runs). */
#include "canvas.h"
#include "../util/esc.h"

#include <stdlib.h>
#include <string.h>

void canvas_init(struct canvas *cv, int w, int h)
{
        cv->w = w > 0 ? w : 1;
        cv->h = h > 0 ? h : 1;
        size_t n = (size_t)cv->w * (size_t)cv->h;
        cv->cp = xmalloc(n * sizeof *cv->cp);
        cv->style = xcalloc(n, 1);
        for (size_t i = 0; i < n; i++)
                cv->cp[i] = ' ';
}

void canvas_free(struct canvas *cv)
{
        free(cv->cp);
        free(cv->style);
        memset(cv, 0, sizeof *cv);
}

uint32_t canvas_get(const struct canvas *cv, int x, int y)
{
        if (x < 0 || y < 0 || x >= cv->w || y >= cv->h)
                return ' ';
        return cv->cp[(size_t)y * (size_t)cv->w + (size_t)x];
}

void canvas_put(struct canvas *cv, int x, int y, uint32_t cp, int style)
{
        if (x < 0 || y < 0 || x >= cv->w || y >= cv->h)
                return;
        size_t i = (size_t)y * (size_t)cv->w + (size_t)x;
        cv->cp[i] = cp;
        cv->style[i] = (uint8_t)style;
}

/* next code point of UTF-8 text (invalid bytes pass as themselves) */
static uint32_t u8_next(const char **sp)
{
        const unsigned char *s = (const unsigned char *)*sp;
        uint32_t c = *s++;
        int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        if (more)
                c &= 0x3F >> more;
        while (more-- && (*s & 0xC0) == 0x80)
                c = (c << 6) | (*s++ & 0x3F);
        *sp = (const char *)s;
        return c;
}

int u8_width(const char *s)
{
        int n = 0;
        struct strbuf e = {0}; /* measured as canvas_text draws it: controls escaped */
        s = esc_view(s, &e, 0);
        while (*s) {
                u8_next(&s);
                n++;
        }
        sb_free(&e);
        return n;
}

int canvas_text(struct canvas *cv, int x, int y, const char *s, int style)
{
        int n = 0;
        struct strbuf e = {0}; /* control characters from the data shown escaped (esc.h) */
        s = esc_view(s, &e, 0);
        while (*s)
                canvas_put(cv, x + n++, y, u8_next(&s), style);
        sb_free(&e);
        return n;
}

void canvas_box(struct canvas *cv, int x, int y, int w, int h, const char *title)
{
        for (int i = 1; i < w - 1; i++) {
                canvas_put(cv, x + i, y, CV_H, CV_PLAIN);
                canvas_put(cv, x + i, y + h - 1, CV_H, CV_PLAIN);
        }
        for (int j = 1; j < h - 1; j++) {
                canvas_put(cv, x, y + j, CV_V, CV_PLAIN);
                canvas_put(cv, x + w - 1, y + j, CV_V, CV_PLAIN);
        }
        canvas_put(cv, x, y, CV_TL, CV_PLAIN);
        canvas_put(cv, x + w - 1, y, CV_TR, CV_PLAIN);
        canvas_put(cv, x, y + h - 1, CV_BL, CV_PLAIN);
        canvas_put(cv, x + w - 1, y + h - 1, CV_BR, CV_PLAIN);
        if (title && *title && u8_width(title) + 4 <= w) {
                canvas_put(cv, x + 1, y, ' ', CV_PLAIN);
                int n = canvas_text(cv, x + 2, y, title, CV_TITLE);
                canvas_put(cv, x + 2 + n, y, ' ', CV_PLAIN);
        }
}

void canvas_rule(struct canvas *cv, int x, int y, int w, const char *title)
{
        canvas_put(cv, x, y, CV_LT, CV_PLAIN);
        for (int i = 1; i < w - 1; i++)
                canvas_put(cv, x + i, y, CV_H, CV_PLAIN);
        canvas_put(cv, x + w - 1, y, CV_RT, CV_PLAIN);
        if (title && *title && u8_width(title) + 4 <= w) {
                canvas_put(cv, x + 1, y, ' ', CV_PLAIN);
                int n = canvas_text(cv, x + 2, y, title, CV_TITLE);
                canvas_put(cv, x + 2 + n, y, ' ', CV_PLAIN);
        }
}

/* c as UTF-8 at o; the end */
static char *put_u8(char *o, uint32_t c)
{
        if (c < 0x80) {
                *o++ = (char)c;
        } else if (c < 0x800) {
                *o++ = (char)(0xC0 | (c >> 6));
                *o++ = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
                *o++ = (char)(0xE0 | (c >> 12));
                *o++ = (char)(0x80 | ((c >> 6) & 0x3F));
                *o++ = (char)(0x80 | (c & 0x3F));
        } else {
                *o++ = (char)(0xF0 | (c >> 18));
                *o++ = (char)(0x80 | ((c >> 12) & 0x3F));
                *o++ = (char)(0x80 | ((c >> 6) & 0x3F));
                *o++ = (char)(0x80 | (c & 0x3F));
        }
        return o;
}

void canvas_print(const struct canvas *cv, FILE *f)
{
        int last = cv->h - 1;
        for (; last >= 0; last--) {
                int x;
                for (x = 0; x < cv->w && canvas_get(cv, x, last) == ' '; x++)
                        ;
                if (x < cv->w)
                        break;
        }
        /* the text in one buffer, written at once: at most 4 bytes a cell and a newline */
        char *buf = xmalloc((size_t)(last + 1) * ((size_t)cv->w * 4 + 1) + 1), *o = buf;
        for (int y = 0; y <= last; y++) {
                const uint32_t *row = cv->cp + (size_t)y * (size_t)cv->w;
                int end = cv->w;
                while (end > 0 && row[end - 1] == ' ')
                        end--;
                for (int x = 0; x < end; x++)
                        o = row[x] < 0x80 ? (*o = (char)row[x], o + 1) : put_u8(o, row[x]);
                *o++ = '\n';
        }
        fwrite(buf, 1, (size_t)(o - buf), f);
        free(buf);
}

/* ---- SVG ---- */

enum { ARM_L = 1, ARM_R = 2, ARM_U = 4, ARM_D = 8 };

static int arms(uint32_t c)
{
        switch (c) {
        case CV_H:
                return ARM_L | ARM_R;
        case CV_V:
                return ARM_U | ARM_D;
        case CV_TL:
                return ARM_R | ARM_D;
        case CV_TR:
                return ARM_L | ARM_D;
        case CV_BL:
                return ARM_R | ARM_U;
        case CV_BR:
                return ARM_L | ARM_U;
        case CV_LT:
                return ARM_U | ARM_D | ARM_R;
        case CV_RT:
                return ARM_U | ARM_D | ARM_L;
        case CV_TT:
                return ARM_L | ARM_R | ARM_D;
        case CV_BT:
                return ARM_L | ARM_R | ARM_U;
        case CV_X:
                return ARM_L | ARM_R | ARM_U | ARM_D;
        /* an arrowhead keeps the arm behind it */
        case CV_AL:
                return ARM_R;
        case CV_AR:
                return ARM_L;
        case CV_AU:
                return ARM_D;
        case CV_AD:
                return ARM_U;
        default:
                return 0;
        }
}

static int is_head(uint32_t c)
{
        return c == CV_AL || c == CV_AR || c == CV_AU || c == CV_AD;
}

static const char *style_attr(int s)
{
        switch (s) {
        case CV_VALUE:
                return " fill=\"#0b57a4\"";
        case CV_TITLE:
                return " font-weight=\"bold\"";
        case CV_DIM:
                return " fill=\"#777777\"";
        case CV_S1:
                return " fill=\"#c0392b\"";
        case CV_S2:
                return " fill=\"#1f6fb5\"";
        case CV_S3:
                return " fill=\"#1e8449\"";
        case CV_S4:
                return " fill=\"#8e44ad\"";
        default:
                return "";
        }
}

static void xml_put(struct strbuf *sb, uint32_t c)
{
        char b[16];
        if (c == '<')
                sb_add(sb, "&lt;");
        else if (c == '>')
                sb_add(sb, "&gt;");
        else if (c == '&')
                sb_add(sb, "&amp;");
        else if (c < 0x80)
                sb_addc(sb, (char)c);
        else {
                snprintf(b, sizeof b, "&#%u;", (unsigned)c);
                sb_add(sb, b);
        }
}

void canvas_svg(const struct canvas *cv, struct strbuf *sb, double x0, double y0, double cw,
                double ch)
{
        /* strokes: half-cell arms from each cell's centre */
        sb_add(sb, "<path fill=\"none\" stroke=\"#333333\" stroke-width=\"1.2\" d=\"");
        for (int y = 0; y < cv->h; y++)
                for (int x = 0; x < cv->w; x++) {
                        int a = arms(canvas_get(cv, x, y));
                        double cx = x0 + (x + 0.5) * cw, cy = y0 + (y + 0.5) * ch;
                        if (a & ARM_L)
                                sb_addf(sb, "M%.1f %.1fH%.1f", cx, cy, x0 + x * cw);
                        if (a & ARM_R)
                                sb_addf(sb, "M%.1f %.1fH%.1f", cx, cy, x0 + (x + 1) * cw);
                        if (a & ARM_U)
                                sb_addf(sb, "M%.1f %.1fV%.1f", cx, cy, y0 + y * ch);
                        if (a & ARM_D)
                                sb_addf(sb, "M%.1f %.1fV%.1f", cx, cy, y0 + (y + 1) * ch);
                }
        sb_add(sb, "\"/>\n");
        /* arrowheads: filled triangles with the tip on the cell edge */
        sb_add(sb, "<path fill=\"#333333\" d=\"");
        for (int y = 0; y < cv->h; y++)
                for (int x = 0; x < cv->w; x++) {
                        uint32_t c = canvas_get(cv, x, y);
                        if (!is_head(c))
                                continue;
                        double l = x0 + x * cw, r = l + cw, t = y0 + y * ch, b = t + ch;
                        double cx = (l + r) / 2, cy = (t + b) / 2, hw = cw * 0.45, hh = ch * 0.3;
                        if (c == CV_AL)
                                sb_addf(sb, "M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", l, cy, r, cy - hh, r,
                                        cy + hh);
                        else if (c == CV_AR)
                                sb_addf(sb, "M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", r, cy, l, cy - hh, l,
                                        cy + hh);
                        else if (c == CV_AU)
                                sb_addf(sb, "M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", cx, t, cx - hw,
                                        b - ch * 0.2, cx + hw, b - ch * 0.2);
                        else
                                sb_addf(sb, "M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", cx, b, cx - hw,
                                        t + ch * 0.2, cx + hw, t + ch * 0.2);
                }
        sb_add(sb, "\"/>\n");
        /* text runs: same style, no line characters, at most one blank inside */
        for (int y = 0; y < cv->h; y++) {
                int x = 0;
                while (x < cv->w) {
                        uint32_t c = canvas_get(cv, x, y);
                        if (c == ' ' || arms(c) || is_head(c)) {
                                x++;
                                continue;
                        }
                        int s = cv->style[(size_t)y * (size_t)cv->w + (size_t)x], e = x;
                        for (;;) {
                                int n = e + 1;
                                if (n < cv->w && canvas_get(cv, n, y) == ' ' && n + 1 < cv->w &&
                                    canvas_get(cv, n + 1, y) != ' ')
                                        n++;
                                if (n >= cv->w)
                                        break;
                                uint32_t d = canvas_get(cv, n, y);
                                if (d == ' ' || arms(d) || is_head(d) ||
                                    cv->style[(size_t)y * (size_t)cv->w + (size_t)n] != s)
                                        break;
                                e = n;
                        }
                        int len = e - x + 1;
                        sb_addf(sb,
                                "<text x=\"%.1f\" y=\"%.1f\" textLength=\"%.1f\" "
                                "lengthAdjust=\"spacingAndGlyphs\"%s>",
                                x0 + x * cw, y0 + (y + 0.78) * ch, len * cw, style_attr(s));
                        for (int i = x; i <= e; i++)
                                xml_put(sb, canvas_get(cv, i, y));
                        sb_add(sb, "</text>\n");
                        x = e + 1;
                }
        }
}
