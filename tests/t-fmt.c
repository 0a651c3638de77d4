/* fmt_num (short decimals and rounded 20-digit texts) against fmt_num_printf (printf and
 * strtod alone) on generated values: every kind of double, short decimals, ratios as the
 * metrics give, values next to rounding ties, binade edges, binary fractions (PRISM_FMT_N
 * sets the count); key_num and long_text against snprintf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "render/fmt.h"
#include "util/util.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t next(void)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
}

static double gen(uint64_t k)
{
        uint64_t r = next();
        double v;
        switch (k % 8) {
        case 0: /* any bits but NaN */
                memcpy(&v, &r, sizeof v);
                return isnan(v) ? 1.0 : v;
        case 1: /* a decimal of 1 to 17 digits, exponent -25..25 */
                return (double)(r % 100000000000000000ULL >> (next() % 57)) *
                       pow(10.0, (int)(next() % 51) - 25);
        case 2: /* a ratio of counters */
                return (double)(r % 1000000007) / (double)(next() % 65536 + 1) *
                       ((next() & 1) ? 100.0 : 1.0);
        case 3: /* next to a tie of some digit count: d.5 * 10^x and its neighbours */
                v = ((double)(r % 1000000) + 0.5) * pow(10.0, (int)(next() % 21) - 10);
                return nextafter(v, (next() & 1) ? INFINITY : -INFINITY);
        case 4: /* large values, 2^49 .. 2^60 and around 10^15 .. 10^17 */
                return ldexp((double)(r >> 11), (int)(next() % 12) - 4) / 512.0 +
                       (double)(next() % 3);
        case 5: /* tiny and subnormal */
                return ldexp((double)(r >> 11), -(int)(next() % 1100));
        case 6: /* binary fractions: many decimal places, exact */
                return (double)(r % 100000000) / (double)(1u << (next() % 31));
        default: /* negative short values */
                return -(double)(r % 10000000) / pow(10.0, (int)(next() % 9));
        }
}

static void test_fmt_num_is_printf(void **state)
{
        (void)state;
        const char *env = getenv("PRISM_FMT_N");
        uint64_t n = env ? strtoull(env, NULL, 10) : 200000;
        char a[40], b[40];
        static const double fixed[] = {0.0, -0.0, 1e-5, 9.99999e-6, 1e16, 9999999999999998.0,
                                       1e15, 1125899906842624.0, 0.1, 0.3, 2.5, 1e-4, 5e-324,
                                       1.7976931348623157e308, 123456.5, 0.000123456789012345};
        for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
                assert_string_equal(fmt_num(fixed[i], a), fmt_num_printf(fixed[i], b));
        for (uint64_t k = 0; k < n; k++) {
                double v = gen(k);
                if (isinf(v))
                        continue;
                fmt_num(v, a);
                fmt_num_printf(v, b);
                if (strcmp(a, b))
                        fail_msg("%.17g: fmt_num '%s', printf '%s'", v, a, b);
        }
}

/* key_num and long_text against snprintf, truncation included */
static void test_key_num(void **state)
{
        (void)state;
        const char *ss[] = {"", "2.1", "a_long_table_id_of_some_length", "16.3"};
        const long ns[] = {0, 7, -1, 42, 123456789, -2147483648L, 9223372036854775807L};
        char a[24], b[24];
        for (size_t i = 0; i < 4; i++)
                for (size_t j = 0; j < sizeof ns / sizeof *ns; j++)
                        for (size_t size = 1; size <= sizeof a; size++) {
                                key_num(a, size, ss[i], i % 2 ? '#' : '.', ns[j]);
                                snprintf(b, size, "%s%c%ld", ss[i], i % 2 ? '#' : '.', ns[j]);
                                assert_string_equal(a, b);
                        }
        for (size_t j = 0; j < sizeof ns / sizeof *ns; j++) {
                snprintf(b, sizeof b, "%ld", ns[j]);
                assert_int_equal(long_text(a, ns[j]), strlen(b));
                assert_string_equal(a, b);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_fmt_num_is_printf),
            cmocka_unit_test(test_key_num),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
