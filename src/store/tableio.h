/* Internal to src/store: table.c's loader with every option, for the entry points in
 * csvtexts.c. */
#ifndef PRISM_TABLEIO_H
#define PRISM_TABLEIO_H

#include <sys/types.h>

#include "table.h"

/* Load path (text: its bytes already read, or NULL) keeping the columns want accepts (all:
 * NULL), or with row_fn, hand each record to it instead (csv_stream). */
int table_load_any(struct table *t, const char *path, const struct csv_text *text,
                   table_col_fn want, void *want_ctx, csv_row_fn row_fn, void *row_ctx,
                   struct err *err);

#endif
