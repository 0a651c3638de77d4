/* Load metrics/<family>.yaml files, resolve inheritance (root first, leaf last, merging
 * metric by metric and field by field), and parse every formula once. */
#include "arch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "families.h"
#include "models.h"
#include "counters.h"
#include "words.h"
#include "roofspec.h"
#include "yamldoc.h"

/* ---- merging ---- */

/* The architecture's texts (keys, names, formulas' sources, file names) and parsed formulas
 * are in its arena, a->ar: a text a child file replaces stays there until arch_free, which
 * frees them all at once; the arrays are freed one by one (expr_free of a formula in the
 * arena does nothing). */

static void field_clear(struct metric_field *f)
{
        expr_free(f->expr);
        memset(f, 0, sizeof *f);
}

static void field_set(struct arch *a, struct metric_field *f, const char *key, const char *src,
                      const char *file, yaml_node_t *n)
{
        field_clear(f);
        f->key = key ? arena_strdup(&a->ar, key) : NULL;
        f->src = src ? arena_strdup(&a->ar, src) : NULL;
        f->loc.file = file;
        f->loc.line = ydoc_line(n);
        f->loc.col = ydoc_col(n);
}

static void fields_free(struct metric_field *f, size_t n)
{
        for (size_t i = 0; i < n; i++)
                field_clear(&f[i]);
        free(f);
}

static void metric_clear(struct metric *m)
{
        field_clear(&m->expr);
        field_clear(&m->peak);
        fields_free(m->fields, m->nfields);
        fields_free(m->texts, m->ntexts);
        fields_free(m->overrides, m->noverrides);
        memset(m, 0, sizeof *m);
}

/* Merge a mapping {key: formula} into a field list, key by key (null removes). */
static int merge_map(struct arch *a, struct ydoc *y, yaml_node_t *map, struct metric_field **arr,
                     size_t *n, const char *file, const char *metric, struct err *err)
{
        size_t len = ydoc_len(map);
        for (size_t i = 0; i < len; i++) {
                const char *k = ydoc_str(ydoc_key(y, map, i));
                yaml_node_t *v = ydoc_val(y, map, i);
                if (!k)
                        continue;
                size_t j;
                for (j = 0; j < *n; j++)
                        if (!strcmp((*arr)[j].key, k))
                                break;
                if (ydoc_is_null(v)) {
                        if (j < *n) {
                                field_clear(&(*arr)[j]);
                                memmove(&(*arr)[j], &(*arr)[j + 1],
                                        (*n - j - 1) * sizeof **arr);
                                (*n)--;
                        }
                        continue;
                }
                /* a list or a mapping there left a field with no text (a NULL formula
                 * crashed the template check; fuzz_yaml_metrics) */
                if (!ydoc_str(v))
                        return err_set(err, ERR_INPUT,
                                       "%s:%d:%d: '%s' of metric '%s' must be a formula or a text",
                                       file, ydoc_line(v), ydoc_col(v), k, metric);
                if (j == *n) {
                        *arr = xrealloc(*arr, (*n + 1) * sizeof **arr);
                        memset(&(*arr)[j], 0, sizeof **arr);
                        (*n)++;
                }
                field_set(a, &(*arr)[j], k, ydoc_str(v), file, v);
        }
        return 0;
}

static void set_str(struct arch *a, char **dst, yaml_node_t *v)
{
        *dst = ydoc_is_null(v) ? NULL : arena_strdup(&a->ar, ydoc_str(v) ? ydoc_str(v) : "");
}

static struct metric *metric_slot(struct arch *a, const char *key)
{
        int idx;
        if (smap_get(&a->index, key, &idx) && idx >= 0)
                return &a->metrics[idx];
        xgrow(&a->metrics, &a->capmetrics, a->nmetrics + 1, sizeof *a->metrics);
        struct metric *m = &a->metrics[a->nmetrics];
        memset(m, 0, sizeof *m);
        m->key = arena_strdup(&a->ar, key);
        smap_put(&a->index, key, (int)a->nmetrics);
        a->nmetrics++;
        return m;
}

