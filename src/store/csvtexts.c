/* The entry points of table.c's loader, and small CSV files' bytes kept for a second pass
 * (table.h, struct csv_texts). */
#include "table.h"
#include "bytesrc.h"
#include "tableio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int table_load_csv(struct table *t, const char *path, struct err *err)
{
        return table_load_any(t, path, NULL, NULL, NULL, NULL, NULL, err);
}

int table_load_csv_cols(struct table *t, const char *path, table_col_fn want, void *ctx,
                        struct err *err)
{
        return table_load_any(t, path, NULL, want, want ? ctx : NULL, NULL, NULL, err);
}

int table_load_csv_in(struct table *t, const char *path, const struct csv_texts *ct,
                      table_col_fn want, void *ctx, struct err *err)
{
        return table_load_any(t, path, csv_texts_get(ct, path), want, want ? ctx : NULL, NULL,
                              NULL, err);
}

int csv_stream(const char *path, csv_row_fn row, void *ctx, struct err *err)
{
        struct table t;
        return table_load_any(&t, path, NULL, NULL, NULL, row, ctx, err);
}

int csv_stream_in(const char *path, const struct csv_texts *ct, csv_row_fn row, void *ctx,
                  struct err *err)
{
        struct table t;
        return table_load_any(&t, path, csv_texts_get(ct, path), NULL, NULL, row, ctx, err);
}

void csv_texts_read(struct csv_texts *ct, const char *path)
{
        if (csv_texts_get(ct, path))
                return;
        /* as table.c reads a CSV file; any problem is left to the load to report */
        off_t size;
        int fd = open_regular_as(path, "CSV file", &size, NULL);
        if (fd < 0)
                return;
        char *buf = NULL;
        size_t n = 0, len = 0;
        if ((size_t)size <= CSV_TEXT_MAX) {
                len = (size_t)size;
                buf = xmalloc(len + 1);
                /* len + 1 asked: a file grown since fstat is not kept (the load reads it) */
                while (n <= len) {
                        ssize_t r = read(fd, buf + n, len + 1 - n);
                        if (r < 0 && errno == EINTR)
                                continue;
                        if (r <= 0) {
                                if (r < 0) /* a read error: the load reports it */
                                        n = len + 1;
                                break;
                        }
                        n += (size_t)r;
                        if (n == len)
                                break;
                }
        }
        close(fd);
        /* gzip: the load decompresses it (bytesrc.h); these bytes are not its text */
        if (!buf || n != len || bsrc_is_gzip(buf, n)) {
                free(buf);
                return;
        }
        xgrow(&ct->v, &ct->cap, ct->n + 1, sizeof *ct->v);
        ct->v[ct->n++] = (struct csv_text){xstrdup(path), buf, len};
}

const struct csv_text *csv_texts_get(const struct csv_texts *ct, const char *path)
{
        for (size_t i = 0; ct && i < ct->n; i++)
                if (!strcmp(ct->v[i].path, path))
                        return &ct->v[i];
        return NULL;
}

void csv_texts_free(struct csv_texts *ct)
{
        for (size_t i = 0; i < ct->n; i++) {
                free(ct->v[i].path);
                free(ct->v[i].buf);
        }
        free(ct->v);
        memset(ct, 0, sizeof *ct);
}
