/* A family's `roofline:` section in its metric file: the memory levels and compute ceilings
 * of the empirical roofline, in drawing order, each with its roofline.csv column and the
 * metric giving its amount per dispatch (docs/FORMATS.md). A child's section replaces its
 * parent's whole; `roofline: null` removes it. */
#include "roofspec.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void level_clear(struct roof_level_def *l)
{
        free(l->name);
        free_all((void *const *)l->also, l->nalso);
        free(l->also);
        free(l->column);
        free(l->row);
        free(l->bytes);
}

static void ceiling_clear(struct roof_ceiling_def *c)
{
        free(c->unit);
        free(c->type);
        free(c->name);
        free(c->ops);
        free(c->column);
        free(c->row);
}

void roof_spec_free(struct roof_spec *s)
{
        for (size_t i = 0; i < s->nlevels; i++)
                level_clear(&s->levels[i]);
        for (size_t i = 0; i < s->nceilings; i++)
                ceiling_clear(&s->ceilings[i]);
        free(s->levels);
        free(s->ceilings);
        free(s->file);
        free(s->total);
        free(s->duration);
        memset(s, 0, sizeof *s);
}

/* the parse of one file's section: where it is, for messages */
struct rp {
        struct ydoc *y;
        const char *path;
        struct err *err;
};

static int bad(const struct rp *p, yaml_node_t *n, const char *fmt, ...)
{
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        return err_set(p->err, ERR_INPUT, "%s:%d:%d: roofline: %s", p->path, n ? ydoc_line(n) : 0,
                       n ? ydoc_col(n) : 0, msg);
}

/* a non-empty scalar, or NULL */
static const char *text_of(yaml_node_t *n)
{
        const char *s = n ? ydoc_str(n) : NULL;
        return s && *s && !ydoc_is_null(n) ? s : NULL;
}

/* every key of map is one of keys (NULL-ended), the required ones (before NULL in req) are
 * there with a non-empty text */
static int check_keys(const struct rp *p, yaml_node_t *map, const char *what,
                      const char *const *keys, const char *const *req)
{
        if (!map || map->type != YAML_MAPPING_NODE)
                return bad(p, map,
                           strcmp(what, "roofline") ? "each entry of '%s' must be a mapping"
                                                    : "'%s' must be a mapping",
                           what);
        for (size_t i = 0; i < ydoc_len(map); i++) {
                yaml_node_t *kn = ydoc_key(p->y, map, i);
                const char *k = ydoc_str(kn);
                size_t j = 0;
                while (k && keys[j] && strcmp(keys[j], k))
                        j++;
                if (!k || !keys[j])
                        return bad(p, kn, "unknown key '%s' in '%s'", k ? k : "", what);
        }
        for (size_t j = 0; req[j]; j++)
                if (!text_of(ydoc_get(p->y, map, req[j])))
                        return bad(p, map, "an entry of '%s' lacks '%s'", what, req[j]);
        return 0;
}

static char *dup_of(struct ydoc *y, yaml_node_t *map, const char *key)
{
        const char *s = text_of(ydoc_get(y, map, key));
        return s ? xstrdup(s) : NULL;
}

static int read_level(const struct rp *p, yaml_node_t *m, struct roof_level_def *l)
{
        static const char *const keys[] = {"name", "also", "mark", "column", "row", "bytes", NULL};
        static const char *const req[] = {"name", "mark", "column", "bytes", NULL};
        int rc = check_keys(p, m, "levels", keys, req);
        if (rc)
                return rc;
        yaml_node_t *mk = ydoc_get(p->y, m, "mark");
        if (strlen(text_of(mk)) != 1)
                return bad(p, mk, "a level's mark is one character, not '%s'", text_of(mk));
        l->mark = text_of(mk)[0];
        l->name = dup_of(p->y, m, "name");
        l->column = dup_of(p->y, m, "column");
        l->row = dup_of(p->y, m, "row");
        l->bytes = dup_of(p->y, m, "bytes");
        yaml_node_t *also = ydoc_get(p->y, m, "also");
        if (also && also->type != YAML_SEQUENCE_NODE)
                return bad(p, also, "'also' must be a list of names");
        for (size_t i = 0; also && i < ydoc_len(also); i++) {
                const char *s = text_of(ydoc_item(p->y, also, i));
                if (!s)
                        return bad(p, also, "'also' must be a list of names");
                l->also = xrealloc(l->also, (l->nalso + 1) * sizeof *l->also);
                l->also[l->nalso++] = xstrdup(s);
        }
        return 0;
}

