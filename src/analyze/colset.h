/* Column projection for analyze: the names of per-dispatch columns that the selected panels
 * read (their metrics' formulas, the built-ins, the normalizations, and the columns the
 * built-in tables use), so that a workload loads only those (workload_open_cols). */
#ifndef PRISM_COLSET_H
#define PRISM_COLSET_H

#include "analysis.h"

struct colset {
        struct smap names; /* exact column names */
        struct smap prefixes; /* "CACHE_HIT[": per-channel columns of template metrics (each
                               * ends at its first '[') */
        size_t nprefixes;
        int rules; /* a selected table is a findings table: colset_add_rules adds theirs */
};

/* The columns the tables of ps that o selects (-b) need on architecture a, but for the
 * metrics the findings' rules read: colset_add_rules adds those (the rules are loaded on
 * another thread meanwhile, src/analyze/session.c). */
void colset_build(struct colset *cs, const struct arch *a, const struct panel_set *ps,
                  const struct analysis_opts *o);
void colset_add_rules(struct colset *cs, const struct arch *a, const struct analysis_opts *o);
/* As a table_col_fn: 1 if name is in the set (ctx is the struct colset). */
int colset_want(void *ctx, const char *name);
void colset_free(struct colset *cs);
/* As a table_col_fn: 1 for the columns selection and the built-in tables read by name
 * (Kernel_Name, Dispatch_ID, GPU_ID, timestamps, Rank, Node); ctx unused. */
int colset_always(void *ctx, const char *name);

#endif
