/* A family's GPU models (`models:` and `model_facts:`): see models.c and docs/FORMATS.md. */
#ifndef PRISM_ARCH_MODELS_H
#define PRISM_ARCH_MODELS_H

#include "arch.h"
#include "yamldoc.h"

/* Merge root's `model_facts:` (key by key, a child's values replace its parent's) and
 * `models:` (a child's models follow its parent's) into a. A malformed entry is an error
 * naming path:line:col. */
int arch_merge_models(struct arch *a, struct ydoc *y, yaml_node_t *root, const char *path,
                      struct err *err);
void arch_free_models(struct arch *a);

#endif
