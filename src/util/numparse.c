/* Decimal numbers without strtod where the result is certain to be strtod's: a decimal
 * mantissa of at most 19 significant digits that is at most 2^53 is a double exactly, and
 * so is 10^k for k <= 22; one IEEE multiplication or division of two exact values is
 * correctly rounded, which is what strtod returns (Clinger's fast path). Everything else
 * (more digits, larger exponents, hexadecimal, "nan", "inf", blanks) is left to strtod. */
#include "util.h"

#include <stdint.h>

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

int num_fast(const char *s, size_t len, double *out)
{
        const char *p = s, *e = s + len;
        int neg = 0, dexp = 0;
        uint64_t m = 0;
        if (len == 0 || len > 32)
                return 0;
        if (*p == '-' || *p == '+')
                neg = *p++ == '-';
        /* at most 19 digits in all (leading zeros too): m is then exact */
        const char *d0 = p;
        while (p < e && (unsigned)(*p - '0') < 10)
                m = m * 10 + (uint64_t)(*p++ - '0');
        size_t nd = (size_t)(p - d0);
        if (p < e && *p == '.') {
                const char *f0 = ++p;
                while (p < e && (unsigned)(*p - '0') < 10)
                        m = m * 10 + (uint64_t)(*p++ - '0');
                dexp = -(int)(p - f0);
                nd += (size_t)(p - f0);
        }
        if (nd == 0 || nd > 19)
                return 0;
        if (p < e && (*p == 'e' || *p == 'E')) {
                int eneg = 0, x = 0;
                p++;
                if (p < e && (*p == '-' || *p == '+'))
                        eneg = *p++ == '-';
                if (p == e || (unsigned)(*p - '0') >= 10)
                        return 0; /* "1e": strtod stops before the e */
                for (; p < e && (unsigned)(*p - '0') < 10; p++)
                        if (x < 100000)
                                x = x * 10 + (*p - '0');
                dexp += eneg ? -x : x;
        }
        if (p != e)
                return 0;
        if (m == 0) {
                *out = neg ? -0.0 : 0.0;
                return 1;
        }
        if (m > (UINT64_C(1) << 53) || dexp > 22 || dexp < -22)
                return 0;
        double v = (double)m;
        if (dexp > 0)
                v *= pow10_exact[dexp];
        else if (dexp < 0)
                v /= pow10_exact[-dexp];
        *out = neg ? -v : v;
        return 1;
}
