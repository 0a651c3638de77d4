/* Composing the TUI screen from the model: title and filter bars, the panel tree, the
 * selected table (or panel) in the right pane, the kernel and dispatch lists, the help and
 * the text views, and the status line. Pure: the result is a grid of cells. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../render/memchart.h"
#include "tui_int.h"
#include "../util/esc.h"

void tui_layout(int rows, int cols, struct tui_layout *l)
{
        memset(l, 0, sizeof *l);
        l->ok = rows >= TUI_MIN_ROWS && cols >= TUI_MIN_COLS;
        l->main_y = 2;
        l->main_h = rows - 3;
        int tw = cols / 4;
        tw = tw < 20 ? 20 : tw > 32 ? 32 : tw;
        l->tree_w = tw;
        l->pane_x = tw + 1;
        l->pane_w = cols - tw - 1;
}

size_t tui_u8width(const char *s)
{
        size_t w = 0;
        for (; *s; s++)
                w += ((unsigned char)*s & 0xC0) != 0x80;
        return w;
}

/* length of the UTF-8 sequence at s (1 for a malformed one) */
static size_t u8seq(const char *s)
{
        unsigned char c = (unsigned char)*s;
        size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        for (size_t i = 1; i < len; i++)
                if (((unsigned char)s[i] & 0xC0) != 0x80)
                        return 1;
        return len;
}

static void set_cell(struct tui_cell *c, const char *s, size_t len, int attr)
{
        if (len == 1 && ((unsigned char)*s < 0x20 || *s == 0x7f)) {
                s = " "; /* control characters would move the terminal's cursor */
        } else if (len == 1 && (unsigned char)*s >= 0x80) {
                s = "?";
        }
        memcpy(c->ch, s, len);
        c->ch[len] = 0;
        c->attr = (unsigned char)attr;
}

size_t tui_line_add(struct tui_line *l, const char *s, int attr)
{
        size_t added = 0;
        struct strbuf e = {0}; /* control characters from the data shown escaped (esc.h) */
        s = esc_view(s, &e, 0);
        while (*s) {
                size_t len = u8seq(s);
                xgrow(&l->c, &l->cap, l->n + 1, sizeof *l->c);
                set_cell(&l->c[l->n++], s, len, attr);
                s += len;
                added++;
        }
        sb_free(&e);
        return added;
}

static void line_pad(struct tui_line *l, size_t n, int attr)
{
        while (n--)
                tui_line_add(l, " ", attr);
}

static struct tui_line *doc_line(struct tui_doc *d)
{
        xgrow(&d->l, &d->cap, d->n + 1, sizeof *d->l);
        struct tui_line *l = &d->l[d->n++];
        memset(l, 0, sizeof *l);
        l->table = l->row = -1;
        return l;
}

void tui_doc_free(struct tui_doc *d)
{
        for (size_t i = 0; i < d->n; i++)
                free(d->l[i].c);
        free(d->l);
        free(d->stops);
        memset(d, 0, sizeof *d);
}

long tui_doc_find(const struct tui_doc *d, size_t table, size_t row)
{
        for (size_t i = 0; i < d->n; i++)
                if (d->l[i].table == (long)table && d->l[i].row == (long)row)
                        return (long)i;
        return -1;
}

static const struct rtable *find_table(const struct analysis *an, const char *id)
{
        for (size_t i = 0; i < an->ntables; i++)
                if (!strcmp(an->tables[i].id, id))
                        return &an->tables[i];
        return NULL;
}

