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
#include "cellcheck.h"
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
                rc = multi_arch(path, workload_arch, arch, err);
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
                rc = multi_open(path, want, want_ctx, workload_open_cols, w, err);
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
        char *pmc = formats_pmc_file(path);
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
        if (!sys_only) {
                /* pmc_perf.csv[.gz], or 3.6+'s results files (formats_detect) */
                char **pf = NULL;
                size_t np = 0;
                struct err e2 = {0};
                have_pmc = !strcmp(pmc, "?") || access(pmc, F_OK) == 0 ||
                           passes_list(path, &pf, &np, &e2) || np > 0;
                free_all((void *const *)pf, np);
                free(pf);
        }
        free(pmc);
        if ((rc = table_load_csv(&w->sysinfo, f, err)))
                goto out;
        if (w->sysinfo.nrows < 1) {
                rc = err_set(err, ERR_INPUT, "%s: no data row", f);
                goto out;
        }
        if ((rc = formats_sysinfo_names(&w->sysinfo, f, err)))
                goto out;
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
        f = formats_pmc_file(path);
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
        if (layout == WL_LAYOUT_PASSES) { /* messages name the results files */
                free(f);
                f = xasprintf("%s/results_*.csv", path);
                /* the kernels' short names beside them, before the passes are grouped: a
                 * damaged file fails first */
                if ((rc = ksyms_load(path, &w->ksyms, err)))
                        goto out;
        }
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
        if (layout == WL_LAYOUT_ROCPD || layout == WL_LAYOUT_PASSES) /* in pmc's columns */
                formats_rocpd_accum(&w->pmc, &w->acc, &w->acc_names, &w->nacc);
        free(f);
        f = xasprintf("%s/roofline.csv", path);
        /* one that is no file (a FIFO, a directory) is said, not passed over */
        if (file_kind(f)) {
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

static void check_cells(struct table *t, const char *file)
{
        struct cellcheck *cc = cellcheck_new();
        cellcheck_chunk(cc, t, file, 0);
        cellcheck_report(cc, t, t->dup, file);
}
