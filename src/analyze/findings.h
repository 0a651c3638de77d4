/* Findings: what limits each top kernel, why, and what removing it would gain. The rules
 * (rules/FAMILY.yaml, src/analyze/rules.h) are evaluated per kernel over its aggregated metrics;
 * the result is two built-in tables of panel 0: "findings" (kernels x findings by estimated
 * gain) and "roofline_class" (the ceiling that bounds each kernel and how far below it the
 * kernel sits). docs/RULES.md. */
#ifndef PRISM_FINDINGS_H
#define PRISM_FINDINGS_H

#include "analysis.h"
#include "rules.h"

/* 1 if source names one of the findings tables. */
int findings_is_source(const char *source);

/* Build the findings tables of panel p that o selects (all of them at the first one met;
 * later calls for the same panel do nothing). knames: the kernel filter resolved to names
 * (none: the rules' top_kernels kernels by time). Without a rules directory the tables are
 * left out with one warning. */
/* The nested analysis of one kernel's values: analysis_run and analysis_free, handed down by
 * analysis.c, which calls findings_build (so that this file never calls back up into it). */
struct findings_nested {
        int (*run)(const struct workload *w, const struct arch *a, const struct panel_set *ps,
                   const struct analysis_opts *o, struct analysis *an, struct err *err);
        void (*free)(struct analysis *an);
};
int findings_build(const struct workload *w, const struct arch *a, const struct panel_set *ps,
                   const struct analysis_opts *o, const char *const *knames, size_t nknames,
                   const struct panel *p, struct analysis *an, const struct findings_nested *nr,
                   struct err *err);

/* Comparison (-p A -p B): base's findings table becomes the union of both runs' findings
 * with a Status column (appeared, disappeared, changed, unchanged); the renderer then puts
 * cur's gain beside base's. */
void findings_compare(struct analysis *base, const struct analysis *cur);

/* Read the rules of the family chain ("leaf < parent < base", arch_chain) ahead of the
 * findings_metrics of an architecture with that chain, which then takes them (on another
 * thread: before findings_metrics starts). A failure is left for findings_metrics. */
void findings_preload(const char *chain, const struct analysis_opts *o);

/* Column projection: call fn for every metric the rules for a read. */
void findings_metrics(const struct arch *a, const struct analysis_opts *o,
                      void (*fn)(void *ctx, const struct metric *m), void *ctx);

/* findings_hotline.c: a pc.hot_line row in ft for kernel when w has PC samples for it (the
 * line holding most of its stalled samples and why); nothing otherwise. */
struct rtable;
struct hotspot;
void findings_hot_line(struct rtable *ft, struct analysis *an, const struct workload *w,
                       const char *kernel);
/* "73% of stall samples at kernel.cu:42, long scoreboard" (malloc'd) */
char *findings_hot_line_text(const struct hotspot *h);

/* ---- the engine, also for tests ---- */

/* Per-kernel values: one slot per name the rules use. */
struct fvals {
        struct smap index;   /* name -> slot */
        char **names;
        double *v;           /* NaN: n/a */
        size_t n, cap;
};

/* One fired rule. */
struct finding {
        const struct rule *rule;
        double gain;    /* estimated speedup: percent of the kernel's time the cause costs */
        char *message;  /* the template filled in */
        char *evidence; /* metric ids (or keys where no table shows them), space-separated */
};

/* Bind every formula of rs to slots of fv (adding a slot per new name, and one per key that
 * a template's metric id stands for through ids). */
struct idmap;
int findings_bind(struct ruleset *rs, struct fvals *fv, const struct idmap *ids,
                  struct err *err);
/* Compute the values of rs in order into fv (their inputs already set), then evaluate
 * every rule: *out gets the fired ones, sorted by estimated speedup (largest first), a
 * symptom after the fired causes that explain it (explains:); *nskipped counts
 * rules left out for n/a data. ids maps metric keys to metric ids for the evidence and
 * template ids back to keys (NULL: keys are shown). */
int findings_eval(const struct ruleset *rs, struct fvals *fv, const struct idmap *ids,
                  struct finding **out, size_t *n, size_t *nskipped, struct err *err);
void findings_free(struct finding *f, size_t n);
/* The busiest ceiling: index into rs->ceilings (or -1 when none can be evaluated), its
 * utilization and the runner-up's (NaN when none). */
long findings_ceiling(const struct ruleset *rs, struct fvals *fv, double *util, long *next,
                      double *next_util);

int fvals_slot(struct fvals *fv, const char *name);
void fvals_set(struct fvals *fv, const char *name, double v);
void fvals_free(struct fvals *fv);

/* metric key <-> metric id ("2.1.22") of the first table showing it */
struct idmap {
        struct smap by_key, by_id;
        const char **ids, **keys; /* the maps' copies */
        size_t n, cap;
};
void idmap_build(struct idmap *m, const struct arch *a, const struct panel_set *ps,
                 const struct workload *w);
const char *idmap_id(const struct idmap *m, const char *key);
const char *idmap_key(const struct idmap *m, const char *id);
void idmap_free(struct idmap *m);

#endif
