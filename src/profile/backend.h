/* The counter-collection interface: one small struct of function pointers per vendor
 * backend (rocprof for AMD, cupti for NVIDIA). The core never #ifdefs per vendor. */
#ifndef PRISM_BACKEND_H
#define PRISM_BACKEND_H

#include <stddef.h>

#include "../store/table.h"
#include "../util/util.h"

/* How a backend collects more counters than one hardware pass holds (Nsight Compute's
 * words): application replay runs the program once per pass; kernel replay runs it once
 * and replays each kernel once per pass, device memory saved and restored in between. */
enum replay_mode {
        REPLAY_AUTO = 0,        /* kernel where the backend supports it, else application */
        REPLAY_APPLICATION = 1, /* bit values: a backend's replay_modes */
        REPLAY_KERNEL = 2,
};

/* --cache-control (Nsight Compute's words): with CACHE_ALL the GPU's caches are flushed
 * before each profiled kernel, so that its cache and memory counters do not depend on what
 * ran before it (another kernel, another rank sharing the GPU, a replay mode); CACHE_NONE
 * leaves them as the program left them. */
enum cache_control {
        CACHE_AUTO = 0, /* none (measured: see bench/replay-h100.md) */
        CACHE_ALL = 1,
        CACHE_NONE = 2,
};

struct clock_state;
struct counter_def;

/* Progress from inside a run (kernel replay): the dispatch the collector is replaying. */
typedef void (*backend_progress_fn)(void *ctx, long dispatch, const char *kernel);

/* One pass: run the target once, collecting these counters. */
struct backend_pass {
        int index;                /* 0-based pass number */
        const char *const *counters;
        size_t ncounters;
        char *const *argv;        /* the target command, NULL-terminated */
        const char *workdir;      /* a scratch directory for this pass (exists, empty) */
        const char *const *kernels; /* kernel name filters (substring), may be NULL */
        size_t nkernels;
        const long *dispatches;   /* dispatch ids to keep, may be NULL */
        size_t ndispatches;
        int timeout_s;            /* 0: none */
        const char *accum;        /* an accumulate pass: the counter accumulated, else NULL */
        const char *accum_value;  /* the name its accumulated value has among counters */
        /* the architecture's counters the profiler lacks (arch.h): aliases and hardware
         * events the backend defines for it; may be NULL */
        const struct counter_def *defs;
        size_t ndefs;
        /* REPLAY_KERNEL: counters holds the counters of every pass of the plan (ngroups
         * groups of group_sizes[i] counters, in plan order) and one run collects them all;
         * REPLAY_APPLICATION (or 0): the counters of one pass. */
        int replay;
        const size_t *group_sizes;
        size_t ngroups;
        backend_progress_fn progress; /* may be NULL */
        void *progress_ctx;
        int flush_caches;         /* CACHE_ALL was chosen: flush before each profiled kernel */
        /* REPLAY_KERNEL: the counters the profiler collects by instrumenting the code (the
         * family's `instrumented:`), which its own replay leaves to the profiler's */
        const char *const *instrumented;
        size_t ninstrumented;
};

/* The PC-sampling run (src/profile/pcsampling.c): the target once more, sampling where its
 * waves (warps) are, in a run of its own so that no counter pass is disturbed. */
struct backend_pcs {
        char *const *argv;        /* the target command, NULL-terminated */
        const char *workdir;      /* scratch directory (exists, empty) */
        const char *outdir;       /* the workload directory: the sample files go here */
        const char *method;       /* AMD: "stochastic" or "host_trap"; NULL: the default */
        unsigned long interval;   /* cycles (stochastic, NVIDIA) or microseconds (host
                                   * trap); 0: the default */
        int timeout_s;            /* 0: none */
};

/* A backend's PC sampling is not available here (the profiler lacks it): the caller
 * warns and goes on without samples. */
#define ERR_PCS_UNSUPPORTED (-10)

