/* --save-dfs: one CSV per table, values at full precision (via the table writer). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../store/table.h"
#include "render.h"

char *dfs_path(const char *dir, const struct rtable *t)
{
        struct strbuf sb = {0};
        sb_addf(&sb, "%s/%s", dir, t->id);
        if (t->pt->title) {
                sb_addc(&sb, '_');
                for (const char *p = t->pt->title; *p; p++)
                        sb_addc(&sb, *p == ' ' ? '_' : *p == '/' ? '-' : *p);
        }
        sb_add(&sb, ".csv");
        return sb_detach(&sb);
}

static void put_cell(struct table *out, int col, size_t row, const struct cell *cl,
                     int whole)
{
        char buf[48];
        if (cl->text) {
                table_set_str(out, col, row, cl->text);
        } else if (whole && isfinite(cl->v)) {
                snprintf(buf, sizeof buf, "%.0f", cl->v);
                table_set_str(out, col, row, buf);
        } else if (!isnan(cl->v)) {
                table_set_str(out, col, row, fmt_num(cl->v, buf));
        }
}

int render_save_dfs(const char *dir, const struct analysis *an, struct err *err)
{
        int rc = make_dir(dir, err);
        for (size_t i = 0; i < an->ntables && !rc; i++) {
                const struct rtable *t = &an->tables[i];
                struct table out;
                table_init(&out);
                table_add_col(&out, t->key_title);
                for (size_t c = 0; c < t->ncols; c++) {
                        /* a repeated title would merge columns: keep them apart */
                        if (table_col(&out, t->cols[c]) >= 0) {
                                char *alt = xasprintf("%s.%zu", t->cols[c], c);
                                table_add_col(&out, alt);
                                free(alt);
                        } else {
                                table_add_col(&out, t->cols[c]);
                        }
                }
                int *whole = xcalloc(t->ncols + 1, sizeof *whole);
                for (size_t c = 0; c < t->ncols; c++)
                        whole[c] = rtable_int_col(t, c);
                for (size_t r = 0; r < t->nrows; r++) {
                        size_t row = table_add_row(&out);
                        table_set_str(&out, 0, row, t->keys[r]);
                        for (size_t c = 0; c < t->ncols; c++)
                                put_cell(&out, (int)c + 1, row, &t->cells[r * t->ncols + c],
                                         whole[c]);
                }
                free(whole);
                char *path = dfs_path(dir, t);
                rc = table_save_csv(&out, path, err);
                free(path);
                table_free(&out);
        }
        return rc;
}
