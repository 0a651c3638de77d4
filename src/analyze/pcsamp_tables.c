/* Panel 21, PC sampling: 21.1 as rocprof-compute (3.9+) shows it, one row per sampled
 * instruction of the selected kernels, and prism's hot-spot tables, the instructions (21.2)
 * and source lines (21.3) with most samples, their share of the kernel's samples and their
 * top stall reason. The samples are read once per analysis (an->pcs). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "hotspots.h"

/* rows of the hot-spot tables */
#define HOT_ROWS 10

const struct pcsamp *analysis_pcsamp(struct analysis *an, const struct workload *w, int *rc,
                                     struct err *err)
{
        *rc = 0;
        if (!an->pcs_tried) {
                an->pcs_tried = 1;
                if (!w->path || !is_dir(w->path))
                        return NULL;
                an->pcs = xcalloc(1, sizeof *an->pcs);
                struct err e = {0};
                if (pcsamp_load(w->path, an->pcs, &e)) {
                        an->pcs_error = xstrdup(e.msg);
                        pcsamp_free(an->pcs);
                        free(an->pcs);
                        an->pcs = NULL;
                }
        }
        if (an->pcs_error) {
                *rc = err_set(err, ERR_INPUT, "%s", an->pcs_error);
                return NULL;
        }
        return an->pcs && an->pcs->nlines ? an->pcs : NULL;
}

static const struct pcsamp *samples(const struct build_ctx *bc, struct err *err, int *rc)
{
        return analysis_pcsamp(bc->an, bc->w, rc, err);
}

static int line_wanted(const struct build_ctx *bc, const struct pcs_line *l)
{
        if (!bc->nknames)
                return 1;
        for (size_t i = 0; i < bc->nknames; i++)
                if (l->kernel && !strcmp(l->kernel, bc->knames[i]))
                        return 1;
        return 0;
}

/* --pc-sampling-sorting-type count (qsort has no context; set by build_listing, which
 * runs on one thread per analysis: analysis_run builds panels in order) */
static _Thread_local int by_count;

static int line_cmp(const void *pa, const void *pb)
{
        const struct pcs_line *a = *(const struct pcs_line *const *)pa,
                              *b = *(const struct pcs_line *const *)pb;
        if (by_count && a->count != b->count)
                return a->count > b->count ? -1 : 1;
        if (a->pid != b->pid)
                return a->pid < b->pid ? -1 : 1;
        if (a->code_object != b->code_object)
                return a->code_object < b->code_object ? -1 : 1;
        if (a->offset != b->offset)
                return a->offset < b->offset ? -1 : 1;
        return strcmp(a->kernel ? a->kernel : "", b->kernel ? b->kernel : "");
}

/* "WAITCNT: 3, ALU_DEPENDENCY: 1" */
static char *reasons_text(const struct pcsamp *ps, const struct pcs_line *l)
{
        struct strbuf sb = {0};
        sb_add(&sb, "");
        for (size_t r = 0; r < l->nreason; r++)
                sb_addf(&sb, "%s%s: %.0f", r ? ", " : "", ps->reasons[l->reason[r]],
                        l->rcount[r]);
        return sb_detach(&sb);
}

static void set_text(struct rtable *t, struct cell *c, const char *s)
{
        c->text = rtable_pool_text(t, s ? s : "");
}

static void set_own(struct rtable *t, struct cell *c, char *s)
{
        set_text(t, c, s);
        free(s);
}

/* 21.1: source_line, instruction, code_object_id, offset, count, [count_issued,
 * count_stalled, stall_reason,] Kernel_Name, by code object and offset */
