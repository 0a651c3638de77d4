/* Analysis: select the dispatches, then build every selected panel table through the
 * builder its source names (src/analyze/build.h). */
#include "build.h"
#include "findings.h"
#include "roofline.h"
#include "../store/columns.h"
#include "../store/pcsamp.h"
#include "../util/task.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* findings, roofline_class: the rules evaluate their own formulas per kernel (a nested
 * analysis), reading no other table's values, so their place in the build loop is free */
static int build_findings(const struct build_ctx *bc, const struct panel *p,
                          const struct panel_table *pt, struct err *err)
{
        (void)pt;
        static const struct findings_nested nested = {analysis_run, analysis_free};
        return findings_build(bc->w, bc->a, bc->ps, bc->o, bc->knames, bc->nknames, p, bc->an,
                              &nested, err);
}

/* The table sources and their builders; a table without a source lists metrics. */
static const struct {
        const char *source;
        table_builder build;
} builders[] = {
    {"top_kernels", build_top_kernels},
    {"dispatch_list", build_dispatch_list},
    {"sysinfo", build_sysinfo},
    {"roofline", build_roofline_csv},
    {"roofline_ceilings", roofline_build_table},
    {"roofline_points", roofline_build_table},
    {"roofline_dtypes", roofline_build_table},
    {"rank_summary", ranks_build},
    {"rank_kernels", ranks_build},
    {"rank_spread", ranks_build},
    {"findings", build_findings},
    {"roofline_class", build_findings},
    {"pc_sampling", pcsamp_build},
    {"pc_hot_instructions", pcsamp_build},
    {"pc_hot_lines", pcsamp_build},
};

static int build_metrics(const struct build_ctx *bc, const struct panel *p,
                         const struct panel_table *pt, struct err *err)
{
        /* --include-cols Description: a last column saying what each metric measures */
        size_t nc = pt->ncols + (bc->o->include_desc != 0);
        char **titles = xcalloc(nc ? nc : 1, sizeof *titles);
        for (size_t k = 0; k < pt->ncols; k++)
                titles[k] = xstrdup(pt->cols[k].title);
        if (nc > pt->ncols)
                titles[pt->ncols] = xstrdup("Description");
        struct rtable *t = analysis_add_table(bc->an, p, pt, "Metric_ID", nc, titles);
        int rc = eval_metric_rows(bc->ev, t, p, pt, err);
        for (size_t r = 0; !rc && nc > pt->ncols && r < t->nrows; r++) {
                char key[256]; /* the row's metric: its rkey up to '#' */
                snprintf(key, sizeof key, "%.*s", (int)strcspn(t->rkeys[r], "#"), t->rkeys[r]);
                const struct metric *m = arch_metric(bc->a, key);
                t->cells[r * nc + pt->ncols].text = xstrdup(m && m->desc ? m->desc : "");
        }
        if (!rc && t->nrows == 0) /* a metric table none of whose rows -b selected */
                rtable_free(&bc->an->tables[--bc->an->ntables]);
        return rc;
}

static table_builder builder_of(const char *source)
{
        if (!source)
                return build_metrics;
        for (size_t i = 0; i < sizeof builders / sizeof *builders; i++)
                if (!strcmp(builders[i].source, source))
                        return builders[i].build;
        return NULL;
}

/* ---- -b selection ---- */

/* ---- the driver ---- */

/* A place among the panels' tables: table t of panel p ({p, 0}: where panel p begins). */
struct at {
        size_t p, t;
};

static int at_before(struct at a, struct at b)
{
        return a.p < b.p || (a.p == b.p && a.t < b.t);
}

/* Build the tables from `from` up to (not including) `to` into bc->an: their builders, then
 * every metric cell in one run over the selected dispatches (eval_finish). */
static int build_panels(struct build_ctx *bc, struct at from, struct at to, struct err *err)
{
        const struct panel_set *ps = bc->ps;
        int rc = 0;
        bc->ev = eval_new(bc->w, bc->a, bc->o, bc->sel, bc->n, bc->an);
        for (size_t i = from.p; i < ps->npanels && i <= to.p && !rc; i++) {
                const struct panel *p = &ps->panels[i];
                for (size_t j = i == from.p ? from.t : 0; j < p->ntables && !rc; j++) {
                        if (!at_before((struct at){i, j}, to))
                                break;
                        const struct panel_table *pt = &p->tables[j];
                        if (!panel_table_for(pt, bc->a->target) ||
                            !analysis_table_wanted(bc->o, p, pt))
                                continue;
                        table_builder build = builder_of(pt->source);
                        if (!build)
                                rc = err_set(err, ERR_INPUT, "%s: unknown table source '%s'",
                                             p->file, pt->source);
                        else
                                rc = build(bc, p, pt, err);
                }
        }
        if (!rc)
                rc = eval_finish(bc->ev, err);
        eval_free(bc->ev);
        bc->ev = NULL;
        return rc;
}

