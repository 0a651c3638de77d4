/* The findings tables of panel 0: each top kernel's metrics averaged over its dispatches
 * (through analysis_run on a table of the metrics the rules read), the rules evaluated over
 * them, and the busiest roofline ceiling. */
#include "findings.h"
#include "../store/columns.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sources[] = {"findings", "roofline_class", NULL};

int findings_is_source(const char *source)
{
        for (size_t i = 0; sources[i]; i++)
                if (!strcmp(sources[i], source))
                        return 1;
        return 0;
}

/* The ruleset findings_metrics loaded (for the column selection), kept for the
 * findings_build that follows: the rules files are parsed once per analysis. key: the
 * rules directory and the architecture's chain it was loaded for. */
static struct {
        char *key;
        struct ruleset rs;
} kept;

static char *rules_key(const char *dir, const struct arch *a)
{
        return xasprintf("%s|%s", dir, a->chain ? a->chain : a->family ? a->family : "");
}

static int load(const struct arch *a, const struct analysis_opts *o, struct ruleset *rs,
                struct err *err)
{
        static int warned;
        char *dir = o->rules_dir ? xstrdup(o->rules_dir) : data_path("rules");
        if (!dir) {
                if (!warned++)
                        warnf("cannot find prism's rules/ (set PRISM_DATA_DIR): no findings");
                return 1;
        }
        char *key = rules_key(dir, a);
        int rc = 0;
        if (kept.key && !strcmp(kept.key, key)) {
                *rs = kept.rs; /* handed over */
                free(kept.key);
                kept.key = NULL;
        } else {
                rc = rules_load(dir, a, 0, rs, err);
        }
        free(key);
        free(dir);
        return rc ? -rc : 0;
}

/* rs kept for the next load of the same rules (else freed); bound or not (a binding sets
 * every name's slot: the next one replaces them all) */
static void keep(const struct arch *a, const struct analysis_opts *o, struct ruleset *rs)
{
        char *dir = o->rules_dir ? xstrdup(o->rules_dir) : data_path("rules");
        if (dir && !kept.key) {
                kept.key = rules_key(dir, a);
                kept.rs = *rs;
        } else {
                rules_free(rs);
        }
        free(dir);
}

void findings_preload(const char *chain, const struct analysis_opts *o)
{
        struct arch a = {.chain = (char *)chain};
        struct ruleset rs;
        struct err err = {0};
        if (!o->no_findings && !load(&a, o, &rs, &err))
                keep(&a, o, &rs);
}

/* ---- the metrics the rules read ---- */

struct keys {
        const struct arch *a;
        struct smap seen;
        char **v;
        size_t n, cap;
};

static void add_key(void *p, const char *name)
{
        struct keys *k = p;
        const char *suffix;
        const struct metric *m = rules_name_metric(k->a, name, &suffix);
        if (!m || smap_get(&k->seen, m->key, NULL))
                return;
        smap_put(&k->seen, m->key, 1);
        xgrow(&k->v, &k->cap, k->n + 1, sizeof *k->v);
        k->v[k->n++] = m->key;
}

/* the metric keys of rs's names and of the template ids (through ids) */
static void rule_keys(const struct ruleset *rs, const struct arch *a, const struct fvals *fv,
                      struct keys *k)
{
        memset(k, 0, sizeof *k);
        k->a = a;
        rules_names(rs, add_key, k);
        for (size_t i = 0; fv && i < fv->n; i++)
                add_key(k, fv->names[i]);
}

static void keys_free(struct keys *k)
{
        smap_free(&k->seen);
        free(k->v);
}

void findings_metrics(const struct arch *a, const struct analysis_opts *o,
                      void (*fn)(void *ctx, const struct metric *m), void *ctx)
{
        struct ruleset rs;
        struct err err = {0};
        if (o->no_findings || load(a, o, &rs, &err))
                return;
        struct keys k;
        rule_keys(&rs, a, NULL, &k);
        for (size_t i = 0; i < k.n; i++)
                fn(ctx, arch_metric(a, k.v[i]));
        keys_free(&k);
        keep(a, o, &rs);
}

/* ---- one kernel ---- */

