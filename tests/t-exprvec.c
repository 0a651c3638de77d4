/* expr_instance against a parse of the substituted text; expr_vec.c's two-rows-at-a-time
 * arithmetic, block sum and min/max against the same operations one row at a time, bit for
 * bit: NaN, infinities, signed zeros, subnormals, every length and stride case, in place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "expr/expr_int.h"

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static double gen(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        static const double special[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 5e-324, 1e308};
        if (rng % 11 == 0)
                return special[(rng >> 8) % 7];
        return ((double)(rng >> 11) / 9007199254740992.0 - 0.5) * pow(10.0, (int)(rng % 41) - 20);
}

static int same_bits(double a, double b)
{
        return !memcmp(&a, &b, sizeof a) || (isnan(a) && isnan(b));
}

static double one(int op, double x, double y)
{
        switch (op) {
        case EOP_ADD:
                return x + y;
        case EOP_SUB:
                return x - y;
        case EOP_MUL:
                return x * y;
        case EOP_DIV:
                return x / y;
        case EOP_EQ:
                return x == y;
        case EOP_NE:
                return x != y;
        case EOP_LT:
                return x < y;
        case EOP_LE:
                return x <= y;
        case EOP_GT:
                return x > y;
        default:
                return x >= y;
        }
}

static void test_arith(void **state)
{
        (void)state;
        double a[67], b[67], out[67], in[67];
        const int ops[] = {EOP_ADD, EOP_SUB, EOP_MUL, EOP_DIV, EOP_EQ,
                           EOP_NE,  EOP_LT,  EOP_LE,  EOP_GT,  EOP_GE};
        for (int rep = 0; rep < 200; rep++)
                for (size_t n = 0; n <= 67; n += 1 + (size_t)(rep % 5))
                        for (int k = 0; k < 10; k++)
                                for (int s = 0; s < 4; s++) {
                                        size_t sa = s & 1, sb = s >> 1;
                                        for (size_t i = 0; i < 67; i++) {
                                                a[i] = gen();
                                                b[i] = gen();
                                        }
                                        memcpy(in, a, sizeof in);
                                        /* in place when a is a column (out is a) */
                                        double *o = sa ? in : out;
                                        expr_arith(ops[k], sa ? in : a, sa, b, sb, o, n);
                                        for (size_t i = 0; i < n; i++)
                                                assert_true(same_bits(
                                                    o[i], one(ops[k], a[i * sa], b[i * sb])));
                                }
}

static void test_block_sum(void **state)
{
        (void)state;
        double v[128];
        for (int rep = 0; rep < 2000; rep++) {
                size_t n = (size_t)rep % 129;
                for (size_t i = 0; i < n; i++)
                        v[i] = gen();
                /* numpy's block: 8 accumulators, then pairs of pairs, then the rest */
                double r[8] = {0}, want = 0.0;
                size_t i = 0;
                if (n >= 8) {
                        for (size_t j = 0; j < 8; j++)
                                r[j] = isnan(v[j]) ? 0.0 : v[j];
                        for (i = 8; i < n - n % 8; i += 8)
                                for (size_t j = 0; j < 8; j++)
                                        r[j] += isnan(v[i + j]) ? 0.0 : v[i + j];
                        want = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
                }
                for (; i < n; i++)
                        want += isnan(v[i]) ? 0.0 : v[i];
                assert_true(same_bits(expr_pw_block(v, n), want));
        }
}

/* count, min and max against the running comparison, with many signed zeros and NaN */
static void test_minmax(void **state)
{
        (void)state;
        double v[40];
        static const double pick[] = {0.0, -0.0, NAN, 1.0, -1.0, INFINITY, -INFINITY};
        for (int rep = 0; rep < 20000; rep++) {
                size_t n = (size_t)rep % 41;
                for (size_t i = 0; i < n; i++)
                        v[i] = rep % 3 ? (gen(), pick[(rng >> 5) % 7]) : gen();
                double mn = INFINITY, mx = -INFINITY, a, b;
                size_t m = 0;
                for (size_t i = 0; i < n; i++) {
                        m += !isnan(v[i]);
                        mn = v[i] < mn ? v[i] : mn;
                        mx = v[i] > mx ? v[i] : mx;
                }
                assert_int_equal(expr_minmax(v, n, &a, &b), m);
                if (m) {
                        assert_true(same_bits(a, mn));
                        assert_true(same_bits(b, mx));
                }
        }
}

/* expr_instance against parsing the substituted text: the same tree, names, positions */
static void same_tree(const struct expr_node *a, const struct expr_node *b)
{
        assert_int_equal(a->kind, b->kind);
        assert_int_equal(a->op, b->op);
        assert_int_equal(a->line, b->line);
        assert_int_equal(a->col, b->col);
        assert_int_equal(a->nkids, b->nkids);
        assert_int_equal(a->height, b->height);
        assert_int_equal(a->dollar, b->dollar);
        assert_true(same_bits(a->num, b->num));
        if (a->name || b->name)
                assert_string_equal(a->name, b->name);
        for (int i = 0; i < a->nkids; i++)
                same_tree(a->kids[i], b->kids[i]);
}

static void test_instance(void **state)
{
        (void)state;
        static const char *const tmpl[] = {
            ("100 * TCC_HIT[@] / (TCC_HIT[@] + TCC_MISS[@]) if TCC_HIT[@] + TCC_MISS[@] != 0 "
             "else None"),
            "TO_INT(TCC_REQ[ @ ]) / $denom",
            "A[@] +\n  B[@] * C[@]\n  - MAX(D[@], 2)",
            "SQ_WAVES / $denom",
        };
        const long idx[] = {0, 7, 10, 99, 123456};
        struct expr_loc loc = {"metrics/x.yaml", 41, 9};
        for (size_t t = 0; t < sizeof tmpl / sizeof *tmpl; t++) {
                struct err err = {0};
                struct expr *te = expr_parse(tmpl[t], &loc, "m", &err);
                assert_non_null(te);
                for (size_t k = 0; k < sizeof idx / sizeof *idx; k++) {
                        char num[24], text[512], *o = text;
                        long_text(num, idx[k]);
                        for (const char *c = tmpl[t]; *c; c++)
                                o = *c == '@' ? stpcpy(o, num) : (*o = *c, o + 1);
                        *o = 0;
                        struct expr *want = expr_parse(text, &loc, "m", &err);
                        struct expr *got = expr_instance(te, tmpl[t], &loc, idx[k]);
                        assert_non_null(want);
                        same_tree(got->root, want->root);
                        assert_string_equal(got->file, want->file);
                        assert_string_equal(got->what, want->what);
                        expr_free(want);
                        expr_free(got);
                }
                expr_free(te);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_arith),
            cmocka_unit_test(test_block_sum),
            cmocka_unit_test(test_minmax),
            cmocka_unit_test(test_instance),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
