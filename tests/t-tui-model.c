/* Unit tests of the TUI's model on real recorded workloads (../shared/rocprof-workloads;
 * skipped where absent): the panel tree and selection, kernel and dispatch filters,
 * normalization, search, comparison, colors, and the composed screen. The cells must be the
 * text renderer's cells, and filtered values those of analysis_run with the same options. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "arch/versions.h"
#include "tui/tui_int.h"

static const char *shared(void)
{
        const char *s = getenv("PRISM_SHARED");
        return s ? s : "../shared";
}

struct fx {
        struct panel_set ps;
        struct workload w[2];
        struct arch a[2];
        size_t nw;
        long disp[4];
        struct analysis_opts o;
        struct render_opts ro;
        struct tui_input in;
        struct tui_model m;
        char *mdir;
};

static void open_one(struct fx *f, size_t i, const char *rel)
{
        struct err err = {0};
        char *path = xasprintf("%s/rocprof-workloads/%s", shared(), rel);
        if (workload_open(path, &f->w[i], &err))
                fail_msg("%s", err.msg);
        if (arch_load(f->mdir, f->w[i].arch, &f->a[i], &err))
                fail_msg("%s", err.msg);
        free(path);
        f->nw = i + 1;
}

/* vcopy/MI200 (three dispatches of one kernel); a second workload to compare; or a copy
 * whose last dispatch is renamed, so that there are two kernels to choose from */
enum { ONE, COMPARE, TWO_KERNELS };

static struct fx *fx_new(int kind, size_t ndisp)
{
        char *probe = xasprintf("%s/rocprof-workloads/vcopy/MI200/pmc_perf.csv", shared());
        int have = is_file(probe);
        free(probe);
        if (!have)
                return NULL;
        if (!getenv("PRISM_DATA_DIR") && is_dir("metrics"))
                setenv("PRISM_DATA_DIR", ".", 1);
        warn_quiet = 1;
        struct fx *f = xcalloc(1, sizeof *f);
        struct err err = {0};
        /* the expected cells are rocprof-compute 3.0's (the recordings are 3.0's) */
        data_version_set("3.0");
        f->mdir = data_path("metrics");
        char *pdir = data_path("panels");
        assert_non_null(f->mdir);
        assert_non_null(pdir);
        if (panels_load(pdir, &f->ps, &err))
                fail_msg("%s", err.msg);
        free(pdir);
        open_one(f, 0, "vcopy/MI200");
        if (kind == COMPARE)
                open_one(f, 1, "dispatch_0/MI200");
        if (kind == TWO_KERNELS) {
                int c = table_col(&f->w[0].pmc, "Kernel_Name");
                assert_true(c >= 0);
                table_set_str(&f->w[0].pmc, c, 2, "otherKernel(int) [clone .kd]");
        }
        f->o = (struct analysis_opts){.norm = "per_wave", .time_unit = "ns", .kernel_verbose = 5};
        for (size_t i = 0; i < ndisp; i++)
                f->disp[i] = (long)i + 1;
        f->o.dispatches = f->disp;
        f->o.ndispatches = ndisp;
        f->ro = (struct render_opts){.decimal = 2, .max_stat_num = 10};
        f->in = (struct tui_input){.w = {&f->w[0], &f->w[1]},
                                   .a = {&f->a[0], &f->a[1]},
                                   .nw = f->nw,
                                   .ps = &f->ps,
                                   .opts = &f->o,
                                   .ro = &f->ro};
        if (tui_model_init(&f->m, &f->in, &err))
                fail_msg("%s", err.msg);
        return f;
}

static void fx_free(struct fx *f)
{
        tui_model_free(&f->m);
        for (size_t i = 0; i < f->nw; i++) {
                workload_close(&f->w[i]);
                arch_free(&f->a[i]);
        }
        panels_free(&f->ps);
        free(f->mdir);
        free(f);
}

/* under tests/run-all.sh (PRISM_REQUIRE_DATA=1) the workloads are always there: their
 * absence fails rather than skips */