/* Averages and peaks of keys over kernel's dispatches, into the slots of fv. */
static int kernel_values(const struct workload *w, const struct arch *a,
                         const struct analysis_opts *o, const struct ruleset *rs,
                         const char *kernel, const struct keys *k, struct fvals *fv,
                         const struct findings_nested *nr, struct err *err)
{
        struct panel_col cols[] = {
            {"Metric", "name", NULL, -1}, {"Avg", "avg", NULL, -1}, {"Peak", "peak", NULL, -1}};
        struct panel_table spt = {.id = "0.0", .cols = cols, .ncols = 3, .rows = k->v,
                                  .nrows = k->n};
        struct panel sp = {.id = 0, .title = "findings", .file = "findings", .tables = &spt,
                           .ntables = 1};
        struct panel_set sps = {.panels = &sp, .npanels = 1};
        struct analysis_opts o2 = *o;
        const char *names[] = {kernel};
        if (rs->norm)
                o2.norm = rs->norm;
        o2.blocks = NULL;
        o2.nblocks = 0;
        o2.kernels = NULL;
        o2.nkernels = 0;
        o2.kernel_names = names;
        o2.nkernel_names = 1;
        o2.threads = 0; /* a nested analysis: one thread */
        o2.ahead = NULL;
        o2.include_desc = 0; /* its tables' columns are the panels' */
        struct analysis sub;
        int rc = nr->run(w, a, &sps, &o2, &sub, err);
        if (rc)
                return rc;
        struct smap row = {0};
        const struct rtable *t = sub.ntables == 1 ? &sub.tables[0] : NULL;
        for (size_t r = 0; t && r < t->nrows; r++) {
                char *key = xstrdup(t->rkeys[r]);
                char *hash = strchr(key, '#');
                if (hash)
                        *hash = 0;
                smap_put(&row, key, (int)r);
                free(key);
        }
        for (size_t i = 0; i < fv->n; i++) {
                const char *name = fv->names[i], *suffix;
                double v = NAN;
                const struct metric *m = rules_name_metric(a, name, &suffix);
                int r;
                if (name[0] == '$') {
                        v = workload_sys_num(w, name + 1);
                } else if (!strcmp(name, "kernel.dispatches")) {
                        v = (double)sub.nselected;
                } else if (!strncmp(name, "model.", 6)) {
                        /* a fact of the recorded GPU model (metrics' models:), for what an
                         * older or partial sysinfo leaves out */
                        double id = workload_sys_num(w, "gpu_chip_id");
                        const struct arch_model *am =
                            arch_model_find(a, id > 0 && id < 4294967296.0 ? (unsigned)id : 0);
                        v = arch_model_fact(a, am, name + 6);
                } else if (m && t && smap_get(&row, m->key, &r)) {
                        double avg = t->cells[r * 3 + 1].v, peak = t->cells[r * 3 + 2].v;
                        v = !*suffix                  ? avg
                            : !strcmp(suffix, "peak") ? peak
                                                      : 100.0 * avg / peak;
                }
                fv->v[i] = v;
        }
        smap_free(&row);
        nr->free(&sub);
        return 0;
}

/* ---- tables ---- */

static void add_findings(struct rtable *t, const char *kernel, const struct finding *f,
                         size_t nf, size_t nskipped, size_t nrules)
{
        char key[32];
        for (size_t i = 0; i < nf; i++) {
                snprintf(key, sizeof key, "%zu", t->nrows);
                char *rkey = xasprintf("%s#%s", kernel, f[i].rule->id);
                struct cell *row = rtable_add_row(t, key, rkey);
                free(rkey);
                row[0].text = xstrdup(kernel);
                row[1].text = xstrdup(f[i].rule->id);
                row[2].text = xstrdup(f[i].rule->title);
                row[3].text = xstrdup(f[i].rule->severity);
                row[4].v = f[i].gain;
                row[5].text = xstrdup(f[i].message);
                row[6].text = xstrdup(f[i].evidence);
                row[7].text = xstrdup(f[i].rule->hint ? f[i].rule->hint : "");
        }
        if (nf)
                return;
        snprintf(key, sizeof key, "%zu", t->nrows);
        char *rkey = xasprintf("%s#-", kernel);
        struct cell *row = rtable_add_row(t, key, rkey);
        free(rkey);
        row[0].text = xstrdup(kernel);
        row[1].text = xstrdup("-");
        row[2].text = xstrdup("no finding");
        row[3].text = xstrdup("");
        row[5].text = xasprintf("no rule fired; %zu of %zu rules could not be evaluated "
                                "(n/a data)",
                                nskipped, nrules);
        row[6].text = xstrdup("");
        row[7].text = xstrdup("");
}