static int merge_metric(struct arch *a, struct ydoc *y, const char *key, yaml_node_t *v,
                        const char *file, struct err *err)
{
        int idx;
        if (ydoc_is_null(v)) {
                if (smap_get(&a->index, key, &idx) && idx >= 0) {
                        smap_put(&a->index, key, -1); /* tombstone, dropped by compact() */
                }
                return 0;
        }
        if (v->type != YAML_MAPPING_NODE)
                return err_set(err, ERR_INPUT, "%s:%d:%d: metric '%s' must be a mapping",
                               file, ydoc_line(v), ydoc_col(v), key);
        if (ydoc_get(y, v, "same_as") && ydoc_get(y, v, "expr"))
                return err_set(err, ERR_INPUT,
                               "%s:%d:%d: metric '%s' gives both 'same_as' and "
                               "'expr'",
                               file, ydoc_line(v), ydoc_col(v), key);
        struct metric *m = metric_slot(a, key);
        size_t n = ydoc_len(v);
        for (size_t i = 0; i < n; i++) {
                const char *k = ydoc_str(ydoc_key(y, v, i));
                yaml_node_t *val = ydoc_val(y, v, i);
                if (!k)
                        continue;
                if (!strcmp(k, "name")) {
                        set_str(a, &m->name, val);
                } else if (!strcmp(k, "unit")) {
                        set_str(a, &m->unit, val);
                } else if (!strcmp(k, "table")) {
                        set_str(a, &m->table, val);
                } else if (!strcmp(k, "same_as")) {
                        /* the formula of another metric: replaces this one's expr (a child's
                         * `expr:` replaces the reference in turn) */
                        if (!ydoc_is_null(val) && (!ydoc_str(val) || !*ydoc_str(val)))
                                return err_set(err, ERR_INPUT,
                                               "%s:%d:%d: 'same_as' of metric '%s' must be a "
                                               "metric key",
                                               file, ydoc_line(val), ydoc_col(val), key);
                        set_str(a, &m->same_as, val);
                        m->same_as_loc = (struct expr_loc){file, ydoc_line(val), ydoc_col(val)};
                        field_clear(&m->expr);
                } else if (!strcmp(k, "expr") || !strcmp(k, "peak")) {
                        struct metric_field *f = !strcmp(k, "expr") ? &m->expr : &m->peak;
                        if (f == &m->expr)
                                m->same_as = NULL;
                        if (ydoc_is_null(val))
                                field_clear(f);
                        else if (!ydoc_str(val))
                                return err_set(err, ERR_INPUT,
                                               "%s:%d:%d: '%s' of metric '%s' must be a formula",
                                               file, ydoc_line(val), ydoc_col(val), k, key);
                        else
                                field_set(a, f, k, ydoc_str(val), file, val);
                } else if (!strcmp(k, "fields") || !strcmp(k, "text") || !strcmp(k, "override")) {
                        if (val->type != YAML_MAPPING_NODE && !ydoc_is_null(val))
                                return err_set(err, ERR_INPUT,
                                               "%s:%d:%d: '%s' of metric '%s' must be a mapping",
                                               file, ydoc_line(val), ydoc_col(val), k, key);
                        if (ydoc_is_null(val)) {
                                /* `fields: null` drops what the parent had */
                                struct metric_field **arr =
                                    !strcmp(k, "fields") ? &m->fields
                                    : !strcmp(k, "text") ? &m->texts : &m->overrides;
                                size_t *n = !strcmp(k, "fields") ? &m->nfields
                                            : !strcmp(k, "text") ? &m->ntexts : &m->noverrides;
                                fields_free(*arr, *n);
                                *arr = NULL;
                                *n = 0;
                        } else {
                                int rc = !strcmp(k, "fields")
                                             ? merge_map(a, y, val, &m->fields, &m->nfields,
                                                         file, key, err)
                                         : !strcmp(k, "text")
                                             ? merge_map(a, y, val, &m->texts, &m->ntexts, file,
                                                         key, err)
                                             : merge_map(a, y, val, &m->overrides,
                                                         &m->noverrides, file, key, err);
                                if (rc)
                                        return rc;
                        }
                } else if (k[0] == '_' || !strcmp(k, "description")) {
                        /* comments */
                } else {
                        return err_set(err, ERR_INPUT, "%s:%d:%d: unknown key '%s' in metric '%s'",
                                       file, ydoc_line(ydoc_key(y, v, i)),
                                       ydoc_col(ydoc_key(y, v, i)), k, key);
                }
        }
        return 0;
}

