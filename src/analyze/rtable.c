/* Result tables (rtable.h). */
#include "rtable.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

void rtable_init(struct rtable *t, const struct panel *p, const struct panel_table *pt,
                 const char *key_title, size_t ncols, char **cols)
{
        memset(t, 0, sizeof *t);
        t->panel = p;
        t->pt = pt;
        t->id = xstrdup(pt->id);
        t->key_title = xstrdup(key_title);
        t->ncols = ncols;
        t->cols = cols;
}

struct cell *rtable_add_row(struct rtable *t, const char *key, const char *rkey)
{
        if (t->nrows == t->caprows) {
                /* geometric: a table of a million dispatches is not copied row by row */
                t->caprows = t->caprows ? t->caprows * 2 : 16;
                t->keys = xrealloc(t->keys, t->caprows * sizeof *t->keys);
                t->rkeys = xrealloc(t->rkeys, t->caprows * sizeof *t->rkeys);
                t->cells = xrealloc(t->cells, t->caprows * (t->ncols ? t->ncols : 1) *
                                                  sizeof *t->cells);
        }
        t->keys[t->nrows] = xstrdup(key);
        t->rkeys[t->nrows] = rkey ? xstrdup(rkey) : t->keys[t->nrows];
        struct cell *row = &t->cells[t->nrows * t->ncols];
        for (size_t i = 0; i < t->ncols; i++) {
                row[i].v = NAN;
                row[i].text = NULL;
        }
        t->nrows++;
        return row;
}

void rtable_free(struct rtable *t)
{
        for (size_t k = 0; k < t->ncols; k++)
                free(t->cols[k]);
        free(t->cols);
        for (size_t r = 0; r < t->nrows; r++) {
                if (t->rkeys[r] != t->keys[r])
                        free(t->rkeys[r]);
                free(t->keys[r]);
                for (size_t k = 0; k < t->ncols && !t->pool; k++)
                        free(t->cells[r * t->ncols + k].text);
        }
        for (size_t i = 0; i < t->npool; i++)
                free(t->pool[i]);
        free(t->pool);
        smap_free(&t->pool_idx);
        free(t->keys);
        free(t->rkeys);
        free(t->cells);
        free(t->id);
        free(t->key_title);
        memset(t, 0, sizeof *t);
}

char *rtable_pool_text(struct rtable *t, const char *s)
{
        return pool_intern(&t->pool_idx, &t->pool, &t->npool, &t->cappool, s);
}

char **rtable_titles(const char *const *list, size_t n)
{
        char **t = xcalloc(n ? n : 1, sizeof *t);
        for (size_t i = 0; i < n; i++)
                t[i] = xstrdup(list[i]);
        return t;
}