/* ---- two threads: the panels in two runs of consecutive panels ----
 * Each half has its own evaluator and result tables; the second half's tables are then
 * appended to the first's, and its missing counters that the first did not report, so
 * that tables and the missing list read as a one-thread run's. A half that warns or fails
 * sends the whole analysis back to one thread, for the one-thread run's messages. */

/* A rough price of building table pt: its metric cells (a field's twice), a template
 * row's once per repetition and three times over (each repetition is a formula of its own
 * to clone, bind and evaluate); the findings (a nested analysis per top kernel) a fixed
 * 3,800 cells for both tables (built at once: 4.2 M of the 14.9 M instructions of the
 * panels of the shared vcopy recording, callgrind; bench/RESULTS-startup.md). Measured on
 * recorded workloads; only the shape of the split depends on it.
 * And the evaluation over the dispatches, which outweighs the rest from some thousands of
 * them on: per dispatch, a hundredth of a cell for each formula evaluated (a row, once per
 * repetition and per field), twice that for one whose values are all kept (median,
 * quartiles, deviation: coded, kept, then selected through). At 100k generated dispatches
 * the halves split so took 0.27-0.29 and 0.23-0.24 s of CPU (perf, per thread), against
 * 0.18 and 0.35 s with the cells alone; at 1M 3.7 and 3.4 s, against 1.9 and 5.1 s. */
static double table_price(const struct build_ctx *bc, const struct panel *p,
                          const struct panel_table *pt)
{
        if (!panel_table_for(pt, bc->a->target) || !analysis_table_wanted(bc->o, p, pt))
                return 0;
        if (pt->source)
                return findings_is_source(pt->source) ? 1900 : 50;
        double r = pt->repeat ? workload_sys_num(bc->w, pt->repeat) : 1;
        double cells = (double)pt->nrows * (double)(pt->ncols ? pt->ncols : 1);
        double fields = 0, kept = 1;
        /* and a column of a field: a formula of its own over every dispatch */
        for (size_t c = 0; c < pt->ncols; c++) {
                const char *show = pt->cols[c].show;
                cells += pt->cols[c].field ? (double)pt->nrows : 0;
                fields += pt->cols[c].field ? 1 : 0;
                if (show && (!strcmp(show, "median") || !strcmp(show, "q1") ||
                             !strcmp(show, "q3") || !strcmp(show, "std")))
                        kept = 2;
        }
        int rep = pt->repeat && r > 1;
        double formulas = (double)pt->nrows * (rep ? r : 1) * (fields ? fields : 1);
        return (rep ? 3 * r * cells : cells) + (double)bc->n * 0.01 * formulas * kept;
}

/* A panel whose tables may go to different halves: metric tables only (a built-in source
 * may build more than its own table, as the findings do) */
static int splittable(const struct panel *p)
{
        for (size_t j = 0; j < p->ntables; j++)
                if (p->tables[j].source)
                        return 0;
        return 1;
}

/* Where the second half starts: the place (a panel's start, or a table's inside a panel of
 * metric tables) whose halves cost most alike; {0, 0} when the whole is too small to be
 * worth a thread (about a millisecond of work). */
static struct at split_at(const struct build_ctx *bc)
{
        const struct panel_set *ps = bc->ps;
        double total = 0;
        for (size_t i = 0; i < ps->npanels; i++)
                for (size_t j = 0; j < ps->panels[i].ntables; j++)
                        total += table_price(bc, &ps->panels[i], &ps->panels[i].tables[j]);
        struct at best = {0, 0};
        double run = 0, best_gap = total;
        for (size_t i = 0; i < ps->npanels; i++) {
                const struct panel *p = &ps->panels[i];
                int inside = splittable(p);
                for (size_t j = 0; j < p->ntables; j++) {
                        if ((i > 0 || j > 0) && (j == 0 || inside)) {
                                double gap = fabs(total - 2 * run);
                                if (gap < best_gap) {
                                        best_gap = gap;
                                        best = (struct at){i, j};
                                }
                        }
                        run += table_price(bc, p, &p->tables[j]);
                }
        }
        return total >= 2000 ? best : (struct at){0, 0};
}

