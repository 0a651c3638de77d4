/* The database reader's parts (db_rd.h) shared by db_read.c (the catalogue, passes read
 * into memory) and db_stream.c (passes streamed into the spill): statements, the columns
 * of a pass and the queries and cells of their parts. */
#include "columns.h"
#include "db_int.h"
#include "db_rd.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rd_prep(struct reader *rd, sqlite3_stmt **st, const char *sql, size_t src)
{
        int rc = sqlite3_prepare_v2(rd->db, sql, -1, st, NULL);
        if (rc != SQLITE_OK)
                return err_set(rd->err, ERR_INPUT, "cannot read '%s': %s", rd->paths[src],
                               sqlite3_errmsg(rd->db));
        return 0;
}

int rd_step_fail(struct reader *rd, size_t src, int rc)
{
        return err_set(rd->err, rc == SQLITE_NOMEM ? ERR_SYS : ERR_INPUT, "cannot read '%s': %s",
                       rd->paths[src], sqlite3_errmsg(rd->db));
}

/* The query reading the columns c0..c1 of cols, all in table cols[c0].tbl: the row
 * number, then each column (and its numbers' column, where it has one); ranged 1: only the
 * rows ?1 <= dispatch < ?2, 2: the row ?1. */
char *part_sql(size_t src, const struct rcol *cols, size_t c0, size_t c1, int ranged)
{
        struct strbuf sb = {0};
        sb_add(&sb, "SELECT dispatch");
        for (size_t i = c0; i < c1; i++) {
                sb_add(&sb, ", ");
                db_sql_ident(&sb, cols[i].col);
                if (cols[i].num_col) {
                        sb_add(&sb, ", ");
                        db_sql_ident(&sb, cols[i].num_col);
                }
        }
        sb_addf(&sb, " FROM s%zu.", src);
        db_sql_ident(&sb, cols[c0].tbl);
        if (ranged)
                sb_add(&sb, ranged == 1 ? " WHERE dispatch >= ?1 AND dispatch < ?2"
                                        : " WHERE dispatch = ?1");
        sb_add(&sb, " ORDER BY dispatch");
        return sb_detach(&sb);
}

/* The row st holds into row r of t: the columns c0..c1 of cols (in t's columns cols[i].c) */
void part_cells(sqlite3_stmt *st, const struct rcol *cols, size_t c0, size_t c1,
                       struct table *t, size_t r)
{
        int k = 1;
        for (size_t i = c0; i < c1; i++) {
                int c = cols[i].c;
                if (!cols[i].text) {
                        db_cell_num(st, k++, t, c, r);
                        continue;
                }
                const char *v = db_col_text(st, k++);
                if (v)
                        table_set_str(t, c, r, v);
                else
                        db_cell_clear(t, c, r);
                t->num[c][r] = cols[i].num_col ? db_val_num(st, k++) : v ? table_text_num(v) : NAN;
        }
}

void rcols_free(struct rcol *cols, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(cols[i].name);
                free(cols[i].tbl);
                free(cols[i].col);
                free(cols[i].num_col);
        }
        free(cols);
}

/* the columns of a pass in recorded order, those want accepts (and Kernel_Name) */
int rd_cols(struct reader *rd, size_t src, long pass_id, table_col_fn want, void *ctx,
                   struct rcol **out, size_t *nout)
{
        sqlite3_stmt *st = rd->cols;
        struct rcol *cols = NULL;
        size_t n = 0, cap = 0;
        int s;
        struct smap seen = {0}; /* a name twice would be read into one column */
        char *twice = NULL;
        sqlite3_bind_int64(st, 1, (sqlite3_int64)src);
        sqlite3_bind_int64(st, 2, pass_id);
        while ((s = sqlite3_step(st)) == SQLITE_ROW) {
                const char *name = db_col_text(st, 0), *tbl = db_col_text(st, 1),
                           *col = db_col_text(st, 2), *num = db_col_text(st, 4);
                if (!name || !tbl || !col) {
                        s = SQLITE_MISUSE; /* not what prism writes: refused below */
                        break;
                }
                if (smap_get(&seen, name, NULL)) {
                        twice = xstrdup(name);
                        s = SQLITE_MISUSE;
                        break;
                }
                smap_put(&seen, name, 1);
                if (want && strcmp(name, COL_KERNEL_NAME) && !want(ctx, name))
                        continue;
                xgrow(&cols, &cap, n + 1, sizeof *cols);
                cols[n].name = xstrdup(name);
                cols[n].tbl = xstrdup(tbl);
                cols[n].col = xstrdup(col);
                cols[n].num_col = num ? xstrdup(num) : NULL;
                cols[n].text = sqlite3_column_int(st, 3) != 0;
                n++;
        }
        sqlite3_reset(st);
        smap_free(&seen);
        *out = cols;
        *nout = n;
        if (s != SQLITE_DONE) {
                rcols_free(cols, n);
                *out = NULL;
                *nout = 0;
                int rc = twice ? err_set(rd->err, ERR_INPUT,
                                         "cannot read '%s': column '%.100s' twice in pass %ld",
                                         rd->paths[src], twice, pass_id)
                         : s == SQLITE_MISUSE
                             ? err_set(rd->err, ERR_INPUT,
                                       "cannot read '%s': a column of pass %ld without its "
                                       "name, table or table column",
                                       rd->paths[src], pass_id)
                             : rd_step_fail(rd, src, s);
                free(twice);
                return rc;
        }
        return 0;
}

/* t's columns: those of cols (text columns with their texts' slots) */
void rcols_table(struct rcol *cols, size_t n, struct table *t)
{
        for (size_t i = 0; i < n; i++) {
                cols[i].c = table_add_col(t, cols[i].name);
                if (cols[i].text && !t->str[cols[i].c])
                        t->str[cols[i].c] = xcalloc(t->cap_rows ? t->cap_rows : 1,
                                                    sizeof(char *));
        }
}
