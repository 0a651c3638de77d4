/* All numeric semantics of the expression language: element-wise operators with scalar
 * broadcasting, IEEE division, floored modulo, half-to-even rounding, the conditional,
 * and the aggregates over dispatches. They follow what rocprof-compute gets from pandas
 * and numpy, down to the order of summation where that is cheap to keep. */
#include "expr_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the block below which numpy's pairwise summation adds with 8 accumulators */
#define NPY_PW_BLOCK 128

/* ---- element-wise operations ---- */

/* Python's and numpy's floored modulo (npy_divmod): the result has the sign of b;
 * x % 0 is NaN, as pandas gives for a column. */
static double mod_floor(double a, double b)
{
        double m = fmod(a, b);

        if (b == 0)
                return m; /* NaN */
        if (m != 0) {
                if ((b < 0) != (m < 0))
                        m += b;
        } else {
                m = copysign(0.0, b);
        }
        return m;
}

/* mod_floor(x, 1) without fmod (TO_INT_ALL's MOD(x, 1) on every dispatch): below 2^52,
 * x less its truncation is fmod(x, 1) exactly (a whole number's zero has the sign
 * mod_floor gives it anyway); from 2^52 on a finite x is whole; NaN and inf as before */
static double mod_floor1(double x)
{
        if (fabs(x) < 4503599627370496.0) {
                double m = x - (double)(long long)x;
                if (m == 0)
                        return 0.0;
                return m < 0 ? m + 1.0 : m;
        }
        return isfinite(x) ? 0.0 : mod_floor(x, 1.0);
}

/* numpy.round: rint(x * 10^n) / 10^n, or rint(x / 10^-n) * 10^-n for n < 0; rint
 * rounds half to even, and 2.675 at 2 decimals gives 2.68 because 2.675 * 100 is
 * exactly 267.5 in binary. */
static double round_even(double x, double nd)
{
        double f;
        int d;

        if (isnan(nd))
                return NAN;
        if (nd > 400)
                return x; /* no double has digits that far */
        if (nd < -400)
                return isfinite(x) ? copysign(0.0, x) : x;
        d = (int)nd;
        if (d >= 0) {
                f = pow(10.0, d);
                return nearbyint(x * f) / f;
        }
        f = pow(10.0, -d);
        return nearbyint(x / f) * f;
}

/* numpy.minimum/maximum: NaN in either operand gives NaN */
static double min2(double x, double y)
{
        return isnan(x) || isnan(y) ? NAN : x < y ? x : y;
}

static double max2(double x, double y)
{
        return isnan(x) || isnan(y) ? NAN : x > y ? x : y;
}

/* A value during evaluation: a scalar, or a column that is either borrowed (a slot's
 * column, own == NULL) or owned (own == col, freed by ev_free). */
struct ev {
        const double *col;
        double *own;
        double s;
};

static void ev_free(struct ev *v)
{
        free(v->own);
        v->own = NULL;
        v->col = NULL;
}

/* Give res an owned buffer of n doubles, reusing an operand's own buffer when there is
 * one: operations read row i of every operand before writing row i, so in place is safe.
 * The operand keeps col pointing at the buffer for reading. */
static void ev_take(struct ev *res, struct ev *a, struct ev *b, struct ev *c, size_t n)
{
        struct ev *from[3] = {a, b, c};
        int i;

        res->own = NULL;
        for (i = 0; i < 3 && !res->own; i++) {
                if (from[i] && from[i]->own) {
                        res->own = from[i]->own;
                        from[i]->own = NULL;
                }
        }
        if (!res->own)
                res->own = xmalloc(n * sizeof(double));
        res->col = res->own;
        res->s = NAN;
}

/* one loop per case of strides (column or scalar), so that none multiplies an index; each
 * row reads its operands before it writes out[i] (out may be an operand's buffer) */
#define BIN_LOOP(EXPR)                                                                             \
        if (sa && sb)                                                                              \
                for (i = 0; i < n; i++) {                                                          \
                        double x = pa[i], y = pb[i];                                               \
                        out[i] = (EXPR);                                                           \
                }                                                                                  \
        else if (sa)                                                                               \
                for (i = 0; i < n; i++) {                                                          \
                        double x = pa[i], y = *pb;                                                 \
                        out[i] = (EXPR);                                                           \
                }                                                                                  \
        else                                                                                       \
                for (i = 0; i < n; i++) {                                                          \
                        double x = *pa, y = pb[i * sb];                                            \
                        out[i] = (EXPR);                                                           \
                }                                                                                  \
        break