/* one table: its title, then " key │ col │ col" lines with a rule under the header */
static void doc_table(const struct tui_model *m, size_t ti, size_t pane_w, struct tui_doc *d)
{
        const struct rtable *t = &m->an[0].tables[ti];
        const struct rtable *cur = m->compare ? find_table(&m->an[1], t->id) : NULL;
        struct tui_grid g;
        tui_grid_build(t, cur, m->compare, m->in.ro, &g);
        struct tui_line *l = doc_line(d);
        char *title = xasprintf(" %s %s", t->id, t->pt->title ? t->pt->title : t->panel->title);
        tui_line_add(l, title, TA_HEAD);
        free(title);
        l->noscroll = 1;
        size_t frozen = g.width[0] + 3;
        if (frozen > pane_w / 2)
                frozen = 0; /* a narrow pane scrolls everything */
        for (size_t r = 0; r < g.nrows; r++) {
                if (r == 1) {
                        l = doc_line(d);
                        l->frozen = frozen;
                        for (size_t c = 0; c < g.ncols; c++) {
                                for (size_t i = 0; i < g.width[c] + 2; i++)
                                        tui_line_add(l, "─", TA_RULE);
                                if (c + 1 < g.ncols)
                                        tui_line_add(l, "┼", TA_RULE);
                        }
                }
                l = doc_line(d);
                l->frozen = frozen;
                l->table = r ? (long)ti : -1;
                l->row = g.src_row[r];
                int hl = r && m->hl_table == (long)ti && m->hl_row == g.src_row[r];
                int stops = r == 0 && !d->nstops;
                for (size_t c = 0; c < g.ncols; c++) {
                        const char *s = g.cells[r * g.ncols + c];
                        if (stops && l->n >= frozen) {
                                xgrow(&d->stops, &d->stops_cap, d->nstops + 1, sizeof *d->stops);
                                d->stops[d->nstops++] = l->n - frozen;
                        }
                        int a = r == 0 ? TA_HEAD : hl ? TA_MATCH : g.attrs[r * g.ncols + c];
                        int base = hl ? TA_MATCH : TA_NORMAL;
                        size_t pad = g.width[c] - tui_u8width(s);
                        line_pad(l, 1, base);
                        if (g.align[c] == 'r' && r > 0)
                                line_pad(l, pad, base);
                        tui_line_add(l, s, a);
                        if (!(g.align[c] == 'r' && r > 0))
                                line_pad(l, pad, base);
                        line_pad(l, 1, base);
                        if (c + 1 < g.ncols)
                                tui_line_add(l, "│", hl ? TA_MATCH : TA_RULE);
                }
        }
        tui_grid_free(&g);
}

void tui_doc_build(const struct tui_model *m, size_t pane_w, struct tui_doc *d)
{
        memset(d, 0, sizeof *d);
        if (!m->nnodes)
                return;
        const struct tui_node *nd = &m->nodes[m->sel];
        if (nd->table != TUI_NONE) {
                doc_table(m, nd->table, pane_w, d);
                d->sticky = d->n > 3 ? 3 : d->n; /* title, header, rule */
                return;
        }
        const struct panel *p = m->an[0].tables[nd->first].panel;
        struct tui_line *l = doc_line(d);
        char *h = xasprintf(" %d. %s", p->id, p->title);
        tui_line_add(l, h, TA_HEAD);
        free(h);
        l->noscroll = 1;
        d->sticky = 1;
        for (size_t i = nd->first; i < m->an[0].ntables && m->an[0].tables[i].panel == p; i++) {
                doc_line(d)->noscroll = 1;
                doc_table(m, i, pane_w, d);
        }
        /* the memory chart under its panel's tables, as the text report draws it */
        const struct rtable *mc = memchart_table(&m->an[0]);
        char **lines = NULL;
        size_t n = 0;
        struct err err = {0};
        if (mc && mc->panel == p &&
            !tui_text_render(m, "memchart", (int)pane_w, &lines, &n, &err)) {
                doc_line(d)->noscroll = 1;
                for (size_t i = 0; i < n; i++) {
                        tui_line_add(doc_line(d), lines[i], TA_NORMAL);
                        free(lines[i]);
                }
                free(lines);
        }
}

/* ---- the frame ---- */

void tui_frame_init(struct tui_frame *f, int rows, int cols)
{
        f->rows = rows > 0 ? rows : 1;
        f->cols = cols > 0 ? cols : 1;
        f->cells = xcalloc((size_t)f->rows * (size_t)f->cols, sizeof *f->cells);
        f->cy = f->cx = -1;
}

void tui_frame_free(struct tui_frame *f)
{
        free(f->cells);
        memset(f, 0, sizeof *f);
}

char *tui_frame_text(const struct tui_frame *f)
{
        struct strbuf sb = {0};
        for (int y = 0; y < f->rows; y++) {
                for (int x = 0; x < f->cols; x++)
                        sb_add(&sb, f->cells[y * f->cols + x].ch);
                sb_addc(&sb, '\n');
        }
        return sb_detach(&sb);
}

