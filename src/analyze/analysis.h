/* The analysis view model: every selected panel table evaluated for one workload, as
 * rows of cells. The text renderer, the CSV export, comparison and the TUI all read it. */
#ifndef PRISM_ANALYSIS_H
#define PRISM_ANALYSIS_H

#include "../arch/arch.h"
#include "../store/workload.h"
#include "rtable.h"

struct roof_opts;
struct roofline;

struct analysis_opts {
        const char *norm;        /* one of panels/versions' normalizations (-n) */
        const char *time_unit;   /* s ms us ns (default ns) */
        const char *const *blocks; size_t nblocks;   /* -b ids */
        const long *kernels; size_t nkernels;        /* -k indices into top kernels */
        const char *const *kernel_names; size_t nkernel_names; /* -k names */
        const long *dispatches; size_t ndispatches;  /* -d Dispatch_IDs */
        const char *gpu_id;      /* --gpu-id */
        const char *rank;        /* --rank: dispatches of one MPI rank (multi-rank trees) */
        int sort_by_kernel;      /* top kernels sorted by name instead of time */
        int kernel_verbose;      /* name shortening level, 5 = full */
        /* the roofline's computed tables (roofline_* sources) and plot model: built with
         * these options when set, left out when NULL (comparisons) */
        const struct roof_opts *roof;
        int no_findings;         /* --no-findings: leave the findings tables out */
        int pc_by_count;         /* --pc-sampling-sorting-type count: 21.1 by samples */
        const char *rules_dir;   /* rules/ (NULL: the installed one) */
        int all_rows;            /* show rows the family hides (no formula: no counterpart) */
        int ratio_avg;           /* the mean of a ratio over dispatches is SUM(A) / SUM(B)
                                  * (rocprof-compute 3.7+), else AVG(A / B) */
        int include_desc;        /* --include-cols Description: metric tables get a last
                                  * column with each metric's description */
        int threads;             /* threads analysis_run may use (0, 1: this one; 2) */
        int private_formulas;    /* bind copies of the architecture's formulas (binding
                                  * writes into a formula: set while another thread may
                                  * evaluate the same ones) */
        const struct analysis_ahead *ahead; /* the second half's tables used on its thread
                                             * (below), or NULL */
};

/* What the second thread of a two-thread analysis may do with its half's tables while the
 * first thread still builds its own (the text report renders them there): fn(ctx, half,
 * from, busy) on that thread, half being the second half's tables (those from `from` on
 * start a panel of their own: the ones before belong to a panel the split cut) and *busy
 * nonzero while the first thread still builds (read it atomically). What fn makes of them
 * stands for the tables of analysis.second_at + from on, should the analysis keep the two
 * halves (second_at nonzero). */
struct analysis;
struct analysis_ahead {
        void (*fn)(void *ctx, const struct analysis *half, size_t from, const int *busy);
        void *ctx;
};

struct pcsamp;

struct analysis {
        struct rtable *tables; size_t ntables;
        const struct arch *arch; /* the architecture the tables were evaluated for */
        size_t nselected;        /* dispatches selected */
        char **missing; size_t nmissing; /* counters the workload lacks */
        struct roofline *roof;   /* the roofline model when o->roof and panel 4 are shown */
        size_t captables;        /* tables the array has room for */
        struct pcsamp *pcs;      /* the workload's PC samples (panel 21), read once */
        int pcs_tried;
        char *pcs_error;         /* why they could not be read, or NULL */
        size_t second_at;        /* built on two threads: the first table of the second
                                  * half (0: one thread built them all) */
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

/* Add a result table for panel table pt (src/analyze/build.h): at position at
 * (an->ntables appends; analysis_add_table always appends), owning cols. analysis_free
 * frees it. */
struct rtable *analysis_insert_table(struct analysis *an, size_t at, const struct panel *p,
                                     const struct panel_table *pt, const char *key_title,
                                     size_t ncols, char **cols);
struct rtable *analysis_add_table(struct analysis *an, const struct panel *p,
                                  const struct panel_table *pt, const char *key_title,
                                  size_t ncols, char **cols);

/* 1 if the -b ids of o select metric row rid of table t of panel p. */
int analysis_row_wanted(const struct analysis_opts *o, const struct panel *p,
                        const struct panel_table *t, const char *rid);

/* Unit text with $normUnit replaced for the normalization, and "$timeUnit" (a time row)
 * by the -t unit. malloc'd. */
char *unit_display(const char *unit, const char *norm, const char *time_unit);

#endif