struct backend {
        const char *name;
        /* 1 if the backend can run on this machine (tool or library present, GPU seen). */
        int (*available)(void);
        /* Fill si (one row, the sysinfo.csv columns: gpu_model, gpu_arch, cu_per_gpu, ...)
         * for the GPU the target will run on. */
        int (*detect)(struct table *si, struct err *err);
        /* Planning without the GPU (--dry-run --arch TARGET): fill si as detect would from
         * what the backend knows of target and return 1; 0 if it does not know target.
         * NULL: the backend knows no target. */
        int (*offline_sysinfo)(const char *target, struct table *si);
        /* Run one pass; fill out with one row per dispatch in launch order: the columns
         * Dispatch_ID, Kernel_Name, GPU_ID, Grid_Size, Workgroup_Size, LDS_Per_Workgroup,
         * Scratch_Per_Workitem, Arch_VGPR, Accum_VGPR, SGPR, wave_size, Start_Timestamp,
         * End_Timestamp, then one column per counter. A target that fails or is killed
         * gives an error naming the pass. */
        int (*run_pass)(const struct backend_pass *pass, struct table *out, struct err *err);
        /* NVIDIA only (NULL elsewhere): how many hardware passes this counter set needs
         * on chip (the family's `chip:`); <0 with err on failure. */
        int (*num_passes)(const char *chip, const char *const *counters, size_t n,
                          struct err *err);
        /* REPLAY_APPLICATION | REPLAY_KERNEL bits the backend supports; 0: application
         * replay only. */
        unsigned replay_modes;
        /* --clock-control: lock the clocks (CLOCK_BASE) or only read the base (CLOCK_NONE)
         * of the GPU the target runs on; -1 with cs->desc saying why the driver refused.
         * NULL: the backend cannot. */
        int (*clocks)(int mode, struct clock_state *cs);
        void (*clocks_reset)(void);
        /* 1: the backend can flush the GPU caches before each profiled kernel
         * (--cache-control all). */
        int can_flush_caches;
        /* PC sampling: run the target once, sampling, and write the samples into
         * p->outdir as files that src/store/pcsamp.h reads; ERR_PCS_UNSUPPORTED when the
         * profiler here cannot. NULL: the backend cannot sample. */
        int (*pc_sampling)(const struct backend_pcs *p, struct err *err);
        /* 1: sample in every profile (--no-pc-sampling skips it); 0: only when -b selects
         * panel 21 (AMD, where rocprofv3 calls PC sampling a beta that may hang the GPU) */
        int pc_sampling_default;
        /* The device binding of this vendor's runtime: the environment variables that
         * choose the target's GPU, in the runtime's order of precedence, NULL-terminated;
         * the first one is the variable prism sets to bind a GPU it chose. */
        const char *const *device_vars;
        /* GPUs of this vendor on the node, counted without initialising a GPU runtime
         * (driver or kernel files); 0 none. NULL: the backend cannot count. */
        int (*count_gpus)(void);
};

/* The replay mode a profile uses: want (REPLAY_AUTO: kernel if b supports it, else
 * application); a mode b does not support is an ERR_USAGE error naming both. */
int backend_replay_mode(const struct backend *b, int want, struct err *err);
/* "kernel", "application" */
const char *backend_replay_name(int mode);
/* The cache control a profile uses: want (CACHE_AUTO: none);
 * CACHE_ALL on a backend that cannot flush is an ERR_USAGE error naming it. */
int backend_cache_mode(const struct backend *b, int want, struct err *err);
/* "all", "none" */
const char *backend_cache_name(int mode);

extern const struct backend backend_rocprof;
extern const struct backend backend_cupti;

/* Look a backend up by name; NULL if unknown. */
const struct backend *backend_find(const char *name);
/* The backend to profile with: the one named (an unknown name is ERR_USAGE, one that cannot
 * run here ERR_SYS), else the first of the table that can run here; NULL with err. */
const struct backend *backend_pick(const char *name, struct err *err);
/* The backend that counts hardware passes for a planner: be, the one in use, else (--dry-run
 * --arch, no GPU) the one named, or the first that can count; NULL with err. */
const struct backend *backend_for_passes(const struct backend *be, const char *name,
                                         struct err *err);

/* GPUs on this node: the count of the first backend (in the table's order) that sees any;
 * 0 none. */
int backend_count_gpus(void);
/* Every backend's device variables, each once, in the table's order (NULL-terminated):
 * where a launcher or the user may have bound this process's GPU. */
const char *const *backend_device_vars(void);
/* Bind GPU index (among the node's) for the target, whatever its vendor: every backend's
 * binding variable is set to it. */
void backend_bind_device(int index);

/* sysinfo for planning target without a GPU: the first backend that knows target fills si;
 * if none does, only gpu_arch and gpu_model (both target) are set. */
void backend_offline_sysinfo(const char *target, struct table *si);

#endif
