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

/* the CSV text, built in sb; with f, written there whenever 64 KiB are held (a large table
 * is not held whole), else all of it kept in sb */
static void put_csv(struct strbuf *sb, FILE *f, char *const *names, size_t ncols, size_t nrows,
                    csv_cell_fn cell, const void *ctx)
{
        /* a first name that starts with a byte order mark keeps it: the reader strips one */
        if (ncols && !strncmp(names[0], "\xEF\xBB\xBF", 3))
                sb_add(sb, "\xEF\xBB\xBF");
        char buf[64];
        for (size_t r = 0; r <= nrows; r++) { /* row 0: the names */
                for (size_t c = 0; c < ncols; c++) {
                        const char *s = r ? cell(ctx, c, r - 1, buf, sizeof buf) : names[c];
                        size_t l = strlen(s);
                        xgrow(&sb->buf, &sb->cap, sb->len + 2 * l + 4, 1);
                        if (c)
                                sb->buf[sb->len++] = ',';
                        sb->len += csv_field(sb->buf + sb->len, s, l, ncols == 1);
                }
                xgrow(&sb->buf, &sb->cap, sb->len + 2, 1);
                sb->buf[sb->len++] = '\n';
                sb->buf[sb->len] = 0;
                if (f && sb->len >= 65536) {
                        fwrite(sb->buf, 1, sb->len, f);
                        sb_reset(sb);
                }
        }
        if (f && sb->len) {
                fwrite(sb->buf, 1, sb->len, f);
                sb_reset(sb);
        }
}

/* 1 when path holds exactly text[0 .. len): its bytes read and compared a block at a time
 * (its size first, by fstat of the open file: a file of len bytes is read to its size, not
 * on to its end; a pipe or device in the way does not block) */
static int same_file(const char *path, const char *text, size_t len)
{
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        struct stat st;
        int same = !fstat(fd, &st) && S_ISREG(st.st_mode) && (size_t)st.st_size == len;
        char blk[16384];
        size_t at = 0;
        while (same && at < len) {
                ssize_t n = read(fd, blk, sizeof blk);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        same = n == 0 && at == len;
                        break;
                }
                same = (size_t)n <= len - at && !memcmp(blk, text + at, (size_t)n);
                at += (size_t)n;
        }
        close(fd);
        return same;
}

int csv_save(const char *path, char *const *names, size_t ncols, size_t nrows, csv_cell_fn cell,
             const void *ctx, int keep_same, struct err *err)
{
        /* keep_same: the text formatted in memory first, to compare with the file's; else
         * straight into the temporary file (a large table is not held twice) */
        struct strbuf text = {0};
        if (keep_same) {
                put_csv(&text, NULL, names, ncols, nrows, cell, ctx);
                if (same_file(path, text.buf ? text.buf : "", text.len)) {
                        sb_free(&text);
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
        if (keep_same && text.len)
                fwrite(text.buf, 1, text.len, f);
        else
                put_csv(&text, f, names, ncols, nrows, cell, ctx);
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
        sb_free(&text);
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
