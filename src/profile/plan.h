/* Pass planning: the hardware counters that a set of formulas needs, packed into as few
 * application runs as the per-block counter limits allow.
 *
 * Names in formulas map to hardware counters ("slots") like this:
 *   UNIT_COUNT        -> UNIT_COUNT, block UNIT
 *   CACHE_HIT_sum     -> CACHE_HIT, block CACHE (the sum over channels)
 *   CACHE_HIT[3], CACHE_HIT[@] -> CACHE_HIT, block CACHE (every channel; one slot for all
 *                        forms)
 *   UNITC_HITS        -> block UNITC, which counts against the longest block of the limits
 *                        that prefixes it (UNIT)
 *   $name             -> the counters of builtin `name` (plan_req_builtin), if defined
 *   $denom            -> the counters of every normalization, in accumulate passes only
 * Names with lower-case letters other than a `_sum` suffix are dispatch columns
 * (Grid_Size, End_Timestamp), and the accumulate value (plan_req_accum_value) is the result
 * of an accumulate pass: neither is a counter.
 *
 * Ratios. For every division a / b of a formula (builtins expanded, $denom left out: a
 * normalization is a unit applied to every row), the counters of a and of b that count
 * against the same block are collected in one run: a hit rate's hits and misses, a
 * latency's level and request counters, a unit's busy and its own cycles. Such quotients
 * are bounded (a hit rate cannot pass 100%), and counts from two runs of the program
 * can break the bound. A quotient across blocks divides by another unit's clock or
 * activity (one unit's busy cycles over the GPU's active cycles): a rate, whose error from two runs is the
 * run-to-run variation, and the few counters that everything is divided by could not
 * share a run with all their numerators under the block limits. Ratios are joined smallest
 * first while the joined counters fit one run; a ratio whose counters alone exceed a
 * block's limit, or that shares a counter with ratios that already filled its run (one
 * counter dividing many), is spread (p->groups_split counts it).
 *
 * Accumulate counters (the `table` of a formula) get one run each,
 * holding the accumulate counter, its accumulated value (one more slot of its block) and
 * every counter its formulas need; the free slots of those runs are filled with ordinary
 * counters. Those runs come after the others. */
#ifndef PRISM_PLAN_H
#define PRISM_PLAN_H

#include <stddef.h>
#include <stdio.h>

#include "../arch/arch.h"
#include "../util/util.h"

enum {
        PLAN_FORM_PLAIN = 1,    /* the counter under its own name */
        PLAN_FORM_SUM = 2,      /* NAME_sum */
        PLAN_FORM_CHANNELS = 4, /* NAME[0] .. NAME[nchan-1] */
};

struct plan_counter {
        char *name;     /* hardware counter: "CACHE_HIT" */
        char *block;    /* the block whose limit it counts against: "CACHE", "UNIT" */
        unsigned forms; /* PLAN_FORM_* wanted under its own name (0: only under aliases) */
        char **aka;     /* names the formulas read this hardware event under (a family's
                           `same_as` counters, COUNTER_ALIAS), sorted; no slot of their own */
        unsigned *aka_forms;
        size_t naka;
};

struct plan_pass {
        size_t *counters; /* indices into plan.counters, in output order (an accumulate
                             pass starts with its accumulate counter) */
        size_t n;
        char *accum;      /* the accumulate counter of an accumulate pass, else NULL */
        unsigned char *home; /* per counter: 1 if pmc_perf.csv takes it from this pass;
                                NULL: every counter (NVIDIA plans) */
};

/* Why a plan cannot be shorter: per block, the slots all runs together must provide. */
struct plan_block {
        const char *block; /* the limit's name (owned by the plan) */
        int limit;         /* counters per run */
        size_t counters;   /* distinct counters of the block the request needs */
        size_t accum;      /* accumulate counters of the block: each takes two slots */
        size_t bound;      /* ceil((counters + 2 * accum) / limit) */
};

struct plan {
        struct plan_counter *counters;
        size_t ncounters;
        struct plan_pass *passes;
        size_t npasses;
        size_t naccum;     /* the last naccum passes are accumulate passes */
        size_t lower_bound; /* the fewest runs possible: the largest block bound, at least
                               one run per accumulate counter */
        size_t groups, groups_split; /* ratios to keep in one run; those spread over runs */
        char *accum_value; /* the accumulate value's column name, or NULL */
        struct plan_block *blocks; /* AMD: per block limit, in the order of the limits */
        size_t nblocks;
        char **absent;     /* counters the formulas read that are not on this architecture
                              (COUNTER_ABSENT): not planned, sorted */
        size_t nabsent;
        struct counter_def *defs; /* the request's (plan_req_counters), for the backend's
                                     counter definitions */
        size_t ndefs;
};

/* What to plan: formulas (or name lists) and the definitions they refer to. */
struct plan_req {
        struct block_limit *limits;
        size_t nlimits;
        struct plan_src *srcs; /* private (plan_int.h) */
        size_t nsrcs, cap_srcs;
        char *accum_value;     /* plan_req_accum_value */
        struct counter_def *defs; /* plan_req_counters */
        size_t ndefs;
};

/* limits is copied. */
void plan_req_init(struct plan_req *r, const struct block_limit *limits, size_t nlimits);
void plan_req_free(struct plan_req *r);
/* The name formulas of accumulate tables read the accumulated value under (the metrics
 * family's accumulate_value); NULL: none. */
void plan_req_accum_value(struct plan_req *r, const char *name);

