/* rocprofv3's input files for one pass (rocprof_input.h). */
#include "rocprof_input.h"

#include <stdlib.h>
#include <string.h>

static int is_accum_value(const struct backend_pass *p, size_t i)
{
        return p->accum && p->accum_value && !strcmp(p->counters[i], p->accum_value);
}

char *rocprof_name(const struct backend_pass *p, size_t i)
{
        if (is_accum_value(p, i))
                return xasprintf("%s_ACCUM", p->accum);
        return xstrdup(p->counters[i]);
}

char *rocprof_pass_text(const struct backend_pass *p)
{
        struct strbuf sb = {0};
        sb_add(&sb, "pmc:");
        for (size_t i = 0; i < p->ncounters; i++) {
                char *n = rocprof_name(p, i);
                sb_addf(&sb, " %s", n);
                free(n);
        }
        sb_add(&sb, "\n\ngpu:\nrange:\nkernel:\n");
        return sb_detach(&sb);
}

static void definition(struct strbuf *sb, const struct rocprof_gpu *g, const char *name,
                       const char *desc, const char *expr)
{
        if (g->schema_v1)
                sb_addf(sb,
                        "  - name: %s\n"
                        "    description: %s\n"
                        "    properties: []\n"
                        "    definitions:\n"
                        "    - architectures:\n"
                        "      - %s\n"
                        "      expression: %s\n",
                        name, desc, g->gfx, expr);
        else
                sb_addf(sb,
                        "%s:\n"
                        "  architectures:\n"
                        "    %s:\n"
                        "      expression: %s\n"
                        "  description: %s\n",
                        name, g->gfx, expr, desc);
}

char *rocprof_pass_yaml(const struct backend_pass *p, const struct rocprof_gpu *g)
{
        struct strbuf sb = {0};
        int any = 0;
        int xcd = g->num_xcd > 1 ? g->num_xcd : 1;
        int per_xcd = g->total_l2_chan > 0 ? g->total_l2_chan / xcd : 0;
        if (per_xcd < 1)
                per_xcd = 1;
        if (g->schema_v1)
                sb_add(&sb, "rocprofiler-sdk:\n  counters-schema-version: 1\n  counters:\n");
        for (size_t i = 0; i < p->ncounters; i++) {
                const char *c = p->counters[i];
                const char *br = strchr(c, '[');
                if (is_accum_value(p, i)) {
                        char *name = rocprof_name(p, i);
                        char *desc = xasprintf("%s accumulation", p->accum);
                        char *expr = xasprintf("accumulate(%s, HIGH_RES)", p->accum);
                        definition(&sb, g, name, desc, expr);
                        free(name);
                        free(desc);
                        free(expr);
                        any = 1;
                } else if (br) {
                        int ch = atoi(br + 1);
                        char *base = xstrndup(c, (size_t)(br - c));
                        char *desc = xasprintf("%s on %dth XCC and %dth channel", base,
                                               ch / per_xcd, ch % per_xcd);
                        char *expr = xasprintf("select(%s,[DIMENSION_XCC=[%d], "
                                               "DIMENSION_INSTANCE=[%d]])",
                                               base, ch / per_xcd, ch % per_xcd);
                        definition(&sb, g, c, desc, expr);
                        free(base);
                        free(desc);
                        free(expr);
                        any = 1;
                }
        }
        if (!any) {
                sb_free(&sb);
                return NULL;
        }
        return sb_detach(&sb);
}
