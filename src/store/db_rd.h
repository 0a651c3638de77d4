/* The database reader's parts shared by db_read.c (catalogue, passes in memory) and
 * db_stream.c (passes streamed into the spill). */
#ifndef PRISM_DB_RD_H
#define PRISM_DB_RD_H

#include <sqlite3.h>

#include "table.h"
#include "wstream.h"

/* databases attached to one connection (s0, s1, ...) */
struct reader {
        sqlite3 *db;
        sqlite3_stmt *cols;
        const char *const *paths;
        size_t n;
        struct err *err;
};

/* a kept column of a pass: where its values are */
struct rcol {
        char *name, *tbl, *col, *num_col;
        int text;
        int c; /* its column in the table read */
};

/* how rd_workload streams (db_open_streamed), or NULL */
struct dbstreaming {
        table_col_fn keep;
        void *keep_ctx;
        struct wspill **spill;
};

int rd_prep(struct reader *rd, sqlite3_stmt **st, const char *sql, size_t src);
/* err from a failed step: "cannot read 'PATH': ..." */
int rd_step_fail(struct reader *rd, size_t src, int rc);
/* The query reading the columns c0..c1 of cols, all in table cols[c0].tbl: the row
 * number, then each column (and its numbers' column, where it has one); ranged 1: only the
 * rows ?1 <= dispatch < ?2, 2: the row ?1 (malloc'd). */
char *part_sql(size_t src, const struct rcol *cols, size_t c0, size_t c1, int ranged);
/* The row st holds into row r of t: the columns c0..c1 of cols (in t's columns cols[i].c) */
void part_cells(sqlite3_stmt *st, const struct rcol *cols, size_t c0, size_t c1,
                struct table *t, size_t r);
/* the columns of a pass in recorded order, those want accepts (and Kernel_Name) */
int rd_cols(struct reader *rd, size_t src, long pass_id, table_col_fn want, void *ctx,
            struct rcol **out, size_t *nout);
void rcols_free(struct rcol *cols, size_t n);
/* t's columns: those of cols (text columns with their texts' slots) */
void rcols_table(struct rcol *cols, size_t n, struct table *t);

/* one pass into the spill as table ti: the columns want accepts to the spill, those keep
 * accepts (keep NULL: none) also into t with every row; t->nrows the pass's rows
 * (db_stream.c) */
int rd_pass_spill(struct reader *rd, size_t src, long pass_id, const char *name, size_t nrows,
                  table_col_fn want,
                  void *ctx, const struct dbstreaming *ds, table_col_fn keep, size_t ti,
                  struct table *t);

/* ---- what the reader accepts (db_check.c) ---- */
/* The rows of pass pass_id (name): stored, its recorded count, checked against every table
 * of the pass (count(*), nothing decoded); an error when they differ or stored < 0. The
 * rows themselves are checked as they are read: rd_row_num. */
int rd_rows(struct reader *rd, size_t src, long pass_id, const char *name,
            sqlite3_int64 stored, size_t *nrows);
/* 1 when column 0 of st is the integer want (the row number a table's next row must have) */
int rd_row_num(sqlite3_stmt *st, size_t want);
/* err: table tbl's row want is missing or out of place */
int rd_row_fail(struct reader *rd, size_t src, const char *tbl, size_t want, size_t nrows);
/* A counter's cell (column i of st) into row r of column c of t: a number, NaN for NULL;
 * a text or a blob is none: NaN, its text kept (as the CSV reader keeps a text cell) for
 * the damaged-cell warning. db_cell_text: the same for a value read from the file. */
void db_cell_num(sqlite3_stmt *st, int i, struct table *t, int c, size_t r);
void db_cell_text(struct table *t, int c, size_t r, int type, const void *v, size_t len);
/* row r of column c holds no text */
void db_cell_clear(struct table *t, int c, size_t r);
/* column i of st as a number: NaN for anything but an integer or a real */
double db_val_num(sqlite3_stmt *st, int i);
/* The damaged-cell check of the CSV reader on a pass read into memory; warnings name
 * PATH:PASS and the line the row has in the pass's CSV file (row + 2) */
void db_check_cells(struct table *t, const char *path, const char *pass);

#endif
