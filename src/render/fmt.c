/* Numbers as text, the way the reference prints them. */
#include "fmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

/* The common case without printf: v is a decimal of at most 15 places (counts, values
 * rounded for display) in 1e-4 <= |v| < 2^50. The fewest places d for which
 * k = round(v * 10^d) gives k / 10^d == v (one correctly rounded division, so the text
 * k·10^-d reads back as v, and no shorter text does) are the places repr shows. The
 * bound |v| * 10^d < 2^50 keeps k exact and its neighbours k±1 far from v (more than
 * an ulp), so the text is the nearest one too. 0 when v is not such a value. */
static int fmt_short_decimal(double v, char *buf)
{
        static const double p10[] = {1,    1e1,  1e2,  1e3,  1e4,  1e5,  1e6, 1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
        double a = fabs(v);
        if (v == 0) {
                strcpy(buf, signbit(v) ? "-0.0" : "0.0");
                return 1;
        }
        if (!(a >= 1e-4) || a >= 1125899906842624.0) /* 2^50 */
                return 0;
        for (int d = 0; d <= 15; d++) {
                double x = a * p10[d];
                if (x >= 1125899906842624.0)
                        return 0;
                /* nearbyint: below 2^52, adding 2^52 rounds to a whole number, to even */
                double k = (x + 4503599627370496.0) - 4503599627370496.0;
                if (k / p10[d] != a)
                        continue;
                unsigned long long n = (unsigned long long)k;
                unsigned long long ip = n / (unsigned long long)p10[d];
                unsigned long long fp = n % (unsigned long long)p10[d];
                char tmp[32];
                int len = 0;
                do
                        tmp[len++] = (char)('0' + ip % 10);
                while ((ip /= 10));
                char *o = buf;
                if (v < 0)
                        *o++ = '-';
                while (len)
                        *o++ = tmp[--len];
                *o++ = '.';
                if (d == 0) {
                        *o++ = '0';
                } else {
                        for (int i = d - 1; i >= 0; i--, fp /= 10)
                                o[i] = (char)('0' + fp % 10);
                        o += d;
                }
                *o = 0;
                return 1;
        }
        return 0;
}

/* repr by printf and strtod: the fewest significant digits that read back as v, laid out
 * as Python's repr (fixed notation for exponents -5..15, else scientific) */
const char *fmt_num_printf(double v, char *buf)
{
        char e[40];
        int p = 15;
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        if (strtod(e, NULL) == v) {
                /* short enough: find the shortest; a text of p digits that reads back
                 * as v means p + 1 digits do too, so a binary search finds it */
                int lo = 1, hi = 15;
                while (lo < hi) {
                        int mid = (lo + hi) / 2;
                        snprintf(e, sizeof e, "%.*e", mid - 1, v);
                        if (strtod(e, NULL) == v)
                                hi = mid;
                        else
                                lo = mid + 1;
                }
                p = lo;
        } else {
                snprintf(e, sizeof e, "%.15e", v);
                p = strtod(e, NULL) == v ? 16 : 17;
        }
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        int exp10 = atoi(strchr(e, 'e') + 1);
        if (exp10 >= -5 && exp10 < 16) {
                int dec = p - 1 - exp10;
                snprintf(buf, 40, "%.*f", dec > 0 ? dec : 0, v);
                if (!strchr(buf, '.'))
                        strcat(buf, ".0");
        } else {
                strcpy(buf, e);
        }
        return buf;
}

/* v's first p (at most 17) significant digits, correctly rounded, from its first ND
 * (dn, exponent xn): into out, with their exponent in *x. The ND digits are v rounded once,
 * so rounding them again is v's rounding unless what is cut is exactly 5000...: then -1
 * (a possible tie, printf's to decide). */
enum { ND = 20 };
static int round_to(const char *dn, int xn, int p, char *out, int *x)
{
        memcpy(out, dn, (size_t)p);
        *x = xn;
        int up = dn[p] > '5';
        if (dn[p] == '5') {
                for (int i = p + 1; i < ND && !up; i++)
                        up = dn[i] != '0';
                if (!up)
                        return -1;
        }
        if (!up)
                return 0;
        int i = p - 1;
        while (i >= 0 && out[i] == '9')
                out[i--] = '0';
        if (i >= 0) {
                out[i]++;
        } else { /* 99.9 -> 100 */
                out[0] = '1';
                (*x)++;
        }
        return 0;
}

/* an exponent: a sign when negative (or always, with at least mindig digits: printf's
 * "e+05"), then its digits; returns the length */
static int put_exp(char *o, int x, int mindig)
{
        char d[8];
        int n = 0, k = 0;
        unsigned u = x < 0 ? (unsigned)-x : (unsigned)x;
        if (x < 0 || mindig > 1)
                o[n++] = x < 0 ? '-' : '+';
        do
                d[k++] = (char)('0' + u % 10);
        while ((u /= 10));
        while (k < mindig)
                d[k++] = '0';
        while (k)
                o[n++] = d[--k];
        return n;
}

/* 1 when the p digits dig (exponent x: d.ddd * 10^x) read back as v */
static int reads_back(const char *dig, int p, int x, double v)
{
        char t[48];
        double r;
        int n = 0;
        if (v < 0)
                t[n++] = '-';
        memcpy(t + n, dig, (size_t)p);
        n += p;
        t[n++] = 'e';
        n += put_exp(t + n, x - (p - 1), 1);
        t[n] = 0;
        if (!num_fast(t, (size_t)n, &r))
                r = strtod(t, NULL);
        return r == v;
}

/* p significant digits dig (exponent x: d.ddd * 10^x) that read back as v, laid out as
 * repr does: fixed notation for -5 <= x < 16, else scientific. A text with no places
 * (x >= p - 1) is a whole number that reads back as v, so v is that number (below 2^53 it
 * is a double; above, doubles are even and so is it: both within 1 of each other) and
 * printf's "%.0f" of v shows the digits and x - p + 1 zeros. */
static int layout(double v, const char *dig, int p, int x, char *buf)
{
        char *o = buf;
        if (v < 0)
                *o++ = '-';
        if (x >= -5 && x < 16) {
                int dec = p - 1 - x;
                if (x < 0) {
                        *o++ = '0';
                        *o++ = '.';
                        for (int i = 0; i < -x - 1; i++)
                                *o++ = '0';
                        memcpy(o, dig, (size_t)p);
                        o += p;
                } else if (dec <= 0) {
                        memcpy(o, dig, (size_t)p);
                        o += p;
                        for (int i = 0; i < -dec; i++)
                                *o++ = '0';
                        *o++ = '.';
                        *o++ = '0';
                } else {
                        memcpy(o, dig, (size_t)x + 1);
                        o += x + 1;
                        *o++ = '.';
                        memcpy(o, dig + x + 1, (size_t)dec);
                        o += dec;
                }
                *o = 0;
        } else {
                *o++ = dig[0];
                if (p > 1) {
                        *o++ = '.';
                        memcpy(o, dig + 1, (size_t)p - 1);
                        o += p - 1;
                }
                *o++ = 'e';
                o[put_exp(o, x, 2)] = 0;
        }
        return 1;
}

/* fmt_num_printf's text from v's first ND significant digits (one printf): the same digit
 * counts tried in the same order, each by rounding those digits; 0 when a possible tie
 * leaves it to fmt_num_printf */
static int fmt_digits(double v, char *buf)
{
        char e[40], dn[ND], dig[17];
        snprintf(e, sizeof e, "%.*e", ND - 1, v);
        const char *s = e + (v < 0);
        dn[0] = s[0];
        memcpy(dn + 1, s + 2, ND - 1);
        int xn = atoi(s + ND + 2), x, p;
        if (round_to(dn, xn, 15, dig, &x))
                return 0;
        if (reads_back(dig, 15, x, v)) {
                int lo = 1, hi = 15;
                while (lo < hi) {
                        int mid = (lo + hi) / 2;
                        if (round_to(dn, xn, mid, dig, &x))
                                return 0;
                        if (reads_back(dig, mid, x, v))
                                hi = mid;
                        else
                                lo = mid + 1;
                }
                p = lo;
        } else {
                if (round_to(dn, xn, 16, dig, &x))
                        return 0;
                p = reads_back(dig, 16, x, v) ? 16 : 17;
        }
        if (round_to(dn, xn, p, dig, &x))
                return 0;
        return layout(v, dig, p, x, buf);
}

/* Exact decimal digits without printf. A finite double is m * 2^e (m < 2^53); so
 * |v| * 10^s = m * 5^s * 2^(e+s) for s >= 0, which for s <= 27 is a product below 2^116
 * shifted, and (m * 2^e) / 10^-s for s < 0: in both, the whole part and what is cut are
 * exact in 128-bit integers, and rounding them is printf's rounding of the exact value
 * (half to even only on exact ties). */
typedef unsigned __int128 u128;

static const uint64_t pow5[28] = {1ULL,
                                  5ULL,
                                  25ULL,
                                  125ULL,
                                  625ULL,
                                  3125ULL,
                                  15625ULL,
                                  78125ULL,
                                  390625ULL,
                                  1953125ULL,
                                  9765625ULL,
                                  48828125ULL,
                                  244140625ULL,
                                  1220703125ULL,
                                  6103515625ULL,
                                  30517578125ULL,
                                  152587890625ULL,
                                  762939453125ULL,
                                  3814697265625ULL,
                                  19073486328125ULL,
                                  95367431640625ULL,
                                  476837158203125ULL,
                                  2384185791015625ULL,
                                  11920928955078125ULL,
                                  59604644775390625ULL,
                                  298023223876953125ULL,
                                  1490116119384765625ULL,
                                  7450580596923828125ULL};

static const uint64_t pow10u[20] = {1ULL,
                                    10ULL,
                                    100ULL,
                                    1000ULL,
                                    10000ULL,
                                    100000ULL,
                                    1000000ULL,
                                    10000000ULL,
                                    100000000ULL,
                                    1000000000ULL,
                                    10000000000ULL,
                                    100000000000ULL,
                                    1000000000000ULL,
                                    10000000000000ULL,
                                    100000000000000ULL,
                                    1000000000000000ULL,
                                    10000000000000000ULL,
                                    100000000000000000ULL,
                                    1000000000000000000ULL,
                                    10000000000000000000ULL};

/* what is cut from a whole part: nothing, less than a half, exactly a half, more */
enum { CUT_NONE, CUT_LOW, CUT_HALF, CUT_HIGH };

static int cut_class(u128 r, u128 half)
{
        return !r ? CUT_NONE : r < half ? CUT_LOW : r == half ? CUT_HALF : CUT_HIGH;
}

/* a (finite, >= 0) times 10^s: the whole part into *q, what is cut into *cut; 0 when the
 * whole part is 2^64 or more or s is out of reach (-38 <= s <= 27) */
static int scaled(double a, int s, uint64_t *q, int *cut)
{
        uint64_t bits;
        memcpy(&bits, &a, sizeof bits);
        int be = (int)(bits >> 52 & 0x7FF);
        uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
        if (be == 0x7FF || s > 27 || s < -38)
                return 0;
        if (be)
                m |= UINT64_C(1) << 52;
        else
                be = 1; /* subnormal */
        int e = be - 1075;
        if (!m) {
                *q = 0;
                *cut = CUT_NONE;
                return 1;
        }
        if (s >= 0) {
                u128 n = (u128)m * pow5[s];
                int t = e + s;
                if (t >= 0) {
                        if (t >= 64 || n >> (64 - t))
                                return 0;
                        *q = (uint64_t)(n << t);
                        *cut = CUT_NONE;
                } else if (-t >= 128) { /* n < 2^116: below half of one */
                        *q = 0;
                        *cut = CUT_LOW;
                } else {
                        u128 w = n >> -t;
                        if (w >> 64)
                                return 0;
                        *q = (uint64_t)w;
                        *cut = cut_class(n & (((u128)1 << -t) - 1), (u128)1 << (-t - 1));
                }
                return 1;
        }
        if (e < 0 || e > 74) /* m * 2^e whole and below 2^127 */
                return 0;
        u128 n = (u128)m << e;
        u128 d = -s <= 19 ? pow10u[-s] : (u128)pow10u[19] * pow10u[-s - 19];
        u128 w = n / d;
        if (w >> 64)
                return 0;
        *q = (uint64_t)w;
        *cut = cut_class((n % d) * 2, d); /* 2r against d: r against d / 2 */
        return 1;
}

/* the number of decimal digits of q (q > 0) */
static int ndigits(uint64_t q)
{
        int n = 1;
        while (n < 20 && q >= pow10u[n])
                n++;
        return n;
}

/* q (whole part of |v| * 10^s, n digits, cut: what is below it) rounded to p <= n
 * significant digits: the digits as an integer, their exponent in *x */
static uint64_t round_digits(uint64_t q, int n, int cut, int s, int p, int *x)
{
        int k = n - p;
        uint64_t d = q / pow10u[k], r = q % pow10u[k];
        int up;
        if (!k)
                up = cut == CUT_HIGH || (cut == CUT_HALF && (d & 1));
        else {
                uint64_t half = pow10u[k] / 2;
                up = r > half || (r == half && (cut != CUT_NONE || (d & 1)));
        }
        *x = n - 1 - s;
        if (up && ++d == pow10u[p]) { /* 99.9 -> 100 */
                d = pow10u[p - 1];
                (*x)++;
        }
        return d;
}

/* 1 when d * 10^k (p digits) reads back as a: by one exact operation where d and 10^k are
 * doubles (the result is then the correctly rounded value, as strtod's), else by strtod */
static int digits_read_back(uint64_t d, int p, int x, double a)
{
        static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
        int k = x - (p - 1);
        if (d <= (UINT64_C(1) << 53) && k >= -22 && k <= 22)
                return (k >= 0 ? (double)d * p10[k] : (double)d / p10[-k]) == a;
        char dig[20];
        for (int i = p - 1; i >= 0; i--, d /= 10)
                dig[i] = (char)('0' + d % 10);
        return reads_back(dig, p, x, a);
}

/* fmt_num_printf's text by exact integer arithmetic: the same digit counts tried in the
 * same order; 0 when |v| is out of reach (below 1e-11 or 2^64 and above) */
static int fmt_exact(double v, char *buf)
{
        double a = fabs(v);
        uint64_t bits;
        memcpy(&bits, &a, sizeof bits);
        int b2 = (int)(bits >> 52) - 1023; /* 2^b2 <= a < 2^(b2+1) for a normal a */
        if (b2 < -37 || b2 > 63)
                return 0;
        /* L <= log10(a): floor(b2 * log10(2)); s makes the whole part 17 or 18 digits */
        int L = b2 >= 0 ? (b2 * 78913) >> 18 : -((-b2 * 78913 + (1 << 18) - 1) >> 18);
        int s = 16 - L, cut, n, x, p;
        uint64_t q, d;
        if (!scaled(a, s, &q, &cut) || !q || (n = ndigits(q)) < 17)
                return 0;
        d = round_digits(q, n, cut, s, 15, &x);
        if (digits_read_back(d, 15, x, a)) {
                /* 15 digits ending in zeros: m significant. For m <= p < 15, a rounded to p
                 * digits is the same number (what is cut is less than half of the 15th
                 * digit), so it reads back too: only fewer digits need trying */
                int lo = 1, hi = 15, m = 15;
                for (; m > 1 && d % 10 == 0; m--)
                        d /= 10;
                while (lo < hi) {
                        int mid = (lo + hi) / 2;
                        if (mid >= m) {
                                hi = mid;
                                continue;
                        }
                        d = round_digits(q, n, cut, s, mid, &x);
                        if (digits_read_back(d, mid, x, a))
                                hi = mid;
                        else
                                lo = mid + 1;
                }
                p = lo;
        } else {
                d = round_digits(q, n, cut, s, 16, &x);
                p = digits_read_back(d, 16, x, a) ? 16 : 17;
        }
        d = round_digits(q, n, cut, s, p, &x);
        char dig[20];
        for (int i = p - 1; i >= 0; i--, d /= 10)
                dig[i] = (char)('0' + d % 10);
        return layout(v, dig, p, x, buf);
}

/* snprintf's "%.*f" (nd places) where the exact arithmetic reaches, else snprintf itself */
const char *fmt_fixed(double v, int nd, char *buf, size_t len)
{
        uint64_t q;
        int cut;
        char t[48], *o = t + sizeof t;
        if (nd < 0 || nd > 19 || len < sizeof t || !scaled(fabs(v), nd, &q, &cut) ||
            ((cut == CUT_HIGH || (cut == CUT_HALF && (q & 1))) && ++q == 0)) {
                snprintf(buf, len, "%.*f", nd, v);
                return buf;
        }
        *--o = 0;
        for (int i = 0; i < nd; i++, q /= 10)
                *--o = (char)('0' + q % 10);
        if (nd)
                *--o = '.';
        do
                *--o = (char)('0' + q % 10);
        while ((q /= 10));
        if (signbit(v))
                *--o = '-';
        memcpy(buf, o, (size_t)(t + sizeof t - o));
        return buf;
}

const char *fmt_num(double v, char *buf)
{
        if (isnan(v)) {
                buf[0] = 0;
                return buf;
        }
        if (isinf(v)) {
                strcpy(buf, v > 0 ? "inf" : "-inf");
                return buf;
        }
        if (fmt_short_decimal(v, buf) || fmt_exact(v, buf) || fmt_digits(v, buf))
                return buf;
        return fmt_num_printf(v, buf);
}