static void named_merge(struct arch *a, struct named_expr **arr, size_t *n, struct smap *at,
                        const char *name, const char *src, const char *file, yaml_node_t *node)
{
        /* at: name -> index in *arr, kept while loading (a list of hundreds of descriptions
         * searched name by name cost 2 M instructions a load) */
        int idx;
        size_t j;
        if (smap_get(at, name, &idx)) {
                j = (size_t)idx;
        } else {
                j = *n;
                *arr = xrealloc(*arr, (*n + 1) * sizeof **arr);
                memset(&(*arr)[j], 0, sizeof **arr);
                (*arr)[j].name = arena_strdup(&a->ar, name);
                (*n)++;
                smap_put(at, name, (int)j);
        }
        (*arr)[j].src = arena_strdup(&a->ar, src);
        (*arr)[j].loc.file = file;
        (*arr)[j].loc.line = ydoc_line(node);
        (*arr)[j].loc.col = ydoc_col(node);
}

/* `pass_counts:` COUNT: "KEY KEY ..." (the data keys of the sets that need COUNT hardware
 * passes; a leaf's replace its parent's, null empties them) */
static int merge_pass_counts(struct arch *a, struct ydoc *y, yaml_node_t *sec, const char *path,
                             struct err *err)
{
        free(a->pass_keys);
        free(a->pass_vals);
        a->pass_keys = NULL;
        a->pass_vals = NULL;
        a->npass_counts = 0;
        if (ydoc_is_null(sec))
                return 0;
        if (sec->type != YAML_MAPPING_NODE)
                return err_set(err, ERR_INPUT, "%s:%d:%d: 'pass_counts' must be a mapping", path,
                               ydoc_line(sec), ydoc_col(sec));
        size_t cap = 0;
        for (size_t i = 0; i < ydoc_len(sec); i++) {
                yaml_node_t *kn = ydoc_key(y, sec, i), *vn = ydoc_val(y, sec, i);
                const char *k = ydoc_str(kn), *v = ydoc_str(vn);
                double d;
                if (!k || parse_double(k, &d) || !(d >= 1 && d <= 10000) || d != (int)d || !v)
                        return err_set(err, ERR_INPUT,
                                       "%s:%d:%d: pass_counts: a count of 1 to 10000, then its "
                                       "keys",
                                       path, ydoc_line(kn), ydoc_col(kn));
                for (const char *p = v + strspn(v, " \n"); *p; p += strspn(p, " \n")) {
                        size_t len = strcspn(p, " \n");
                        if (len != 16 || strspn(p, "0123456789abcdef") < 16)
                                return err_set(err, ERR_INPUT,
                                               "%s:%d:%d: pass_counts: '%.*s' is no key of 16 "
                                               "hex digits",
                                               path, ydoc_line(vn), ydoc_col(vn),
                                               (int)(len < 40 ? len : 40), p);
                        xgrow(&a->pass_keys, &cap, a->npass_counts + 1, sizeof *a->pass_keys);
                        a->pass_vals = xrealloc(a->pass_vals, cap * sizeof *a->pass_vals);
                        char key[17];
                        memcpy(key, p, 16);
                        key[16] = 0;
                        a->pass_keys[a->npass_counts] = arena_strdup(&a->ar, key);
                        a->pass_vals[a->npass_counts++] = (int)d;
                        p += len;
                }
        }
        return 0;
}

