/* Load a probed workload (probe.h): of a rocprof-compute workload directory sysinfo.csv,
 * pmc_perf.csv, the accumulate tables (listed by formats_detect; aligned with pmc_perf by
 * row), and roofline.csv when present; or hand a prism database or a multi-rank tree to
 * src/store (db.c, multi.c). */
#include "workload.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
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
#include "probe.h"
#include "cellcheck.h"
#include "csvsplit.h"
#include "wstream.h"
#include "../util/task.h"

/* how dir_load streams (workload_open_streamed), or NULL */
struct streaming {
        table_col_fn keep;
        void *keep_ctx;
};

static int dir_load(struct store_probe *p, table_col_fn want, void *want_ctx,
                    const struct streaming *st, struct workload *w, struct err *err);
static void check_cells(struct table *t, const char *file);

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

int store_open_sysinfo(const struct store_probe *p, struct workload *w, struct err *err)
{
        int rc = 0;
        memset(w, 0, sizeof *w);
        w->path = xstrdup(p->path);
        if (p->kind == STORE_DB) {
                rc = db_read_arch(p->db, &w->arch, err);
                goto out;
        }
        if (p->kind == STORE_RANKS) {
                rc = multi_arch(p->path, workload_arch, &w->arch, err);
                goto out;
        }
        /* a directory's sysinfo.csv, read once */
        const char *f = p->sys;
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
        w->sysinfo_file = xstrdup(f);
out:
        if (rc)
                workload_close(w);
        return rc;
}

int store_detect(struct store_probe *p, const struct workload *w, int keep_texts,
                 struct err *err)
{
        if (p->kind != STORE_DIR || p->detected)
                return 0;
        int rc = formats_detect_in(p->path, &w->sysinfo, &p->layout, &p->accum, &p->naccum,
                                   keep_texts ? &p->ct : NULL, err);
        p->detected = !rc;
        return rc;
}

int store_load(struct store_probe *p, const struct store_cols *c, struct workload *w,
               struct err *err)
{
        struct keep k = {c->keep, c->keep_ctx}, wk = {c->want, c->want_ctx};
        if (p->kind == STORE_DIR) {
                struct streaming st = {keep_col, &k};
                return dir_load(p, c->want, c->want_ctx, c->keep ? &st : NULL, w, err);
        }
        workload_close(w); /* only its gpu_arch was read */
        if (p->kind == STORE_RANKS)
                return multi_open(p->path, c->want, c->want_ctx, workload_open_cols, w, err);
        if (c->keep) /* a database, streamed alike */
                return db_open_streamed(p->db, keep_col, &k, c->want ? keep_col : NULL, &wk, w,
                                        err);
        return db_open_workload(p->db, c->want, c->want_ctx, w, err);
}

/* probe, sysinfo and load: what the workload_open functions share */
static int open_any(const char *path, const struct store_cols *c, struct workload *w,
                    struct err *err)
{
        struct store_probe p;
        int rc = store_probe(path, &p, err);
        if (!rc && !(rc = store_open_sysinfo(&p, w, err)))
                rc = store_load(&p, c, w, err);
        store_probe_free(&p);
        return rc;
}

int workload_arch(const char *path, char **arch, struct err *err)
{
        struct store_probe p;
        struct workload w;
        int rc = store_probe(path, &p, err);
        *arch = NULL;
        if (!rc && !(rc = store_open_sysinfo(&p, &w, err))) {
                *arch = w.arch;
                w.arch = NULL;
                workload_close(&w);
        }
        store_probe_free(&p);
        return rc;
}

int workload_open(const char *path, struct workload *w, struct err *err)
{
        return workload_open_cols(path, NULL, NULL, w, err);
}

int workload_open_cols(const char *path, table_col_fn want, void *want_ctx, struct workload *w,
                       struct err *err)
{
        struct store_cols c = {.want = want, .want_ctx = want_ctx};
        return open_any(path, &c, w, err);
}

int workload_open_streamed(const char *path, table_col_fn keep, void *keep_ctx,
                           table_col_fn want, void *want_ctx, struct workload *w,
                           struct err *err)
{
        struct store_cols c = {.want = want, .want_ctx = want_ctx, .keep = keep,
                               .keep_ctx = keep_ctx};
        return open_any(path, &c, w, err);
}

/* ---- a workload directory ---- */

/* The accumulate tables of a streamed directory, read on a second thread while this one
 * reads pmc_perf.csv (whose own second thread is idle part of the time): each into a spill
 * of its own, its warnings held apart, to join the workload's spill and be said in the
 * order of a one-thread run. A pmc_perf.csv that fails stops it after the file it is on. */
struct side {
        char *path;
        struct wspill *spill;
        struct table t;
        struct err err;
        int rc;
        struct strbuf warnings;
};

struct sides {
        struct side *s;
        size_t n;
        struct keep *keep;
        int stop; /* atomic */
        struct task task;
        cpu_set_t cpus; /* this process's */
        int have_cpus;
};

