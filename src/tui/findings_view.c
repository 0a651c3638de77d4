/* The TUI's Findings view: the rows of the findings table (0.3) as a list;
 * Enter jumps to the first metric row the finding cites as evidence and makes all of them
 * the current matches, so that ] and [ step through the evidence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_int.h"
#include "../store/columns.h"

const struct rtable *tui_findings_table(const struct tui_model *m)
{
        for (size_t i = 0; i < m->an[0].ntables; i++) {
                const struct rtable *t = &m->an[0].tables[i];
                if (t->pt->source && !strcmp(t->pt->source, "findings") && t->ncols >= 7)
                        return t;
        }
        return NULL;
}

/* the column of that title, or -1 */
static long col_of(const struct rtable *t, const char *title)
{
        for (size_t c = 0; c < t->ncols; c++)
                if (!strcmp(t->cols[c], title))
                        return (long)c;
        return -1;
}

char *tui_findings_line(const struct tui_model *m, size_t r)
{
        const struct rtable *t = tui_findings_table(m);
        if (!t || r >= t->nrows)
                return xstrdup("");
        long k = col_of(t, COL_KERNEL_NAME), id = col_of(t, "Finding"), g = col_of(t, "Gain Pct"),
             msg = col_of(t, "Message");
        const struct cell *row = &t->cells[r * t->ncols];
        char gain[32] = "";
        if (g >= 0 && row[g].v == row[g].v)
                snprintf(gain, sizeof gain, "%5.1f%%", row[g].v);
        return xasprintf(" %-22.22s %-7s %s: %s", k >= 0 ? row[k].text : "", gain,
                         id >= 0 ? row[id].text : "", msg >= 0 ? row[msg].text : "");
}

int tui_findings_open(struct tui_model *m)
{
        const struct rtable *t = tui_findings_table(m);
        if (!t || !t->nrows) {
                snprintf(m->msg, sizeof m->msg, "no findings (--no-findings, or no rules/)");
                m->msg_err = 1;
                return ERR_INPUT;
        }
        m->mode = TM_FINDINGS;
        m->pick = m->pick_top = 0;
        return 0;
}

int tui_findings_jump(struct tui_model *m, size_t r)
{
        const struct rtable *t = tui_findings_table(m);
        long ev = t ? col_of(t, "Evidence") : -1;
        if (ev < 0 || r >= t->nrows)
                return ERR_INPUT;
        long id = col_of(t, "Finding"), kc = col_of(t, COL_KERNEL_NAME);
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
