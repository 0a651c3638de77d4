/* The metric expression language: a formula is parsed once into an AST, its names are
 * bound to integer slots, and it is evaluated over all selected dispatches at once
 * (a column of values per counter), without any string work at evaluation time.
 *
 * Syntax (a small subset of Python expressions, as rocprof-compute's formulas use):
 *   numbers (1, 2.5, 1e9), None (= NaN), names (UNIT_COUNT, CACHE_HIT_sum, CACHE_HIT[3],
 *   End_Timestamp), built-ins with a dollar ($max_sclk, $denom, $numActiveCUs),
 *   + - * / %, unary -, comparisons == != < <= > >=, `A if COND else B`,
 *   parentheses, and calls:
 *     aggregates over dispatches (a column -> one value, NaN rows skipped):
 *       AVG(x) MEDIAN(x) STD(x) (sample, n-1) SUM(x) QUANTILE(x, q) (linear interpolation)
 *       MIN(x) MAX(x) with one argument
 *     element-wise: MIN(a, b) MAX(a, b), ROUND(x, n) (half to even), TO_INT(x) (truncates),
 *       MOD(a, b) (floored, like Python's %), NOISE_CLAMP(x, ref) (x, negatives as 0)
 *
 * Numeric semantics (the reference tool's, kept in one place, expr_eval.c):
 *   - a value is either a scalar or a column of n doubles; scalars broadcast;
 *   - a missing counter is a column of NaN (the caller binds it so), NaN propagates;
 *   - division follows IEEE: x/0 = +-inf, 0/0 = NaN;
 *   - comparisons give 1.0 or 0.0; NaN != x is true, every other comparison with NaN false;
 *   - `A if C else B` takes A where C is non-zero (NaN counts as true, as in C), else B;
 *   - aggregates skip NaN rows; an aggregate of no non-NaN rows is NaN; an aggregate of a
 *     scalar is that scalar; STD of fewer than 2 rows is NaN.
 */
#ifndef PRISM_EXPR_H
#define PRISM_EXPR_H

#include <stddef.h>

#include "../util/arena.h"
#include "../util/util.h"

struct expr; /* opaque AST */

/* Where a formula came from, for messages "file:line:col: ...". line/col are 1-based
 * and point at the first character of the formula text; NULL file is allowed. */
struct expr_loc {
        const char *file;
        int line, col;
};

/* Parse src. Returns NULL and fills err ("file:line:col: unexpected ')' in 'name'") on a
 * syntax error. `what` names the formula in messages (a metric name), may be NULL.
 * The AST keeps its own copy of everything it needs. */
struct expr *expr_parse(const char *src, const struct expr_loc *loc, const char *what,
                        struct err *err);
/* The same, the expression in arena ar (NULL: malloc'd, as expr_parse): it lives as long as
 * the arena; expr_free leaves it (an architecture's formulas, freed with its texts). */
struct expr *expr_parse_in(struct arena *ar, const char *src, const struct expr_loc *loc,
                           const char *what, struct err *err);
/* What expr_parse gives for src with every '@' replaced by i, from tmpl, src's parse: its
 * clone with "[@]" in names read as "[i]" and the columns after an '@' moved as the wider
 * number moves them (per-channel template rows, parsed once). */
struct expr *expr_instance(const struct expr *tmpl, const char *src, const struct expr_loc *loc,
                           long i);
void expr_free(struct expr *e);

/* A deep copy, unbound and untagged (bind it before evaluating): it reads nothing a
 * binding writes, so another thread may be binding the original meanwhile. */
struct expr *expr_clone(const struct expr *e);

/* Visit every name the formula uses, once per occurrence, in source order. `name` is the
 * name without '$' and with any index kept ("CACHE_HIT[3]"); dollar is 1 for $names. */
typedef void (*expr_name_fn)(void *ctx, const char *name, int dollar);
void expr_names(const struct expr *e, expr_name_fn fn, void *ctx);

/* Visit every division a / b of the formula (in source order, outer before inner, numbered
 * k = 0, 1, ...): fn(ctx, k, side, name, dollar) for each name of a (side 0) and of b
 * (side 1), once per occurrence. Returns the number of divisions. */
typedef void (*expr_div_fn)(void *ctx, int k, int side, const char *name, int dollar);
int expr_div_names(const struct expr *e, expr_div_fn fn, void *ctx);

/* Binding: for every name, resolve(ctx, name, dollar, err) returns a slot >= 0 or a
 * negative code with err filled (expr_bind then prefixes "file:line:col: "). */
typedef int (*expr_resolve_fn)(void *ctx, const char *name, int dollar, struct err *err);
int expr_bind(struct expr *e, expr_resolve_fn resolve, void *ctx, struct err *err);

/* One slot's value at evaluation time. */
struct expr_slot {
        const double *col; /* n values, or NULL for a scalar */
        double s;          /* the scalar, when col == NULL */
};

struct expr_env {
        size_t n; /* number of rows (dispatches) */
        const struct expr_slot *slots;
        size_t nslots;
        /* when set: the values of tagged aggregate calls (expr_tag_aggregates), taken as
         * they are instead of reducing the rows at hand */
        const double *aggs;
        size_t naggs;
};

/* An evaluation result: a scalar or a column of env->n values (owned, free with
 * expr_val_free). */
struct expr_val {
        double *col; /* NULL for a scalar */
        double s;
};
void expr_val_free(struct expr_val *v);