static int sides_job(void *p)
{
        struct sides *j = p;
        /* any CPU, as the reading of pmc_perf.csv has (a task starts on the other CPU
         * alone; the files' own second threads would share it) */
        if (j->have_cpus)
                pthread_setaffinity_np(pthread_self(), sizeof j->cpus, &j->cpus);
        for (size_t i = 0; i < j->n && !__atomic_load_n(&j->stop, __ATOMIC_ACQUIRE); i++) {
                struct side *sd = &j->s[i];
                struct strbuf *outer = warn_hold(&sd->warnings);
                sd->rc = spill_load(&sd->spill, 1, sd->path, NULL, NULL, keep_col, j->keep,
                                    &sd->t, &sd->err);
                warn_hold(outer);
        }
        return 0;
}

static void sides_start(struct sides *j, const char *path, char **names, size_t n,
                        struct keep *keep)
{
        j->s = xcalloc(n, sizeof *j->s);
        j->n = n;
        j->keep = keep;
        for (size_t i = 0; i < n; i++) {
                j->s[i].path = xasprintf("%s/%s.csv", path, names[i]);
                j->s[i].rc = ERR_INPUT; /* until read */
        }
        csv_split_level(-1); /* chosen on this thread, before the other splits lines */
        j->have_cpus = sched_getaffinity(0, sizeof j->cpus, &j->cpus) == 0;
        task_start(&j->task, sides_job, j);
}

/* the thread's end (its work dropped when stop) */
static void sides_join(struct sides *j, int stop)
{
        if (!j->s)
                return;
        if (stop)
                __atomic_store_n(&j->stop, 1, __ATOMIC_RELEASE);
        task_join(&j->task);
        task_warnings(&j->task); /* (none: each file's are its own) */
}

static void sides_free(struct sides *j)
{
        for (size_t i = 0; i < j->n; i++) {
                free(j->s[i].path);
                spill_free(j->s[i].spill);
                table_free(&j->s[i].t);
                sb_free(&j->s[i].warnings);
        }
        free(j->s);
        j->s = NULL;
        j->n = 0;
}

/* the rest of a directory whose sysinfo store_open_sysinfo read into w */
static int dir_load(struct store_probe *p, table_col_fn want, void *want_ctx,
                    const struct streaming *st, struct workload *w, struct err *err)
{
        int rc = 0;
        const char *path = p->path;
        struct keep keep = {want, want_ctx};
        char *f = formats_pmc_file(path), **names = NULL; /* the accumulate files */
        size_t nn = 0;
        struct sides sides = {0};
        if (!p->pmc_there) {
                rc = err_set(err, ERR_INPUT, "cannot open workload '%s': no pmc_perf.csv", path);
                goto out;
        }
        /* the small CSV files' bytes, read once for their header checks and their loads
         * (a streamed load reads its files itself) */
        if ((rc = store_detect(p, w, !st, err)))
                goto out;
        enum wl_layout layout = p->layout;
        names = p->accum;
        nn = p->naccum;
        p->accum = NULL;
        p->naccum = 0;
        if (layout == WL_LAYOUT_PASSES) { /* messages name the results files */
                free(f);
                f = xasprintf("%s/results_*.csv", path);
                /* the kernels' short names beside them, before the passes are grouped: a
                 * damaged file fails first */
                if ((rc = ksyms_load(path, &w->ksyms, err)))
                        goto out;
        }
        /* streamed: a plain pmc_perf.csv read once into the temporary file, the
         * accumulate tables meanwhile on a second thread */
        if (st && layout == WL_LAYOUT_WIDE && nn && task_workers() > 1)
                sides_start(&sides, path, names, nn, &keep);
        if (st && layout == WL_LAYOUT_WIDE)
                rc = spill_load(&w->spill, 0, f, st->keep, st->keep_ctx, keep_col, &keep,
                                &w->pmc, err);
        else
                rc = formats_load_pmc(path, layout, want ? keep_col : NULL, &keep, &p->ct, &w->pmc,
                                      err);
        sides_join(&sides, rc != 0);
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
                char *ap = xasprintf("%s/%s.csv", path, names[i]);
                struct err e2 = {0};
                int lrc;
                if (sides.s) { /* read on the second thread: its warnings now */
                        struct side *sd = &sides.s[i];
                        warn_emit(&sd->warnings);
                        lrc = sd->rc;
                        e2 = sd->err;
                        if (!lrc) {
                                spill_adopt(&w->spill, 1 + w->nacc, sd->spill, 1);
                                w->acc[w->nacc] = sd->t;
                                table_init(&sd->t);
                        }
                } else {
                        /* streamed: nothing of an accumulate table is read but its counters */
                        lrc = w->spill ? spill_load(&w->spill, 1 + w->nacc, ap, NULL, NULL,
                                                    keep_col, &keep, &w->acc[w->nacc], &e2)
                                       : table_load_csv_in(&w->acc[w->nacc], ap, &p->ct,
                                                           want ? keep_col : NULL, &keep, &e2);
                }
                if (lrc) {
                        warnf("%s; metrics that need it are n/a", e2.msg);
                        free(names[i]);
                } else {
                        if (!st)
                                check_cells(&w->acc[w->nacc], ap);
                        if (w->acc[w->nacc].nrows != w->pmc.nrows)
                                warnf("%s: %zu rows but pmc_perf.csv has %zu; rows are matched "
                                      "by position",
                                      ap, w->acc[w->nacc].nrows, w->pmc.nrows);
                        w->acc_names[w->nacc++] = names[i];
                }
                free(ap);
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
        sides_join(&sides, 1);
        sides_free(&sides);
        csv_texts_free(&p->ct);
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
