/* Renderers of the analysis view model: box-drawing text tables and CSV files. */
#ifndef PRISM_RENDER_H
#define PRISM_RENDER_H

#include <stdio.h>

#include "../analyze/analysis.h"
#include "fmt.h"

struct roofline;

struct render_opts {
        int decimal;          /* digits after the point (default 2) */
        const long *cols;     /* --cols: column indices to show (metric tables), or NULL */
        size_t ncols;
        long max_stat_num;    /* rows of the top-stats tables shown (default 10) */
        const char *base_name; /* comparison: labels */
        const char *norm;     /* the normalization the values use (memory chart caption) */
        int width;            /* columns the figures may use (0: 120) */
        int table_width;      /* columns the text tables may use (0: no limit) */
        const struct roofline *roof; /* the roofline to plot after its panel, or NULL */
        const struct render_ahead *ahead; /* tables rendered ahead (below), or NULL */
};

/* The text report's tables of an analysis' second half, rendered on the thread that built
 * them while the first half was still being built (render_ahead_fn as the analysis'
 * ahead: analysis.h), a table at a time while the first thread was busy. render_text takes
 * them for the tables second_at + [from, to) of the analysis when they match (a half that
 * has the roofline or a memory chart is not rendered ahead: which panel shows those
 * figures is the whole analysis' to say). */
struct render_ahead {
        const struct render_opts *o; /* the report's options (set before the analysis) */
        int escaped;                 /* as esc_is_stream of the report's stream */
        char *buf;                   /* the bytes (the caller frees), when ok */
        size_t len;
        size_t from, to;             /* the half's tables rendered */
        int ok;
};
void render_ahead_fn(void *ctx, const struct analysis *half, size_t from, const int *busy);

/* The text report's heading of a panel (a rule, "N. Title") and of a table ("N.M Title",
 * nothing for an untitled table). */
void render_panel_heading(FILE *f, const struct panel *p, int width);
void render_table_title(FILE *f, const struct rtable *t);

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
/* render_save_dfs on a second thread while the caller renders the report (both only read
 * the analysis); render_save_dfs_wait writes the tables the thread has not taken yet (all
 * of them without a thread), then returns render_save_dfs's result (the first failing
 * table's error; no table after it is started). */
struct dfs_job;
struct dfs_job *render_save_dfs_start(const char *dir, const struct analysis *an);
int render_save_dfs_wait(struct dfs_job *j, struct err *err);

/* 1 if column c of a built-in table holds only whole numbers (ids), shown without
 * decimals; the top kernels keep theirs, as the reference shows them. */
int rtable_int_col(const struct rtable *t, size_t c);

/* The figures that follow a panel's tables in the text report (render_text calls it after
 * each panel): the memory chart after table 3.1, the roofline plot after the roofline's
 * tables (figures.c). */
void render_figures(FILE *f, const struct analysis *an, const struct panel *p,
                    const struct render_opts *o);
/* How many figures render_figures draws after panel p (0 to 2) */
int render_figures_count(const struct analysis *an, const struct panel *p,
                         const struct render_opts *o);

/* --plot-dir: the memory chart (memory_chart.svg, when table 3.1 is shown) and the roofline
 * (roofline.svg, when o->roof has ceilings) as SVG files in dir (created if needed). The
 * names of the files written are printed on f. */
int render_plots_svg(const char *dir, const struct analysis *an, const struct render_opts *o,
                     FILE *f, struct err *err);

/* The --save-dfs file of a table: "<dir>/<id>_<Title_with_underscores>.csv". malloc'd. */
char *dfs_path(const char *dir, const struct rtable *t);

/* A cell as the text report shows it (decimal digits; whole: the column's
 * rtable_int_col). malloc'd. */
char *rtable_cell_text(const struct rtable *t, const struct cell *cl, int decimal, int whole);

