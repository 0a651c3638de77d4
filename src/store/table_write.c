/* Writing a table as CSV (table.h), quoted so that table_load_csv reads it back. */
#include "table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/csvfield.h"

int table_write_csv(const struct table *t, const char *path, struct err *err)
{
        char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
        FILE *f = fopen(tmp, "wb");
        int rc = 0;
        if (!f) {
                rc = err_set(err, ERR_SYS, "cannot write '%s': %s", tmp, strerror(errno));
                goto out;
        }
        /* a first name that starts with a byte order mark keeps it: the reader strips one */
        if (t->ncols && !strncmp(t->names[0], "\xEF\xBB\xBF", 3))
                fputs("\xEF\xBB\xBF", f);
        for (size_t c = 0; c < t->ncols; c++) {
                if (c)
                        fputc(',', f);
                csv_put_field(f, t->names[c], t->ncols == 1);
        }
        fputc('\n', f);
        char buf[64];
        for (size_t r = 0; r < t->nrows; r++) {
                for (size_t c = 0; c < t->ncols; c++) {
                        if (c)
                                fputc(',', f);
                        csv_put_field(f, table_cell(t, (int)c, r, buf, sizeof buf), t->ncols == 1);
                }
                fputc('\n', f);
        }
        if (fclose(f) != 0) {
                rc = err_set(err, ERR_SYS, "cannot write '%s': %s", tmp, strerror(errno));
                unlink(tmp);
                goto out;
        }
        if (rename(tmp, path) != 0) {
                rc = err_set(err, ERR_SYS, "cannot rename '%s' to '%s': %s", tmp, path,
                             strerror(errno));
                unlink(tmp);
        }
out:
        free(tmp);
        return rc;
}