static void fill(struct tui_frame *f, int y, int x0, int x1, int attr)
{
        for (int x = x0; x < x1 && y >= 0 && y < f->rows; x++)
                if (x >= 0 && x < f->cols)
                        set_cell(&f->cells[y * f->cols + x], " ", 1, attr);
}

/* Write s at (y, x), clipped before xmax; returns the column after it. */
static int put(struct tui_frame *f, int y, int x, int xmax, const char *s, int attr)
{
        if (xmax > f->cols)
                xmax = f->cols;
        while (*s && x < xmax) {
                size_t len = u8seq(s);
                if (y >= 0 && y < f->rows && x >= 0)
                        set_cell(&f->cells[y * f->cols + x], s, len, attr);
                s += len;
                x++;
        }
        return x;
}

/* Write s in w cells, cut with an ellipsis when it is longer. */
static int put_fit(struct tui_frame *f, int y, int x, int w, const char *s, int attr)
{
        if (w <= 0)
                return x;
        if ((int)tui_u8width(s) <= w)
                return put(f, y, x, x + w, s, attr);
        put(f, y, x, x + w - 1, s, attr);
        return put(f, y, x + w - 1, x + w, "…", attr);
}

static void put_line(struct tui_frame *f, int y, int x, int w, const struct tui_line *l,
                     size_t hoff)
{
        int cx = x;
        for (size_t i = 0; i < l->n && cx < x + w; i++) {
                if (!l->noscroll && i >= l->frozen && i < l->frozen + hoff)
                        continue;
                if (cx < f->cols)
                        f->cells[y * f->cols + cx] = l->c[i];
                cx++;
        }
}

/* the last two components of a path: "case/model" */
static const char *short_path(const char *p)
{
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
                n--;
        int slashes = 0;
        for (size_t i = n; i > 0; i--)
                if (p[i - 1] == '/' && ++slashes == 2)
                        return p + i;
        return p;
}

char *tui_row_desc(const struct tui_model *m)
{
        if (m->hl_table < 0 || m->hl_row < 0 || (size_t)m->hl_table >= m->an[0].ntables)
                return NULL;
        const struct rtable *t = &m->an[0].tables[m->hl_table];
        if (!t->metric_table || (size_t)m->hl_row >= t->nrows || !t->arch)
                return NULL;
        const char *rk = t->rkeys[m->hl_row];
        char *key = xstrndup(rk, strcspn(rk, "#"));
        const struct metric *mt = arch_metric(t->arch, key);
        free(key);
        if (!mt || !mt->desc || !*mt->desc)
                return NULL;
        return xasprintf(" %s: %s", t->keys[m->hl_row], mt->desc);
}