/* The architecture's counters that the profiler lacks (the family's `counters:`; copied):
 * an absent counter is not planned, an alias is planned as the hardware counter it names
 * (one slot for both names; plan_counter.aka). */
void plan_req_counters(struct plan_req *r, const struct counter_def *defs, size_t n);

/* A formula whose counters are needed; they should share a pass. table: NULL for the
 * per-dispatch table (pmc_perf.csv), else the accumulate counter whose pass collects them.
 * A syntax error fills err (with loc when given). */
int plan_req_formula(struct plan_req *r, const char *src, const struct expr_loc *loc,
                     const char *table, struct err *err);
/* The same for a formula already parsed. */
void plan_req_expr(struct plan_req *r, const struct expr *e, const char *table);
/* $name means the counters of src (evaluated before metrics; always collected). */
int plan_req_builtin(struct plan_req *r, const char *name, const char *src,
                     const struct expr_loc *loc, struct err *err);
/* A normalization's denominator (always collected; what $denom stands for). */
int plan_req_norm(struct plan_req *r, const char *src, const struct expr_loc *loc,
                  struct err *err);

/* Plan (plan_pack.c). Deterministic: the same request in any order of formulas gives the
 * same plan. A counter of a block without a limit, or an accumulate pass that cannot hold
 * the counters its formulas need, is an error naming them. */
int plan_make(const struct plan_req *r, struct plan *p, struct err *err);
void plan_free(struct plan *p);

/* The column names a backend collects in pass i, each form expanded: "UNIT_COUNT",
 * "CACHE_HIT_sum", "CACHE_HIT[0]" .. "CACHE_HIT[nchan-1]"; an accumulate pass starts with its
 * counter and the accumulate value. Returns a malloc'd array of malloc'd strings. */
char **plan_pass_names(const struct plan *p, size_t i, int nchan, size_t *n);
/* The same for the counters pmc_perf.csv takes from pass i (home), in the same order. */
char **plan_pass_home_names(const struct plan *p, size_t i, int nchan, size_t *n);
void plan_names_free(char **names, size_t n);

/* "UNIT_COUNT UNIT_BUSY CACHE_HIT ..." (hardware counters, one per slot), malloc'd. */
char *plan_pass_line(const struct plan *p, size_t i);

/* "N application runs ...; no plan can have fewer than B:" and a line per block with its
 * counters, accumulate pairs, limit and runs (AMD plans; --dry-run prints it). */
void plan_print_bound(const struct plan *p, FILE *f);

/* The block a counter name counts against under these limits ("UNITC_X" -> "UNIT"), or NULL
 * when no limit applies; *slot receives the hardware counter name (malloc'd) and *forms
 * the form the name asks for. Returns 0 for a counter, 1 for a name that is no counter,
 * -1 for a counter without a limit (slot and block still set for messages). */
int plan_classify(const struct block_limit *limits, size_t nlimits, const char *name,
                  char **slot, const char **block, unsigned *forms);

/* Write dir/pmc_perf_N.txt for every normal pass and dir/COUNTER.txt for the accumulate
 * pass of COUNTER ("pmc: A B C", the lines rocprof-compute's perfmon files have), each
 * through a temporary file and rename. */
int plan_write_perfmon(const struct plan *p, const char *dir, int nchan, struct err *err);

/* ---- NVIDIA: groups of metrics that need one hardware pass each (plan_groups.c) ---- */

/* The names the i-th source of a request lists (as its formula spells them, "$x" for
 * builtins), i < r->nsrcs; *n receives their count. Owned by the request. */
const char *const *plan_req_src_names(const struct plan_req *r, size_t i, size_t *n);

/* How many hardware passes a metric set needs on chip (backend.num_passes): >= 1, or < 0
 * with err filled (an unknown metric, a missing profiler library). */
typedef int (*plan_passes_fn)(const char *chip, const char *const *metrics, size_t n,
                              struct err *err);

/* 1 for a metric whose name starts with one of the n prefixes: one the profiler collects by
 * instrumenting the kernel's code (the family's `instrumented:`), which never shares a pass
 * with hardware counters. */
int plan_is_instrumented(const char *name, const char *const *prefixes, size_t n);

/* Plan for a GPU whose profiler counts passes itself (NVIDIA): every metric the request's
 * formulas, builtins and normalizations name (the profiler's names, unit__counter.rollup;
 * dispatch columns and $names are skipped, any other name is an error) is packed, first
 * fit in name order, into groups that need one hardware pass (with the per_pass metrics,
 * which lead every group: an instrumented group then needs one pass for them and one for
 * its instrumented metrics), instrumented metrics (names starting with one of prefixes[0..
 * nprefixes)) apart from hardware counters. A metric that needs more even alone
 * gets a group to itself (the profiler replays the kernel inside that run). Deterministic: the
 * same set of names in any order of formulas gives the same plan. p->lower_bound receives
 * the hardware passes all the metrics need at once; p->naccum is 0; counters have block
 * "instrumented" or "hw". num_passes errors (an unknown metric) are returned as they are. */
struct plan_launch {
        const char *const *prefixes; /* the family's `launch:` */
        size_t n;
};
/* Metrics whose names start with one of la's prefixes (NULL: none) are launch attributes
 * that the collector writes from the launch itself: no hardware pass is counted for them,
 * they are counters of block "launch" and go into the first run only. */
int plan_make_groups(const struct plan_req *r, const char *chip, plan_passes_fn num_passes,
                     const char *const *per_pass, size_t nper_pass,
                     const char *const *prefixes, size_t nprefixes,
                     const struct plan_launch *la, struct plan *p, struct err *err);

#endif
