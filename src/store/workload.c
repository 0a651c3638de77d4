/* Open a rocprof-compute workload directory: sysinfo.csv, pmc_perf.csv, the accumulate
 * tables (listed by formats_detect; aligned with pmc_perf by row), and roofline.csv when
 * present; or hand a prism database or a multi-rank tree to src/store (db.c, multi.c). */
#include "workload.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "columns.h"
#include "db.h"
#include "formats.h"
#include "multi.h"
#include "wstream.h"

/* how open_dir streams (workload_open_streamed), or NULL */
struct streaming {
        table_col_fn keep;
        void *keep_ctx;
};

struct probe;
static int open_dir(const char *path, table_col_fn want, void *want_ctx, int sys_only,
                    const struct streaming *st, const struct probe *pr, struct workload *w,
                    struct err *err);
static void check_cells(struct table *t, const char *file);

/* ---- other stores: a prism database, a directory holding only prism.db, a multi-rank
 * tree (src/store/db.c, multi.c) ---- */

/* column projection that always keeps Kernel_Name (every workload needs it) */
struct keep {
        table_col_fn want;
        void *ctx;
};

static int keep_col(void *p, const char *name)
{
        const struct keep *k = p;
        return !strcmp(name, COL_KERNEL_NAME) || k->want(k->ctx, name);
}

static int dir_has(const char *dir, const char *file)
{
        char *p = xasprintf("%s/%s", dir, file);
        int r = is_file(p);
        free(p);
        return r;
}

/* What other_store saw of a workload directory, so that open_dir does not ask again. */
struct probe {
        int dir;      /* path is a directory */
        int sys_file; /* path/sysinfo.csv is a regular file */
};

/* the store at path when it is no workload directory: 1 database, 2 rank tree, 0 neither */
static int other_store(const char *path, char **db, struct probe *pr)
{
        *db = NULL;
        memset(pr, 0, sizeof *pr);
        /* a directory is never a database (db_is_path's first question) */
        pr->dir = is_dir(path);
        if (!pr->dir && db_is_path(path)) {
                *db = xstrdup(path);
                return 1;
        }
        if (!pr->dir || (pr->sys_file = dir_has(path, "sysinfo.csv")) ||
            dir_has(path, "pmc_perf.csv"))
                return 0;
        if (dir_has(path, DB_DEFAULT_NAME)) {
                *db = xasprintf("%s/%s", path, DB_DEFAULT_NAME);
                return 1;
        }
        return multi_is_tree(path) ? 2 : 0;
}

int workload_arch(const char *path, char **arch, struct err *err)
{
        char *db = NULL;
        struct probe pr;
        int kind = other_store(path, &db, &pr), rc;
        *arch = NULL;
        if (kind == 1)
                rc = db_read_arch(db, arch, err);
        else if (kind == 2)
                rc = multi_arch(path, arch, err);
        else {
                /* a directory's sysinfo.csv alone (or the error opening it gives) */
                struct workload w;
                rc = open_dir(path, NULL, NULL, 1, NULL, &pr, &w, err);
                if (!rc) {
                        *arch = xstrdup(w.arch);
                        workload_close(&w);
                }
        }
        free(db);
        return rc;
}

int workload_open(const char *path, struct workload *w, struct err *err)
{
        return workload_open_cols(path, NULL, NULL, w, err);
}

int workload_open_cols(const char *path, table_col_fn want, void *want_ctx, struct workload *w,
                       struct err *err)
{
        char *db = NULL;
        struct probe pr;
        int kind = other_store(path, &db, &pr), rc;
        if (kind == 1)
                rc = db_open_workload(db, want, want_ctx, w, err);
        else if (kind == 2)
                rc = multi_open(path, want, want_ctx, w, err);
        else
                rc = open_dir(path, want, want_ctx, 0, NULL, &pr, w, err);
        free(db);
        return rc;
}

