/* Damaged cells of a workload's tables (cellcheck.c). */
#ifndef PRISM_CELLCHECK_H
#define PRISM_CELLCHECK_H

#include <stddef.h>

#include "table.h"

/* The checks of damaged cells (docs/HARDENING.md), for workload.c and spill_load: one
 * table's damaged cells are counted chunk by chunk and reported at the end, in one order
 * whether the table was read whole or streamed. */
struct cellcheck;
struct cellcheck *cellcheck_new(void);
/* t: rows row0 ... of the file */
void cellcheck_chunk(struct cellcheck *cc, struct table *t, const char *file, size_t row0);
/* the same in parts, so that a column is checked just before it is written on (still in
 * the cache): cellcheck_begin (the timestamps), then cellcheck_col for every column */
void cellcheck_begin(struct cellcheck *cc, struct table *t, const char *file, size_t row0);
void cellcheck_col(struct cellcheck *cc, struct table *t, size_t c, const char *file,
                   size_t row0);
/* Whether Dispatch_ID values rise row by row (NaN passed over; -0 before 0), fed a part
 * at a time: start it {0, 0, 1}; rising 0 once one does not (then two rows may share an
 * id: cellcheck_report's check must see them all). */
struct cellcheck_rise {
        double prev;
        int seen, rising;
};
void cellcheck_rise(struct cellcheck_rise *r, const double *v, size_t n);
/* the warnings (and the Dispatch_ID check on resident), then cc is freed */
void cellcheck_report(struct cellcheck *cc, const struct table *resident, const char *dup,
                      const char *file);
void cellcheck_discard(struct cellcheck *cc);

#endif