/* out[i] = a[i] op b[i] with scalars broadcast (stride 0) */
static void bin_apply(int op, const struct ev *a, const struct ev *b, double *out, size_t n)
{
        const double *pa = a->col ? a->col : &a->s;
        const double *pb = b->col ? b->col : &b->s;
        size_t sa = a->col ? 1 : 0, sb = b->col ? 1 : 0;
        size_t i;

        switch (op) {
        case EOP_ADD:
        case EOP_SUB:
        case EOP_MUL:
        case EOP_DIV: /* IEEE: x/0 = +-inf, 0/0 = NaN */
        case EOP_EQ:
        case EOP_NE:
        case EOP_LT:
        case EOP_LE:
        case EOP_GT:
        case EOP_GE:
                expr_arith(op, pa, sa, pb, sb, out, n);
                break;
        case EOP_MOD:
                if (sa && !sb && *pb == 1.0) {
                        for (i = 0; i < n; i++)
                                out[i] = mod_floor1(pa[i]);
                        break;
                }
                BIN_LOOP(mod_floor(x, y));
        case EOP_POW:
                BIN_LOOP(pow(x, y));
        /* truth as in C: NaN is non-zero, so true */
        case EOP_AND:
                BIN_LOOP(x != 0 && y != 0 ? 1.0 : 0.0);
        case EOP_OR:
                BIN_LOOP(x != 0 || y != 0 ? 1.0 : 0.0);
        case EOP_MIN:
                BIN_LOOP(min2(x, y));
        case EOP_MAX:
                BIN_LOOP(max2(x, y));
        case EOP_ROUND:
                BIN_LOOP(round_even(x, y));
        default:
                BIN_LOOP(x + y + NAN);
        }
}

#define UN_LOOP(EXPR)                                                                              \
        for (i = 0; i < n; i++) {                                                                  \
                double x = pa[i * sa];                                                             \
                out[i] = (EXPR);                                                                   \
        }                                                                                          \
        break

static void un_apply(int op, const struct ev *a, double *out, size_t n)
{
        const double *pa = a->col ? a->col : &a->s;
        size_t sa = a->col ? 1 : 0;
        size_t i;

        switch (op) {
        case EOP_NEG:
                UN_LOOP(-x);
        case EOP_NOT:
                UN_LOOP(x == 0 ? 1.0 : 0.0);
        case EOP_TRUNC:
                /* trunc without a call a row: below 2^52 through a whole number (the
                 * sign kept, -0.5 gives -0.0), from there on x is whole; NaN and inf stay */
                UN_LOOP(fabs(x) < 4503599627370496.0 ? copysign((double)(long long)x, x) : x);
        default:
                UN_LOOP(x + NAN);
        }
}

/* ---- aggregates ---- */

/* numpy's pairwise summation (pairwise_sum_DOUBLE), NaN counted as 0 as pandas fills it */
static double pw_sum(const double *v, size_t n)
{
        if (n <= NPY_PW_BLOCK)
                return expr_pw_block(v, n);
        size_t i = n / 2;
        i -= i % 8;
        return pw_sum(v, i) + pw_sum(v + i, n - i);
}

double expr_pw_sum(const double *v, size_t n)
{
        return pw_sum(v, n);
}

/* ndarray.sum() with NaN as 0: the reduction starts from the identity 0.0 (so a sum of
 * -0.0 is 0.0) and numpy 2 hands a contiguous array to one pairwise call */
static double np_sum(const double *v, size_t n)
{
        return 0.0 + pw_sum(v, n);
}

static size_t count_valid(const double *v, size_t n)
{
        size_t i, m = 0;

        for (i = 0; i < n; i++)
                m += !isnan(v[i]);
        return m;
}

double agg_sum(const double *v, size_t n)
{
        return count_valid(v, n) ? np_sum(v, n) : NAN;
}

/* pandas nanmean: the sum with NaN as 0, over the count of the others */
double agg_avg(const double *v, size_t n)
{
        size_t m = count_valid(v, n);

        return m ? np_sum(v, n) / (double)m : NAN;
}

double agg_min(const double *v, size_t n)
{
        double r = NAN;
        size_t i;

        for (i = 0; i < n; i++)
                if (!isnan(v[i]) && (isnan(r) || v[i] < r))
                        r = v[i];
        return r;
}

