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
int rd_pass_spill(struct reader *rd, size_t src, long pass_id, size_t nrows, table_col_fn want,
                  void *ctx, const struct dbstreaming *ds, table_col_fn keep, size_t ti,
                  struct table *t);

#endif
