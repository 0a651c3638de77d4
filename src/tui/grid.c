/* Tables as the TUI shows them: the cell texts of render_text and render_compare (same
 * rounding, same number format), one line per row, with colors for Pct of Peak values and
 * for changes that are better or worse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tui.h"

/* ---- the text renderer's cell rules (cell texts come from src/render) ---- */

/* ---- colors ---- */

int tui_pop_attr(double pct)
{
        if (isnan(pct))
                return TA_NORMAL;
        if (pct >= TUI_POP_HIGH)
                return TA_POP_HIGH;
        if (pct >= TUI_POP_MID)
                return TA_POP_MID;
        return TA_POP_LOW;
}

static int contains_ci(const char *hay, const char *needle)
{
        size_t n = strlen(needle);
        for (; hay && *hay; hay++)
                if (!strncasecmp(hay, needle, n))
                        return 1;
        return 0;
}

static const char *text_of_show(const struct rtable *t, size_t r, const char *show)
{
        if (!t->metric_table)
                return NULL;
        for (size_t k = 0; k < t->ncols && k < t->pt->ncols; k++)
                if (!strcmp(t->pt->cols[k].show, show))
                        return t->cells[r * t->ncols + k].text;
        return NULL;
}

/* Words of metric names and units that say which way is better. A heuristic: the metric
 * files carry no direction yet. Checked in order; "lower" words first, since "Stall
 * Cycles" or "Hit Latency" must read as lower-is-better. */
static const char *const lower_words[] = {"latency", "stall",    "conflict", "miss", "idle", "wait",
                                          "cycles",  "duration", "(ns)",     "(us)", "(ms)", "(s)",
                                          "sum(",    "mean(",    "median(",  NULL};
static const char *const higher_words[] = {"hit",         "bw",          "bandwidth", "flop",
                                           "iop",         "utilization", "occupancy", "ipc",
                                           "pct of peak", "active",      NULL};

static int direction_of(const char *s)
{
        if (!s)
                return 0;
        for (size_t i = 0; lower_words[i]; i++)
                if (contains_ci(s, lower_words[i]))
                        return -1;
        for (size_t i = 0; higher_words[i]; i++)
                if (contains_ci(s, higher_words[i]))
                        return 1;
        return 0;
}

int tui_direction(const struct rtable *t, size_t r, size_t c)
{
        if (c >= t->ncols || r >= t->nrows)
                return 0;
        if (t->metric_table && c < t->pt->ncols && !strcmp(t->pt->cols[c].show, "pop"))
                return 1;
        if (!t->metric_table)
                return t->pt->props.ranked ? direction_of(t->cols[c]) : 0;
        int d = direction_of(text_of_show(t, r, "name"));
        if (!d)
                d = direction_of(text_of_show(t, r, "unit"));
        return d;
}

static int change_attr(const struct rtable *t, size_t r, size_t c, double base, double cur)
{
        if (isnan(base) || isnan(cur) || base == cur)
                return TA_NORMAL;
        /* changes under 1% are noise between runs */
        if (fabs(compare_rel_change(base, cur)) < 1.0)
                return TA_NORMAL;
        int d = tui_direction(t, r, c);
        if (!d)
                return TA_NORMAL;
        return (cur > base) == (d > 0) ? TA_BETTER : TA_WORSE;
}

/* ---- building ---- */

/* display width: count of UTF-8 lead bytes */
static size_t u8width(const char *s)
{
        size_t w = 0;
        for (; *s; s++)
                w += ((unsigned char)*s & 0xC0) != 0x80;
        return w;
}

static int is_pop(const struct rtable *t, size_t c)
{
        return t->metric_table && c < t->pt->ncols && !strcmp(t->pt->cols[c].show, "pop");
}