struct half {
        struct build_ctx bc;
        struct analysis an;
        struct at from, to;
        struct err err;
        const struct analysis_ahead *ahead;
        const int *busy; /* the first half is being built */
};

static int half_job(void *p)
{
        struct half *h = p;
        int rc = build_panels(&h->bc, h->from, h->to, &h->err);
        if (!rc && h->ahead) {
                /* the tables of a panel the split cut are not the ahead's */
                const struct panel *cut = h->from.t ? &h->bc.ps->panels[h->from.p] : NULL;
                size_t from = 0;
                while (cut && from < h->an.ntables && h->an.tables[from].panel == cut)
                        from++;
                h->ahead->fn(h->ahead->ctx, &h->an, from, h->busy);
        }
        return rc;
}

/* h's tables and missing counters after an's own (h is left empty) */
static void append_half(struct analysis *an, struct half *h)
{
        struct analysis *b = &h->an;
        xgrow(&an->tables, &an->captables, an->ntables + b->ntables, sizeof *an->tables);
        memcpy(an->tables + an->ntables, b->tables, b->ntables * sizeof *b->tables);
        an->ntables += b->ntables;
        free(b->tables);
        b->tables = NULL;
        b->ntables = 0;
        struct smap seen = {0};
        for (size_t i = 0; i < an->nmissing; i++)
                smap_put(&seen, an->missing[i], 1);
        an->missing = xrealloc(an->missing, (an->nmissing + b->nmissing) * sizeof *an->missing);
        for (size_t i = 0; i < b->nmissing; i++) {
                if (smap_get(&seen, b->missing[i], NULL))
                        free(b->missing[i]);
                else
                        an->missing[an->nmissing++] = b->missing[i];
        }
        free(b->missing);
        b->missing = NULL;
        b->nmissing = 0;
        smap_free(&seen);
        if (b->roof && !an->roof) {
                an->roof = b->roof;
                b->roof = NULL;
        }
}

/* 1: built on two threads; 0: not tried or sent back (an is then as analysis_run began) */
static int build_two(struct build_ctx *bc, struct err *err)
{
        struct at k = bc->o->threads > 1 ? split_at(bc) : (struct at){0, 0};
        if (!k.p && !k.t)
                return 0;
        struct analysis *an = bc->an;
        /* binding writes into a formula: the first half (and its findings' nested analyses)
         * binds the architecture's formulas, the second half copies of them */
        struct analysis_opts po = *bc->o;
        po.private_formulas = 1;
        po.ahead = NULL;
        int busy = 1;
        struct half h = {.bc = *bc, .from = k, .to = {bc->ps->npanels, 0},
                         .ahead = bc->o->ahead, .busy = &busy};
        h.bc.o = &po;
        h.an.arch = an->arch;
        h.an.nselected = an->nselected;
        h.bc.an = &h.an;
        struct task t;
        struct strbuf held = {0};
        task_start(&t, half_job, &h);
        struct strbuf *outer = warn_hold(&held);
        int rc = build_panels(bc, (struct at){0, 0}, k, err);
        __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
        warn_hold(outer);
        int hrc = task_join(&t);
        int ok = !rc && !hrc && !held.len && !t.warnings.len;
        sb_free(&held);
        sb_free(&t.warnings);
        if (ok) {
                size_t at = an->ntables;
                append_half(an, &h);
                an->second_at = at;
        } else {
                const struct arch *a = an->arch;
                size_t n = an->nselected;
                analysis_free(an);
                an->arch = a;
                an->nselected = n;
        }
        analysis_free(&h.an);
        return ok;
}

