/* libprism-cupti.so entry: InitializeInjection (called by the CUDA driver when the library is
 * named by CUDA_INJECTION64_PATH), the context and kernel-launch callbacks, and the CSV that
 * PRISM_CUPTI_OUT names, one row per kernel launch in launch order, written at exit.
 *
 * Environment:
 *   PRISM_CUPTI_METRICS     comma-separated CUPTI metrics (none: launch records only); the
 *                           launch__ names of activity.c are written from the launch
 *   PRISM_CUPTI_OUT         the CSV (default prism-cupti.csv); errors go to it + ".err"
 *   PRISM_CUPTI_MAX_RANGES  launches per counter data image before it is decoded (256)
 *   PRISM_CUPTI_TIMESTAMPS  activity (default: CONCURRENT_KERNEL records), kernel (KERNEL
 *                           records), api (no activity API; synchronize after each launch)
 *   PRISM_CUPTI_DEBUG       1: trace launches, ranges and flushes to stderr
 *   PRISM_CUPTI_REPLAY      kernel: one run collects every pass (the metrics may need many
 *                           hardware passes; CUPTI replays each kernel per pass); the CSV
 *                           then has a Replayed column (0: no range came of the launch)
 *   PRISM_CUPTI_PROGRESS_FD a file descriptor that gets "dispatch<TAB>kernel" per launch
 *   PRISM_CUPTI_LOCK        a lock file per GPU: profile one kernel at a time across the
 *                           processes that share the GPU (share.c)
 *   PRISM_CUPTI_FLUSH       1: flush the L2 before each profiled kernel (flush.c)
 *   PRISM_CUPTI_CHECKPOINT  1 (with REPLAY=kernel and FLUSH=1, experimental): the collector
 *                           replays each kernel itself, restoring memory and flushing the
 *                           L2 before every pass (replay.c); the instrumented metrics are
 *                           left empty; 2: they go to CUPTI's replay (crashed on the H200)
 *   PRISM_CUPTI_INSTRUMENTED comma-separated metrics of PRISM_CUPTI_METRICS that CUPTI
 *                           collects by instrumenting the code: that replay leaves them
 *                           empty, or (CHECKPOINT=2) to CUPTI's replay of the launch
 *   PRISM_CUPTI_USER_RANGE  1: that replay profiles a user range around the launch call
 *   PRISM_CUPTI_TIMING      1: where the collector's time went, on stderr at exit; 2: also
 *                           each launch call's time (kernel replay: all its passes)
 *   PRISM_CUPTI_PCSAMPLING  a file: sample PCs instead (pcsamp.c; no counters then)
 *   PRISM_CUPTI_AVAILABILITY 1: query the counter availability image before building the
 *                           config (default: only when the GPU refuses a config without) */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../util/csvfield.h"
#include "../../util/gpulock.h"
#include "../../store/columns.h"
#include "collector.h"

#define DEFAULT_MAX_RANGES 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t owner_pid;
static unsigned char *failed; /* per launch: the launch call itself failed */
static char *metrics_env;

/* While counters are collected, one launch at a time from API enter to exit: the range
 * profiler numbers ranges in the order launches reach it, and dispatch ids must follow the
 * same order when several threads launch. Profiling serializes the kernels anyway. */
static pthread_mutex_t launch_lock = PTHREAD_MUTEX_INITIALIZER;

/* The launch this thread is inside (between API enter and exit). */
static __thread size_t cur_dispatch;
static __thread int in_launch, holds_launch_lock;
static __thread double launch_t0;


static int func_attr(CUfunction f, CUfunction_attribute a)
{
        int v = -1;
        if (pc_cu.func_get_attribute && pc_cu.func_get_attribute(&v, a, f) == CUDA_SUCCESS)
                return v;
        /* Runtime-loaded kernels may reach the driver as CUkernel handles. */
        CUdevice d;
        if (pc_cu.kernel_get_attribute && pc_cu.ctx_get_device &&
            pc_cu.ctx_get_device(&d) == CUDA_SUCCESS &&
            pc_cu.kernel_get_attribute(&v, a, (CUkernel)f, d) == CUDA_SUCCESS)
                return v;
        return -1;
}

/* The parameter blocks of the launch calls, as generated_cuda_meta.h lays them out (that
 * header cannot be included on its own); the _ptsz variants share them. */
