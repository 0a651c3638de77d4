/* Internal to src/store: how table.c opens a CSV file, and its loader with every option,
 * for the entry points in csvtexts.c. */
#ifndef PRISM_TABLEIO_H
#define PRISM_TABLEIO_H

#include <sys/types.h>

#include "table.h"

/* path opened for reading as a CSV file is read: without blocking (the open of a pipe waits
 * for a writer), and only a regular file (a pipe or a device would block or never end,
 * issue 10). The descriptor and *size, or -1 with err filled: "cannot open 'F': ...",
 * "'F' is a directory, expected a CSV file", "'F' is not a regular file". */
int csv_open_file(const char *path, off_t *size, struct err *err);

/* Load path (text: its bytes already read, or NULL) keeping the columns want accepts (all:
 * NULL), or with row_fn, hand each record to it instead (csv_stream). */
int table_load_any(struct table *t, const char *path, const struct csv_text *text,
                   table_col_fn want, void *want_ctx, csv_row_fn row_fn, void *row_ctx,
                   struct err *err);

#endif
