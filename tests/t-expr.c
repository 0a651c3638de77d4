/* Unit tests of the expression language: tables of formulas and the values, errors,
 * names and text they must give. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expr/expr.h"

#define N 4
#define NaN NAN
#define INF INFINITY

/* ---- the environment: 4 rows (or 1 or 0), a few columns, a few scalars ---- */

static const double col_a[N] = {1, 2, 3, 4};
static const double col_b[N] = {2, 0, -1, NAN};
static const double col_z[N] = {0, 0, 0, 0};
static const double col_nan[N] = {NAN, NAN, NAN, NAN};
static const double col_hit3[N] = {10, 20, 30, 40};

struct binding {
        const char *name;
        int dollar;
        const double *col; /* NULL: scalar s */
        double s;
};

static const struct binding bindings[] = {
    {"a", 0, col_a, 0},
    {"b", 0, col_b, 0},
    {"z", 0, col_z, 0},
    {"nn", 0, col_nan, 0},
    {"TCC_HIT[3]", 0, col_hit3, 0},
    {"TCC_HIT[@]", 0, NULL, 5},
    {"K", 0, NULL, 2},
    {"max_sclk", 1, NULL, 1700},
    {"denom", 1, NULL, 4},
};

#define NBIND (sizeof bindings / sizeof bindings[0])

static struct expr_slot slots[NBIND];

static int resolve(void *ctx, const char *name, int dollar, struct err *err)
{
        size_t i;

        (void)ctx;
        for (i = 0; i < NBIND; i++)
                if (bindings[i].dollar == dollar && !strcmp(bindings[i].name, name))
                        return (int)i;
        return err_set(err, ERR_INPUT, "unknown counter '%s%s'", dollar ? "$" : "", name);
}

enum { ENV4, ENV1, ENV0 };

static struct expr_env make_env(int which)
{
        struct expr_env env = {.n = N, .slots = slots, .nslots = NBIND};
        size_t i;

        for (i = 0; i < NBIND; i++) {
                slots[i].col = bindings[i].col;
                slots[i].s = bindings[i].s;
        }
        if (which == ENV1)
                env.n = 1;
        else if (which == ENV0)
                env.n = 0;
        return env;
}

static const struct expr_loc loc = {"metrics/cdna.yaml", 41, 10};

static struct expr *parse_bound(const char *src)
{
        struct err err = {0};
        struct expr *e = expr_parse(src, &loc, "m", &err);

        if (!e)
                fail_msg("parse '%s': %s", src, err.msg);
        if (expr_bind(e, resolve, NULL, &err) < 0)
                fail_msg("bind '%s': %s", src, err.msg);
        return e;
}

/* NaN matches NaN, infinities match exactly, finite values to 1e-12 relative. */
static int same(double got, double want)
{
        if (isnan(want) || isnan(got))
                return isnan(want) && isnan(got);
        if (isinf(want) || isinf(got))
                return got == want;
        return fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want));
}

/* ---- values ---- */

struct val_case {
        const char *src;
        int env;
        int col; /* 1: a column of env.n values expected, 0: a scalar (v[0]) */
        double v[N];
};

