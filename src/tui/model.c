/* The TUI's state and the transforms on it: filters and normalization re-run the same
 * analysis the text view prints (analysis_run), the panel tree follows its tables (search
 * and go-to: search.c). No terminal I/O here. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../analyze/findings.h"
#include "../store/columns.h"
#include "tui_int.h"

void tui_msg(struct tui_model *m, int is_err, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->msg, sizeof m->msg, fmt, ap);
        va_end(ap);
        m->msg_err = is_err;
}

/* ---- the tree ---- */

static void tree_build(struct tui_model *m)
{
        free(m->nodes);
        m->nodes = xcalloc(2 * m->an[0].ntables + 1, sizeof *m->nodes);
        m->nnodes = 0;
        const struct panel *cur = NULL;
        for (size_t i = 0; i < m->an[0].ntables; i++) {
                const struct rtable *t = &m->an[0].tables[i];
                if (t->panel != cur) {
                        cur = t->panel;
                        m->nodes[m->nnodes++] =
                            (struct tui_node){.panel = cur->id, .first = i, .table = TUI_NONE};
                }
                size_t first = m->nodes[m->nnodes - 1].first;
                m->nodes[m->nnodes++] =
                    (struct tui_node){.panel = cur->id, .first = first, .table = i};
        }
}

size_t tui_visible_nodes(const struct tui_model *m, size_t *out)
{
        size_t n = 0;
        int open = m->nnodes ? m->nodes[m->sel].panel : -1;
        for (size_t j = 0; j < m->nnodes; j++)
                if (m->nodes[j].table == TUI_NONE || m->nodes[j].panel == open)
                        out[n++] = j;
        return n;
}

const struct rtable *tui_current_table(const struct tui_model *m)
{
        if (!m->nnodes)
                return NULL;
        const struct tui_node *nd = &m->nodes[m->sel];
        return &m->an[0].tables[nd->table != TUI_NONE ? nd->table : nd->first];
}

int tui_select_node(struct tui_model *m, size_t node)
{
        if (node >= m->nnodes)
                return ERR_INPUT;
        if (node != m->sel) {
                m->sel = node;
                m->voff = m->hoff = 0;
                m->hl_table = m->hl_row = -1;
        }
        return 0;
}

size_t tui_node_of_table(const struct tui_model *m, size_t table)
{
        for (size_t j = 0; j < m->nnodes; j++)
                if (m->nodes[j].table == table)
                        return j;
        return 0;
}

/* ---- evaluation ---- */

/* Evaluate with the given filters and normalization; on success they become the state,
 * on failure nothing changes and the message says why. */
