/* The findings engine: per-kernel values bound to slots, rule conditions and gains
 * evaluated over them, message templates filled in, metric ids for the evidence. */
#include "findings.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ---- */

int fvals_slot(struct fvals *fv, const char *name)
{
        int k;
        if (smap_get(&fv->index, name, &k))
                return k;
        xgrow(&fv->names, &fv->cap, fv->n + 1, sizeof *fv->names);
        fv->v = xrealloc(fv->v, fv->cap * sizeof *fv->v);
        fv->names[fv->n] = xstrdup(name);
        fv->v[fv->n] = NAN;
        smap_put(&fv->index, name, (int)fv->n);
        return (int)fv->n++;
}

void fvals_set(struct fvals *fv, const char *name, double v)
{
        int k = fvals_slot(fv, name); /* may move fv->v */
        fv->v[k] = v;
}

static double fvals_get(const struct fvals *fv, const char *name)
{
        int k;
        return smap_get(&fv->index, name, &k) ? fv->v[k] : NAN;
}

void fvals_free(struct fvals *fv)
{
        for (size_t i = 0; i < fv->n; i++)
                free(fv->names[i]);
        free(fv->names);
        free(fv->v);
        smap_free(&fv->index);
        memset(fv, 0, sizeof *fv);
}

/* ---- metric ids ---- */

/* key and id kept as the maps' copies (the arrays point there) */
static void idmap_add(struct idmap *m, const char *key, const char *id)
{
        const char *k = smap_add(&m->by_key, key, (int)m->n);
        if (!k)
                return;
        xgrow(&m->ids, &m->cap, m->n + 1, sizeof *m->ids);
        m->keys = xrealloc(m->keys, m->cap * sizeof *m->keys);
        m->keys[m->n] = k;
        m->ids[m->n] = smap_put(&m->by_id, id, (int)m->n);
        m->n++;
}

/* the ids analysis gives rows: "<table>.<position>", counting the rows a has (a template
 * row takes as many positions as its repeat count) */
void idmap_build(struct idmap *m, const struct arch *a, const struct panel_set *ps,
                 const struct workload *w)
{
        memset(m, 0, sizeof *m);
        size_t rows = 0;
        for (size_t i = 0; i < ps->npanels; i++)
                for (size_t j = 0; j < ps->panels[i].ntables; j++)
                        rows += ps->panels[i].tables[j].nrows;
        smap_reserve(&m->by_key, rows);
        smap_reserve(&m->by_id, rows);
        for (size_t i = 0; i < ps->npanels; i++)
                for (size_t j = 0; j < ps->panels[i].ntables; j++) {
                        const struct panel_table *pt = &ps->panels[i].tables[j];
                        if (pt->source || !panel_table_for(pt, a->target))
                                continue;
                        long pos = 0;
                        for (size_t r = 0; r < pt->nrows; r++) {
                                const struct metric *mt = arch_metric(a, pt->rows[r]);
                                if (!mt)
                                        continue;
                                long reps = 1;
                                if (pt->repeat) {
                                        double n = w ? workload_sys_num(w, pt->repeat) : NAN;
                                        reps = isfinite(n) && n > 0 && n < 100000 ? (long)n : 0;
                                }
                                if (!mt->is_template && reps > 0) {
                                        char id[64];
                                        key_num(id, sizeof id, pt->id, '.', pos);
                                        idmap_add(m, mt->key, id);
                                }
                                pos += reps;
                        }
                }
}

const char *idmap_id(const struct idmap *m, const char *key)
{
        int k;
        return m && smap_get(&m->by_key, key, &k) ? m->ids[k] : NULL;
}

const char *idmap_key(const struct idmap *m, const char *id)
{
        int k;
        return m && smap_get(&m->by_id, id, &k) ? m->keys[k] : NULL;
}

void idmap_free(struct idmap *m)
{
        free(m->ids);
        free(m->keys);
        smap_free(&m->by_key);
        smap_free(&m->by_id);
        memset(m, 0, sizeof *m);
}

