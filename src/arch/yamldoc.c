/* libyaml document helpers; one checker formats libyaml's own problem text. */
#include "yamldoc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A key given twice in one mapping is an error: YAML readers disagree on which one wins,
 * and a metric written twice would otherwise merge silently. */
static int check_unique_keys(struct ydoc *d, struct err *err)
{
        for (yaml_node_t *n = d->doc.nodes.start; n < d->doc.nodes.top; n++) {
                if (n->type != YAML_MAPPING_NODE)
                        continue;
                struct smap seen = {0};
                size_t len = ydoc_len(n);
                int rc = 0;
                for (size_t i = 0; i < len && !rc; i++) {
                        yaml_node_t *k = ydoc_key(d, n, i);
                        const char *s = ydoc_str(k);
                        int first;
                        if (!s)
                                continue;
                        if (smap_get(&seen, s, &first))
                                rc = err_set(err, ERR_INPUT,
                                             "%s:%d:%d: duplicate key '%s' (first at line %d)",
                                             d->file, ydoc_line(k), ydoc_col(k), s, first);
                        else
                                smap_put(&seen, s, ydoc_line(k));
                }
                smap_free(&seen);
                if (rc)
                        return rc;
        }
        return 0;
}

int ydoc_load(struct ydoc *d, const char *path, struct err *err)
{
        yaml_parser_t p;
        memset(d, 0, sizeof *d);
        FILE *f = fopen(path, "rb");
        if (!f)
                return err_set(err, ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
        if (!yaml_parser_initialize(&p)) {
                fclose(f);
                return err_set(err, ERR_SYS, "cannot initialise the YAML parser");
        }
        yaml_parser_set_input_file(&p, f);
        int rc = 0;
        if (!yaml_parser_load(&p, &d->doc)) {
                rc = err_set(err, ERR_INPUT, "%s:%zu:%zu: %s", path, p.problem_mark.line + 1,
                             p.problem_mark.column + 1,
                             p.problem ? p.problem : "malformed YAML");
        } else {
                d->loaded = 1;
                d->file = xstrdup(path);
                rc = check_unique_keys(d, err);
        }
        yaml_parser_delete(&p);
        fclose(f);
        if (rc)
                ydoc_free(d);
        return rc;
}

void ydoc_free(struct ydoc *d)
{
        if (d->loaded)
                yaml_document_delete(&d->doc);
        free(d->file);
        memset(d, 0, sizeof *d);
}

yaml_node_t *ydoc_root(struct ydoc *d)
{
        return d->loaded ? yaml_document_get_root_node(&d->doc) : NULL;
}

const char *ydoc_str(yaml_node_t *n)
{
        if (!n || n->type != YAML_SCALAR_NODE)
                return NULL;
        return (const char *)n->data.scalar.value;
}

int ydoc_is_null(yaml_node_t *n)
{
        if (!n)
                return 1;
        if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
                return 0;
        const char *s = ydoc_str(n);
        return !*s || !strcmp(s, "null") || !strcmp(s, "~") || !strcmp(s, "Null") ||
               !strcmp(s, "NULL");
}

size_t ydoc_len(yaml_node_t *n)
{
        if (!n)
                return 0;
        if (n->type == YAML_MAPPING_NODE)
                return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
        if (n->type == YAML_SEQUENCE_NODE)
                return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
        return 0;
}

/* The accessors check the node's kind and the index: ydoc_len counts a sequence's items
 * too, and reading them as a mapping's pairs ran past the array (fuzz_yaml_metrics). */
yaml_node_t *ydoc_item(struct ydoc *d, yaml_node_t *seq, size_t i)
{
        if (!seq || seq->type != YAML_SEQUENCE_NODE || i >= ydoc_len(seq))
                return NULL;
        return yaml_document_get_node(&d->doc, seq->data.sequence.items.start[i]);
}

yaml_node_t *ydoc_key(struct ydoc *d, yaml_node_t *map, size_t i)
{
        if (!map || map->type != YAML_MAPPING_NODE || i >= ydoc_len(map))
                return NULL;
        return yaml_document_get_node(&d->doc, map->data.mapping.pairs.start[i].key);
}

yaml_node_t *ydoc_val(struct ydoc *d, yaml_node_t *map, size_t i)
{
        if (!map || map->type != YAML_MAPPING_NODE || i >= ydoc_len(map))
                return NULL;
        return yaml_document_get_node(&d->doc, map->data.mapping.pairs.start[i].value);
}

yaml_node_t *ydoc_get(struct ydoc *d, yaml_node_t *map, const char *key)
{
        if (!map || map->type != YAML_MAPPING_NODE)
                return NULL;
        size_t n = ydoc_len(map);
        for (size_t i = 0; i < n; i++) {
                const char *k = ydoc_str(ydoc_key(d, map, i));
                if (k && !strcmp(k, key))
                        return ydoc_val(d, map, i);
        }
        return NULL;
}

int ydoc_line(yaml_node_t *n)
{
        return n ? (int)n->start_mark.line + 1 : 0;
}

int ydoc_col(yaml_node_t *n)
{
        return n ? (int)n->start_mark.column + 1 : 0;
}