int workload_open_streamed(const char *path, table_col_fn keep, void *keep_ctx,
                           table_col_fn want, void *want_ctx, struct workload *w,
                           struct err *err)
{
        char *db = NULL;
        struct probe pr;
        int kind = other_store(path, &db, &pr);
        struct keep k = {keep, keep_ctx};
        if (kind == 1) { /* a database, streamed alike */
                struct keep wk = {want, want_ctx};
                int rc = db_open_streamed(db, keep_col, &k, want ? keep_col : NULL, &wk, w, err);
                free(db);
                return rc;
        }
        free(db);
        if (kind)
                return workload_open_cols(path, want, want_ctx, w, err);
        struct streaming st = {keep_col, &k};
        return open_dir(path, want, want_ctx, 0, &st, &pr, w, err);
}

/* ---- a workload directory ---- */

/* sys_only: stop once sysinfo.csv gave the architecture; pr: what other_store saw */
static int open_dir(const char *path, table_col_fn want, void *want_ctx, int sys_only,
                    const struct streaming *st, const struct probe *pr, struct workload *w,
                    struct err *err)
{
        int rc = 0;
        char *f = NULL, **names = NULL; /* the accumulate files (formats_detect) */
        size_t nn = 0;
        struct keep keep = {want, want_ctx};
        struct csv_texts ct = {0};
        memset(w, 0, sizeof *w);
        w->path = xstrdup(path);
        if (!pr->dir) {
                rc = err_set(err, ERR_INPUT, "cannot open workload '%s': not a directory", path);
                goto out;
        }
        f = xasprintf("%s/sysinfo.csv", path);
        char *pmc = xasprintf("%s/pmc_perf.csv", path);
        /* present in any form: a directory or a pipe there is an error naming the file
         * (table_load_csv's), not "no such file" */
        int have_sys = pr->sys_file || access(f, F_OK) == 0, have_pmc = -1;
        if (!have_sys) {
                rc = access(pmc, F_OK) == 0
                         ? err_set(err, ERR_INPUT, "cannot open workload '%s': no sysinfo.csv",
                                   path)
                         : err_set(err, ERR_INPUT, "cannot open workload '%s': no "
                                   "pmc_perf.csv or sysinfo.csv found", path);
                free(pmc);
                goto out;
        }
        if (!sys_only)
                have_pmc = access(pmc, F_OK) == 0;
        free(pmc);
        if ((rc = table_load_csv(&w->sysinfo, f, err)))
                goto out;
        if (w->sysinfo.nrows < 1) {
                rc = err_set(err, ERR_INPUT, "%s: no data row", f);
                goto out;
        }
        const char *arch = workload_sys_str(w, "gpu_arch");
        if (!arch || !*arch) {
                rc = err_set(err, ERR_INPUT, "%s: no gpu_arch field", f);
                goto out;
        }
        w->arch = xstrdup(arch);
        const char *model = workload_sys_str(w, "gpu_model");
        w->model = xstrdup(model ? model : "");
        if (sys_only)
                goto out;
        free(f);
        f = xasprintf("%s/pmc_perf.csv", path);
        if (!have_pmc) {
                rc = err_set(err, ERR_INPUT, "cannot open workload '%s': no pmc_perf.csv", path);
                goto out;
        }
        enum wl_layout layout;
        /* the small CSV files' bytes, read once for their header checks and their loads
         * (a streamed load reads its files itself) */
        if ((rc = formats_detect_in(path, &w->sysinfo, &layout, &names, &nn, st ? NULL : &ct,
                                    err)))
                goto out;
        /* streamed: a plain pmc_perf.csv read once into the temporary file */
        if (st && layout == WL_LAYOUT_WIDE)
                rc = spill_load(&w->spill, 0, f, st->keep, st->keep_ctx, keep_col, &keep,
                                &w->pmc, err);
        else
                rc = formats_load_pmc(path, layout, want ? keep_col : NULL, &keep, &ct, &w->pmc,
                                      err);
        if (rc)
                goto out;
        if (w->pmc.nrows == 0) {
                rc = err_set(err, ERR_INPUT, "%s: no dispatches recorded", f);
                goto out;
        }
        if (table_col(&w->pmc, COL_KERNEL_NAME) < 0) {
                rc = err_set(err, ERR_INPUT, "%s: no Kernel_Name column", f);
                goto out;
        }
        /* rocpd.c checks its cells as it groups them; spill_load as it streams */
        if (layout == WL_LAYOUT_WIDE && !w->spill)
                check_cells(&w->pmc, f);
        /* accumulate tables (formats_detect listed them; none in the rocpd layout) */
        w->acc = xcalloc(nn ? nn : 1, sizeof *w->acc);
        w->acc_names = xcalloc(nn ? nn : 1, sizeof *w->acc_names);
        for (size_t i = 0; i < nn; i++) {
                char *p = xasprintf("%s/%s.csv", path, names[i]);
                struct err e2 = {0};
                /* streamed: nothing of an accumulate table is read but its counters */
                int lrc = w->spill ? spill_load(&w->spill, 1 + w->nacc, p, NULL, NULL, keep_col,
                                                &keep, &w->acc[w->nacc], &e2)
                                   : table_load_csv_in(&w->acc[w->nacc], p, &ct,
                                                       want ? keep_col : NULL, &keep, &e2);
                if (lrc) {
                        warnf("%s; metrics that need it are n/a", e2.msg);
                        free(names[i]);
                } else {
                        if (!st)
                                check_cells(&w->acc[w->nacc], p);
                        if (w->acc[w->nacc].nrows != w->pmc.nrows)
                                warnf("%s: %zu rows but pmc_perf.csv has %zu; rows are matched "
                                      "by position",
                                      p, w->acc[w->nacc].nrows, w->pmc.nrows);
                        w->acc_names[w->nacc++] = names[i];
                }
                free(p);
        }
        free(names);
        names = NULL;
        nn = 0;
        if (layout == WL_LAYOUT_ROCPD) /* in pmc_perf.csv */
                formats_rocpd_accum(&w->pmc, &w->acc, &w->acc_names, &w->nacc);
        free(f);
        f = xasprintf("%s/roofline.csv", path);
        if (is_file(f)) {
                struct err e2 = {0};
                if (table_load_csv(&w->roofline, f, &e2))
                        warnf("%s; the roofline is not shown", e2.msg);
                else
                        w->has_roofline = 1;
        }
out:
        csv_texts_free(&ct);
        free_all((void *const *)names, nn);
        free(names);
        free(f);
        if (rc)
                workload_close(w);
        return rc;
}

