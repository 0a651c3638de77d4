/* The TUI's Findings view: the rows of the findings table (0.3) as a list (its keys:
 * keys.c; Enter's jump to the evidence: search.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_int.h"
#include "../store/columns.h"

const struct rtable *tui_findings_table(const struct tui_model *m)
{
        for (size_t i = 0; i < m->an[0].ntables; i++) {
                const struct rtable *t = &m->an[0].tables[i];
                if (t->pt->props.findings && t->ncols >= 7)
                        return t;
        }
        return NULL;
}

/* the column of that title, or -1 */
long tui_col_of(const struct rtable *t, const char *title)
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
        long k = tui_col_of(t, COL_KERNEL_NAME), id = tui_col_of(t, "Finding"),
             g = tui_col_of(t, "Est. Speedup"), msg = tui_col_of(t, "Message");
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
