/* The TUI's key map: what each key does in each mode, and the help text for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_int.h"

const struct tui_keydoc tui_keys[] = {
    {"q", "quit, restore the terminal"},
    {"Ctrl-C", "quit at once (exit 130)"},
    {"? F1", "this help (Esc closes)"},
    {"Tab", "focus: panel tree / table"},
    {"Up Down", "tree: move; table: scroll"},
    {"Left Right", "close/open, scroll sideways"},
    {"PgUp PgDn", "a page up or down"},
    {"Home End", "first or last line"},
    {"Enter", "open the panel or table"},
    {"g", "go to an id (17, 2.1.3)"},
    {"/", "search metrics: name or id"},
    {"] [", "next / previous match"},
    {"k", "kernel list: filter panels"},
    {"d", "dispatch list: filter"},
    {"Space", "in a list: toggle an entry"},
    {"a", "in a list: all (no filter)"},
    {"n N", "next/previous normalization"},
    {"m", "memory chart view"},
    {"r", "roofline view"},
    {"f", "findings: Enter jumps to evidence"},
    {"s", "source view: PC samples per line"},
    {"Esc", "close a list, view, prompt"},
    {"Ctrl-L", "redraw the screen"},
};
const size_t tui_nkeys = sizeof tui_keys / sizeof tui_keys[0];

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
