/* GPU architectures as data: the metric files of metrics/ with their inheritance
 * resolved, for one gfx target (or NVIDIA sm_XX), and the shared panel catalogue. */
#ifndef PRISM_ARCH_H
#define PRISM_ARCH_H

#include <stddef.h>

#include "../expr/expr.h"
#include "../util/arena.h"
#include "../util/util.h"

struct metric_field {
        char *key;          /* field name ("read req") */
        char *src;          /* formula text */
        struct expr *expr;  /* parsed */
        struct expr_loc loc;
};

struct metric {
        char *key;          /* "sol.valu_flops" */
        char *name;         /* row label, may contain "@" for per-channel templates */
        char *unit;         /* display unit, may contain "$normUnit"; NULL if none */
        char *table;        /* accumulate table whose columns the names refer to; NULL: pmc_perf */
        struct metric_field expr;   /* key "expr"; src NULL if the metric has none */
        struct metric_field peak;   /* key "peak"; src NULL if none */
        struct metric_field *fields; size_t nfields;     /* extra formulas */
        struct metric_field *texts; size_t ntexts;       /* text cells: src is the text */
        struct metric_field *overrides; size_t noverrides; /* key = column show name */
        int is_template;    /* uses "@" (per-channel) */
        char *desc;         /* what it measures, one line (the family's `descriptions:`) */
        char *same_as;      /* `same_as: KEY`: expr and table are those of metric KEY (as this
                             * architecture resolves it); NULL if the metric has its own */
        struct expr_loc same_as_loc;
};

struct named_expr {
        char *name;
        char *src;
        struct expr *expr;
        struct expr_loc loc;
};

struct block_limit {
        char *block;
        int limit;
};

/* Named numbers: the facts of a GPU model. */
struct arch_facts {
        char **keys;
        double *vals;
        size_t n;
};

/* A GPU model of a family (`models:`): the gpu_model name recorded workloads give the GPUs
 * of one target, for one PCI device id or (device_id 0) any device of the target that no
 * other model names, with the facts of the model the device does not report. */
struct arch_model {
        char *name;         /* "MI300X_A1" */
        char *arch;         /* its target, "gfx942" */
        unsigned device_id; /* 0: any */
        struct arch_facts facts; /* over the family's model_facts */
};

/* A hardware counter the formulas name that the profiler's own counter definitions
 * (rocprofiler-sdk's counter_defs.yaml) lack for this architecture: the family's
 * `counters:` section (counters.c). */
enum counter_kind {
        COUNTER_ABSENT = 1, /* not on this architecture: never planned, its metrics n/a */
        COUNTER_ALIAS,      /* the hardware event the profiler knows as `same_as` */
        COUNTER_EVENT,      /* a hardware event to define for the profiler: block, event */
};

struct counter_def {
        char *name;
        enum counter_kind kind;
        char *same_as;  /* COUNTER_ALIAS */
        char *block;    /* COUNTER_EVENT */
        long event;     /* COUNTER_EVENT */
};

/* The empirical roofline of a family (`roofline:`, roofspec.c): its memory levels and compute
 * ceilings in drawing order; the roofline code knows them only by index and properties. */
#define ROOF_MAX_LEVELS 8
#define ROOF_MAX_CEILINGS 16

struct roof_level_def {
        char *name;             /* label, and the name --mem-level takes */
        char **also; size_t nalso; /* other names --mem-level takes for it */
        char mark;              /* the text plot's letter for points at this level */
        char *column;           /* roofline.csv column of its bandwidth (GB/s) */
        char *row;              /* row key in the ceilings table; NULL: column */
        char *bytes;            /* metric key: bytes moved at this level per dispatch */
};

struct roof_ceiling_def {
        char *unit;             /* the unit's word ("Tensor") */
        char *type;             /* the data type ("FP16") */
        char *name;             /* "<unit> <type>" */
        int matrix;             /* kind: matrix (1) or vector (0) unit */
        int integer;            /* its operations are integer ops (OP/s, not FLOP/s) */
        char *ops;              /* metric key: operations of this unit and type per dispatch */
        char *column;           /* roofline.csv column of its peak; NULL: none measured */
        char *row;              /* row key in the ceilings table; NULL: column */
};

