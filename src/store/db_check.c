/* What the database reader accepts (docs/STORE.md, "One truth"): a database written by
 * another program, or damaged, analyzes as the directory it came from would, or fails in
 * one line naming the file. The stored row counts are checked against the tables, never
 * trusted (a cell: db_cells.c). */
#include "cellcheck.h"
#include "db_int.h"
#include "db_rd.h"
#include "wstream.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the rows of table tbl of source src: count(*) (a walk of the b-tree's pages, nothing
 * decoded); -1 with rd->err set when it cannot be read */
static int tbl_count(struct reader *rd, size_t src, const char *tbl, sqlite3_int64 *n)
{
        struct strbuf sb = {0};
        sb_addf(&sb, "SELECT count(*) FROM s%zu.", src);
        db_sql_ident(&sb, tbl);
        sqlite3_stmt *st = NULL;
        int rc = rd_prep(rd, &st, sb.buf, src), s;
        sb_free(&sb);
        if (rc)
                return rc;
        if ((s = sqlite3_step(st)) == SQLITE_ROW)
                *n = sqlite3_column_int64(st, 0);
        else
                rc = rd_step_fail(rd, src, s);
        sqlite3_finalize(st);
        return rc;
}

/* SQLite's own check of table tbl's b-tree (PRAGMA quick_check(tbl)): its pages, cells,
 * overflow chains and row order. SQLite reads a damaged table without a word where the
 * damage is in no page it needs to be well-formed (an overflow chain that loops reads
 * as garbage); so every pass table is checked before it is read, whichever way. */
static int tbl_check(struct reader *rd, size_t src, const char *tbl)
{
        char *sql = sqlite3_mprintf("PRAGMA s%d.quick_check(%Q)", (int)src, tbl);
        sqlite3_stmt *st = NULL;
        int rc = rd_prep(rd, &st, sql, src), s;
        sqlite3_free(sql);
        if (rc)
                return rc;
        if ((s = sqlite3_step(st)) != SQLITE_ROW)
                rc = rd_step_fail(rd, src, s);
        else if (!db_col_text(st, 0) || strcmp(db_col_text(st, 0), "ok")) {
                /* its first finding, without the "*** in database sN ***" line */
                const char *m = db_col_text(st, 0) ? db_col_text(st, 0) : "no answer";
                m = strrchr(m, '\n') ? strrchr(m, '\n') + 1 : m;
                rc = err_set(rd->err, ERR_INPUT,
                             "cannot read '%s': database disk image is malformed (table '%s': "
                             "%.200s)",
                             rd->paths[src], tbl, m);
        }
        sqlite3_finalize(st);
        return rc;
}

int rd_rows(struct reader *rd, size_t src, long pass_id, const char *name,
            sqlite3_int64 stored, size_t *nrows)
{
        const char *path = rd->paths[src];
        sqlite3_stmt *st = NULL;
        int rc = rd_prep(rd, &st,
                         "SELECT DISTINCT tbl FROM v_columns WHERE src = ?1 AND pass_id = ?2 "
                         "ORDER BY tbl",
                         src),
            s, ntbl = 0;
        *nrows = 0;
        if (rc)
                return rc;
        sqlite3_bind_int64(st, 1, (sqlite3_int64)src);
        sqlite3_bind_int64(st, 2, pass_id);
        while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
                const char *tbl = db_col_text(st, 0);
                sqlite3_int64 n = 0;
                ntbl++;
                if (!tbl)
                        rc = err_set(rd->err, ERR_INPUT,
                                     "cannot read '%s': pass '%s' has a column in no table",
                                     path, name);
                else if (!(rc = tbl_check(rd, src, tbl)) &&
                         !(rc = tbl_count(rd, src, tbl, &n)) && n != stored)
                        rc = err_set(rd->err, ERR_INPUT,
                                     "cannot read '%s': pass '%s' records %lld rows but its "
                                     "table '%s' holds %lld",
                                     path, name, (long long)stored, tbl, (long long)n);
        }
        if (!rc && s != SQLITE_DONE)
                rc = rd_step_fail(rd, src, s);
        sqlite3_finalize(st);
        if (!rc && !ntbl && stored != 0) {
                /* no columns: the rows of the table named like the pass, if any */
                sqlite3_int64 n = 0;
                struct err quiet = {0};
                struct err *e = rd->err;
                rd->err = &quiet;
                int missing = tbl_count(rd, src, name, &n);
                rd->err = e;
                if (missing || n != stored)
                        rc = err_set(rd->err, ERR_INPUT,
                                     "cannot read '%s': pass '%s' records %lld rows but its "
                                     "table holds %lld",
                                     path, name, (long long)stored, (long long)n);
        }
        if (!rc && stored < 0)
                rc = err_set(rd->err, ERR_INPUT, "cannot read '%s': pass '%s' records %lld rows",
                             path, name, (long long)stored);
        if (!rc)
                *nrows = (size_t)stored;
        return rc;
}

int rd_row_fail(struct reader *rd, size_t src, const char *tbl, size_t want, size_t nrows)
{
        return err_set(rd->err, ERR_INPUT,
                       "cannot read '%s': table '%s' does not hold its rows 0 to %zu once "
                       "each, in order (row %zu is missing or out of place)",
                       rd->paths[src], tbl, nrows ? nrows - 1 : 0, want);
}

int rd_row_num(sqlite3_stmt *st, size_t want)
{
        return sqlite3_column_type(st, 0) == SQLITE_INTEGER &&
               sqlite3_column_int64(st, 0) == (sqlite3_int64)want;
}
