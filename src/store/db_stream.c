/* A database's pass streamed into the spill (wstream.h) a chunk of rows at a time: its
 * tables' pages decoded directly (db_pages.c) where that applies, else one query per table
 * stepped along (docs/STORE.md). Either way its rows must be 0 .. nrows - 1 in order. */
#include "columns.h"
#include "db_int.h"
#include "db_rd.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct dbpart {
        /* every row of its table in order, through SQL: the rows 0 .. nrows - 1 */
        sqlite3_stmt *st;
        size_t c0, c1; /* its columns in cols */
        size_t next;   /* the row number its next row must have */
        /* read from the file (db_pages.c) while that applies; NULL from the first row
         * it does not read as SQLite would for sure (a value prism never writes, a
         * page it does not expect): SQL reads from there on */
        struct dbpages *dp;
        int *cids;
        struct strbuf text;
};

struct dbchunk {
        struct reader *rd;
        size_t src, nrows, row0, next; /* the pass's rows; the chunk's first; the next's */
        struct rcol *cols;
        size_t n;
        struct dbpart *parts;
        size_t nparts;
        struct table t; /* the chunk: cols' columns */
};

/* x, a value of a numbers' column, into *out (NULL: NaN); 1 when it is none (a text, a
 * blob), *out untouched */
static inline int val_num(const struct dbp_val *x, double *out)
{
        if (x->type != SQLITE_INTEGER && x->type != SQLITE_FLOAT && x->type != SQLITE_NULL)
                return 1;
        *out = x->type == SQLITE_NULL ? NAN : x->num;
        return 0;
}

/* The values of the row dp read into row r of t (part_cells' cells); 1 when one is not
 * as prism writes it (text in a counter's column, a number in a text column, a blob):
 * SQL then reads, with its conversions. */
static int part_vals(struct dbpart *pt, const struct rcol *cols, struct table *t, size_t r)
{
        const struct dbp_val *v = dbp_row(pt->dp);
        for (size_t i = pt->c0; i < pt->c1; i++) {
                int c = cols[i].c;
                const struct dbp_val *x = v++;
                if (!cols[i].text) {
                        if (val_num(x, &t->num[c][r]))
                                return 1;
                        continue;
                }
                const char *s = NULL;
                if (x->type == SQLITE_TEXT) {
                        sb_reset(&pt->text);
                        sb_addn(&pt->text, x->text, x->len);
                        s = pt->text.buf;
                        table_set_str(t, c, r, s);
                } else if (x->type != SQLITE_NULL) {
                        return 1;
                }
                if (cols[i].num_col) {
                        if (val_num(v++, &t->num[c][r]))
                                return 1;
                } else {
                        t->num[c][r] = s ? table_text_num(s) : NAN;
                }
        }
        return 0;
}

/* part pt's rows pt->next .. row0 + m - 1 through SQL into t (row0: t's first); the rows
 * before row0 that the file's pages gave are stepped over, their numbers checked */
static int part_sql_rows(struct dbchunk *d, struct dbpart *pt, size_t row0, size_t m,
                         struct table *t)
{
        int s = SQLITE_ROW;
        const char *tbl = d->cols[pt->c0].tbl;
        while (pt->next < row0 + m) {
                if ((s = sqlite3_step(pt->st)) != SQLITE_ROW)
                        break;
                if (!rd_row_num(pt->st, pt->next))
                        return rd_row_fail(d->rd, d->src, tbl, pt->next, d->nrows);
                if (pt->next >= row0)
                        part_cells(pt->st, d->cols, pt->c0, pt->c1, t, pt->next - row0);
                pt->next++;
        }
        if (s == SQLITE_DONE)
                return rd_row_fail(d->rd, d->src, tbl, pt->next, d->nrows);
        return s == SQLITE_ROW ? 0 : rd_step_fail(d->rd, d->src, s);
}

/* part pt's rows row0 .. row0 + m - 1 into t: from the file's pages while they read as
 * prism writes them, else (from that row's chunk on) through SQL */