void workload_close(struct workload *w)
{
        table_free(&w->sysinfo);
        table_free(&w->pmc);
        for (size_t i = 0; i < w->nacc; i++) {
                table_free(&w->acc[i]);
                free(w->acc_names[i]);
        }
        free(w->acc);
        free(w->acc_names);
        table_free(&w->roofline);
        table_free(&w->ranks);
        spill_free(w->spill);
        free(w->path);
        free(w->arch);
        free(w->model);
        memset(w, 0, sizeof *w);
}

void workload_accum_value(struct workload *w, const char *name)
{
        for (size_t i = 0; name && i < w->nacc; i++)
                formats_accum_alias(&w->acc[i], w->acc_names[i], name);
}

const struct table *workload_table(const struct workload *w, const char *name)
{
        if (!name || !strcmp(name, "pmc_perf"))
                return &w->pmc;
        for (size_t i = 0; i < w->nacc; i++)
                if (!strcmp(w->acc_names[i], name))
                        return &w->acc[i];
        return NULL;
}

double workload_sys_num(const struct workload *w, const char *field)
{
        int c = table_col(&w->sysinfo, field);
        if (c < 0 || w->sysinfo.nrows < 1)
                return NAN;
        return w->sysinfo.num[c][0];
}

const char *workload_sys_str(const struct workload *w, const char *field)
{
        static _Thread_local char buf[64]; /* a number's text: one per thread */
        int c = table_col(&w->sysinfo, field);
        if (c < 0 || w->sysinfo.nrows < 1)
                return NULL;
        return table_cell(&w->sysinfo, c, 0, buf, sizeof buf);
}

/* ---- damaged cells (docs/HARDENING.md) ----
 * Every cell of pmc_perf.csv and of the accumulate tables but Kernel_Name is a count, an
 * id, a size or a timestamp: a finite number >= 0. A cell that is empty, text, nan, inf
 * (or too large for a double) or negative is damaged: it is read as n/a, so that every
 * metric that uses it is n/a for that dispatch and the aggregates over dispatches are
 * taken over the others, and a warning names file:line and the column, never silently.
 * Only the loaded columns are checked: with column projection, those analysis reads. */