#define FX(kind)                                                                                   \
        struct fx *f = fx_new(kind, 0);                                                            \
        if (!f) {                                                                                  \
                print_message("no %s/rocprof-workloads\n", shared());                              \
                if (getenv("PRISM_REQUIRE_DATA") && !strcmp(getenv("PRISM_REQUIRE_DATA"), "1"))     \
                        fail();                                                                    \
                skip();                                                                            \
        }                                                                                          \
        struct tui_model *m = &f->m

static const struct rtable *table_by_id(const struct analysis *an, const char *id)
{
        for (size_t i = 0; i < an->ntables; i++)
                if (!strcmp(an->tables[i].id, id))
                        return &an->tables[i];
        return NULL;
}

/* the model's analysis equals analysis_run's with those options, cell for cell */
static void assert_same_analysis(const struct analysis *x, const struct analysis *y)
{
        assert_int_equal(x->ntables, y->ntables);
        assert_int_equal(x->nselected, y->nselected);
        for (size_t i = 0; i < x->ntables; i++) {
                const struct rtable *a = &x->tables[i], *b = &y->tables[i];
                assert_string_equal(a->id, b->id);
                assert_int_equal(a->nrows, b->nrows);
                assert_int_equal(a->ncols, b->ncols);
                for (size_t k = 0; k < a->nrows * a->ncols; k++) {
                        const struct cell *p = &a->cells[k], *q = &b->cells[k];
                        if (p->text || q->text)
                                assert_string_equal(p->text ? p->text : "", q->text ? q->text : "");
                        else if (!(isnan(p->v) && isnan(q->v)))
                                assert_true(p->v == q->v);
                }
        }
}

static void assert_run_equals(struct fx *f, const char *const *knames, size_t nk, const long *disp,
                              size_t nd, const char *norm)
{
        struct analysis_opts o = f->o;
        struct analysis an;
        struct err err = {0};
        o.kernel_names = knames;
        o.nkernel_names = nk;
        o.dispatches = disp;
        o.ndispatches = nd;
        o.norm = norm;
        if (analysis_run(&f->w[0], &f->a[0], &f->ps, &o, &an, &err))
                fail_msg("%s", err.msg);
        assert_same_analysis(&f->m.an[0], &an);
        analysis_free(&an);
}

/* ---- the panel tree and selection ---- */

static void test_tree_selection(void **state)
{
        (void)state;
        FX(ONE);
        size_t heads = 0, tables = 0;
        for (size_t j = 0; j < m->nnodes; j++)
                m->nodes[j].table == TUI_NONE ? heads++ : tables++;
        assert_int_equal(tables, m->an[0].ntables);
        assert_int_equal(m->nodes[0].table, TUI_NONE);
        assert_int_equal(m->nodes[0].panel, 0);
        assert_int_equal(m->sel, 0);

        size_t *vis = xcalloc(m->nnodes, sizeof *vis);
        /* panel 0 open: the findings 0.3 and 0.4 first, then 0.1 and 0.2 */
        assert_int_equal(tui_visible_nodes(m, vis), heads + 4);
        free(vis);

        /* keys: Down opens 0.3, Left goes back to the heading, Right opens the first table,
         * Right again focuses the table */
        tui_key(m, TK_DOWN);
        assert_string_equal(tui_current_table(m)->id, "0.3");
        tui_key(m, TK_LEFT);
        assert_int_equal(m->sel, 0);
        tui_key(m, TK_RIGHT);
        assert_string_equal(tui_current_table(m)->id, "0.3");
        assert_int_equal(m->focus, TF_TREE);
        tui_key(m, TK_RIGHT);
        assert_int_equal(m->focus, TF_TABLE);
        tui_key(m, TK_TAB);
        assert_int_equal(m->focus, TF_TREE);
        tui_key(m, TK_END);
        assert_int_equal(m->nodes[m->sel].panel, 18);

        /* go to ids: a panel, a table, a metric (highlighted), an unknown one */
        assert_int_equal(tui_select_id(m, "17"), 0);
        assert_int_equal(m->nodes[m->sel].table, TUI_NONE);
        assert_string_equal(tui_current_table(m)->id, "17.1");
        assert_int_equal(tui_select_id(m, "17.2"), 0);
        assert_string_equal(tui_current_table(m)->id, "17.2");
        assert_int_equal(tui_select_id(m, "2.1.3"), 0);
        assert_string_equal(tui_current_table(m)->id, "2.1");
        assert_int_equal(m->hl_row, 3);
        size_t before = m->sel;
        assert_true(tui_select_id(m, "99.1") < 0);
        assert_int_equal(m->sel, before);
        assert_non_null(strstr(m->msg, "'99.1'"));

        /* the same through the keys: g 1 7 Enter */
        const char *keys = "g17\n";
        for (const char *k = keys; *k; k++)
                tui_key(m, *k);
        assert_int_equal(m->mode, TM_MAIN);
        assert_int_equal(m->nodes[m->sel].panel, 17);
        fx_free(f);
}

