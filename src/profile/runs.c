/* Running the passes of a plan (see runs.h). */
#include "runs.h"
#include "proc.h"
#include "../store/columns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void runs_remove_tree(const char *dir)
{
        DIR *d = opendir(dir);
        if (d) {
                struct dirent *e;
                while ((e = readdir(d))) {
                        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                                continue;
                        char *p = xasprintf("%s/%s", dir, e->d_name);
                        struct stat st;
                        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
                                runs_remove_tree(p);
                        else
                                unlink(p);
                        free(p);
                }
                closedir(d);
        }
        rmdir(dir);
}

static char *join(char *const *names, size_t n)
{
        struct strbuf sb = {0};
        sb_add(&sb, "");
        for (size_t i = 0; i < n; i++)
                sb_addf(&sb, "%s%s", i ? " " : "", names[i]);
        return sb_detach(&sb);
}

static char *pass_file(const struct runs *r, size_t i, const char *name)
{
        return xasprintf("%s/pass_%zu%s%s", r->scratch, i, name ? "/" : "", name ? name : "");
}

/* --resume: the pass's saved table when it was collected for the same counters. */
static int try_reuse(const struct runs *r, size_t i, struct table *out)
{
        size_t n;
        char **names = plan_pass_names(r->plan, i, r->nchan, &n);
        char *want = join(names, n);
        char *result = pass_file(r, i, "result.csv"), *txt = pass_file(r, i, "counters.txt");
        char *had = is_file(result) ? read_file(txt, NULL, NULL) : NULL;
        int ok = had && !strcmp(had, want) && table_load_csv(out, result, NULL) == 0;
        if (!ok) {
                table_free(out);
                table_init(out);
        }
        free(had);
        free(result);
        free(txt);
        free(want);
        plan_names_free(names, n);
        return ok;
}

/* Keep a finished pass for --resume (removed with the scratch directory at the end). */
static void save_pass(const struct runs *r, size_t i, const struct table *t)
{
        size_t n;
        char **names = plan_pass_names(r->plan, i, r->nchan, &n);
        char *want = join(names, n);
        char *dir = pass_file(r, i, NULL), *result = pass_file(r, i, "result.csv"),
             *txt = pass_file(r, i, "counters.txt");
        struct err ignore = {0};
        if (make_dir(dir, &ignore) == 0) {
                FILE *f = fopen(txt, "w");
                if (f) {
                        fputs(want, f);
                        fclose(f);
                        table_write_csv(t, result, &ignore);
                }
        }
        free(dir);
        free(result);
        free(txt);
        free(want);
        plan_names_free(names, n);
}

static size_t count_names(const struct runs *r, size_t i)
{
        size_t n;
        char **names = plan_pass_names(r->plan, i, r->nchan, &n);
        plan_names_free(names, n);
        return n;
}

static struct backend_pass base_pass(const struct runs *r, const char *wd)
{
        const struct profile_opts *o = r->o;
        struct backend_pass bp = {
                .argv = o->argv,
                .workdir = wd,
                .kernels = (const char *const *)o->kernels,
                .nkernels = o->nkernels,
                .dispatches = o->dispatches,
                .ndispatches = o->ndispatches,
                .timeout_s = o->pass_timeout,
                .replay = REPLAY_APPLICATION,
                .defs = r->plan->defs,
                .ndefs = r->plan->ndefs,
                .flush_caches = r->cache == CACHE_ALL,
        };
        return bp;
}

/* A fresh, empty work directory for one run. */
static char *fresh_dir(const struct runs *r, const char *name, struct err *err)
{
        char *wd = xasprintf("%s/%s", r->scratch, name);
        runs_remove_tree(wd);
        if (make_dir(wd, err)) {
                free(wd);
                return NULL;
        }
        return wd;
}