double agg_max(const double *v, size_t n)
{
        double r = NAN;
        size_t i;

        for (i = 0; i < n; i++)
                if (!isnan(v[i]) && (isnan(r) || v[i] > r))
                        r = v[i];
        return r;
}

/* pandas nanvar with ddof=1, then sqrt: mean first, then the sum of squared deviations */
double agg_std(const double *v, size_t n)
{
        size_t m = count_valid(v, n), i;
        double avg, var, *sq;

        if (m < 2)
                return NAN;
        avg = np_sum(v, n) / (double)m;
        sq = xmalloc(n * sizeof *sq);
        for (i = 0; i < n; i++)
                sq[i] = isnan(v[i]) ? 0.0 : (avg - v[i]) * (avg - v[i]);
        var = np_sum(sq, n) / (double)(m - 1);
        free(sq);
        return sqrt(var);
}

double agg_by_name(const char *agg, const double *v, size_t n)
{
        if (!agg || !strcmp(agg, "avg"))
                return agg_avg(v, n);
        if (!strcmp(agg, "min"))
                return agg_min(v, n);
        if (!strcmp(agg, "max"))
                return agg_max(v, n);
        if (!strcmp(agg, "median"))
                return agg_median(v, n);
        if (!strcmp(agg, "std"))
                return agg_std(v, n);
        if (!strcmp(agg, "sum"))
                return agg_sum(v, n);
        if (!strcmp(agg, "q1"))
                return agg_quantile(v, n, 0.25);
        if (!strcmp(agg, "q3"))
                return agg_quantile(v, n, 0.75);
        return NAN;
}

static int agg_known(const char *agg)
{
        static const char *const names[] = {"avg", "min", "max", "median",
                                            "std", "sum", "q1",  "q3"};
        size_t i;

        if (!agg)
                return 1;
        for (i = 0; i < sizeof names / sizeof names[0]; i++)
                if (!strcmp(agg, names[i]))
                        return 1;
        return 0;
}

/* ---- the evaluator ---- */

struct evctx {
        const struct expr *e;
        const struct expr_env *env;
        struct err *err;
};

static int eval_node(struct evctx *c, const struct expr_node *n, struct ev *res);

static int eval_name(struct evctx *c, const struct expr_node *n, struct ev *res)
{
        const struct expr_slot *sl;

        if (n->slot < 0)
                return expr_node_err(c->e, n, c->err, ERR_INPUT, "unbound name '%s%s'",
                                     n->dollar ? "$" : "", n->name);
        if ((size_t)n->slot >= c->env->nslots || !c->env->slots)
                return expr_node_err(c->e, n, c->err, ERR_INPUT,
                                     "name '%s%s' is bound to slot %d, beyond the %zu slots",
                                     n->dollar ? "$" : "", n->name, n->slot, c->env->nslots);
        sl = &c->env->slots[n->slot];
        res->col = sl->col; /* borrowed: a plain reference copies nothing */
        res->s = sl->col ? NAN : sl->s;
        return 0;
}

/* Evaluate kids[0..k-1] into v[]; on failure frees what was evaluated. */
static int eval_kids(struct evctx *c, const struct expr_node *n, int k, struct ev *v)
{
        int i, j, rc;

        for (i = 0; i < k; i++) {
                rc = eval_node(c, n->kids[i], &v[i]);
                if (rc < 0) {
                        for (j = 0; j < i; j++)
                                ev_free(&v[j]);
                        return rc;
                }
        }
        return 0;
}

static void combine_bin(int op, struct ev *a, struct ev *b, size_t n, struct ev *res)
{
        if (!a->col && !b->col) {
                bin_apply(op, a, b, &res->s, 1);
                return;
        }
        ev_take(res, a, b, NULL, n);
        bin_apply(op, a, b, res->own, n);
        ev_free(a);
        ev_free(b);
}

static void combine_un(int op, struct ev *a, size_t n, struct ev *res)
{
        if (!a->col) {
                un_apply(op, a, &res->s, 1);
                return;
        }
        ev_take(res, a, NULL, NULL, n);
        un_apply(op, a, res->own, n);
        ev_free(a);
}

/* `A if C else B`: A where C is non-zero (NaN counts as true), else B. A scalar C picks
 * one branch and evaluates only that one, as Python does. */