static char *ceiling_evidence(const struct rule_ceiling *c, const struct idmap *ids)
{
        struct strbuf sb = {0};
        sb_add(&sb, "");
        for (size_t i = 0; i < c->nevidence; i++) {
                const char *id = idmap_id(ids, c->evidence[i]);
                sb_addf(&sb, "%s%s", i ? " " : "", id ? id : c->evidence[i]);
        }
        return sb_detach(&sb);
}

static void add_roof(struct rtable *t, const char *kernel, const struct ruleset *rs,
                     struct fvals *fv, const struct idmap *ids)
{
        double u, nu;
        long next;
        long best = findings_ceiling(rs, fv, &u, &next, &nu);
        char key[32];
        snprintf(key, sizeof key, "%zu", t->nrows);
        struct cell *row = rtable_add_row(t, key, kernel);
        row[0].text = xstrdup(kernel);
        if (best < 0 || !(u > 0)) {
                row[1].text = xstrdup(best < 0 ? "n/a (a ceiling it needs is n/a)"
                                               : "none (every ceiling at 0%)");
                row[4].text = xstrdup("");
                row[6].text = xstrdup("");
                return;
        }
        row[1].text = xstrdup(rs->ceilings[best].name);
        row[2].v = u;
        row[3].v = u > 0 ? 100.0 / u : INFINITY; /* speedup were the kernel at the ceiling */
        row[4].text = xstrdup(next >= 0 ? rs->ceilings[next].name : "");
        row[5].v = nu;
        row[6].text = ceiling_evidence(&rs->ceilings[best], ids);
}

static const struct panel_table *wanted(const struct analysis_opts *o, const struct arch *a,
                                        const struct panel *p, const char *source)
{
        for (size_t j = 0; j < p->ntables; j++) {
                const struct panel_table *pt = &p->tables[j];
                if (pt->source && !strcmp(pt->source, source) && panel_table_for(pt, a->target) &&
                    analysis_table_wanted(o, p, pt))
                        return pt;
        }
        return NULL;
}

int findings_build(const struct workload *w, const struct arch *a, const struct panel_set *ps,
                   const struct analysis_opts *o, const char *const *knames, size_t nknames,
                   const struct panel *p, struct analysis *an, const struct findings_nested *nr,
                   struct err *err)
{
        for (size_t i = 0; i < an->ntables; i++)
                if (an->tables[i].panel == p && an->tables[i].pt->source &&
                    findings_is_source(an->tables[i].pt->source))
                        return 0; /* built with the first of them */
        if (o->no_findings)
                return 0;
        struct ruleset rs;
        int rc = load(a, o, &rs, err);
        if (rc)
                return rc > 0 ? 0 : -rc;
        struct idmap ids;
        struct fvals fv = {0};
        idmap_build(&ids, a, ps, w);
        if ((rc = findings_bind(&rs, &fv, &ids, err))) {
                idmap_free(&ids);
                fvals_free(&fv);
                rules_free(&rs);
                return rc;
        }
        struct keys k;
        rule_keys(&rs, a, &fv, &k);
        char **top = NULL;
        size_t ntop = 0;
        analysis_top_kernels(w, o, &top, &ntop);
        const char *const *kv = nknames ? knames : (const char *const *)top;
        size_t nk = nknames ? nknames : ntop < (size_t)rs.top_kernels ? ntop : (size_t)rs.top_kernels;

