/* Load rules/<family>.yaml files: find the family serving an architecture, resolve the
 * inherits: chain (root first, leaf last, merging rule by rule and field by field), parse
 * every formula once. */
#include "rules.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/yamldoc.h"

/* ---- the files of a rules directory ---- */

struct rfile {
        char *path, *family, *inherits;
        struct ysrc src; /* the text, read once: the header scan and the full load use it */
};

static void rfiles_free(struct rfile *f, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(f[i].path);
                free(f[i].family);
                free(f[i].inherits);
                ysrc_free(&f[i].src);
        }
        free(f);
}

static int scan(const char *dir, struct rfile **out, size_t *nout, struct err *err)
{
        DIR *d = opendir(dir);
        if (!d)
                return err_set(err, ERR_INPUT, "cannot open rules directory '%s'", dir);
        struct rfile *f = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        int rc = 0;
        while (!rc && (de = readdir(d))) {
                size_t l = strlen(de->d_name);
                if (l <= 5 || strcmp(de->d_name + l - 5, ".yaml"))
                        continue;
                struct ydoc y;
                char *path = xasprintf("%s/%s", dir, de->d_name);
                /* a family's file is found by its header: a few lines are parsed here,
                 * the chain's files in full once chosen */
                struct ysrc src;
                if ((rc = ysrc_open(&src, path, err))) {
                        free(path);
                        break;
                }
                rc = ydoc_load_head(&y, path, &src, YDOC_HEAD_RULES, err);
                if (rc) {
                        ysrc_free(&src);
                        free(path);
                        break;
                }
                yaml_node_t *root = ydoc_root(&y);
                const char *fam = ydoc_str(ydoc_get(&y, root, "family"));
                const char *inh = ydoc_str(ydoc_get(&y, root, "inherits"));
                if (!root || root->type != YAML_MAPPING_NODE || !fam || !*fam) {
                        rc = err_set(err, ERR_INPUT, "%s: not a rules file (no 'family:')", path);
                        ysrc_free(&src);
                        free(path);
                } else {
                        xgrow(&f, &cap, n + 1, sizeof *f);
                        f[n].path = path;
                        f[n].family = xstrdup(fam);
                        f[n].inherits = inh && *inh ? xstrdup(inh) : NULL;
                        f[n].src = src;
                        n++;
                }
                ydoc_free(&y);
        }
        closedir(d);
        if (rc) {
                rfiles_free(f, n);
                return rc;
        }
        *out = f;
        *nout = n;
        return 0;
}

static const struct rfile *find_family(const struct rfile *f, size_t n, const char *fam)
{
        for (size_t i = 0; i < n; i++)
                if (!strcmp(f[i].family, fam))
                        return &f[i];
        return NULL;
}

/* ---- merging ---- */

static void rexpr_clear(struct rule_expr *e)
{
        free(e->src);
        expr_free(e->expr);
        memset(e, 0, sizeof *e);
}

