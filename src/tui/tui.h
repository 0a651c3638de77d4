/* The interactive view of prism analyze (--tui). A model holds the state (selected panel
 * and table, scroll offsets, kernel and dispatch filters, normalization, search, comparison)
 * and composes the whole screen as cells from the same analysis view model the text
 * renderer prints; tui.c only turns keys into model keys and cells into ncurses calls. */
#ifndef PRISM_TUI_H
#define PRISM_TUI_H

#include <stddef.h>

#include "../analyze/analysis.h"
#include "../render/render.h"

/* What tui_run and the model need; nothing here is owned by the TUI. */
struct tui_input {
        const struct workload *w[2]; /* w[0] the baseline, w[1] the run compared with it */
        const struct arch *a[2];
        size_t nw; /* 1, or 2 to compare */
        const struct panel_set *ps;
        const struct analysis_opts *opts; /* command-line options: initial filters, -b, ... */
        const struct render_opts *ro;
};

/* Run the TUI on the terminal (stdin and stdout must be one). Returns 0 after 'q',
 * TUI_INTERRUPTED after Ctrl-C (or SIGTERM/SIGHUP), or a negative code with err filled;
 * the terminal is restored in every case. */
enum { TUI_INTERRUPTED = 1 };
int tui_run(const struct tui_input *in, struct err *err);

/* ---- the model (pure: no terminal I/O; tests drive it directly) ---- */

/* Attributes of a screen cell; tui.c maps them to colors or to bold/reverse. */
enum tui_attr {
        TA_NORMAL,
        TA_BAR,      /* title and status bars */
        TA_HEAD,     /* table titles and column headers */
        TA_RULE,     /* separators */
        TA_SEL,      /* selection in the focused pane */
        TA_SEL_DIM,  /* selection in the other pane */
        TA_MATCH,    /* the current search hit */
        TA_POP_LOW,  /* Pct of Peak below TUI_POP_MID */
        TA_POP_MID,  /* from TUI_POP_MID */
        TA_POP_HIGH, /* from TUI_POP_HIGH: the unit runs near its peak */
        TA_BETTER,   /* comparison: the change is an improvement */
        TA_WORSE,    /* comparison: the change is a regression */
        TA_KEY,      /* key names in the help */
        TA_ERROR,    /* error messages */
        TA_COUNT
};

#define TUI_POP_MID 50.0
#define TUI_POP_HIGH 80.0

/* Model key codes: printable ASCII and control characters as themselves, others here. */
enum tui_key {
        TK_ENTER = '\n',
        TK_TAB = '\t',
        TK_ESC = 27,
        TK_CTRL_L = 12,
        TK_UP = 0x1000,
        TK_DOWN,
        TK_LEFT,
        TK_RIGHT,
        TK_PGUP,
        TK_PGDN,
        TK_HOME,
        TK_END,
        TK_BACKSPACE,
        TK_F1,
};

/* One display cell: a UTF-8 character (NUL-terminated) and its attribute. */
struct tui_cell {
        char ch[5];
        unsigned char attr;
};

/* The composed screen: rows * cols cells; the cursor is shown at (cy, cx) when cy >= 0. */
struct tui_frame {
        int rows, cols;
        struct tui_cell *cells;
        int cy, cx;
};

/* A table as the TUI shows it: the same cell texts as render_text (or render_compare when
 * cur is given), one line per row, the key column first. */
struct tui_grid {
        size_t nrows, ncols;  /* row 0 is the header */
        char **cells;         /* nrows * ncols, malloc'd */
        unsigned char *attrs; /* nrows * ncols, enum tui_attr */
        char *align;          /* per column: 'l' or 'r' */
        size_t *width;        /* per column, in display cells */
        long *src_row;        /* per grid row: the rtable row, -1 for the header */
};

/* Build the grid of t; with compare set, t is the baseline and cur (NULL if the other run
 * lacks the table) the new run, as render_compare lays them out. */
void tui_grid_build(const struct rtable *t, const struct rtable *cur, int compare,
                    const struct render_opts *ro, struct tui_grid *g);
void tui_grid_free(struct tui_grid *g);

/* Attribute of a Pct-of-Peak value by the thresholds above (NaN: TA_NORMAL). */
int tui_pop_attr(double pct);

/* +1 when a larger value of row r, column c of t is better, -1 when smaller is better,
 * 0 when unknown (from the metric's name and unit, or the column title). */
int tui_direction(const struct rtable *t, size_t r, size_t c);

/* The description of the highlighted row's metric (search, go to id) as the status line
 * shows it, " ID: text" (malloc'd), or NULL when that row has none. */
struct tui_model;
char *tui_row_desc(const struct tui_model *m);

enum tui_mode { TM_MAIN, TM_HELP, TM_KERNELS, TM_DISPATCHES, TM_SEARCH, TM_GOTO, TM_TEXT,
                TM_FINDINGS };
enum tui_focus { TF_TREE, TF_TABLE };

/* A node of the panel tree: a panel heading (table == TUI_NONE) or one of its tables. */
#define TUI_NONE ((size_t)-1)
struct tui_node {
        int panel;    /* panel id */
        size_t first; /* the panel's first table in an[0].tables */
        size_t table; /* index in an[0].tables, or TUI_NONE for the heading */
};

struct tui_match {
        size_t table, row; /* an[0].tables[table], rtable row */
};

