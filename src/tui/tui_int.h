/* Internals shared by the TUI's model and screen composition: the screen layout and the
 * right pane's document (the lines of the selected table or panel). */
#ifndef PRISM_TUI_INT_H
#define PRISM_TUI_INT_H

#include "tui.h"

/* Where things go on a screen of rows x cols. */
struct tui_layout {
        int ok;             /* 0: the terminal is too small to draw */
        int main_y, main_h; /* the area between the bars */
        int tree_w;         /* the panel tree: columns [0, tree_w) */
        int pane_x, pane_w; /* the right pane */
};

#define TUI_MIN_ROWS 8
#define TUI_MIN_COLS 40

void tui_layout(int rows, int cols, struct tui_layout *l);

/* One line of the right pane. */
struct tui_line {
        struct tui_cell *c;
        size_t n, cap;
        size_t frozen;   /* leading cells that do not scroll sideways (the key column) */
        int noscroll;    /* titles: never scroll sideways */
        long table, row; /* the rtable row it shows, -1 for others */
};

struct tui_doc {
        struct tui_line *l;
        size_t n, cap;
        size_t sticky; /* leading lines that stay when scrolling down */
        size_t *stops;
        size_t nstops, stops_cap; /* where the first table's columns start,
                                   * past the frozen cells: sideways scrolling
                                   * snaps to them */
};

/* The lines of the selected node: one table, or every table of the selected panel. */
void tui_doc_build(const struct tui_model *m, size_t pane_w, struct tui_doc *d);
void tui_doc_free(struct tui_doc *d);
/* Index of the line showing that table row, or -1. */
long tui_doc_find(const struct tui_doc *d, size_t table, size_t row);

/* Append UTF-8 text to a line; returns the number of cells added. */
size_t tui_line_add(struct tui_line *l, const char *s, int attr);

/* Nodes shown in the tree (every heading, the tables of the selected panel). */
size_t tui_visible_nodes(const struct tui_model *m, size_t *out);

/* Entries of the kernel or dispatch list (by m->mode): TUI_NONE first ("all"), then
 * kernel or dispatch indices; the dispatches are those of the selected kernels. */
size_t tui_list_items(const struct tui_model *m, size_t *out);

/* The model's message line (model.c), and the tree node of table i (search.c). */
void tui_msg(struct tui_model *m, int is_err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
size_t tui_node_of_table(const struct tui_model *m, size_t table);

/* The rows matching query (a metric id's prefix, or a name's part in any case) into
 * m->matches, selecting none; no match: an error on the message line. */
int tui_find_matches(struct tui_model *m, const char *query);
/* 1 if s looks like a metric id: digits and dots */
int tui_id_like(const char *s);

/* The column of t with that title, or -1 (findings_view.c). */
long tui_col_of(const struct rtable *t, const char *title);

/* Display width of UTF-8 text. */
size_t tui_u8width(const char *s);

#endif
