/* The TUI's key map: what each key does in each mode (the help text for it: keyhelp.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_int.h"

#define FAR ((size_t)1 << 30) /* "the end": compose clamps it */

static size_t page(const struct tui_model *m)
{
        struct tui_layout L;
        tui_layout(m->rows, m->cols, &L);
        return L.main_h > 4 ? (size_t)L.main_h - 3 : 1;
}

static size_t step(size_t v, int key, size_t pg)
{
        switch (key) {
        case TK_UP:
                return v ? v - 1 : 0;
        case TK_DOWN:
                return v + 1;
        case TK_PGUP:
                return v > pg ? v - pg : 0;
        case TK_PGDN:
                return v + pg;
        case TK_HOME:
                return 0;
        case TK_END:
                return FAR;
        }
        return v;
}

static int is_move(int key)
{
        return key == TK_UP || key == TK_DOWN || key == TK_PGUP || key == TK_PGDN ||
               key == TK_HOME || key == TK_END;
}

static void list_key(struct tui_model *m, int key)
{
        int kern = m->mode == TM_KERNELS;
        size_t *items = xcalloc((kern ? m->nkernels : m->ndisp) + 1, sizeof *items);
        size_t n = tui_list_items(m, items);
        if (is_move(key)) {
                m->pick = step(m->pick, key, page(m));
                if (m->pick >= n)
                        m->pick = n - 1;
        } else if (key == TK_ENTER || key == ' ' || key == 'a') {
                size_t it = key == 'a' ? TUI_NONE : items[m->pick < n ? m->pick : 0];
                int rc;
                if (key == ' ' && it != TUI_NONE)
                        rc = kern ? tui_kernel_toggle(m, it) : tui_dispatch_toggle(m, it);
                else
                        rc = kern ? tui_kernel_only(m, it) : tui_dispatch_only(m, it);
                if (!rc && key == TK_ENTER)
                        m->mode = TM_MAIN;
        } else if (key == TK_ESC || key == 'q' || key == (kern ? 'k' : 'd')) {
                m->mode = TM_MAIN;
        }
        free(items);
}

static void prompt_key(struct tui_model *m, int key)
{
        int search = m->mode == TM_SEARCH;
        if (key >= 32 && key < 127) {
                if (m->ninput + 1 < sizeof m->input) {
                        m->input[m->ninput++] = (char)key;
                        m->input[m->ninput] = 0;
                }
        } else if (key == TK_BACKSPACE || key == 127 || key == 8) {
                if (m->ninput)
                        m->input[--m->ninput] = 0;
        } else if (key == 21) { /* Ctrl-U */
                m->input[m->ninput = 0] = 0;
        } else if (key == TK_ENTER) {
                m->mode = TM_MAIN;
                m->msg[0] = 0;
                if (!search) {
                        tui_select_id(m, m->input);
                        return;
                }
                if (!m->input[0])
                        tui_search(m, "");
                else if (!tui_search(m, m->input))
                        snprintf(m->msg, sizeof m->msg, "%zu match%s for '%s': ] next, [ previous",
                                 m->nmatches, m->nmatches == 1 ? "" : "es", m->query);
                return;
        } else if (key == TK_ESC) {
                m->mode = TM_MAIN;
                if (search) {
                        tui_search(m, "");
                        m->hl_table = m->hl_row = -1;
                }
                return;
        } else {
                return;
        }
        if (search) /* incremental: jump as the query grows */
                tui_search(m, m->input);
}

static void tree_key(struct tui_model *m, int key)
{
        size_t *vis = xcalloc(m->nnodes + 1, sizeof *vis);
        size_t nv = tui_visible_nodes(m, vis), pos = 0;
        for (size_t i = 0; i < nv; i++)
                if (vis[i] == m->sel)
                        pos = i;
        const struct tui_node *nd = &m->nodes[m->sel];
        if (is_move(key) && nv) {
                pos = step(pos, key, page(m));
                tui_select_node(m, vis[pos < nv ? pos : nv - 1]);
        } else if (key == TK_RIGHT || key == TK_ENTER) {
                if (nd->table == TUI_NONE && m->sel + 1 < m->nnodes)
                        tui_select_node(m, m->sel + 1);
                else
                        m->focus = TF_TABLE;
        } else if (key == TK_LEFT && nd->table != TUI_NONE) {
                size_t j = m->sel;
                while (j > 0 && m->nodes[j].table != TUI_NONE)
                        j--;
                tui_select_node(m, j);
        }
        free(vis);
}