static void draw_bars(struct tui_model *m, struct tui_frame *f)
{
        fill(f, 0, 0, f->cols, TA_BAR);
        struct strbuf sb = {0};
        const struct workload *w0 = m->in.w[0];
        sb_addf(&sb, " prism analyze │ %s (%s)", short_path(w0->path), w0->arch);
        if (m->compare)
                sb_addf(&sb, " vs %s (%s)", short_path(m->in.w[1]->path), m->in.w[1]->arch);
        put_fit(f, 0, 0, f->cols - 8, sb.buf, TA_BAR);
        put(f, 0, f->cols - 8, f->cols, " ? help ", TA_BAR);
        sb_reset(&sb);

        size_t nk = 0, nd = 0, lastk = 0, lastd = 0;
        for (size_t k = 0; k < m->nkernels; k++)
                if (m->ksel[k])
                        nk++, lastk = k;
        for (size_t d = 0; d < m->ndisp; d++)
                if (m->dsel[d])
                        nd++, lastd = d;
        /* the rest of the bar first: a single kernel's name gets the width left */
        struct strbuf rest = {0};
        sb_add(&rest, " │ Dispatch: ");
        if (!nd)
                sb_add(&rest, "all");
        else if (nd == 1)
                sb_addf(&rest, "%ld", m->disp_ids[lastd]);
        else
                sb_addf(&rest, "%zu selected", nd);
        sb_addf(&rest, " │ Norm: %s │ %zu/%zu dispatches", m->norms[m->norm],
                m->an[0].nselected, m->ndisp);
        sb_add(&sb, " Kernel: ");
        if (!nk) {
                sb_addf(&sb, "all (%zu)", m->nkernels);
        } else if (nk == 1) {
                int room = f->cols - 9 - (int)tui_u8width(rest.buf);
                int len = (int)strlen(m->kernels[lastk]);
                room = room < 12 ? 12 : room;
                if (len <= room)
                        sb_add(&sb, m->kernels[lastk]);
                else
                        sb_addf(&sb, "%.*s…", room - 1, m->kernels[lastk]);
        } else {
                sb_addf(&sb, "%zu of %zu", nk, m->nkernels);
        }
        sb_add(&sb, rest.buf);
        sb_free(&rest);
        fill(f, 1, 0, f->cols, TA_NORMAL);
        put_fit(f, 1, 0, f->cols, sb.buf, TA_HEAD);
        sb_free(&sb);

        int y = f->rows - 1;
        fill(f, y, 0, f->cols, TA_BAR);
        if (m->mode == TM_SEARCH || m->mode == TM_GOTO) {
                const char *p = m->mode == TM_SEARCH ? "/" : "go to id: ";
                int x = put(f, y, 0, f->cols, p, TA_BAR);
                /* the end of a long query stays visible */
                const char *in = m->input;
                while ((int)tui_u8width(in) > f->cols - x - 1)
                        in += u8seq(in);
                f->cx = put(f, y, x, f->cols, in, TA_BAR);
                f->cy = y;
                return;
        }
        const char *hint = m->mode == TM_HELP   ? " Esc:close Up/Down:scroll"
                           : m->mode == TM_TEXT ? " Esc:close arrows:scroll"
                           : m->mode == TM_FINDINGS ? " Enter:jump to the evidence Esc:close"
                           : m->mode != TM_MAIN ? " Enter:only this Space:toggle a:all Esc:close"
                                                : " q:quit ?:help /:search g:go k:kernels "
                                                  "d:dispatches f:findings s:source n:norm Tab:focus";
        char right[48] = "";
        if (m->mode == TM_MAIN && m->nmatches)
                snprintf(right, sizeof right, " match %zu/%zu ", m->match_cur + 1, m->nmatches);
        int rw = (int)strlen(right);
        char *desc = m->mode == TM_MAIN ? tui_row_desc(m) : NULL;
        if (m->msg[0])
                put_fit(f, y, 0, f->cols - rw, m->msg, m->msg_err ? TA_ERROR : TA_BAR);
        else
                put_fit(f, y, 0, f->cols - rw, desc ? desc : hint, TA_BAR);
        free(desc);
        put(f, y, f->cols - rw, f->cols, right, TA_BAR);
}

static void draw_tree(struct tui_model *m, struct tui_frame *f, const struct tui_layout *L)
{
        size_t *vis = xcalloc(m->nnodes + 1, sizeof *vis);
        size_t nv = tui_visible_nodes(m, vis), pos = 0, h = (size_t)L->main_h;
        for (size_t i = 0; i < nv; i++)
                if (vis[i] == m->sel)
                        pos = i;
        if (pos < m->tree_top)
                m->tree_top = pos;
        if (pos >= m->tree_top + h)
                m->tree_top = pos - h + 1;
        if (m->tree_top + h > nv)
                m->tree_top = nv > h ? nv - h : 0;
        for (size_t i = m->tree_top; i < nv && i < m->tree_top + h; i++) {
                const struct tui_node *nd = &m->nodes[vis[i]];
                int y = L->main_y + (int)(i - m->tree_top);
                int a = vis[i] != m->sel ? TA_NORMAL : m->focus == TF_TREE ? TA_SEL : TA_SEL_DIM;
                char *label;
                if (nd->table == TUI_NONE) {
                        const struct panel *p = m->an[0].tables[nd->first].panel;
                        label =
                            xasprintf("%s %d %s", nd->panel == m->nodes[m->sel].panel ? "▾" : "▸",
                                      p->id, p->title);
                } else {
                        const struct rtable *t = &m->an[0].tables[nd->table];
                        label = xasprintf("  %s %s", t->id, t->pt->title ? t->pt->title : "");
                }
                fill(f, y, 0, L->tree_w, a);
                put_fit(f, y, 0, L->tree_w, label, a);
                free(label);
        }
        for (int y = L->main_y; y < L->main_y + L->main_h; y++)
                put(f, y, L->tree_w, L->tree_w + 1, "│", TA_RULE);
        free(vis);
}

