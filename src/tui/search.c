/* Search and go-to in the TUI (tui_search, tui_match_next, tui_select_id): metric rows by
 * name or id, the match shown where the table's page puts it (the frame's layout). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tui_int.h"

static void reveal_row(struct tui_model *m, size_t table, size_t row)
{
        struct tui_layout L;
        struct tui_doc d;
        tui_layout(m->rows, m->cols, &L);
        tui_doc_build(m, (size_t)(L.pane_w > 0 ? L.pane_w : 1), &d);
        long li = tui_doc_find(&d, table, row);
        if (li >= 0 && (size_t)li >= d.sticky) {
                size_t bi = (size_t)li - d.sticky;
                size_t h = L.main_h > (int)d.sticky ? (size_t)L.main_h - d.sticky : 1;
                /* center the row when it is out of view */
                if (bi < m->voff || bi >= m->voff + h)
                        m->voff = bi > h / 2 ? bi - h / 2 : 0;
        }
        m->hoff = 0;
        tui_doc_free(&d);
}

static void show_row(struct tui_model *m, size_t table, size_t row)
{
        tui_select_node(m, tui_node_of_table(m, table));
        m->hl_table = (long)table;
        m->hl_row = (long)row;
        reveal_row(m, table, row);
}

int tui_search(struct tui_model *m, const char *query)
{
        int rc = tui_find_matches(m, query);
        if (!rc && m->nmatches)
                show_row(m, m->matches[0].table, m->matches[0].row);
        return rc;
}

int tui_match_next(struct tui_model *m, int dir)
{
        if (!m->nmatches) {
                tui_msg(m, 1, "%s", m->query[0] ? "no matches" : "no search yet: press /");
                return ERR_INPUT;
        }
        size_t n = m->nmatches;
        m->match_cur = (m->match_cur + (dir < 0 ? n - 1 : 1)) % n;
        show_row(m, m->matches[m->match_cur].table, m->matches[m->match_cur].row);
        return 0;
}

int tui_select_id(struct tui_model *m, const char *id)
{
        const struct analysis *an = &m->an[0];
        if (tui_id_like(id) && !strchr(id, '.')) {
                for (size_t j = 0; j < m->nnodes; j++)
                        if (m->nodes[j].table == TUI_NONE && m->nodes[j].panel == atoi(id))
                                return tui_select_node(m, j);
        }
        for (size_t i = 0; i < an->ntables; i++)
                if (!strcmp(an->tables[i].id, id))
                        return tui_select_node(m, tui_node_of_table(m, i));
        for (size_t i = 0; i < an->ntables; i++) {
                const struct rtable *t = &an->tables[i];
                size_t l = strlen(t->id);
                if (!t->metric_table || strncmp(t->id, id, l) || id[l] != '.')
                        continue;
                for (size_t r = 0; r < t->nrows; r++)
                        if (!strcmp(t->keys[r], id)) {
                                show_row(m, i, r);
                                return 0;
                        }
        }
        tui_msg(m, 1, "no panel, table or metric has the id '%s'", id);
        return ERR_INPUT;
}

/* Enter in the Findings view: jump to the first metric row the finding cites as evidence
 * and make all of them the current matches, so that ] and [ step through the evidence. */
int tui_findings_jump(struct tui_model *m, size_t r)
{
        const struct rtable *t = tui_findings_table(m);
        long ev = t ? tui_col_of(t, "Evidence") : -1;
        if (ev < 0 || r >= t->nrows)
                return ERR_INPUT;
        /* the hot-line citation of PC sampling opens the source view at that line */
        long id = tui_col_of(t, "Finding"), kc = tui_col_of(t, "Kernel_Name");
        const struct cell *row = &t->cells[r * t->ncols];
        if (id >= 0 && kc >= 0 && row[id].text && !strcmp(row[id].text, "pc.hot_line"))
                return tui_source_open(m, row[kc].text); /* source_view.c */
        char *ids = xstrdup(t->cells[r * t->ncols + (size_t)ev].text ? t->cells[r * t->ncols + (size_t)ev].text : "");
        struct tui_match *mt = NULL;
        size_t n = 0, cap = 0;
        for (char *save = NULL, *id = strtok_r(ids, " ", &save); id; id = strtok_r(NULL, " ", &save))
                for (size_t i = 0; i < m->an[0].ntables; i++) {
                        const struct rtable *mtab = &m->an[0].tables[i];
                        for (size_t k = 0; mtab->metric_table && k < mtab->nrows; k++)
                                if (!strcmp(mtab->keys[k], id)) {
                                        xgrow(&mt, &cap, n + 1, sizeof *mt);
                                        mt[n].table = i;
                                        mt[n++].row = k;
                                }
                }
        free(ids);
        m->mode = TM_MAIN;
        if (!n) {
                snprintf(m->msg, sizeof m->msg, "the evidence of this finding is not shown");
                m->msg_err = 1;
                return ERR_INPUT;
        }
        free(m->matches);
        m->matches = mt;
        m->nmatches = n;
        m->match_cur = n - 1;
        snprintf(m->query, sizeof m->query, "evidence");
        tui_match_next(m, 1); /* the first one */
        m->focus = TF_TABLE;
        snprintf(m->msg, sizeof m->msg, "evidence row 1 of %zu: ] next, [ previous", n);
        m->msg_err = 0;
        return 0;
}
