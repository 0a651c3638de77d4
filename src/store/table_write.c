/* Writing a table as CSV (table.h), quoted so that table_load_csv reads it back. */
#include "table.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/csvfield.h"

static void put_csv(FILE *f, char *const *names, size_t ncols, size_t nrows, csv_cell_fn cell,
                    const void *ctx)
{
        /* a first name that starts with a byte order mark keeps it: the reader strips one */
        if (ncols && !strncmp(names[0], "\xEF\xBB\xBF", 3))
                fputs("\xEF\xBB\xBF", f);
        for (size_t c = 0; c < ncols; c++) {
                if (c)
                        fputc(',', f);
                csv_put_field(f, names[c], ncols == 1);
        }
        fputc('\n', f);
        char buf[64];
        for (size_t r = 0; r < nrows; r++) {
                for (size_t c = 0; c < ncols; c++) {
                        if (c)
                                fputc(',', f);
                        csv_put_field(f, cell(ctx, c, r, buf, sizeof buf), ncols == 1);
                }
                fputc('\n', f);
        }
}

/* 1 when path holds exactly text[0 .. len): a regular file of that size (fstat of the open
 * file: no stat before), read in one piece and compared */
static int same_file(const char *path, const char *text, size_t len)
{
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        struct stat st;
        int same = 0;
        if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (size_t)st.st_size == len) {
                char *old = xmalloc(len + 1);
                size_t n = 0;
                /* len + 1 asked: a file grown since fstat does not compare equal */
                while (n <= len) {
                        ssize_t r = read(fd, old + n, len + 1 - n);
                        if (r < 0 && errno == EINTR)
                                continue;
                        if (r <= 0) {
                                if (r < 0) /* unreadable: written anew */
                                        n = len + 1;
                                break;
                        }
                        n += (size_t)r;
                        if (n == len) /* fewer than asked, and the size fstat gave */
                                break;
                }
                same = n == len && !memcmp(old, text, len);
                free(old);
        }
        close(fd);
        return same;
}

int csv_save(const char *path, char *const *names, size_t ncols, size_t nrows, csv_cell_fn cell,
             const void *ctx, int keep_same, struct err *err)
{
        /* keep_same: the text formatted in memory first, to compare with the file's; else
         * straight into the temporary file (a large table is not held twice) */
        char *text = NULL;
        size_t len = 0;
        if (keep_same) {
                FILE *m = open_memstream(&text, &len);
                if (!m)
                        return err_set(err, ERR_SYS, "cannot write '%s': %s", path,
                                       strerror(errno));
                put_csv(m, names, ncols, nrows, cell, ctx);
                if (fclose(m) != 0) {
                        free(text);
                        return err_set(err, ERR_SYS, "cannot write '%s': %s", path,
                                       strerror(errno));
                }
                if (same_file(path, text, len)) {
                        free(text);
                        return 0;
                }
        }
        char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
        FILE *f = fopen(tmp, "wb");
        int rc = 0;
        if (!f) {
                rc = err_set(err, ERR_SYS, "cannot write '%s': %s", tmp, strerror(errno));
                goto out;
        }
        if (keep_same)
                fwrite(text, 1, len, f);
        else
                put_csv(f, names, ncols, nrows, cell, ctx);
        int bad = ferror(f);
        if (fclose(f) != 0 || bad) {
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
        free(text);
        return rc;
}

static const char *table_text(const void *t, size_t col, size_t row, char *buf, size_t len)
{
        return table_cell(t, (int)col, row, buf, len);
}

int table_write_csv(const struct table *t, const char *path, struct err *err)
{
        return csv_save(path, t->names, t->ncols, t->nrows, table_text, t, 0, err);
}

int table_save_csv(const struct table *t, const char *path, struct err *err)
{
        return csv_save(path, t->names, t->ncols, t->nrows, table_text, t, 1, err);
}