static void draw_pane(struct tui_model *m, struct tui_frame *f, const struct tui_layout *L)
{
        struct tui_doc d;
        tui_doc_build(m, (size_t)L->pane_w, &d);
        size_t h = (size_t)L->main_h, sticky = d.sticky < h ? d.sticky : h;
        size_t body = d.n - d.sticky, bh = h - sticky;
        if (m->voff + bh > body)
                m->voff = body > bh ? body - bh : 0;
        size_t maxw = 0, frozen = 0;
        for (size_t i = 0; i < d.n; i++)
                if (!d.l[i].noscroll && d.l[i].n > maxw + d.l[i].frozen)
                        maxw = d.l[i].n - d.l[i].frozen, frozen = d.l[i].frozen;
        size_t avail = (size_t)L->pane_w > frozen ? (size_t)L->pane_w - frozen : 1;
        if (m->hoff + avail > maxw)
                m->hoff = maxw > avail ? maxw - avail : 0;
        for (size_t i = 0; i < sticky; i++)
                put_line(f, L->main_y + (int)i, L->pane_x, L->pane_w, &d.l[i], m->hoff);
        for (size_t i = 0; i < bh && d.sticky + m->voff + i < d.n; i++)
                put_line(f, L->main_y + (int)(sticky + i), L->pane_x, L->pane_w,
                         &d.l[d.sticky + m->voff + i], m->hoff);
        tui_doc_free(&d);
}

static void draw_list(struct tui_model *m, struct tui_frame *f, const struct tui_layout *L)
{
        int kern = m->mode == TM_KERNELS;
        size_t n = (kern ? m->nkernels : m->ndisp) + 1;
        size_t *items = xcalloc(n, sizeof *items);
        n = tui_list_items(m, items);
        size_t h = (size_t)L->main_h - 1;
        if (m->pick >= n)
                m->pick = n - 1;
        if (m->pick < m->pick_top)
                m->pick_top = m->pick;
        if (m->pick >= m->pick_top + h)
                m->pick_top = m->pick - h + 1;
        put_fit(f, L->main_y, 0, f->cols,
                kern ? " Kernels (by total time): Enter shows only this one, Space toggles"
                     : " Dispatches: Enter shows only this one, Space toggles",
                TA_HEAD);
        int none = 1;
        for (size_t i = 0; i < (kern ? m->nkernels : m->ndisp); i++)
                none &= !(kern ? m->ksel[i] : m->dsel[i]);
        for (size_t i = m->pick_top; i < n && i < m->pick_top + h; i++) {
                int y = L->main_y + 1 + (int)(i - m->pick_top);
                int a = i == m->pick ? TA_SEL : TA_NORMAL;
                size_t it = items[i];
                char *s;
                if (it == TUI_NONE) {
                        s = xasprintf(" [%s] all %s", none ? "x" : " ",
                                      kern ? "kernels" : "dispatches");
                } else if (kern) {
                        size_t cnt = 0;
                        for (size_t d = 0; d < m->ndisp; d++)
                                cnt += m->disp_kernel[d] == it;
                        s = xasprintf(" [%s] %2zu  %s  (%zu dispatch%s)", m->ksel[it] ? "x" : " ",
                                      it, m->kernels[it], cnt, cnt == 1 ? "" : "es");
                } else {
                        s = xasprintf(" [%s] %6ld  %s", m->dsel[it] ? "x" : " ", m->disp_ids[it],
                                      m->kernels[m->disp_kernel[it]]);
                }
                fill(f, y, 0, f->cols, a);
                put_fit(f, y, 0, f->cols, s, a);
                free(s);
        }
        free(items);
}

/* the Findings view: one line per finding, the cursor on m->pick */
static void draw_findings(struct tui_model *m, struct tui_frame *f, const struct tui_layout *L)
{
        const struct rtable *t = tui_findings_table(m);
        size_t n = t ? t->nrows : 0, h = (size_t)L->main_h - 1;
        if (m->pick >= n)
                m->pick = n ? n - 1 : 0;
        if (m->pick < m->pick_top)
                m->pick_top = m->pick;
        if (m->pick >= m->pick_top + h)
                m->pick_top = m->pick - h + 1;
        put_fit(f, L->main_y, 0, f->cols,
                " Findings (kernel, estimated speedup, finding): Enter jumps to the evidence", TA_HEAD);
        for (size_t i = m->pick_top; i < n && i < m->pick_top + h; i++) {
                int y = L->main_y + 1 + (int)(i - m->pick_top);
                int a = i == m->pick ? TA_SEL : TA_NORMAL;
                char *s = tui_findings_line(m, i);
                fill(f, y, 0, f->cols, a);
                put_fit(f, y, 0, f->cols, s, a);
                free(s);
        }
}

