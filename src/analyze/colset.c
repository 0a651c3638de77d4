/* Column projection: collect the counter names that formulas of the selected panels use. */
#include "colset.h"
#include "findings.h"

#include <stdlib.h>
#include <string.h>

#include "../store/columns.h"

/* columns the built-in tables and filters read by name */
static const char *const always[] = {COL_DISPATCH_ID, COL_KERNEL_NAME, COL_GPU_ID, COL_START,
                                     COL_END,         COL_RANK,        COL_NODE,   NULL};

static void add_name(void *p, const char *name, int dollar)
{
        struct colset *cs = p;
        if (!dollar)
                smap_put(&cs->names, name, 1);
}

/* 1 when name[0..n) is one of the prefixes */
static int has_prefix(const struct smap *pre, const char *name, size_t n)
{
        char buf[128];
        char *k = n < sizeof buf ? buf : xmalloc(n + 1);
        memcpy(k, name, n);
        k[n] = 0;
        int has = smap_get(pre, k, NULL);
        if (k != buf)
                free(k);
        return has;
}

/* a template's names: "CACHE_HIT[0]" (from "@" -> 0) stands for every channel */
static void add_template_name(void *p, const char *name, int dollar)
{
        struct colset *cs = p;
        const char *br = strchr(name, '[');
        if (dollar)
                return;
        if (!br) {
                smap_put(&cs->names, name, 1);
                return;
        }
        size_t n = (size_t)(br - name) + 1;
        if (!has_prefix(&cs->prefixes, name, n)) {
                char *k = xstrndup(name, n);
                smap_put(&cs->prefixes, k, 1);
                free(k);
                cs->nprefixes++;
        }
}

static void add_src(struct colset *cs, const char *src, int is_template)
{
        if (!src)
                return;
        char *text = xstrdup(src);
        for (char *s = strchr(text, '@'); s; s = strchr(s + 1, '@'))
                *s = '0';
        struct err err;
        err.code = 0;
        err.msg[0] = 0;
        struct expr *e = expr_parse(text, NULL, NULL, &err);
        if (e)
                expr_names(e, is_template ? add_template_name : add_name, cs);
        expr_free(e);
        free(text);
}

static void add_field(struct colset *cs, const struct metric_field *f, int is_template)
{
        if (f->expr && !is_template)
                expr_names(f->expr, add_name, cs);
        else
                add_src(cs, f->src, is_template);
}

static void add_metric(struct colset *cs, const struct metric *m)
{
        add_field(cs, &m->expr, m->is_template);
        add_field(cs, &m->peak, m->is_template);
        for (size_t i = 0; i < m->nfields; i++)
                add_field(cs, &m->fields[i], m->is_template);
        for (size_t i = 0; i < m->noverrides; i++)
                add_field(cs, &m->overrides[i], m->is_template);
}

static void add_rule_metric(void *p, const struct metric *m)
{
        if (m)
                add_metric(p, m);
}

void colset_build(struct colset *cs, const struct arch *a, const struct panel_set *ps,
                  const struct analysis_opts *o)
{
        memset(cs, 0, sizeof *cs);
        for (size_t i = 0; always[i]; i++)
                smap_put(&cs->names, always[i], 1);
        for (size_t i = 0; i < a->nbuiltins; i++)
                add_field(
                    cs,
                    &(struct metric_field){.src = a->builtins[i].src, .expr = a->builtins[i].expr},
                    0);
        for (size_t i = 0; i < a->nnorms; i++)
                add_field(cs,
                          &(struct metric_field){.src = a->norms[i].src, .expr = a->norms[i].expr},
                          0);
        for (size_t i = 0; i < ps->npanels; i++) {
                const struct panel *p = &ps->panels[i];
                for (size_t j = 0; j < p->ntables; j++) {
                        const struct panel_table *pt = &p->tables[j];
                        if (!analysis_table_wanted(o, p, pt))
                                continue;
                        if (pt->source && findings_is_source(pt->source))
                                cs->rules = 1;
                        for (size_t r = 0; r < pt->nrows; r++) {
                                const struct metric *m = arch_metric(a, pt->rows[r]);
                                if (m)
                                        add_metric(cs, m);
                        }
                }
        }
}

void colset_add_rules(struct colset *cs, const struct arch *a, const struct analysis_opts *o)
{
        /* the same for each of the findings' tables: added once */
        if (cs->rules)
                findings_metrics(a, o, add_rule_metric, cs);
        cs->rules = 0;
}

int colset_always(void *ctx, const char *name)
{
        (void)ctx;
        for (size_t i = 0; always[i]; i++)
                if (!strcmp(always[i], name))
                        return 1;
        return 0;
}

int colset_want(void *ctx, const char *name)
{
        const struct colset *cs = ctx;
        if (smap_get(&cs->names, name, NULL))
                return 1;
        /* a prefix ends at its template name's first '[': the column's must end there too */
        const char *br = cs->nprefixes ? strchr(name, '[') : NULL;
        return br && has_prefix(&cs->prefixes, name, (size_t)(br - name) + 1);
}

void colset_free(struct colset *cs)
{
        smap_free(&cs->names);
        smap_free(&cs->prefixes);
        memset(cs, 0, sizeof *cs);
}
