/* --save-dfs: one CSV per table, values at full precision (via the table writer). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../store/table.h"
#include "render.h"

char *dfs_path(const char *dir, const struct rtable *t)
{
        size_t dl = strlen(dir), il = strlen(t->id), tl = t->pt->title ? strlen(t->pt->title) : 0;
        char *path = xmalloc(dl + il + tl + 7), *o = path;
        memcpy(o, dir, dl);
        o += dl;
        *o++ = '/';
        memcpy(o, t->id, il);
        o += il;
        if (t->pt->title) {
                *o++ = '_';
                for (const char *p = t->pt->title; *p; p++)
                        *o++ = *p == ' ' ? '_' : *p == '/' ? '-' : *p;
        }
        memcpy(o, ".csv", 5);
        return path;
}

/* a table's CSV cells: column 0 the row keys, then the cells at full precision */
struct dfs_cells {
        const struct rtable *t;
        const int *whole;
};

static const char *dfs_cell(const void *ctx, size_t col, size_t row, char *buf, size_t len)
{
        const struct dfs_cells *d = ctx;
        if (col == 0)
                return d->t->keys[row] ? d->t->keys[row] : "";
        const struct cell *cl = &d->t->cells[row * d->t->ncols + col - 1];
        if (cl->text)
                return cl->text;
        if (d->whole[col - 1] && isfinite(cl->v))
                return fmt_fixed(cl->v, 0, buf, len);
        return isnan(cl->v) ? "" : fmt_num(cl->v, buf);
}

int render_save_dfs(const char *dir, const struct analysis *an, struct err *err)
{
        int rc = make_dir(dir, err);
        for (size_t i = 0; i < an->ntables && !rc; i++) {
                const struct rtable *t = &an->tables[i];
                char **names = xcalloc(t->ncols + 1, sizeof *names);
                size_t n = 0;
                names[n++] = xstrdup(t->key_title);
                for (size_t c = 0; c < t->ncols; c++) {
                        /* a repeated title would merge columns: keep them apart */
                        int seen = 0;
                        for (size_t k = 0; k < n && !seen; k++)
                                seen = !strcmp(names[k], t->cols[c]);
                        names[n++] = seen ? xasprintf("%s.%zu", t->cols[c], c)
                                          : xstrdup(t->cols[c]);
                }
                int *whole = xcalloc(t->ncols + 1, sizeof *whole);
                for (size_t c = 0; c < t->ncols; c++)
                        whole[c] = rtable_int_col(t, c);
                struct dfs_cells d = {t, whole};
                char *path = dfs_path(dir, t);
                rc = csv_save(path, names, n, t->nrows, dfs_cell, &d, 1, err);
                free(path);
                free(whole);
                free_all((void *const *)names, n);
                free(names);
        }
        return rc;
}

struct dfs_job {
        const char *dir;
        const struct analysis *an;
        struct err err;
        int rc, started;
        pthread_t th;
};

static void *dfs_thread(void *p)
{
        struct dfs_job *j = p;
        j->rc = render_save_dfs(j->dir, j->an, &j->err);
        return NULL;
}

struct dfs_job *render_save_dfs_start(const char *dir, const struct analysis *an)
{
        struct dfs_job *j = xcalloc(1, sizeof *j);
        j->dir = dir;
        j->an = an;
        j->started = pthread_create(&j->th, NULL, dfs_thread, j) == 0;
        if (!j->started)
                dfs_thread(j);
        return j;
}

int render_save_dfs_wait(struct dfs_job *j, struct err *err)
{
        if (j->started)
                pthread_join(j->th, NULL);
        int rc = j->rc;
        if (rc && err)
                *err = j->err;
        free(j);
        return rc;
}
