/* The profile driver: GPU -> metrics -> plan -> one run per pass -> merge -> workload. */
#include "profile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../store/db.h"
#include "../store/workload_write.h"
#include "launcher.h"
#include "backend.h"
#include "merge.h"
#include "passcache.h"
#include "runs.h"
#include "clocks.h"
#include "../store/columns.h"

#ifndef PRISM_VERSION
#define PRISM_VERSION "0"
#endif

void profile_result_free(struct profile_result *r)
{
        free(r->dir);
        free(r->target);
        memset(r, 0, sizeof *r);
}

/* ---- small helpers ---- */

static char *join_names(char *const *names, size_t n, const char *sep)
{
        struct strbuf sb = {0};
        sb_add(&sb, "");
        for (size_t i = 0; i < n; i++)
                sb_addf(&sb, "%s%s", i ? sep : "", names[i]);
        return sb_detach(&sb);
}

static const char *si_text(const struct table *si, const char *col, char *buf, size_t len)
{
        int c = table_col(si, col);
        return c >= 0 && si->nrows ? table_cell(si, c, 0, buf, len) : "";
}

static void si_set(struct table *si, const char *col, const char *v)
{
        if (!si->nrows)
                table_add_row(si);
        table_set_str(si, table_add_col(si, col), 0, v);
}

/* ---- running the passes ---- */

/* The dispatch columns of a pass table, the named counter columns and the timestamps: what
 * pmc_perf.csv takes from a pass (names NULL: only the dispatch columns). */
static void pass_view(const struct table *src, char *const *names, size_t n, int timestamps,
                      struct table *out)
{
        table_init(out);
        for (size_t c = 0; c < src->ncols; c++)
                if (timestamps ? col_is_dispatch(src->names[c])
                               : col_is_dispatch_info(src->names[c]))
                        table_add_col(out, src->names[c]);
        for (size_t k = 0; k < n; k++)
                if (table_col(src, names[k]) >= 0 && table_col(out, names[k]) < 0)
                        table_add_col(out, names[k]);
        for (size_t r = 0; r < src->nrows; r++)
                table_add_row(out);
        for (size_t c = 0; c < out->ncols; c++) {
                int sc = table_col(src, out->names[c]);
                for (size_t r = 0; r < src->nrows; r++) {
                        if (src->str[sc] && src->str[sc][r])
                                table_set_str(out, (int)c, r, src->str[sc][r]);
                        else
                                table_set_num(out, (int)c, r, src->num[sc][r]);
                }
        }
}

/* sysinfo's ip_blocks: the blocks selected, else those the architecture's family records
 * (none: no field), and the roofline unless left out */
static void record_blocks(const struct profile_opts *o, const struct arch *a, struct table *si)
{
        char *const *names = o->nblocks ? o->blocks : a->ip_blocks;
        size_t n = o->nblocks ? o->nblocks : a->nip_blocks;
        if (!n)
                return;
        struct strbuf blocks = {0};
        for (size_t i = 0; i < n; i++) {
                sb_addf(&blocks, "%s", i ? "|" : "");
                for (const char *s = names[i]; *s; s++)
                        sb_addc(&blocks, (char)toupper((unsigned char)*s));
        }
        if (!o->no_roof)
                sb_add(&blocks, "|roofline");
        si_set(si, "ip_blocks", blocks.buf);
        sb_free(&blocks);
}

static void fill_workload_info(const struct profile_opts *o, struct table *si)
{
        size_t n = 0;
        while (o->argv && o->argv[n])
                n++;
        char *cmd = join_names(o->argv, n, " ");
        si_set(si, "workload_name", o->name ? o->name : "");
        si_set(si, "command", cmd);
        char ts[128];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(ts, sizeof ts, "%c (%Z)", &tm);
        si_set(si, "timestamp", ts);
        /* the sysinfo layout of rocprof-compute 3 */
        si_set(si, "version", "3");
        free(cmd);
}

