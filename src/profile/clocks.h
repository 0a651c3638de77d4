/* GPU clock control while profiling (--clock-control base|none). */
#ifndef PRISM_CLOCKS_H
#define PRISM_CLOCKS_H

#include "profile.h"

struct clock_state {
        int mode;                /* CLOCK_NONE, CLOCK_BASE */
        int locked;              /* the clocks were locked (reset them afterwards) */
        unsigned base_sm, base_mem; /* MHz, 0 unknown */
        char desc[200];          /* what the report was taken at, or why not */
};

struct backend;
struct table;

/* Apply --clock-control through the backend before the passes: fills res->clocks and the
 * sysinfo column clock_control; a lock the driver refuses is a warning (the profile runs
 * at the GPU's own clocks and says so). Returns 1 when clocks were locked (call
 * clocks_end afterwards). */
int clocks_begin(const struct profile_opts *o, const struct backend *be, struct table *si,
                 struct profile_result *res);
void clocks_end(const struct backend *be, int locked);

#endif
