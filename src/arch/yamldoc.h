/* A thin layer over libyaml's document API: load a file, walk mappings and sequences,
 * and report positions as file:line:col. */
#ifndef PRISM_YAMLDOC_H
#define PRISM_YAMLDOC_H

#include <yaml.h>

#include "../util/util.h"

struct ydoc {
        yaml_document_t doc;
        char *file;
        int loaded;
};

/* Load the first document of a file. An empty file gives an empty root (NULL). */
int ydoc_load(struct ydoc *d, const char *path, struct err *err);
/* The same from text in memory; name is the file named in messages. */
int ydoc_load_mem(struct ydoc *d, const char *name, const char *text, size_t len,
                  struct err *err);
void ydoc_free(struct ydoc *d);
/* The length of text before its first top-level key that is not one of keys (NULL-ended):
 * the header of a file, to parse alone. */
size_t ydoc_prefix_len(const char *text, size_t len, const char *const *keys);

yaml_node_t *ydoc_root(struct ydoc *d);
/* Value for key in a mapping node, or NULL. */
yaml_node_t *ydoc_get(struct ydoc *d, yaml_node_t *map, const char *key);
/* The scalar's text, or NULL if the node is not a scalar. */
const char *ydoc_str(yaml_node_t *n);
/* 1 if n is a scalar meaning null ("null", "~" or empty, plain style). */
int ydoc_is_null(yaml_node_t *n);
/* Number of pairs/items and access to them; NULL for another kind of node or an index
 * past the end. */
size_t ydoc_len(yaml_node_t *n);
yaml_node_t *ydoc_item(struct ydoc *d, yaml_node_t *seq, size_t i);
yaml_node_t *ydoc_key(struct ydoc *d, yaml_node_t *map, size_t i);
yaml_node_t *ydoc_val(struct ydoc *d, yaml_node_t *map, size_t i);
/* 1-based line and column of a node. */
int ydoc_line(yaml_node_t *n);
int ydoc_col(yaml_node_t *n);

#endif
