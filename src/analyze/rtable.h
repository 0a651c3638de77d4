/* Result tables: the rows of cells that analysis produces and every renderer reads. A leaf
 * of the analyze module: the built-in, metric, roofline and rank tables are all made with
 * these calls (src/analyze/build.h says how a table source is built). */
#ifndef PRISM_RTABLE_H
#define PRISM_RTABLE_H

#include <stddef.h>

#include "../arch/arch.h"

struct cell {
        double v;   /* NaN = n/a */
        char *text; /* non-NULL for a text cell */
};

struct rtable {
        const struct panel *panel;
        const struct panel_table *pt;
        char *id;            /* "2.1" */
        char *key_title;     /* "Metric_ID" for metric tables, "index" for raw ones */
        size_t ncols;
        char **cols;         /* column titles (the key column excluded) */
        size_t nrows;
        char **keys;         /* row keys: metric ids "2.1.3", field names, row numbers */
        char **rkeys;        /* stable row identities across architectures (metric keys);
                              * NULL for a table of rtable_add_row_occ rows (rtable_rkey) */
        unsigned *rocc;      /* those rows' occurrences (rtable_add_row_occ) */
        size_t rkey_col;     /* and the column whose text leads their identity */
        struct cell *cells;  /* nrows * ncols */
        int metric_table;    /* rows are metrics (comparable by id) */
        const struct arch *arch; /* the architecture evaluated (its words label charts) */
        size_t nhidden;          /* rows the family hides (no counterpart; ids kept) */
        size_t caprows;      /* rows the arrays have room for */
        char **kblk;          /* the keys' texts, packed in blocks (no malloc per row) */
        size_t nkblk, kleft, kbsz; /* kbsz: the last block's planned size */
        char *kcur;
        struct smap pool_idx; /* rtable_pool_text: texts kept once */
        char **pool;
        size_t npool, cappool;
};

/* A table of panel table pt with no rows yet, owning cols (ncols titles). */
void rtable_init(struct rtable *t, const struct panel *p, const struct panel_table *pt,
                 const char *key_title, size_t ncols, char **cols);
/* Append a row of n/a cells; rkey NULL means key (then rkeys[r] is keys[r] itself).
 * Returns the row's cells. */
struct cell *rtable_add_row(struct rtable *t, const char *key, const char *rkey);
/* Append a row whose identity is "TEXT#occ", TEXT its cell rkey_col's text (set by the
 * caller): a million dispatches' identities cost a number each, not a text (each row of
 * such a table comes from here). */
struct cell *rtable_add_row_occ(struct rtable *t, const char *key, size_t rkey_col,
                                unsigned occ);
/* Row r's identity: rkeys[r], or for a table of rtable_add_row_occ rows that text written
 * into sb (valid until sb changes). */
const char *rtable_rkey(const struct rtable *t, size_t r, struct strbuf *sb);
void rtable_free(struct rtable *t);
/* A cell text kept once per table (a kernel name on every row of a long table): the
 * pointer to store in cell.text. A table whose texts come from here gets all of them from
 * here (rtable_free frees the pool, not the cells). */
char *rtable_pool_text(struct rtable *t, const char *s);

/* Column titles: n copies of list (malloc'd, for rtable_init). */
char **rtable_titles(const char *const *list, size_t n);

#endif