/* Comparison cells, shared by the text report, its CSV files and the TUI. Rows pair by
 * identity (rtable.rkeys: metric ids, kernel names, kernel and occurrence for dispatches):
 * the baseline's rows in order, then the rows only the new run has. A column with no text
 * cell is numeric; the relative change in percent (a zero baseline compares against 1, as
 * the reference does: the texts say "new" instead); "+1.5 (+3.2%)"; a value rounded for
 * display. Text results are malloc'd. */
int rtable_numeric_col(const struct rtable *t, size_t c);
double compare_rel_change(double base, double cur);
char *compare_delta_text(double base, double cur, int decimal);
char *compare_num_text(double v, int decimal);
/* The value of row r (-1: none, NaN) in the column titled col of t (NULL: NaN). */
double compare_value(const struct rtable *t, long r, const char *col);

struct cmp_pair {
        long b, n; /* the row of the baseline and of the new run; -1 where it has none */
};
void compare_pairs(const struct rtable *b, const struct rtable *n, struct cmp_pair **out,
                   size_t *np);

/* A comparison laid out as the report shows it: row 0 the header, then one row per pair;
 * the key column, each text column, each numeric column as baseline, "(new)" and "Change"
 * (ids: baseline and "(new)"), and "Status" (added, removed) when a row is in one run only.
 * info: what each cell holds (the table column, the two values). */
enum cmp_kind { CK_KEY, CK_TEXT, CK_BASE, CK_NEW, CK_CHANGE, CK_STATUS };
struct cmp_cell {
        int kind;
        size_t col; /* the baseline table's column */
        double bv, nv;
};
struct cmp_grid {
        size_t nrows, ncols;
        char **cells, *align;
        struct cmp_cell *info;
        struct cmp_cell *col;   /* per grid column: its kind and table column (no values) */
        struct cmp_pair *pairs; /* grid row r + 1: pairs[r] */
};
void compare_grid(const struct rtable *b, const struct rtable *n, int decimal,
                  struct cmp_grid *g);
void cmp_grid_free(struct cmp_grid *g);

/* 1 if --cols shows column c of t (the columns of metric tables only). */
int render_col_shown(const struct rtable *t, const struct render_opts *o, size_t c);

/* A table's cells as the text report shows them, shared by the report and the TUI: nrows
 * (the header row included) x ncols strings, align[c] 'l' or 'r', src_col[c] the table
 * column shown in grid column c (-1: the key column). The --cols selection, the row limit
 * of the top-stats tables (--max-stat-num), number format and alignment are applied;
 * wrap_names wraps the kernel names of the top-stats tables as the report does. */
struct rgrid {
        char **cells;
        size_t nrows, ncols;
        char *align;
        long *src_col;
        char *text; /* NULL: each cell its own allocation (rtable_grid's); else the cells' */
};
void rtable_grid(const struct rtable *t, const struct render_opts *o, int wrap_names,
                 struct rgrid *g);
void rgrid_free(struct rgrid *g);

/* One box-drawing table from a grid of strings (row 0 = header). Cells may contain '\n'.
 * align[c]: 'l' or 'r'. */
void render_grid(FILE *f, char **cells, size_t nrows, size_t ncols, const char *align);
/* The same, fitted into width columns (0: no limit): where the table is wider, columns are
 * narrowed (text columns first, numbers kept whole where they can be) and their cells
 * wrapped at spaces, or inside a word too long for its column (fit.c). */
void render_grid_w(FILE *f, char **cells, size_t nrows, size_t ncols, const char *align,
                   size_t width);
/* The cells of a table wider than width, wrapped to fit it (malloc'd array of malloc'd
 * strings), or NULL when it fits (or width is 0). */
char **render_grid_fit(char **cells, size_t nrows, size_t ncols, const char *align,
                       size_t width);
/* render_grid_w's layout: NULL when the table fits; else its cells fitted to width, or,
 * where its text columns would be too narrow to read, each row stacked as its key, the
 * column names and the values (*out_ncols 3, all left-aligned). */
char **render_grid_layout(char **cells, size_t nrows, size_t ncols, const char *align,
                          size_t width, size_t *out_ncols);

#endif