/* ---- the cells are the text renderer's ---- */

/* Parse render_text/render_compare output of one table: rows between separators, each cell
 * the concatenation of its lines (wrapped kernel names), trimmed; up to the table's end. */
static char **parse_box(const char *out, size_t *nrows, size_t *ncols)
{
        char **cells = NULL;
        size_t n = 0, cap = 0, nc = 0, row_start = 0;
        int in_row = 0;
        const char *bar = "│";
        for (const char *ln = out; ln && *ln;) {
                const char *e = strchr(ln, '\n');
                size_t len = e ? (size_t)(e - ln) : strlen(ln);
                char *line = xstrndup(ln, len);
                ln = e ? e + 1 : NULL;
                if (!strncmp(line, "╘", strlen("╘"))) {
                        free(line); /* the table ends; figures may follow */
                        break;
                }
                if (strncmp(line, bar, strlen(bar))) {
                        in_row = 0;
                        free(line);
                        continue;
                }
                /* split at the bars */
                size_t c = 0;
                char *p = line + strlen(bar);
                char *q;
                if (!in_row) {
                        row_start = n;
                        in_row = 1;
                }
                while ((q = strstr(p, bar))) {
                        *q = 0;
                        /* drop the one-space margins, keep the rest for concatenation */
                        size_t l = strlen(p);
                        char *raw = xstrndup(p + (l > 0), l > 1 ? l - 2 : 0);
                        if (row_start + c >= n) {
                                xgrow(&cells, &cap, n + 1, sizeof *cells);
                                cells[n++] = raw;
                        } else {
                                char *j = xasprintf("%s%s", cells[row_start + c], raw);
                                free(cells[row_start + c]);
                                free(raw);
                                cells[row_start + c] = j;
                        }
                        c++;
                        p = q + strlen(bar);
                }
                nc = c;
                free(line);
        }
        for (size_t i = 0; i < n; i++) {
                char *s = cells[i];
                size_t l = strlen(s);
                while (l && s[l - 1] == ' ')
                        s[--l] = 0;
                size_t k = strspn(s, " ");
                memmove(s, s + k, l - k + 1);
        }
        *ncols = nc;
        *nrows = nc ? n / nc : 0;
        return cells;
}

static void check_grids(struct fx *f, int compare)
{
        struct tui_model *m = &f->m;
        for (size_t i = 0; i < m->an[0].ntables; i++) {
                const struct rtable *t = &m->an[0].tables[i];
                struct analysis one = {.tables = (struct rtable *)t, .ntables = 1};
                char *buf = NULL;
                size_t len = 0;
                FILE *out = open_memstream(&buf, &len);
                if (compare)
                        render_compare(out, &one, &m->an[1], &f->ro);
                else
                        render_text(out, &one, &f->ro);
                fclose(out);
                size_t nr, nc;
                char **cells = parse_box(buf, &nr, &nc);
                struct tui_grid g;
                tui_grid_build(t, compare ? table_by_id(&m->an[1], t->id) : NULL, compare, &f->ro,
                               &g);
                if (g.nrows != nr || g.ncols != nc)
                        fail_msg("table %s: grid %zux%zu, text %zux%zu", t->id, g.nrows, g.ncols,
                                 nr, nc);
                for (size_t k = 0; k < nr * nc; k++)
                        if (strcmp(g.cells[k], cells[k]))
                                fail_msg("table %s row %zu col %zu: tui '%s', text '%s'", t->id,
                                         k / nc, k % nc, g.cells[k], cells[k]);
                for (size_t k = 0; k < nr * nc; k++)
                        free(cells[k]);
                free(cells);
                free(buf);
                tui_grid_free(&g);
        }
}

