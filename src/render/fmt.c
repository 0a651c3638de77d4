/* Numbers as text, the way the reference prints them. */
#include "fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The common case without printf: v is a decimal of at most 9 places (counts, values
 * rounded for display) in 1e-4 <= |v| < 2^50. The fewest places d for which
 * k = round(v * 10^d) gives k / 10^d == v (one correctly rounded division, so the text
 * k·10^-d reads back as v, and no shorter text does) are the places repr shows. The
 * bound |v| * 10^d < 2^50 keeps k exact and its neighbours k±1 far from v (more than
 * an ulp), so the text is the nearest one too. 0 when v is not such a value. */
static int fmt_short_decimal(double v, char *buf)
{
        static const double p10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
        double a = fabs(v);
        if (v == 0) {
                strcpy(buf, signbit(v) ? "-0.0" : "0.0");
                return 1;
        }
        if (!(a >= 1e-4) || a >= 1125899906842624.0) /* 2^50 */
                return 0;
        for (int d = 0; d <= 9; d++) {
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
        if (fmt_short_decimal(v, buf))
                return buf;
        /* the fewest significant digits that read back as v, laid out as Python's repr:
         * fixed notation for exponents -4..15, else scientific */
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

