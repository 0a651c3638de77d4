/* A family's `counters:` in its metric file: the hardware counters its formulas name that
 * the profiler's own definitions lack on its architectures, one entry per name:
 *   NAME: absent                      not on this hardware (never planned; metrics n/a)
 *   NAME: {same_as: OTHER}            the hardware event the profiler knows as OTHER
 *   NAME: {block: SQ, event: 133}     a hardware event to define for the profiler
 *   NAME: null                        drops the entry a parent family gave */
#include "counters.h"

#include <stdlib.h>
#include <string.h>

static void def_clear(struct counter_def *d)
{
        free(d->name);
        free(d->same_as);
        free(d->block);
        memset(d, 0, sizeof *d);
}

static void def_drop(struct arch *a, const char *name)
{
        for (size_t i = 0; i < a->ncounter_defs; i++)
                if (!strcmp(a->counter_defs[i].name, name)) {
                        def_clear(&a->counter_defs[i]);
                        a->counter_defs[i] = a->counter_defs[--a->ncounter_defs];
                        return;
                }
}

/* an upper-case counter name: A-Z, 0-9 and _, starting with a letter */
static int counter_name_ok(const char *s)
{
        if (!s || !(*s >= 'A' && *s <= 'Z'))
                return 0;
        for (; *s; s++)
                if (!((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
                        return 0;
        return 1;
}

static int parse_def(struct ydoc *y, yaml_node_t *v, struct counter_def *d)
{
        const char *s = ydoc_str(v);
        if (s)
                return strcmp(s, "absent") ? -1 : (d->kind = COUNTER_ABSENT, 0);
        if (v->type != YAML_MAPPING_NODE)
                return -1;
        yaml_node_t *same = ydoc_get(y, v, "same_as");
        yaml_node_t *block = ydoc_get(y, v, "block");
        yaml_node_t *event = ydoc_get(y, v, "event");
        if (same && !block && !event && ydoc_len(v) == 1 && counter_name_ok(ydoc_str(same))) {
                d->kind = COUNTER_ALIAS;
                d->same_as = xstrdup(ydoc_str(same));
                return 0;
        }
        double e;
        if (!same && block && event && ydoc_len(v) == 2 && counter_name_ok(ydoc_str(block)) &&
            ydoc_str(event) && !parse_double(ydoc_str(event), &e) && e >= 0 && e < 1e6 &&
            e == (long)e) {
                d->kind = COUNTER_EVENT;
                d->block = xstrdup(ydoc_str(block));
                d->event = (long)e;
                return 0;
        }
        return -1;
}

int arch_merge_counters(struct arch *a, struct ydoc *y, yaml_node_t *root, const char *path,
                        struct err *err)
{
        yaml_node_t *sec = ydoc_get(y, root, "counters");
        if (!sec || ydoc_is_null(sec))
                return 0;
        if (sec->type != YAML_MAPPING_NODE)
                return err_set(err, ERR_INPUT, "%s:%d:%d: 'counters' must be a mapping", path,
                               ydoc_line(sec), ydoc_col(sec));
        for (size_t i = 0; i < ydoc_len(sec); i++) {
                yaml_node_t *kn = ydoc_key(y, sec, i);
                yaml_node_t *v = ydoc_val(y, sec, i);
                const char *k = ydoc_str(kn);
                if (k && k[0] == '_')
                        continue;
                if (!counter_name_ok(k))
                        return err_set(err, ERR_INPUT, "%s:%d:%d: '%s' is not a counter name",
                                       path, ydoc_line(kn), ydoc_col(kn), k ? k : "");
                def_drop(a, k);
                if (ydoc_is_null(v))
                        continue;
                struct counter_def d = {0};
                if (parse_def(y, v, &d)) {
                        def_clear(&d);
                        return err_set(err, ERR_INPUT,
                                       "%s:%d:%d: counter '%s': expected absent, {same_as: "
                                       "NAME} or {block: BLOCK, event: N}",
                                       path, ydoc_line(v), ydoc_col(v), k);
                }
                d.name = xstrdup(k);
                a->counter_defs = xrealloc(a->counter_defs,
                                           (a->ncounter_defs + 1) * sizeof *a->counter_defs);
                a->counter_defs[a->ncounter_defs++] = d;
        }
        return 0;
}

const struct counter_def *arch_counter_def(const struct counter_def *defs, size_t n,
                                           const char *name)
{
        for (size_t i = 0; name && i < n; i++)
                if (!strcmp(defs[i].name, name))
                        return &defs[i];
        return NULL;
}

void arch_free_counters(struct arch *a)
{
        for (size_t i = 0; i < a->ncounter_defs; i++)
                def_clear(&a->counter_defs[i]);
        free(a->counter_defs);
        a->counter_defs = NULL;
        a->ncounter_defs = 0;
}
