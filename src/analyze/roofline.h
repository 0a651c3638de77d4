/* The empirical roofline as a view model: ceilings read from roofline.csv and, for each top
 * kernel (or dispatch), its arithmetic intensity per memory level and its achieved FLOP/s,
 * computed from the per-dispatch amounts the metric files define under the keys `roof.*`. */
#ifndef PRISM_ROOFLINE_H
#define PRISM_ROOFLINE_H

#include "../store/table.h"
#include "analysis.h"

/* Memory levels, in the order rocprof-compute draws them. */
enum roof_level { ROOF_HBM, ROOF_L2, ROOF_L1, ROOF_LDS, ROOF_NLEVELS };

/* Data types with a compute ceiling (the kernel's own FLOP/s per type is reported too). */
enum roof_dtype {
        ROOF_VALU_F16,
        ROOF_VALU_F32,
        ROOF_VALU_F64,
        ROOF_MFMA_F16,
        ROOF_MFMA_BF16,
        ROOF_MFMA_F32,
        ROOF_MFMA_F64,
        ROOF_MFMA_I8,
        ROOF_NDTYPES
};

struct roof_level_def {
        const char *name;      /* "HBM", "L2", "vL1D", "LDS" (as --mem-level takes them) */
        const char *bytes_key; /* metric giving the bytes moved per dispatch */
        const char *bw_col;    /* roofline.csv column, GB/s */
};

struct roof_dtype_def {
        const char *name;      /* "VALU FP32" */
        const char *flops_key; /* metric giving the operations per dispatch */
        const char *peak_col;  /* roofline.csv column, GFLOP/s; NULL: no measured ceiling */
        int integer;           /* operations are integer ops (IOP) */
        int matrix;            /* a matrix unit's ceiling (MFMA, tensor core), else vector */
        const char *unit;      /* the unit's word: "VALU" or "MFMA" (a family may rename it) */
        const char *dtype;     /* the data type: "FP32" */
};

extern const struct roof_level_def roof_levels[ROOF_NLEVELS];
extern const struct roof_dtype_def roof_dtypes[ROOF_NDTYPES];
#define ROOF_TOTAL_KEY "roof.total_flops"
#define ROOF_DURATION_KEY "roof.duration"

/* Empirical ceilings: the mean over roofline.csv's rows (devices), or one device's row. */
struct roof_ceilings {
        int have;    /* a roofline.csv was read */
        long device; /* the device used, -1 for the mean of all */
        size_t ndevices;
        double bw[ROOF_NLEVELS];   /* GB/s, NaN when the column is absent */
        double peak[ROOF_NDTYPES]; /* GFLOP/s (GIOP/s), NaN when absent */
};

/* One plotted kernel (or dispatch): per-dispatch means over its selected dispatches. */
struct roof_point {
        char *name;         /* kernel name */
        double dispatch_id; /* --sort dispatches: its Dispatch_ID; NaN in kernel mode */
        size_t calls;       /* dispatches averaged */
        double duration;    /* mean ns */
        double flops;       /* mean total FLOPs */
        double bytes[ROOF_NLEVELS];
        double ai[ROOF_NLEVELS]; /* FLOP/byte; NaN when bytes are 0 or n/a */
        double perf;             /* GFLOP/s (FLOP per ns) */
        double dtype_perf[ROOF_NDTYPES];
};

struct roofline {
        struct roof_ceilings c;
        struct roof_point *pts;
        size_t npts;
        unsigned levels; /* bit (1 << level) for each level shown */
        int by_dispatch;
        char *note;                /* why there is no plot (no roofline.csv), or NULL */
        const struct panel *panel; /* the panel the roofline tables belong to */
        char *points_id;           /* the id of the plot points' table, or NULL */
        /* labels in the family's words (metrics/<family>.yaml `words:`; default the names
         * above): "HBM" or "DRAM", "MFMA FP16" or "Tensor FP16" */
        char *level_name[ROOF_NLEVELS];
        char *dtype_name[ROOF_NDTYPES];
        char *unit_name[2]; /* vector, matrix */
};

struct roof_opts {
        unsigned levels; /* level mask; 0 = all */
        long device;     /* -1: the mean of all devices */
        int by_dispatch; /* points per dispatch instead of per kernel */
        size_t top;      /* points at most (0: 10, as rocprof-compute) */
};

/* Parse a --mem-level name (HBM, L2, vL1D or L1, LDS; case-insensitive). Returns the level
 * or -1. */
int roof_level_parse(const char *s);

/* Arithmetic intensity (FLOP/byte): NaN unless bytes > 0 and both are numbers. */
double roof_ai(double flops, double bytes);
/* Achieved GFLOP/s from FLOPs and nanoseconds: NaN unless ns > 0. */
double roof_gflops(double flops, double ns);
/* The attainable GFLOP/s at intensity ai under one bandwidth (GB/s) and one peak:
 * min(bw * ai, peak). */
double roof_attainable(double bw, double peak, double ai);

/* Ceilings from a loaded roofline.csv: the mean over its rows, or the row whose `device`
 * column is `device` (>= 0). An unknown device is an error naming the devices present. */
int roof_ceilings_read(const struct table *t, long device, struct roof_ceilings *c,
                       struct err *err);

/* The roofline itself is built by analysis (src/analyze/build.h) when its options are
 * given (analysis_opts.roof) and a roofline_* table of panel 4 is shown: ceilings from
 * roofline.csv, the top kernels (or dispatches) by total duration, each with the counts
 * table evaluated over its dispatches; analysis.roof holds it. */
void roofline_free(struct roofline *r);

#endif
