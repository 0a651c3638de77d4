/* A family's GPU models in its metric file: the gpu_model names recorded workloads use,
 * by target and PCI device id, and the facts of each model that the device does not report
 * (`models:`), over the family's own values (`model_facts:`). */
#include "models.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a number of a fact: decimal or 0x hex; 0 on success */
static int fact_value(const char *s, double *v)
{
        if (!s)
                return -1;
        if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
                char *end;
                errno = 0;
                unsigned long long u = strtoull(s + 2, &end, 16);
                if (errno || end == s + 2 || *end)
                        return -1;
                *v = (double)u;
                return 0;
        }
        return parse_double(s, v) || !isfinite(*v) ? -1 : 0;
}

static void facts_set(struct arch_facts *f, const char *key, double v)
{
        size_t j = 0;
        while (j < f->n && strcmp(f->keys[j], key))
                j++;
        if (j == f->n) {
                f->keys = xrealloc(f->keys, (j + 1) * sizeof *f->keys);
                f->vals = xrealloc(f->vals, (j + 1) * sizeof *f->vals);
                f->keys[j] = xstrdup(key);
                f->n++;
        }
        f->vals[j] = v;
}

static void facts_free(struct arch_facts *f)
{
        free_all((void *const *)f->keys, f->n);
        free(f->keys);
        free(f->vals);
        memset(f, 0, sizeof *f);
}

/* the numeric pairs of map into f, skipping the keys of skip (NULL-terminated) */
static int read_facts(struct ydoc *y, yaml_node_t *map, const char *const *skip,
                      struct arch_facts *f, const char *path, struct err *err)
{
        for (size_t i = 0; i < ydoc_len(map); i++) {
                yaml_node_t *kn = ydoc_key(y, map, i), *vn = ydoc_val(y, map, i);
                const char *k = ydoc_str(kn);
                size_t s = 0;
                while (k && skip[s] && strcmp(skip[s], k))
                        s++;
                if (!k || k[0] == '_' || skip[s])
                        continue;
                double v;
                if (fact_value(ydoc_str(vn), &v))
                        return err_set(err, ERR_INPUT, "%s:%d:%d: model fact '%s' must be a number",
                                       path, ydoc_line(vn), ydoc_col(vn), k);
                facts_set(f, k, v);
        }
        return 0;
}

int arch_merge_models(struct arch *a, struct ydoc *y, yaml_node_t *root, const char *path,
                      struct err *err)
{
        static const char *const none[] = {NULL};
        static const char *const own[] = {"name", "arch", "device_id", NULL};
        yaml_node_t *sec = ydoc_get(y, root, "model_facts");
        int rc = 0;
        if (sec && !ydoc_is_null(sec)) {
                if (sec->type != YAML_MAPPING_NODE)
                        return err_set(err, ERR_INPUT, "%s:%d:%d: 'model_facts' must be a mapping",
                                       path, ydoc_line(sec), ydoc_col(sec));
                if ((rc = read_facts(y, sec, none, &a->model_facts, path, err)))
                        return rc;
        }
        sec = ydoc_get(y, root, "models");
        if (!sec || ydoc_is_null(sec))
                return 0;
        if (sec->type != YAML_SEQUENCE_NODE)
                return err_set(err, ERR_INPUT, "%s:%d:%d: 'models' must be a list", path,
                               ydoc_line(sec), ydoc_col(sec));
        for (size_t i = 0; i < ydoc_len(sec) && !rc; i++) {
                yaml_node_t *m = ydoc_item(y, sec, i);
                const char *name = m->type == YAML_MAPPING_NODE ? ydoc_str(ydoc_get(y, m, "name")) : NULL;
                const char *target = name ? ydoc_str(ydoc_get(y, m, "arch")) : NULL;
                yaml_node_t *dn = name ? ydoc_get(y, m, "device_id") : NULL;
                double dev = 0;
                if (!name || !*name || !target || !*target)
                        return err_set(err, ERR_INPUT,
                                       "%s:%d:%d: a model is a mapping with 'name' and 'arch'",
                                       path, ydoc_line(m), ydoc_col(m));
                if (dn && (fact_value(ydoc_str(dn), &dev) || dev < 1 || dev > 0xffff))
                        return err_set(err, ERR_INPUT,
                                       "%s:%d:%d: device_id must be a PCI device id (0x74a1)",
                                       path, ydoc_line(dn), ydoc_col(dn));
                a->models = xrealloc(a->models, (a->nmodels + 1) * sizeof *a->models);
                struct arch_model *am = &a->models[a->nmodels++];
                memset(am, 0, sizeof *am);
                am->name = xstrdup(name);
                am->arch = xstrdup(target);
                am->device_id = (unsigned)dev;
                rc = read_facts(y, m, own, &am->facts, path, err);
        }
        return rc;
}

void arch_free_models(struct arch *a)
{
        for (size_t i = 0; i < a->nmodels; i++) {
                free(a->models[i].name);
                free(a->models[i].arch);
                facts_free(&a->models[i].facts);
        }
        free(a->models);
        a->models = NULL;
        a->nmodels = 0;
        facts_free(&a->model_facts);
}

const struct arch_model *arch_model_find(const struct arch *a, unsigned device_id)
{
        const struct arch_model *any = NULL;
        for (size_t i = 0; i < a->nmodels; i++) {
                const struct arch_model *m = &a->models[i];
                if (strcmp(m->arch, a->target))
                        continue;
                if (m->device_id && m->device_id == device_id)
                        return m;
                if (!m->device_id && !any)
                        any = m;
        }
        return any;
}

static int facts_get(const struct arch_facts *f, const char *key, double *v)
{
        for (size_t i = 0; i < f->n; i++)
                if (!strcmp(f->keys[i], key)) {
                        *v = f->vals[i];
                        return 1;
                }
        return 0;
}

double arch_model_fact(const struct arch *a, const struct arch_model *m, const char *key)
{
        double v;
        if ((m && facts_get(&m->facts, key, &v)) || facts_get(&a->model_facts, key, &v))
                return v;
        return NAN;
}
