/* The sysinfo fields an architecture's formulas read ($cu_per_gpu, $max_sclk, ...), checked
 * once per workload. */
#include "sysinfo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sysnames {
        const struct arch *a;
        struct smap seen;
        char **v;
        size_t n, cap;
};

static void sys_name(void *p, const char *name, int dollar)
{
        struct sysnames *sn = p;
        if (!dollar || !strcmp(name, "denom") || !strcmp(name, "timeDiv") ||
            smap_get(&sn->seen, name, NULL))
                return;
        smap_put(&sn->seen, name, 1);
        for (size_t i = 0; i < sn->a->nbuiltins; i++)
                if (!strcmp(sn->a->builtins[i].name, name))
                        return; /* computed, not read */
        xgrow(&sn->v, &sn->cap, sn->n + 1, sizeof *sn->v);
        sn->v[sn->n++] = xstrdup(name);
}

static void sys_names_field(struct sysnames *sn, const struct metric_field *f)
{
        if (f->expr) {
                expr_names(f->expr, sys_name, sn);
        } else if (f->src && strchr(f->src, '@')) {
                /* a per-channel template, parsed per channel later: read it for channel 0 */
                char *src = xstrdup(f->src);
                for (char *q = src; (q = strchr(q, '@'));)
                        *q = '0';
                struct expr *e = expr_parse(src, NULL, NULL, NULL);
                expr_names(e, sys_name, sn);
                expr_free(e);
                free(src);
        }
}

void workload_check_sysinfo(struct workload *w, const struct arch *a)
{
        struct sysnames sn = {.a = a};
        for (size_t i = 0; i < a->nbuiltins; i++)
                expr_names(a->builtins[i].expr, sys_name, &sn);
        for (size_t i = 0; i < a->nnorms; i++)
                expr_names(a->norms[i].expr, sys_name, &sn);
        for (size_t i = 0; i < a->nmetrics; i++) {
                const struct metric *m = &a->metrics[i];
                sys_names_field(&sn, &m->expr);
                sys_names_field(&sn, &m->peak);
                for (size_t j = 0; j < m->nfields; j++)
                        sys_names_field(&sn, &m->fields[j]);
                for (size_t j = 0; j < m->noverrides; j++)
                        sys_names_field(&sn, &m->overrides[j]);
        }
        const char *where = w->sysinfo_file ? w->sysinfo_file : w->path;
        struct strbuf missing = {0};
        size_t nmissing = 0;
        char desc[100];
        for (size_t i = 0; i < sn.n; i++) {
                int c = table_col(&w->sysinfo, sn.v[i]);
                if (c < 0) {
                        sb_addf(&missing, "%s'%s'", nmissing++ ? ", " : "", sn.v[i]);
                        table_add_col(&w->sysinfo, sn.v[i]); /* n/a, bound like the others */
                        continue;
                }
                double v = w->sysinfo.nrows ? w->sysinfo.num[c][0] : NAN;
                if (w->sysinfo.nrows && !(isfinite(v) && v >= 0)) {
                        warnf("%s:%zu: field '%s' %s; the metrics that use it are n/a", where,
                              w->sysinfo.line && w->sysinfo.line[0] ? w->sysinfo.line[0] : 2,
                              sn.v[i],
                              table_cell_desc(&w->sysinfo, c, 0, "a number", desc, sizeof desc));
                        w->sysinfo.num[c][0] = NAN;
                }
        }
        if (nmissing)
                warnf("%s: no field%s %s; the metrics that use %s are n/a", where,
                      nmissing == 1 ? "" : "s", missing.buf, nmissing == 1 ? "it" : "them");
        sb_free(&missing);
        for (size_t i = 0; i < sn.n; i++)
                free(sn.v[i]);
        free(sn.v);
        smap_free(&sn.seen);
}