static void draw_help(struct tui_model *m, struct tui_frame *f, const struct tui_layout *L)
{
        int ncol = f->cols >= 80 ? 2 : 1, colw = f->cols / ncol;
        size_t per = (tui_nkeys + (size_t)ncol - 1) / (size_t)ncol;
        static const char *const legend[] = {
            "",
            " Pct of Peak: green below 50, yellow from 50, red from 80 (near the peak)",
            " Comparison: green better, red worse (changes of 1% or more)",
        };
        size_t nlegend = sizeof legend / sizeof *legend;
        size_t total = 1 + per + nlegend, h = (size_t)L->main_h;
        if (m->help_off + h > total)
                m->help_off = total > h ? total - h : 0;
        for (size_t i = 0; i < h && m->help_off + i < total; i++) {
                size_t li = m->help_off + i;
                int y = L->main_y + (int)i;
                if (li == 0) {
                        put(f, y, 0, f->cols, " Keys of prism analyze --tui", TA_HEAD);
                } else if (li <= per) {
                        for (int c = 0; c < ncol; c++) {
                                size_t k = (size_t)c * per + li - 1;
                                if (k >= tui_nkeys)
                                        continue;
                                int x = c * colw + 1;
                                put(f, y, x, x + 11, tui_keys[k].keys, TA_KEY);
                                put_fit(f, y, x + 11, colw - 12, tui_keys[k].what, TA_NORMAL);
                        }
                } else {
                        put_fit(f, y, 0, f->cols, legend[li - per - 1], TA_NORMAL);
                }
        }
}

static void draw_text(struct tui_model *m, struct tui_frame *f, const struct tui_layout *L)
{
        put_fit(f, L->main_y, 0, f->cols, m->text_title ? m->text_title : "", TA_HEAD);
        size_t h = (size_t)L->main_h - 1, maxw = 0;
        if (m->text_voff + h > m->ntext)
                m->text_voff = m->ntext > h ? m->ntext - h : 0;
        for (size_t i = 0; i < m->ntext; i++)
                if (tui_u8width(m->text[i]) > maxw)
                        maxw = tui_u8width(m->text[i]);
        if (m->text_hoff + (size_t)f->cols > maxw)
                m->text_hoff = maxw > (size_t)f->cols ? maxw - (size_t)f->cols : 0;
        for (size_t i = 0; i < h && m->text_voff + i < m->ntext; i++) {
                const char *s = m->text[m->text_voff + i];
                for (size_t k = 0; k < m->text_hoff && *s; k++)
                        s += u8seq(s);
                put(f, L->main_y + 1 + (int)i, 0, f->cols, s, TA_NORMAL);
        }
}

void tui_compose(struct tui_model *m, struct tui_frame *f)
{
        m->rows = f->rows;
        m->cols = f->cols;
        f->cy = f->cx = -1;
        for (int y = 0; y < f->rows; y++)
                fill(f, y, 0, f->cols, TA_NORMAL);
        struct tui_layout L;
        tui_layout(f->rows, f->cols, &L);
        if (!L.ok) {
                char s[96];
                snprintf(s, sizeof s, "terminal too small (%dx%d): prism needs %dx%d", f->cols,
                         f->rows, TUI_MIN_COLS, TUI_MIN_ROWS);
                put_fit(f, f->rows / 2, 0, f->cols, s, TA_ERROR);
                return;
        }
        draw_bars(m, f);
        switch (m->mode) {
        case TM_HELP:
                draw_help(m, f, &L);
                break;
        case TM_KERNELS:
        case TM_DISPATCHES:
                draw_list(m, f, &L);
                break;
        case TM_TEXT:
                draw_text(m, f, &L);
                break;
        case TM_FINDINGS:
                draw_findings(m, f, &L);
                break;
        default:
                draw_tree(m, f, &L);
                draw_pane(m, f, &L);
        }
}