static int merge_file(struct arch *a, const char *path, const struct ysrc *src,
                      struct err *err)
{
        struct ydoc y;
        int rc = ydoc_load_src(&y, path, src, err);
        if (rc)
                return rc;
        const char *file = a->files[a->nfiles - 1];
        yaml_node_t *root = ydoc_root(&y);
        yaml_node_t *sec;
        /* these sections are read pair by pair: a list or a scalar there is an error, not
         * a silently empty section (fuzz_yaml_metrics read a list as pairs) */
        static const char *const maps[] = {"builtins", "normalizations", "defaults",
                                           "block_limits", "titles", "words"};
        for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
                if ((sec = ydoc_get(&y, root, maps[i])) && sec->type != YAML_MAPPING_NODE &&
                    !ydoc_is_null(sec)) {
                        rc = err_set(err, ERR_INPUT, "%s:%d:%d: '%s' must be a mapping", path,
                                     ydoc_line(sec), ydoc_col(sec), maps[i]);
                        goto out;
                }
        /* named formulas and values merge name by name */
        const struct {
                const char *sec;
                struct named_expr **arr;
                size_t *n;
                struct smap *at;
        } named[] = {{"builtins", &a->builtins, &a->nbuiltins, &a->named_at[0]},
                     {"normalizations", &a->norms, &a->nnorms, &a->named_at[1]},
                     {"defaults", &a->defaults, &a->ndefaults, &a->named_at[2]}};
        for (size_t j = 0; j < sizeof named / sizeof *named; j++) {
                if (!(sec = ydoc_get(&y, root, named[j].sec)))
                        continue;
                for (size_t i = 0; i < ydoc_len(sec); i++) {
                        const char *k = ydoc_str(ydoc_key(&y, sec, i));
                        yaml_node_t *v = ydoc_val(&y, sec, i);
                        if (k && ydoc_str(v))
                                named_merge(a, named[j].arr, named[j].n, named[j].at, k,
                                            ydoc_str(v), file, v);
                }
        }
        arch_merge_words(a, &y, root);
        if ((rc = arch_merge_models(a, &y, root, path, err)))
                goto out;
        if ((rc = arch_merge_counters(a, &y, root, path, err)))
                goto out;
        if ((rc = arch_merge_roofline(a, &y, root, path, err)))
                goto out;
        if ((sec = ydoc_get(&y, root, "chip")))
                a->chip = ydoc_is_null(sec) || !ydoc_str(sec)
                              ? NULL
                              : arena_strdup(&a->ar, ydoc_str(sec));
        if ((sec = ydoc_get(&y, root, "pass_counts")) && (rc = merge_pass_counts(a, &y, sec, path,
                                                                                  err)))
                goto out;
        if ((sec = ydoc_get(&y, root, "accumulate_value")))
                a->accum_value = ydoc_is_null(sec) || !ydoc_str(sec)
                                     ? NULL
                                     : arena_strdup(&a->ar, ydoc_str(sec));
        /* lists: a list replaces the parent's; null empties it */
        const struct {
                const char *sec;
                char ***arr;
                size_t *n;
        } lists[] = {{"per_pass", &a->per_pass, &a->nper_pass},
                     {"ip_blocks", &a->ip_blocks, &a->nip_blocks},
                     {"instrumented", &a->instrumented, &a->ninstrumented},
                     {"launch", &a->launch, &a->nlaunch}};
        for (size_t j = 0; j < sizeof lists / sizeof *lists; j++) {
                if (!(sec = ydoc_get(&y, root, lists[j].sec)))
                        continue;
                char **arr = *lists[j].arr;
                free(arr);
                *lists[j].arr = NULL;
                *lists[j].n = 0;
                if (sec->type != YAML_SEQUENCE_NODE && !ydoc_is_null(sec)) {
                        rc = err_set(err, ERR_INPUT, "%s:%d:%d: '%s' must be a list", path,
                                     ydoc_line(sec), ydoc_col(sec), lists[j].sec);
                        goto out;
                }
                size_t n = ydoc_is_null(sec) ? 0 : ydoc_len(sec);
                arr = *lists[j].arr = xcalloc(n ? n : 1, sizeof *arr);
                for (size_t i = 0; i < n; i++) {
                        const char *v = ydoc_str(ydoc_item(&y, sec, i));
                        if (v && *v)
                                arr[(*lists[j].n)++] = arena_strdup(&a->ar, v);
                }
        }
        if ((sec = ydoc_get(&y, root, "block_limits"))) {
                for (size_t i = 0; i < ydoc_len(sec); i++) {
                        const char *k = ydoc_str(ydoc_key(&y, sec, i));
                        const char *v = ydoc_str(ydoc_val(&y, sec, i));
                        double d;
                        /* a small whole number: (int) of a huge double is undefined */
                        if (!k || !v || parse_double(v, &d) || !(d >= 0 && d <= 1000) ||
                            d != (int)d) {
                                rc = err_set(err, ERR_INPUT, "%s: bad block limit", path);
                                goto out;
                        }
                        size_t j;
                        for (j = 0; j < a->nlimits; j++)
                                if (!strcmp(a->limits[j].block, k))
                                        break;
                        if (j == a->nlimits) {
                                a->limits = xrealloc(a->limits, (j + 1) * sizeof *a->limits);
                                a->limits[j].block = arena_strdup(&a->ar, k);
                                a->nlimits++;
                        }
                        a->limits[j].limit = (int)d;
                }
        }
        if ((sec = ydoc_get(&y, root, "metrics"))) {
                if (sec->type != YAML_MAPPING_NODE && !ydoc_is_null(sec)) {
                        rc = err_set(err, ERR_INPUT, "%s:%d:%d: 'metrics' must be a mapping",
                                     path, ydoc_line(sec), ydoc_col(sec));
                        goto out;
                }
                for (size_t i = 0; i < ydoc_len(sec); i++) {
                        const char *k = ydoc_str(ydoc_key(&y, sec, i));
                        if (!k || k[0] == '_')
                                continue;
                        if ((rc = merge_metric(a, &y, k, ydoc_val(&y, sec, i), file, err)))
                                goto out;
                }
        }
        /* one line a metric: what it measures (given to the metrics once all are read) */
        if ((sec = ydoc_get(&y, root, "descriptions"))) {
                if (sec->type != YAML_MAPPING_NODE && !ydoc_is_null(sec)) {
                        rc = err_set(err, ERR_INPUT,
                                     "%s:%d:%d: 'descriptions' must be a mapping", path,
                                     ydoc_line(sec), ydoc_col(sec));
                        goto out;
                }
                for (size_t i = 0; i < ydoc_len(sec); i++) {
                        const char *k = ydoc_str(ydoc_key(&y, sec, i));
                        yaml_node_t *v = ydoc_val(&y, sec, i);
                        if (k && ydoc_str(v))
                                named_merge(a, &a->descs, &a->ndescs, &a->named_at[3], k,
                                            ydoc_str(v), file, v);
                }
        }
out:
        ydoc_free(&y);
        return rc;
}

