/* Streamed workloads: a directory's per-dispatch tables read once,
 * a chunk of rows at a time. The columns that selection and the built-in tables read stay in
 * memory (w->pmc, w->acc); every column analysis reads goes, checked, to a temporary file in
 * blocks of rows, which the evaluator (stream.c) reads back a block and a column at a time.
 * Memory then grows with the kept columns, not with the file. */
#ifndef PRISM_WSTREAM_H
#define PRISM_WSTREAM_H

#include "workload.h"
#include "vcode.h"

#include <stdint.h>

struct wspill;

/* rows per block */
#define SPILL_CHUNK 4096

/* Read the table file path (0: pmc_perf, 1 + i: accumulate table i) into the spill: the
 * columns want accepts to the file, those keep accepts also into *resident (a table with
 * every row; keep NULL: none, and resident only counts the rows). Damaged cells are read
 * as n/a with the warnings check_cells gives. */
int spill_load(struct wspill **sp, size_t ti, const char *path, table_col_fn keep,
               void *keep_ctx, table_col_fn want, void *want_ctx, struct table *resident,
               struct err *err);

/* spill_load from another source of rows (a database, db_read.c): head holds the columns,
 * next(ctx, max_rows, err) the next rows (a table with those columns, at most max_rows
 * rows, nrows 0 at the end, NULL with err filled on error), row0(ctx) the rows before
 * them. checked: the values were checked before (no damaged-cell warnings, no repeated-id
 * check). */
struct spill_src {
        const struct table *head;
        const struct table *(*next)(void *ctx, size_t max_rows, struct err *err);
        size_t (*row0)(void *ctx);
        void *ctx;
        int checked;
};
int spill_load_src(struct wspill **sp, size_t ti, const char *path, struct spill_src *src,
                   table_col_fn keep, void *keep_ctx, struct table *resident, struct err *err);

/* The columns of table ti (NULL when the spill has no such table), and its rows. */
const struct table *spill_head(const struct wspill *s, size_t ti);
size_t spill_rows(const struct wspill *s, size_t ti);
/* The rows of block k of table ti (0 past the last block). */
size_t spill_block_rows(const struct wspill *s, size_t ti, size_t k);
/* Column c of table ti in block k (rows k * SPILL_CHUNK ...) into out; *n its rows. */
int spill_read(const struct wspill *s, size_t ti, size_t k, int c, double *out, size_t *n);
void spill_free(struct wspill *s);
/* Table sti of src (loaded, flushed) moved into *dst (made when NULL) as table dti, with
 * src's temporary file: a table loaded on another thread into a spill of its own joins
 * the workload's. src's other tables, if any, go to the same *dst; then spill_free(src). */
void spill_adopt(struct wspill **dst, size_t dti, struct wspill *src, size_t sti);

#endif