static void table_key(struct tui_model *m, int key)
{
        if (is_move(key)) {
                m->voff = step(m->voff, key, page(m));
                if (key == TK_HOME)
                        m->hoff = 0;
        } else if (key == TK_LEFT || key == TK_RIGHT) {
                if (key == TK_LEFT && !m->hoff) {
                        m->focus = TF_TREE;
                        return;
                }
                /* sideways by whole columns of the table; by half a pane through a column
                 * wider than the pane, and past the last column */
                struct tui_layout L;
                struct tui_doc d;
                tui_layout(m->rows, m->cols, &L);
                tui_doc_build(m, (size_t)(L.pane_w > 0 ? L.pane_w : 1), &d);
                size_t frozen = d.n > d.sticky ? d.l[d.n - 1].frozen : 0;
                size_t avail = (size_t)L.pane_w > frozen + 2 ? (size_t)L.pane_w - frozen : 2;
                size_t to = key == TK_LEFT ? (m->hoff > avail / 2 ? m->hoff - avail / 2 : 0)
                                           : m->hoff + avail / 2;
                if (key == TK_RIGHT) {
                        for (size_t i = 0; i < d.nstops; i++)
                                if (d.stops[i] > m->hoff) {
                                        if (d.stops[i] - m->hoff <= avail)
                                                to = d.stops[i];
                                        break;
                                }
                } else {
                        for (size_t i = d.nstops; i-- > 0;)
                                if (d.stops[i] < m->hoff) {
                                        if (m->hoff - d.stops[i] <= avail)
                                                to = d.stops[i];
                                        break;
                                }
                }
                m->hoff = to;
                tui_doc_free(&d);
        }
}

static void text_key(struct tui_model *m, int key)
{
        if (is_move(key))
                m->text_voff = step(m->text_voff, key, page(m));
        else if (key == TK_LEFT)
                m->text_hoff = m->text_hoff > 8 ? m->text_hoff - 8 : 0;
        else if (key == TK_RIGHT)
                m->text_hoff += 8;
        else if (key == TK_ESC || key == 'q' || key == 'm' || key == 'r')
                m->mode = TM_MAIN;
}

static void main_key(struct tui_model *m, int key)
{
        switch (key) {
        case 'q':
                m->quit = 1;
                return;
        case '?':
        case TK_F1:
                m->mode = TM_HELP;
                m->help_off = 0;
                return;
        case TK_TAB:
                m->focus = m->focus == TF_TREE ? TF_TABLE : TF_TREE;
                return;
        case '/':
        case 'g':
                m->mode = key == '/' ? TM_SEARCH : TM_GOTO;
                m->input[m->ninput = 0] = 0;
                return;
        case ']':
        case '[':
                tui_match_next(m, key == ']' ? 1 : -1);
                return;
        case 'k':
        case 'd':
                m->mode = key == 'k' ? TM_KERNELS : TM_DISPATCHES;
                m->pick = m->pick_top = 0;
                return;
        case 'n':
        case 'N':
                tui_norm_cycle(m, key == 'n' ? 1 : -1);
                return;
        case 'm':
        case 'r':
                tui_view_text(m, key == 'm' ? "memchart" : "roofline");
                return;
        case 'f':
                tui_findings_open(m);
                return;
        case 's':
                tui_source_open(m, NULL); /* source_view.c */
                return;
        case TK_ESC:
                m->hl_table = m->hl_row = -1;
                return;
        }
        if (m->focus == TF_TREE)
                tree_key(m, key);
        else
                table_key(m, key);
}

void tui_key(struct tui_model *m, int key)
{
        if (m->mode == TM_SEARCH || m->mode == TM_GOTO) {
                prompt_key(m, key);
                return;
        }
        m->msg[0] = 0;
        switch (m->mode) {
        case TM_HELP:
                if (is_move(key))
                        m->help_off = step(m->help_off, key, page(m));
                else
                        m->mode = TM_MAIN;
                return;
        case TM_KERNELS:
        case TM_DISPATCHES:
                list_key(m, key);
                return;
        case TM_TEXT:
                text_key(m, key);
                return;
        case TM_FINDINGS:
                tui_findings_key(m, key, page(m));
                return;
        default:
                main_key(m, key);
        }
}

void tui_findings_key(struct tui_model *m, int key, size_t page)
{
        const struct rtable *t = tui_findings_table(m);
        size_t n = t ? t->nrows : 0;
        if (key == TK_UP && m->pick)
                m->pick--;
        else if (key == TK_DOWN && m->pick + 1 < n)
                m->pick++;
        else if (key == TK_PGUP)
                m->pick = m->pick > page ? m->pick - page : 0;
        else if (key == TK_PGDN)
                m->pick = m->pick + page < n ? m->pick + page : (n ? n - 1 : 0);
        else if (key == TK_HOME)
                m->pick = 0;
        else if (key == TK_END)
                m->pick = n ? n - 1 : 0;
        else if (key == TK_ENTER)
                tui_findings_jump(m, m->pick);
        else if (key == TK_ESC || key == 'q' || key == 'f')
                m->mode = TM_MAIN;
}