/* Pass i by application replay; only dispatches ids[0..nids) when ids is given. */
static int run_app(struct runs *r, size_t i, const long *ids, size_t nids, struct table *out,
                   struct err *err)
{
        size_t n;
        char **names = plan_pass_names(r->plan, i, r->nchan, &n);
        char sub[64];
        snprintf(sub, sizeof sub, "pass_%zu", i);
        char *wd = fresh_dir(r, sub, err);
        int rc = wd ? 0 : ERR_SYS;
        if (!rc) {
                struct backend_pass bp = base_pass(r, wd);
                bp.index = (int)i;
                bp.counters = (const char *const *)names;
                bp.ncounters = n;
                bp.accum = r->plan->passes[i].accum;
                bp.accum_value = r->plan->accum_value;
                if (ids) {
                        bp.dispatches = ids;
                        bp.ndispatches = nids;
                }
                table_free(out);
                table_init(out);
                rc = r->be->run_pass(&bp, out, err);
                r->runs++;
        }
        free(wd);
        plan_names_free(names, n);
        return rc;
}

/* Copy the dispatch columns, the given counters and the timestamps of src into out; with
 * others, also the columns of src that no pass names (what the backend adds, such as the
 * clocks), except Replayed. */
static void select_cols(const struct table *src, char *const *names, size_t n,
                        const struct smap *others, struct table *out)
{
        table_free(out);
        table_init(out);
        int *map = xcalloc(2 * src->ncols + n + 2, sizeof *map);
        size_t k = 0;
        for (size_t c = 0; c < src->ncols; c++)
                if (col_is_dispatch_info(src->names[c]))
                        map[k++] = (int)c;
        for (size_t i = 0; i < n; i++)
                map[k++] = table_col(src, names[i]);
        for (size_t c = 0; others && c < src->ncols; c++) {
                int dummy;
                if (!col_is_dispatch(src->names[c]) && strcmp(src->names[c], COL_REPLAYED) &&
                    !smap_get(others, src->names[c], &dummy))
                        map[k++] = (int)c;
        }
        map[k++] = table_col(src, COL_START);
        map[k++] = table_col(src, COL_END);
        for (size_t j = 0; j < k; j++)
                if (map[j] >= 0 && table_col(out, src->names[map[j]]) < 0)
                        table_add_col(out, src->names[map[j]]);
        for (size_t row = 0; row < src->nrows; row++)
                table_add_row(out);
        for (size_t c = 0; c < out->ncols; c++) {
                int sc = table_col(src, out->names[c]);
                for (size_t row = 0; row < src->nrows; row++) {
                        if (src->str[sc] && src->str[sc][row])
                                table_set_str(out, (int)c, row, src->str[sc][row]);
                        else
                                table_set_num(out, (int)c, row, src->num[sc][row]);
                }
        }
        free(map);
}

/* Overwrite the counters and timestamps of the rows of dst whose Dispatch_ID has a row in
 * src. */
static void patch_rows(struct table *dst, const struct table *src)
{
        int di = table_col(dst, COL_DISPATCH_ID), si = table_col(src, COL_DISPATCH_ID);
        if (di < 0 || si < 0)
                return;
        for (size_t s = 0; s < src->nrows; s++) {
                for (size_t d = 0; d < dst->nrows; d++) {
                        if (dst->num[di][d] != src->num[si][s])
                                continue;
                        for (size_t c = 0; c < dst->ncols; c++) {
                                const char *nm = dst->names[c];
                                int sc = table_col(src, nm);
                                if (sc >= 0 && !col_is_dispatch_info(nm))
                                        table_set_num(dst, (int)c, d, src->num[sc][s]);
                        }
                        break;
                }
        }
}

/* Kernel replay of the passes todo[0..nt): one run; tables of those passes filled. The
 * dispatches the collector could not replay (the column Replayed is 0) are listed in
 * *bad (malloc'd Dispatch_IDs). */