static int build_listing(const struct build_ctx *bc, const struct panel *p,
                         const struct panel_table *pt, const struct pcsamp *ps)
{
        int stoch = 0, pids = 0;
        size_t n = 0;
        const struct pcs_line **v = xcalloc(ps->nlines, sizeof *v);
        for (size_t i = 0; i < ps->nlines; i++)
                if (line_wanted(bc, &ps->lines[i])) {
                        v[n++] = &ps->lines[i];
                        stoch |= !isnan(ps->lines[i].issued);
                        pids |= n > 1 && ps->lines[i].pid != v[0]->pid;
                }
        if (!n) {
                free(v);
                return 0;
        }
        by_count = bc->o->pc_by_count;
        qsort(v, n, sizeof *v, line_cmp);
        static const char *const all[] = {"source_line", "instruction", "code_object_id",
                                          "offset", "count", "count_issued", "count_stalled",
                                          "stall_reason", "Kernel_Name"};
        static const char *const trap[] = {"source_line", "instruction", "code_object_id",
                                           "offset", "count", "Kernel_Name"};
        /* several processes (one results file each, 3.9+): a pid column first */
        size_t nc = (stoch ? 9 : 6) + (size_t)pids, c0 = (size_t)pids;
        char **titles = xcalloc(nc, sizeof *titles);
        if (pids)
                titles[0] = xstrdup("pid");
        for (size_t k = c0; k < nc; k++)
                titles[k] = xstrdup((stoch ? all : trap)[k - c0]);
        struct rtable *t = analysis_add_table(bc->an, p, pt, "index", nc, titles);
        for (size_t i = 0; i < n; i++) {
                const struct pcs_line *l = v[i];
                char key[24];
                snprintf(key, sizeof key, "%zu", i);
                struct cell *row = rtable_add_row(t, key, NULL);
                if (pids) {
                        row[0].v = l->pid >= 0 ? (double)l->pid : NAN;
                        row++;
                }
                set_own(t, &row[0], hotspot_short_source(l->source));
                set_text(t, &row[1], l->instruction);
                row[2].v = l->code_object >= 0 ? (double)l->code_object : NAN;
                set_own(t, &row[3], l->has_offset ? xasprintf("0x%llx", l->offset) : xstrdup(""));
                row[4].v = l->count;
                if (stoch) {
                        row[5].v = l->issued;
                        row[6].v = l->stalled;
                        set_own(t, &row[7], reasons_text(ps, l));
                }
                set_text(t, &row[nc - c0 - 1], l->kernel);
        }
        free(v);
        return 0;
}

/* 21.2 / 21.3: the hot instructions or source lines */
static int build_hot(const struct build_ctx *bc, const struct panel *p,
                     const struct panel_table *pt, const struct pcsamp *ps, int by_source)
{
        struct hotspot *h;
        size_t n = hotspots(ps, bc->knames, bc->nknames, by_source, &h);
        if (!n) {
                free(h);
                return 0;
        }
        static const char *const ins[] = {"Kernel_Name", "offset", "instruction", "source_line",
                                          "count", "Pct of Kernel", "Pct of Kernel Stalls",
                                          "Top Stall Reason", "Pct of Stalls Here"};
        static const char *const src[] = {"Kernel_Name", "source_line", "instruction", "count",
                                          "Pct of Kernel", "Pct of Kernel Stalls",
                                          "Top Stall Reason", "Pct of Stalls Here"};
        size_t nc = by_source ? 8 : 9;
        struct rtable *t = analysis_add_table(bc->an, p, pt, "index", nc,
                                              rtable_titles(by_source ? src : ins, nc));
        for (size_t i = 0; i < n && i < HOT_ROWS; i++) {
                const struct hotspot *x = &h[i];
                char key[24];
                size_t c = 0;
                snprintf(key, sizeof key, "%zu", i);
                struct cell *row = rtable_add_row(t, key, NULL);
                set_text(t, &row[c++], x->kernel);
                if (!by_source)
                        set_own(t, &row[c++], x->has_offset ? xasprintf("0x%llx", x->offset)
                                                            : xstrdup(""));
                if (by_source) {
                        set_own(t, &row[c++], hotspot_short_source(x->source));
                        set_text(t, &row[c++], x->instruction);
                } else {
                        set_text(t, &row[c++], x->instruction);
                        set_own(t, &row[c++], hotspot_short_source(x->source));
                }
                row[c++].v = x->count;
                row[c++].v = x->kcount > 0 ? 100 * x->count / x->kcount : NAN;
                row[c++].v = x->kstalled > 0 ? 100 * x->stalled / x->kstalled : NAN;
                set_text(t, &row[c++], x->reason);
                row[c].v = x->reason && x->stalled > 0 ? 100 * x->rcount / x->stalled : NAN;
        }
        free(h);
        return 0;
}

int pcsamp_build(const struct build_ctx *bc, const struct panel *p,
                 const struct panel_table *pt, struct err *err)
{
        int rc;
        const struct pcsamp *ps = samples(bc, err, &rc);
        if (!ps)
                return rc;
        if (!strcmp(pt->source, "pc_hot_instructions"))
                return build_hot(bc, p, pt, ps, 0);
        if (!strcmp(pt->source, "pc_hot_lines"))
                return build_hot(bc, p, pt, ps, 1);
        return build_listing(bc, p, pt, ps);
}
