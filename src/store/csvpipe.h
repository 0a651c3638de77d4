/* csv_stream with the reading of the file on a second thread: that thread splits the
 * records into batches, this one hands them to row in order. Same calls, same lines, same
 * result and error as csv_stream (table.h); a record is seen by row after every record
 * before it, and an error of the file is returned after row saw every record before it. */
#ifndef PRISM_CSVPIPE_H
#define PRISM_CSVPIPE_H

#include "table.h"

/* csv_stream(path, row, ctx, err), read ahead on a second thread where path is a file of
 * at least csv_pipe_min bytes and two CPUs are allowed (task_workers) */
int csv_stream_piped(const char *path, csv_row_fn row, void *ctx, struct err *err);

/* For tests: the size from which a second thread reads (16 MiB), and the records a batch
 * holds at most (4096) */
extern size_t csv_pipe_min, csv_pipe_records;

#endif
