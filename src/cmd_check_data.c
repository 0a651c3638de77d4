/* prism check-data: load every architecture's metrics and the panels, parse every formula,
 * and check that panels and metrics refer to things that exist. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/rules.h"
#include "arch/arch.h"
#include "arch/versions.h"
#include "cmds.h"

/* The family's normalizations (`normalizations:`) are the ones -n takes (panels/versions'
 * line): each name of one is in the other; 1 if not (said on stderr). */
static int check_norms(const struct arch *a, const struct data_norms *dn)
{
        int bad = 0;
        for (size_t i = 0; i < dn->n; i++)
                if (!arch_norm(a, dn->names[i])) {
                        fprintf(stderr, "prism: %s: no formula for normalization '%s' (%s)\n",
                                a->target, dn->names[i], a->chain);
                        bad = 1;
                }
        for (size_t k = 0; k < a->nnorms; k++)
                if (data_norm_find(dn, a->norms[k].name) < 0) {
                        fprintf(stderr, "prism: %s: normalization '%s' is not in "
                                "panels/versions' normalizations line\n",
                                a->target, a->norms[k].name);
                        bad = 1;
                }
        return bad;
}

/* sysinfo fields a formula may read as $name */
static const char *const sys_fields[] = {
    "cu_per_gpu", "se_per_gpu", "simd_per_cu", "max_sclk", "max_mclk", "cur_sclk", "cur_mclk",
    "total_l2_chan", "num_xcd", "hbm_bw", "num_hbm_channels", "wave_size", "max_waves_per_cu", "lds_banks_per_cu",
    "sqc_per_gpu", "pipes_per_gpu", "gpu_l1", "gpu_l2", "workgroup_max_size", NULL};

struct check {
        const struct arch *a;
        const char *what;
        int bad;
};

static void check_name(void *p, const char *name, int dollar)
{
        struct check *c = p;
        if (!dollar)
                return;
        if (!strcmp(name, "denom") || !strcmp(name, "timeDiv"))
                return;
        for (size_t i = 0; i < c->a->nbuiltins; i++)
                if (!strcmp(c->a->builtins[i].name, name))
                        return;
        for (size_t i = 0; sys_fields[i]; i++)
                if (!strcmp(sys_fields[i], name))
                        return;
        fprintf(stderr, "prism: %s: %s: unknown built-in '$%s'\n", c->a->target, c->what, name);
        c->bad = 1;
}

/* A formula written twice under two keys (the same expression text, whitespace aside, read
 * from the same table) should be written once and referenced with `same_as: KEY`. Prints
 * each repeat once (by file and line, over all architectures); returns how many were new. */
static size_t check_repeats(const struct arch *a, struct smap *reported)
{
        struct smap seen = {0};
        size_t n = 0;
        for (size_t i = 0; i < a->nmetrics; i++) {
                const struct metric *m = &a->metrics[i];
                if (m->same_as || !m->expr.src || m->is_template)
                        continue;
                struct strbuf k = {0};
                sb_addf(&k, "%s:", m->table ? m->table : "");
                for (const char *q = m->expr.src; *q; q++)
                        if (!isspace((unsigned char)*q))
                                sb_addf(&k, "%c", *q);
                int first;
                if (!smap_get(&seen, k.buf, &first)) {
                        smap_put(&seen, k.buf, (int)i);
                } else {
                        char *where = xasprintf("%s:%d", m->expr.loc.file, m->expr.loc.line);
                        if (!smap_get(reported, where, NULL)) {
                                smap_put(reported, where, 1);
                                printf("%s: metric '%s' repeats the formula of '%s' (write "
                                       "'same_as: %s')\n",
                                       where, m->key, a->metrics[first].key, a->metrics[first].key);
                                n++;
                        }
                        free(where);
                }
                sb_free(&k);
        }
        smap_free(&seen);
        return n;
}

struct ruled {
        const struct arch *a;
        struct smap *keys;
};

static void ruled_name(void *p, const char *name)
{
        struct ruled *r = p;
        const char *suffix;
        const struct metric *m = rules_name_metric(r->a, name, &suffix);
        if (m)
                smap_put(r->keys, m->key, 1);
}

/* the metric keys the findings rules serving a read (none when they do not load: the
 * rules check below reports that) */
static void rules_metric_keys(const struct arch *a, struct smap *keys)
{
        char *rdir = data_path("rules");
        struct ruleset rs;
        struct err err = {0};
        if (rdir && !rules_load(rdir, a, 0, &rs, &err)) {
                struct ruled r = {a, keys};
                rules_names(&rs, ruled_name, &r);
                rules_free(&rs);
        }
        free(rdir);
}