struct launch_params {
        CUfunction f;
        unsigned int grid_x, grid_y, grid_z;
        unsigned int block_x, block_y, block_z;
        unsigned int shared_bytes;
};
struct launch_ex_params {
        const CUlaunchConfig *config;
        CUfunction f;
};

struct launch_cfg {
        CUfunction f;
        unsigned grid[3], block[3];
        unsigned dyn_shared;
};

static int launch_cfg(CUpti_CallbackId cbid, const void *params, struct launch_cfg *g)
{
        switch (cbid) {
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
                const struct launch_params *p = params;
                *g = (struct launch_cfg){p->f,
                                         {p->grid_x, p->grid_y, p->grid_z},
                                         {p->block_x, p->block_y, p->block_z},
                                         p->shared_bytes};
                return 0;
        }
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
                const struct launch_ex_params *p = params;
                const CUlaunchConfig *c = p->config;
                if (!c)
                        return -1;
                *g = (struct launch_cfg){p->f,
                                         {c->gridDimX, c->gridDimY, c->gridDimZ},
                                         {c->blockDimX, c->blockDimY, c->blockDimZ},
                                         c->sharedMemBytes};
                return 0;
        }
        default:
                return -1;
        }
}

static const CUpti_CallbackId launch_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
};

/* Append a launch record; returns its index or (size_t)-1 when out of memory. */
static size_t launch_new(void)
{
        if (pc.nlaunches == pc.cap_launches) {
                size_t cap = pc.cap_launches ? 2 * pc.cap_launches : 256;
                struct pc_launch *n = realloc(pc.launches, cap * sizeof *n);
                if (!n)
                        return (size_t)-1;
                pc.launches = n;
                unsigned char *fl = realloc(failed, cap);
                if (!fl)
                        return (size_t)-1;
                failed = fl;
                pc.cap_launches = cap;
        }
        struct pc_launch *l = &pc.launches[pc.nlaunches];
        memset(l, 0, sizeof *l);
        l->vals = malloc((pc.nmetrics ? pc.nmetrics : 1) * sizeof *l->vals);
        if (!l->vals)
                return (size_t)-1;
        for (size_t m = 0; m < pc.nmetrics; m++)
                l->vals[m] = NAN;
        pc_la_clear(l->la);
        failed[pc.nlaunches] = 0;
        return pc.nlaunches++;
}