static const struct val_case val_cases[] = {
    /* precedence and associativity, as in Python */
    {"1 + 2 * 3", ENV4, 0, {7}},
    {"(1 + 2) * 3", ENV4, 0, {9}},
    {"10 - 4 - 3", ENV4, 0, {3}},
    {"16 / 4 / 2", ENV4, 0, {2}},
    {"7 % 3 * 2", ENV4, 0, {2}},
    {"2 ** 3 ** 2", ENV4, 0, {512}},
    {"-2 ** 2", ENV4, 0, {-4}},
    {"2 ** -1", ENV4, 0, {0.5}},
    {"- - 3", ENV4, 0, {3}},
    {"1 + 2 < 4", ENV4, 0, {1}},
    {"1 + 2 > 3 * 1", ENV4, 0, {0}},
    {"1 + 1 if 0 else 5", ENV4, 0, {5}},
    {"1 if 0 else 2 if 1 else 3", ENV4, 0, {2}},
    {"not 0 and 1 or 0", ENV4, 0, {1}},
    {"not 1 == 1", ENV4, 0, {0}},
    {"1e3 + .5 + 2. + 1.5E-1", ENV4, 0, {1002.65}},
    {"None", ENV4, 0, {NaN}},
    {"None + 1", ENV4, 0, {NaN}},
    /* names, indexed names, $names, broadcasting */
    {"a + 1", ENV4, 1, {2, 3, 4, 5}},
    {"a * K", ENV4, 1, {2, 4, 6, 8}},
    {"K - a", ENV4, 1, {1, 0, -1, -2}},
    {"a * a - a", ENV4, 1, {0, 2, 6, 12}},
    {"$max_sclk / 1000", ENV4, 0, {1.7}},
    {"TCC_HIT[3] - a", ENV4, 1, {9, 18, 27, 36}},
    {"TCC_HIT [ 3 ] / $denom", ENV4, 1, {2.5, 5, 7.5, 10}},
    {"TCC_HIT[@] * 2", ENV4, 0, {10}},
    {"a\n    +\n    1", ENV4, 1, {2, 3, 4, 5}},
    /* IEEE division */
    {"1 / 0", ENV4, 0, {INF}},
    {"-1 / 0", ENV4, 0, {-INF}},
    {"0 / 0", ENV4, 0, {NaN}},
    {"a / z", ENV4, 1, {INF, INF, INF, INF}},
    {"-a / z", ENV4, 1, {-INF, -INF, -INF, -INF}},
    {"z / z", ENV4, 1, {NaN, NaN, NaN, NaN}},
    {"b / a", ENV4, 1, {2, 0, -1.0 / 3, NaN}},
    {"a / b", ENV4, 1, {0.5, INF, -3, NaN}},
    /* NaN propagates; comparisons follow IEEE */
    {"nn * 0", ENV4, 1, {NaN, NaN, NaN, NaN}},
    {"b + 1", ENV4, 1, {3, 1, 0, NaN}},
    {"b != b", ENV4, 1, {0, 0, 0, 1}},
    {"b == b", ENV4, 1, {1, 1, 1, 0}},
    {"b < 1", ENV4, 1, {0, 1, 1, 0}},
    {"b >= 0", ENV4, 1, {1, 1, 0, 0}},
    {"None != None", ENV4, 0, {1}},
    {"None == None", ENV4, 0, {0}},
    /* aggregates skip NaN rows */
    {"AVG(b)", ENV4, 0, {1.0 / 3}},
    {"MIN(b)", ENV4, 0, {-1}},
    {"MAX(b)", ENV4, 0, {2}},
    {"MEDIAN(b)", ENV4, 0, {0}},
    {"MEDIAN(a)", ENV4, 0, {2.5}},
    {"SUM(b)", ENV4, 0, {1}},
    {"SUM(a)", ENV4, 0, {10}},
    {"STD(a)", ENV4, 0, {1.2909944487358056}},
    {"STD(b)", ENV4, 0, {1.5275252316519468}},
    {"a - AVG(a)", ENV4, 1, {-1.5, -0.5, 0.5, 1.5}},
    {"AVG(nn)", ENV4, 0, {NaN}},
    {"SUM(nn)", ENV4, 0, {NaN}},
    {"MIN(nn)", ENV4, 0, {NaN}},
    {"MAX(nn)", ENV4, 0, {NaN}},
    {"MEDIAN(nn)", ENV4, 0, {NaN}},
    {"AVG(K)", ENV4, 0, {2}},
    {"STD(K)", ENV4, 0, {2}},
    {"STD(a)", ENV1, 0, {NaN}},
    {"STD(a if b > 1 else None)", ENV4, 0, {NaN}},
    {"AVG(a)", ENV1, 0, {1}},
    {"AVG(a)", ENV0, 0, {NaN}},
    {"SUM(a)", ENV0, 0, {NaN}},
    {"MAX(a)", ENV0, 0, {NaN}},
    /* QUANTILE: linear interpolation between the sorted non-NaN values */
    {"QUANTILE(a, 0.25)", ENV4, 0, {1.75}},
    {"QUANTILE(a, 0.75)", ENV4, 0, {3.25}},
    {"QUANTILE(a, 0)", ENV4, 0, {1}},
    {"QUANTILE(a, 1)", ENV4, 0, {4}},
    {"QUANTILE(b, 0.5)", ENV4, 0, {0}},
    {"QUANTILE(b, 0.75)", ENV4, 0, {1}},
    {"QUANTILE(TCC_HIT[3], 0.1)", ENV4, 0, {13}},
    {"QUANTILE(a, 1.5)", ENV4, 0, {NaN}},
    {"QUANTILE(nn, 0.5)", ENV4, 0, {NaN}},
    /* ROUND: numpy's half to even at n decimals */
    {"ROUND(0.5, 0)", ENV4, 0, {0}},
    {"ROUND(1.5, 0)", ENV4, 0, {2}},
    {"ROUND(2.5, 0)", ENV4, 0, {2}},
    {"ROUND(-2.5, 0)", ENV4, 0, {-2}},
    {"ROUND(2.5)", ENV4, 0, {2}},
    {"ROUND(2.675, 2)", ENV4, 0, {2.68}},
    {"ROUND(1.005, 2)", ENV4, 0, {1.0}},
    {"ROUND(0.125, 2)", ENV4, 0, {0.12}},
    {"ROUND(25, -1)", ENV4, 0, {20}},
    {"ROUND(35, -1)", ENV4, 0, {40}},
    {"ROUND(None, 1)", ENV4, 0, {NaN}},
    {"ROUND(a / 3, 1)", ENV4, 1, {0.3, 0.7, 1.0, 1.3}},
    /* TO_INT truncates toward zero */
    {"TO_INT(2.7)", ENV4, 0, {2}},
    {"TO_INT(-2.7)", ENV4, 0, {-2}},
    {"TO_INT(None)", ENV4, 0, {NaN}},
    {"TO_INT(1 / 0)", ENV4, 0, {INF}},
    {"TO_INT(-1 / 0)", ENV4, 0, {-INF}},
    {"TO_INT(b * 4 / 3)", ENV4, 1, {2, 0, -1, NaN}},
    /* on a column: -0.5 gives -0.0 (1 / it is -inf), whole and huge values stay */
    {"1 / TO_INT(a * -0.25)", ENV4, 1, {-INF, -INF, -INF, -1}},
    {"TO_INT(a * 1e300) / 1e300", ENV4, 1, {1, 2, 3, 4}},
    {"TO_INT(a * 4503599627370495.5)", ENV4, 1, {4503599627370495, 9007199254740991, 13510798882111486, 18014398509481982}},
    /* floored modulo, like Python */
    {"MOD(7, 3)", ENV4, 0, {1}},
    {"MOD(-7, 3)", ENV4, 0, {2}},
    {"MOD(7, -3)", ENV4, 0, {-2}},
    {"MOD(-7, -3)", ENV4, 0, {-1}},
    {"MOD(-7.5, 2)", ENV4, 0, {0.5}},
    {"-7 % 3", ENV4, 0, {2}},
    {"MOD(7, 0)", ENV4, 0, {NaN}},
    {"MOD(-3, 1 / 0)", ENV4, 0, {INF}},
    {"a % 3", ENV4, 1, {1, 2, 0, 1}},
    {"MOD(-a, K)", ENV4, 1, {1, 0, 1, 0}},
    /* the conditional: element-wise, NaN counts as true */
    {"a if b else 100", ENV4, 1, {1, 100, 3, 4}},
    {"a if b > 0 else -a", ENV4, 1, {1, -2, -3, -4}},
    {"100 if b == 0 else a", ENV4, 1, {1, 100, 3, 4}},
    {"1 if None else 2", ENV4, 0, {1}},
    {"a if 0 else 7", ENV4, 0, {7}},
    {"K if 1 else a", ENV4, 0, {2}},
    /* element-wise MIN/MAX: NaN wins, as numpy.minimum/maximum */
    {"MAX(b, 0)", ENV4, 1, {2, 0, 0, NaN}},
    {"MIN(a, b)", ENV4, 1, {1, 0, -1, NaN}},
    {"MAX(1, 2)", ENV4, 0, {2}},
    {"MIN(None, 1)", ENV4, 0, {NaN}},
    {"MAX(1, None)", ENV4, 0, {NaN}},
    /* with more arguments: folded in pairs, the same element-wise result */
    {"MAX(b, a, 0)", ENV4, 1, {2, 2, 3, NaN}},
    {"MIN(a, 3, 2.5)", ENV4, 1, {1, 2, 2.5, 2.5}},
    {"MAX(1, 5, 2, 4, 3)", ENV4, 0, {5}},
    {"MIN(7, 6, 5, 4, 3, 2, 1, 0, -1)", ENV4, 0, {-1}},
    {"MAX(a, None, 1)", ENV4, 1, {NaN, NaN, NaN, NaN}},
    /* and/or/not: 1.0 or 0.0, NaN counts as true */
    {"b and a", ENV4, 1, {1, 0, 1, 1}},
    {"b or z", ENV4, 1, {1, 0, 1, 1}},
    {"not b", ENV4, 1, {0, 1, 0, 0}},
};

