/* Merging the per-pass tables of a profile into one row per dispatch.
 *
 * Each pass ran the whole application, so the same dispatch appears once in every pass;
 * dispatch ids differ between runs, so a dispatch is recognised by its key: the kernel
 * name and its occurrence number among that kernel's dispatches (--join-type kernel), or
 * the kernel name, the grid size and the occurrence number among those (--join-type grid).
 * Passes that disagree on how many dispatches a kernel had cannot be merged: the error
 * names both passes, the kernel and the counts. */
#ifndef PRISM_MERGE_H
#define PRISM_MERGE_H

#include <stddef.h>

#include "../store/table.h"
#include "../util/util.h"

enum merge_join { MERGE_JOIN_KERNEL, MERGE_JOIN_GRID };

/* Merge n pass tables (the backend's per-pass layout: the dispatch columns of
 * dispatch_info_cols, counters, Start_Timestamp, End_Timestamp) into out (initialised
 * here): rows in the order of passes[0], Dispatch_ID renumbered from 0, the dispatch
 * columns of passes[0], every pass's counters in pass order (a counter already present is
 * kept from its first pass), then the mean Start_Timestamp and End_Timestamp over the
 * passes. ids[i] is the pass number used in messages. A dispatch column that differs
 * between passes for the same dispatch gives one warning. */
int merge_passes(const struct table *const *passes, const int *ids, size_t n,
                 enum merge_join join, struct table *out, struct err *err);

/* Reorder pass (pass number id) to the rows of ref (a merged table from merge_passes,
 * reference pass number ref_id): out gets ref's dispatch columns, the pass's own counters
 * and its own timestamps. The same mismatch errors as merge_passes. */
int merge_align(const struct table *ref, int ref_id, const struct table *pass, int id,
                enum merge_join join, struct table *out, struct err *err);

#endif