#define MAX_CELL_WARNINGS 5

/* The checks, chunk by chunk: damaged cells (reported column by column, as many as
 * MAX_CELL_WARNINGS), dispatches that end before they start (row by row). */
struct cellcheck {
        char ***msgs;  /* per column: its first warnings */
        size_t *nmsgs, ncols;
        size_t bad, back;
        char *back_msgs[MAX_CELL_WARNINGS];
        unsigned char *col_bad;
        int s0, s1;
};

struct cellcheck *cellcheck_new(void)
{
        struct cellcheck *cc = xcalloc(1, sizeof *cc);
        cc->s0 = cc->s1 = -2;
        return cc;
}

/* file: as messages name it; the line of row r */
static size_t row_line(const struct table *t, size_t r, size_t row0)
{
        return t->line ? t->line[r] : row0 + r + 2;
}

/* the first row from r on whose value is no count (finite and >= 0), or n; two rows at a
 * time with SSE2 (a chunk holds hundreds of columns of counts, nearly all good) */
static size_t next_bad(const double *v, size_t r, size_t n)
{
#if defined(__SSE2__)
        const __m128d zero = _mm_setzero_pd(), inf = _mm_set1_pd(INFINITY);
        for (; r + 2 <= n; r += 2) {
                __m128d x = _mm_loadu_pd(v + r);
                if (_mm_movemask_pd(_mm_and_pd(_mm_cmpge_pd(x, zero), _mm_cmplt_pd(x, inf))) != 3)
                        break;
        }
#endif
        while (r < n && isfinite(v[r]) && v[r] >= 0)
                r++;
        return r;
}

void cellcheck_chunk(struct cellcheck *cc, struct table *t, const char *file, size_t row0)
{
        char desc[100];
        if (cc->ncols < t->ncols) {
                cc->msgs = xrealloc(cc->msgs, t->ncols * sizeof *cc->msgs);
                cc->nmsgs = xrealloc(cc->nmsgs, t->ncols * sizeof *cc->nmsgs);
                cc->col_bad = xrealloc(cc->col_bad, t->ncols);
                for (size_t c = cc->ncols; c < t->ncols; c++) {
                        cc->msgs[c] = xcalloc(MAX_CELL_WARNINGS, sizeof **cc->msgs);
                        cc->nmsgs[c] = 0;
                        cc->col_bad[c] = 0;
                }
                cc->ncols = t->ncols;
        }
        for (size_t c = 0; c < t->ncols; c++) {
                if (!strcmp(t->names[c], COL_KERNEL_NAME))
                        continue;
                for (size_t r = next_bad(t->num[c], 0, t->nrows); r < t->nrows;
                     r = next_bad(t->num[c], r + 1, t->nrows)) {
                        cc->bad++;
                        cc->col_bad[c] = 1;
                        if (cc->nmsgs[c] < MAX_CELL_WARNINGS)
                                cc->msgs[c][cc->nmsgs[c]++] = xasprintf(
                                    "%s:%zu: column '%s' %s; the metrics that use it are "
                                    "n/a for that dispatch",
                                    file, row_line(t, r, row0), t->names[c],
                                    table_cell_desc(t, (int)c, r, "a count", desc, sizeof desc));
                        t->num[c][r] = NAN;
                }
        }
        /* a dispatch that ends before it starts has no duration: n/a, not negative */
        if (cc->s0 == -2) {
                cc->s0 = table_col(t, COL_START);
                cc->s1 = table_col(t, COL_END);
        }
        for (size_t r = 0; cc->s0 >= 0 && cc->s1 >= 0 && r < t->nrows; r++)
                if (t->num[cc->s1][r] < t->num[cc->s0][r]) {
                        if (cc->back < MAX_CELL_WARNINGS)
                                cc->back_msgs[cc->back] = xasprintf(
                                    "%s:%zu: End_Timestamp is before Start_Timestamp; the "
                                    "metrics that use the duration are n/a for that dispatch",
                                    file, row_line(t, r, row0));
                        cc->back++;
                        t->num[cc->s1][r] = NAN;
                }
}

