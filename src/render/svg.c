/* SVG by hand: the frame, escaped text, and an atomic file write. */
#include "svg.h"
#include "../util/esc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void svg_begin(struct strbuf *sb, double w, double h, double font)
{
        sb_addf(sb,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" xml:space=\"preserve\" "
                "font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" "
                "font-size=\"%.1f\">\n"
                "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                w, h, w, h, font);
}

void svg_end(struct strbuf *sb)
{
        sb_add(sb, "</svg>\n");
}

void svg_escape(struct strbuf *sb, const char *s)
{
        struct strbuf e = {0}; /* control characters from the data shown escaped (esc.h) */
        s = esc_view(s, &e, 0);
        for (; *s; s++) {
                if (*s == '<')
                        sb_add(sb, "&lt;");
                else if (*s == '>')
                        sb_add(sb, "&gt;");
                else if (*s == '&')
                        sb_add(sb, "&amp;");
                else if (*s == '"')
                        sb_add(sb, "&quot;");
                else
                        sb_addc(sb, *s);
        }
        sb_free(&e);
}

void svg_text(struct strbuf *sb, double x, double y, const char *anchor, const char *attrs,
              const char *s)
{
        sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", x, y,
                anchor ? anchor : "start", attrs ? " " : "", attrs ? attrs : "");
        svg_escape(sb, s);
        sb_add(sb, "</text>\n");
}

int svg_write(const char *path, const struct strbuf *sb, struct err *err)
{
        char *tmp = xasprintf("%s.tmp", path);
        FILE *f = fopen(tmp, "w");
        int rc = 0;
        if (!f) {
                rc = err_set(err, ERR_SYS, "cannot write '%s': %s", path, strerror(errno));
                goto out;
        }
        if (sb->len)
                fwrite(sb->buf, 1, sb->len, f);
        if (fclose(f) != 0 || rename(tmp, path) != 0) {
                rc = err_set(err, ERR_SYS, "cannot write '%s': %s", path, strerror(errno));
                remove(tmp);
        }
out:
        free(tmp);
        return rc;
}
