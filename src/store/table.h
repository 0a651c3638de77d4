/* An in-memory table of one CSV file: named columns of doubles, with the original text
 * kept for columns that hold text (kernel names, sysinfo strings). */
#ifndef PRISM_TABLE_H
#define PRISM_TABLE_H

#include <stddef.h>

#include "../util/util.h"

struct table {
        size_t nrows, ncols;
        size_t cap_rows, cap_cols;
        char **names;  /* ncols column names */
        double **num;  /* num[col][row]: the value, NaN when empty or not a number */
        char ***str;   /* str[col] is NULL for all-numeric columns, else str[col][row] */
        size_t *line;  /* line[row]: where the row starts in the file it was loaded from
                        * (1-based; 0 for rows added otherwise), for messages */
        char *dup;     /* the first kept column whose name the header repeats, or NULL */
        struct smap index;
        /* table_pool: texts kept once (cells point into the pool) */
        int pooled;
        struct smap pool_idx;
        char **pool;
        size_t npool, cappool;
};

void table_init(struct table *t);
void table_free(struct table *t);

/* Load a CSV file with a header row (libcsv). A missing or empty file, a row with more or
 * fewer fields than the header (a truncated file), a NUL byte, or an unreadable file fill
 * err with "FILE:LINE: ..." (LINE counts the file's physical lines) and return a negative
 * code. A UTF-8 BOM, CRLF line ends and blank lines are accepted. Duplicate header names
 * are kept apart as "name#N" (N the field's position, 0-based). */
int table_load_csv(struct table *t, const char *path, struct err *err);

/* Column projection: want(ctx, name) returns non-zero for the columns to keep. */
typedef int (*table_col_fn)(void *ctx, const char *name);

/* table_load_csv keeping only the columns `want` accepts (all when want is NULL), in file
 * order, with the same cell semantics and the same errors (field counts are checked
 * against the whole header). Fields of other columns are skipped unparsed, so memory
 * grows only with the kept columns. A file whose header has fields but none wanted
 * loads as a table of nrows rows and no columns. */
int table_load_csv_cols(struct table *t, const char *path, table_col_fn want, void *ctx,
                        struct err *err);

/* Reading a CSV file a chunk of rows at a time (streaming analysis): the header on open
 * (the columns want keeps, all when NULL), then up to max_rows rows per call, with
 * table_load_csv_cols' cells and errors. table_stream_next returns the table holding the
 * next rows (nrows 0 at the end; the same table each time, valid until the next call),
 * or NULL with err filled; table_stream_row0 is the number of data rows before them. */
struct tstream;
struct tstream *table_stream_open(const char *path, table_col_fn want, void *ctx,
                                  struct err *err);
const struct table *table_stream_next(struct tstream *s, size_t max_rows, struct err *err);
/* The table before any row is read: the columns. */
const struct table *table_stream_table(const struct tstream *s);
size_t table_stream_row0(const struct tstream *s);
void table_stream_close(struct tstream *s);

/* Read a CSV file record by record, with table_load_csv's file checks and errors (a
 * directory, a pipe, a NUL byte, malformed quoting, a record with more or fewer fields than
 * the header, an empty file). row(ctx, fields, lens, n, line, err) sees the header first
 * (line 0; without a byte order mark), then each data record (line: the physical line where
 * it starts, as in table_load_csv's messages); blank lines are skipped. The fields are
 * valid only during the call. row returns 0 to go on, > 0 to stop reading (csv_stream then
 * returns 0) or < 0 after filling err (returned). */
typedef int (*csv_row_fn)(void *ctx, char **fields, const size_t *lens, size_t n, size_t line,
                          struct err *err);
int csv_stream(const char *path, csv_row_fn row, void *ctx, struct err *err);

/* Small CSV files read once for two passes over them (formats_detect's header checks,
 * then the load): each regular file of at most CSV_TEXT_MAX bytes that csv_texts_read was
 * given, by path. One per call tree: not shared between threads. */