static int part_rows(struct dbchunk *d, struct dbpart *pt, size_t row0, size_t m,
                     struct table *t)
{
        for (size_t j = 0; pt->dp && j < m; j++) {
                sqlite3_int64 rowid;
                if (dbp_next(pt->dp, &rowid) != 1 || rowid != (sqlite3_int64)(row0 + j) ||
                    part_vals(pt, d->cols, t, j)) {
                        /* SQL decides, from the start of the table: the rows before this
                         * chunk stepped over, this chunk's read again */
                        dbp_close(pt->dp);
                        pt->dp = NULL;
                        pt->next = 0;
                        break;
                }
        }
        if (pt->dp) {
                pt->next = row0 + m;
                return 0;
        }
        return part_sql_rows(d, pt, row0, m, t);
}

/* after the last row: no more in pt's table (the SQL count said so; the walk agrees) */
static int part_end(struct dbchunk *d, struct dbpart *pt)
{
        sqlite3_int64 rowid;
        if (pt->dp && dbp_next(pt->dp, &rowid) == 0)
                return 0;
        if (pt->dp) { /* the walk says otherwise: SQL decides */
                dbp_close(pt->dp);
                pt->dp = NULL;
                pt->next = 0;
                sqlite3_reset(pt->st);
                int rc = part_sql_rows(d, pt, d->nrows, 0, &d->t);
                if (rc)
                        return rc;
        }
        int s = sqlite3_step(pt->st);
        if (s == SQLITE_ROW)
                return rd_row_fail(d->rd, d->src, d->cols[pt->c0].tbl, d->nrows, d->nrows);
        return s == SQLITE_DONE ? 0 : rd_step_fail(d->rd, d->src, s);
}

/* pt read from the file where that applies (db_pages.c): its table's root page and its
 * columns' numbers. Left to SQL: a table whose row number is not its rowid (dispatch
 * INTEGER PRIMARY KEY, as prism writes it), a column with a default value (added later:
 * rows before hold none). */
static int part_direct(struct reader *rd, size_t src, struct dbchunk *d, struct dbpart *pt)
{
        const char *tbl = d->cols[pt->c0].tbl;
        char *schema = xasprintf("s%zu", src);
        char *sql = xasprintf("SELECT (SELECT rootpage FROM s%zu.sqlite_master WHERE type = "
                              "'table' AND name = ?1), cid, name, dflt_value, pk, "
                              "upper(type) FROM pragma_table_info(?1, '%s')",
                              src, schema);
        sqlite3_stmt *st = NULL;
        struct smap cid = {0};
        int rc = rd_prep(rd, &st, sql, src), s, plain = 1, key = 0;
        sqlite3_int64 root = 0;
        free(sql);
        if (!rc) {
                sqlite3_bind_text(st, 1, tbl, -1, SQLITE_STATIC);
                while ((s = sqlite3_step(st)) == SQLITE_ROW) {
                        root = sqlite3_column_int64(st, 0);
                        if (db_col_text(st, 2))
                                smap_put(&cid, db_col_text(st, 2), sqlite3_column_int(st, 1));
                        plain = plain && sqlite3_column_type(st, 3) == SQLITE_NULL;
                        /* dispatch INTEGER PRIMARY KEY, the only key: the rowid itself */
                        const char *name = db_col_text(st, 2), *type = db_col_text(st, 5);
                        if (sqlite3_column_int(st, 4))
                                key += name && type && !strcmp(name, "dispatch") &&
                                               !strcmp(type, "INTEGER") &&
                                               sqlite3_column_int(st, 4) == 1
                                           ? 1
                                           : 2;
                }
                plain = plain && key == 1;
                rc = s == SQLITE_DONE ? 0 : rd_step_fail(rd, src, s);
        }
        sqlite3_finalize(st);
        size_t n = 0;
        pt->cids = xmalloc(2 * (pt->c1 - pt->c0) * sizeof *pt->cids);
        for (size_t i = pt->c0; i < pt->c1 && plain; i++) {
                plain = smap_get(&cid, d->cols[i].col, &pt->cids[n++]);
                if (plain && d->cols[i].num_col)
                        plain = smap_get(&cid, d->cols[i].num_col, &pt->cids[n++]);
        }
        smap_free(&cid);
        if (!rc && plain && root > 1 && root <= UINT32_MAX)
                pt->dp = dbp_open(rd->db, schema, (uint32_t)root, pt->cids, n);
        free(schema);
        return rc;
}