static int eval_cond(struct evctx *c, const struct expr_node *n, struct ev *res)
{
        struct ev t = {0}, v[2] = {{0}, {0}};
        const double *pa, *pb;
        size_t sa, sb, i, len = c->env->n;
        int rc;

        rc = eval_node(c, n->kids[1], &t);
        if (rc < 0)
                return rc;
        if (!t.col)
                return eval_node(c, n->kids[t.s != 0 ? 0 : 2], res);
        rc = eval_node(c, n->kids[0], &v[0]);
        if (rc < 0)
                goto out;
        rc = eval_node(c, n->kids[2], &v[1]);
        if (rc < 0)
                goto out;
        pa = v[0].col ? v[0].col : &v[0].s;
        pb = v[1].col ? v[1].col : &v[1].s;
        sa = v[0].col ? 1 : 0;
        sb = v[1].col ? 1 : 0;
        ev_take(res, &t, &v[0], &v[1], len);
        for (i = 0; i < len; i++)
                res->own[i] = t.col[i] != 0 ? pa[i * sa] : pb[i * sb];
out:
        ev_free(&t);
        ev_free(&v[0]);
        ev_free(&v[1]);
        return rc;
}

/* NOISE_CLAMP's corrections whose size is at least 1% of their reference: how many, and
 * the largest share (as a double's bits), over every evaluation of the process */
static size_t noise_count;
static unsigned long long noise_max_bits;

static void noise_record(double rel)
{
        if (!(rel >= 0.01))
                return;
        __atomic_add_fetch(&noise_count, 1, __ATOMIC_RELAXED);
        unsigned long long old = __atomic_load_n(&noise_max_bits, __ATOMIC_RELAXED), nb;
        double cur;
        do {
                memcpy(&cur, &old, sizeof cur);
                if (old && !(rel > cur))
                        return;
                memcpy(&nb, &rel, sizeof nb);
        } while (!__atomic_compare_exchange_n(&noise_max_bits, &old, nb, 0, __ATOMIC_RELAXED,
                                              __ATOMIC_RELAXED));
}

void expr_noise_stats(size_t *count, double *max_rel, int reset)
{
        unsigned long long b = __atomic_load_n(&noise_max_bits, __ATOMIC_RELAXED);
        *count = __atomic_load_n(&noise_count, __ATOMIC_RELAXED);
        *max_rel = 0;
        if (b)
                memcpy(max_rel, &b, sizeof *max_rel);
        if (reset) {
                __atomic_store_n(&noise_count, 0, __ATOMIC_RELAXED);
                __atomic_store_n(&noise_max_bits, 0, __ATOMIC_RELAXED);
        }
}

/* NOISE_CLAMP(x, ref): a negative x, which counters of one quantity read in different
 * passes can give (A - B where B <= A by definition), is 0; n/a stays n/a */
static void noise_clamp(struct ev *x, struct ev *ref, size_t len, struct ev *res)
{
        if (!x->col) {
                double v = x->s;
                if (v < 0) {
                        double r = ref->col ? agg_avg(ref->col, len) : ref->s;
                        noise_record(r == 0 ? 0 : fabs(v) / fabs(r));
                        v = 0;
                }
                res->s = v;
                ev_free(x);
                ev_free(ref);
                return;
        }
        double *out = xmalloc((len ? len : 1) * sizeof *out);
        for (size_t i = 0; i < len; i++) {
                double v = x->col[i];
                if (v < 0) {
                        double r = ref->col ? ref->col[i] : ref->s;
                        noise_record(r == 0 ? NAN : fabs(v) / fabs(r)); /* ref 0: no share */
                        v = 0;
                }
                out[i] = v;
        }
        ev_free(x);
        ev_free(ref);
        res->col = res->own = out;
}

static double reduce(int fn, const double *col, size_t n, double q)
{
        switch (fn) {
        case EF_AVG:
                return agg_avg(col, n);
        case EF_MEDIAN:
                return agg_median(col, n);
        case EF_STD:
                return agg_std(col, n);
        case EF_SUM:
                return agg_sum(col, n);
        case EF_QUANTILE:
                return agg_quantile(col, n, q);
        case EF_MIN:
                return agg_min(col, n);
        case EF_MAX:
                return agg_max(col, n);
        default:
                return NAN;
        }
}