static int run_kernel(struct runs *r, const size_t *todo, size_t nt, struct table *tables,
                      long **bad, size_t *nbad, struct err *err)
{
        const struct plan *p = r->plan;
        char ***names = xcalloc(nt, sizeof *names);
        size_t *sizes = xcalloc(nt, sizeof *sizes), total = 0;
        for (size_t k = 0; k < nt; k++) {
                names[k] = plan_pass_names(p, todo[k], r->nchan, &sizes[k]);
                total += sizes[k];
        }
        const char **all = xcalloc(total + 1, sizeof *all);
        for (size_t k = 0, j = 0; k < nt; k++)
                for (size_t c = 0; c < sizes[k]; c++)
                        all[j++] = names[k][c];
        /* the counters the profiler collects by instrumenting the code (plan_groups.c) */
        const char **inst = xcalloc(p->ncounters + 1, sizeof *inst);
        size_t ninst = 0;
        for (size_t i = 0; i < p->ncounters; i++)
                if (p->counters[i].block && !strcmp(p->counters[i].block, "instrumented"))
                        inst[ninst++] = p->counters[i].name;
        struct table big;
        table_init(&big);
        char *wd = fresh_dir(r, "kernel_replay", err);
        int rc = wd ? 0 : ERR_SYS;
        if (!rc) {
                struct backend_pass bp = base_pass(r, wd);
                bp.index = (int)todo[0];
                bp.counters = all;
                bp.ncounters = total;
                bp.replay = REPLAY_KERNEL;
                bp.group_sizes = sizes;
                bp.ngroups = nt;
                bp.instrumented = (const char *const *)inst;
                bp.ninstrumented = ninst;
                bp.progress = progress_kernel;
                bp.progress_ctx = r->pg;
                rc = r->be->run_pass(&bp, &big, err);
                r->runs++;
        }
        if (!rc) {
                struct smap planned = {0};
                for (size_t k = 0; k < nt; k++)
                        for (size_t c = 0; c < sizes[k]; c++)
                                smap_put(&planned, names[k][c], 1);
                for (size_t k = 0; k < nt; k++)
                        select_cols(&big, names[k], sizes[k], k == 0 ? &planned : NULL,
                                    &tables[todo[k]]);
                smap_free(&planned);
                int rp = table_col(&big, COL_REPLAYED), di = table_col(&big, COL_DISPATCH_ID);
                size_t cap = 0;
                for (size_t row = 0; rp >= 0 && di >= 0 && row < big.nrows; row++) {
                        if (big.num[rp][row] != 0)
                                continue;
                        xgrow(bad, &cap, *nbad + 1, sizeof **bad);
                        (*bad)[(*nbad)++] = (long)big.num[di][row];
                }
        }
        table_free(&big);
        free(wd);
        for (size_t k = 0; k < nt; k++)
                plan_names_free(names[k], sizes[k]);
        free(names);
        free(sizes);
        free(all);
        free(inst);
        return rc;
}

static void warn_clear(struct runs *r, const char *fmt, const char *a, const char *b)
{
        progress_clear(r->pg);
        warnf(fmt, a, b);
}

