/* How analysis builds its tables (internal to src/analyze). Every panel table is made by
 * one builder, chosen by the table's `source` (the panel files): metric tables (no source)
 * by evaluating their formulas, the others by the builders analysis.c lists (top kernels,
 * dispatch list, system info, roofline, ranks, findings). A builder appends its table(s) to
 * bc->an with analysis_add_table; one that needs metric values over a subset of the
 * selected dispatches (per rank, per roofline point) asks eval_table, never analysis_run
 * (the findings still run a nested analysis per kernel: src/analyze/findings.c). Metric
 * cells get their values only in eval_finish, after every builder: no builder may read
 * another table's values. */
#ifndef PRISM_BUILD_H
#define PRISM_BUILD_H

#include "analysis.h"

struct build_ctx {
        const struct workload *w;
        const struct arch *a;
        const struct analysis_opts *o;
        const struct panel_set *ps;        /* the panels being built */
        const size_t *sel;                 /* the selected pmc rows, in file order */
        size_t n;
        const char *const *knames;         /* the kernel filter (-k), as names */
        size_t nknames;
        struct analysis *an;               /* the analysis being built */
        struct eval *ev;                   /* the formula evaluator over sel */
};

typedef int (*table_builder)(const struct build_ctx *bc, const struct panel *p,
                             const struct panel_table *pt, struct err *err);

/* ---- formula evaluation (eval.c) ---- */

/* An evaluator over the pmc rows sel[0..n) of w; missing counters are noted in an (NULL:
 * not noted). */
struct eval *eval_new(const struct workload *w, const struct arch *a,
                      const struct analysis_opts *o, const size_t *sel, size_t n,
                      struct analysis *an);
void eval_free(struct eval *ev);
/* The metric rows of panel table pt (those -b selects) evaluated over ev's rows, as t's
 * rows (t made with rtable_init with pt's columns). */
int eval_metric_rows(struct eval *ev, struct rtable *t, const struct panel *p,
                     const struct panel_table *pt, struct err *err);
/* Evaluate what eval_metric_rows planned: the cells get their values. */
int eval_finish(struct eval *ev, struct err *err);
/* Metric table pt evaluated over the rows sel[0..n) of bc's workload into *out (a table
 * of its own: rtable_free). For builders that need values per subset. */
int eval_table(const struct build_ctx *bc, const struct panel *p, const struct panel_table *pt,
               const size_t *sel, size_t n, struct rtable *out, struct err *err);

/* ---- built-in tables and selection helpers (builtins.c) ---- */

int build_top_kernels(const struct build_ctx *bc, const struct panel *p,
                      const struct panel_table *pt, struct err *err);
int build_dispatch_list(const struct build_ctx *bc, const struct panel *p,
                        const struct panel_table *pt, struct err *err);
int build_sysinfo(const struct build_ctx *bc, const struct panel *p,
                  const struct panel_table *pt, struct err *err);
int build_roofline_csv(const struct build_ctx *bc, const struct panel *p,
                       const struct panel_table *pt, struct err *err);

/* 1 if pmc row r passes the gpu, rank and dispatch filters of o (not the kernel filter). */
int row_base_selected(const struct workload *w, const struct analysis_opts *o, size_t r);
/* Row r's kernel name as shown (shortened by --kernel-verbose), malloc'd. */
char *row_kname(const struct workload *w, const struct analysis_opts *o, size_t r);
/* A number per cell text, by the text's address (a pooled kernel name is one address for
 * every dispatch of the kernel: what row_kname makes of it is worked out once), open
 * addressing: kptr_slot is key's slot, or the empty one where it would go (key NULL). */
struct kptr {
        const char **key;
        int *k;
        size_t cap, n;
};
size_t kptr_slot(const struct kptr *m, const char *key); /* m->cap > 0 */
/* 1 and *k when key (not NULL) has a number; kptr_put with key NULL does nothing */
int kptr_get(const struct kptr *m, const char *key, int *k);
void kptr_put(struct kptr *m, const char *key, int k);
void kptr_free(struct kptr *m);
/* Row r's duration (End_Timestamp - Start_Timestamp), NaN when absent. */
double row_duration(const struct workload *w, size_t r);

/* Kernel statistics over rows[0..n): per kernel name its dispatches, their sum and (times:
 * else t is NULL) their durations, sorted by total time (longest first, then by name) or
 * by name. */
struct kstat {
        char *name;
        double *t;
        size_t n, cap;
        double sum;
};
/* -k NAME (kmatch.c): the kernels of names (ntop) whose name is pat, else whose short name
 * is pat (syms: the workload's Kernel_Name, Kernel_Short_Name table, or NULL), else whose
 * name contains it, else matches it as an extended regular expression, appended to *out
 * (*nout; none twice; *matched: how many); a note on stderr names them unless pat is a
 * whole name. None: an error listing the kernels. */
int kernels_match(const char *pat, const char *const *names, size_t n,
                  const struct table *syms, const char ***out, size_t *nout, size_t *matched,
                  struct err *err);

struct kstat *kstats_of(const struct workload *w, const struct analysis_opts *o,
                        const size_t *rows, size_t n, int by_name, int times, size_t *nk);
void kstats_free(struct kstat *ks, size_t n);
/* A kernel's durations' median, as agg_median over them sorted (the order shows only where
 * the middle values are 0.0 and -0.0: those are sorted first; other equal doubles are the
 * same bits, and a selection finds the same value in any order). */
double kstat_median(struct kstat *k);
/* Divisor from ns to the --time-unit. */
double time_div(const char *unit);

/* ---- tables of other modules ---- */

/* ranks.c: rank_summary, rank_kernels, rank_spread */
int ranks_build(const struct build_ctx *bc, const struct panel *p, const struct panel_table *pt,
                struct err *err);
/* roofline.c: roofline_ceilings, roofline_points, roofline_dtypes (only with o->roof) */
int roofline_build_table(const struct build_ctx *bc, const struct panel *p,
                         const struct panel_table *pt, struct err *err);

/* pcsamp_tables.c: pc_sampling, pc_hot_instructions, pc_hot_lines (panel 21; no table
 * when the workload has no PC samples) */
int pcsamp_build(const struct build_ctx *bc, const struct panel *p,
                 const struct panel_table *pt, struct err *err);
/* The PC samples of w, read once into an (NULL when it has none); a file that cannot be
 * read: NULL, *rc and err set (the same error each call). */
struct pcsamp;
const struct pcsamp *analysis_pcsamp(struct analysis *an, const struct workload *w, int *rc,
                                     struct err *err);

#endif
