/* SQLite helpers of the store (db_int.h), shared by the writer (db.c) and the readers
 * (db_read.c, db_rd.c, db_stream.c, multi.c): setup, errors, identifiers, column values,
 * whether a path is a database, how many databases one connection attaches. */
#include "db.h"
#include "db_int.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

/* Before SQLite's first use: no memory statistics (a global mutex around every
 * allocation, 10% of reading a database). Later calls are refused by SQLite, harmlessly. */
void db_sq_setup(void)
{
        static int done;
        if (!done) {
                sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
                done = 1;
        }
}

int db_sq_fail(sqlite3 *db, int rc, const char *what, struct err *err)
{
        return err_set(err, rc == SQLITE_NOMEM ? ERR_SYS : ERR_INPUT, "%s: %s", what,
                       db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

int db_is_path(const char *path)
{
        size_t l = strlen(path);
        if (is_dir(path))
                return 0;
        if (!is_file(path))
                return l > 3 && !strcmp(path + l - 3, ".db");
        char head[16] = {0};
        FILE *f = fopen(path, "rb");
        if (!f)
                return l > 3 && !strcmp(path + l - 3, ".db");
        size_t n = fread(head, 1, sizeof head, f);
        fclose(f);
        return n == sizeof head && !memcmp(head, "SQLite format 3", 16);
}

size_t db_attach_limit(void)
{
        sqlite3 *db = NULL;
        size_t n = 10;
        db_sq_setup();
        if (sqlite3_open(":memory:", &db) == SQLITE_OK)
                n = (size_t)sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, -1);
        sqlite3_close(db);
        return n ? n : 1;
}

/* s as an SQL identifier, double quotes doubled. */
void db_sql_ident(struct strbuf *sb, const char *s)
{
        sb_addc(sb, '"');
        for (; *s; s++) {
                if (*s == '"')
                        sb_addc(sb, '"');
                sb_addc(sb, *s);
        }
        sb_addc(sb, '"');
}

double db_col_num(sqlite3_stmt *st, int i)
{
        /* NULL reads as 0.0 (and reading a number converts nothing): the type only then */
        double v = sqlite3_column_double(st, i);
        return v == 0 && sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : v;
}

const char *db_col_text(sqlite3_stmt *st, int i)
{
        return sqlite3_column_type(st, i) == SQLITE_NULL ? NULL
                                                         : (const char *)sqlite3_column_text(st, i);
}
