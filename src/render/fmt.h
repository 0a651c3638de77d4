/* Number formatting shared by every renderer. */
#ifndef PRISM_FMT_H
#define PRISM_FMT_H

#include <stddef.h>

/* Shortest text that reads back as v (Python's repr style: "0.0", "427.03", "inf"); "" for
 * NaN. buf must hold 40 bytes. */
const char *fmt_num(double v, char *buf);
/* The same by printf and strtod alone (what fmt_num falls back to; tests compare them). */
const char *fmt_num_printf(double v, char *buf);
/* snprintf(buf, len, "%.*f", nd, v)'s text, by integer arithmetic where it reaches (the
 * exact value rounded half to even on exact ties, as glibc's printf); len >= 48 for that,
 * else (and out of reach) snprintf itself. Returns buf. */
const char *fmt_fixed(double v, int nd, char *buf, size_t len);

#endif
