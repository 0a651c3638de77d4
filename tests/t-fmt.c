/* fmt_num (short decimals, exact integer digits, rounded 20-digit texts) against
 * fmt_num_printf (printf and strtod alone) on generated values: every kind of double, short
 * decimals, ratios as the metrics give, values next to rounding ties, binade edges, binary
 * fractions, 53-bit odd significands a few bits below the point (exact ties at 17 digits)
 * (PRISM_FMT_N sets the count); fmt_fixed against snprintf's "%.*f" on the same values and
 * chosen edges; key_num and long_text against snprintf; parse_double against strtod. */
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
        switch (k % 9) {
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
        case 8: /* odd 53-bit significands over 2^1..2^12: exact decimals of 17+ digits
                 * ending in 5 (M / 4: an exact tie at 17 digits, half to even decides) */
                v = ldexp((double)((r >> 11) | 1 | (UINT64_C(1) << 52)), -(int)(next() % 12 + 1));
                return (next() & 1) ? -v : v;
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
                                       1.7976931348623157e308, 123456.5, 0.000123456789012345,
                                       /* exact ties at 17 digits (half to even: ...02, ...08) */
                                       1000000000000000.25, 2000000000000000.75,
                                       1125899906842623.75, -1000000000000000.25,
                                       /* powers of ten and their neighbours, edges of reach */
                                       1e-11, 9.9999999999999994e-12, 1e-12, 1e17, 1e18, 1e19,
                                       1e20, 1e22, 1e23, 18446744073709551616.0, 1.8446744073709552e19,
                                       3.4028236692093846e38, 3.402823669209385e38, 1e38, 1e39,
                                       /* whole numbers with no places (x >= p - 1) */
                                       9007199254740992.0, 9007199254740994.0, 9007199254740996.0,
                                       9007199254740990.0, 4503599627370497.0, 2e15, 1234567e9,
                                       /* subnormals, the largest, smallest normal */
                                       2.2250738585072014e-308, 2.2250738585072009e-308, 4e-320,
                                       8.98846567431158e307, 0.5, 0.25, 0.125, 1.0 / 3, 2.0 / 3,
                                       5e-5, 4.9999999999999996e-5, 1e-5 * 3, 123456789012345680.0};
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

/* fmt_fixed against snprintf's "%.*f": generated values and places 0..19, ties of every
 * kind (exact binary halves round to even, decimal "halves" that are not exact), signs of
 * zero, values out of reach (then it is snprintf itself) */
static void test_fmt_fixed(void **state)
{
        (void)state;
        const char *env = getenv("PRISM_FMT_N");
        uint64_t n = env ? strtoull(env, NULL, 10) / 4 : 50000;
        char a[48], b[48];
        static const double fixed[] = {0.0,   -0.0,   0.5,    1.5,    2.5,   -2.5,  0.125, 0.375,
                                       1.005, 2.675,  -0.001, -0.004, 1e-30, -1e-30, 0.05, 0.25,
                                       1e19,  1.8446744073709552e19, 1.8446744073709550e19,
                                       1e20, 1e300, 5e-324, 9.5, 10.5, 99.995, 999999.5,
                                       4503599627370495.5, 4503599627370496.5, 0.045, 1234.5678,
                                       INFINITY, -INFINITY, NAN};
        for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
                for (int nd = 0; nd <= 20; nd++) {
                        snprintf(b, sizeof b, "%.*f", nd, fixed[i]);
                        if (strcmp(fmt_fixed(fixed[i], nd, a, sizeof a), b))
                                fail_msg("%.17g %%.%df: fmt_fixed '%s', printf '%s'", fixed[i],
                                         nd, a, b);
                }
        rng = 0x2545F4914F6CDD1DULL;
        for (uint64_t k = 0; k < n; k++) {
                double v = gen(k);
                if (k % 3 == 0) /* a decimal of two places, at or next to a half of the last */
                        v = ((double)(next() % 2000000) + 0.5) / 100.0 * ((k & 8) ? -1 : 1);
                for (int j = 0; j < 4; j++) {
                        int nd = j == 3 ? (int)(next() % 20) : j * 2;
                        snprintf(b, sizeof b, "%.*f", nd, v);
                        if (strlen(b) >= sizeof a)
                                continue;
                        if (strcmp(fmt_fixed(v, nd, a, sizeof a), b))
                                fail_msg("%.17g %%.%df: fmt_fixed '%s', printf '%s'", v, nd, a,
                                         b);
                }
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

/* parse_double's answer as strtod alone gives it: blanks before, blanks and line ends after,
 * nothing else */
static int strtod_whole(const char *s, double *out)
{
        while (*s == ' ' || *s == '\t')
                s++;
        char *end;
        double v = strtod(s, &end);
        if (!*s || end == s)
                return -1;
        while (*end && strchr(" \t\r\n", *end))
                end++;
        if (*end)
                return -1;
        *out = v;
        return 0;
}

static void check_parse(const char *s)
{
        double a = 0, b = 0;
        int ra = parse_double(s, &a), rb = strtod_whole(s, &b);
        if (ra != rb || (!ra && memcmp(&a, &b, sizeof a) && !(isnan(a) && isnan(b))))
                fail_msg("parse_double('%s') = %d, %.17g; strtod: %d, %.17g", s, ra, a, rb, b);
}

/* parse_double (num_fast for plain decimals, strtod for the rest) bit for bit against
 * strtod, on generated values in several spellings and on texts only strtod reads */
static void test_parse_double(void **state)
{
        (void)state;
        static const char *const fmts[] = {"%.17g", "%g", "%.3f", " %.6e\t", "%.0f\r\n", "+%.9g "};
        char buf[512];
        for (uint64_t k = 0; k < 20000; k++) {
                double v = gen(k);
                snprintf(buf, sizeof buf, fmts[k % 6], v);
                check_parse(buf);
        }
        static const char *const odd[] = {
            "", " ", "\t", "1", "-0", "+0.0", "0.1", ".5", "5.", "1e22", "1e23", "1e-22",
            "9007199254740993", "12345678901234567890", "0x1p3", "inf", "-nan", "1e", "1e+",
            "1 2", "1.5x", "--1", "1e400", "4.9e-324", " 7 \n", "7\n ", "\n7", "1.2.3"};
        for (size_t i = 0; i < sizeof odd / sizeof *odd; i++)
                check_parse(odd[i]);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_fmt_num_is_printf),
            cmocka_unit_test(test_fmt_fixed),
            cmocka_unit_test(test_key_num),
            cmocka_unit_test(test_parse_double),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
