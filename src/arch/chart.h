/* A panel table's figure (`chart:`): see chart.c and docs/FORMATS.md. Internal to src/arch. */
#ifndef PRISM_ARCH_CHART_H
#define PRISM_ARCH_CHART_H

#include "arch.h"
#include "yamldoc.h"

/* Read the list node n (a table's `chart:`) into *parts; a malformed part is an error
 * naming file:line:col. */
int chart_load(struct ydoc *y, yaml_node_t *n, struct chart_part **parts, size_t *nparts,
               const char *file, struct err *err);
void chart_free(struct chart_part *parts, size_t nparts);

#endif