static void strs_free(char **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

static void case_clear(struct rule_case *c)
{
        for (size_t i = 0; i < c->n; i++)
                free(c->names[i]);
        free(c->names);
        free(c->vals);
        memset(c, 0, sizeof *c);
}

static void case_put(struct rule_case *c, const char *name, double v)
{
        /* the first byte before strcmp: a rule's case has dozens of names, so this search
         * is called about 900 times when the rules load, 11,600 compares */
        for (size_t i = 0; i < c->n; i++)
                if (c->names[i][0] == name[0] && !strcmp(c->names[i], name)) {
                        c->vals[i] = v;
                        return;
                }
        if (c->n == c->cap) {
                c->cap = c->cap ? c->cap * 2 : 8;
                c->names = xrealloc(c->names, c->cap * sizeof *c->names);
                c->vals = xrealloc(c->vals, c->cap * sizeof *c->vals);
        }
        c->names[c->n] = xstrdup(name);
        c->vals[c->n++] = v;
}

/* {name: number, ...}; "<<: *anchor" (or a list of them) merges a shared set of inputs,
 * the keys after it override. c NULL: only checked (the errors the same), nothing kept. */
static int add_case(struct ydoc *y, yaml_node_t *v, struct rule_case *c, const char *file,
                    const char *what, int depth, struct err *err)
{
        if (v->type != YAML_MAPPING_NODE || depth > 8)
                return err_set(err, ERR_INPUT, "%s:%d:%d: '%s' must be a mapping of numbers",
                               file, ydoc_line(v), ydoc_col(v), what);
        for (size_t i = 0; i < ydoc_len(v); i++) {
                const char *k = ydoc_str(ydoc_key(y, v, i));
                yaml_node_t *val = ydoc_val(y, v, i);
                const char *s = ydoc_str(val);
                double d;
                int rc = 0;
                int merge = k && !strcmp(k, "<<");
                if (merge && val->type == YAML_SEQUENCE_NODE) {
                        for (size_t j = 0; j < ydoc_len(val) && !rc; j++)
                                rc = add_case(y, ydoc_item(y, val, j), c, file, what, depth + 1,
                                              err);
                } else if (merge) {
                        rc = add_case(y, val, c, file, what, depth + 1, err);
                } else if (!k || !s || parse_double(s, &d)) {
                        rc = err_set(err, ERR_INPUT, "%s:%d:%d: '%s': values must be numbers",
                                     file, ydoc_line(val), ydoc_col(val), what);
                } else if (c) {
                        case_put(c, k, d);
                }
                if (rc)
                        return rc;
        }
        return 0;
}

/* a rule's fires/silent inputs into c, or (keep 0) only checked */
static int set_case(struct ydoc *y, yaml_node_t *v, struct rule_case *c, int keep,
                    const char *file, const char *what, struct err *err)
{
        case_clear(c);
        return ydoc_is_null(v) ? 0 : add_case(y, v, keep ? c : NULL, file, what, 0, err);
}

static void rule_clear(struct rule *r)
{
        case_clear(&r->fires);
        case_clear(&r->silent);
        free(r->id);
        free(r->title);
        free(r->severity);
        free(r->level);
        free(r->model);
        free(r->message);
        free(r->hint);
        rexpr_clear(&r->when);
        rexpr_clear(&r->gain);
        strs_free(r->evidence, r->nevidence);
        strs_free(r->unless, r->nunless);
        strs_free(r->explains, r->nexplains);
        memset(r, 0, sizeof *r);
}

static int set_text(struct ydoc *y, yaml_node_t *v, char **dst, const char *file,
                    const char *what, struct err *err)
{
        (void)y;
        if (ydoc_is_null(v)) {
                free(*dst);
                *dst = NULL;
                return 0;
        }
        if (!ydoc_str(v))
                return err_set(err, ERR_INPUT, "%s:%d:%d: '%s' must be a text", file,
                               ydoc_line(v), ydoc_col(v), what);
        free(*dst);
        *dst = xstrdup(ydoc_str(v));
        return 0;
}

static int set_expr(yaml_node_t *v, struct rule_expr *e, const char *file, const char *what,
                    struct err *err)
{
        rexpr_clear(e);
        if (ydoc_is_null(v))
                return 0;
        if (!ydoc_str(v))
                return err_set(err, ERR_INPUT, "%s:%d:%d: '%s' must be a formula", file,
                               ydoc_line(v), ydoc_col(v), what);
        e->src = xstrdup(ydoc_str(v));
        e->loc.file = file;
        e->loc.line = ydoc_line(v);
        e->loc.col = ydoc_col(v);
        e->expr = expr_parse(e->src, &e->loc, what, err);
        return e->expr ? 0 : ERR_INPUT;
}

/* a list of names (or one name) */
static int set_list(struct ydoc *y, yaml_node_t *v, char ***dst, size_t *n, const char *file,
                    const char *what, struct err *err)
{
        strs_free(*dst, *n);
        *dst = NULL;
        *n = 0;
        if (ydoc_is_null(v))
                return 0;
        if (ydoc_str(v)) {
                *dst = xcalloc(1, sizeof **dst);
                (*dst)[(*n)++] = xstrdup(ydoc_str(v));
                return 0;
        }
        if (v->type != YAML_SEQUENCE_NODE)
                return err_set(err, ERR_INPUT, "%s:%d:%d: '%s' must be a list", file,
                               ydoc_line(v), ydoc_col(v), what);
        size_t len = ydoc_len(v);
        *dst = xcalloc(len + 1, sizeof **dst);
        for (size_t i = 0; i < len; i++) {
                const char *s = ydoc_str(ydoc_item(y, v, i));
                if (!s)
                        return err_set(err, ERR_INPUT, "%s:%d:%d: items of '%s' must be names",
                                       file, ydoc_line(v), ydoc_col(v), what);
                (*dst)[(*n)++] = xstrdup(s);
        }
        return 0;
}

static struct rule *rule_slot(struct ruleset *rs, const char *id)
{
        for (size_t i = 0; i < rs->nrules; i++)
                if (!strcmp(rs->rules[i].id, id))
                        return &rs->rules[i];
        rs->rules = xrealloc(rs->rules, (rs->nrules + 1) * sizeof *rs->rules);
        struct rule *r = &rs->rules[rs->nrules++];
        memset(r, 0, sizeof *r);
        r->id = xstrdup(id);
        return r;
}

static int merge_rule(struct ruleset *rs, struct ydoc *y, const char *id, yaml_node_t *v,
                      const char *file, struct err *err)
{
        if (v->type != YAML_MAPPING_NODE)
                return err_set(err, ERR_INPUT, "%s:%d:%d: rule '%s' must be a mapping", file,
                               ydoc_line(v), ydoc_col(v), id);
        struct rule *r = rule_slot(rs, id);
        size_t n = ydoc_len(v);
        for (size_t i = 0; i < n; i++) {
                yaml_node_t *kn = ydoc_key(y, v, i), *val = ydoc_val(y, v, i);
                const char *k = ydoc_str(kn);
                int rc = 0;
                if (!k)
                        continue;
                /* "id.key", for messages (no printf: a rule has a dozen keys) */
                char wbuf[160], *what = wbuf;
                size_t li = strlen(id), lk = strlen(k);
                if (li + lk + 2 > sizeof wbuf)
                        what = xmalloc(li + lk + 2);
                memcpy(what, id, li);
                what[li] = '.';
                memcpy(what + li + 1, k, lk + 1);
                if (!strcmp(k, "title"))
                        rc = set_text(y, val, &r->title, file, what, err);
                else if (!strcmp(k, "severity"))
                        rc = set_text(y, val, &r->severity, file, what, err);
                else if (!strcmp(k, "level"))
                        rc = set_text(y, val, &r->level, file, what, err);
                else if (!strcmp(k, "model"))
                        rc = set_text(y, val, &r->model, file, what, err);
                else if (!strcmp(k, "message"))
                        rc = set_text(y, val, &r->message, file, what, err);
                else if (!strcmp(k, "hint"))
                        rc = set_text(y, val, &r->hint, file, what, err);
                else if (!strcmp(k, "when"))
                        rc = set_expr(val, &r->when, file, what, err);
                else if (!strcmp(k, "speedup") || !strcmp(k, "gain"))
                        rc = set_expr(val, &r->gain, file, what, err);
                else if (!strcmp(k, "evidence"))
                        rc = set_list(y, val, &r->evidence, &r->nevidence, file, what, err);
                else if (!strcmp(k, "unless"))
                        rc = set_list(y, val, &r->unless, &r->nunless, file, what, err);
                else if (!strcmp(k, "explains"))
                        rc = set_list(y, val, &r->explains, &r->nexplains, file, what, err);
                else if (!strcmp(k, "fires"))
                        rc = set_case(y, val, &r->fires, rs->cases, file, what, err);
                else if (!strcmp(k, "silent"))
                        rc = set_case(y, val, &r->silent, rs->cases, file, what, err);
                else if (!strcmp(k, "off"))
                        r->off = ydoc_str(val) && !strcmp(ydoc_str(val), "true");
                else if (k[0] != '_' && strcmp(k, "description"))
                        rc = err_set(err, ERR_INPUT, "%s:%d:%d: unknown key '%s' in rule '%s'",
                                     file, ydoc_line(kn), ydoc_col(kn), k, id);
                if (what != wbuf)
                        free(what);
                if (rc)
                        return rc;
        }
        return 0;
}

static int merge_value(struct ruleset *rs, const char *name, yaml_node_t *v, const char *file,
                       struct err *err)
{
        size_t j;
        for (j = 0; j < rs->nvalues; j++)
                if (!strcmp(rs->values[j].name, name))
                        break;
        if (j == rs->nvalues) {
                rs->values = xrealloc(rs->values, (j + 1) * sizeof *rs->values);
                memset(&rs->values[j], 0, sizeof *rs->values);
                rs->values[j].name = xstrdup(name);
                rs->nvalues++;
        }
        return set_expr(v, &rs->values[j].e, file, name, err);
}

static int merge_ceiling(struct ruleset *rs, struct ydoc *y, const char *id, yaml_node_t *v,
                         const char *file, struct err *err)
{
        if (v->type != YAML_MAPPING_NODE)
                return err_set(err, ERR_INPUT, "%s:%d:%d: ceiling '%s' must be a mapping", file,
                               ydoc_line(v), ydoc_col(v), id);
        size_t j;
        for (j = 0; j < rs->nceilings; j++)
                if (!strcmp(rs->ceilings[j].id, id))
                        break;
        if (j == rs->nceilings) {
                rs->ceilings = xrealloc(rs->ceilings, (j + 1) * sizeof *rs->ceilings);
                memset(&rs->ceilings[j], 0, sizeof *rs->ceilings);
                rs->ceilings[j].id = xstrdup(id);
                rs->nceilings++;
        }
        struct rule_ceiling *c = &rs->ceilings[j];
        for (size_t i = 0; i < ydoc_len(v); i++) {
                yaml_node_t *kn = ydoc_key(y, v, i), *val = ydoc_val(y, v, i);
                const char *k = ydoc_str(kn);
                int rc = 0;
                if (!k)
                        continue;
                if (!strcmp(k, "name"))
                        rc = set_text(y, val, &c->name, file, id, err);
                else if (!strcmp(k, "util"))
                        rc = set_expr(val, &c->util, file, id, err);
                else if (!strcmp(k, "evidence"))
                        rc = set_list(y, val, &c->evidence, &c->nevidence, file, id, err);
                else if (!strcmp(k, "required"))
                        c->required = ydoc_str(val) && !strcmp(ydoc_str(val), "true");
                else
                        rc = err_set(err, ERR_INPUT, "%s:%d:%d: unknown key '%s' in ceiling '%s'",
                                     file, ydoc_line(kn), ydoc_col(kn), k, id);
                if (rc)
                        return rc;
        }
        return 0;
}

/* sections read pair by pair: anything else there is an error */
static yaml_node_t *section(struct ydoc *y, yaml_node_t *root, const char *name,
                            const char *file, int *rc, struct err *err)
{
        yaml_node_t *s = ydoc_get(y, root, name);
        if (!s || ydoc_is_null(s))
                return NULL;
        if (s->type != YAML_MAPPING_NODE) {
                *rc = err_set(err, ERR_INPUT, "%s:%d:%d: '%s' must be a mapping", file,
                              ydoc_line(s), ydoc_col(s), name);
                return NULL;
        }
        return s;
}

static int merge_file(struct ruleset *rs, const char *file, const struct ysrc *src,
                      struct err *err)
{
        struct ydoc y;
        int rc = ydoc_load_src(&y, file, src, err);
        if (rc)
                return rc;
        yaml_node_t *root = ydoc_root(&y), *s;
        const char *tk = ydoc_str(ydoc_get(&y, root, "top_kernels"));
        const char *norm = ydoc_str(ydoc_get(&y, root, "normalization"));
        if (tk) {
                char *end;
                long v = strtol(tk, &end, 10);
                if (*end || v < 1 || v > 1000)
                        rc = err_set(err, ERR_INPUT, "%s: top_kernels must be 1 to 1000", file);
                rs->top_kernels = v;
        }
        if (norm) {
                free(rs->norm);
                rs->norm = xstrdup(norm);
        }
        if (!rc && (s = section(&y, root, "terms", file, &rc, err)))
                for (size_t i = 0; i < ydoc_len(s) && !rc; i++) {
                        const char *k = ydoc_str(ydoc_key(&y, s, i));
                        const char *v = ydoc_str(ydoc_val(&y, s, i));
                        if (!k || !*k || !v) {
                                rc = err_set(err, ERR_INPUT, "%s: terms: maps words to words",
                                             file);
                                break;
                        }
                        rs->term_from = xrealloc(rs->term_from,
                                                 (rs->nterms + 1) * sizeof *rs->term_from);
                        rs->term_to = xrealloc(rs->term_to, (rs->nterms + 1) * sizeof *rs->term_to);
                        rs->term_from[rs->nterms] = xstrdup(k);
                        rs->term_to[rs->nterms++] = xstrdup(v);
                }
        if (!rc && (s = section(&y, root, "values", file, &rc, err)))
                for (size_t i = 0; i < ydoc_len(s) && !rc; i++) {
                        const char *k = ydoc_str(ydoc_key(&y, s, i));
                        if (k)
                                rc = merge_value(rs, k, ydoc_val(&y, s, i), file, err);
                }
        if (!rc && (s = section(&y, root, "ceilings", file, &rc, err)))
                for (size_t i = 0; i < ydoc_len(s) && !rc; i++) {
                        const char *k = ydoc_str(ydoc_key(&y, s, i));
                        if (k)
                                rc = merge_ceiling(rs, &y, k, ydoc_val(&y, s, i), file, err);
                }
        if (!rc && (s = section(&y, root, "rules", file, &rc, err)))
                for (size_t i = 0; i < ydoc_len(s) && !rc; i++) {
                        const char *k = ydoc_str(ydoc_key(&y, s, i));
                        if (k)
                                rc = merge_rule(rs, &y, k, ydoc_val(&y, s, i), file, err);
                }
        ydoc_free(&y);
        return rc;
}

/* every rule that is on must be complete once the chain is merged */
static int check(struct ruleset *rs, struct err *err)
{
        static const char *const sev[] = {"high", "medium", "low", NULL};
        for (size_t i = 0; i < rs->nrules; i++) {
                struct rule *r = &rs->rules[i];
                if (r->off)
                        continue;
                const char *miss = !r->title     ? "title"
                                   : !r->when.expr ? "when"
                                   : !r->gain.expr ? "speedup"
                                   : !r->message   ? "message"
                                   : !r->severity  ? "severity"
                                   : !r->model     ? "model"
                                                   : NULL;
                if (miss)
                        return err_set(err, ERR_INPUT, "rules %s: rule '%s' has no '%s'",
                                       rs->chain, r->id, miss);
                size_t k;
                for (k = 0; sev[k] && strcmp(sev[k], r->severity); k++)
                        ;
                if (!sev[k])
                        return err_set(err, ERR_INPUT,
                                       "rules %s: rule '%s': severity must be high, medium or "
                                       "low, not '%s'",
                                       rs->chain, r->id, r->severity);
                for (size_t u = 0; u < r->nunless + r->nexplains; u++) {
                        const char *id =
                            u < r->nunless ? r->unless[u] : r->explains[u - r->nunless];
                        size_t j;
                        for (j = 0; j < rs->nrules && strcmp(rs->rules[j].id, id); j++)
                                ;
                        if (j == rs->nrules)
                                return err_set(err, ERR_INPUT,
                                               "rules %s: rule '%s': %s names no rule '%s'",
                                               rs->chain, r->id,
                                               u < r->nunless ? "unless" : "explains", id);
                }
        }
        for (size_t i = 0; i < rs->nceilings; i++)
                if (!rs->ceilings[i].name || !rs->ceilings[i].util.expr)
                        return err_set(err, ERR_INPUT, "rules %s: ceiling '%s' needs name and util",
                                       rs->chain, rs->ceilings[i].id);
        return 0;
}

/* family's chain of the scanned files f, merged into rs */
static int load_chain(const char *dir, const struct rfile *f, size_t nf, const char *family,
                      int cases, struct ruleset *rs, struct err *err)
{
        memset(rs, 0, sizeof *rs);
        rs->cases = cases;
        int rc = 0;
        const struct rfile *leaf = find_family(f, nf, family);
        if (!leaf)
                return err_set(err, ERR_INPUT, "%s: no rules file has family '%s'", dir, family);
        /* the chain, leaf first; a loop or a missing parent is an error */
        struct strbuf chain = {0};
        const struct rfile *cf[17]; /* rs->files[i]'s */
        for (const struct rfile *c = leaf; c;) {
                if (rs->nfiles > 16) {
                        rc = err_set(err, ERR_INPUT, "%s: inherits: chain loops", c->path);
                        break;
                }
                cf[rs->nfiles] = c;
                rs->files = xrealloc(rs->files, (rs->nfiles + 1) * sizeof *rs->files);
                rs->files[rs->nfiles++] = xstrdup(c->path);
                sb_addf(&chain, "%s%s", chain.len ? " < " : "", c->family);
                if (!c->inherits)
                        break;
                const struct rfile *p = find_family(f, nf, c->inherits);
                if (!p) {
                        rc = err_set(err, ERR_INPUT, "%s: inherits unknown rules family '%s'",
                                     c->path, c->inherits);
                        break;
                }
                c = p;
        }
        rs->chain = sb_detach(&chain);
        rs->top_kernels = 10;
        rs->norm = NULL; /* none stated: the analysis's own */
        for (size_t i = rs->nfiles; i-- > 0 && !rc;)
                rc = merge_file(rs, rs->files[i], &cf[i]->src, err);
        if (!rc)
                rc = check(rs, err);
        if (!rc)
                rules_apply_terms(rs);
        if (rc)
                rules_free(rs);
        return rc;
}

int rules_load_family(const char *dir, const char *family, struct ruleset *rs, struct err *err)
{
        memset(rs, 0, sizeof *rs);
        struct rfile *f;
        size_t nf;
        int rc = scan(dir, &f, &nf, err);
        if (rc)
                return rc;
        rc = load_chain(dir, f, nf, family, 1, rs, err);
        rfiles_free(f, nf);
        return rc;
}

int rules_load(const char *dir, const struct arch *a, int cases, struct ruleset *rs,
               struct err *err)
{
        struct rfile *f;
        size_t nf;
        int rc = scan(dir, &f, &nf, err);
        if (rc)
                return rc;
        /* a->chain: "leaf < parent < base" family names, leaf first */
        char *fam = NULL;
        const char *s = a->chain ? a->chain : a->family;
        while (s && *s && !fam) {
                const char *e = strstr(s, " < ");
                char *name = xstrndup(s, e ? (size_t)(e - s) : strlen(s));
                if (find_family(f, nf, name))
                        fam = name;
                else
                        free(name);
                s = e ? e + 3 : NULL;
        }
        rc = load_chain(dir, f, nf, fam ? fam : "base", cases, rs, err);
        rfiles_free(f, nf);
        free(fam);
        return rc;
}

void rules_free(struct ruleset *rs)
{
        for (size_t i = 0; i < rs->nrules; i++)
                rule_clear(&rs->rules[i]);
        free(rs->rules);
        for (size_t i = 0; i < rs->nvalues; i++) {
                free(rs->values[i].name);
                rexpr_clear(&rs->values[i].e);
        }
        free(rs->values);
        for (size_t i = 0; i < rs->nceilings; i++) {
                free(rs->ceilings[i].id);
                free(rs->ceilings[i].name);
                rexpr_clear(&rs->ceilings[i].util);
                strs_free(rs->ceilings[i].evidence, rs->ceilings[i].nevidence);
        }
        free(rs->ceilings);
        strs_free(rs->files, rs->nfiles);
        strs_free(rs->term_from, rs->nterms);
        strs_free(rs->term_to, rs->nterms);
        free(rs->chain);
        free(rs->norm);
        memset(rs, 0, sizeof *rs);
}
