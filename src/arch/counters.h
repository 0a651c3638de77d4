/* A family's `counters:` section: see counters.c and docs/FORMATS.md. */
#ifndef PRISM_ARCH_COUNTERS_H
#define PRISM_ARCH_COUNTERS_H

#include "arch.h"
#include "yamldoc.h"

/* Merge root's `counters:` into a, name by name (a child's entry replaces its parent's;
 * null removes it). A malformed entry is an error naming path:line:col. */
int arch_merge_counters(struct arch *a, struct ydoc *y, yaml_node_t *root, const char *path,
                        struct err *err);
void arch_free_counters(struct arch *a);

#endif