/* Evaluate a bound expression. Never fails on numeric grounds (NaN/inf are values);
 * returns a negative code only for an unbound name or a bad call (wrong argument count),
 * with err filled. */
int expr_eval(const struct expr *e, const struct expr_env *env, struct expr_val *out,
              struct err *err);

/* Evaluate and reduce to one number with `agg` applied if the result is a column
 * ("avg", "min", "max", "median", "std", "sum", "q1", "q3"; NULL means "avg").
 * NaN when nothing can be computed. */
double expr_eval_agg(const struct expr *e, const struct expr_env *env, const char *agg,
                     struct err *err);

/* Aggregate helpers on a plain column (NaN rows skipped), shared with the renderer. */
double agg_avg(const double *v, size_t n);
double agg_min(const double *v, size_t n);
double agg_max(const double *v, size_t n);
double agg_sum(const double *v, size_t n);
double agg_median(const double *v, size_t n);
double agg_std(const double *v, size_t n);
double agg_quantile(const double *v, size_t n, double q);
/* agg_median, agg_quantile(.25) and (.75) at once (out: median, q1, q3), the same values,
 * from one copy of the column (expr_quantile.c) */
void agg_mq(const double *v, size_t n, double out[3]);
/* agg_mq without the copy: v's values are rearranged (the caller's to lose) */
void agg_mq_own(double *v, size_t n, double out[3]);
/* by name as above; returns NaN for an unknown name */
double agg_by_name(const char *agg, const double *v, size_t n);

/* ---- evaluation in passes: rows that come in chunks (src/analyze/eval.c) ----
 * An aggregate call inside a formula (AVG(x) / y) needs x over every row before y's rows
 * can be combined with it. A caller that sees the rows chunk by chunk tags each call, feeds
 * the call's argument to an accumulator of its own in one pass over the chunks, and
 * evaluates what uses the call in a later pass, with env->aggs holding the values. */

/* Visit the aggregate calls of e, innermost first (a call inside another's argument comes
 * before it): fn(ctx, arg, agg, q) with arg a view of the argument (an expression sharing
 * e's nodes: use it while e lives, free it with expr_free), agg the aggregate's name as
 * agg_by_name takes it ("avg", "median", "std", "sum", "min", "max"; "quantile" with q a
 * view of its second argument, else q NULL). fn returns the tag stored in the call. */
typedef int (*expr_agg_fn)(void *ctx, struct expr *arg, const char *agg, struct expr *q);
void expr_tag_aggregates(struct expr *e, expr_agg_fn fn, void *ctx);

/* The pass in which e can be evaluated: the highest of the levels of the slots of the names
 * it reads outside aggregate calls, level(ctx, slot, -1), and of its outermost tagged calls,
 * level(ctx, -1, tag) (0 when none). Untagged calls count as the level of their argument,
 * and so does a tagged one whose level() is negative. Levels are asked as the walk needs
 * them, so the caller may compute them then (once each, in dependency order). */
typedef int (*expr_level_fn)(void *ctx, int slot, int tag);
int expr_level(const struct expr *e, expr_level_fn level, void *ctx);
/* Set used[slot] for every slot e reads outside its tagged aggregate calls (whose values
 * an evaluation with aggs takes from there). */
void expr_slots_read(const struct expr *e, unsigned char *used, size_t nslots);
/* fn(ctx, slot) for each slot e reads as expr_slots_read marks them (a slot read twice is
 * said twice) */
void expr_slots_each(const struct expr *e, void (*fn)(void *ctx, int slot), void *ctx);

/* numpy's pairwise sum of n values, NaN counted as 0, as agg_sum and agg_avg add (for
 * callers that add a column block by block the way numpy splits it). */
double expr_pw_sum(const double *v, size_t n);
/* The values of v that are not NaN: their count, and into *mn and *mx (when there are any)
 * the smallest and the largest, the first of equal ones (0.0 before -0.0) as a running
 * comparison keeps it (expr_vec.c). */
size_t expr_minmax(const double *v, size_t n, double *mn, double *mx);

/* A canonical text form (fully parenthesised), malloc'd. For messages and tests. */
char *expr_to_string(const struct expr *e);

/* The formula of e's mean over dispatches as a ratio of sums (rocprof-compute 3.7+): a
 * division by a per-dispatch quantity, A / B, is averaged as SUM(A) / SUM(B); what is the
 * same for every dispatch (numbers, and the $names per_row(ctx, name) says are not per
 * dispatch) stays outside the sums: c * X, X * c, X / c, c + X, X - c, ... average as c and
 * X's average; -X as -X's; `X if C else None` as X's (3.7 dropped those guards). A formula
 * with no division by a per-dispatch quantity, with an aggregate call, or with a division
 * that no such rule reaches (A / B + C / D) has none: NULL, its mean stays AVG(e).
 * Otherwise a malloc'd formula text (every aggregate explicit). */
typedef int (*expr_per_row_fn)(void *ctx, const char *name);
char *expr_ratio_of_sums(const struct expr *e, expr_per_row_fn per_row, void *ctx);

/* NOISE_CLAMP(x, ref) (rocprof-compute 3.5+): x where it is not negative, else 0; n/a stays
 * n/a. The corrections of at least 1% of ref (where ref is not 0) are counted over the
 * process's evaluations: their number and the largest share (0.05 = 5%); reset non-zero
 * starts the count again. */
void expr_noise_stats(size_t *count, double *max_rel, int reset);

/* 1 if the formula contains an aggregate call (its value does not depend on one row). */
int expr_has_aggregate(const struct expr *e);

#endif
