/* Numbers as text, the way the reference prints them. */
#include "fmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        /* the fewest significant digits that read back as v, laid out as Python's repr:
         * fixed notation for exponents -4..15, else scientific */
        char e[40];
        int p = 15;
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        if (strtod(e, NULL) == v) {
                /* short enough: find the shortest (computed values rarely get here) */
                for (p = 1; p < 15; p++) {
                        snprintf(e, sizeof e, "%.*e", p - 1, v);
                        if (strtod(e, NULL) == v)
                                break;
                }
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
