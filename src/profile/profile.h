/* The profile driver: detect the GPU, load its metrics, plan the passes, run the target
 * once per pass through a backend, merge the passes per dispatch and write the workload. */
#ifndef PRISM_PROFILE_H
#define PRISM_PROFILE_H

#include <stddef.h>
#include <stdio.h>

#include "../arch/arch.h"
#include "../util/util.h"
#include "plan.h"

struct backend;

struct profile_opts {
        const char *name;          /* -n: workload name */
        const char *path;          /* -p: the workload directory; NULL: workloads/NAME/MODEL */
        char *const *kernels;      /* -k: kernel name substrings */
        size_t nkernels;
        const long *dispatches;    /* -d: dispatch numbers (launch order from 0) */
        size_t ndispatches;
        char *const *blocks;       /* -b: hardware blocks (counter-name prefixes) or panel/table ids (17, 2.1) */
        size_t nblocks;
        int join_grid;             /* --join-type grid */
        int no_roof;               /* only recorded in sysinfo's ip_blocks */
        int dry_run;               /* plan and write perfmon/, run nothing */
        int roof_only;             /* only find the GPU and create the workload directory */
        const char *arch;          /* --arch: plan for this target (with dry_run) */
        const char *backend;       /* --backend; NULL: the first available */
        int force;                 /* replace an existing workload */
        int resume;                /* reuse the finished passes of an interrupted profile */
        int pass_timeout;          /* seconds, 0: none */
        char *const *argv;         /* the target command, NULL-terminated */
        const char *metrics_dir;   /* NULL: data_path("metrics") */
        const char *panels_dir;    /* NULL: data_path("panels") */
        FILE *out;                 /* --dry-run listing ("pass N: ..."); NULL: none */
        FILE *log;                 /* plain progress lines; NULL: none */
        FILE *tty;                 /* the terminal for the in-place progress line, or NULL
                                      (then plain lines go to log) */
        int replay;                /* REPLAY_AUTO, REPLAY_APPLICATION, REPLAY_KERNEL */
        const long *ranks;         /* --ranks: the ranks to profile (NULL: all) */
        size_t nranks;
        int clock_control;         /* CLOCK_NONE (default) or CLOCK_BASE */
        int cache_control;         /* CACHE_AUTO (default), CACHE_ALL, CACHE_NONE */
        const struct backend *backend_impl; /* tests: this backend instead of a lookup */
        int pc_sampling;           /* PCS_AUTO (the backend's default, or -b 21), PCS_OFF
                                      (--no-pc-sampling) */
        const char *pc_method;     /* --pc-sampling-method, NULL: default */
        unsigned long pc_interval; /* --pc-sampling-interval, 0: default */
};

enum { PCS_AUTO = 0, PCS_OFF = 1 };

/* pcsampling.c: the PC-sampling run after the counter passes, when o and the backend ask
 * for it; its failure is a warning (the counters are written already). res->pc_samples
 * gets the sampled instructions (lines) written. */
struct profile_result;
struct backend;
void profile_pc_sampling(const struct profile_opts *o, const struct backend *be,
                         const char *dir, const char *scratch, struct profile_result *res);

enum { CLOCK_NONE = 0, CLOCK_BASE = 1 };

/* What a profile did, for the command's summary. */
struct profile_result {
        char *dir;                 /* the workload directory (malloc'd) */
        char *target;              /* gfx name planned for */
        size_t passes, accum_passes, lower_bound, dispatches;
        size_t ratios, ratios_split; /* ratios to keep in one run (plan.h), those spread */
        int grouped;               /* planned by the profiler's pass count (NVIDIA): then
                                      lower_bound is the hardware passes of all at once */
        int replay;                /* the mode used: REPLAY_KERNEL or REPLAY_APPLICATION */
        int cache;                 /* the cache control used: CACHE_ALL or CACHE_NONE */
        size_t runs;               /* runs of the program made */
        int fell_back;             /* kernel replay fell back: 1 all, 2 some dispatches */
        int skipped;               /* --ranks: this rank ran the program without counters */
        char gpu[160];             /* how this rank's GPU was chosen ("" single process) */
        char clocks[200];          /* the clocks the report was taken at */
        size_t pc_samples;         /* sampled instruction lines written (0: none) */
        int pc_sampled;            /* the PC-sampling run was made */
};
void profile_result_free(struct profile_result *r);

/* Run (or with dry_run only plan) a profile. Errors: bad selection, unknown architecture,
 * an existing workload without force, a failing pass (the message names it; its log stays
 * in DIR/.prism-passes/pass_N/), passes that disagree on the dispatches. */
int profile_run(const struct profile_opts *o, struct profile_result *res, struct err *err);

/* The plan request for an architecture: its builtins and normalizations, and the formulas
 * of every metric, or of the metrics that the selectors choose (hardware block names, panel
 * ids "17" or table ids "17.1"; panels may be NULL when no selector is an id). */
int profile_plan_req(const struct arch *a, const struct panel_set *ps, char *const *sel,
                     size_t nsel, struct plan_req *r, struct err *err);
/* 1 for a selector that is a panel or table id ("17", "17.1"), 0 for a block name. */
int profile_sel_is_id(const char *s);

#endif
