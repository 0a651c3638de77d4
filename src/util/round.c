/* Rounding to decimals (round.h). */
#include "round.h"

#include <math.h>

double round_half_even(double x, int nd)
{
        static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
        if (!isfinite(x))
                return x;
        /* pow(10, nd) is exact up to 10^22: the same double as the table's */
        double s = nd >= 0 && nd <= 22 ? p10[nd] : pow(10.0, nd), y = x * s, a = fabs(y);
        if (a < 4503599627370496.0) /* 2^52: adding it rounds to a whole number, to even */
                return copysign((a + 4503599627370496.0) - 4503599627370496.0, y) / s;
        return nearbyint(y) / s;
}