static void test_cells_match_text(void **state)
{
        (void)state;
        FX(ONE);
        check_grids(f, 0);
        /* and after a filter and a normalization change */
        assert_int_equal(tui_dispatch_only(m, 1), 0);
        assert_int_equal(tui_norm_set(m, "per_second"), 0);
        check_grids(f, 0);
        fx_free(f);
}

/* ---- kernel and dispatch filters re-filter every panel ---- */

static void test_kernel_filter(void **state)
{
        (void)state;
        FX(TWO_KERNELS);
        assert_int_equal(m->nkernels, 2);
        assert_int_equal(m->an[0].nselected, 3);
        size_t other = strncmp(m->kernels[0], "other", 5) ? 1 : 0, vc = 1 - other;

        assert_int_equal(tui_kernel_only(m, other), 0);
        assert_int_equal(m->an[0].nselected, 1);
        const char *kn[] = {m->kernels[other]};
        assert_run_equals(f, kn, 1, NULL, 0, "per_wave");
        /* the top-kernels table marks the selection */
        const struct rtable *tk = table_by_id(&m->an[0], "0.1");
        assert_int_equal(tk->ncols, 7);

        /* the dispatch list offers only the selected kernel's dispatches */
        m->mode = TM_DISPATCHES;
        size_t items[8];
        assert_int_equal(tui_list_items(m, items), 2); /* "all" and dispatch 2 */
        assert_int_equal(m->disp_ids[items[1]], 2);
        m->mode = TM_MAIN;

        assert_int_equal(tui_kernel_toggle(m, vc), 0);
        assert_int_equal(m->an[0].nselected, 3);
        assert_int_equal(tui_kernel_toggle(m, other), 0);
        assert_int_equal(m->an[0].nselected, 2);
        const char *kv[] = {m->kernels[vc]};
        assert_run_equals(f, kv, 1, NULL, 0, "per_wave");

        /* a selected dispatch of another kernel is dropped when the kernel changes */
        assert_int_equal(tui_kernel_only(m, TUI_NONE), 0);
        assert_int_equal(tui_dispatch_only(m, 2), 0);
        assert_int_equal(m->an[0].nselected, 1);
        assert_int_equal(tui_kernel_only(m, vc), 0);
        assert_int_equal(m->dsel[2], 0);
        assert_int_equal(m->an[0].nselected, 2);

        /* through the keys: k, Down (kernel 0), Enter */
        tui_key(m, 'k');
        assert_int_equal(m->mode, TM_KERNELS);
        tui_key(m, TK_DOWN);
        tui_key(m, TK_ENTER);
        assert_int_equal(m->mode, TM_MAIN);
        assert_int_equal(m->ksel[0], 1);
        assert_int_equal(m->ksel[1], 0);
        tui_key(m, 'k');
        tui_key(m, 'a');
        tui_key(m, TK_ESC);
        assert_int_equal(m->an[0].nselected, 3);
        fx_free(f);
}

static void test_dispatch_filter(void **state)
{
        (void)state;
        FX(ONE);
        assert_int_equal(tui_dispatch_only(m, 0), 0);
        assert_int_equal(m->an[0].nselected, 1);
        long d0 = 0, d01[] = {0, 1};
        assert_run_equals(f, NULL, 0, &d0, 1, "per_wave");
        assert_int_equal(tui_dispatch_toggle(m, 1), 0);
        assert_int_equal(m->an[0].nselected, 2);
        assert_run_equals(f, NULL, 0, d01, 2, "per_wave");
        /* keys: d, Space on "all" selects nothing else; Enter on all clears */
        tui_key(m, 'd');
        assert_int_equal(m->mode, TM_DISPATCHES);
        tui_key(m, TK_ENTER);
        assert_int_equal(m->mode, TM_MAIN);
        assert_int_equal(m->an[0].nselected, 3);
        fx_free(f);

        /* the command line's -d is the initial selection */
        f = fx_new(ONE, 1);
        m = &f->m;
        assert_int_equal(m->an[0].nselected, 1);
        assert_int_equal(m->dsel[1], 1);
        fx_free(f);
}