static void check_val(const struct val_case *c)
{
        struct expr *e = parse_bound(c->src);
        struct expr_env env = make_env(c->env);
        struct expr_val v = {0};
        struct err err = {0};
        size_t i;

        if (expr_eval(e, &env, &v, &err) < 0)
                fail_msg("eval '%s': %s", c->src, err.msg);
        if (c->col) {
                if (!v.col)
                        fail_msg("'%s': got scalar %g, want a column", c->src, v.s);
                for (i = 0; i < env.n; i++)
                        if (!same(v.col[i], c->v[i]))
                                fail_msg("'%s' row %zu: got %.17g, want %.17g", c->src, i, v.col[i],
                                         c->v[i]);
        } else {
                if (v.col)
                        fail_msg("'%s': got a column, want scalar %g", c->src, c->v[0]);
                if (!same(v.s, c->v[0]))
                        fail_msg("'%s': got %.17g, want %.17g", c->src, v.s, c->v[0]);
        }
        expr_val_free(&v);
        expr_free(e);
}

static void test_values(void **state)
{
        size_t i;

        (void)state;
        for (i = 0; i < sizeof val_cases / sizeof val_cases[0]; i++)
                check_val(&val_cases[i]);
}

/* ---- parse errors, with the place in the file ---- */

struct err_case {
        const char *src;
        const char *msg; /* the whole message, loc = metrics/cdna.yaml:41:10, what = 'm' */
};