static int apply(struct tui_model *m, const unsigned char *ksel, const unsigned char *dsel,
                 size_t norm)
{
        struct analysis_opts o = m->base;
        const char **names = xcalloc(m->nkernels + 1, sizeof *names);
        long *ids = xcalloc(m->ndisp + 1, sizeof *ids);
        o.kernels = NULL;
        o.nkernels = 0;
        o.kernel_names = names;
        o.nkernel_names = 0;
        for (size_t k = 0; k < m->nkernels; k++)
                if (ksel[k])
                        names[o.nkernel_names++] = m->kernels[k];
        o.dispatches = ids;
        o.ndispatches = 0;
        for (size_t d = 0; d < m->ndisp; d++)
                if (dsel[d])
                        ids[o.ndispatches++] = m->disp_ids[d];
        o.norm = m->norms[norm];

        struct analysis an[2];
        struct err err = {0};
        size_t nw = m->in.nw, done = 0;
        int rc = 0;
        memset(an, 0, sizeof an);
        for (; done < nw; done++)
                if ((rc = analysis_run(m->in.w[done], m->in.a[done], m->in.ps, &o, &an[done],
                                       &err))) {
                        tui_msg(m, 1, "%s: %s", m->in.w[done]->path, err.msg);
                        break;
                }
        if (rc) {
                for (size_t i = 0; i < done; i++)
                        analysis_free(&an[i]);
                free(names);
                free(ids);
                return rc;
        }
        if (nw == 2) /* the findings of both runs, as the text comparison shows them */
                findings_compare(&an[0], &an[1]);
        free(m->cur_knames);
        free(m->cur_ids);
        m->cur = o;
        m->cur_knames = names;
        m->cur_ids = ids;

        /* keep the selection and the highlighted row by id across the re-evaluation */
        char *sel_table = NULL, *hl_table = NULL;
        int sel_panel = m->nnodes ? m->nodes[m->sel].panel : -1;
        if (m->nnodes && m->nodes[m->sel].table != TUI_NONE)
                sel_table = xstrdup(m->an[0].tables[m->nodes[m->sel].table].id);
        if (m->hl_table >= 0)
                hl_table = xstrdup(m->an[0].tables[m->hl_table].id);
        for (size_t i = 0; i < nw; i++) {
                analysis_free(&m->an[i]);
                m->an[i] = an[i];
        }
        if (ksel != m->ksel)
                memcpy(m->ksel, ksel, m->nkernels);
        if (dsel != m->dsel)
                memcpy(m->dsel, dsel, m->ndisp);
        m->norm = norm;
        tree_build(m);
        m->sel = 0;
        m->hl_table = -1;
        for (size_t j = 0; j < m->nnodes; j++) {
                const struct tui_node *nd = &m->nodes[j];
                if (nd->panel != sel_panel)
                        continue;
                if (!sel_table && nd->table == TUI_NONE)
                        m->sel = j;
                if (sel_table && nd->table != TUI_NONE &&
                    !strcmp(m->an[0].tables[nd->table].id, sel_table))
                        m->sel = j;
        }
        for (size_t i = 0; hl_table && i < m->an[0].ntables; i++)
                if (!strcmp(m->an[0].tables[i].id, hl_table) &&
                    m->hl_row < (long)m->an[0].tables[i].nrows)
                        m->hl_table = (long)i;
        if (m->hl_table < 0)
                m->hl_row = -1;
        free(sel_table);
        free(hl_table);
        if (m->query[0]) {
                /* the same rows, maybe fewer: search again without moving */
                size_t cur = m->match_cur;
                char q[sizeof m->query];
                strcpy(q, m->query);
                long ht = m->hl_table, hr = m->hl_row;
                size_t s = m->sel, vo = m->voff;
                if (!tui_find_matches(m, q) && m->nmatches)
                        m->hoff = 0; /* as showing the first match left it */
                m->sel = s;
                m->voff = vo;
                m->hl_table = ht;
                m->hl_row = hr;
                m->match_cur = cur < m->nmatches ? cur : 0;
        }
        return 0;
}

/* the dispatches of selected kernels only (a dispatch of another kernel selects nothing) */
static void prune_dispatches(const struct tui_model *m, const unsigned char *ksel,
                             unsigned char *dsel)
{
        int any = 0;
        for (size_t k = 0; k < m->nkernels; k++)
                any |= ksel[k];
        if (!any)
                return;
        for (size_t d = 0; d < m->ndisp; d++)
                if (dsel[d] && !ksel[m->disp_kernel[d]])
                        dsel[d] = 0;
}

static int kernel_apply(struct tui_model *m, unsigned char *ks)
{
        unsigned char *ds = xmalloc(m->ndisp + 1);
        memcpy(ds, m->dsel, m->ndisp);
        prune_dispatches(m, ks, ds);
        int rc = apply(m, ks, ds, m->norm);
        free(ds);
        return rc;
}

/* a new selection of n items: only item i (TUI_NONE: none), or cur with item i flipped */
static unsigned char *sel_only(size_t n, size_t i)
{
        unsigned char *s = xcalloc(n + 1, 1);
        if (i != TUI_NONE)
                s[i] = 1;
        return s;
}

static unsigned char *sel_flip(const unsigned char *cur, size_t n, size_t i)
{
        unsigned char *s = xmalloc(n + 1);
        memcpy(s, cur, n);
        s[i] = !s[i];
        return s;
}

/* apply a new selection of kernels (kernels != 0) or dispatches, then free it */
static int apply_sel(struct tui_model *m, int kernels, unsigned char *sel)
{
        int rc = kernels ? kernel_apply(m, sel) : apply(m, m->ksel, sel, m->norm);
        free(sel);
        return rc;
}

int tui_kernel_only(struct tui_model *m, size_t k)
{
        if (k != TUI_NONE && k >= m->nkernels)
                return ERR_INPUT;
        return apply_sel(m, 1, sel_only(m->nkernels, k));
}

int tui_kernel_toggle(struct tui_model *m, size_t k)
{
        if (k >= m->nkernels)
                return ERR_INPUT;
        return apply_sel(m, 1, sel_flip(m->ksel, m->nkernels, k));
}

int tui_dispatch_only(struct tui_model *m, size_t d)
{
        if (d != TUI_NONE && d >= m->ndisp)
                return ERR_INPUT;
        return apply_sel(m, 0, sel_only(m->ndisp, d));
}