struct tui_model {
        struct tui_input in;
        struct analysis_opts base; /* in.opts, the filters and norm replaced on each run */
        struct analysis an[2];     /* the evaluated view model (an[1] when comparing) */
        struct analysis_opts cur;  /* the options an[] was evaluated with */
        const char **cur_knames;   /* cur's kernel names and dispatch ids (owned) */
        long *cur_ids;
        int compare;

        /* filters: no flag set means no filter */
        char **kernels;
        size_t nkernels; /* w[0]'s kernels, by total time */
        unsigned char *ksel;
        long *disp_ids;
        size_t ndisp;        /* w[0]'s dispatches (after --gpu-id) */
        size_t *disp_kernel; /* index in kernels of each dispatch */
        unsigned char *dsel;
        char **norms;
        size_t nnorms; /* the architecture's normalizations */
        size_t norm;

        /* the panel tree and the right pane */
        struct tui_node *nodes;
        size_t nnodes;
        size_t sel, tree_top;
        enum tui_focus focus;
        enum tui_mode mode;
        size_t voff, hoff;     /* right pane scroll (lines, cells) */
        size_t pick, pick_top; /* list cursor (kernels, dispatches) */
        size_t help_off;

        /* search */
        char query[128];
        struct tui_match *matches;
        size_t nmatches, match_cur;
        long hl_table, hl_row; /* highlighted row (search or go-to), -1 none */

        /* prompt being edited (search, go to) */
        char input[128];
        size_t ninput;

        /* text views (memory chart, roofline) */
        char *text_title;
        char **text;
        size_t ntext;
        size_t text_voff, text_hoff;

        char msg[256];
        int msg_err;
        int rows, cols; /* the size of the last frame */
        int quit;
};

/* Build the model and evaluate the first analysis with the command-line options. */
int tui_model_init(struct tui_model *m, const struct tui_input *in, struct err *err);
void tui_model_free(struct tui_model *m);

/* Handle one key (enum tui_key or a character). Errors (a filter that selects nothing, an
 * unknown id) leave the state as it was and show a message. */
void tui_key(struct tui_model *m, int key);

/* State transforms behind the keys; 0 or a negative code (m->msg says why, state kept). */
int tui_select_id(struct tui_model *m, const char *id); /* panel, table or metric id */
int tui_select_node(struct tui_model *m, size_t node);
int tui_kernel_only(struct tui_model *m, size_t k); /* TUI_NONE: all kernels */
int tui_kernel_toggle(struct tui_model *m, size_t k);
int tui_dispatch_only(struct tui_model *m, size_t d); /* TUI_NONE: all dispatches */
int tui_dispatch_toggle(struct tui_model *m, size_t d);
int tui_norm_cycle(struct tui_model *m, int dir);
int tui_norm_set(struct tui_model *m, const char *norm);
int tui_search(struct tui_model *m, const char *query); /* jumps to the first match */
int tui_match_next(struct tui_model *m, int dir);
int tui_view_text(struct tui_model *m, const char *which); /* "memchart", "roofline" */

/* The Findings view: the findings table (NULL when not shown), one list line of
 * its row r (malloc'd), open the view ('f'), jump to row r's evidence rows (they become the
 * matches that ] and [ step through), and the view's keys. */
const struct rtable *tui_findings_table(const struct tui_model *m);
char *tui_findings_line(const struct tui_model *m, size_t r);
int tui_findings_open(struct tui_model *m);
int tui_findings_jump(struct tui_model *m, size_t r);
void tui_findings_key(struct tui_model *m, int key, size_t page);

/* The table shown in the right pane (the selected one, or the first of the selected
 * panel), or NULL. */
const struct rtable *tui_current_table(const struct tui_model *m);

/* Compose the screen at the given size (clamping scroll offsets to it). */
void tui_frame_init(struct tui_frame *f, int rows, int cols);
void tui_frame_free(struct tui_frame *f);
void tui_compose(struct tui_model *m, struct tui_frame *f);
/* The frame as text, one line per row, trailing blanks kept (tests). malloc'd. */
char *tui_frame_text(const struct tui_frame *f);

/* The key map shown by '?' and documented in docs/TUI.md. */
struct tui_keydoc {
        const char *keys, *what;
};
extern const struct tui_keydoc tui_keys[];
extern const size_t tui_nkeys;

/* The text views: the memory chart ("memchart") or the roofline plot ("roofline") of the
 * current analysis (filters, normalization) as malloc'd lines, drawn by the figure renderers
 * of src/render/ for `width` columns. Returns 0, or a negative code when the analysis has
 * nothing to draw (no memory-chart table, no roofline counts). */
/* source_view.c: the source view of kernel (NULL: the selected or hottest kernel) in the
 * text view; an error message when the workload has no PC samples for it. */
int tui_source_open(struct tui_model *m, const char *kernel);
/* Its lines (malloc'd, as *title): the kernel's source file with sample bars, else its
 * sampled instructions; *focus is the hottest line's index. ERR_INPUT: no samples. */
struct pcsamp;
int tui_source_lines(const struct pcsamp *ps, const char *kernel, const char *wdir,
                     char ***lines, size_t *n, size_t *focus, char **title);
int tui_text_render(const struct tui_model *m, const char *which, int width, char ***lines,
                    size_t *n, struct err *err);

#endif
