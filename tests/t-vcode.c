/* Blocks of doubles coded in few bytes (store/vcode.c) and the evaluator's kept values
 * (analyze/accvals.c): every block read back is the doubles fed in, bit for bit (NaN
 * payloads, -0.0, inf, fractions, 2^32 - 1 and 2^32, 2^53 + 1), coded as the narrowest
 * kind that holds it (one value; 1, 2, 4 bytes; doubles); and accvals gives the same values
 * in memory and in a temporary file, with chunks of any size (a block larger than the file's
 * write buffer, chunks of one row, the vector tail), accumulators fed out of order, and
 * -1 for a chunk never fed. */
/* cmocka needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/accvals.h"
#include "store/vcode.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next(void)
{
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        return rng;
}

static double from_bits(uint64_t b)
{
        double x;
        memcpy(&x, &b, sizeof x);
        return x;
}

/* odd values: none of them a whole number 0 .. 2^32 - 1 but 4294967295 and 255 */
static double odd(void)
{
        static const double o[] = {0.5, -0.0, -1.0, 4294967296.0, 4294967295.0, INFINITY,
                                   -INFINITY, 9007199254740993.0, 1e-300, 255.0, 65536.0,
                                   4294967295.5, -4503599627370496.0, 1e300};
        uint64_t r = next();
        if (r % 5 == 0) /* a NaN with a payload of its own */
                return from_bits(0x7FF0000000000001ULL | (r >> 20));
        return o[(r >> 8) % (sizeof o / sizeof *o)];
}

/* block j of a test: n values, mostly of one class (whole numbers below 2^8, 2^16, 2^32,
 * fractions, one value), some with an odd value put in */
static void fill(double *v, size_t n, int cls)
{
        static const uint64_t lim[] = {256, 65536, 4294967296ULL};
        double one = (next() & 1) ? -0.0 : (double)(next() % 1000) / 8;
        for (size_t i = 0; i < n; i++) {
                uint64_t r = next();
                v[i] = cls < 3 ? (double)((r >> 11) % lim[cls])
                       : cls == 3 ? (double)(r >> 11) / 1024.0
                                  : one;
        }
        if (n && next() % 3 == 0)
                v[next() % n] = odd();
}

static int same_bits(const double *a, const double *b, size_t n)
{
        return !memcmp(a, b, n * sizeof *a);
}

static void test_roundtrip(void **state)
{
        (void)state;
        struct vcoder c = {0};
        enum { N = 5000 };
        double *v = malloc(N * sizeof *v), *back = malloc(N * sizeof *back);
        unsigned char *d = malloc(N * 8);
        int seen[5] = {0};
        for (int k = 0; k < 20000; k++) {
                size_t n = k % 4 == 0 ? (size_t)(next() % N) : 1 + (size_t)(next() % 70);
                int cls = (int)(next() % 5);
                fill(v, n, cls);
                uint64_t one = 0;
                enum vcode_kind kd = vcode_kind(&c, v, n, 1, &one);
                seen[kd]++;
                /* the narrowest kind: what the values are decides it */
                uint64_t b0;
                int all_one = n > 0, whole = 1;
                uint32_t bits = 0;
                for (size_t i = 0; i < n; i++) {
                        uint64_t b;
                        memcpy(&b, &v[i], sizeof b);
                        if (i == 0)
                                b0 = b;
                        all_one = all_one && b == b0;
                        double x = v[i];
                        if (x >= 0 && x <= 4294967295.0 && x == (double)(uint32_t)x &&
                            !signbit(x))
                                bits |= (uint32_t)x;
                        else
                                whole = 0;
                }
                enum vcode_kind want = all_one ? VC_ONE
                                       : !whole ? VC_F64
                                       : bits < 256 ? VC_U8
                                       : bits < 65536 ? VC_U16
                                                      : VC_U32;
                assert_int_equal(kd, want);
                size_t bytes = vcode_bytes(kd, n);
                assert_true(bytes <= n * 8);
                memset(d, 0xA5, bytes);
                vcode_put(&c, kd, v, n, d);
                for (size_t i = 0; i < n; i++)
                        back[i] = 12345.0;
                vcode_get(kd, d, one, back, n);
                assert_true(same_bits(v, back, n));
                /* not narrowed: one value or doubles, the same back */
                kd = vcode_kind(&c, v, n, 0, &one);
                assert_true(kd == VC_ONE || kd == VC_F64);
                vcode_put(&c, kd, v, n, d);
                vcode_get(kd, d, one, back, n);
                assert_true(same_bits(v, back, n));
        }
        for (int k = 0; k < 5; k++)
                assert_true(seen[k] > 100);
        vcoder_free(&c);
        free(v);
        free(back);
        free(d);
}

