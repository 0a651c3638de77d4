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

/* NVIDIA (its management library): the GPU by PCI bus id (or the library's index). For CLOCK_BASE lock the SM and
 * memory clocks at base; -1 with cs->desc saying why when the driver refuses. */
int clocks_nvml_set(int mode, const char *bus_id, int index, struct clock_state *cs);
void clocks_nvml_reset(void);

#endif
