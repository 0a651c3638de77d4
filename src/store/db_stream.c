/* A database's pass streamed into the spill (wstream.h) a chunk of rows at a time: its
 * tables' pages decoded directly (db_pages.c) where that applies, else one ranged query per
 * chunk and table (docs/STORE.md). */
#include "columns.h"
#include "db_int.h"
#include "db_rd.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct dbpart {
        sqlite3_stmt *st; /* its rows ?1 <= dispatch < ?2 */
        size_t c0, c1;    /* its columns in cols */
        /* read from the file (db_pages.c) where that applies: the next row (pending: read
         * but not yet stored), and SQL for a row holding what prism never writes */
        struct dbpages *dp;
        int *cids;
        int pending;
        sqlite3_int64 prow;
        sqlite3_stmt *row;
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
 * SQL then reads the row, with its conversions. */
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

/* part pt's rows next ... next + m - 1 from the file into t */
static int part_direct_rows(struct dbchunk *d, struct dbpart *pt, size_t next, size_t m,
                            struct table *t)
{
        for (;;) {
                if (!pt->pending) {
                        int g = dbp_next(pt->dp, &pt->prow);
                        if (g == 0)
                                return 0;
                        if (g < 0)
                                return err_set(d->rd->err, ERR_INPUT,
                                               "cannot read '%s': damaged database (table '%s')",
                                               d->rd->paths[d->src], d->cols[pt->c0].tbl);
                        pt->pending = 1;
                }
                if (pt->prow >= (sqlite3_int64)(next + m))
                        return 0; /* the next chunk's */
                pt->pending = 0;
                if (pt->prow < (sqlite3_int64)next)
                        continue;
                size_t r = (size_t)(pt->prow - (sqlite3_int64)next);
                if (!part_vals(pt, d->cols, t, r))
                        continue;
                int s;
                sqlite3_bind_int64(pt->row, 1, pt->prow);
                if ((s = sqlite3_step(pt->row)) == SQLITE_ROW)
                        part_cells(pt->row, d->cols, pt->c0, pt->c1, t, r);
                sqlite3_reset(pt->row);
                if (s != SQLITE_ROW && s != SQLITE_DONE)
                        return rd_step_fail(d->rd, d->src, s);
        }
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
        if (!rc && plain && root > 1 && root <= UINT32_MAX &&
            (pt->dp = dbp_open(rd->db, schema, (uint32_t)root, pt->cids, n))) {
                sql = part_sql(src, d->cols, pt->c0, pt->c1, 2);
                rc = rd_prep(rd, &pt->row, sql, src);
                free(sql);
        }
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
        if (!m)
                return t;
        table_reserve(t, m);
        for (size_t i = 0; i < d->n; i++)
                if (d->cols[i].text && !t->str[d->cols[i].c])
                        t->str[d->cols[i].c] = xcalloc(t->cap_rows, sizeof(char *));
        /* rows a table lacks stay empty, as in rd_pass */
        for (size_t c = 0; c < t->ncols; c++)
                for (size_t r = 0; r < m; r++)
                        t->num[c][r] = NAN;
        memset(t->line, 0, m * sizeof *t->line);
        t->nrows = m;
        for (size_t k = 0; k < d->nparts; k++) {
                sqlite3_stmt *st = d->parts[k].st;
                int s;
                if (d->parts[k].dp) {
                        if (part_direct_rows(d, &d->parts[k], d->next, m, t))
                                return NULL;
                        continue;
                }
                sqlite3_bind_int64(st, 1, (sqlite3_int64)d->next);
                sqlite3_bind_int64(st, 2, (sqlite3_int64)(d->next + m));
                while ((s = sqlite3_step(st)) == SQLITE_ROW) {
                        sqlite3_int64 r = sqlite3_column_int64(st, 0) - (sqlite3_int64)d->next;
                        if (r >= 0 && (size_t)r < m)
                                part_cells(st, d->cols, d->parts[k].c0, d->parts[k].c1, t,
                                           (size_t)r);
                }
                sqlite3_reset(st);
                if (s != SQLITE_DONE) {
                        rd_step_fail(d->rd, d->src, s);
                        return NULL;
                }
        }
        d->next += m;
        return t;
}

static size_t dbc_row0(void *p)
{
        return ((struct dbchunk *)p)->row0;
}

/* one pass into the spill as table ti: the columns want accepts to the spill, those keep
 * accepts (keep NULL: none) also into t with every row; t->nrows the pass's rows */
int rd_pass_spill(struct reader *rd, size_t src, long pass_id, size_t nrows,
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
                char *sql = part_sql(src, d.cols, i, j, 1);
                rc = rd_prep(rd, &pt->st, sql, src);
                free(sql);
                if (!rc && !getenv("PRISM_DB_SQL"))
                        rc = part_direct(rd, src, &d, pt);
                i = j;
        }
        if (!rc) {
                struct spill_src ss = {&d.t, dbc_next, dbc_row0, &d, 1};
                rc = spill_load_src(ds->spill, ti, rd->paths[src], &ss, keep, ds->keep_ctx, t,
                                    rd->err);
        } else {
                table_init(t);
        }
        for (size_t k = 0; k < d.nparts; k++) {
                sqlite3_finalize(d.parts[k].st);
                sqlite3_finalize(d.parts[k].row);
                dbp_close(d.parts[k].dp);
                free(d.parts[k].cids);
                sb_free(&d.parts[k].text);
        }
        free(d.parts);
        rcols_free(d.cols, d.n);
        table_free(&d.t);
        return rc;
}

