/* A family's `roofline:` section: see roofspec.c and docs/FORMATS.md. */
#ifndef PRISM_ARCH_ROOFSPEC_H
#define PRISM_ARCH_ROOFSPEC_H

#include "arch.h"
#include "yamldoc.h"

/* Read root's `roofline:` into a (replacing the parent's; null removes it). A malformed
 * section is an error naming path:line:col. */
int arch_merge_roofline(struct arch *a, struct ydoc *y, yaml_node_t *root, const char *path,
                        struct err *err);
/* After the chain is merged: every metric the section names is one of the architecture's
 * (an error naming the section's file and line). */
int arch_check_roofline(const struct arch *a, struct err *err);

#endif
