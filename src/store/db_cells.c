/* A database cell into a table (db_rd.h): a counter's cell is a number, or n/a with the
 * warning the CSV reader gives (cellcheck.h); texts as stored. Apart from the row checks
 * (db_check.c), which read through db_rd.c, which reads its cells here. */
#include "cellcheck.h"
#include "db_int.h"
#include "db_rd.h"
#include "wstream.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text a damaged-cell warning shows for a blob: its bytes in hexadecimal */
static void blob_text(struct strbuf *sb, const unsigned char *b, size_t len)
{
        sb_add(sb, "x'");
        for (size_t i = 0; i < len && i < 32; i++)
                sb_addf(sb, "%02x", b[i]);
        sb_add(sb, len > 32 ? "...'" : "'");
}

void db_cell_text(struct table *t, int c, size_t r, int type, const void *v, size_t len)
{
        struct strbuf sb = {0};
        t->num[c][r] = NAN;
        if (type == SQLITE_BLOB)
                blob_text(&sb, v, len);
        else
                sb_addn(&sb, v ? v : "", len);
        /* the cell's text kept as the CSV reader keeps a text cell (put_cell): the
         * damaged-cell check names it as written */
        table_set_str(t, c, r, sb.buf ? sb.buf : "");
        sb_free(&sb);
}

void db_cell_clear(struct table *t, int c, size_t r)
{
        if (t->str[c] && t->str[c][r]) {
                if (!t->pooled)
                        free(t->str[c][r]);
                t->str[c][r] = NULL;
        }
}

void db_cell_num(sqlite3_stmt *st, int i, struct table *t, int c, size_t r)
{
        int ty = sqlite3_column_type(st, i);
        if (ty == SQLITE_INTEGER || ty == SQLITE_FLOAT || ty == SQLITE_NULL) {
                t->num[c][r] = ty == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
                db_cell_clear(t, c, r);
        } else {
                const void *v = ty == SQLITE_BLOB ? sqlite3_column_blob(st, i)
                                                  : (const void *)sqlite3_column_text(st, i);
                db_cell_text(t, c, r, ty, v, (size_t)sqlite3_column_bytes(st, i));
        }
}

double db_val_num(sqlite3_stmt *st, int i)
{
        int ty = sqlite3_column_type(st, i);
        return ty == SQLITE_INTEGER || ty == SQLITE_FLOAT ? sqlite3_column_double(st, i) : NAN;
}

void db_check_cells(struct table *t, const char *path, const char *pass)
{
        char *file = xasprintf("%s:%s", path, pass);
        struct cellcheck *cc = cellcheck_new();
        cellcheck_chunk(cc, t, file, 0);
        cellcheck_report(cc, t, NULL, file);
        free(file);
}
