/* The TUI's text views: the memory chart and the roofline as their text renderers draw
 * them, split into lines for the scrolling view ('m', 'r').
 *
 * HOOK (issue 9): the figure renderers (src/render/memchart.c, src/render/roofline.c,
 * declared in render.h as render_figures) were not in the tree when the TUI was written.
 * Once they are, fill render_view() below: write the figure of the panel to the stream
 * (render_figures(f, &m->an[0], panel, &ro) with ro.norm and ro.width set); everything
 * else (the key, the view, the scrolling) is in place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

/* the panel holding the table with that id or that source, or NULL */
static const struct panel *panel_of(const struct analysis *an, const char *id,
                                    const char *source)
{
        for (size_t i = 0; i < an->ntables; i++) {
                const struct rtable *t = &an->tables[i];
                if ((id && !strcmp(t->id, id)) ||
                    (source && t->pt->source && !strcmp(t->pt->source, source)))
                        return t->panel;
        }
        return NULL;
}

/* Write the figure into f; 0, or a negative code with err filled. */
static int render_view(const struct tui_model *m, const char *which, const struct panel *p,
                       FILE *f, struct err *err)
{
        (void)m;
        (void)p;
        (void)f;
        return err_set(err, ERR_INPUT, "the %s view is not available in this build yet",
                       !strcmp(which, "memchart") ? "memory chart" : "roofline");
}

int tui_text_render(const struct tui_model *m, const char *which, char ***lines, size_t *n,
                    struct err *err)
{
        int memchart = !strcmp(which, "memchart");
        const struct panel *p = memchart ? panel_of(&m->an[0], "3.1", NULL)
                                         : panel_of(&m->an[0], NULL, "roofline");
        if (!p)
                return err_set(err, ERR_INPUT, "this workload shows no %s",
                               memchart ? "memory chart (table 3.1)" : "roofline");
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return err_set(err, ERR_SYS, "cannot render the %s view", which);
        int rc = render_view(m, which, p, f, err);
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
