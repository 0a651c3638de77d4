/* The analysis engine on a tiny fixture (tests/data/tiny): aggregates per column, percent
 * of peak, normalizations, filters, the n/a rules, accumulate tables, per-channel rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"

#define TINY "tests/data/tiny/"

struct fixture {
        struct workload w;
        struct arch a;
        struct panel_set ps;
};

static int setup(void **state)
{
        struct fixture *f = xcalloc(1, sizeof *f);
        struct err err = {0};
        warn_quiet = 1;
        if (workload_open(TINY "wl", &f->w, &err) || arch_load(TINY "metrics", f->w.arch, &f->a, &err) ||
            panels_load(TINY "panels", &f->ps, &err)) {
                fprintf(stderr, "fixture: %s\n", err.msg);
                return -1;
        }
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *f = *state;
        if (!f)
                return 0;
        workload_close(&f->w);
        arch_free(&f->a);
        panels_free(&f->ps);
        free(f);
        return 0;
}

static const struct rtable *table(const struct analysis *an, const char *id)
{
        for (size_t i = 0; i < an->ntables; i++)
                if (!strcmp(an->tables[i].id, id))
                        return &an->tables[i];
        return NULL;
}

/* the cell of row `rid` under column title `col` */
static const struct cell *cell(const struct analysis *an, const char *tid, const char *rid,
                               const char *col)
{
        const struct rtable *t = table(an, tid);
        if (!t)
                return NULL;
        for (size_t r = 0; r < t->nrows; r++) {
                if (strcmp(t->keys[r], rid))
                        continue;
                for (size_t c = 0; c < t->ncols; c++)
                        if (!strcmp(t->cols[c], col))
                                return &t->cells[r * t->ncols + c];
        }
        return NULL;
}

/* one expectation: value NAN means n/a; text non-NULL compares text */
struct want {
        const char *rid, *col;
        double v;
        const char *text;
};

static void check(const struct analysis *an, const char *tid, const struct want *w, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                const struct cell *c = cell(an, tid, w[i].rid, w[i].col);
                if (!c)
                        fail_msg("no cell %s '%s'", w[i].rid, w[i].col);
                if (w[i].text) {
                        if (!c->text || strcmp(c->text, w[i].text))
                                fail_msg("%s '%s': text '%s', want '%s'", w[i].rid, w[i].col,
                                         c->text ? c->text : "(number)", w[i].text);
                } else if (isnan(w[i].v)) {
                        if (!isnan(c->v))
                                fail_msg("%s '%s': %.17g, want n/a", w[i].rid, w[i].col, c->v);
                } else if (fabs(c->v - w[i].v) > 1e-9 * fabs(w[i].v) + 1e-12) {
                        fail_msg("%s '%s': %.17g, want %.17g", w[i].rid, w[i].col, c->v, w[i].v);
                }
        }
}

static void run(struct fixture *f, const struct analysis_opts *o, struct analysis *an)
{
        struct err err = {0};
        if (analysis_run(&f->w, &f->a, &f->ps, o, an, &err))
                fail_msg("analysis: %s", err.msg);
}

static void test_defaults(void **state)
{
        struct fixture *f = *state;
        struct analysis an;
        struct analysis_opts o = {.norm = "per_wave", .kernel_verbose = 5};
        run(f, &o, &an);
        static const struct want w[] = {
            /* A / SQ_WAVES = 2, 0, 2 */
            {"1.1.0", "Avg", 4.0 / 3, NULL},
            {"1.1.0", "Min", 0, NULL},
            {"1.1.0", "Max", 2, NULL},
            {"1.1.0", "Median", 2, NULL},
            {"1.1.0", "Std Dev", 1.1547005383792515, NULL},
            {"1.1.0", "Unit", 0, "Things per wave"},
            {"1.1.0", "Peak", 100, NULL},
            {"1.1.0", "Pct of Peak", 4.0 / 3, NULL},
            /* 100 B / A where A != 0, else n/a: 25, n/a, 100 (n/a rows are skipped) */
            {"1.1.1", "Avg", 62.5, NULL},
            {"1.1.1", "Min", 25, NULL},
            {"1.1.1", "Std Dev", 53.033008588991066, NULL},
            {"1.1.1", "Pct of Peak", 62.5, NULL},
            /* a missing counter makes the whole formula n/a, even in an unused branch */
            {"1.1.2", "Avg", NAN, NULL},
            {"1.1.2", "Max", NAN, NULL},
            {"1.1.3", "Avg", 16, NULL},  /* $TWICE_A */
            {"1.1.4", "Avg", NAN, NULL}, /* a built-in made from a missing counter */
            {"1.1.5", "Avg", 15, NULL},  /* X / 2 read from SQ_LEVEL_WAVES.csv */
            {"1.1.6", "Kind", 0, "words"},
            {"1.1.6", "Avg", NAN, NULL},
            /* m.absent uses no id: the override row is 1.1.7 */
            {"1.1.7", "Avg", 8, NULL},
            {"1.1.7", "Max", 24, NULL}, /* override: SUM(A) */
        };
        check(&an, "1.1", w, sizeof w / sizeof *w);
        static const struct want ch[] = {
            {"1.2.0", "Channel", 0, "0"},    {"1.2.0", "Q1", 1.5, NULL},
            {"1.2.0", "Double", 4, NULL},    {"1.2.0", "Rounded", 2, NULL},
            {"1.2.1", "Channel", 0, "1"},    {"1.2.1", "Q1", 15, NULL},
            {"1.2.1", "Double", 122.0 / 3, NULL}, {"1.2.1", "Rounded", 20, NULL},
        };
        check(&an, "1.2", ch, sizeof ch / sizeof *ch);
        assert_int_equal(table(&an, "1.1")->nrows, 8);
        assert_int_equal(table(&an, "1.2")->nrows, 2);
        assert_int_equal(an.nselected, 3);
        assert_int_equal(an.nmissing, 1);
        assert_string_equal(an.missing[0], "NOPE");
        analysis_free(&an);
}

