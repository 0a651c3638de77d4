/* GPU clocks through NVIDIA's management library (clocks_nvml.c), for the NVIDIA backend. */
#ifndef PRISM_CLOCKS_NVML_H
#define PRISM_CLOCKS_NVML_H

#include "../../clocks.h"

/* The GPU by PCI bus id (or the library's index). For CLOCK_BASE lock the SM and memory
 * clocks at base; -1 with cs->desc saying why when the driver refuses. */
int clocks_nvml_set(int mode, const char *bus_id, int index, struct clock_state *cs);
void clocks_nvml_reset(void);

#endif
