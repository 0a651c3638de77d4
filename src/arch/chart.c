/* A panel table's figure: parts (the boxes of the memory chart) holding labelled values of
 * the table's metrics, as lines and as arrows into and out of the part. */
#include "chart.h"

#include <stdlib.h>
#include <string.h>

static const char *const roles[] = {"buffer", "dispatch", "exec",  "cache",
                                    "l2",     "fabric",   "memory", NULL};
static const char *const dirs[] = {"core", "memory", "both", NULL};

static int one_of(const char *s, const char *const *set)
{
        for (size_t i = 0; s && set[i]; i++)
                if (!strcmp(s, set[i]))
                        return 1;
        return 0;
}

/* items: a list of [label, key] or [label, key, extra] (arrows: extra is a direction) */
static int load_items(struct ydoc *y, yaml_node_t *n, int arrows, struct chart_item **out,
                      size_t *nout, const char *file, struct err *err)
{
        if (!n)
                return 0;
        if (n->type != YAML_SEQUENCE_NODE)
                return err_set(err, ERR_INPUT, "%s:%d:%d: a chart's lines and arrows are lists",
                               file, ydoc_line(n), ydoc_col(n));
        *nout = ydoc_len(n);
        *out = xcalloc(*nout ? *nout : 1, sizeof **out);
        for (size_t i = 0; i < *nout; i++) {
                yaml_node_t *it = ydoc_item(y, n, i);
                size_t len = it->type == YAML_SEQUENCE_NODE ? ydoc_len(it) : 0;
                const char *v[3] = {NULL, NULL, NULL};
                for (size_t k = 0; k < len && k < 3; k++)
                        v[k] = ydoc_str(ydoc_item(y, it, k));
                if (len < 2 || len > 3 || !v[0] || !v[1] || (arrows && !one_of(v[2], dirs)))
                        return err_set(err, ERR_INPUT,
                                       "%s:%d:%d: a chart %s is [label, metric%s]", file,
                                       ydoc_line(it), ydoc_col(it), arrows ? "arrow" : "line",
                                       arrows ? ", core|memory|both" : ", unit (optional)");
                (*out)[i].label = xstrdup(v[0]);
                (*out)[i].key = xstrdup(v[1]);
                (*out)[i].extra = v[2] ? xstrdup(v[2]) : NULL;
        }
        return 0;
}

int chart_load(struct ydoc *y, yaml_node_t *n, struct chart_part **parts, size_t *nparts,
               const char *file, struct err *err)
{
        if (n->type != YAML_SEQUENCE_NODE)
                return err_set(err, ERR_INPUT, "%s:%d:%d: 'chart' must be a list of parts", file,
                               ydoc_line(n), ydoc_col(n));
        *nparts = ydoc_len(n);
        *parts = xcalloc(*nparts ? *nparts : 1, sizeof **parts);
        for (size_t i = 0; i < *nparts; i++) {
                yaml_node_t *pn = ydoc_item(y, n, i);
                struct chart_part *p = &(*parts)[i];
                const char *role = pn->type == YAML_MAPPING_NODE ? ydoc_str(ydoc_get(y, pn, "part"))
                                                                 : NULL;
                if (!one_of(role, roles))
                        return err_set(err, ERR_INPUT,
                                       "%s:%d:%d: a chart part needs 'part' (buffer, dispatch, "
                                       "exec, cache, l2, fabric or memory)",
                                       file, ydoc_line(pn), ydoc_col(pn));
                p->role = xstrdup(role);
                const char *s;
                if ((s = ydoc_str(ydoc_get(y, pn, "title"))))
                        p->title = xstrdup(s);
                if ((s = ydoc_str(ydoc_get(y, pn, "stub"))))
                        p->stub = xstrdup(s);
                int rc;
                if ((rc = load_items(y, ydoc_get(y, pn, "lines"), 0, &p->lines, &p->nlines, file,
                                     err)) ||
                    (rc = load_items(y, ydoc_get(y, pn, "in"), 1, &p->in, &p->nin, file, err)) ||
                    (rc = load_items(y, ydoc_get(y, pn, "out"), 1, &p->out, &p->nout, file, err)))
                        return rc;
        }
        return 0;
}

static void items_free(struct chart_item *it, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(it[i].label);
                free(it[i].key);
                free(it[i].extra);
        }
        free(it);
}

void chart_free(struct chart_part *parts, size_t nparts)
{
        for (size_t i = 0; i < nparts; i++) {
                free(parts[i].role);
                free(parts[i].title);
                free(parts[i].stub);
                items_free(parts[i].lines, parts[i].nlines);
                items_free(parts[i].in, parts[i].nin);
                items_free(parts[i].out, parts[i].nout);
        }
        free(parts);
}
