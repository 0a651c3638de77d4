/* Writing a workload directory in rocprof-compute's layout (what `prism analyze` and
 * rocprof-compute read): sysinfo.csv, pmc_perf.csv, one CSV per accumulate counter,
 * timestamps.csv and pmc_dispatch_info.csv. Every file goes through a temporary name and a
 * rename; pmc_perf.csv is written last, so a directory that has it is complete. */
#ifndef PRISM_WORKLOAD_WRITE_H
#define PRISM_WORKLOAD_WRITE_H

#include <stddef.h>

#include "../util/util.h"
#include "table.h"

struct wl_accum {
        const char *name;          /* accumulate counter: the file is NAME.csv */
        const struct table *table; /* rows aligned with pmc */
};

struct wl_out {
        const struct table *sysinfo;   /* one row */
        const struct table *pmc;       /* merged passes, one row per dispatch */
        const struct wl_accum *accum;
        size_t naccum;
};

/* 1 if dir already holds a workload (pmc_perf.csv, sysinfo.csv or perfmon pass files). */
int wl_exists(const char *dir);



/* Write the workload files into dir (which must exist). */
int wl_write(const char *dir, const struct wl_out *w, struct err *err);

/* Remove the pass files (perfmon/pmc_perf_*.txt) and the accumulate CSVs that an earlier
 * profile left in dir, before --force writes a new one. Other files stay. */
void wl_clear_plan(const char *dir);

#endif