int cmd_check_data(int argc, char **argv)
{
        const struct cmd_spec *spec = cmd_spec("check-data");
        for (int i = 1; i < argc; i++) {
                const struct opt *op = opt_find(spec, argv[i]);
                if (!op) {
                        fprintf(stderr,
                                "prism: unknown option '%s' (see 'prism check-data --help')\n",
                                argv[i]);
                        return 2;
                }
                if (op->id == C_HELP) {
                        opt_help(stdout, spec);
                        return 0;
                }
        }
        struct err err = {0};
        char *mdir = data_path("metrics"), *pdir = data_path("panels");
        struct panel_set ps = {0};
        char **targets = NULL;
        size_t nt = 0;
        int bad = 0;
        struct data_version *vers = NULL;
        size_t nvers = 0;
        struct data_norms dn = {0};
        if (!mdir || !pdir) {
                fprintf(stderr, "prism: cannot find metrics/ and panels/\n");
                bad = 2;
                goto out;
        }
        /* panels/versions' normalizations, checked against each family's (a data directory
         * without the file has none to check) */
        char *vpath = xasprintf("%s/versions", pdir);
        int have_versions = file_kind(vpath) != 0;
        free(vpath);
        if ((have_versions && data_versions_load(pdir, &vers, &nvers, &dn, &err)) ||
            panels_load(pdir, &ps, &err) || arch_list(mdir, &targets, &nt, &err)) {
                fprintf(stderr, "prism: %s\n", err.msg);
                bad = 2;
                goto out;
        }
        struct smap used = {0}, reported = {0};
        size_t nmetrics = 0, nrepeats = 0;
        for (size_t t = 0; t < nt; t++) {
                struct arch a;
                if (arch_load(mdir, targets[t], &a, &err)) {
                        fprintf(stderr, "prism: %s\n", err.msg);
                        bad = 2;
                        continue;
                }
                struct check c = {.a = &a};
                for (size_t i = 0; i < a.nmetrics; i++) {
                        const struct metric *m = &a.metrics[i];
                        c.what = m->key;
                        if (m->expr.expr)
                                expr_names(m->expr.expr, check_name, &c);
                        if (m->peak.expr)
                                expr_names(m->peak.expr, check_name, &c);
                }
                for (size_t i = 0; i < a.nbuiltins; i++) {
                        c.what = a.builtins[i].name;
                        expr_names(a.builtins[i].expr, check_name, &c);
                }
                if (c.bad || (have_versions && check_norms(&a, &dn)))
                        bad = 2;
                /* each metric must be shown by some panel table, or read by the findings
                 * rules (a measure only they need stays out of the tables) */
                struct smap ruled = {0};
                rules_metric_keys(&a, &ruled);
                for (size_t i = 0; i < a.nmetrics; i++) {
                        int shown = smap_get(&ruled, a.metrics[i].key, NULL);
                        for (size_t p = 0; p < ps.npanels && !shown; p++)
                                for (size_t j = 0; j < ps.panels[p].ntables && !shown; j++) {
                                        const struct panel_table *pt = &ps.panels[p].tables[j];
                                        for (size_t r = 0; r < pt->nrows && !shown; r++)
                                                shown = !strcmp(pt->rows[r], a.metrics[i].key);
                                }
                        if (!shown)
                                printf("%s: metric '%s' is in no panel\n", targets[t],
                                       a.metrics[i].key);
                        /* and says what it measures (--include-cols Description) */
                        if (!a.metrics[i].desc || !*a.metrics[i].desc) {
                                printf("%s: metric '%s' has no description (its family's "
                                       "descriptions:)\n",
                                       targets[t], a.metrics[i].key);
                                bad = 2;
                        }
                        smap_put(&used, a.metrics[i].key, 1);
                }
                smap_free(&ruled);
                nrepeats += check_repeats(&a, &reported);
                nmetrics += a.nmetrics;
                printf("%s: %zu metrics (%s), formulas parse\n", targets[t], a.nmetrics, a.chain);
                /* the findings rules serving this architecture load and parse */
                char *rdir = data_path("rules");
                struct ruleset rs;
                if (rdir && rules_load(rdir, &a, 1, &rs, &err)) {
                        fprintf(stderr, "prism: %s\n", err.msg);
                        bad = 2;
                } else if (rdir) {
                        printf("%s: %zu findings rules (%s)\n", targets[t], rs.nrules, rs.chain);
                        rules_free(&rs);
                }
                free(rdir);
                arch_free(&a);
        }
        for (size_t p = 0; p < ps.npanels; p++)
                for (size_t j = 0; j < ps.panels[p].ntables; j++) {
                        const struct panel_table *pt = &ps.panels[p].tables[j];
                        for (size_t r = 0; r < pt->nrows; r++)
                                if (!smap_get(&used, pt->rows[r], NULL)) {
                                        fprintf(stderr,
                                                "prism: %s: table %s row '%s' is defined by no "
                                                "architecture\n",
                                                ps.panels[p].file, pt->id, pt->rows[r]);
                                        bad = 2;
                                }
                }
        smap_free(&used);
        smap_free(&reported);
        if (nrepeats) /* a formula is written once (same_as: KEY) */
                bad = 2;
        printf("%s: %zu architectures, %zu panels, %zu metric definitions, %zu repeated "
               "formulas\n",
               bad ? "FAILED" : "ok", nt, ps.npanels, nmetrics, nrepeats);
out:
        free(vers);
        for (size_t i = 0; i < nt; i++)
                free(targets[i]);
        free(targets);
        panels_free(&ps);
        free(mdir);
        free(pdir);
        return bad;
}
