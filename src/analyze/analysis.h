/* The analysis view model: every selected panel table evaluated for one workload, as
 * rows of cells. The text renderer, the CSV export, comparison and the TUI all read it. */
#ifndef PRISM_ANALYSIS_H
#define PRISM_ANALYSIS_H

#include "../arch/arch.h"
#include "../store/workload.h"

struct cell {
        double v;   /* NaN = n/a */
        char *text; /* non-NULL for a text cell */
};

struct rtable {
        const struct panel *panel;
        const struct panel_table *pt;
        char *id;            /* "2.1" */
        char *key_title;     /* "Metric_ID" for metric tables, "index" for raw ones */
        size_t ncols;
        char **cols;         /* column titles (the key column excluded) */
        size_t nrows;
        char **keys;         /* row keys: metric ids "2.1.3", field names, row numbers */
        char **rkeys;        /* stable row identities across architectures (metric keys) */
        struct cell *cells;  /* nrows * ncols */
        int metric_table;    /* rows are metrics (comparable by id) */
        const struct arch *arch; /* the architecture evaluated (its words label charts) */
        size_t nhidden;          /* rows the family hides (no counterpart; ids kept) */
};

struct analysis_opts {
        const char *norm;        /* per_wave (default), per_cycle, per_second, per_kernel */
        const char *time_unit;   /* s ms us ns (default ns) */
        const char *const *blocks; size_t nblocks;   /* -b ids */
        const long *kernels; size_t nkernels;        /* -k indices into top kernels */
        const char *const *kernel_names; size_t nkernel_names; /* -k names */
        const long *dispatches; size_t ndispatches;  /* -d Dispatch_IDs */
        const char *gpu_id;      /* --gpu-id */
        const char *rank;        /* --rank: dispatches of one MPI rank (multi-rank trees) */
        int sort_by_kernel;      /* top kernels sorted by name instead of time */
        int kernel_verbose;      /* name shortening level, 5 = full */
        int no_findings;         /* --no-findings: leave the findings tables out */
        const char *rules_dir;   /* rules/ (NULL: the installed one) */
        int all_rows;            /* show rows the family hides (no formula: no counterpart) */
};

struct analysis {
        struct rtable *tables; size_t ntables;
        const struct arch *arch; /* the architecture the tables were evaluated for */
        size_t nselected;        /* dispatches selected */
        char **missing; size_t nmissing; /* counters the workload lacks */
};

/* Evaluate all panels (or those -b selects) of workload w with architecture a.
 * A filter that selects nothing, or a -b id that names nothing, is an error. */
int analysis_run(const struct workload *w, const struct arch *a, const struct panel_set *ps,
                 const struct analysis_opts *o, struct analysis *out, struct err *err);
void analysis_free(struct analysis *an);

/* The top-kernel list (names by descending total time) after gpu/dispatch filters. */
int analysis_top_kernels(const struct workload *w, const struct analysis_opts *o,
                         char ***names, size_t *n);

/* 1 if the -b ids of o select table t of panel p (panel 0 is always shown). */
int analysis_table_wanted(const struct analysis_opts *o, const struct panel *p,
                          const struct panel_table *t);

/* Building result tables (for modules that add their own, e.g. the roofline and ranks):
 * a table inserted at position at (an->ntables appends) owning cols; a row of n/a cells,
 * rkey NULL meaning key. analysis_free frees both. */
struct rtable *analysis_insert_table(struct analysis *an, size_t at, const struct panel *p,
                                     const struct panel_table *pt, const char *key_title,
                                     size_t ncols, char **cols);
struct cell *rtable_add_row(struct rtable *t, const char *key, const char *rkey);
/* Free what a table owns (analysis_free does this for every table). */
void rtable_free(struct rtable *t);

/* Unit text with $normUnit replaced for the normalization, and "$timeUnit" (a time row)
 * by the -t unit. malloc'd. */
char *unit_display(const char *unit, const char *norm, const char *time_unit);

#endif