/* ---- binding ---- */

static int resolve(void *p, const char *name, int dollar, struct err *err)
{
        (void)err;
        if (!dollar)
                return fvals_slot(p, name);
        char *k = xasprintf("$%s", name);
        int s = fvals_slot(p, k);
        free(k);
        return s;
}

static int bind(struct rule_expr *e, struct fvals *fv, struct err *err)
{
        return e->expr ? expr_bind(e->expr, resolve, fv, err) : 0;
}

/* the key a template's {name} stands for: a metric id maps to its key */
static const char *template_key(const struct idmap *ids, const char *name)
{
        if (isdigit((unsigned char)*name)) {
                const char *k = idmap_key(ids, name);
                return k ? k : name;
        }
        return name;
}

static void template_slots(struct fvals *fv, const struct idmap *ids, const char *t)
{
        char *name;
        for (const char *p = t; (p = rules_placeholder(p, &name)); free(name))
                if (*name)
                        fvals_slot(fv, template_key(ids, name));
}

int findings_bind(struct ruleset *rs, struct fvals *fv, const struct idmap *ids,
                  struct err *err)
{
        int rc = 0;
        for (size_t i = 0; i < rs->nrules; i++)
                if (!rs->rules[i].off) {
                        template_slots(fv, ids, rs->rules[i].message);
                        for (size_t k = 0; k < rs->rules[i].nevidence; k++)
                                fvals_slot(fv, rs->rules[i].evidence[k]);
                }
        for (size_t i = 0; i < rs->nvalues && !rc; i++) {
                fvals_slot(fv, rs->values[i].name);
                rc = bind(&rs->values[i].e, fv, err);
        }
        for (size_t i = 0; i < rs->nceilings && !rc; i++)
                rc = bind(&rs->ceilings[i].util, fv, err);
        for (size_t i = 0; i < rs->nrules && !rc; i++)
                if (!rs->rules[i].off)
                        rc = bind(&rs->rules[i].when, fv, err) ||
                             bind(&rs->rules[i].gain, fv, err);
        return rc ? ERR_INPUT : 0;
}

/* ---- evaluation ---- */

struct finite_ctx {
        const struct fvals *fv;
        int ok;
        char first_na[128]; /* the first name without a number (a copy: placeholder names
                             * are freed as they are read) */
};
static void finite_name(void *p, const char *name, int dollar);

/* PRISM_FINDINGS_DEBUG=1: why each rule fired or not, on stderr (docs/RULES.md) */
static int debug_on(void)
{
        const char *d = getenv("PRISM_FINDINGS_DEBUG");
        return d && *d && strcmp(d, "0");
}

/* The values as the formulas' slots: one array for a caller's many evaluations (a rule set
 * evaluates hundreds of formulas over the same few hundred values) */
struct slots {
        struct expr_slot *s;
        size_t cap;
};

static double eval(const struct rule_expr *e, const struct fvals *fv, struct slots *sl,
                   struct err *err)
{
        if (fv->n + 1 > sl->cap) {
                sl->s = xrealloc(sl->s, (fv->n + 1) * sizeof *sl->s);
                for (size_t i = sl->cap; i < fv->n + 1; i++)
                        sl->s[i] = (struct expr_slot){.col = NULL, .s = NAN};
                sl->cap = fv->n + 1;
        }
        for (size_t i = 0; i < fv->n; i++)
                sl->s[i].s = fv->v[i];
        struct expr_env env = {.n = 1, .slots = sl->s, .nslots = fv->n};
        return expr_eval_agg(e->expr, &env, "avg", err);
}

static void finite_name(void *p, const char *name, int dollar)
{
        struct finite_ctx *c = p;
        char buf[256];
        if (dollar)
                snprintf(buf, sizeof buf, "$%s", name);
        double v = fvals_get(c->fv, dollar ? buf : name);
        if (!isfinite(v) && c->ok)
                snprintf(c->first_na, sizeof c->first_na, "%s%s", dollar ? "$" : "", name);
        c->ok &= isfinite(v);
}

