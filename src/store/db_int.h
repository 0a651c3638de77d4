/* Helpers shared by the store's writer (db.c) and reader (db_read.c). */
#ifndef PRISM_DB_INT_H
#define PRISM_DB_INT_H

#include <sqlite3.h>

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

#endif
