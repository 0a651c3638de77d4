/* Rule texts and names: the family's terms applied to titles and messages, the names the
 * formulas and templates read, message placeholders. */
#include "rules.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- terms ---- */

static int word_char(char c)
{
        return isalnum((unsigned char)c) || c == '_';
}

/* s with every whole-word occurrence of the terms replaced, in order (text inside {...}
 * placeholders is left alone) */
static char *subst_terms(const struct ruleset *rs, const char *s)
{
        char *cur = xstrdup(s);
        for (size_t t = 0; t < rs->nterms; t++) {
                const char *from = rs->term_from[t];
                size_t fl = strlen(from);
                struct strbuf sb = {0};
                sb_add(&sb, "");
                int depth = 0;
                for (const char *p = cur; *p;) {
                        if (p[0] == '{' && p[1] == '{') { /* a literal brace */
                                sb_add(&sb, "{{");
                                p += 2;
                                continue;
                        }
                        if (*p == '{' || *p == '}')
                                depth += *p == '{' ? 1 : depth > 0 ? -1 : 0;
                        if (!depth && !strncmp(p, from, fl) && (p == cur || !word_char(p[-1]) ||
                                                                 !word_char(from[0])) &&
                            (!word_char(p[fl]) || !word_char(from[fl - 1]))) {
                                sb_add(&sb, rs->term_to[t]);
                                p += fl;
                        } else {
                                sb_addc(&sb, *p++);
                        }
                }
                free(cur);
                cur = sb_detach(&sb);
        }
        return cur;
}

static void subst(const struct ruleset *rs, char **s)
{
        if (!*s || !rs->nterms)
                return;
        char *n = subst_terms(rs, *s);
        free(*s);
        *s = n;
}

void rules_apply_terms(struct ruleset *rs)
{
        for (size_t i = 0; i < rs->nrules; i++) {
                subst(rs, &rs->rules[i].title);
                subst(rs, &rs->rules[i].message);
                subst(rs, &rs->rules[i].hint);
                subst(rs, &rs->rules[i].model);
        }
        for (size_t i = 0; i < rs->nceilings; i++)
                subst(rs, &rs->ceilings[i].name);
}

/* ---- names ---- */

struct names_ctx {
        struct smap seen;
        void (*fn)(void *, const char *);
        void *ctx;
};

static void one_name(void *p, const char *name, int dollar)
{
        struct names_ctx *c = p;
        if (dollar || smap_get(&c->seen, name, NULL))
                return;
        smap_put(&c->seen, name, 1);
        c->fn(c->ctx, name);
}

static void expr_of(struct names_ctx *c, const struct rule_expr *e)
{
        if (e->expr)
                expr_names(e->expr, one_name, c);
}

const char *rules_placeholder(const char *p, char **name)
{
        for (; p && *p; p++) {
                if (p[0] == '{' && p[1] == '{') {
                        p++;
                        continue;
                }
                if (*p != '{')
                        continue;
                const char *close = strchr(p, '}');
                if (!close)
                        return NULL;
                const char *colon = memchr(p, ':', (size_t)(close - p));
                *name = xstrndup(p + 1, (size_t)((colon ? colon : close) - p - 1));
                return close + 1;
        }
        return NULL;
}

/* {name} and {name:fmt} of a message template; numeric ids are skipped */
static void template_names(struct names_ctx *c, const char *t)
{
        char *name;
        for (const char *p = t; (p = rules_placeholder(p, &name)); free(name))
                if (*name && !isdigit((unsigned char)*name))
                        one_name(c, name, 0);
}

void rules_names(const struct ruleset *rs, void (*fn)(void *ctx, const char *name), void *ctx)
{
        struct names_ctx c = {.fn = fn, .ctx = ctx};
        for (size_t i = 0; i < rs->nvalues; i++)
                expr_of(&c, &rs->values[i].e);
        for (size_t i = 0; i < rs->nceilings; i++) {
                expr_of(&c, &rs->ceilings[i].util);
                for (size_t k = 0; k < rs->ceilings[i].nevidence; k++)
                        one_name(&c, rs->ceilings[i].evidence[k], 0);
        }
        for (size_t i = 0; i < rs->nrules; i++) {
                const struct rule *r = &rs->rules[i];
                if (r->off)
                        continue;
                expr_of(&c, &r->when);
                expr_of(&c, &r->gain);
                template_names(&c, r->message);
                for (size_t k = 0; k < r->nevidence; k++)
                        one_name(&c, r->evidence[k], 0);
        }
        smap_free(&c.seen);
}

const struct metric *rules_name_metric(const struct arch *a, const char *name,
                                       const char **suffix)
{
        const struct metric *m = arch_metric(a, name);
        *suffix = "";
        if (m)
                return m->is_template ? NULL : m;
        const char *dot = strrchr(name, '.');
        if (!dot || (strcmp(dot, ".peak") && strcmp(dot, ".pop")))
                return NULL;
        char *key = xstrndup(name, (size_t)(dot - name));
        m = arch_metric(a, key);
        free(key);
        *suffix = dot + 1;
        return m && !m->is_template ? m : NULL;
}