static const struct table *dbc_next(void *p, size_t max_rows, struct err *err)
{
        struct dbchunk *d = p;
        struct table *t = &d->t;
        (void)err; /* rd->err, the same */
        /* the previous chunk's rows go; the columns and their capacity stay */
        table_clear_rows(t);
        d->row0 = d->next;
        size_t m = d->nrows - d->next < max_rows ? d->nrows - d->next : max_rows;
        if (!m) {
                for (size_t k = 0; k < d->nparts; k++)
                        if (part_end(d, &d->parts[k]))
                                return NULL;
                return t;
        }
        table_reserve(t, m);
        for (size_t i = 0; i < d->n; i++)
                if (d->cols[i].text && !t->str[d->cols[i].c])
                        t->str[d->cols[i].c] = xcalloc(t->cap_rows, sizeof(char *));
        /* rows a table lacks stay empty, as in rd_pass */
        for (size_t c = 0; c < t->ncols; c++)
                for (size_t r = 0; r < m; r++)
                        t->num[c][r] = NAN;
        for (size_t r = 0; r < m; r++) /* the line a row has in its CSV file */
                t->line[r] = d->next + r + 2;
        t->nrows = m;
        for (size_t k = 0; k < d->nparts; k++)
                if (part_rows(d, &d->parts[k], d->next, m, t))
                        return NULL;
        d->next += m;
        return t;
}

static size_t dbc_row0(void *p)
{
        return ((struct dbchunk *)p)->row0;
}

/* one pass into the spill as table ti: the columns want accepts to the spill, those keep
 * accepts (keep NULL: none) also into t with every row; t->nrows the pass's rows */
int rd_pass_spill(struct reader *rd, size_t src, long pass_id, const char *name, size_t nrows,
                  table_col_fn want, void *ctx, const struct dbstreaming *ds,
                  table_col_fn keep, size_t ti, struct table *t)
{
        struct dbchunk d = {.rd = rd, .src = src, .nrows = nrows};
        table_init(&d.t);
        int rc = rd_cols(rd, src, pass_id, want, ctx, &d.cols, &d.n);
        if (!rc)
                rcols_table(d.cols, d.n, &d.t);
        for (size_t i = 0; i < d.n && !rc;) {
                size_t j = i + 1;
                while (j < d.n && !strcmp(d.cols[j].tbl, d.cols[i].tbl))
                        j++;
                d.parts = xrealloc(d.parts, (d.nparts + 1) * sizeof *d.parts);
                struct dbpart *pt = &d.parts[d.nparts++];
                *pt = (struct dbpart){.c0 = i, .c1 = j};
                char *sql = part_sql(src, d.cols, i, j, 0);
                rc = rd_prep(rd, &pt->st, sql, src);
                free(sql);
                if (!rc && !getenv("PRISM_DB_SQL"))
                        rc = part_direct(rd, src, &d, pt);
                i = j;
        }
        if (!rc) {
                /* its cells checked as the CSV reader checks them (db_check_cells) */
                struct spill_src ss = {&d.t, dbc_next, dbc_row0, &d, 0};
                char *file = xasprintf("%s:%s", rd->paths[src], name);
                rc = spill_load_src(ds->spill, ti, file, &ss, keep, ds->keep_ctx, t, rd->err);
                free(file);
        } else {
                table_init(t);
        }
        for (size_t k = 0; k < d.nparts; k++) {
                sqlite3_finalize(d.parts[k].st);
                dbp_close(d.parts[k].dp);
                free(d.parts[k].cids);
                sb_free(&d.parts[k].text);
        }
        free(d.parts);
        rcols_free(d.cols, d.n);
        table_free(&d.t);
        return rc;
}