static const struct err_case err_cases[] = {
    {"a + )", "metrics/cdna.yaml:41:14: unexpected ')' in 'm'"},
    {"AVGX(a)", "metrics/cdna.yaml:41:10: unknown function 'AVGX' in 'm'"},
    {"1 + avg(a)", "metrics/cdna.yaml:41:14: unknown function 'avg' in 'm'"},
    {"AVG(a, b)", "metrics/cdna.yaml:41:10: 'AVG' takes 1 argument, got 2 in 'm'"},
    {"AVG()", "metrics/cdna.yaml:41:10: 'AVG' takes 1 argument, got 0 in 'm'"},
    {"MIN()", "metrics/cdna.yaml:41:10: 'MIN' takes at least 1 argument, got 0 in 'm'"},
    {"QUANTILE(a)", "metrics/cdna.yaml:41:10: 'QUANTILE' takes 2 arguments, got 1 in 'm'"},
    {"(a + b", "metrics/cdna.yaml:41:16: unexpected end of formula in 'm'"},
    {"a +\n  b * )", "metrics/cdna.yaml:42:7: unexpected ')' in 'm'"},
    {"a\n\n  + AVGX(b)", "metrics/cdna.yaml:43:5: unknown function 'AVGX' in 'm'"},
    {"1e + 2", "metrics/cdna.yaml:41:10: invalid number '1e' in 'm'"},
    {"12abc", "metrics/cdna.yaml:41:10: invalid number '12abc' in 'm'"},
    {"a # b", "metrics/cdna.yaml:41:12: unexpected character '#' in 'm'"},
    {"$ a", "metrics/cdna.yaml:41:10: unexpected character '$' in 'm'"},
    {"  \n ", "metrics/cdna.yaml:42:2: empty formula in 'm'"},
    {"a < b < 1", "metrics/cdna.yaml:41:16: chained comparison is not supported in 'm'"},
    {"1 if a", "metrics/cdna.yaml:41:16: unexpected end of formula in 'm'"},
    {"1 if a then 2", "metrics/cdna.yaml:41:17: unexpected 'then' in 'm'"},
    {"TCC_HIT[x]", "metrics/cdna.yaml:41:18: unexpected 'x' in 'm'"},
    {"TCC_HIT[1.5]", "metrics/cdna.yaml:41:18: index must be an integer or '@' in 'm'"},
    {"TCC_HIT[3", "metrics/cdna.yaml:41:19: unexpected end of formula in 'm'"},
    {"a b", "metrics/cdna.yaml:41:12: unexpected 'b' in 'm'"},
    {"AVG(a b)", "metrics/cdna.yaml:41:16: unexpected 'b' in 'm'"},
    {"a * * b", "metrics/cdna.yaml:41:14: unexpected '*' in 'm'"},
    {"a = b", "metrics/cdna.yaml:41:12: unexpected character '=' in 'm'"},
};

