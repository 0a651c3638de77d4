/* Numbers as text, the way the reference prints them. */
#include "fmt.h"

#include <math.h>
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
                double k = nearbyint(x);
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

/* fmt_num_printf's text from v's first ND significant digits (one printf): the same digit
 * counts tried in the same order, each by rounding those digits; 0 when a possible tie or
 * an integer layout leaves it to fmt_num_printf */
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
        char *o = buf;
        if (v < 0)
                *o++ = '-';
        if (x >= -5 && x < 16) {
                int dec = p - 1 - x;
                if (dec <= 0)
                        return 0;
                if (x < 0) {
                        *o++ = '0';
                        *o++ = '.';
                        for (int i = 0; i < -x - 1; i++)
                                *o++ = '0';
                        memcpy(o, dig, (size_t)p);
                        o += p;
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
        if (fmt_short_decimal(v, buf) || fmt_digits(v, buf))
                return buf;
        return fmt_num_printf(v, buf);
}