struct roof_spec {
        char *file;             /* the metric file that gave it; NULL: the family has none */
        int line;
        char *total;            /* metric key: all FLOPs per dispatch */
        char *duration;         /* metric key: ns per dispatch */
        struct roof_level_def *levels; size_t nlevels;
        struct roof_ceiling_def *ceilings; size_t nceilings;
};

/* 1 if name (any case) is level l's name or one of its other names */
int roof_level_names(const struct roof_level_def *l, const char *name);
void roof_spec_free(struct roof_spec *s);

struct arch {
        char *target;       /* the gfx/sm name asked for */
        char *family;       /* leaf family file name */
        char *chain;        /* "cdna3 < cdna" for messages */
        struct metric *metrics; size_t nmetrics, capmetrics;
        struct smap index;  /* key -> metric index */
        struct named_expr *builtins; size_t nbuiltins;  /* in evaluation order */
        struct named_expr *norms; size_t nnorms;        /* `normalizations:` ($denom) */
        struct block_limit *limits; size_t nlimits;
        struct named_expr *defaults; size_t ndefaults;  /* sysinfo values when none given */
        struct named_expr *descs; size_t ndescs;        /* `descriptions:` while loading */
        struct smap named_at[4]; /* while loading: name -> index in builtins, norms, defaults,
                                  * descs */
        char **files; size_t nfiles;                    /* files of the chain, leaf first */
        /* NVIDIA: the chip name CUPTI's Profiler Host API counts passes for ("GH100"); when
         * set, the planner packs metrics into groups of one hardware pass each
         * (plan_groups.c) instead of using block_limits. NULL for AMD. */
        char *chip;
        char **per_pass; size_t nper_pass;              /* metrics collected in every pass */
        /* `pass_counts:` the hardware passes of the metric sets the planner asks about for
         * chip, recorded on a GPU: key (passcache_data_key of the chip and the names, 16 hex
         * digits) -> count; a set not listed is counted by the profiler library */
        char **pass_keys; int *pass_vals; size_t npass_counts;
        /* the hardware blocks a profile records in sysinfo's ip_blocks when none were
         * selected (`ip_blocks:`, as rocprof-compute records them); none: not recorded */
        char **ip_blocks; size_t nip_blocks;
        /* name prefixes of metrics the profiler collects by instrumenting the kernel's code
         * (`instrumented:`): they never share a hardware pass with counters */
        char **instrumented; size_t ninstrumented;
        /* name prefixes of metrics the collector writes from the kernel launch itself
         * (`launch:`, e.g. shared memory per block): they need no hardware pass */
        char **launch; size_t nlaunch;
        /* the GPU models of the chain's families (all targets) and the family's facts that
         * a model's own replace (models.c) */
        struct arch_model *models; size_t nmodels;
        struct arch_facts model_facts;
        /* the family's own words: panel and table titles by id ("6", "6.1"), labels of the
         * memory chart and the roofline by their default text ("VALU" -> "FMA"), and whether
         * rows with no formula (no counterpart on this architecture) are hidden unless
         * asked for (`hide_empty_rows: true`; their ids stay reserved) */
        char **title_ids, **titles; size_t ntitles;
        int hide_empty_rows;
        /* The name under which a metric with `table: COUNTER` reads that counter's value
         * accumulated over time, collected in a run of its own ("SQ_ACCUM_PREV_HIRES" on
         * AMD); NULL when the family has no accumulate counters. */
        char *accum_value;
        /* the family's `counters:` (merged name by name, a null entry drops the parent's) */
        struct counter_def *counter_defs; size_t ncounter_defs;
        /* the family's roofline (`roofline:`); file NULL when it has none */
        struct roof_spec roof;
        /* the texts of the metrics, named formulas, lists and files (arch.c; freed at once
         * by arch_free) */
        struct arena ar;
};

/* Load the architecture serving `target` (a gfx name such as those listed by
 * arch_list) from the metric files in dir. Unknown target: a one-line error naming the
 * supported ones. Formula errors carry file:line:col. */
int arch_load(const char *dir, const char *target, struct arch *a, struct err *err);
/* Only target's family chain, as arch_load would set a->chain ("leaf < parent < base"). */
int arch_chain(const char *dir, const char *target, char **chain, struct err *err);
void arch_free(struct arch *a);

/* The metric with that key, or NULL. */
const struct metric *arch_metric(const struct arch *a, const char *key);

