/* The tables of an analysis as the builders add them (analysis.h): which panel tables and
 * rows -b selects, a result table added or inserted. Apart from the driver (analysis.c), so
 * that the builders it calls (builtins.c, eval.c, findings.c, ranks.c, roofline.c) add
 * their tables without calling back into it. */
#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -b matching: a panel id ("2"), a table id ("2.1") or a metric id ("2.1.3"). */
static int block_selects(const struct analysis_opts *o, const char *id)
{
        if (!o->nblocks)
                return 1;
        for (size_t i = 0; i < o->nblocks; i++)
                if (!strcmp(o->blocks[i], id))
                        return 1;
        return 0;
}

/* 1 if a -b id names a table of panel 0 ("0.3"): panel 0 then shows only those */
static int names_panel0_table(const struct analysis_opts *o)
{
        for (size_t i = 0; i < o->nblocks; i++)
                if (!strncmp(o->blocks[i], "0.", 2))
                        return 1;
        return 0;
}

int analysis_table_wanted(const struct analysis_opts *o, const struct panel *p,
                          const struct panel_table *t)
{
        if (!o->nblocks)
                return 1;
        if (p->id == 0)
                return !names_panel0_table(o) || block_selects(o, t->id);
        char pid[16];
        snprintf(pid, sizeof pid, "%d", p->id);
        if (block_selects(o, pid) || block_selects(o, t->id))
                return 1;
        size_t l = strlen(t->id);
        for (size_t i = 0; i < o->nblocks; i++)
                if (!strncmp(o->blocks[i], t->id, l) && o->blocks[i][l] == '.')
                        return 1;
        return 0;
}

int analysis_row_wanted(const struct analysis_opts *o, const struct panel *p,
                      const struct panel_table *t, const char *rid)
{
        char pid[16];
        if (!o->nblocks)
                return 1;
        snprintf(pid, sizeof pid, "%d", p->id);
        return block_selects(o, pid) || block_selects(o, t->id) || block_selects(o, rid);
}

struct rtable *analysis_insert_table(struct analysis *an, size_t at, const struct panel *p,
                                     const struct panel_table *pt, const char *key_title,
                                     size_t ncols, char **cols)
{
        xgrow(&an->tables, &an->captables, an->ntables + 1, sizeof *an->tables);
        memmove(&an->tables[at + 1], &an->tables[at], (an->ntables - at) * sizeof *an->tables);
        an->ntables++;
        rtable_init(&an->tables[at], p, pt, key_title, ncols, cols);
        an->tables[at].arch = an->arch;
        return &an->tables[at];
}

struct rtable *analysis_add_table(struct analysis *an, const struct panel *p,
                                  const struct panel_table *pt, const char *key_title,
                                  size_t ncols, char **cols)
{
        return analysis_insert_table(an, an->ntables, p, pt, key_title, ncols, cols);
}