/* `same_as: KEY`: the metric takes KEY's expr and table (KEY's own reference followed to a
 * metric with a formula). A key the architecture lacks, or a circle, is an error naming the
 * reference. */
static int resolve_same_as(struct arch *a, struct err *err)
{
        for (size_t i = 0; i < a->nmetrics; i++) {
                struct metric *m = &a->metrics[i];
                if (!m->same_as)
                        continue;
                const struct metric *s = m;
                for (size_t hops = 0; s->same_as; hops++) {
                        const char *to = s->same_as;
                        if (hops == a->nmetrics || !(s = arch_metric(a, to)))
                                return err_set(err, ERR_INPUT,
                                               "%s:%d:%d: metric '%s' is 'same_as: %s', %s",
                                               m->same_as_loc.file, m->same_as_loc.line,
                                               m->same_as_loc.col, m->key, m->same_as,
                                               s ? "which leads in a circle"
                                                 : "which this architecture lacks");
                }
                if (m->table && (!s->table || strcmp(m->table, s->table)))
                        return err_set(err, ERR_INPUT,
                                       "%s:%d:%d: metric '%s' gives table '%s', but its formula "
                                       "('same_as: %s') reads %s",
                                       m->same_as_loc.file, m->same_as_loc.line, m->same_as_loc.col,
                                       m->key, m->table, m->same_as,
                                       s->table ? s->table : "pmc_perf");
                /* s's texts: they live as long as the arena */
                field_clear(&m->expr);
                if (s->expr.src) {
                        m->expr.key = s->expr.key;
                        m->expr.src = s->expr.src;
                        m->expr.loc = s->expr.loc;
                }
                m->table = s->table;
        }
        return 0;
}

static int parse_field(struct arch *a, struct metric_field *f, const char *what,
                       struct err *err)
{
        if (!f->src || f->expr)
                return 0;
        f->expr = expr_parse_in(&a->ar, f->src, &f->loc, what, err);
        return f->expr ? 0 : ERR_INPUT;
}