/* ---- normalization ---- */

static const char *unit_of(const struct analysis *an, const char *table, size_t row)
{
        const struct rtable *t = table_by_id(an, table);
        for (size_t c = 0; c < t->ncols; c++)
                if (!strcmp(t->pt->cols[c].show, "unit"))
                        return t->cells[row * t->ncols + c].text;
        return NULL;
}

static void test_norm_switch(void **state)
{
        (void)state;
        FX(ONE);
        assert_string_equal(m->norms[m->norm], "per_wave");
        assert_int_equal(tui_select_id(m, "17.2"), 0);
        assert_string_equal(unit_of(&m->an[0], "17.2", 0), "Bytes per wave");
        tui_key(m, 'n');
        assert_string_equal(m->norms[m->norm], "per_cycle");
        assert_string_equal(unit_of(&m->an[0], "17.2", 0), "Bytes per cycle");
        assert_run_equals(f, NULL, 0, NULL, 0, "per_cycle");
        assert_non_null(strstr(m->msg, "per_cycle"));
        /* the selection stays */
        assert_string_equal(tui_current_table(m)->id, "17.2");
        for (size_t i = 1; i < m->nnorms; i++)
                assert_int_equal(tui_norm_cycle(m, 1), 0);
        assert_string_equal(m->norms[m->norm], "per_wave");
        tui_key(m, 'N');
        assert_string_equal(m->norms[m->norm], m->norms[m->nnorms - 1]);
        assert_run_equals(f, NULL, 0, NULL, 0, m->norms[m->nnorms - 1]);
        assert_true(tui_norm_set(m, "per_fortnight") < 0);
        fx_free(f);
}

/* ---- search ---- */

static void test_search(void **state)
{
        (void)state;
        FX(ONE);
        assert_int_equal(tui_search(m, "2.1.1"), 0);
        assert_string_equal(tui_current_table(m)->id, "2.1");
        assert_int_equal(m->hl_row, 1);
        for (size_t i = 0; i < m->nmatches; i++) {
                const struct rtable *t = &m->an[0].tables[m->matches[i].table];
                assert_int_equal(strncmp(t->keys[m->matches[i].row], "2.1.1", 5), 0);
        }
        assert_int_equal(m->nmatches, 11); /* 2.1.1 and 2.1.10 to 2.1.19 */
        /* the status line tells what the highlighted row's metric measures (metrics/) */
        char *d = tui_row_desc(m);
        assert_non_null(d);
        assert_non_null(strstr(d, "2.1.1: Integer operations per second"));
        free(d);

        /* by name, any case; ] and [ cycle */
        assert_int_equal(tui_search(m, "hIT rAtE"), 0);
        assert_true(m->nmatches >= 3);
        const struct rtable *t = tui_current_table(m);
        const char *name = t->cells[m->hl_row * t->ncols].text;
        int has = 0;
        for (const char *p = name; p && *p && !has; p++)
                has = !strncasecmp(p, "hit rate", 8);
        assert_true(has);
        size_t n = m->nmatches;
        tui_key(m, ']');
        assert_int_equal(m->match_cur, 1);
        tui_key(m, '[');
        tui_key(m, '[');
        assert_int_equal(m->match_cur, n - 1);
        t = tui_current_table(m);
        assert_int_equal((long)(t - m->an[0].tables), m->hl_table);

        assert_true(tui_search(m, "no such metric") < 0);
        assert_int_equal(m->nmatches, 0);
        assert_int_equal(m->hl_row, -1);

        /* the prompt: / L2 Enter, the found row is highlighted on screen */
        const char *keys = "/L2-Fabric Read BW\n";
        for (const char *k = keys; *k; k++)
                tui_key(m, *k);
        assert_int_equal(m->mode, TM_MAIN);
        assert_non_null(strstr(m->msg, "matches for 'L2-Fabric Read BW'"));
        struct tui_frame fr;
        tui_frame_init(&fr, 24, 80);
        tui_compose(m, &fr);
        int found = 0;
        for (int i = 0; i < fr.rows * fr.cols; i++)
                found |= fr.cells[i].attr == TA_MATCH;
        assert_true(found);
        tui_frame_free(&fr);
        fx_free(f);
}