#define CSV_TEXT_MAX ((size_t)1 << 20)
struct csv_text {
        char *path, *buf;
        size_t len;
};
struct csv_texts {
        struct csv_text *v;
        size_t n, cap;
};
/* path's bytes into ct, where path is a regular file of at most CSV_TEXT_MAX bytes that
 * reads whole; else nothing (the load opens the file and reports its errors). */
void csv_texts_read(struct csv_texts *ct, const char *path);
/* path's bytes in ct, or NULL (ct may be NULL). */
const struct csv_text *csv_texts_get(const struct csv_texts *ct, const char *path);
void csv_texts_free(struct csv_texts *ct);
/* table_load_csv_cols and csv_stream over ct's bytes of path where it holds them (the same
 * tables, calls and errors as reading the file), else over the file. */
int table_load_csv_in(struct table *t, const char *path, const struct csv_texts *ct,
                      table_col_fn want, void *ctx, struct err *err);
int csv_stream_in(const char *path, const struct csv_texts *ct, csv_row_fn row, void *ctx,
                  struct err *err);

/* For tests: non-zero sends every line through libcsv (no fast path), so that the two
 * readings can be compared. */
extern int table_csv_libcsv_only;
/* For tests: a file of at least table_csv_batch_min bytes (16 MiB) has its lines split by a
 * second thread ahead of the reader, table_csv_batch_lines (4096) lines a job; 0 and a few
 * lines test that path on small files. */
extern size_t table_csv_batch_min, table_csv_batch_lines;
/* rows stored from the second thread's splits so far (tests check that it ran) */
extern size_t table_csv_batch_rows;

/* Column index by name, or -1. */
int table_col(const struct table *t, const char *name);
/* Add a column (all NaN), returning its index; an existing name returns that column. */
int table_add_col(struct table *t, const char *name);
/* Give column c the name name, which no column has. */
void table_rename_col(struct table *t, int c, const char *name);
/* Room for need rows (capacity only: nrows stays; text slots beyond nrows are NULL). */
void table_reserve(struct table *t, size_t need);
/* Drop every row (their texts freed, their slots NULL), keeping the columns and their
 * capacity: a stream's next chunk of rows goes in their place. */
void table_clear_rows(struct table *t);
/* Append an empty row (all NaN), returning its index. */
size_t table_add_row(struct table *t);
void table_set_num(struct table *t, int col, size_t row, double v);
void table_set_str(struct table *t, int col, size_t row, const char *s);
/* From now on table_set_str keeps each distinct text once (a kernel name on a million
 * rows); cells then must be set through table_set_str only. */
void table_pool(struct table *t);
/* Text of a cell: the original text for text columns, else the number formatted with
 * %.17g into buf (NULL/empty for NaN -> ""). */
const char *table_cell(const struct table *t, int col, size_t row, char *buf, size_t len);

/* The number a text cell reads as when loaded (NaN when it is no number). */
double table_text_num(const char *s);

/* Write as CSV (quoted where needed) to path via a temporary file and rename. */
int table_write_csv(const struct table *t, const char *path, struct err *err);
/* The same, but a file that already holds exactly this text is left as it is (--save-dfs
 * into the directory of an earlier run: replacing a file costs the file system a flush). */
int table_save_csv(const struct table *t, const char *path, struct err *err);
/* The same for any cells: the text of (col, row), a number formatted into buf[len]; keep_same
 * as table_save_csv */
typedef const char *(*csv_cell_fn)(const void *ctx, size_t col, size_t row, char *buf,
                                   size_t len);
int csv_save(const char *path, char *const *names, size_t ncols, size_t nrows, csv_cell_fn cell,
             const void *ctx, int keep_same, struct err *err);

/* How a damaged cell (row r, column c) reads in a warning: "is empty", or "holds 'abc', not
 * WHAT" (the text cut at 60 characters). buf holds the text; 100 bytes suffice. text_desc:
 * the same for a field's text s. */
const char *text_desc(const char *s, const char *what, char *buf, size_t len);
const char *table_cell_desc(const struct table *t, int c, size_t r, const char *what, char *buf,
                            size_t len);

#endif
