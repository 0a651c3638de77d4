/* libprism-cupti.so: the CUPTI collector injected into a CUDA program (CUDA_INJECTION64_PATH).
 * Internal interface between its parts: inject.c (callbacks, launch records, CSV output),
 * range.c (Range Profiler per context), host.c (Profiler Host API), activity.c (timestamps,
 * launch attributes). */
#ifndef PRISM_CUPTI_COLLECTOR_H
#define PRISM_CUPTI_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>
#include <cupti.h>
#include <cupti_activity.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#define PC_EXPORT __attribute__((visibility("default")))
/* A CUPTI parameter struct, zeroed, with its structSize set. */
#define PC_PARAMS(type)                                                                            \
        {                                                                                          \
                .structSize = type##_STRUCT_SIZE                                                   \
        }

/* activity.c: the launch attributes the collector writes as metrics (ncu's launch__ names):
 * from the launch call (shared memory, limits, the largest cluster) or from the kernel's
 * activity record (cache config, cluster size and policy, clusters resident at once). */
enum {
        PC_LA_SMEM_STATIC,
        PC_LA_SMEM_DYNAMIC,
        PC_LA_STACK,
        PC_LA_PERSIST_L2,
        PC_LA_CACHE_CONFIG,
        PC_LA_CLUSTER_SIZE,
        PC_LA_CLUSTER_POLICY,
        PC_LA_CLUSTER_MAX_SIZE,
        PC_LA_CLUSTER_MAX_ACTIVE,
        PC_LA_N
};
/* the attribute of a metric name, -1 when it is none the collector knows */
int pc_la_index(const char *name);
/* every attribute unknown (NaN) */
void pc_la_clear(double *la);
/* from the launch call (current context): static shared memory (-1 unknown), dynamic */
void pc_la_from_call(double *la, CUfunction f, const unsigned grid[3], const unsigned block[3],
                     int static_shared, unsigned dyn_shared);
void pc_la_from_record(double *la, const CUpti_ActivityKernel10 *k);
/* copy the known attributes of src into dst */
void pc_la_merge(double *dst, const double *src);

/* One kernel launch, in launch order (its index is the Dispatch_ID). */
struct pc_launch {
        char *name;           /* demangled when possible; malloc'd */
        uint32_t gpu;         /* device ordinal of the launch's context */
        uint32_t correlation; /* CUPTI correlation id, joins activity records */
        uint64_t grid_threads, block_threads;
        uint64_t lds;                /* static + dynamic shared memory per block, bytes */
        uint64_t scratch;            /* local memory per thread, bytes */
        int regs;                    /* registers per thread, -1 unknown */
        uint64_t start, end;         /* ns, from the activity record; 0 unknown */
        uint64_t api_start, api_end; /* ns, cuptiGetTimestamp around the launch call */
        double *vals;                /* nmetrics values, NaN until decoded */
        double la[PC_LA_N];          /* launch attributes, NaN unknown */
        int ranged;                  /* a range was decoded into vals */
};

/* Where the collector's time goes (PRISM_CUPTI_TIMING=1 prints it at exit), seconds. */
struct pc_timing {
        double injected;  /* InitializeInjection entered (monotonic) */
        double first;     /* first kernel launch entered */
        double init;      /* cuptiProfilerInitialize */
        double avail;     /* counter availability */
        double config;    /* host object and config image */
        double enable;    /* range profiler enable + counter data sizing */
        double arm;       /* counter data image init + SetConfig + Start, of which: */
        double arm_image, arm_config, arm_start;
        double launches;  /* inside the launch calls (kernel replay happens here) */
        double flush;     /* stop, decode, evaluate */
        double disable;   /* per-kernel disable when the GPU is shared */
        double lock_wait; /* waiting for the GPU lock */
        double csv;       /* writing the CSV */
        double cache_flush; /* flushing the L2 before kernels (PRISM_CUPTI_FLUSH) */
        double save, restore; /* the collector's own replay: checkpoints of device memory */
        double replay;        /* ... and the replayed launches, each to its pass's end */
        size_t nlaunch, nflush, nlock, nflushcache, npasses, nfallback;
        size_t ninst;    /* CUPTI sessions of the instrumented metrics (the split) */
        size_t nrestart; /* profiler objects re-enabled when a session of the other replay
                            mode would not start */
};

