/* The figures of the text report and of --plot-dir: which panel gets which figure. */
#include <stdlib.h>
#include <string.h>

#include "../analyze/roofline.h"
#include "memchart.h"
#include "render.h"
#include "roofplot.h"

static int panel_has(const struct analysis *an, const struct panel *p, const struct rtable *t)
{
        return t && t->panel == p && an->ntables;
}

int render_figures_count(const struct analysis *an, const struct panel *p,
                         const struct render_opts *o)
{
        return panel_has(an, p, memchart_table(an)) + (o->roof && o->roof->panel == p);
}

void render_figures(FILE *f, const struct analysis *an, const struct panel *p,
                    const struct render_opts *o)
{
        const struct rtable *mc = memchart_table(an);
        if (panel_has(an, p, mc)) {
                memchart_text(f, mc, o->norm, o->width);
                fputc('\n', f);
        }
        if (o->roof && o->roof->panel == p) {
                roofplot_text(f, o->roof, o->width);
                fputc('\n', f);
        }
}

int render_plots_svg(const char *dir, const struct analysis *an, const struct render_opts *o,
                     FILE *f, struct err *err)
{
        int rc = make_dir(dir, err);
        const struct rtable *mc = memchart_table(an);
        if (!rc && mc) {
                char *path = xasprintf("%s/memory_chart.svg", dir);
                rc = memchart_svg(path, mc, o->norm, err);
                if (!rc && f)
                        fprintf(f, "prism: wrote %s\n", path);
                free(path);
        }
        if (!rc && o->roof && o->roof->c.have) {
                char *path = xasprintf("%s/roofline.svg", dir);
                rc = roofplot_svg(path, o->roof, err);
                if (!rc && f)
                        fprintf(f, "prism: wrote %s\n", path);
                free(path);
        }
        return rc;
}