static int eval_call(struct evctx *c, const struct expr_node *n, struct ev *res)
{
        struct ev v[2] = {{0}, {0}}, zero = {0};
        size_t len = c->env->n;
        int rc, want = n->op == EF_QUANTILE || n->op == EF_MIN2 || n->op == EF_MAX2 ||
                               n->op == EF_MOD || n->op == EF_ROUND || n->op == EF_NOISE_CLAMP
                           ? 2
                           : 1;

        /* a tagged aggregate whose value the caller computed over every row */
        if (c->env->aggs && n->agg_tag >= 0 && (size_t)n->agg_tag < c->env->naggs &&
            expr_fn_is_aggregate(n->op)) {
                res->s = c->env->aggs[n->agg_tag];
                return 0;
        }
        /* the parser checks counts; ROUND alone may have one (0 decimals) */
        if (n->nkids != want && !(n->op == EF_ROUND && n->nkids == 1))
                return expr_node_err(c->e, n, c->err, ERR_INPUT, "'%s' called with %d arguments",
                                     expr_fn_name(n->op), n->nkids);
        rc = eval_kids(c, n, n->nkids, v);
        if (rc < 0)
                return rc;
        switch (n->op) {
        case EF_MIN2:
                combine_bin(EOP_MIN, &v[0], &v[1], len, res);
                break;
        case EF_MAX2:
                combine_bin(EOP_MAX, &v[0], &v[1], len, res);
                break;
        case EF_MOD:
                combine_bin(EOP_MOD, &v[0], &v[1], len, res);
                break;
        case EF_ROUND:
                combine_bin(EOP_ROUND, &v[0], n->nkids == 2 ? &v[1] : &zero, len, res);
                break;
        case EF_TO_INT:
                combine_un(EOP_TRUNC, &v[0], len, res);
                break;
        case EF_NOISE_CLAMP:
                noise_clamp(&v[0], &v[1], len, res);
                break;
        default:
                /* an aggregate; of a scalar it is that scalar. A column q for QUANTILE
                 * (not meaningful) is reduced to its mean. */
                if (!v[0].col) {
                        res->s = v[0].s;
                } else {
                        double q = v[1].col ? agg_avg(v[1].col, len) : v[1].s;
                        res->s = reduce(n->op, v[0].col, len, q);
                }
                ev_free(&v[0]);
                ev_free(&v[1]);
                break;
        }
        return 0;
}

static int eval_node(struct evctx *c, const struct expr_node *n, struct ev *res)
{
        struct ev v[2] = {{0}, {0}};
        int rc;

        res->col = NULL;
        res->own = NULL;
        res->s = NAN;
        switch (n->kind) {
        case EK_NUM:
                res->s = n->num;
                return 0;
        case EK_NAME:
                return eval_name(c, n, res);
        case EK_UN:
                rc = eval_kids(c, n, 1, v);
                if (rc < 0)
                        return rc;
                combine_un(n->op, &v[0], c->env->n, res);
                return 0;
        case EK_BIN:
                rc = eval_kids(c, n, 2, v);
                if (rc < 0)
                        return rc;
                combine_bin(n->op, &v[0], &v[1], c->env->n, res);
                return 0;
        case EK_COND:
                return eval_cond(c, n, res);
        case EK_CALL:
                return eval_call(c, n, res);
        }
        return expr_node_err(c->e, n, c->err, ERR_INPUT, "bad expression node");
}

int expr_eval(const struct expr *e, const struct expr_env *env, struct expr_val *out,
              struct err *err)
{
        struct evctx c = {e, env, err};
        struct ev r = {0};
        int rc;

        out->col = NULL;
        out->s = NAN;
        if (!e || !env)
                return err_set(err, ERR_USAGE, "expr_eval: no expression or environment");
        rc = eval_node(&c, e->root, &r);
        if (rc < 0)
                return rc;
        if (r.col && !r.own) {
                /* the formula is a plain slot reference: the result must be owned */
                r.own = xmalloc(env->n * sizeof(double));
                if (env->n)
                        memcpy(r.own, r.col, env->n * sizeof(double));
        }
        out->col = r.own;
        out->s = r.own ? NAN : r.s;
        return 0;
}

void expr_val_free(struct expr_val *v)
{
        if (!v)
                return;
        free(v->col);
        v->col = NULL;
}

double expr_eval_agg(const struct expr *e, const struct expr_env *env, const char *agg,
                     struct err *err)
{
        struct expr_val v = {0};
        double r;

        if (err) {
                err->code = 0;
                err->msg[0] = '\0';
        }
        if (!agg_known(agg)) {
                err_set(err, ERR_USAGE, "unknown aggregate '%s'", agg);
                return NAN;
        }
        if (expr_eval(e, env, &v, err) < 0)
                return NAN;
        r = v.col ? agg_by_name(agg, v.col, env->n) : v.s;
        expr_val_free(&v);
        return r;
}