/* every name the rule reads has a number (n/a and inf mean: no finding from this rule) */
static int rule_has_data(const struct rule *r, const struct fvals *fv, const struct idmap *ids)
{
        struct finite_ctx c = {fv, 1, ""};
        expr_names(r->when.expr, finite_name, &c);
        expr_names(r->gain.expr, finite_name, &c);
        for (size_t i = 0; i < r->nevidence; i++)
                finite_name(&c, r->evidence[i], 0);
        char *name;
        for (const char *p = r->message; (p = rules_placeholder(p, &name)); free(name))
                if (*name)
                        finite_name(&c, template_key(ids, name), 0);
        if (!c.ok && debug_on())
                fprintf(stderr, "findings: %s: skipped, %s is n/a\n", r->id, c.first_na);
        return c.ok;
}

/* {name}, {name:.Nf}, {2.1.22:.0f}; "{{" is a literal brace */
static char *fill(const char *t, const struct fvals *fv, const struct idmap *ids)
{
        struct strbuf sb = {0};
        sb_add(&sb, "");
        for (const char *p = t; *p; p++) {
                if (p[0] == '{' && p[1] == '{') {
                        sb_addc(&sb, '{');
                        p++;
                        continue;
                }
                const char *close = *p == '{' ? strchr(p, '}') : NULL;
                if (!close) {
                        sb_addc(&sb, *p);
                        continue;
                }
                char *in = xstrndup(p + 1, (size_t)(close - p - 1));
                char *colon = strchr(in, ':');
                int prec = 1;
                if (colon) {
                        *colon = 0;
                        const char *f = colon + 1;
                        if (f[0] == '.' && isdigit((unsigned char)f[1]))
                                prec = atoi(f + 1);
                        else if (!strcmp(f, "d"))
                                prec = 0;
                }
                double v = fvals_get(fv, template_key(ids, in));
                sb_addf(&sb, "%.*f", prec > 9 ? 9 : prec, v);
                free(in);
                p = close;
        }
        return sb_detach(&sb);
}

static char *evidence_text(const struct rule *r, const struct idmap *ids)
{
        struct strbuf sb = {0};
        sb_add(&sb, "");
        for (size_t i = 0; i < r->nevidence; i++) {
                char *key = xstrdup(r->evidence[i]);
                char *dot = strrchr(key, '.');
                if (dot && (!strcmp(dot, ".pop") || !strcmp(dot, ".peak")))
                        *dot = 0;
                const char *id = idmap_id(ids, key);
                sb_addf(&sb, "%s%s", i ? " " : "", id ? id : key);
                free(key);
        }
        return sb_detach(&sb);
}

static int cmp_finding(const void *a, const void *b)
{
        const struct finding *x = a, *y = b;
        if (x->gain != y->gain)
                return x->gain < y->gain ? 1 : -1;
        return (x->rule > y->rule) - (x->rule < y->rule); /* file order */
}

static int explains(const struct rule *cause, const struct rule *symptom)
{
        for (size_t i = 0; i < cause->nexplains; i++)
                if (!strcmp(cause->explains[i], symptom->id))
                        return 1;
        return 0;
}

/* A symptom never outranks a fired cause that explains it: a symptom listed before such a
 * cause moves to just after it (the rest keeps the speedup order). Bounded, so that rules
 * explaining each other cannot loop. */
static void order_causes(struct finding *f, size_t n)
{
        for (size_t moves = 0; moves < n * n;) {
                size_t i, j = 0;
                for (i = 0; i < n; i++) {
                        for (j = i + 1; j < n && !explains(f[j].rule, f[i].rule); j++)
                                ;
                        if (j < n)
                                break;
                }
                if (i == n)
                        return;
                struct finding s = f[i];
                memmove(&f[i], &f[i + 1], (j - i) * sizeof *f);
                f[j] = s;
                moves++;
        }
}