/* The collector's state; every field is guarded by lock (callbacks come from any thread). */
struct pc_state {
        const char **metrics; /* from PRISM_CUPTI_METRICS: CUPTI's (range profiler) metrics */
        size_t nmetrics;
        int *lmetrics;        /* ... and the launch attributes asked for (PC_LA_*, -1 unknown) */
        const char **lnames;  /* ... by name, in order */
        size_t nlmetrics;
        const char *out_path; /* PRISM_CUPTI_OUT */
        size_t max_ranges;    /* launches per counter data image before a flush */
        int debug;            /* PRISM_CUPTI_DEBUG=1: trace to stderr */
        int api_timestamps;   /* 1: cuptiGetTimestamp around the launch only, no activity */
        int activity_kind;    /* CUpti_ActivityKind of the kernel records */
        int64_t ts_offset;    /* CUPTI's clock minus CLOCK_MONOTONIC, ns */
        struct pc_launch *launches;
        size_t nlaunches, cap_launches;
        int kernel_mode;      /* PRISM_CUPTI_REPLAY=kernel: write the Replayed column */
        int progress_fd;      /* PRISM_CUPTI_PROGRESS_FD: "dispatch\tname" lines, -1 none */
        int lock_fd;          /* PRISM_CUPTI_LOCK: the per-GPU lock file, -1 none */
        int timing;           /* PRISM_CUPTI_TIMING=1, 2: per launch too */
        int use_avail;        /* PRISM_CUPTI_AVAILABILITY=1: build configs with the counter
                                 availability image from the start */
        int flush_caches;     /* PRISM_CUPTI_FLUSH=1: flush the L2 before each profiled
                                 kernel (flush.c) */
        int user_range;       /* PRISM_CUPTI_USER_RANGE=1: the collector's replay profiles a
                                 user range around the launch call instead of an auto range */
        int user_replay;      /* kernel replay by the collector (replay.c): PRISM_CUPTI_REPLAY
                                 =kernel with the flush and PRISM_CUPTI_CHECKPOINT=1 or 2 */
        int hybrid;           /* PRISM_CUPTI_CHECKPOINT=2: that replay splits off the
                                 instrumented metrics (split below; experimental) */
        /* PRISM_CUPTI_INSTRUMENTED: the metrics CUPTI collects by instrumenting the code
         * (SASS metrics). The collector's own replay cannot collect them (they read 0 in a
         * kernel it relaunches: left empty), so with pc.hybrid and both kinds asked for it
         * splits: the hardware counters (hw) through its replay, the instrumented ones
         * (inst) through CUPTI's kernel replay of the program's own launch; slot: each
         * one's index in metrics. */
        struct {
                const char **hw, **inst;
                size_t *hw_slot, *inst_slot;
                size_t nhw, ninst;
        } split;
        struct pc_timing t;
};

extern struct pc_state pc;
/* PRISM_CUPTI_OUT.err, where pc_error appends (set by inject.c; report.c) */
extern char *pc_err_path;

/* Report an error: one line "prism-cupti: ..." to stderr, appended to PRISM_CUPTI_OUT.err. */
void pc_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A warning or a trace line: stderr only. */
void pc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pc_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Check a CUPTI result: on failure report "WHAT: CUPTI_ERROR_..." (with a hint for missing
 * profiling permission) through pc_error and return -1; 0 on success. */
int pc_check(CUptiResult r, const char *what);
/* Format a CUPTI failure into buf (for callers that must not write the .err file). */
void pc_format_result(char *buf, size_t len, CUptiResult r, const char *what);

/* CUDA driver entry points, resolved from the libcuda.so.1 the target loaded (the library
 * does not link libcuda, so prism can dlopen it for pass counts on a machine with no GPU). */
struct pc_cuda {
        CUresult (*ctx_synchronize)(void);
        CUresult (*ctx_push)(CUcontext);
        CUresult (*ctx_pop)(CUcontext *);
        CUresult (*ctx_get_device)(CUdevice *);
        CUresult (*func_get_attribute)(int *, CUfunction_attribute, CUfunction);
        CUresult (*kernel_get_attribute)(int *, CUfunction_attribute, CUkernel, CUdevice);
        /* for the cache flush (flush.c) */
        CUresult (*ctx_create)(CUcontext *, unsigned, CUdevice);
        CUresult (*module_load_data)(CUmodule *, const void *);
        CUresult (*module_get_function)(CUfunction *, CUmodule, const char *);
        CUresult (*mem_alloc)(CUdeviceptr *, size_t);
        CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, CUstream, void **, void **);
        CUresult (*device_attribute)(int *, CUdevice_attribute, CUdevice);
        CUresult (*ctx_get_limit)(size_t *, CUlimit);
        CUresult (*max_cluster_size)(int *, CUfunction, const CUlaunchConfig *);
};
extern struct pc_cuda pc_cu;
int pc_cuda_load(void);

/* host.c: build the config image for metrics on chip (counter availability image optional).
 * Fills *host (free with pc_host_free) and a malloc'd *config. On failure writes one line
 * to errbuf and returns -1. */
int pc_host_config(const char *chip, const uint8_t *avail, const char *const *metrics, size_t n,
                   CUpti_Profiler_Host_Object **host, uint8_t **config, size_t *config_size,
                   char *errbuf, size_t errlen);
void pc_host_free(CUpti_Profiler_Host_Object *host);

