/* --list-metrics and --list-stats. */
#ifndef PRISM_LISTING_H
#define PRISM_LISTING_H

#include <stdio.h>

#include "../analyze/analysis.h"

/* Every panel, table and metric id with its name for a's target (not the rows its family
 * hides, unless all_rows). With a workload, per-channel tables have as many rows as its
 * sysinfo says, else the metric files' default. */
void list_metrics(FILE *f, const struct arch *a, const struct panel_set *ps,
                  const struct workload *w, int all_rows);

/* The kernels (index: name, as -k takes them) and the dispatches, in width columns (0: no
 * limit). */
void list_stats(FILE *f, const struct workload *w, const struct analysis_opts *o, int width);

#endif
