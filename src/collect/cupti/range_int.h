/* The Range Profiler's state per CUDA context, shared by range.c (CUPTI's kernel replay,
 * setup, decoding) and range_user.c (the collector's own replay, replay.c, and CUPTI's replay
 * of single launches beside it). Internal to the collector. */
#ifndef PRISM_CUPTI_RANGE_INT_H
#define PRISM_CUPTI_RANGE_INT_H

#include "collector.h"

enum { CTX_NEW, CTX_RUNNING, CTX_OFF };

/* One metric set of a context: its config, host object and counter data image. A context
 * has one (every metric) unless the collector's own replay splits its metrics (below). */
struct mset {
        const char **names; /* the metrics; pc.metrics, or a subset */
        size_t n;
        size_t *slot;       /* per name: its index in pc.metrics; NULL: the same order */
        CUpti_Profiler_Host_Object *host;
        uint8_t *config;
        size_t config_size;
        uint8_t *cd; /* the counter data image */
        size_t cd_size;
        size_t max;  /* ranges the image holds now: starts small (Start costs about 1 ms
                        per range) and doubles at each re-arm up to pc.max_ranges */
};

/* The sets of a context: SET_MAIN always (every metric; with the split, the hardware
 * counters that the collector's own replay collects); with the split also SET_INST (the
 * metrics CUPTI collects by instrumenting the code, through its kernel replay of the
 * program's launch) and SET_ALL (every metric, CUPTI's replay of a kernel the collector
 * cannot replay; built on the first such kernel). */
enum { SET_MAIN, SET_INST, SET_ALL, NSETS };

struct pc_ctx {
        CUcontext ctx;
        uint32_t dev;
        int state;
        char chip[64];
        uint8_t *avail;
        struct mset sets[NSETS];
        size_t nsets; /* 1, or NSETS with the split */
        struct mset *s; /* the set being armed or decoded */
        struct mset *sized; /* the set the profiler object last sized an image for: it
                               initializes images for that set's metrics only */
        CUpti_RangeProfiler_Object *rp;
        size_t *batch; /* dispatch ids of the ranges in the image, in launch order */
        size_t nbatch, cap_batch;
        size_t base; /* launches profiled in this context before the image's first */
        int named;   /* range names are launch indices (auto range names them so) */
        size_t nflushes;
        int cupti_pending; /* user replay: a kernel left to CUPTI's replay awaits decoding */
        int mode; /* the replay mode of the last session started: 0 none, 1 CUPTI's kernel
                     replay, 2 the collector's (user replay) */
};

/* range.c, for range_user.c: */
/* report a failure of ctx (the first only) and return -1; 0 on success */
int rg_ck(struct pc_ctx *c, CUptiResult r, const char *what);
/* the first profiling set-up of ctx (or again after a shared GPU's release) */
int rg_setup(struct pc_ctx *c);
/* the config of the set c->s (kept when built) */
int rg_build_config(struct pc_ctx *c);
/* size c->s's counter data image for max ranges; ranges of a context's first image */
int rg_size_image(struct pc_ctx *c, size_t max);
size_t rg_first_ranges(void);
/* initialize c->s's image; SetConfig + Start (user: pass of the collector's replay); both */
CUptiResult rg_init_image(struct pc_ctx *c);
CUptiResult rg_config_start(struct pc_ctx *c, int user, size_t pass);
CUptiResult rg_arm(struct pc_ctx *c);
/* the profiler object: enable, disable, both (a fresh object) */
CUptiResult rg_enable(struct pc_ctx *c);
void rg_disable(struct pc_ctx *c);
CUptiResult rg_restart(struct pc_ctx *c);
/* stop, decode and evaluate the ranges of c->s's image (flush); decode a stopped session */
int rg_flush(struct pc_ctx *c);
int rg_decode_ranges(struct pc_ctx *c);
/* profiling of ctx off, its objects freed */
void rg_turn_off(struct pc_ctx *c);
/* the counter data images and the launch list (a shared GPU's release); configs stay */
void rg_free_images(struct pc_ctx *c);

#endif
