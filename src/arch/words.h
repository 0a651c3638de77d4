/* A family's own vocabulary (titles, words, hidden rows): see words.c and docs/FORMATS.md. */
#ifndef PRISM_ARCH_WORDS_H
#define PRISM_ARCH_WORDS_H

#include "arch.h"
#include "yamldoc.h"

/* Merge root's `titles:`, `words:` and `hide_empty_rows:` into a (a child's entries
 * replace its parent's, key by key). */
void arch_merge_words(struct arch *a, struct ydoc *y, yaml_node_t *root);
void arch_free_words(struct arch *a);

#endif