/* ---- comparison ---- */

static void test_compare(void **state)
{
        (void)state;
        FX(COMPARE);
        assert_true(m->compare);
        check_grids(f, 1);
        const struct rtable *t = table_by_id(&m->an[0], "2.1");
        struct tui_grid g;
        tui_grid_build(t, table_by_id(&m->an[1], "2.1"), 1, &f->ro, &g);
        int nnew = 0, nchange = 0, colored = 0;
        for (size_t c = 0; c < g.ncols; c++) {
                nnew += strstr(g.cells[c], "(new)") != NULL;
                nchange += !strcmp(g.cells[c], "Change");
        }
        assert_true(nnew >= 3 && nnew == nchange);
        /* every colored change agrees with the direction of its metric */
        for (size_t r = 1; r < g.nrows; r++)
                for (size_t c = 0; c < g.ncols; c++) {
                        int a = g.attrs[r * g.ncols + c];
                        if (strcmp(g.cells[c], "Change") || (a != TA_BETTER && a != TA_WORSE))
                                continue;
                        colored++;
                        const char *s = g.cells[r * g.ncols + c];
                        int up = s[0] == '+';
                        /* the metric column of this change: the one 2 to the left */
                        long mc = -1;
                        for (size_t k = 0, gc = 1; k < t->ncols; k++) {
                                int num = 1;
                                for (size_t rr = 0; rr < t->nrows; rr++)
                                        num &= !t->cells[rr * t->ncols + k].text;
                                if (num && gc + 2 == c)
                                        mc = (long)k;
                                gc += num ? 3 : 1;
                        }
                        assert_true(mc >= 0);
                        int dir = tui_direction(t, (size_t)g.src_row[r], (size_t)mc);
                        assert_int_equal(a, (up == (dir > 0)) ? TA_BETTER : TA_WORSE);
                }
        assert_true(colored > 0);
        tui_grid_free(&g);

        /* filters and normalization re-run both workloads */
        assert_int_equal(tui_norm_set(m, "per_cycle"), 0);
        assert_string_equal(unit_of(&m->an[1], "17.2", 0), "Bytes per cycle");
        /* dispatch 2 is not in the other run: refused, state kept */
        assert_true(tui_dispatch_only(m, 2) < 0);
        assert_int_equal(m->dsel[2], 0);
        assert_int_equal(m->an[0].nselected, 3);
        assert_non_null(strstr(m->msg, "dispatch_0"));
        fx_free(f);
}

/* ---- colors and directions ---- */

static void test_colors(void **state)
{
        (void)state;
        assert_int_equal(tui_pop_attr(NAN), TA_NORMAL);
        assert_int_equal(tui_pop_attr(0), TA_POP_LOW);
        assert_int_equal(tui_pop_attr(49.99), TA_POP_LOW);
        assert_int_equal(tui_pop_attr(50), TA_POP_MID);
        assert_int_equal(tui_pop_attr(79.99), TA_POP_MID);
        assert_int_equal(tui_pop_attr(80), TA_POP_HIGH);
        assert_int_equal(tui_pop_attr(130), TA_POP_HIGH);
        FX(ONE);
        const struct rtable *t = table_by_id(&m->an[0], "2.1");
        struct tui_grid g;
        tui_grid_build(t, NULL, 0, &f->ro, &g);
        size_t pc = 0;
        for (size_t c = 0; c < g.ncols; c++)
                if (!strcmp(g.cells[c], "Pct of Peak"))
                        pc = c;
        assert_true(pc > 0);
        for (size_t r = 1; r < g.nrows; r++) {
                const struct cell *cl = &t->cells[(r - 1) * t->ncols + (pc - 1)];
                assert_int_equal(g.attrs[r * g.ncols + pc], tui_pop_attr(cl->v));
                assert_int_equal(g.attrs[r * g.ncols + 2], TA_NORMAL);
        }
        tui_grid_free(&g);
        /* directions: latency lower, hit rate higher, Pct of Peak higher */
        const struct rtable *l2 = table_by_id(&m->an[0], "17.2");
        assert_int_equal(tui_direction(l2, 9, 2), -1); /* 17.2.9 Read Latency */
        assert_int_equal(tui_direction(t, 20, 2), 1);  /* 2.1.20 L2 Cache Hit Rate */
        assert_int_equal(tui_direction(t, 0, pc - 1), 1);
        fx_free(f);
}