int runs_collect(struct runs *r, struct table *tables, struct err *err)
{
        const struct plan *p = r->plan;
        size_t np = p->npasses, nt = 0;
        char *done = xcalloc(np ? np : 1, 1);
        size_t *todo = xcalloc(np ? np : 1, sizeof *todo);
        int rc = 0;
        char line[160];
        for (size_t i = 0; i < np; i++) {
                table_init(&tables[i]);
                if (r->o->resume && try_reuse(r, i, &tables[i])) {
                        done[i] = 1;
                        if (r->pg->log)
                                fprintf(r->pg->log, "%spass %zu (%zu of %zu): reused (--resume)\n",
                                        r->pg->label, i, i + 1, np);
                        progress_step(r->pg);
                } else {
                        todo[nt++] = i;
                }
        }
        if (r->mode == REPLAY_KERNEL && nt) {
                long *bad = NULL;
                size_t nbad = 0, ncnt = 0;
                for (size_t k = 0; k < nt; k++)
                        ncnt += count_names(r, todo[k]);
                snprintf(line, sizeof line,
                         "kernel replay: %zu pass%s in one run (%zu counters)", nt,
                         nt == 1 ? "" : "es", ncnt);
                progress_start(r->pg, line);
                struct err ke = {0};
                if (run_kernel(r, todo, nt, tables, &bad, &nbad, &ke)) {
                        if (r->parallel) {
                                rc = err_set(err, ke.code ? ke.code : ERR_SYS,
                                             "%s (under MPI there is no fallback to "
                                             "application replay, which would run this rank's "
                                             "program more often than its peers': rerun with "
                                             "--replay application)",
                                             ke.msg);
                                goto out;
                        }
                        r->fell_back = 1;
                        warn_clear(r, "kernel replay failed (%s); collecting by application "
                                      "replay%s",
                                   ke.msg, "");
                } else {
                        for (size_t k = 0; k < nt; k++) {
                                done[todo[k]] = 1;
                                progress_step(r->pg);
                        }
                }
                if (nbad && r->parallel) {
                        char cnt[64];
                        snprintf(cnt, sizeof cnt, "%zu dispatch%s", nbad, nbad == 1 ? "" : "es");
                        warn_clear(r, "%s could not be replayed by kernel; under MPI their "
                                      "counters stay empty%s (rerun with --replay application)",
                                   cnt, "");
                } else if (nbad && !r->fell_back) {
                        r->fell_back = 2;
                        char cnt[64];
                        snprintf(cnt, sizeof cnt, "%zu dispatch%s", nbad, nbad == 1 ? "" : "es");
                        warn_clear(r, "%s could not be replayed by kernel; collecting %s by "
                                      "application replay",
                                   cnt, nbad == 1 ? "it" : "them");
                        r->pg->kernel_replay = 0;
                        r->pg->done = 0;
                        for (size_t k = 0; k < nt && !rc; k++) {
                                struct table part;
                                table_init(&part);
                                snprintf(line, sizeof line,
                                         "pass %zu (%zu of %zu): %zu counters, %zu dispatch%s",
                                         todo[k], k + 1, nt, count_names(r, todo[k]), nbad,
                                         nbad == 1 ? "" : "es");
                                progress_start(r->pg, line);
                                rc = run_app(r, todo[k], bad, nbad, &part, err);
                                if (!rc)
                                        patch_rows(&tables[todo[k]], &part);
                                table_free(&part);
                                progress_step(r->pg);
                        }
                }
                free(bad);
                for (size_t k = 0; k < nt && !rc; k++)
                        if (done[todo[k]])
                                save_pass(r, todo[k], &tables[todo[k]]);
                if (!r->fell_back || r->fell_back == 2 || rc)
                        goto out;
                r->pg->kernel_replay = 0;
        }
        for (size_t k = 0; k < nt && !rc; k++) {
                size_t i = todo[k];
                snprintf(line, sizeof line, "pass %zu (%zu of %zu): %zu counters%s%s", i, i + 1,
                         np, count_names(r, i), p->passes[i].accum ? ", accumulating " : "",
                         p->passes[i].accum ? p->passes[i].accum : "");
                progress_start(r->pg, line);
                if (!(rc = run_app(r, i, NULL, 0, &tables[i], err))) {
                        save_pass(r, i, &tables[i]);
                        progress_step(r->pg);
                }
        }
out:
        progress_end(r->pg);
        free(done);
        free(todo);
        return rc;
}

int runs_plain(char *const *argv, int timeout_s, size_t times, struct err *err)
{
        for (size_t k = 0; k < times; k++) {
                int efd;
                pid_t pid = proc_spawn(argv, -1, NULL, &efd);
                if (pid < 0)
                        return err_set(err, ERR_SYS, "cannot start '%s': %s", argv[0],
                                       strerror(errno));
                int status = 0, exec_errno = 0;
                int timed_out = proc_wait_exec(pid, efd, timeout_s, &status, &exec_errno);
                close(efd);
                if (exec_errno)
                        return err_set(err, ERR_INPUT, "cannot run '%s': %s", argv[0],
                                       strerror(exec_errno));
                if (timed_out)
                        return err_set(err, ERR_SYS, "run %zu: target timed out after %d s",
                                       k + 1, timeout_s);
                if (WIFSIGNALED(status))
                        return err_set(err, ERR_SYS, "run %zu: target killed by signal %d", k + 1,
                                       WTERMSIG(status));
                if (WIFEXITED(status) && WEXITSTATUS(status))
                        return err_set(err, ERR_SYS, "run %zu: target exited with status %d",
                                       k + 1, WEXITSTATUS(status));
        }
        return 0;
}