static void test_parse_errors(void **state)
{
        size_t i;

        (void)state;
        for (i = 0; i < sizeof err_cases / sizeof err_cases[0]; i++) {
                struct err err = {0};
                struct expr *e = expr_parse(err_cases[i].src, &loc, "m", &err);
                if (e)
                        fail_msg("'%s' parsed, want an error", err_cases[i].src);
                if (err.code != ERR_INPUT || strcmp(err.msg, err_cases[i].msg))
                        fail_msg("'%s': got \"%s\" (%d), want \"%s\"", err_cases[i].src, err.msg,
                                 err.code, err_cases[i].msg);
        }
}

static void test_error_without_file(void **state)
{
        struct err err = {0};
        struct expr *e = expr_parse("a )", NULL, NULL, &err);

        (void)state;
        assert_null(e);
        assert_string_equal(err.msg, "1:3: unexpected ')'");
        e = expr_parse(NULL, NULL, "x", &err);
        assert_null(e);
        assert_string_equal(err.msg, "1:1: empty formula in 'x'");
}

static void test_deep_nesting(void **state)
{
        char src[1024];
        struct err err = {0};
        struct expr *e;
        size_t i;

        (void)state;
        for (i = 0; i < 500; i++)
                src[i] = '(';
        src[500] = '1';
        src[501] = '\0';
        e = expr_parse(src, NULL, NULL, &err);
        assert_null(e);
        assert_non_null(strstr(err.msg, "formula nested too deeply"));
        /* moderate nesting is fine */
        for (i = 0; i < 50; i++) {
                src[i] = '(';
                src[51 + i] = ')';
        }
        src[50] = '7';
        src[101] = '\0';
        e = expr_parse(src, NULL, NULL, &err);
        assert_non_null(e);
        expr_free(e);
}

/* ---- names, binding, unbound names ---- */

static void collect(void *ctx, const char *name, int dollar)
{
        struct strbuf *sb = ctx;

        if (sb->len)
                sb_addc(sb, ' ');
        sb_addf(sb, "%s%s", dollar ? "$" : "", name);
}

static void test_names(void **state)
{
        static const struct {
                const char *src, *names;
        } cases[] = {
            {"AVG(TCC_HIT[3]) / $denom + (x if y > 0 else z) + x", "TCC_HIT[3] $denom x y z x"},
            {"MIN(b, a) * TCC_HIT [ @ ]", "b a TCC_HIT[@]"},
            {"1 + 2", ""},
            {"-q ** r", "q r"},
            {"dram__bytes_read.sum / gpu__time_duration.sum + 1.5", "dram__bytes_read.sum gpu__time_duration.sum"},
        };
        size_t i;

        (void)state;
        for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct strbuf sb = {0};
                struct err err = {0};
                struct expr *e = expr_parse(cases[i].src, NULL, NULL, &err);
                assert_non_null(e);
                sb_add(&sb, "");
                expr_names(e, collect, &sb);
                if (strcmp(sb.buf, cases[i].names))
                        fail_msg("'%s': names \"%s\", want \"%s\"", cases[i].src, sb.buf,
                                 cases[i].names);
                sb_free(&sb);
                expr_free(e);
        }
}

static void test_bind_error(void **state)
{
        struct expr_loc l = {"metrics/cdna3.yaml", 41, 8};
        struct err err = {0};
        struct expr *e = expr_parse("100 * TCC_HITS / a", &l, "l2_hit_rate", &err);

        (void)state;
        assert_non_null(e);
        assert_int_equal(expr_bind(e, resolve, NULL, &err), ERR_INPUT);
        assert_string_equal(
            err.msg, "metrics/cdna3.yaml:41:14: unknown counter 'TCC_HITS' in 'l2_hit_rate'");
        expr_free(e);
}