int findings_eval(const struct ruleset *rs, struct fvals *fv, const struct idmap *ids,
                  struct finding **out, size_t *n, size_t *nskipped, struct err *err)
{
        /* in file order, again while any value changes: a base value may read one that a
         * family file defines later */
        struct slots sl = {0};
        for (size_t i = 0; i < rs->nvalues; i++)
                fvals_set(fv, rs->values[i].name, NAN);
        for (size_t pass = 0, changed = 1; changed && pass <= rs->nvalues; pass++) {
                changed = 0;
                for (size_t i = 0; i < rs->nvalues; i++) {
                        double old = fvals_get(fv, rs->values[i].name);
                        double v = eval(&rs->values[i].e, fv, &sl, err);
                        if (isinf(v))
                                v = NAN; /* no number (a zero peak or duration): n/a */
                        if (!(v == old || (isnan(v) && isnan(old))))
                                changed = 1;
                        fvals_set(fv, rs->values[i].name, v);
                }
        }
        for (size_t i = 0; i < rs->nvalues && debug_on(); i++)
                fprintf(stderr, "findings: value %s = %g\n", rs->values[i].name,
                        fvals_get(fv, rs->values[i].name));
        struct finding *f = xcalloc(rs->nrules + 1, sizeof *f);
        size_t nf = 0;
        *nskipped = 0;
        for (size_t i = 0; i < rs->nrules; i++) {
                const struct rule *r = &rs->rules[i];
                if (r->off)
                        continue;
                if (!rule_has_data(r, fv, ids)) {
                        (*nskipped)++;
                        continue;
                }
                double c = eval(&r->when, fv, &sl, err);
                double g = eval(&r->gain, fv, &sl, err);
                if (debug_on())
                        fprintf(stderr, "findings: %s: when %g, gain %g\n", r->id, c, g);
                if (!(c != 0) || isnan(c))
                        continue;
                if (!isfinite(g))
                        continue;
                f[nf].rule = r;
                f[nf].gain = g < 0 ? 0 : g > 100 ? 100 : g;
                nf++;
        }
        /* unless: a rule is silent when one it names fired (before any silencing) */
        size_t keep = 0;
        for (size_t i = 0; i < nf; i++) {
                int silent = 0;
                for (size_t u = 0; u < f[i].rule->nunless && !silent; u++)
                        for (size_t j = 0; j < nf && !silent; j++)
                                silent = j != i && !strcmp(f[j].rule->id, f[i].rule->unless[u]);
                if (!silent)
                        f[keep++] = f[i];
        }
        nf = keep;
        for (size_t i = 0; i < nf; i++) {
                f[i].message = fill(f[i].rule->message, fv, ids);
                f[i].evidence = evidence_text(f[i].rule, ids);
        }
        if (nf)
                qsort(f, nf, sizeof *f, cmp_finding);
        order_causes(f, nf);
        free(sl.s);
        *out = f;
        *n = nf;
        return 0;
}

void findings_free(struct finding *f, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(f[i].message);
                free(f[i].evidence);
        }
        free(f);
}

long findings_ceiling(const struct ruleset *rs, struct fvals *fv, double *util, long *next,
                      double *next_util)
{
        long best = -1;
        *util = *next_util = NAN;
        *next = -1;
        struct err err = {0};
        struct slots sl = {0};
        for (size_t i = 0; i < rs->nceilings; i++) {
                struct finite_ctx c = {fv, 1, ""};
                expr_names(rs->ceilings[i].util.expr, finite_name, &c);
                double u = c.ok ? eval(&rs->ceilings[i].util, fv, &sl, &err) : NAN;
                if (!isfinite(u) && rs->ceilings[i].required) {
                        *util = *next_util = NAN;
                        *next = -1;
                        free(sl.s);
                        return -1;
                }
                if (!isfinite(u))
                        continue;
                if (best < 0 || u > *util) {
                        *next = best;
                        *next_util = *util;
                        best = (long)i;
                        *util = u;
                } else if (*next < 0 || u > *next_util) {
                        *next = (long)i;
                        *next_util = u;
                }
        }
        free(sl.s);
        return best;
}