int tui_dispatch_toggle(struct tui_model *m, size_t d)
{
        if (d >= m->ndisp)
                return ERR_INPUT;
        return apply_sel(m, 0, sel_flip(m->dsel, m->ndisp, d));
}

int tui_norm_cycle(struct tui_model *m, int dir)
{
        size_t n = m->nnorms;
        size_t next = (m->norm + (dir < 0 ? n - 1 : 1)) % n;
        int rc = apply(m, m->ksel, m->dsel, next);
        if (!rc)
                tui_msg(m, 0, "normalization: %s", m->norms[next]);
        return rc;
}

int tui_norm_set(struct tui_model *m, const char *norm)
{
        for (size_t i = 0; i < m->nnorms; i++)
                if (!strcmp(m->norms[i], norm))
                        return apply(m, m->ksel, m->dsel, i);
        tui_msg(m, 1, "unknown normalization '%s'", norm);
        return ERR_INPUT;
}

/* ---- search (showing a match: search.c) ---- */

int tui_id_like(const char *s)
{
        if (!*s)
                return 0;
        for (; *s; s++)
                if (!isdigit((unsigned char)*s) && *s != '.')
                        return 0;
        return 1;
}

static int has_ci(const char *hay, const char *needle)
{
        size_t n = strlen(needle);
        for (; hay && *hay; hay++)
                if (!strncasecmp(hay, needle, n))
                        return 1;
        return 0;
}

/* the row's name: the first text cell (the metric name, a kernel name) */
static const char *row_name(const struct rtable *t, size_t r)
{
        for (size_t c = 0; c < t->ncols; c++)
                if (t->cells[r * t->ncols + c].text)
                        return t->cells[r * t->ncols + c].text;
        return NULL;
}

static size_t shown_rows(const struct tui_model *m, const struct rtable *t)
{
        int top = t->pt->props.stat_rows;
        const struct render_opts *o = m->in.ro;
        if (!m->compare && top && o->max_stat_num >= 0 && (size_t)o->max_stat_num < t->nrows)
                return (size_t)o->max_stat_num;
        return t->nrows;
}

int tui_find_matches(struct tui_model *m, const char *query)
{
        snprintf(m->query, sizeof m->query, "%s", query);
        free(m->matches);
        m->matches = NULL;
        m->nmatches = 0;
        m->match_cur = 0;
        if (!query[0])
                return 0;
        size_t cap = 0;
        int idq = tui_id_like(query);
        for (size_t i = 0; i < m->an[0].ntables; i++) {
                const struct rtable *t = &m->an[0].tables[i];
                for (size_t r = 0, n = shown_rows(m, t); r < n; r++) {
                        int hit =
                            idq ? t->metric_table && !strncmp(t->keys[r], query, strlen(query))
                                : has_ci(t->keys[r], query) || has_ci(row_name(t, r), query);
                        if (!hit)
                                continue;
                        xgrow(&m->matches, &cap, m->nmatches + 1, sizeof *m->matches);
                        m->matches[m->nmatches++] = (struct tui_match){i, r};
                }
        }
        if (!m->nmatches) {
                m->hl_table = m->hl_row = -1;
                tui_msg(m, 1, "no metric matches '%s'", query);
                return ERR_INPUT;
        }
        return 0;
}

size_t tui_list_items(const struct tui_model *m, size_t *out)
{
        size_t n = 0;
        out[n++] = TUI_NONE;
        if (m->mode == TM_KERNELS) {
                for (size_t k = 0; k < m->nkernels; k++)
                        out[n++] = k;
                return n;
        }
        int any = 0;
        for (size_t k = 0; k < m->nkernels; k++)
                any |= m->ksel[k];
        for (size_t d = 0; d < m->ndisp; d++)
                if (!any || m->ksel[m->disp_kernel[d]])
                        out[n++] = d;
        return n;
}

int tui_view_text(struct tui_model *m, const char *which)
{
        struct err err = {0};
        char **lines = NULL;
        size_t n = 0;
        if (tui_text_render(m, which, m->cols, &lines, &n, &err)) {
                tui_msg(m, 1, "%s", err.msg);
                return ERR_INPUT;
        }
        for (size_t i = 0; i < m->ntext; i++)
                free(m->text[i]);
        free(m->text);
        free(m->text_title);
        m->text = lines;
        m->ntext = n;
        m->text_title = xstrdup(!strcmp(which, "memchart") ? "Memory Chart" : "Roofline");
        m->mode = TM_TEXT;
        m->text_voff = m->text_hoff = 0;
        return 0;
}

/* ---- setup ---- */