static void test_unbound(void **state)
{
        struct err err = {0};
        struct expr_env env = make_env(ENV4);
        struct expr_val v = {0};
        struct expr *e = expr_parse("1 +\n  q", &loc, "m", &err);

        (void)state;
        assert_non_null(e);
        assert_true(expr_eval(e, &env, &v, &err) < 0);
        assert_null(v.col);
        assert_string_equal(err.msg, "metrics/cdna.yaml:42:3: unbound name 'q' in 'm'");
        assert_true(isnan(expr_eval_agg(e, &env, "avg", &err)));
        assert_int_equal(err.code, ERR_INPUT);
        expr_free(e);
}

/* ---- text, aggregates, clone, eval_agg ---- */

static void test_to_string(void **state)
{
        static const struct {
                const char *src, *text;
        } cases[] = {
            {"1 + 2 * 3", "(1 + (2 * 3))"},
            {"(1 + 2) * 3", "((1 + 2) * 3)"},
            {"-a ** 2", "(-(a ** 2))"},
            {"a if b > 0 else c if d else e", "(a if (b > 0) else (c if d else e))"},
            {"MIN(a,$k) + MAX(b)", "(MIN(a, $k) + MAX(b))"},
            {"MAX(a, b, c, d, e)", "MAX(MAX(MAX(a, b), MAX(c, d)), e)"},
            {"TCC_HIT[ 3 ]", "TCC_HIT[3]"},
            {"None", "None"},
            {"1e9 + 0.1", "(1000000000 + 0.1)"},
            {"not a and b or c", "(((not a) and b) or c)"},
            {"a % 3 != 1", "((a % 3) != 1)"},
        };
        size_t i;

        (void)state;
        for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct err err = {0};
                struct expr *e = expr_parse(cases[i].src, NULL, NULL, &err);
                char *s;
                if (!e)
                        fail_msg("'%s': %s", cases[i].src, err.msg);
                s = expr_to_string(e);
                if (strcmp(s, cases[i].text))
                        fail_msg("'%s': text \"%s\", want \"%s\"", cases[i].src, s, cases[i].text);
                free(s);
                expr_free(e);
        }
}

static void test_has_aggregate(void **state)
{
        static const struct {
                const char *src;
                int agg;
        } cases[] = {
            {"a + 1", 0},
            {"AVG(a)", 1},
            {"MIN(a, b)", 0},
            {"MIN(a)", 1},
            {"MAX(a, MAX(b))", 1},
            {"ROUND(QUANTILE(a, .5), 1)", 1},
            {"TO_INT(MOD(a, 2))", 0},
            {"1 if STD(a) else 0", 1},
        };
        size_t i;

        (void)state;
        for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct err err = {0};
                struct expr *e = expr_parse(cases[i].src, NULL, NULL, &err);
                assert_non_null(e);
                if (expr_has_aggregate(e) != cases[i].agg)
                        fail_msg("'%s': has_aggregate %d, want %d", cases[i].src,
                                 expr_has_aggregate(e), cases[i].agg);
                expr_free(e);
        }
}

static void test_eval_agg(void **state)
{
        static const struct {
                const char *src, *agg;
                double want;
        } cases[] = {
            {"a", NULL, 2.5},         {"a", "avg", 2.5},    {"a", "min", 1},
            {"a", "max", 4},          {"a", "median", 2.5}, {"a", "std", 1.2909944487358056},
            {"a", "sum", 10},         {"a", "q1", 1.75},    {"a", "q3", 3.25},
            {"b", "min", -1},         {"b", "sum", 1},      {"K", "max", 2},
            {"AVG(b) * 3", "min", 1},
        };
        struct expr_env env = make_env(ENV4);
        struct err err = {0};
        struct expr *e;
        size_t i;

        (void)state;
        for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                double r;
                e = parse_bound(cases[i].src);
                r = expr_eval_agg(e, &env, cases[i].agg, &err);
                if (!same(r, cases[i].want) || err.code)
                        fail_msg("'%s' %s: got %.17g, want %.17g (%s)", cases[i].src,
                                 cases[i].agg ? cases[i].agg : "NULL", r, cases[i].want, err.msg);
                expr_free(e);
        }
        e = parse_bound("a");
        assert_true(isnan(expr_eval_agg(e, &env, "mean", &err)));
        assert_int_equal(err.code, ERR_USAGE);
        assert_string_equal(err.msg, "unknown aggregate 'mean'");
        assert_true(isnan(agg_by_name("mean", col_a, N)));
        expr_free(e);
}

