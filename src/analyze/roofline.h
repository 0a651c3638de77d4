/* The empirical roofline as a view model: ceilings read from roofline.csv and, for each top
 * kernel (or dispatch), its arithmetic intensity per memory level and its achieved FLOP/s,
 * computed from the per-dispatch amounts of the metrics the family's `roofline:` section
 * names (struct roof_spec, src/arch/arch.h). */
#ifndef PRISM_ROOFLINE_H
#define PRISM_ROOFLINE_H

#include "../store/table.h"
#include "analysis.h"

/* The memory levels and compute ceilings are the family's (struct roof_spec, the
 * `roofline:` section of its metric file): arrays below are indexed as its levels[] and
 * ceilings[]. */

/* Empirical ceilings: the mean over roofline.csv's rows (devices), or one device's row. */
struct roof_ceilings {
        int have;    /* a roofline.csv was read */
        long device; /* the device used, -1 for the mean of all */
        size_t ndevices;
        double bw[ROOF_MAX_LEVELS];     /* GB/s, NaN when the column is absent */
        double peak[ROOF_MAX_CEILINGS]; /* GFLOP/s (GIOP/s), NaN when absent */
};

/* One plotted kernel (or dispatch): per-dispatch means over its selected dispatches. */
struct roof_point {
        char *name;         /* kernel name */
        double dispatch_id; /* --sort dispatches: its Dispatch_ID; NaN in kernel mode */
        size_t calls;       /* dispatches averaged */
        double duration;    /* mean ns */
        double flops;       /* mean total FLOPs */
        double bytes[ROOF_MAX_LEVELS];
        double ai[ROOF_MAX_LEVELS]; /* FLOP/byte; NaN when bytes are 0 or n/a */
        double perf;                /* GFLOP/s (FLOP per ns) */
        double dtype_perf[ROOF_MAX_CEILINGS];
};

struct roofline {
        const struct roof_spec *spec; /* the family's levels and ceilings */
        struct roof_ceilings c;
        struct roof_point *pts;
        size_t npts;
        unsigned levels; /* bit (1 << level) for each level shown */
        int by_dispatch;
        char *note;                /* why there is no plot (no roofline.csv), or NULL */
        const struct panel *panel; /* the panel the roofline tables belong to */
        char *points_id;           /* the id of the plot points' table, or NULL */
};

struct roof_opts {
        unsigned levels; /* level mask; 0 = all */
        long device;     /* -1: the mean of all devices */
        int by_dispatch; /* points per dispatch instead of per kernel */
        size_t top;      /* points at most (0: 10, as rocprof-compute) */
};

/* The level of spec that a --mem-level name names (its name or another of its names, any
 * case), or -1. */
int roof_level_parse(const struct roof_spec *spec, const char *s);
/* The level mask of --mem-level names (none: 0, all levels). An unknown name, or a family
 * without a roofline, is a usage error naming the levels there are. */
int roof_levels_mask(const struct roof_spec *spec, char *const *names, size_t n, unsigned *mask,
                     struct err *err);

/* Arithmetic intensity (FLOP/byte): NaN unless bytes > 0 and both are numbers. */
double roof_ai(double flops, double bytes);
/* Achieved GFLOP/s from FLOPs and nanoseconds: NaN unless ns > 0. */
double roof_gflops(double flops, double ns);
/* The attainable GFLOP/s at intensity ai under one bandwidth (GB/s) and one peak:
 * min(bw * ai, peak). */
double roof_attainable(double bw, double peak, double ai);

/* Ceilings of spec's levels and ceilings from a loaded roofline.csv: the mean over its
 * rows, or the row whose `device` column is `device` (>= 0). An unknown device is an error
 * naming the devices present. */
int roof_ceilings_read(const struct table *t, const struct roof_spec *spec, long device,
                       struct roof_ceilings *c, struct err *err);

/* The roofline itself is built by analysis (src/analyze/build.h) when its options are
 * given (analysis_opts.roof) and a roofline_* table of panel 4 is shown: ceilings from
 * roofline.csv, the top kernels (or dispatches) by total duration, each with the counts
 * table evaluated over its dispatches; analysis.roof holds it. */
void roofline_free(struct roofline *r);

#endif