/* nacc accumulators over chunks of the given rows, fed in passes (the odd accumulators
 * first, then the even ones, as an evaluation's passes do), read back in memory and in a
 * file: each the values fed, bit for bit */
static void accvals_case(const size_t *rows, size_t nchunk, size_t nacc)
{
        size_t total = 0;
        for (size_t k = 0; k < nchunk; k++)
                total += rows[k];
        double *want = malloc((nacc * total + 1) * sizeof *want);
        for (size_t a = 0; a < nacc; a++) {
                size_t at = 0;
                for (size_t k = 0; k < nchunk; k++) {
                        fill(want + a * total + at, rows[k], (int)((a + k) % 5));
                        at += rows[k];
                }
        }
        double *got = malloc((total + 1) * sizeof *got);
        for (int file = 0; file < 2; file++) {
                struct accvals s;
                /* the budget: every value as a double, or one byte short of it */
                accvals_init(&s, nacc, nchunk, rows, nacc * total * 8 - (size_t)file);
                assert_int_equal(s.in_mem, !file);
                for (int odd_first = 1; odd_first >= 0; odd_first--) {
                        size_t at = 0;
                        for (size_t k = 0; k < nchunk; k++) {
                                for (size_t a = 0; a < nacc; a++)
                                        if ((int)(a % 2) == odd_first)
                                                accvals_put(&s, k, a, want + a * total + at);
                                at += rows[k];
                        }
                }
                for (size_t a = 0; a < nacc; a++) {
                        assert_int_equal(accvals_get(&s, a, got), 0);
                        assert_true(same_bits(got, want + a * total, total));
                }
                /* a file only where a block is more than one value */
                assert_true(file ? (s.file.f != NULL) == (s.file.end + (long long)s.file.len > 0)
                                 : s.file.f == NULL);
                if (file && rows[0] > 1)
                        assert_non_null(s.file.f);
                accvals_free(&s);
        }
        free(want);
        free(got);
}

static void test_accvals(void **state)
{
        (void)state;
        static const size_t few[] = {4096, 4096, 1000};
        accvals_case(few, 3, 7);
        static const size_t ones[] = {1, 1, 1, 1, 1, 1, 1};
        accvals_case(ones, 7, 5);
        static const size_t odd_sizes[] = {777, 3, 1, 70, 4095};
        accvals_case(odd_sizes, 5, 9);
        /* blocks larger than the file's write buffer (256 KiB: 32768 doubles) */
        static const size_t big[] = {40000, 100, 70000};
        accvals_case(big, 3, 4);
}

/* a chunk never fed: -1, not the values of another */
static void test_unfed(void **state)
{
        (void)state;
        static const size_t rows[] = {10, 10};
        double v[20], got[20];
        for (int i = 0; i < 20; i++)
                v[i] = i + 0.25;
        for (int file = 0; file < 2; file++) {
                struct accvals s;
                accvals_init(&s, 2, 2, rows, file ? 0 : 1 << 20);
                accvals_put(&s, 0, 0, v);
                accvals_put(&s, 1, 0, v + 10);
                accvals_put(&s, 0, 1, v);
                assert_int_equal(accvals_get(&s, 0, got), 0);
                assert_true(same_bits(got, v, 20));
                assert_int_equal(accvals_get(&s, 1, got), -1);
                accvals_free(&s);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_roundtrip),
            cmocka_unit_test(test_accvals),
            cmocka_unit_test(test_unfed),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