static int parse_all(struct arch *a, struct err *err)
{
        int rc;
        for (size_t i = 0; i < a->nbuiltins; i++) {
                struct named_expr *b = &a->builtins[i];
                if (!(b->expr = expr_parse_in(&a->ar, b->src, &b->loc, b->name, err)))
                        return ERR_INPUT;
        }
        for (size_t i = 0; i < a->nnorms; i++) {
                struct named_expr *b = &a->norms[i];
                if (!(b->expr = expr_parse_in(&a->ar, b->src, &b->loc, b->name, err)))
                        return ERR_INPUT;
        }
        for (size_t i = 0; i < a->nmetrics; i++) {
                struct metric *m = &a->metrics[i];
                m->is_template = (m->name && strchr(m->name, '@')) ||
                                 (m->expr.src && strchr(m->expr.src, '@'));
                for (size_t j = 0; j < m->nfields && !m->is_template; j++)
                        m->is_template = strchr(m->fields[j].src, '@') != NULL;
                if (m->is_template)
                        continue; /* parsed per channel when instantiated */
                if ((rc = parse_field(a, &m->expr, m->key, err)) ||
                    (rc = parse_field(a, &m->peak, m->key, err)))
                        return rc;
                for (size_t j = 0; j < m->nfields; j++)
                        if ((rc = parse_field(a, &m->fields[j], m->key, err)))
                                return rc;
                for (size_t j = 0; j < m->noverrides; j++)
                        if ((rc = parse_field(a, &m->overrides[j], m->key, err)))
                                return rc;
        }
        return 0;
}

/* Drop tombstones left by `null` (entries the index no longer points at) and rebuild
 * the index. */
static void compact(struct arch *a)
{
        size_t w = 0;
        struct smap live = a->index;
        memset(&a->index, 0, sizeof a->index);
        for (size_t i = 0; i < a->nmetrics; i++) {
                struct metric *m = &a->metrics[i];
                int idx;
                if (!smap_get(&live, m->key, &idx) || idx != (int)i) {
                        metric_clear(m);
                        continue;
                }
                if (!m->name)
                        m->name = m->key;
                if (w != i)
                        a->metrics[w] = *m;
                smap_put(&a->index, a->metrics[w].key, (int)w);
                w++;
        }
        smap_free(&live);
        a->nmetrics = w;
}

/* The family chain of target among the family files ff, leaf first: its indices into ff
 * (at most 32). */
static int find_chain(const struct family_file *ff, size_t nf, const char *target,
                      int chain[32], size_t *nchain, struct err *err)
{
        int leaf = -1;
        for (size_t i = 0; i < nf && leaf < 0; i++)
                for (size_t j = 0; j < ff[i].narchs; j++)
                        if (!strcmp(ff[i].archs[j], target))
                                leaf = (int)i;
        if (leaf < 0) {
                struct strbuf sb = {0};
                for (size_t i = 0; i < nf; i++)
                        for (size_t j = 0; j < ff[i].narchs; j++)
                                sb_addf(&sb, "%s%s", sb.len ? ", " : "", ff[i].archs[j]);
                int rc = err_set(err, ERR_INPUT, "unknown architecture '%s' (supported: %s)",
                                 target, sb.len ? sb.buf : "none");
                sb_free(&sb);
                return rc;
        }
        size_t nc = 0;
        for (int cur = leaf; cur >= 0;) {
                if (nc == 32)
                        return err_set(err, ERR_INPUT, "%s: inheritance too deep or circular",
                                       ff[leaf].path);
                for (size_t k = 0; k < nc; k++)
                        if (chain[k] == cur)
                                return err_set(err, ERR_INPUT, "%s: circular inheritance",
                                               ff[cur].path);
                chain[nc++] = cur;
                const char *parent = ff[cur].inherits;
                if (!parent)
                        break;
                int found = -1;
                for (size_t i = 0; i < nf; i++)
                        if (!strcmp(ff[i].family, parent))
                                found = (int)i;
                if (found < 0)
                        return err_set(err, ERR_INPUT, "%s: inherits unknown family '%s'",
                                       ff[cur].path, parent);
                cur = found;
        }
        *nchain = nc;
        return 0;
}

