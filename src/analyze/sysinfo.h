/* Checking a workload's sysinfo against the fields an architecture's formulas read. */
#ifndef PRISM_SYSINFO_H
#define PRISM_SYSINFO_H

#include "../arch/arch.h"
#include "../store/workload.h"

/* Check the sysinfo fields that a's formulas read ($cu_per_gpu, $max_sclk, ...): a missing
 * one is added as n/a and a damaged one (text, nan, inf, negative) read as n/a, with one
 * warning naming sysinfo.csv, rather than a warning per metric or a silent n/a. */
void workload_check_sysinfo(struct workload *w, const struct arch *a);

#endif
