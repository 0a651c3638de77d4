/* Helpers shared by the store's writer (db.c) and reader (db_read.c). */
#ifndef PRISM_DB_INT_H
#define PRISM_DB_INT_H

#include <sqlite3.h>
#include <stdint.h>

#include "../util/util.h"

/* Before SQLite's first use: no memory statistics. */
void db_sq_setup(void);
/* err from an SQLite result code, naming what failed. */
int db_sq_fail(sqlite3 *db, int rc, const char *what, struct err *err);
/* A column as a number (NaN for NULL) or text (NULL for NULL). */
double db_col_num(sqlite3_stmt *st, int i);
const char *db_col_text(sqlite3_stmt *st, int i);
/* Append s as a quoted SQL identifier (double quotes doubled). */
void db_sql_ident(struct strbuf *sb, const char *s);

/* A table's rows read straight from the database file (db_pages.c), in rowid order: the
 * table whose b-tree has root page root in the attached database schema, the values of
 * its columns cids[0..nc) (table column numbers; cids is kept). The caller holds a read
 * transaction on that database. NULL where this reading does not apply (a WAL database, a
 * -wal or -journal file beside it, UTF-16 texts, not a rowid table): then SQL reads the
 * table. */
struct dbpages;
struct dbp_val {
        int type; /* SQLITE_NULL, _INTEGER, _FLOAT (num), _TEXT, _BLOB (text, len) */
        double num;
        const char *text;
        size_t len;
};
struct dbpages *dbp_open(sqlite3 *db, const char *schema, uint32_t root, const int *cids,
                         size_t nc);
/* The next row: 1 (*rowid, and dbp_row its values, valid until the next call), 0 at the
 * end, -1 where the pages are not what the format and SQLite expect (then SQL reads the
 * table and SQLite decides: db_stream.c). */
int dbp_next(struct dbpages *p, sqlite3_int64 *rowid);
const struct dbp_val *dbp_row(const struct dbpages *p);
void dbp_close(struct dbpages *p);

#endif
