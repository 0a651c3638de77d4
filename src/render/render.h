/* Renderers of the analysis view model: box-drawing text tables and CSV files. */
#ifndef PRISM_RENDER_H
#define PRISM_RENDER_H

#include <stdio.h>

#include "../analyze/analysis.h"

struct render_opts {
        int decimal;          /* digits after the point (default 2) */
        const long *cols;     /* --cols: column indices to show (metric tables), or NULL */
        size_t ncols;
        long max_stat_num;    /* rows of the top-stats tables shown (default 10) */
        const char *base_name; /* comparison: labels */
};

/* Shortest text that reads back as v (Python's repr style: "0.0", "427.03", "inf"); "" for
 * NaN. buf must hold 40 bytes. */
const char *fmt_num(double v, char *buf);

/* Print every table of an analysis, grouped under panel headings. */
void render_text(FILE *f, const struct analysis *an, const struct render_opts *o);

/* Print two analyses side by side: for each value, the new one with the change from the
 * baseline (absolute and relative). */
void render_compare(FILE *f, const struct analysis *base, const struct analysis *cur,
                    const struct render_opts *o);

/* One CSV per table in dir (created if needed): "<id>_<Title_with_underscores>.csv", first
 * column the row key, values at full precision. */
int render_save_dfs(const char *dir, const struct analysis *an, struct err *err);
int render_save_dfs_compare(const char *dir, const struct analysis *base,
                            const struct analysis *cur, struct err *err);

/* 1 if column c of a built-in table holds only whole numbers (ids), shown without
 * decimals; the top kernels keep theirs, as the reference shows them. */
int rtable_int_col(const struct rtable *t, size_t c);

/* One box-drawing table from a grid of strings (row 0 = header). Cells may contain '\n'.
 * align[c]: 'l' or 'r'. */
void render_grid(FILE *f, char **cells, size_t nrows, size_t ncols, const char *align);

#endif