static int run_passes(const struct profile_opts *o, const struct backend *be,
                      const struct plan *plan, int nchan, const char *dir, struct table *si,
                      struct profile_result *res, const char *label, int parallel,
                      struct err *err)
{
        size_t np = plan->npasses, nnormal = np - plan->naccum;
        struct table *tables = xcalloc(np ? np : 1, sizeof *tables);
        struct table *views = xcalloc(np ? np : 1, sizeof *views);
        struct table pmc, *accum = xcalloc(plan->naccum ? plan->naccum : 1, sizeof *accum);
        struct wl_accum *wa = xcalloc(plan->naccum ? plan->naccum : 1, sizeof *wa);
        const struct table **home = xcalloc(np ? np : 1, sizeof *home);
        int *ids = xcalloc(np ? np : 1, sizeof *ids);
        char *scratch = xasprintf("%s/.prism-passes", dir);
        enum merge_join join = o->join_grid ? MERGE_JOIN_GRID : MERGE_JOIN_KERNEL;
        size_t ran = 0, naligned = 0, nviews = 0;
        int rc = make_dir(scratch, err);
        table_init(&pmc);
        struct progress pg;
        progress_init(&pg, o->tty, o->log, np, res->replay == REPLAY_KERNEL, label);
        struct runs r = {.o = o, .be = be, .plan = plan, .nchan = nchan, .scratch = scratch,
                         .mode = res->replay, .cache = res->cache, .pg = &pg,
                         .parallel = parallel};
        if (!rc) {
                ran = np;
                rc = runs_collect(&r, tables, err);
        }
        res->runs = r.runs;
        res->fell_back = r.fell_back;
        if (rc)
                goto out;
        /* pmc_perf.csv: each counter from the run that is its home (normal runs and the free
         * slots of accumulate runs); the timestamps are the mean over the runs that
         * contribute counters */
        for (size_t i = 0; i < np; i++, nviews++) {
                ids[i] = (int)i;
                if (!plan->passes[i].home) { /* the whole pass is home (NVIDIA) */
                        table_init(&views[i]);
                        home[i] = &tables[i];
                        continue;
                }
                size_t n;
                char **names = plan_pass_home_names(plan, i, nchan, &n);
                pass_view(&tables[i], names, n, 1, &views[i]);
                plan_names_free(names, n);
                home[i] = &views[i];
                if (n == 0 && i >= nnormal)
                        ids[i] = -1; /* an accumulate run that serves pmc_perf.csv nothing */
        }
        size_t nh = 0;
        for (size_t i = 0; i < np; i++)
                if (ids[i] >= 0) {
                        home[nh] = home[i];
                        ids[nh] = ids[i];
                        nh++;
                }
        if (nh) {
                rc = merge_passes(home, ids, nh, join, &pmc, err);
        } else if (np) {
                const struct table *first[] = {&tables[0]};
                int id0 = 0;
                struct table tmp;
                rc = merge_passes(first, &id0, 1, join, &tmp, err);
                if (!rc) {
                        pass_view(&tmp, NULL, 0, 0, &pmc);
                        table_free(&tmp);
                }
        }
        if (rc)
                goto out;
        for (size_t k = 0; k < plan->naccum && !rc; k++, naligned++) {
                size_t i = nnormal + k;
                rc = merge_align(&pmc, nh ? ids[0] : 0, &tables[i], (int)i, join,
                                 &accum[k], err);
                wa[k].name = plan->passes[i].accum;
                wa[k].table = &accum[k];
        }
        if (rc)
                goto out;
        if (pmc.nrows == 0) {
                rc = err_set(err, ERR_INPUT,
                             o->nkernels || o->ndispatches
                                     ? "no dispatch of the target matches the -k/-d filters"
                                     : "the target launched no GPU kernel");
                goto out;
        }
        fill_workload_info(o, si);
        struct wl_out w = {.sysinfo = si, .pmc = &pmc, .accum = wa, .naccum = plan->naccum};
        if ((rc = wl_write(dir, &w, err)))
                goto out;
        res->dispatches = pmc.nrows;
        profile_pc_sampling(o, be, dir, scratch, res);
        {
                /* the raw data also as one SQLite file, with the launcher's view of us */
                struct launcher lr;
                launcher_detect(&lr, NULL);
                char rank[32], size[32];
                snprintf(rank, sizeof rank, "%ld", lr.rank);
                snprintf(size, sizeof size, "%ld", lr.size);
                struct db_meta_kv kv[] = {{"rank", rank},
                                          {"node", lr.node},
                                          {"launcher", lr.kind ? lr.kind : "none"},
                                          {"world_size", size}};
                char *db = xasprintf("%s/prism.db", dir);
                struct err e2 = {0};
                if (db_import_dir(dir, db, plan->accum_value, kv,
                                  launcher_is_parallel(&lr) ? 4 : 0, 1, NULL, NULL, &e2))
                        warnf("%s; the CSV files are complete", e2.msg);
                free(db);
        }
        runs_remove_tree(scratch);
out:
        for (size_t i = 0; i < ran; i++)
                table_free(&tables[i]);
        for (size_t i = 0; i < nviews; i++)
                table_free(&views[i]);
        free(views);
        for (size_t k = 0; k < naligned; k++)
                table_free(&accum[k]);
        table_free(&pmc);
        free(tables);
        free(accum);
        free(wa);
        free(home);
        free(ids);
        free(scratch);
        return rc;
}