static void on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
        struct launch_cfg g;
        if (launch_cfg(cbid, cb->functionParams, &g) < 0)
                return;
        if (pc.nmetrics && !holds_launch_lock) {
                pthread_mutex_lock(&launch_lock);
                holds_launch_lock = 1;
        }
        pthread_mutex_lock(&lock);
        size_t id = launch_new();
        if (id == (size_t)-1) {
                pc_error("out of memory recording kernel launch %zu", pc.nlaunches);
                goto out;
        }
        struct pc_launch *l = &pc.launches[id];
        l->name = pc_demangle(cb->symbolName ? cb->symbolName : "unknown");
        if (!l->name)
                l->name = (char *)"unknown"; /* out of memory; names are never freed */
        l->correlation = cb->correlationId;
        if (cuptiGetDeviceId(cb->context, &l->gpu) != CUPTI_SUCCESS)
                l->gpu = 0;
        l->block_threads = (uint64_t)g.block[0] * g.block[1] * g.block[2];
        l->grid_threads = (uint64_t)g.grid[0] * g.grid[1] * g.grid[2] * l->block_threads;
        int stat_shared = func_attr(g.f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
        int local = func_attr(g.f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
        l->regs = func_attr(g.f, CU_FUNC_ATTRIBUTE_NUM_REGS);
        l->lds = (uint64_t)(stat_shared > 0 ? stat_shared : 0) + g.dyn_shared;
        if (pc.nlmetrics) /* only when asked for: no extra driver calls otherwise */
                pc_la_from_call(l->la, g.f, g.grid, g.block, stat_shared, g.dyn_shared);
        l->scratch = local > 0 ? (uint64_t)local : 0;
        pc_debug("launch %zu (cbid %u, correlation %u): %s grid %ux%ux%u block %ux%ux%u", id,
                 (unsigned)cbid, cb->correlationId, l->name, g.grid[0], g.grid[1], g.grid[2],
                 g.block[0], g.block[1], g.block[2]);
        if (pc.progress_fd >= 0) {
                char line[300];
                int n = snprintf(line, sizeof line, "%zu\t%.250s\n", id, l->name);
                ssize_t w = write(pc.progress_fd, line, n < (int)sizeof line ? (size_t)n
                                                                              : sizeof line - 1);
                (void)w; /* a full pipe drops a progress line, never blocks the program */
        }
        if (pc.t.first == 0)
                pc.t.first = pc_now();
        launch_t0 = pc_now();
        struct pc_ctx *c = pc_ctx_get(cb->context);
        if (c && pc.user_replay && pc.nmetrics)
                pc_replay_launch(c, id, cbid, cb->functionParams);
        else if (c)
                pc_ctx_on_launch(c, id);
        cuptiGetTimestamp(&l->api_start);
        cur_dispatch = id;
        in_launch = 1;
out:
        pthread_mutex_unlock(&lock);
}

static void on_launch_exit(const CUpti_CallbackData *cb)
{
        if (in_launch) {
                in_launch = 0;
                const CUresult *ret = cb->functionReturnValue;
                /* With counters the launch is serialized already; without, wait so that the
                 * bracket covers the kernel. */
                if (pc.api_timestamps && pc_cu.ctx_synchronize)
                        pc_cu.ctx_synchronize();
                uint64_t now = 0;
                cuptiGetTimestamp(&now);
                pthread_mutex_lock(&lock);
                pc.launches[cur_dispatch].api_end = now;
                if (ret && *ret != CUDA_SUCCESS) {
                        /* No kernel ran, so no range: take it out of the image's list. */
                        failed[cur_dispatch] = 1;
                        struct pc_ctx *c = pc_ctx_get(cb->context);
                        if (c)
                                pc_ctx_drop(c, cur_dispatch);
                }
                if (pc.user_replay) {
                        struct pc_ctx *c = pc_ctx_get(cb->context);
                        if (c)
                                pc_ctx_cupti_end(c); /* a launch left to CUPTI's replay */
                } else if (pc.lock_fd >= 0) {
                        struct pc_ctx *c = pc_ctx_get(cb->context);
                        if (c)
                                pc_ctx_after_launch(c);
                }
                double dt = pc_now() - launch_t0;
                pc.t.launches += dt;
                pc.t.nlaunch++;
                if (pc.timing > 1) /* PRISM_CUPTI_TIMING=2: each launch call's time */
                        fprintf(stderr, "prism-cupti: timing: launch %zu %.6f s %.80s\n",
                                cur_dispatch, dt, pc.launches[cur_dispatch].name);
                pc_samp_after_launch(cb->context); /* pcsamp.c */
                pthread_mutex_unlock(&lock);
        }
        if (holds_launch_lock) {
                holds_launch_lock = 0;
                pthread_mutex_unlock(&launch_lock);
        }
}

static void CUPTIAPI callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                              const void *data)
{
        (void)userdata;
        if (pc_flushing || pc_replaying)
                return; /* the collector's own cache flush (flush.c) or replay (replay.c) */
        if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
                const CUpti_CallbackData *cb = data;
                if (cb->callbackSite == CUPTI_API_ENTER)
                        on_launch_enter(cbid, cb);
                else
                        on_launch_exit(cb);
        } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
                const CUpti_ResourceData *rd = data;
                pthread_mutex_lock(&lock);
                if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
                        pc_debug("context %p created", (void *)rd->context);
                        pc_ctx_get(rd->context);
                        pc_samp_context(rd->context);
                } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
                        /* The last chance to read this context's counters. */
                        struct pc_ctx *c = pc_ctx_get(rd->context);
                        pc_debug("context %p being destroyed", (void *)rd->context);
                        if (c)
                                pc_ctx_finish(c, 1);
                        pc_samp_context_end(rd->context);
                        pc_ctx_forget(rd->context);
                } else if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
                        pc_samp_module(rd);
                }
                pthread_mutex_unlock(&lock);
        }
}

static const char *const fixed_cols[] = {
    COL_DISPATCH_ID,       COL_KERNEL_NAME,          COL_GPU_ID,    COL_GRID_SIZE,
    COL_WORKGROUP_SIZE,    COL_LDS_PER_WORKGROUP,    COL_SCRATCH_PER_WORKITEM,
    COL_ARCH_VGPR,         COL_ACCUM_VGPR,           COL_SGPR,      COL_WAVE_SIZE,
    COL_START,             COL_END,
};

/* Start and end of a launch: the activity record's when it has them; else (the range
 * profiler leaves them 0 in the records of the launches it profiles) the time the launch
 * call was entered, plus gpu__time_duration.sum when it was collected, or else the time
 * the call returned (which then includes the profiling overhead). All on CUPTI's clock. */
