/* The TUI's text views: the memory chart and the roofline plot as their text renderers
 * draw them (src/render/memchart.c, src/render/roofplot.c), for the current filters and
 * normalization, split into lines for the scrolling view ('m', 'r'). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analyze/roofline.h"
#include "../render/memchart.h"
#include "../render/roofplot.h"
#include "tui.h"

/* Write the figure into f; 0, or a negative code with err filled. */
static int render_view(const struct tui_model *m, const char *which, int width, FILE *f,
                       struct err *err)
{
        if (!strcmp(which, "memchart")) {
                const struct rtable *t = memchart_table(&m->an[0]);
                if (!t)
                        return err_set(err, ERR_INPUT, "this analysis shows no memory chart");
                memchart_text(f, t, m->norms[m->norm], width);
                return 0;
        }
        /* the roofline of the baseline run, for the kernels and dispatches selected now
         * (the analysis builds it with panel 4) */
        if (!m->an[0].roof)
                return err_set(err, ERR_INPUT, "this analysis shows no roofline");
        roofplot_text(f, m->an[0].roof, width);
        return 0;
}

int tui_text_render(const struct tui_model *m, const char *which, int width, char ***lines,
                    size_t *n, struct err *err)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return err_set(err, ERR_SYS, "cannot render the %s view", which);
        int rc = render_view(m, which, width > 0 ? width : 80, f, err);
        fclose(f);
        if (rc) {
                free(buf);
                return rc;
        }
        size_t cap = 0;
        *lines = NULL;
        *n = 0;
        for (char *s = buf, *e; s && *s; s = e ? e + 1 : NULL) {
                e = strchr(s, '\n');
                xgrow(lines, &cap, *n + 1, sizeof **lines);
                (*lines)[(*n)++] = e ? xstrndup(s, (size_t)(e - s)) : xstrdup(s);
        }
        free(buf);
        return 0;
}