static void grid_alloc(struct tui_grid *g, size_t nrows, size_t ncols)
{
        memset(g, 0, sizeof *g);
        g->nrows = nrows;
        g->ncols = ncols;
        g->cells = xcalloc(nrows * ncols, sizeof *g->cells);
        g->attrs = xcalloc(nrows * ncols, 1);
        g->align = xcalloc(ncols + 1, 1);
        memset(g->align, 'l', ncols);
        g->width = xcalloc(ncols, sizeof *g->width);
        g->src_row = xcalloc(nrows, sizeof *g->src_row);
        g->src_row[0] = -1;
}

static void build_plain(const struct rtable *t, const struct render_opts *o, struct tui_grid *g)
{
        struct rgrid rg;
        rtable_grid(t, o, 0, &rg);
        grid_alloc(g, rg.nrows, rg.ncols);
        memcpy(g->cells, rg.cells, rg.nrows * rg.ncols * sizeof *g->cells);
        memcpy(g->align, rg.align, rg.ncols);
        for (size_t r = 1; r < rg.nrows; r++) {
                g->src_row[r] = (long)r - 1;
                for (size_t k = 1; k < rg.ncols; k++) {
                        const struct cell *cl = &t->cells[(r - 1) * t->ncols + rg.src_col[k]];
                        if (is_pop(t, (size_t)rg.src_col[k]) && !cl->text)
                                g->attrs[r * rg.ncols + k] = (unsigned char)tui_pop_attr(cl->v);
                }
        }
        free(rg.cells); /* the strings now belong to g */
        rg.cells = NULL;
        rgrid_free(&rg);
}

/* the comparison as the report lays it out (compare_grid), colored */
static void build_compare(const struct rtable *b, const struct rtable *n,
                          const struct render_opts *o, struct tui_grid *g)
{
        struct cmp_grid cg;
        compare_grid(b, n, o->decimal, &cg);
        grid_alloc(g, cg.nrows, cg.ncols);
        memcpy(g->cells, cg.cells, cg.nrows * cg.ncols * sizeof *g->cells);
        for (size_t r = 1; r < cg.nrows; r++) {
                long br = cg.pairs[r - 1].b;
                g->src_row[r] = br; /* -1: a row of the new run only */
                for (size_t k = 1; k < cg.ncols; k++) {
                        const struct cmp_cell *in = &cg.info[r * cg.ncols + k];
                        unsigned char *at = &g->attrs[r * cg.ncols + k];
                        int pop = in->kind != CK_TEXT && in->kind != CK_STATUS &&
                                  is_pop(b, in->col);
                        int ca = br >= 0 && (in->kind == CK_NEW || in->kind == CK_CHANGE)
                                     ? change_attr(b, (size_t)br, in->col, in->bv, in->nv)
                                     : TA_NORMAL;
                        if (in->kind == CK_BASE && pop)
                                *at = (unsigned char)tui_pop_attr(in->bv);
                        else if (in->kind == CK_NEW)
                                *at = (unsigned char)(ca != TA_NORMAL ? ca
                                                      : pop           ? tui_pop_attr(in->nv)
                                                                      : ca);
                        else if (in->kind == CK_CHANGE)
                                *at = (unsigned char)ca;
                }
        }
        free(cg.cells); /* the strings now belong to g */
        cg.cells = NULL;
        cg.nrows = cg.ncols = 0;
        cmp_grid_free(&cg);
}

void tui_grid_build(const struct rtable *t, const struct rtable *cur, int compare,
                    const struct render_opts *ro, struct tui_grid *g)
{
        if (compare)
                build_compare(t, cur, ro, g);
        else
                build_plain(t, ro, g);
        for (size_t r = 0; r < g->nrows; r++)
                for (size_t c = 0; c < g->ncols; c++) {
                        size_t w = u8width(g->cells[r * g->ncols + c]);
                        if (w > g->width[c])
                                g->width[c] = w;
                }
}

void tui_grid_free(struct tui_grid *g)
{
        for (size_t i = 0; i < g->nrows * g->ncols; i++)
                free(g->cells[i]);
        free(g->cells);
        free(g->attrs);
        free(g->align);
        free(g->width);
        free(g->src_row);
        memset(g, 0, sizeof *g);
}
