/* Internal to src/store: the loader's state and its libcsv callbacks (csvload.c), shared by
 * table.c's reader (which splits common lines itself and calls csvload_cell for theirs). */
#ifndef PRISM_CSVLOAD_H
#define PRISM_CSVLOAD_H

#include <csv.h>
#include <stddef.h>

#include "table.h"

/* the longest field a table file may hold: kernel names of deep C++ templates reach tens
 * of KiB; a field of megabytes is damage, refused before it costs more memory */
#define FIELD_MAX (4 << 20)

/* libcsv callback state */
struct loader {
        struct table *t;
        const char *path;
        size_t line;     /* the physical line being parsed, 1-based */
        size_t row_line; /* the line where the current record started */
        size_t end_line; /* the line where the last record ended */
        int blank_head;  /* the header is one empty name: a file of blank lines or a BOM */
        size_t field;  /* field index within the current record */
        int header;    /* still reading the header */
        int failed;
        int nul_seen;  /* a NUL byte was read: check fields for it (rare, so not always) */
        struct err *err;
        /* column projection (table_load_csv_cols): map[field] is the table column or -1 */
        table_col_fn want;
        void *want_ctx;
        int *map;
        size_t nhead, cap_map;
        struct smap seen; /* every header name, kept or not (duplicate detection) */
        /* record mode (csv_stream): a record's fields, NUL-terminated one after another in
         * text (lens[i] and at[i]: field i's length and offset), handed to row_fn when it
         * ends */
        csv_row_fn row_fn;
        void *row_ctx;
        struct strbuf text;
        char **fields;
        size_t *lens, *at, cap_fields, cap_lens, cap_at;
        int stopped; /* row_fn asked to stop: not an error */
        size_t nrec; /* data records handed to row_fn */
        size_t text_cols; /* columns that came to hold text (put_cell): a count that moves */
};

/* One data cell (row r, column c of ld->t): its number (NaN when empty or text), and its
 * text in text columns (a column's first text makes it one: ld->text_cols counts them). */
void csvload_cell(struct loader *ld, int c, size_t r, const char *s, size_t len);
/* "FILE:LINE: a field longer than 4 MiB": ld failed; returns 1 */
int csvload_long_field(struct loader *ld);
/* libcsv's field callbacks: a load of every column, a projected load (want), csv_stream's
 * records (row_fn); and its end-of-record callback for all three */
void csvload_field(void *data, size_t len, void *p);
void csvload_field_cols(void *data, size_t len, void *p);
void csvload_field_rec(void *data, size_t len, void *p);
void csvload_record(int ch, void *p);
/* libcsv's error in words a user reads */
const char *csvload_problem(struct csv_parser *p);

#endif
