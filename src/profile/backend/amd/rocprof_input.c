/* rocprofv3's input files for one pass (rocprof_input.h). */
#include "rocprof_input.h"

#include <stdlib.h>
#include <string.h>

#include "../../../arch/arch.h"

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

/* One counter definition: an expression, or (expr NULL) a hardware event of a block. */
static void definition(struct strbuf *sb, const struct rocprof_gpu *g, const char *name,
                       const char *desc, const char *expr, const struct counter_def *hw)
{
        /* both formats put the definition's keys 6 spaces in */
        char *b2 = expr ? xasprintf("expression: %s", expr)
                        : xasprintf("block: %s\n      event: %ld", hw->block, hw->event);
        if (g->schema_v1)
                sb_addf(sb,
                        "  - name: %s\n"
                        "    description: %s\n"
                        "    properties: []\n"
                        "    definitions:\n"
                        "    - architectures:\n"
                        "      - %s\n"
                        "      %s\n",
                        name, desc, g->gfx, b2);
        else
                sb_addf(sb,
                        "%s:\n"
                        "  architectures:\n"
                        "    %s:\n"
                        "      %s\n"
                        "  description: %s\n",
                        name, g->gfx, b2, desc);
        free(b2);
}

/* The hardware event a family defines for name (COUNTER_EVENT), once per file. */
static void event_definition(struct strbuf *sb, const struct rocprof_gpu *g,
                             const struct counter_def *d, struct smap *done)
{
        if (smap_get(done, d->name, NULL))
                return;
        smap_put(done, d->name, 1);
        char *desc = xasprintf("%s (%s event %ld)", d->name, d->block, d->event);
        definition(sb, g, d->name, desc, NULL, d);
        free(desc);
}

/* Definitions for counter c of the pass that rocprofv3 does not know by itself: a
 * channel (select), and on architectures whose family says so an alias (the hardware
 * counter under the formulas' name) or a hardware event (with its _sum). Returns 1 if it
 * wrote any. */
static int counter_definitions(struct strbuf *sb, const struct backend_pass *p,
                               const struct rocprof_gpu *g, const char *c, int per_xcd,
                               struct smap *done)
{
        const char *br = strchr(c, '[');
        size_t len = br ? (size_t)(br - c) : strlen(c);
        char *base = xstrndup(c, len);
        const struct counter_def *d = arch_counter_def(p->defs, p->ndefs, base);
        int sum = 0;
        if (!br && !d && len > 4 && !strcmp(c + len - 4, "_sum")) {
                base[len - 4] = 0;
                d = arch_counter_def(p->defs, p->ndefs, base);
                sum = d != NULL;
                if (!d)
                        base[len - 4] = '_';
        }
        if (d && d->kind == COUNTER_ABSENT)
                d = NULL;
        const char *hw = d && d->kind == COUNTER_ALIAS ? d->same_as : base;
        int any = 0;
        if (d && d->kind == COUNTER_EVENT) {
                event_definition(sb, g, d, done);
                any = 1;
        }
        char *expr = NULL, *desc = NULL;
        if (br) {
                int ch = atoi(br + 1);
                desc = xasprintf("%s on %dth XCC and %dth channel", base, ch / per_xcd,
                                 ch % per_xcd);
                expr = xasprintf("select(%s,[DIMENSION_XCC=[%d], DIMENSION_INSTANCE=[%d]])", hw,
                                 ch / per_xcd, ch % per_xcd);
        } else if (sum) {
                desc = xasprintf("%s summed over instances", base);
                expr = xasprintf("reduce(%s,sum)", hw);
        } else if (d && d->kind == COUNTER_ALIAS) {
                desc = xasprintf("%s, the hardware counter %s", base, hw);
                expr = xstrdup(hw);
        }
        if (expr) {
                definition(sb, g, c, desc, expr, NULL);
                any = 1;
        }
        free(expr);
        free(desc);
        free(base);
        return any;
}

char *rocprof_pass_yaml(const struct backend_pass *p, const struct rocprof_gpu *g)
{
        struct strbuf sb = {0};
        struct smap done = {0};
        int any = 0;
        int xcd = g->num_xcd > 1 ? g->num_xcd : 1;
        int per_xcd = g->total_l2_chan > 0 ? g->total_l2_chan / xcd : 0;
        if (per_xcd < 1)
                per_xcd = 1;
        if (g->schema_v1)
                sb_add(&sb, "rocprofiler-sdk:\n  counters-schema-version: 1\n  counters:\n");
        for (size_t i = 0; i < p->ncounters; i++) {
                if (is_accum_value(p, i)) {
                        char *name = rocprof_name(p, i);
                        char *desc = xasprintf("%s accumulation", p->accum);
                        char *expr = xasprintf("accumulate(%s, HIGH_RES)", p->accum);
                        definition(&sb, g, name, desc, expr, NULL);
                        free(name);
                        free(desc);
                        free(expr);
                        any = 1;
                } else if (counter_definitions(&sb, p, g, p->counters[i], per_xcd, &done)) {
                        any = 1;
                }
        }
        smap_free(&done);
        if (!any) {
                sb_free(&sb);
                return NULL;
        }
        return sb_detach(&sb);
}