/* range.c: the Range Profiler, one state per CUDA context. */
struct pc_ctx;
/* The CUDA context of c. */
CUcontext pc_ctx_context(const struct pc_ctx *c);
/* Find or create the state of ctx (NULL when out of memory). */
struct pc_ctx *pc_ctx_get(CUcontext ctx);
/* Called under the lock on a launch's API entry in ctx (current on this thread): set up
 * profiling on the first launch, flush a full counter data image, then queue dispatch id. */
void pc_ctx_on_launch(struct pc_ctx *c, size_t dispatch);
/* Take back the last queued launch when its launch call failed (no range comes of it). */
void pc_ctx_drop(struct pc_ctx *c, size_t dispatch);
/* Decode what is pending and stop profiling ctx (context still alive). push: make the
 * context current first (atexit runs with no guarantee about the current context). */
void pc_ctx_finish(struct pc_ctx *c, int push);
/* Finish every context still profiling. */
void pc_ctx_finish_all(void);
/* Forget a context being destroyed (after pc_ctx_finish). */
void pc_ctx_forget(CUcontext ctx);

/* Stop profiling ctx after the kernel just launched when the GPU is shared (pc.lock_fd):
 * decode its range, release the counters and the GPU lock. */
void pc_ctx_after_launch(struct pc_ctx *c);

/* The collector's own kernel replay: before pass n (from 0) prepare restores device memory
 * (n > 0) and flushes the L2; launch runs the kernel once more. */
struct pc_replay_ops {
        int (*prepare)(void *arg, size_t n);
        int (*launch)(void *arg);
        void *arg;
};
/* Profile launch dispatch of ctx by replaying it through ops, pass after pass, under a user
 * range, and evaluate its values (0); -1 on failure (reported, profiling of ctx off). */
int pc_ctx_user_profile(struct pc_ctx *c, size_t dispatch, const struct pc_replay_ops *ops);
/* CUPTI's kernel replay for this launch alone, armed at its API entry (begin) and decoded at
 * its exit (end): of every metric for a kernel the collector cannot replay (inst 0), or of
 * the instrumented metrics after the collector's replay of the others (inst 1, the split). */
int pc_ctx_cupti_begin(struct pc_ctx *c, size_t dispatch, int inst);
/* 1 when ctx splits its metrics (pc.split): the collector replays the hardware counters,
 * CUPTI the instrumented metrics */
int pc_ctx_split(const struct pc_ctx *c);
void pc_ctx_cupti_end(struct pc_ctx *c);

/* replay.c: on a launch's API entry in user-replay mode: save device memory, profile the
 * kernel through pc_ctx_user_profile, restore, and let the program's own launch run
 * unprofiled; a launch that cannot be replayed so (cooperative, managed memory, no
 * checkpoint) goes to CUPTI's replay, said once. */
void pc_replay_launch(struct pc_ctx *c, size_t dispatch, CUpti_CallbackId cbid,
                      const void *params);
/* Load the checkpoint library; -1 (said once) when it is missing. */
int pc_replay_init(void);
/* set on this thread while the collector launches a replay: the callbacks ignore it */
extern __thread int pc_replaying;

/* flush.c: write a buffer of four times the L2's size and discard it from the L2, in the
 * collector's own context on the current context's device, and wait for it; -1 when that
 * cannot be done (said once).
 * pc_flushing is set on this thread meanwhile: the callbacks ignore the collector's calls. */
int pc_l2_flush(void);
extern __thread int pc_flushing;

/* share.c: the per-GPU lock of ranks that share a GPU, and the timing report. */
double pc_now(void);
/* Take (wait for) and give back the GPU lock; no-ops without PRISM_CUPTI_LOCK. */
void pc_gpu_lock(void);
void pc_gpu_unlock(void);
int pc_gpu_locked(void);
void pc_timing_report(void);

/* activity.c: kernel start/end timestamps from CUPTI activity records. */
int pc_activity_start(void);
/* Flush the activity buffers and copy start/end into pc.launches by correlation id. */
void pc_activity_finish(void);

/* report.c: name demangled with the target's libstdc++ (malloc'd; a copy when it is not
 * a mangled name), NULL when out of memory. */
char *pc_demangle(const char *s);

/* pcsamp.c: PC sampling when PRISM_CUPTI_PCSAMPLING names the output file. init (in
 * InitializeInjection) returns 1 on, 0 off, -1 failed; the others are no-ops when off and
 * are called under inject.c's lock: a context created (enable and configure sampling), a
 * module loaded (keep its cubin for source lines), a launch returned (fetch pending
 * samples), a context being destroyed (disable, keep its samples), exit (write the file). */
int pc_samp_init(CUpti_SubscriberHandle sub);
int pc_samp_enabled(void);
void pc_samp_context(CUcontext ctx);
void pc_samp_module(const CUpti_ResourceData *rd);
void pc_samp_after_launch(CUcontext ctx);
void pc_samp_context_end(CUcontext ctx);
void pc_samp_finish(void);

#endif
