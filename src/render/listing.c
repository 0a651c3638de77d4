/* Listings that need no evaluation: metric ids per architecture, kernels and dispatches. */
#include "listing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../store/columns.h"
#include "render.h"
#include "../analyze/findings.h"

/* the findings tables, and under 0.3 the rules that may fill it */
static void list_findings(FILE *f, const struct arch *a, const struct panel_table *pt)
{
        fprintf(f, "\t%s -> %s\n", pt->id, pt->title ? pt->title : "");
        if (!pt->props.findings)
                return;
        char *dir = data_path("rules");
        struct ruleset rs;
        struct err err = {0};
        if (dir && !rules_load(dir, a, 0, &rs, &err)) {
                for (size_t i = 0; i < rs.nrules; i++)
                        if (!rs.rules[i].off)
                                fprintf(f, "\t\t%s -> %s\n", rs.rules[i].id, rs.rules[i].title);
                rules_free(&rs);
        }
        free(dir);
}

void list_metrics(FILE *f, const struct arch *a, const struct panel_set *ps,
                  const struct workload *w, int all_rows)
{
        const char *target = a->target;
        for (size_t i = 0; i < ps->npanels; i++) {
                const struct panel *p = &ps->panels[i];
                int any = 0;
                for (size_t j = 0; j < p->ntables; j++)
                        any |= panel_table_for(&p->tables[j], target);
                if (!any)
                        continue;
                fprintf(f, "%d -> %s\n", p->id, p->title);
                for (size_t j = 0; j < p->ntables; j++) {
                        const struct panel_table *pt = &p->tables[j];
                        if (pt->source && findings_is_source(pt->source) &&
                            panel_table_for(pt, target))
                                list_findings(f, a, pt);
                        if (pt->source || !panel_table_for(pt, target))
                                continue;
                        fprintf(f, "\t%s -> %s\n", pt->id, pt->title ? pt->title : "");
                        long pos = 0;
                        for (size_t r = 0; r < pt->nrows; r++) {
                                const struct metric *m = arch_metric(a, pt->rows[r]);
                                if (!m)
                                        continue;
                                long reps = 1;
                                if (pt->repeat) {
                                        double n = w ? workload_sys_num(w, pt->repeat) : NAN;
                                        if (!isfinite(n))
                                                n = arch_default(a, pt->repeat);
                                        reps = isfinite(n) && n > 0 ? (long)n : 0;
                                }
                                /* a row the family hides (no counterpart on it: -b refuses
                                 * its id) is not offered; its id stays taken */
                                int hidden = a->hide_empty_rows && !m->expr.src && !all_rows;
                                for (long k = 0; k < reps; k++) {
                                        if (hidden) {
                                                pos++;
                                                continue;
                                        }
                                        fprintf(f, "\t\t%s.%ld -> ", pt->id, pos++);
                                        for (const char *s = m->name; *s; s++) {
                                                if (*s == '@')
                                                        fprintf(f, "%ld", k);
                                                else
                                                        fputc(*s, f);
                                        }
                                        fputc('\n', f);
                                        /* its description on a line of its own: the id
                                         * lines stay rocprof-compute's */
                                        if (m->desc && *m->desc)
                                                fprintf(f, "\t\t\t%s\n", m->desc);
                                }
                        }
                }
        }
}

void list_stats(FILE *f, const struct workload *w, const struct analysis_opts *o, int width)
{
        char **names;
        size_t n;
        analysis_top_kernels(w, o, &names, &n);
        fprintf(f, "\nDetected kernels (sorted by total duration; -k takes the index)\n");
        char **cells = xcalloc((n + 1) * 2, sizeof *cells);
        cells[0] = xstrdup("");
        cells[1] = xstrdup(COL_KERNEL_NAME);
        for (size_t i = 0; i < n; i++) {
                cells[(i + 1) * 2] = xasprintf("%zu", i);
                cells[(i + 1) * 2 + 1] = names[i];
        }
        render_grid_w(f, cells, n + 1, 2, "rl", width > 0 ? (size_t)width : 0);
        for (size_t i = 0; i < (n + 1) * 2; i++)
                free(cells[i]);
        free(cells);
        free(names);

        fprintf(f, "\nDispatch list\n");
        int cd = table_col(&w->pmc, COL_DISPATCH_ID), ck = table_col(&w->pmc, COL_KERNEL_NAME),
            cg = table_col(&w->pmc, COL_GPU_ID);
        cells = xcalloc((w->pmc.nrows + 1) * 4, sizeof *cells);
        const char *head[] = {"", COL_DISPATCH_ID, COL_KERNEL_NAME, COL_GPU_ID};
        for (int c = 0; c < 4; c++)
                cells[c] = xstrdup(head[c]);
        char buf[64];
        for (size_t r = 0; r < w->pmc.nrows; r++) {
                char **row = &cells[(r + 1) * 4];
                row[0] = xasprintf("%zu", r);
                row[1] = xstrdup(cd >= 0 ? table_cell(&w->pmc, cd, r, buf, sizeof buf) : "");
                row[2] = xstrdup(ck >= 0 ? table_cell(&w->pmc, ck, r, buf, sizeof buf) : "");
                row[3] = xstrdup(cg >= 0 ? table_cell(&w->pmc, cg, r, buf, sizeof buf) : "");
        }
        render_grid_w(f, cells, w->pmc.nrows + 1, 4, "rrlr", width > 0 ? (size_t)width : 0);
        for (size_t i = 0; i < (w->pmc.nrows + 1) * 4; i++)
                free(cells[i]);
        free(cells);
}