static int read_ceiling(const struct rp *p, yaml_node_t *m, struct roof_ceiling_def *c)
{
        static const char *const keys[] = {"unit",   "type", "kind", "integer",
                                           "column", "row",  "ops",  NULL};
        static const char *const req[] = {"unit", "type", "kind", "ops", NULL};
        int rc = check_keys(p, m, "ceilings", keys, req);
        if (rc)
                return rc;
        yaml_node_t *kind = ydoc_get(p->y, m, "kind"), *in = ydoc_get(p->y, m, "integer");
        if (strcmp(text_of(kind), "vector") && strcmp(text_of(kind), "matrix"))
                return bad(p, kind, "a ceiling's kind is vector or matrix, not '%s'",
                           text_of(kind));
        c->matrix = !strcmp(text_of(kind), "matrix");
        if (in && (!text_of(in) || (strcmp(text_of(in), "true") && strcmp(text_of(in), "false"))))
                return bad(p, in, "'integer' is true or false");
        c->integer = in && !strcmp(text_of(in), "true");
        c->unit = dup_of(p->y, m, "unit");
        c->type = dup_of(p->y, m, "type");
        c->name = xasprintf("%s %s", c->unit, c->type);
        c->ops = dup_of(p->y, m, "ops");
        c->column = dup_of(p->y, m, "column");
        c->row = dup_of(p->y, m, "row");
        return 0;
}

static int read_section(const struct rp *p, yaml_node_t *sec, struct roof_spec *s)
{
        static const char *const keys[] = {"total", "duration", "levels", "ceilings", NULL};
        static const char *const req[] = {"total", "duration", NULL};
        int rc = check_keys(p, sec, "roofline", keys, req);
        if (rc)
                return rc;
        s->total = dup_of(p->y, sec, "total");
        s->duration = dup_of(p->y, sec, "duration");
        yaml_node_t *lv = ydoc_get(p->y, sec, "levels"), *cl = ydoc_get(p->y, sec, "ceilings");
        if (!lv || lv->type != YAML_SEQUENCE_NODE || !ydoc_len(lv) ||
            ydoc_len(lv) > ROOF_MAX_LEVELS)
                return bad(p, lv ? lv : sec, "'levels' must list 1 to %d memory levels",
                           ROOF_MAX_LEVELS);
        if (!cl || cl->type != YAML_SEQUENCE_NODE || !ydoc_len(cl) ||
            ydoc_len(cl) > ROOF_MAX_CEILINGS)
                return bad(p, cl ? cl : sec, "'ceilings' must list 1 to %d compute ceilings",
                           ROOF_MAX_CEILINGS);
        /* counted before they are read: a half-read entry is freed with the rest */
        s->levels = xcalloc(ydoc_len(lv), sizeof *s->levels);
        for (size_t i = 0; i < ydoc_len(lv); i++)
                if ((rc = read_level(p, ydoc_item(p->y, lv, s->nlevels++), &s->levels[i])))
                        return rc;
        s->ceilings = xcalloc(ydoc_len(cl), sizeof *s->ceilings);
        for (size_t i = 0; i < ydoc_len(cl); i++)
                if ((rc = read_ceiling(p, ydoc_item(p->y, cl, s->nceilings++), &s->ceilings[i])))
                        return rc;
        /* a level is named once, by its name or an alias */
        for (size_t i = 1; i < s->nlevels; i++)
                for (size_t k = 0; k <= s->levels[i].nalso; k++) {
                        const char *n = k ? s->levels[i].also[k - 1] : s->levels[i].name;
                        for (size_t j = 0; j < i; j++)
                                if (roof_level_names(&s->levels[j], n))
                                        return bad(p, lv, "the level name '%s' is used twice", n);
                }
        return 0;
}

int roof_level_names(const struct roof_level_def *l, const char *name)
{
        if (!strcasecmp(l->name, name))
                return 1;
        for (size_t i = 0; i < l->nalso; i++)
                if (!strcasecmp(l->also[i], name))
                        return 1;
        return 0;
}

int arch_merge_roofline(struct arch *a, struct ydoc *y, yaml_node_t *root, const char *path,
                        struct err *err)
{
        yaml_node_t *sec = ydoc_get(y, root, "roofline");
        if (!sec)
                return 0;
        roof_spec_free(&a->roof);
        if (ydoc_is_null(sec))
                return 0;
        struct rp p = {y, path, err};
        struct roof_spec s = {0};
        int rc = read_section(&p, sec, &s);
        if (rc) {
                roof_spec_free(&s);
                return rc;
        }
        s.file = xstrdup(path);
        s.line = ydoc_line(sec);
        a->roof = s;
        return 0;
}

int arch_check_roofline(const struct arch *a, struct err *err)
{
        const struct roof_spec *s = &a->roof;
        if (!s->file)
                return 0;
        const char *bad_key = NULL;
        for (size_t i = 0; !bad_key && i < s->nlevels; i++)
                if (!arch_metric(a, s->levels[i].bytes))
                        bad_key = s->levels[i].bytes;
        for (size_t i = 0; !bad_key && i < s->nceilings; i++)
                if (!arch_metric(a, s->ceilings[i].ops))
                        bad_key = s->ceilings[i].ops;
        if (!bad_key && !arch_metric(a, s->total))
                bad_key = s->total;
        if (!bad_key && !arch_metric(a, s->duration))
                bad_key = s->duration;
        if (bad_key)
                return err_set(err, ERR_INPUT, "%s:%d: roofline: '%s' is no metric of %s", s->file,
                               s->line, bad_key, a->chain);
        return 0;
}