static void test_clone_and_ownership(void **state)
{
        struct expr_env env = make_env(ENV4);
        struct expr *e = parse_bound("a"), *c = expr_clone(e);
        struct expr_val v = {0};
        struct err err = {0};
        char *s;

        (void)state;
        expr_free(e);
        /* a clone is unbound (another thread may be binding the original): evaluating it
         * names the unbound name; bound, a plain reference still gives an owned column */
        assert_int_not_equal(expr_eval(c, &env, &v, &err), 0);
        assert_non_null(strstr(err.msg, "unbound name 'a'"));
        assert_int_equal(expr_bind(c, resolve, NULL, &err), 0);
        assert_int_equal(expr_eval(c, &env, &v, &err), 0);
        assert_non_null(v.col);
        assert_ptr_not_equal(v.col, col_a);
        assert_memory_equal(v.col, col_a, sizeof col_a);
        expr_val_free(&v);
        assert_null(v.col);
        s = expr_to_string(c);
        assert_string_equal(s, "a");
        free(s);
        expr_free(c);
}

/* The aggregate helpers follow pandas to the last bit: numpy's pairwise summation and
 * the quantile's lerp (a plain loop gives ...941 for the sum). Values from pandas 3.1,
 * numpy 2.4. */
static void test_agg_bits(void **state)
{
        size_t n = 20000, i;
        double *v = malloc(n * sizeof *v);
        static const double s2[] = {1.0, NAN, 3.0, 10.0, 0.1, 0.2, 0.7};

        (void)state;
        assert_non_null(v);
        for (i = 0; i < n; i++)
                v[i] = i % 7 ? 1.0 / (double)(i + 1) + (double)(i % 13) * 1e3 : NAN;
        assert_true(agg_sum(v, n) == 102837008.29190928);
        assert_true(agg_avg(v, n) == 5999.125439966706);
        assert_true(agg_std(v, n) == 3741.883296220592);
        assert_true(agg_median(v, n) == 6000.000099636369);
        assert_true(agg_quantile(v, n, 0.3) == 3000.0004962576363);
        assert_true(agg_quantile(v, n, 0.07) == 0.0005565823206054186);
        assert_true(agg_min(v, n) == 5.001250312578144e-05);
        assert_true(agg_max(v, n) == 12000.076923076924);
        assert_true(agg_std(s2, 7) == 3.8220413393892008);
        assert_true(agg_avg(s2, 7) == 2.4999999999999996);
        assert_true(agg_quantile(s2, 7, 0.1) == 0.15000000000000002);
        free(v);
}

/* agg_mq (median and quartiles from one selection) gives agg_median's and agg_quantile's
 * doubles bit for bit: sizes 1 to 60, repeated values, NaN, -0.0 beside 0.0; and so does
 * agg_mq_own, selecting in the caller's column */
static void test_agg_mq(void **state)
{
        (void)state;
        unsigned long long x = 0x9E3779B97F4A7C15ULL;
        double v[60];
        for (int k = 0; k < 20000; k++) {
                size_t n = 1 + (size_t)(k % 60);
                for (size_t i = 0; i < n; i++) {
                        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                        unsigned r = (unsigned)(x >> 33);
                        v[i] = r % 11 == 0   ? NAN
                               : r % 13 == 0 ? (r & 1 ? -0.0 : 0.0)
                               : k % 3 == 0  ? (double)(r % 5) /* many repeats */
                                             : (double)(int)(r % 100000) / 7.0 - 5000.0;
                }
                double out[3], want[3] = {agg_median(v, n), agg_quantile(v, n, 0.25),
                                          agg_quantile(v, n, 0.75)};
                double own[3], w[60];
                memcpy(w, v, n * sizeof *v);
                agg_mq_own(w, n, own);
                agg_mq(v, n, out);
                for (int j = 0; j < 3; j++) {
                        if (memcmp(&out[j], &want[j], sizeof out[j]) &&
                            !(isnan(out[j]) && isnan(want[j])))
                                fail_msg("case %d (n %zu) statistic %d: %.17g, want %.17g", k,
                                         n, j, out[j], want[j]);
                        if (memcmp(&own[j], &want[j], sizeof own[j]) &&
                            !(isnan(own[j]) && isnan(want[j])))
                                fail_msg("agg_mq_own, case %d (n %zu) statistic %d: %.17g, "
                                         "want %.17g", k, n, j, own[j], want[j]);
                }
        }
}