/* ---- the composed screen ---- */

static char *screen(struct tui_model *m, int rows, int cols)
{
        struct tui_frame fr;
        tui_frame_init(&fr, rows, cols);
        tui_compose(m, &fr);
        char *s = tui_frame_text(&fr);
        tui_frame_free(&fr);
        return s;
}

static char *row_of(const char *s, int y)
{
        for (; y > 0 && s; y--) {
                s = strchr(s, '\n');
                s = s ? s + 1 : NULL;
        }
        if (!s)
                return xstrdup("");
        const char *e = strchr(s, '\n');
        return xstrndup(s, e ? (size_t)(e - s) : strlen(s));
}

static void test_screen(void **state)
{
        (void)state;
        FX(ONE);
        char *s = screen(m, 24, 80);
        /* 24 lines of 80 cells */
        int lines = 0;
        for (const char *p = s; *p; p++)
                lines += *p == '\n';
        assert_int_equal(lines, 24);
        for (int y = 0; y < 24; y++) {
                char *r = row_of(s, y);
                size_t w = 0;
                for (const char *p = r; *p; p++)
                        w += ((unsigned char)*p & 0xC0) != 0x80;
                assert_int_equal(w, 80);
                free(r);
        }
        char *r0 = row_of(s, 0), *r1 = row_of(s, 1), *rl = row_of(s, 23), *r2 = row_of(s, 2);
        assert_non_null(strstr(r0, "prism analyze"));
        assert_non_null(strstr(r0, "vcopy/MI200 (gfx90a)"));
        assert_non_null(strstr(r1, "Norm: per_wave"));
        assert_non_null(strstr(r1, "3/3 dispatches"));
        assert_non_null(strstr(r2, "▾ 0 Top Stats"));
        assert_non_null(strstr(rl, "q:quit"));
        free(r0), free(r1), free(rl), free(r2), free(s);

        tui_select_id(m, "17");
        s = screen(m, 30, 100);
        assert_non_null(strstr(s, "17.1 Speed-of-Light"));
        assert_non_null(strstr(s, "Hit Rate"));
        assert_non_null(strstr(s, "▾ 17 L2 Cache"));
        free(s);

        /* sideways by whole columns: the first step puts the Avg column of 2.1 first */
        tui_select_id(m, "2.1");
        m->focus = TF_TABLE;
        struct tui_grid g;
        tui_grid_build(tui_current_table(m), NULL, 0, &f->ro, &g);
        tui_key(m, TK_RIGHT);
        assert_int_equal(m->hoff, g.width[1] + 3);
        tui_key(m, TK_LEFT);
        assert_int_equal(m->hoff, 0);
        tui_grid_free(&g);

        /* sideways by columns, clamped; End shows the last row */
        tui_select_id(m, "18.1");
        m->focus = TF_TABLE;
        s = screen(m, 24, 80);
        free(s);
        tui_key(m, TK_RIGHT);
        assert_true(m->hoff > 0);
        size_t h1 = m->hoff;
        tui_key(m, TK_RIGHT);
        assert_true(m->hoff > h1);
        for (int i = 0; i < 50; i++)
                tui_key(m, TK_RIGHT);
        s = screen(m, 24, 80);
        size_t hmax = m->hoff;
        free(s);
        tui_key(m, TK_RIGHT);
        s = screen(m, 24, 80);
        assert_int_equal(m->hoff, hmax);
        free(s);
        tui_key(m, TK_END);
        s = screen(m, 24, 80);
        const struct rtable *t = tui_current_table(m);
        assert_non_null(strstr(s, t->keys[t->nrows - 1]));
        free(s);
        tui_key(m, TK_HOME);
        assert_int_equal(m->voff, 0);
        assert_int_equal(m->hoff, 0);

        /* help lists every key, at 80x24 and at 100x30 */
        tui_key(m, '?');
        assert_int_equal(m->mode, TM_HELP);
        for (int pass = 0; pass < 2; pass++) {
                s = pass ? screen(m, 30, 100) : screen(m, 24, 80);
                for (size_t i = 0; i < tui_nkeys; i++)
                        if (!strstr(s, tui_keys[i].keys))
                                fail_msg("help lacks '%s'", tui_keys[i].keys);
                assert_non_null(strstr(s, "Pct of Peak"));
                free(s);
        }
        tui_key(m, TK_ESC);
        assert_int_equal(m->mode, TM_MAIN);

        /* too small */
        s = screen(m, 6, 30);
        assert_non_null(strstr(s, "too small"));
        free(s);

        /* the memory chart view, or a message saying it is not there */
        int rc = tui_view_text(m, "memchart");
        if (rc == 0) {
                assert_int_equal(m->mode, TM_TEXT);
                assert_true(m->ntext > 0);
                tui_key(m, TK_ESC);
        } else {
                assert_true(m->msg[0] != 0);
        }
        assert_int_equal(m->mode, TM_MAIN);
        tui_key(m, 'q');
        assert_true(m->quit);
        fx_free(f);
}