static void list_dispatches(struct tui_model *m)
{
        const struct workload *w = m->in.w[0];
        int cd = table_col(&w->pmc, COL_DISPATCH_ID), ck = table_col(&w->pmc, COL_KERNEL_NAME);
        int cg = table_col(&w->pmc, COL_GPU_ID);
        m->disp_ids = xcalloc(w->pmc.nrows + 1, sizeof *m->disp_ids);
        m->disp_kernel = xcalloc(w->pmc.nrows + 1, sizeof *m->disp_kernel);
        char buf[64];
        for (size_t r = 0; r < w->pmc.nrows; r++) {
                if (m->base.gpu_id &&
                    (cg < 0 || strcmp(table_cell(&w->pmc, cg, r, buf, sizeof buf), m->base.gpu_id)))
                        continue;
                const char *kn = ck >= 0 ? table_cell(&w->pmc, ck, r, buf, sizeof buf) : "";
                size_t k;
                for (k = 0; k < m->nkernels && strcmp(m->kernels[k], kn); k++)
                        ;
                m->disp_kernel[m->ndisp] = k < m->nkernels ? k : 0;
                m->disp_ids[m->ndisp++] = cd >= 0 ? (long)w->pmc.num[cd][r] : (long)r;
        }
        m->dsel = xcalloc(m->ndisp + 1, 1);
}

int tui_model_init(struct tui_model *m, const struct tui_input *in, struct err *err)
{
        memset(m, 0, sizeof *m);
        m->in = *in;
        m->base = *in->opts;
        m->compare = in->nw == 2;
        m->hl_table = m->hl_row = -1;
        m->rows = 24;
        m->cols = 80;

        /* every kernel (the dispatch filter is the TUI's own) */
        struct analysis_opts all = m->base;
        all.ndispatches = 0;
        analysis_top_kernels(in->w[0], &all, &m->kernels, &m->nkernels);
        m->ksel = xcalloc(m->nkernels + 1, 1);
        list_dispatches(m);

        /* the command line's -k (indices into the list its -d filter gives, or names) and -d */
        char **top = NULL;
        size_t ntop = 0;
        analysis_top_kernels(in->w[0], &m->base, &top, &ntop);
        for (size_t k = 0; k < m->nkernels; k++) {
                for (size_t i = 0; i < m->base.nkernels; i++)
                        if (m->base.kernels[i] >= 0 && (size_t)m->base.kernels[i] < ntop &&
                            !strcmp(top[m->base.kernels[i]], m->kernels[k]))
                                m->ksel[k] = 1;
                for (size_t i = 0; i < m->base.nkernel_names; i++)
                        if (!strcmp(m->base.kernel_names[i], m->kernels[k]))
                                m->ksel[k] = 1;
        }
        for (size_t i = 0; i < ntop; i++)
                free(top[i]);
        free(top);
        for (size_t d = 0; d < m->ndisp; d++)
                for (size_t i = 0; i < m->base.ndispatches; i++)
                        if (m->base.dispatches[i] == m->disp_ids[d])
                                m->dsel[d] = 1;

        const struct arch *a = in->a[0];
        m->nnorms = a->nnorms;
        m->norms = xcalloc(a->nnorms + 1, sizeof *m->norms);
        for (size_t i = 0; i < a->nnorms; i++) {
                m->norms[i] = a->norms[i].name;
                if (m->base.norm && !strcmp(m->base.norm, a->norms[i].name))
                        m->norm = i;
        }
        if (!m->nnorms) {
                tui_model_free(m);
                return err_set(err, ERR_INPUT, "architecture '%s' has no normalizations",
                               a->target);
        }
        if (apply(m, m->ksel, m->dsel, m->norm)) {
                err_set(err, ERR_INPUT, "%s", m->msg);
                tui_model_free(m);
                return ERR_INPUT;
        }
        m->msg[0] = 0;
        return 0;
}

void tui_model_free(struct tui_model *m)
{
        for (size_t i = 0; i < 2; i++)
                analysis_free(&m->an[i]);
        for (size_t k = 0; k < m->nkernels; k++)
                free(m->kernels[k]);
        free(m->kernels);
        free(m->ksel);
        free(m->disp_ids);
        free(m->disp_kernel);
        free(m->dsel);
        free(m->norms);
        free(m->cur_knames);
        free(m->cur_ids);
        free(m->nodes);
        free(m->matches);
        for (size_t i = 0; i < m->ntext; i++)
                free(m->text[i]);
        free(m->text);
        free(m->text_title);
        memset(m, 0, sizeof *m);
}
