/* The in-memory table (table.h): columns of doubles, text where a column holds some. */
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void table_init(struct table *t)
{
        memset(t, 0, sizeof *t);
}

void table_free(struct table *t)
{
        for (size_t c = 0; c < t->ncols; c++) {
                free(t->names[c]);
                free(t->num[c]);
                if (t->str[c]) {
                        for (size_t r = 0; r < t->nrows && !t->pooled; r++)
                                free(t->str[c][r]);
                        free(t->str[c]);
                }
        }
        free(t->names);
        free(t->num);
        free(t->str);
        free(t->line);
        free(t->dup);
        smap_free(&t->index);
        for (size_t i = 0; i < t->npool; i++)
                free(t->pool[i]);
        free(t->pool);
        smap_free(&t->pool_idx);
        memset(t, 0, sizeof *t);
}

int table_col(const struct table *t, const char *name)
{
        int v;
        return smap_get(&t->index, name, &v) ? v : -1;
}

void table_reserve(struct table *t, size_t need)
{
        if (need <= t->cap_rows)
                return;
        size_t n = t->cap_rows ? t->cap_rows : 16;
        while (n < need)
                n *= 2;
        for (size_t c = 0; c < t->ncols; c++) {
                t->num[c] = xrealloc(t->num[c], n * sizeof(double));
                if (t->str[c]) {
                        t->str[c] = xrealloc(t->str[c], n * sizeof(char *));
                        memset(t->str[c] + t->cap_rows, 0, (n - t->cap_rows) * sizeof(char *));
                }
        }
        t->line = xrealloc(t->line, n * sizeof *t->line);
        t->cap_rows = n;
}

void table_clear_rows(struct table *t)
{
        for (size_t c = 0; c < t->ncols; c++)
                for (size_t r = 0; t->str[c] && r < t->nrows; r++) {
                        if (!t->pooled)
                                free(t->str[c][r]);
                        t->str[c][r] = NULL;
                }
        t->nrows = 0;
}

int table_add_col(struct table *t, const char *name)
{
        /* one lookup: the name is put with the new column's index unless it is there */
        if (!smap_add(&t->index, name, (int)t->ncols)) {
                int have = table_col(t, name);
                if (have >= 0)
                        return have;
                smap_put(&t->index, name, (int)t->ncols); /* a renamed column's old name */
        }
        if (t->ncols == t->cap_cols) {
                size_t n = t->cap_cols ? t->cap_cols * 2 : 32;
                t->names = xrealloc(t->names, n * sizeof *t->names);
                t->num = xrealloc(t->num, n * sizeof *t->num);
                t->str = xrealloc(t->str, n * sizeof *t->str);
                t->cap_cols = n;
        }
        /* room for the first rows from the start (table_reserve's first size): the columns
         * of a header are not each grown again at its first row */
        if (!t->cap_rows) {
                t->line = xrealloc(t->line, 16 * sizeof *t->line);
                t->cap_rows = 16;
        }
        size_t c = t->ncols++;
        t->names[c] = xstrdup(name);
        t->num[c] = xmalloc(t->cap_rows * sizeof(double));
        for (size_t r = 0; r < t->nrows; r++)
                t->num[c][r] = NAN;
        t->str[c] = NULL;
        return (int)c;
}

void table_rename_col(struct table *t, int c, const char *name)
{
        smap_put(&t->index, t->names[c], -1); /* the old name: no column */
        free(t->names[c]);
        t->names[c] = xstrdup(name);
        smap_put(&t->index, name, c);
}

size_t table_add_row(struct table *t)
{
        table_reserve(t, t->nrows + 1);
        size_t r = t->nrows++;
        t->line[r] = 0;
        for (size_t c = 0; c < t->ncols; c++) {
                t->num[c][r] = NAN;
                if (t->str[c])
                        t->str[c][r] = NULL;
        }
        return r;
}

void table_set_num(struct table *t, int col, size_t row, double v)
{
        t->num[col][row] = v;
}

void table_set_str(struct table *t, int col, size_t row, const char *s)
{
        if (!t->str[col])
                t->str[col] = xcalloc(t->cap_rows ? t->cap_rows : 1, sizeof(char *));
        if (t->pooled) {
                t->str[col][row] = pool_intern(&t->pool_idx, &t->pool, &t->npool, &t->cappool, s);
                return;
        }
        free(t->str[col][row]);
        t->str[col][row] = xstrdup(s);
}

void table_pool(struct table *t)
{
        t->pooled = 1;
}

const char *table_cell(const struct table *t, int col, size_t row, char *buf, size_t len)
{
        if (t->str[col] && t->str[col][row])
                return t->str[col][row];
        double v = t->num[col][row];
        if (isnan(v))
                return "";
        if (v == floor(v) && fabs(v) < 1e17)
                snprintf(buf, len, "%.0f", v);
        else
                snprintf(buf, len, "%.17g", v);
        return buf;
}

const char *text_desc(const char *s, const char *what, char *buf, size_t len)
{
        if (!*s)
                return "is empty";
        snprintf(buf, len, "holds '%.60s%s', not %s", s, strlen(s) > 60 ? "..." : "", what);
        return buf;
}

const char *table_cell_desc(const struct table *t, int c, size_t r, const char *what, char *buf,
                            size_t len)
{
        char num[64];
        return text_desc(table_cell(t, c, r, num, sizeof num), what, buf, len);
}