/* MOD(x, 1) (TO_INT_ALL's test, read without fmod) gives what MOD(x, y) gives with y a
 * column of ones (fmod and the floored sign), bit for bit: fractions of both signs, whole
 * numbers, -0.0, tiny values, values about 2^52 and 2^63, beyond, inf and NaN */
static int resolve_xy(void *ctx, const char *name, int dollar, struct err *err)
{
        (void)ctx;
        if (!dollar && !strcmp(name, "x"))
                return 0;
        if (!dollar && !strcmp(name, "y"))
                return 1;
        return err_set(err, ERR_INPUT, "unknown counter '%s'", name);
}

static void test_mod_one(void **state)
{
        (void)state;
        enum { M = 4096 };
        static double x[M], y[M];
        static const double fixed[] = {0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1e-20, -1e-20,
                                       2.5, -2.5, 4503599627370495.5, -4503599627370495.5,
                                       4503599627370496.0, -4503599627370497.0,
                                       9.2233720368547758e18, -9.2233720368547758e18, 1e300,
                                       -1e300, INFINITY, -INFINITY, NAN, 0.9999999999999999,
                                       -0.9999999999999999, 123456789.125, -7.75};
        size_t nf = sizeof fixed / sizeof fixed[0];
        unsigned long long r = 0x2545F4914F6CDD1DULL;
        for (size_t i = 0; i < M; i++) {
                r ^= r << 13, r ^= r >> 7, r ^= r << 17;
                double u = (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */
                x[i] = i < nf ? fixed[i]
                       : i % 3 ? (u - 0.5) * ldexp(1.0, (int)(r % 70) - 10)
                               : (double)(long long)((u - 0.5) * 1e6);
                y[i] = 1.0;
        }
        struct expr_slot sl[2] = {{.col = x}, {.col = y}};
        struct expr_env env = {.n = M, .slots = sl, .nslots = 2};
        struct err err = {0};
        struct expr *e1 = expr_parse("MOD(x, 1)", &loc, "m", &err);
        struct expr *e2 = expr_parse("MOD(x, y)", &loc, "m", &err);
        assert_non_null(e1);
        assert_non_null(e2);
        assert_int_equal(expr_bind(e1, resolve_xy, NULL, &err), 0);
        assert_int_equal(expr_bind(e2, resolve_xy, NULL, &err), 0);
        struct expr_val v1 = {0}, v2 = {0};
        assert_int_equal(expr_eval(e1, &env, &v1, &err), 0);
        assert_int_equal(expr_eval(e2, &env, &v2, &err), 0);
        assert_non_null(v1.col);
        assert_non_null(v2.col);
        for (size_t i = 0; i < M; i++)
                if (memcmp(&v1.col[i], &v2.col[i], sizeof v1.col[i]) &&
                    !(isnan(v1.col[i]) && isnan(v2.col[i])))
                        fail_msg("MOD(%.17g, 1): %.17g, want %.17g", x[i], v1.col[i],
                                 v2.col[i]);
        assert_true(v1.col[3] == 0.5 && v1.col[7] == 1.0 && v1.col[1] == 0 &&
                    !signbit(v1.col[1]) && isnan(v1.col[18]));
        expr_val_free(&v1);
        expr_val_free(&v2);
        expr_free(e1);
        expr_free(e2);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_values),
            cmocka_unit_test(test_parse_errors),
            cmocka_unit_test(test_error_without_file),
            cmocka_unit_test(test_deep_nesting),
            cmocka_unit_test(test_names),
            cmocka_unit_test(test_bind_error),
            cmocka_unit_test(test_unbound),
            cmocka_unit_test(test_to_string),
            cmocka_unit_test(test_has_aggregate),
            cmocka_unit_test(test_eval_agg),
            cmocka_unit_test(test_clone_and_ownership),
            cmocka_unit_test(test_agg_bits),
            cmocka_unit_test(test_agg_mq),
            cmocka_unit_test(test_mod_one),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