static int timestamps(const struct pc_launch *l, int dur, uint64_t *start, uint64_t *end)
{
        if (l->start && l->end > l->start) {
                *start = l->start;
                *end = l->end;
                return 0;
        }
        *start = l->api_start;
        if (dur >= 0 && !isnan(l->vals[dur]) && l->vals[dur] >= 0) {
                *end = l->api_start + (uint64_t)llround(l->vals[dur]);
                return 1;
        }
        *end = l->api_end;
        return 2;
}

static int write_csv(void)
{
        struct stat st;
        size_t nrows = 0;
        for (size_t i = 0; i < pc.nlaunches; i++)
                nrows += !failed[i];
        /* A helper process of the target that launched nothing must not overwrite the
         * rows of the process that did. */
        if (nrows == 0 && stat(pc.out_path, &st) == 0)
                return 0;
        char *tmp = NULL;
        if (asprintf(&tmp, "%s.tmp.%ld", pc.out_path, (long)getpid()) < 0)
                return -1;
        FILE *f = fopen(tmp, "w");
        if (!f) {
                pc_error("cannot write '%s': %s", tmp, strerror(errno));
                free(tmp);
                return -1;
        }
        for (size_t i = 0; i < sizeof fixed_cols / sizeof fixed_cols[0]; i++)
                fprintf(f, "%s%s", i ? "," : "", fixed_cols[i]);
        for (size_t m = 0; m < pc.nmetrics; m++) {
                fputc(',', f);
                csv_put_field(f, pc.metrics[m], 0);
        }
        for (size_t m = 0; m < pc.nlmetrics; m++) {
                fputc(',', f);
                csv_put_field(f, pc.lnames[m], 0);
        }
        if (pc.kernel_mode)
                fputs(",Replayed", f);
        fputc('\n', f);
        size_t row = 0, source[3] = {0};
        int dur = -1;
        for (size_t m = 0; m < pc.nmetrics; m++)
                if (strcmp(pc.metrics[m], "gpu__time_duration.sum") == 0)
                        dur = (int)m;
        for (size_t i = 0; i < pc.nlaunches; i++) {
                const struct pc_launch *l = &pc.launches[i];
                if (failed[i])
                        continue;
                fprintf(f, "%zu,", row++);
                csv_put_field(f, l->name, 0);
                fprintf(f, ",%u,%llu,%llu,%llu,%llu,", l->gpu, (unsigned long long)l->grid_threads,
                        (unsigned long long)l->block_threads, (unsigned long long)l->lds,
                        (unsigned long long)l->scratch);
                if (l->regs >= 0)
                        fprintf(f, "%d", l->regs);
                uint64_t t0, t1;
                source[timestamps(l, dur, &t0, &t1)]++;
                fprintf(f, ",0,0,32,");
                if (t0)
                        fprintf(f, "%lld", (long long)((int64_t)t0 - pc.ts_offset));
                fputc(',', f);
                if (t1)
                        fprintf(f, "%lld", (long long)((int64_t)t1 - pc.ts_offset));
                for (size_t m = 0; m < pc.nmetrics; m++) {
                        fputc(',', f);
                        if (!isnan(l->vals[m]))
                                fprintf(f, "%.15g", l->vals[m]);
                }
                for (size_t m = 0; m < pc.nlmetrics; m++) {
                        fputc(',', f);
                        if (pc.lmetrics[m] >= 0 && !isnan(l->la[pc.lmetrics[m]]))
                                fprintf(f, "%.15g", l->la[pc.lmetrics[m]]);
                }
                if (pc.kernel_mode)
                        fprintf(f, ",%d", l->ranged || !pc.nmetrics);
                fputc('\n', f);
        }
        int bad = ferror(f);
        if (fclose(f) != 0 || bad || rename(tmp, pc.out_path) != 0) {
                pc_error("cannot write '%s': %s", pc.out_path, strerror(errno));
                unlink(tmp);
                free(tmp);
                return -1;
        }
        pc_debug("wrote %zu rows to %s; timestamps: %zu activity, %zu call+duration, %zu call", row,
                 pc.out_path, source[0], source[1], source[2]);
        free(tmp);
        return 0;
}

static void at_exit(void)
{
        if (getpid() != owner_pid)
                return; /* a forked child of the target: the parent writes */
        pthread_mutex_lock(&lock);
        pc_ctx_finish_all();
        pc_samp_finish();
        if (!pc.api_timestamps)
                pc_activity_finish();
        double t0 = pc_now();
        write_csv();
        pc.t.csv = pc_now() - t0;
        pc_timing_report();
        pthread_mutex_unlock(&lock);
}