static char *chain_text(const struct family_file *ff, const int *chain, size_t nc)
{
        struct strbuf sb = {0};
        for (size_t k = 0; k < nc; k++)
                sb_addf(&sb, "%s%s", k ? " < " : "", ff[chain[k]].family);
        return sb_detach(&sb);
}

int arch_chain(const char *dir, const char *target, char **chain_out, struct err *err)
{
        struct family_file *ff = NULL;
        size_t nf = 0, nc = 0;
        int chain[32];
        int rc = scan_families(dir, &ff, &nf, err);
        if (!rc && !(rc = find_chain(ff, nf, target, chain, &nc, err)))
                *chain_out = chain_text(ff, chain, nc);
        family_files_free(ff, nf);
        return rc;
}

int arch_load(const char *dir, const char *target, struct arch *a, struct err *err)
{
        struct family_file *ff = NULL;
        size_t nf = 0;
        int rc;
        memset(a, 0, sizeof *a);
        arena_init(&a->ar, 16384); /* an AMD family's texts: about 200 KB */
        if ((rc = scan_families(dir, &ff, &nf, err)))
                return rc;
        int chain[32];
        size_t nc = 0;
        if ((rc = find_chain(ff, nf, target, chain, &nc, err)))
                goto out;
        int leaf = chain[0];
        a->target = arena_strdup(&a->ar, target);
        a->family = arena_strdup(&a->ar, ff[leaf].family);
        char *ct = chain_text(ff, chain, nc);
        a->chain = arena_strdup(&a->ar, ct);
        free(ct);
        size_t nfiles = 0;
        for (size_t k = 0; k < nc; k++)
                nfiles += 1 + ff[chain[k]].nover;
        a->files = xcalloc(nfiles, sizeof *a->files);
        for (size_t k = nc; k-- > 0;) {
                const struct family_file *f = &ff[chain[k]];
                for (size_t o = 0; o <= f->nover; o++) {
                        const char *p = o ? f->over[o - 1] : f->path;
                        a->files[a->nfiles++] = arena_strdup(&a->ar, p);
                        if ((rc = merge_file(a, p, o ? &f->over_src[o - 1] : &f->src, err)))
                                goto out;
                }
        }
        for (size_t i = 0; i < a->ndescs && !rc; i++) {
                int idx;
                const struct named_expr *d = &a->descs[i];
                if (!smap_get(&a->index, d->name, &idx))
                        rc = err_set(err, ERR_INPUT, "%s:%d:%d: a description of '%s', which is "
                                     "no metric", d->loc.file, d->loc.line, d->loc.col, d->name);
                else if (idx >= 0) /* (a metric a later file dropped: -1) */
                        a->metrics[idx].desc = d->src;
        }
        for (int l = 0; l < 4; l++)
                smap_free(&a->named_at[l]);
        if (rc)
                goto out;
        compact(a);
        if (!(rc = resolve_same_as(a, err)))
                rc = parse_all(a, err);
        if (!rc)
                rc = arch_check_roofline(a, err);
out:
        family_files_free(ff, nf);
        if (rc)
                arch_free(a);
        return rc;
}

void arch_free(struct arch *a)
{
        arch_free_words(a);
        arch_free_models(a);
        arch_free_counters(a);
        roof_spec_free(&a->roof);
        for (size_t i = 0; i < a->nmetrics; i++)
                metric_clear(&a->metrics[i]);
        free(a->metrics);
        smap_free(&a->index);
        for (int l = 0; l < 4; l++)
                smap_free(&a->named_at[l]);
        struct named_expr *lists[3] = {a->builtins, a->norms, a->defaults};
        size_t counts[3] = {a->nbuiltins, a->nnorms, a->ndefaults};
        for (int l = 0; l < 3; l++) {
                for (size_t i = 0; i < counts[l]; i++)
                        expr_free(lists[l][i].expr);
                free(lists[l]);
        }
        FREE_ALL(a->limits, a->files, a->per_pass, a->ip_blocks, a->instrumented, a->launch,
                 a->descs);
        FREE_ALL(a->pass_keys, a->pass_vals);
        arena_free(&a->ar); /* every text */
        memset(a, 0, sizeof *a);
}