static void test_normalizations(void **state)
{
        struct fixture *f = *state;
        static const struct {
                const char *norm;
                double avg;
                const char *unit;
        } cases[] = {
            {"per_wave", 4.0 / 3, "Things per wave"},
            {"per_kernel", 8, "Things per kernel"},
            {"per_cycle", 1, "Things per cycle"}, /* A / A: 1, 0/0 (n/a, skipped), 1 */
            {"per_second", (4e6 + 0 + 4e6) / 3, "Things per second"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                struct analysis an;
                struct analysis_opts o = {.norm = cases[i].norm, .kernel_verbose = 5};
                run(f, &o, &an);
                struct want w[] = {{"1.1.0", "Avg", cases[i].avg, NULL},
                                   {"1.1.0", "Unit", 0, cases[i].unit}};
                check(&an, "1.1", w, 2);
                analysis_free(&an);
        }
        /* the 0/0 dispatch alone: per_cycle is n/a, not a number */
        const long d1[] = {1};
        struct analysis an;
        struct analysis_opts o = {.norm = "per_cycle", .kernel_verbose = 5, .dispatches = d1,
                                  .ndispatches = 1};
        run(f, &o, &an);
        struct want w = {"1.1.0", "Avg", NAN, NULL};
        check(&an, "1.1", &w, 1);
        analysis_free(&an);
}

static void test_filters(void **state)
{
        struct fixture *f = *state;
        const long d02[] = {0, 2};
        const char *kb[] = {"kern_b"};
        const long k0[] = {0};
        const char *blocks[] = {"1.1.3"};
        const struct {
                const char *what;
                struct analysis_opts o;
                size_t nsel;
                double a_avg;
        } cases[] = {
            {"-d 0 2", {.dispatches = d02, .ndispatches = 2}, 2, 2},
            {"-k kern_b", {.kernel_names = kb, .nkernel_names = 1}, 1, 0},
            {"-k 0 (the kernel with most time: kern_a)", {.kernels = k0, .nkernels = 1}, 2, 2},
            {"--gpu-id 1", {.gpu_id = "1"}, 1, 2},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                struct analysis an;
                struct analysis_opts o = cases[i].o;
                o.norm = "per_wave";
                o.kernel_verbose = 5;
                run(f, &o, &an);
                if (an.nselected != cases[i].nsel)
                        fail_msg("%s: %zu dispatches", cases[i].what, an.nselected);
                struct want w = {"1.1.0", "Avg", cases[i].a_avg, NULL};
                check(&an, "1.1", &w, 1);
                analysis_free(&an);
        }
        /* -b 1.1.3: only that row, with its id */
        struct analysis an;
        struct analysis_opts o = {.norm = "per_wave", .kernel_verbose = 5, .blocks = blocks,
                                  .nblocks = 1};
        run(f, &o, &an);
        assert_int_equal(table(&an, "1.1")->nrows, 1);
        assert_null(table(&an, "1.2"));
        struct want w = {"1.1.3", "Avg", 16, NULL};
        check(&an, "1.1", &w, 1);
        analysis_free(&an);
        /* a filter that selects nothing, and a -b id that names nothing, are errors */
        struct err err = {0};
        const long none[] = {7};
        struct analysis_opts bad = {.norm = "per_wave", .dispatches = none, .ndispatches = 1};
        assert_int_not_equal(analysis_run(&f->w, &f->a, &f->ps, &bad, &an, &err), 0);
        assert_non_null(strstr(err.msg, "select no dispatch"));
        const char *nob[] = {"9.9"};
        struct analysis_opts bad2 = {.norm = "per_wave", .blocks = nob, .nblocks = 1};
        assert_int_not_equal(analysis_run(&f->w, &f->a, &f->ps, &bad2, &an, &err), 0);
        assert_non_null(strstr(err.msg, "-b 9.9"));
}

static void test_top_kernels(void **state)
{
        struct fixture *f = *state;
        char **names;
        size_t n;
        struct analysis_opts o = {.norm = "per_wave", .kernel_verbose = 5};
        analysis_top_kernels(&f->w, &o, &names, &n);
        assert_int_equal(n, 2);
        assert_string_equal(names[0], "kern_a"); /* 6000 ns against 1000 ns */
        assert_string_equal(names[1], "kern_b");
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        o.sort_by_kernel = 1;
        analysis_top_kernels(&f->w, &o, &names, &n);
        assert_string_equal(names[0], "kern_a");
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_defaults), cmocka_unit_test(test_normalizations),
            cmocka_unit_test(test_filters), cmocka_unit_test(test_top_kernels)};
        return cmocka_run_group_tests(tests, setup, teardown);
}