/* CUPTI's clock counts ns since 1970 (about 1.8e18), past what a double (prism's tables)
 * holds to the ns; write timestamps on CLOCK_MONOTONIC (ns since boot, as rocprof does). */
static void clock_offset(void)
{
        struct timespec a, b;
        uint64_t c = 0;
        clock_gettime(CLOCK_MONOTONIC, &a);
        cuptiGetTimestamp(&c);
        clock_gettime(CLOCK_MONOTONIC, &b);
        int64_t mid =
            ((int64_t)a.tv_sec + b.tv_sec) * 500000000 + ((int64_t)a.tv_nsec + b.tv_nsec) / 2;
        pc.ts_offset = (int64_t)c - mid;
}

/* Is name one of the comma-separated list? */
static int listed(const char *list, const char *name)
{
        size_t n = strlen(name);
        for (const char *p = list; p && *p;) {
                const char *e = strchr(p, ',');
                size_t len = e ? (size_t)(e - p) : strlen(p);
                if (len == n && !strncmp(p, name, n))
                        return 1;
                p = e ? e + 1 : NULL;
        }
        return 0;
}

/* pc.split: the metrics named in inst (PRISM_CUPTI_INSTRUMENTED) apart from the others, for
 * the collector's own replay (range.c splits only when both kinds are there). */
static void split_metrics(const char *inst)
{
        size_t n = pc.nmetrics ? pc.nmetrics : 1;
        pc.split.hw = calloc(n, sizeof *pc.split.hw);
        pc.split.inst = calloc(n, sizeof *pc.split.inst);
        pc.split.hw_slot = calloc(n, sizeof *pc.split.hw_slot);
        pc.split.inst_slot = calloc(n, sizeof *pc.split.inst_slot);
        if (!pc.split.hw || !pc.split.inst || !pc.split.hw_slot || !pc.split.inst_slot) {
                pc.split.nhw = pc.split.ninst = 0; /* no split: one set, as before */
                return;
        }
        for (size_t m = 0; m < pc.nmetrics; m++) {
                if (listed(inst, pc.metrics[m])) {
                        pc.split.inst_slot[pc.split.ninst] = m;
                        pc.split.inst[pc.split.ninst++] = pc.metrics[m];
                } else {
                        pc.split.hw_slot[pc.split.nhw] = m;
                        pc.split.hw[pc.split.nhw++] = pc.metrics[m];
                }
        }
}

