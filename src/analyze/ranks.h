/* Built-in tables of multi-rank workloads (panels/19-ranks.yaml): per-rank totals
 * (rank_summary), per-rank top kernels (rank_kernels) and the spread across ranks of the
 * metrics a table lists (rank_spread). Built only when the selected dispatches span more
 * than one rank (the Rank column that src/store/multi.c adds). */
#ifndef PRISM_RANKS_H
#define PRISM_RANKS_H

#include "analysis.h"

/* 1 if source names one of these tables. */
int ranks_is_source(const char *source);

/* Append the table of source pt->source to an (nothing when fewer than two ranks are
 * selected). sel/n: the selected pmc rows; knames: the kernel filter resolved to names.
 * rank_spread evaluates pt's rows once per rank, through analysis_run with that rank
 * selected. */
int ranks_build(const struct workload *w, const struct arch *a, const struct analysis_opts *o,
                const size_t *sel, size_t n, const char *const *knames, size_t nknames,
                const struct panel *p, const struct panel_table *pt, struct analysis *an,
                struct err *err);

#endif