/* All targets that leaf files in dir serve, sorted; malloc'd array of malloc'd strings. */
int arch_list(const char *dir, char ***targets, size_t *n, struct err *err);

/* The per-block counter limit (e.g. "SQ" -> 8), or -1 if the block is unknown. */
int arch_block_limit(const struct arch *a, const char *block);

/* The family's entry for a hardware counter name ("TCC_EA0_RDREQ"), or NULL. */
const struct counter_def *arch_counter_def(const struct counter_def *defs, size_t n,
                                           const char *name);

/* The family's title for panel or table id ("6", "6.1"), or its word for a chart label
 * ("MFMA"), or dflt. */
const char *arch_title(const struct arch *a, const char *id, const char *dflt);

/* The model of this architecture's target for a PCI device id: the one naming that device,
 * else the first naming none; NULL when the family lists no model of the target. */
const struct arch_model *arch_model_find(const struct arch *a, unsigned device_id);

/* A fact of model m (NULL: the family's own), else the family's model_facts; NaN if
 * neither gives it. */
double arch_model_fact(const struct arch *a, const struct arch_model *m, const char *key);

/* A default sysinfo value (e.g. total_l2_chan for listings without a workload), or NaN. */
double arch_default(const struct arch *a, const char *field);
/* The formula of normalization name (`normalizations:`, its $denom), or NULL when the
 * family gives none. */
struct expr *arch_norm(const struct arch *a, const char *name);

/* ---- panels ---- */

struct panel_col {
        char *title;
        char *show;   /* name unit text avg min max median std sum q1 q3 peak pop */
        char *field;  /* for show: text and aggregates of a field; NULL */
        int round;    /* -1: none */
};

/* A figure drawn from a table's rows (the memory chart, src/render/memchart.c): its parts
 * and, in each, labelled values of the table's metrics (docs/FORMATS.md, `chart:`). */
struct chart_item {
        char *label;
        char *key;   /* metric key; "KEY1/KEY2": both values as "v1/v2" */
        char *extra; /* a line's unit, or an arrow's direction (core, memory, both); or NULL */
};

struct chart_part {
        char *role;  /* buffer, dispatch, exec, cache, l2, fabric, memory */
        char *title; /* may be NULL */
        char *stub;  /* a cache's short name; may be NULL */
        struct chart_item *lines, *in, *out; /* out: a cache's requests to the L2 */
        size_t nlines, nin, nout;
};

struct panel_table {
        char *id;     /* "2.1" */
        char *title;  /* may be NULL */
        char *source; /* built-in source (top_kernels, dispatch_list, sysinfo, roofline); NULL */
        char *repeat; /* sysinfo field giving the row count of template rows; NULL */
        char **archs; size_t narchs; /* restrict to these targets; none: all */
        struct panel_col *cols; size_t ncols;
        char **rows; size_t nrows;   /* metric keys */
        struct chart_part *chart; size_t nchart; /* a figure of the rows (`chart:`), or none */
        /* How the table is shown, from its source (set by panels_load, so that the renderers
         * ask these and never the source's name): */
        struct table_props {
                /* rows are kernels or dispatches: as many as --max-stat-num, their names
                 * wrapped at name_width columns and name_lines lines */
                unsigned stat_rows : 1;
                /* the top kernels, ranked by time: their counts keep the reference's decimals,
                 * each column is good or bad by its title (the TUI's colors), and a comparison
                 * shows the table only where both runs have it */
                unsigned ranked : 1;
                /* rows are named fields (system info): values left-aligned as text */
                unsigned fields : 1;
                /* the rules' findings (listed with the rules, the TUI's Findings view) */
                unsigned findings : 1;
                unsigned char name_width, name_lines;
        } props;
};

struct panel {
        int id;
        char *title;
        char *file;
        struct panel_table *tables; size_t ntables;
};

struct panel_set {
        struct panel *panels; size_t npanels; /* sorted by id */
};

int panels_load(const char *dir, struct panel_set *ps, struct err *err);

/* 1 if the table is shown for target (its archs: list is empty or names target). */
int panel_table_for(const struct panel_table *pt, const char *target);
void panels_free(struct panel_set *ps);

/* Replace the titles of panels and tables for which the architecture's family has its own
 * words (metrics/<family>.yaml `titles:`); the workload being analyzed decides. */
void panels_use_titles(struct panel_set *ps, const struct arch *a);

#endif