static void parse_env(void)
{
        const char *s = getenv("PRISM_CUPTI_OUT");
        pc.out_path = s && *s ? s : "prism-cupti.csv";
        if (asprintf(&pc_err_path, "%s.err", pc.out_path) < 0)
                pc_err_path = NULL;
        s = getenv("PRISM_CUPTI_DEBUG");
        pc.debug = s && *s && strcmp(s, "0") != 0;
        s = getenv("PRISM_CUPTI_TIMESTAMPS");
        pc.api_timestamps = s && strcmp(s, "api") == 0;
        pc.activity_kind = s && strcmp(s, "kernel") == 0 ? CUPTI_ACTIVITY_KIND_KERNEL
                                                         : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        pc.max_ranges = DEFAULT_MAX_RANGES;
        s = getenv("PRISM_CUPTI_MAX_RANGES");
        if (s && *s) {
                char *end;
                long v = strtol(s, &end, 10);
                if (*end || v < 1 || v > 1000000)
                        pc_warn("ignoring PRISM_CUPTI_MAX_RANGES='%s' (want 1..1000000)", s);
                else
                        pc.max_ranges = (size_t)v;
        }
        s = getenv("PRISM_CUPTI_REPLAY");
        pc.kernel_mode = s && !strcmp(s, "kernel");
        s = getenv("PRISM_CUPTI_AVAILABILITY");
        pc.use_avail = s && *s && strcmp(s, "0") != 0;
        s = getenv("PRISM_CUPTI_FLUSH");
        pc.flush_caches = s && *s && strcmp(s, "0") != 0;
        /* kernel replay with the caches flushed before every pass, by the collector itself:
         * opt-in (PRISM_CUPTI_CHECKPOINT=1 with REPLAY=kernel and FLUSH=1): the instrumented
         * metrics read 0 in it (left empty); 2 splits them off to CUPTI's replay, which
         * crashed the target on the H200 (replay.c) */
        s = getenv("PRISM_CUPTI_CHECKPOINT");
        pc.user_replay = pc.kernel_mode && pc.flush_caches && s &&
                         (!strcmp(s, "1") || !strcmp(s, "2"));
        pc.hybrid = pc.user_replay && !strcmp(s, "2");
        s = getenv("PRISM_CUPTI_USER_RANGE");
        pc.user_range = s && *s && strcmp(s, "0") != 0;
        s = getenv("PRISM_CUPTI_TIMING");
        pc.timing = s && *s && strcmp(s, "0") != 0 ? (strcmp(s, "2") == 0 ? 2 : 1) : 0;
        pc.progress_fd = -1;
        s = getenv("PRISM_CUPTI_PROGRESS_FD");
        if (s && *s) {
                char *end;
                long v = strtol(s, &end, 10);
                if (!*end && v > 2 && v < 65536 && fcntl((int)v, F_GETFD) >= 0) {
                        pc.progress_fd = (int)v;
                        fcntl(pc.progress_fd, F_SETFD, FD_CLOEXEC);
                }
        }
        pc.lock_fd = -1;
        s = getenv("PRISM_CUPTI_LOCK");
        if (s && *s) {
                pc.lock_fd = gpulock_open(s);
                if (pc.lock_fd < 0)
                        pc_error("cannot open the GPU lock '%s': %s", s, strerror(errno));
        }
        s = getenv("PRISM_CUPTI_METRICS");
        metrics_env = strdup(s ? s : "");
        size_t cap = 1;
        for (const char *p = metrics_env ? metrics_env : ""; *p; p++)
                cap += *p == ',';
        pc.metrics = calloc(cap, sizeof *pc.metrics);
        pc.lmetrics = calloc(cap, sizeof *pc.lmetrics);
        pc.lnames = calloc(cap, sizeof *pc.lnames);
        if (!metrics_env || !pc.metrics || !pc.lmetrics || !pc.lnames)
                return;
        char *save = NULL;
        for (char *tok = strtok_r(metrics_env, ", \t\n", &save); tok;
             tok = strtok_r(NULL, ", \t\n", &save)) {
                /* launch attributes are written by the collector, not counted by CUPTI */
                if (!strncmp(tok, "launch__", 8)) {
                        int a = pc_la_index(tok);
                        if (a < 0)
                                pc_error("unknown launch metric '%s' (its values stay empty)",
                                         tok);
                        if (pc.nlmetrics < cap) {
                                pc.lnames[pc.nlmetrics] = tok;
                                pc.lmetrics[pc.nlmetrics++] = a;
                        }
                        continue;
                }
                if (pc.nmetrics < cap)
                        pc.metrics[pc.nmetrics++] = tok;
        }
        split_metrics(getenv("PRISM_CUPTI_INSTRUMENTED"));
}

PC_EXPORT int InitializeInjection(void)
{
        static int done;
        CUpti_SubscriberHandle sub;

        if (done)
                return 1;
        done = 1;
        owner_pid = getpid();
        pc.t.injected = pc_now();
        parse_env();
        clock_offset();
        if (pc_cuda_load() < 0)
                pc_warn("cannot open libcuda.so.1: %s", dlerror());
        /* Never fail the target: on error report and let it run without us. */
        if (pc_check(cuptiSubscribe(&sub, callback, NULL), "cannot subscribe to CUDA callbacks") <
            0)
                return 1;
        for (size_t i = 0; i < sizeof launch_cbids / sizeof launch_cbids[0]; i++)
                if (pc_check(
                        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, launch_cbids[i]),
                        "cannot enable the kernel launch callback") < 0)
                        return 1;
        if (pc_check(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE,
                                         CUPTI_CBID_RESOURCE_CONTEXT_CREATED),
                     "cannot enable the context callback") < 0 ||
            pc_check(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE,
                                         CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING),
                     "cannot enable the context callback") < 0)
                return 1;
        if (pc_samp_init(sub) < 0) /* PRISM_CUPTI_PCSAMPLING (pcsamp.c) */
                return 1;
        if (!pc.api_timestamps && pc_activity_start() < 0) {
                pc_warn("falling back to API timestamps");
                pc.api_timestamps = 1;
        }
        atexit(at_exit);
        pc_debug("injected into pid %ld: %zu metrics, output '%s'", (long)owner_pid, pc.nmetrics,
                 pc.out_path);
        return 1;
}