        const struct panel_table *fpt = wanted(o, a, p, "findings");
        const struct panel_table *rpt = wanted(o, a, p, "roofline_class");
        struct rtable *ft = NULL, *rt = NULL;
        size_t fi = 0, ri = 0;
        if (fpt) {
                fi = an->ntables;
                static const char *const cols[] = {COL_KERNEL_NAME, "Finding",  "Title",
                                                   "Severity",    "Est. Speedup", "Message",
                                                   "Evidence",    "Hint"};
                ft = analysis_insert_table(an, an->ntables, p, fpt, "index", 8,
                                           rtable_titles(cols, 8));
        }
        if (rpt) {
                ri = an->ntables;
                static const char *const cols[] = {
                    COL_KERNEL_NAME,  "Bound By", "Pct of Ceiling", "Speedup at Ceiling",
                    "Next Ceiling", "Next Pct", "Evidence"};
                rt = analysis_insert_table(an, an->ntables, p, rpt, "index", 7,
                                           rtable_titles(cols, 7));
        }
        size_t nrules = 0;
        for (size_t i = 0; i < rs.nrules; i++)
                nrules += !rs.rules[i].off;
        for (size_t i = 0; i < nk && !rc; i++) {
                /* the tables may move as analysis_insert_table grows the array */
                ft = fpt ? &an->tables[fi] : NULL;
                rt = rpt ? &an->tables[ri] : NULL;
                if ((rc = kernel_values(w, a, o, &rs, kv[i], &k, &fv, nr, err)))
                        break;
                struct finding *f;
                size_t nf, nskipped;
                if ((rc = findings_eval(&rs, &fv, &ids, &f, &nf, &nskipped, err)))
                        break;
                if (ft) {
                        add_findings(ft, kv[i], f, nf, nskipped, nrules);
                        findings_hot_line(ft, an, w, kv[i]); /* findings_hotline.c */
                }
                if (rt)
                        add_roof(rt, kv[i], &rs, &fv, &ids);
                findings_free(f, nf);
        }
        for (size_t i = 0; i < ntop; i++)
                free(top[i]);
        free(top);
        keys_free(&k);
        idmap_free(&ids);
        fvals_free(&fv);
        /* kept for a later analysis of the same rules (a comparison's second workload),
         * not freed: they were read on the panels' thread, and freeing them here, beside
         * the other half of the analysis on that thread's heap, cost 0.1 ms */
        keep(a, o, &rs);
        return rc;
}

/* ---- comparison ---- */

static const struct rtable *findings_table(const struct analysis *an, const char *id)
{
        for (size_t i = 0; i < an->ntables; i++)
                if (an->tables[i].pt->source && !strcmp(an->tables[i].pt->source, "findings") &&
                    (!id || !strcmp(an->tables[i].id, id)))
                        return &an->tables[i];
        return NULL;
}

static long row_of(const struct rtable *t, const char *rkey)
{
        for (size_t r = 0; t && r < t->nrows; r++)
                if (!strcmp(t->rkeys[r], rkey))
                        return (long)r;
        return -1;
}

/* one row of the comparison: b (base) and/or n (cur) rows of the 8-column findings tables */
static void cmp_row(struct rtable *t, const char *rkey, const struct cell *b, const struct cell *n)
{
        char key[32];
        snprintf(key, sizeof key, "%zu", t->nrows);
        struct cell *row = rtable_add_row(t, key, rkey);
        const struct cell *c = n ? n : b; /* texts of the newer run where it has the row */
        static const int text_cols[] = {0, 1, 2, 5, 6, 7};
        static const int to[] = {0, 1, 2, 5, 6, 7};
        for (size_t i = 0; i < sizeof text_cols / sizeof *text_cols; i++)
                row[to[i]].text = xstrdup(c[text_cols[i]].text ? c[text_cols[i]].text : "");
        row[4].v = b ? b[4].v : NAN;
        const char *st = !b ? "appeared" : !n ? "disappeared"
                         : fabs(n[4].v - b[4].v) >= 1 ? "changed" : "unchanged";
        row[3].text = xstrdup(st);
}

void findings_compare(struct analysis *base, const struct analysis *cur)
{
        for (size_t i = 0; i < base->ntables; i++) {
                struct rtable *t = &base->tables[i];
                if (!t->pt->source || strcmp(t->pt->source, "findings") || t->ncols != 8)
                        continue;
                const struct rtable *n = findings_table(cur, t->id);
                if (n && n->ncols != 8)
                        n = NULL;
                struct rtable old = *t;
                memset(t, 0, sizeof *t);
                t->panel = old.panel;
                t->pt = old.pt;
                t->id = xstrdup(old.id);
                t->key_title = xstrdup(old.key_title);
                t->ncols = 8;
                static const char *const cols[] = {COL_KERNEL_NAME, "Finding", "Title",
                                                   "Status",      "Est. Speedup", "Message",
                                                   "Evidence",    "Hint"};
                t->cols = rtable_titles(cols, 8);
                for (size_t r = 0; r < old.nrows; r++) {
                        long nr = row_of(n, old.rkeys[r]);
                        cmp_row(t, old.rkeys[r], &old.cells[r * 8],
                                nr >= 0 ? &n->cells[(size_t)nr * 8] : NULL);
                }
                for (size_t r = 0; n && r < n->nrows; r++)
                        if (row_of(&old, n->rkeys[r]) < 0)
                                cmp_row(t, n->rkeys[r], NULL, &n->cells[r * 8]);
                rtable_free(&old);
        }
}