/* ---- ranks ---- */

static int rank_listed(const struct profile_opts *o, long rank)
{
        for (size_t i = 0; i < o->nranks; i++)
                if (o->ranks[i] == rank)
                        return 1;
        return 0;
}

/* Run the program as often as the profiled ranks do, without counters. */
static int run_unprofiled(const struct profile_opts *o, const struct backend *be,
                          const struct plan *plan, struct profile_result *res, struct err *err)
{
        (void)be;
        size_t times = res->replay == REPLAY_KERNEL ? 1 : plan->npasses;
        if (o->log)
                fprintf(o->log, "not profiled (--ranks): running the program %zu time%s\n", times,
                        times == 1 ? "" : "s");
        res->skipped = 1;
        res->runs = times;
        return runs_plain(o->argv, o->pass_timeout, times, err);
}

/* ---- the whole profile ---- */

int profile_run(const struct profile_opts *o, struct profile_result *res, struct err *err)
{
        struct table si;
        struct arch a;
        struct panel_set ps;
        struct plan_req req;
        struct plan plan;
        table_init(&si);
        memset(&a, 0, sizeof a);
        memset(&ps, 0, sizeof ps);
        memset(&req, 0, sizeof req);
        memset(&plan, 0, sizeof plan);
        memset(res, 0, sizeof *res);
        char *mdir = NULL, *pdir = NULL, *dir = NULL, *perfmon = NULL;
        const struct backend *be = NULL;
        char arch_name[64], model[64], buf[64];
        int rc = 0, need_panels = 0, nchan = 16;

        /* under mpirun/srun: this rank's GPU, by the one rule of launcher_gpu_choice */
        struct launcher lr;
        struct gpu_choice gc = {.index = -1};
        char label[96] = "";
        launcher_detect(&lr, NULL);
        int parallel = launcher_is_parallel(&lr);
        if (!o->arch) {
                launcher_gpu_choice(&lr, NULL, backend_count_gpus(), backend_device_vars(), &gc);
                if (gc.assign)
                        backend_bind_device(gc.index);
                if (parallel) {
                        snprintf(label, sizeof label, "rank %ld, GPU %d: ", lr.rank, gc.index);
                        snprintf(res->gpu, sizeof res->gpu, "%s", gc.why);
                        char lock[512];
                        /* ranks alone on their GPU keep one profiling session each (the
                         * lock makes every kernel a session of its own: 0.15 s of Start) */
                        if (!getenv("PRISM_CUPTI_LOCK") &&
                            launcher_may_share(&gc, NULL, backend_count_gpus()) &&
                            launcher_gpu_lock_path(&gc, getenv("TMPDIR"), lock, sizeof lock))
                                setenv("PRISM_CUPTI_LOCK", lock, 1);
                }
        }
        if (!o->arch && gc.missing) {
                rc = err_set(err, ERR_INPUT, "%s", gc.why);
                goto out;
        }
        if (o->arch) {
                backend_offline_sysinfo(o->arch, &si);
        } else {
                if (!(be = o->backend_impl) && !(be = backend_pick(o->backend, err))) {
                        rc = err->code ? err->code : ERR_SYS;
                        goto out;
                }
                if ((rc = be->detect(&si, err)))
                        goto out;
        }
        if (be) {
                int m = backend_replay_mode(be, o->replay, err);
                if (m < 0) {
                        rc = err->code;
                        goto out;
                }
                res->replay = m;
                if ((m = backend_cache_mode(be, o->cache_control, err)) < 0) {
                        rc = err->code;
                        goto out;
                }
                res->cache = m;
        }
        if (parallel || gc.var) {
                si_set(&si, "gpu_choice", gc.why);
        }
        snprintf(arch_name, sizeof arch_name, "%s", si_text(&si, "gpu_arch", buf, sizeof buf));
        snprintf(model, sizeof model, "%s", si_text(&si, "gpu_model", buf, sizeof buf));
        if (!arch_name[0]) {
                rc = err_set(err, ERR_SYS, "the %s backend reported no architecture",
                             be ? be->name : "chosen");
                goto out;
        }
        if (!model[0])
                snprintf(model, sizeof model, "%s", arch_name);

        {
                /* each MPI/Slurm rank writes its own NAME/<node>/rank<N>/ */
                char *base = o->path ? xstrdup(o->path)
                                     : xasprintf("workloads/%s", o->name ? o->name : "default");
                char *rdir = launcher_rank_dir(base, &lr);
                dir = o->path && !launcher_is_parallel(&lr) ? xstrdup(rdir)
                                                             : xasprintf("%s/%s", rdir, model);
                free(rdir);
                free(base);
        }
        if (o->roof_only) {
                /* only the roofline benchmarks will write here */
                if (!(rc = make_dir(dir, err))) {
                        res->dir = xstrdup(dir);
                        res->target = xstrdup(arch_name);
                }
                goto out;
        }

        mdir = o->metrics_dir ? xstrdup(o->metrics_dir) : data_path("metrics");
        if (!mdir) {
                rc = err_set(err, ERR_SYS,
                             "cannot find prism's metrics directory (set PRISM_DATA_DIR)");
                goto out;
        }
        if ((rc = arch_load(mdir, arch_name, &a, err)))
                goto out;
        if (!be) {
                /* a plan for a GPU that is not here (--arch): the options its backend (the
                 * one named, else the one of its family: the profiler counts passes where
                 * the family names a chip) cannot honour are errors here too */
                const struct backend *pb = backend_find(o->backend ? o->backend
                                                        : a.chip    ? "cupti"
                                                                    : "rocprof");
                if (pb && (backend_replay_mode(pb, o->replay, err) < 0 ||
                           backend_cache_mode(pb, o->cache_control, err) < 0)) {
                        rc = err->code;
                        goto out;
                }
        }
        record_blocks(o, &a, &si);
        for (size_t i = 0; i < o->nblocks; i++)
                need_panels |= profile_sel_is_id(o->blocks[i]);
        if (need_panels) {
                pdir = o->panels_dir ? xstrdup(o->panels_dir) : data_path("panels");
                if (!pdir) {
                        rc = err_set(err, ERR_SYS,
                                     "cannot find prism's panels directory (set PRISM_DATA_DIR)");
                        goto out;
                }
                if ((rc = panels_load(pdir, &ps, err)))
                        goto out;
        }
        if ((rc = profile_plan_req(&a, need_panels ? &ps : NULL, o->blocks, o->nblocks, &req,
                                   err)))
                goto out;
        /* ---- NVIDIA: the profiler counts passes (plan_groups.c); AMD: block limits ---- */
        if (a.chip) {
                const struct backend *pb = backend_for_passes(be, o->backend, err);
                if (!pb) {
                        rc = err->code ? err->code : ERR_SYS;
                        goto out;
                }
                passcache_data(a.pass_keys, a.pass_vals, a.npass_counts);
                struct plan_launch la = {(const char *const *)a.launch, a.nlaunch};
                rc = plan_make_groups(&req, a.chip, pb->num_passes,
                                      (const char *const *)a.per_pass, a.nper_pass,
                                      (const char *const *)a.instrumented, a.ninstrumented,
                                      &la, &plan, err);
                res->grouped = 1;
        } else {
                rc = plan_make(&req, &plan, err);
        }
        if (rc)
                goto out;
        /* ---- end NVIDIA ---- */
        if (plan.npasses == 0) {
                rc = err_set(err, ERR_INPUT, "nothing to collect: the selected %s metrics need "
                                             "no counter",
                             arch_name);
                goto out;
        }
        if (o->ranks && !o->dry_run && !rank_listed(o, lr.rank)) {
                rc = run_unprofiled(o, be, &plan, res, err);
                goto out;
        }
        int c = table_col(&si, "total_l2_chan");
        double chan = c >= 0 && si.nrows ? si.num[c][0] : NAN;
        if (isnan(chan) || chan <= 0)
                chan = arch_default(&a, "total_l2_chan");
        if (!isnan(chan) && chan > 0)
                nchan = (int)chan;

        char *pmc_path = xasprintf("%s/pmc_perf.csv", dir);
        int complete = is_file(pmc_path);
        free(pmc_path);
        if (wl_exists(dir) && !o->force && !(o->resume && !complete)) {
                rc = err_set(err, ERR_INPUT,
                             "workload '%s' already exists; use --force to replace it%s", dir,
                             complete ? "" : " or --resume to finish it");
                goto out;
        }
        perfmon = xasprintf("%s/perfmon", dir);
        if ((rc = make_dir(perfmon, err)))
                goto out;
        if (o->force && !o->resume)
                wl_clear_plan(dir);
        if ((rc = plan_write_perfmon(&plan, perfmon, nchan, err)))
                goto out;

        res->dir = xstrdup(dir);
        res->target = xstrdup(arch_name);
        res->passes = plan.npasses;
        res->accum_passes = plan.naccum;
        res->lower_bound = plan.lower_bound;
        res->ratios = plan.groups;
        res->ratios_split = plan.groups_split;
        if (o->dry_run) {
                for (size_t i = 0; i < plan.npasses && o->out; i++) {
                        char *line = plan_pass_line(&plan, i);
                        fprintf(o->out, "pass %zu: %s\n", i, line);
                        free(line);
                }
                if (o->out && plan.nblocks)
                        plan_print_bound(&plan, o->out);
                goto out;
        }
        si_set(&si, "replay", backend_replay_name(res->replay));
        si_set(&si, "cache_control", backend_cache_name(res->cache));
        int locked = clocks_begin(o, be, &si, res);
        rc = run_passes(o, be, &plan, nchan, dir, &si, res, label, parallel, err);
        clocks_end(be, locked);
out:
        if (rc && parallel && !o->arch)
                err_wrap(err, "rank %ld, %s", lr.rank, gc.why[0] ? gc.why : "GPU unknown");
        if (rc)
                profile_result_free(res);
        plan_free(&plan);
        plan_req_free(&req);
        panels_free(&ps);
        arch_free(&a);
        table_free(&si);
        free(mdir);
        free(pdir);
        free(dir);
        free(perfmon);
        return rc;
}
