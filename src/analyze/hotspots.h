/* Hot spots from PC samples (src/store/pcsamp.h): the instructions and source lines that
 * hold most of a kernel's samples, with their share and their most frequent stall reason.
 * Read by panel 21's tables (pcsamp_tables.c), the findings' hot-line citation and the
 * TUI's source view. */
#ifndef PRISM_HOTSPOTS_H
#define PRISM_HOTSPOTS_H

#include <stddef.h>

#include "../store/pcsamp.h"

struct hotspot {
        const char *kernel;      /* points into the pcsamp */
        const char *source;      /* "path:line", NULL when unknown */
        const char *instruction; /* the first instruction of the group, or NULL */
        unsigned long long offset;
        int has_offset;
        double count;            /* samples here */
        double kcount;           /* samples of the kernel */
        double stalled;          /* stalled samples here (NaN: not told) */
        double kstalled;         /* stalled samples of the kernel (NaN: not told) */
        const char *reason;      /* the most frequent stall reason here, or NULL */
        double rcount;           /* its samples */
};

/* The lines of ps whose kernel is one of knames (nk 0: every kernel), grouped per kernel
 * and source line (by_source) or per kernel and instruction, by descending samples (ties:
 * kernel, then source, then offset). *out is malloc'd (free it); returns the count. */
size_t hotspots(const struct pcsamp *ps, const char *const *knames, size_t nk, int by_source,
                struct hotspot **out);

/* A source text as rocprof-compute shows it: ".../<file name>:<line>" (malloc'd); "N/A"
 * when none. */
char *hotspot_short_source(const char *source);

#endif