int analysis_run(const struct workload *w, const struct arch *a, const struct panel_set *ps,
                 const struct analysis_opts *o, struct analysis *an, struct err *err)
{
        int rc = 0;
        memset(an, 0, sizeof *an);
        an->arch = a;
        struct build_ctx bc = {.w = w, .a = a, .o = o, .ps = ps, .an = an};
        char **top = NULL;
        size_t ntop = 0;
        const char **knames = NULL;
        size_t nknames = 0;
        /* room for every row, written as far as rows are selected (not zeroed: the pages
         * past them are never touched, 8 MB at 1M dispatches for each findings' nested
         * analysis of a kernel) */
        size_t *sel = xmalloc((w->pmc.nrows ? w->pmc.nrows : 1) * sizeof *sel);

        analysis_top_kernels(w, o, &top, &ntop);
        knames = xcalloc(o->nkernels + o->nkernel_names + 1, sizeof *knames);
        for (size_t i = 0; i < o->nkernels; i++) {
                if (o->kernels[i] < 0 || (size_t)o->kernels[i] >= ntop) {
                        rc = err_set(err, ERR_INPUT,
                                     "kernel index %ld is out of range (0-%zd, see --list-stats)",
                                     o->kernels[i], (ssize_t)ntop - 1);
                        goto out;
                }
                knames[nknames++] = top[o->kernels[i]];
        }
        for (size_t i = 0; i < o->nkernel_names; i++) {
                size_t m = 0;
                rc = kernels_match(o->kernel_names[i], (const char *const *)top, ntop, &w->ksyms,
                                   &knames, &nknames, &m, err);
                if (rc)
                        goto out;
        }

        size_t n = 0;
        /* whether a kernel is selected: once per cell text (a nested analysis of each top
         * kernel goes through every dispatch) */
        int kc = table_col(&w->pmc, COL_KERNEL_NAME);
        char **texts = kc >= 0 ? w->pmc.str[kc] : NULL;
        struct kptr seen = {0};
        for (size_t r = 0; r < w->pmc.nrows; r++) {
                if (!row_base_selected(w, o, r))
                        continue;
                if (nknames) {
                        const char *text = texts ? texts[r] : NULL;
                        int in;
                        if (!kptr_get(&seen, text, &in)) {
                                char *name = row_kname(w, o, r);
                                size_t k;
                                for (k = 0; k < nknames; k++)
                                        if (!strcmp(name, knames[k]))
                                                break;
                                free(name);
                                in = k < nknames;
                                kptr_put(&seen, text, in);
                        }
                        if (!in)
                                continue;
                }
                sel[n++] = r;
        }
        kptr_free(&seen);
        if (!n) {
                rc = err_set(err, ERR_INPUT, "the filters select no dispatch");
                goto out;
        }
        an->nselected = n;
        bc.sel = sel;
        bc.n = n;
        bc.knames = knames;
        bc.nknames = nknames;
        if (!build_two(&bc, err) &&
            (rc = build_panels(&bc, (struct at){0, 0}, (struct at){ps->npanels, 0}, err)))
                goto out;
        if (o->nblocks) {
                /* every -b id must name something */
                for (size_t b = 0; b < o->nblocks; b++) {
                        int found = 0;
                        struct analysis_opts one = *o;
                        one.blocks = &o->blocks[b];
                        one.nblocks = 1;
                        for (size_t i = 0; i < an->ntables && !found; i++) {
                                const struct rtable *t = &an->tables[i];
                                if (t->panel->id == 0) { /* "0": panel 0 alone */
                                        found = !strcmp(o->blocks[b], t->id) ||
                                                !strcmp(o->blocks[b], "0");
                                        continue;
                                }
                                if (!t->metric_table) {
                                        found = analysis_table_wanted(&one, t->panel, t->pt);
                                        continue;
                                }
                                for (size_t r = 0; r < t->nrows && !found; r++)
                                        found = analysis_row_wanted(&one, t->panel, t->pt, t->keys[r]);
                        }
                        if (!found) {
                                rc = err_set(err, ERR_INPUT,
                                             "-b %s: no panel, table or metric has that id "
                                             "on %s",
                                             o->blocks[b], a->target);
                                goto out;
                        }
                }
        }
out:
        free_all((void *const *)top, ntop);
        free(top);
        free(knames);
        free(sel);
        if (rc)
                analysis_free(an);
        return rc;
}

void analysis_free(struct analysis *an)
{
        for (size_t i = 0; i < an->ntables; i++)
                rtable_free(&an->tables[i]);
        free(an->tables);
        for (size_t i = 0; i < an->nmissing; i++)
                free(an->missing[i]);
        free(an->missing);
        if (an->roof) {
                roofline_free(an->roof);
                free(an->roof);
        }
        if (an->pcs) {
                pcsamp_free(an->pcs);
                free(an->pcs);
        }
        free(an->pcs_error);
        memset(an, 0, sizeof *an);
}