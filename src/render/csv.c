/* --save-dfs: one CSV per table, values at full precision (via the table writer). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../store/table.h"
#include "../util/task.h"
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

/* table t's CSV file in dir */
static int save_table(const char *dir, const struct rtable *t, struct err *err)
{
        char **names = xcalloc(t->ncols + 1, sizeof *names);
        size_t n = 0;
        names[n++] = xstrdup(t->key_title);
        for (size_t c = 0; c < t->ncols; c++) {
                /* a repeated title would merge columns: keep them apart */
                int seen = 0;
                for (size_t k = 0; k < n && !seen; k++)
                        seen = !strcmp(names[k], t->cols[c]);
                names[n++] = seen ? xasprintf("%s.%zu", t->cols[c], c) : xstrdup(t->cols[c]);
        }
        int *whole = xcalloc(t->ncols + 1, sizeof *whole);
        for (size_t c = 0; c < t->ncols; c++)
                whole[c] = rtable_int_col(t, c);
        struct dfs_cells d = {t, whole};
        char *path = dfs_path(dir, t);
        int rc = csv_save(path, names, n, t->nrows, dfs_cell, &d, 1, err);
        free(path);
        free(whole);
        free_all((void *const *)names, n);
        free(names);
        return rc;
}

int render_save_dfs(const char *dir, const struct analysis *an, struct err *err)
{
        int rc = make_dir(dir, err);
        for (size_t i = 0; i < an->ntables && !rc; i++)
                rc = save_table(dir, &an->tables[i], err);
        return rc;
}

/* The tables are shared out one at a time: the second thread takes them from the start,
 * and the caller, once its report is written, takes what is left (render_save_dfs_wait).
 * The result is render_save_dfs's: when a table fails, no later one is started and the
 * first failing table's error is the one reported. */
struct dfs_job {
        const char *dir;
        const struct analysis *an;
        atomic_size_t next; /* the next table to take */
        atomic_size_t stop; /* tables from here on are not started (a failed one) */
        pthread_mutex_t mu; /* guards err (with stop) */
        struct err err;
        int rc;
        struct task th; /* the second thread (util/task.c: started on the other CPUs) */
};

static void dfs_work(struct dfs_job *j)
{
        for (;;) {
                size_t i = atomic_fetch_add(&j->next, 1);
                if (i >= j->an->ntables || i >= atomic_load(&j->stop))
                        return;
                struct err e = {0};
                int rc = save_table(j->dir, &j->an->tables[i], &e);
                if (!rc)
                        continue;
                pthread_mutex_lock(&j->mu);
                if (i < atomic_load(&j->stop)) {
                        atomic_store(&j->stop, i);
                        j->err = e;
                        j->rc = rc;
                }
                pthread_mutex_unlock(&j->mu);
        }
}

static int dfs_thread(void *p)
{
        dfs_work(p);
        return 0;
}

struct dfs_job *render_save_dfs_start(const char *dir, const struct analysis *an)
{
        struct dfs_job *j = xcalloc(1, sizeof *j);
        j->dir = dir;
        j->an = an;
        atomic_init(&j->next, 0);
        atomic_init(&j->stop, (size_t)-1);
        pthread_mutex_init(&j->mu, NULL);
        j->rc = make_dir(dir, &j->err);
        if (j->rc) /* nothing to write into: no table is taken */
                atomic_store(&j->stop, 0);
        else
                task_start(&j->th, dfs_thread, j);
        return j;
}

int render_save_dfs_wait(struct dfs_job *j, struct err *err)
{
        dfs_work(j); /* the tables the thread has not taken yet (all of them without one) */
        if (j->th.fn) { /* a task was started (not when the directory failed) */
                task_join(&j->th);
                task_warnings(&j->th); /* none: the files' errors go to err */
        }
        int rc = j->rc;
        if (rc && err)
                *err = j->err;
        pthread_mutex_destroy(&j->mu);
        free(j);
        return rc;
}