/* 'f' lists the findings; Enter jumps to the first evidence row and makes the
 * evidence the matches that ] steps through */
/* a kernel name's control characters (ESC, OSC, BEL, a C1 CSI) reach no cell: each is
 * shown escaped, as in the text report (util/esc.h) */
static void test_control_chars(void **state)
{
        (void)state;
        struct tui_line l = {0};
        const char *name = "k\x1b[2J\x1b]0;t\x07n\xc2\x9b" "1m\xe2\x94\x82";
        size_t n = tui_line_add(&l, name, 0);
        const char *want = "k\\x1b[2J\\x1b]0;t\\x07n\\u009b1m";
        assert_int_equal(n, strlen(want) + 1); /* and the box character, one cell */
        for (size_t i = 0; i < strlen(want); i++)
                assert_int_equal(l.c[i].ch[0], want[i]);
        assert_string_equal(l.c[strlen(want)].ch, "\xe2\x94\x82");
        free(l.c);
}

static void test_findings_view(void **state)
{
        (void)state;
        FX(ONE);
        const struct rtable *ft = tui_findings_table(m);
        assert_non_null(ft);
        assert_true(ft->nrows >= 1);
        tui_key(m, 'f');
        assert_int_equal(m->mode, TM_FINDINGS);
        char *line = tui_findings_line(m, 0);
        assert_non_null(strstr(line, "mem.hbm_bandwidth"));
        free(line);
        tui_key(m, TK_ENTER);
        assert_int_equal(m->mode, TM_MAIN);
        assert_true(m->hl_table >= 0);
        const struct rtable *et = &m->an[0].tables[m->hl_table];
        /* the first evidence id of the top finding: 2.1.22 (L2-Fabric Read BW) */
        assert_string_equal(et->keys[m->hl_row], "2.1.22");
        assert_int_equal(m->nmatches, 2);
        tui_key(m, ']');
        assert_string_equal(m->an[0].tables[m->hl_table].keys[m->hl_row], "2.1.23");
        /* Esc closes the view without moving */
        tui_key(m, 'f');
        tui_key(m, TK_DOWN);
        assert_int_equal(m->pick, 1);
        tui_key(m, TK_ESC);
        assert_int_equal(m->mode, TM_MAIN);
        fx_free(f);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_tree_selection), cmocka_unit_test(test_cells_match_text),
            cmocka_unit_test(test_kernel_filter),  cmocka_unit_test(test_dispatch_filter),
            cmocka_unit_test(test_norm_switch),    cmocka_unit_test(test_search),
            cmocka_unit_test(test_compare),        cmocka_unit_test(test_colors),
            cmocka_unit_test(test_screen),         cmocka_unit_test(test_findings_view),
            cmocka_unit_test(test_control_chars),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