struct idrow {
        double id;
        size_t row;
};

static int cmp_idrow(const void *a, const void *b)
{
        const struct idrow *x = a, *y = b;
        if (x->id != y->id)
                return x->id < y->id ? -1 : 1;
        if (signbit(x->id) != signbit(y->id)) /* -0 and 0 are told apart, as in text */
                return signbit(x->id) ? -1 : 1;
        return (x->row > y->row) - (x->row < y->row);
}

void cellcheck_report(struct cellcheck *cc, const struct table *t, const char *dup,
                      const char *file)
{
        size_t shown = 0, cols = 0;
        for (size_t c = 0; c < cc->ncols; c++) {
                cols += cc->col_bad[c];
                for (size_t k = 0; k < cc->nmsgs[c]; k++) {
                        if (shown++ < MAX_CELL_WARNINGS)
                                warnf("%s", cc->msgs[c][k]);
                        free(cc->msgs[c][k]);
                }
                free(cc->msgs[c]);
        }
        if (cc->bad > MAX_CELL_WARNINGS)
                warnf("%s: %zu more damaged cells (%zu in all, in %zu column%s) read as n/a", file,
                      cc->bad - MAX_CELL_WARNINGS, cc->bad, cols, cols == 1 ? "" : "s");
        if (dup)
                warnf("%s: column '%s' appears more than once; the first is used", file, dup);
        /* two rows under one Dispatch_ID: -d selects both, and nothing says which is right;
         * the first row that repeats an earlier id is named */
        int id = table_col(t, COL_DISPATCH_ID);
        if (id >= 0) {
                struct idrow *v = xcalloc(t->nrows + 1, sizeof *v);
                size_t n = 0;
                for (size_t r = 0; r < t->nrows; r++)
                        if (!isnan(t->num[id][r]))
                                v[n++] = (struct idrow){t->num[id][r], r};
                if (n)
                        qsort(v, n, sizeof *v, cmp_idrow);
                size_t best = (size_t)-1, first = 0;
                for (size_t i = 1; i < n; i++)
                        if (!cmp_idrow(&(struct idrow){v[i].id, 0}, &(struct idrow){v[i - 1].id, 0}) &&
                            (i < 2 || cmp_idrow(&(struct idrow){v[i - 1].id, 0},
                                                &(struct idrow){v[i - 2].id, 0})) &&
                            (best == (size_t)-1 || v[i].row < best)) {
                                /* v[i - 1] is the first row of this id, v[i] its second */
                                best = v[i].row;
                                first = v[i - 1].row;
                        }
                if (best != (size_t)-1) {
                        char key[64];
                        snprintf(key, sizeof key, "%.17g", t->num[id][best]);
                        warnf("%s:%zu: Dispatch_ID %s also at line %zu; both rows are counted",
                              file, row_line(t, best, 0), key, row_line(t, first, 0));
                }
                free(v);
        }
        for (size_t k = 0; k < cc->back && k < MAX_CELL_WARNINGS; k++)
                warnf("%s", cc->back_msgs[k]);
        for (size_t k = 0; k < MAX_CELL_WARNINGS; k++)
                free(cc->back_msgs[k]);
        if (cc->back > MAX_CELL_WARNINGS)
                warnf("%s: %zu more dispatches end before they start", file,
                      cc->back - MAX_CELL_WARNINGS);
        free(cc->msgs);
        free(cc->nmsgs);
        free(cc->col_bad);
        free(cc);
}

void cellcheck_discard(struct cellcheck *cc)
{
        for (size_t c = 0; c < cc->ncols; c++) {
                for (size_t k = 0; k < cc->nmsgs[c]; k++)
                        free(cc->msgs[c][k]);
                free(cc->msgs[c]);
        }
        for (size_t k = 0; k < MAX_CELL_WARNINGS; k++)
                free(cc->back_msgs[k]);
        free(cc->msgs);
        free(cc->nmsgs);
        free(cc->col_bad);
        free(cc);
}

static void check_cells(struct table *t, const char *file)
{
        struct cellcheck *cc = cellcheck_new();
        cellcheck_chunk(cc, t, file, 0);
        cellcheck_report(cc, t, t->dup, file);
}
