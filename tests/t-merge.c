/* Merging synthetic passes: join by kernel and by grid, column layout, timestamps, and
 * the errors for passes that saw different dispatches. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/merge.h"

/* one dispatch of a synthetic pass */
struct row {
        const char *kernel;
        double grid, start, end;
        double v[3]; /* counter values */
};

/* A pass as a backend returns it: dispatch columns, counters, timestamps. */
static void make_pass(struct table *t, const char *const *counters, size_t nc,
                      const struct row *rows, size_t n)
{
        table_init(t);
        const char *cols[] = {"Dispatch_ID", "Kernel_Name", "GPU_ID", "Grid_Size",
                              "Workgroup_Size", "LDS_Per_Workgroup", "Scratch_Per_Workitem",
                              "Arch_VGPR", "Accum_VGPR", "SGPR", "wave_size"};
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
                table_add_col(t, cols[c]);
        for (size_t c = 0; c < nc; c++)
                table_add_col(t, counters[c]);
        table_add_col(t, "Start_Timestamp");
        table_add_col(t, "End_Timestamp");
        for (size_t r = 0; r < n; r++) {
                size_t i = table_add_row(t);
                table_set_num(t, table_col(t, "Dispatch_ID"), i, (double)(100 + r));
                table_set_str(t, table_col(t, "Kernel_Name"), i, rows[r].kernel);
                table_set_num(t, table_col(t, "GPU_ID"), i, 0);
                table_set_num(t, table_col(t, "Grid_Size"), i, rows[r].grid);
                table_set_num(t, table_col(t, "Workgroup_Size"), i, 256);
                for (size_t c = 5; c < sizeof cols / sizeof cols[0]; c++)
                        table_set_num(t, table_col(t, cols[c]), i, 0);
                for (size_t c = 0; c < nc; c++)
                        table_set_num(t, table_col(t, counters[c]), i, rows[r].v[c]);
                table_set_num(t, table_col(t, "Start_Timestamp"), i, rows[r].start);
                table_set_num(t, table_col(t, "End_Timestamp"), i, rows[r].end);
        }
}

static double num(const struct table *t, const char *col, size_t r)
{
        int c = table_col(t, col);
        assert_true(c >= 0);
        return t->num[c][r];
}

static const char *str(const struct table *t, const char *col, size_t r)
{
        static char buf[64];
        int c = table_col(t, col);
        assert_true(c >= 0);
        return table_cell(t, c, r, buf, sizeof buf);
}

static const char *const c0[] = {"SQ_WAVES", "TCC_HIT_sum"};
static const char *const c1[] = {"SQ_INSTS_VALU", "TCC_MISS_sum"};
static const char *const c2[] = {"GRBM_GUI_ACTIVE", "SQ_WAVES"}; /* SQ_WAVES repeated */

/* pass 0: A(100) B(50) A(200); pass 1 and 2 list them in another order */
static const struct row p0[] = {
        {"A", 100, 1000, 1100, {1, 2}},
        {"B", 50, 2000, 2300, {3, 4}},
        {"A", 200, 3000, 3400, {5, 6}},
};
static const struct row p1[] = {
        {"B", 50, 2010, 2310, {30, 40}},
        {"A", 200, 1010, 1110, {10, 20}},
        {"A", 100, 3010, 3410, {50, 60}},
};
static const struct row p2[] = {
        {"A", 100, 1020, 1120, {7, 99}},
        {"A", 200, 3020, 3420, {8, 98}},
        {"B", 50, 2020, 2320, {9, 97}},
};

static void test_join_kernel(void **state)
{
        (void)state;
        warn_quiet = 1; /* the grids of A differ by occurrence: joined by kernel on purpose */
        struct table a, b, c, out;
        make_pass(&a, c0, 2, p0, 3);
        make_pass(&b, c1, 2, p1, 3);
        make_pass(&c, c2, 2, p2, 3);
        const struct table *ps[] = {&a, &b, &c};
        int ids[] = {0, 1, 2};
        struct err err = {0};
        assert_int_equal(merge_passes(ps, ids, 3, MERGE_JOIN_KERNEL, &out, &err), 0);
        assert_int_equal(out.nrows, 3);
        /* layout: dispatch columns, counters in pass order (duplicate SQ_WAVES kept from pass
         * 0), timestamps last */
        const char *want[] = {"Dispatch_ID", "Kernel_Name", "GPU_ID", "Grid_Size",
                              "Workgroup_Size", "LDS_Per_Workgroup", "Scratch_Per_Workitem",
                              "Arch_VGPR", "Accum_VGPR", "SGPR", "wave_size", "SQ_WAVES",
                              "TCC_HIT_sum", "SQ_INSTS_VALU", "TCC_MISS_sum",
                              "GRBM_GUI_ACTIVE", "Start_Timestamp", "End_Timestamp"};
        assert_int_equal(out.ncols, sizeof want / sizeof want[0]);
        for (size_t i = 0; i < out.ncols; i++)
                assert_string_equal(out.names[i], want[i]);
        /* rows: pass 0's order, ids from 0; the n-th A of pass 1 joins the n-th A of pass 0 */
        const struct {
                const char *k;
                double id, waves, valu, grbm, start, end;
        } rows[] = {
                {"A", 0, 1, 10, 7, 1010, 1110},
                {"B", 1, 3, 30, 9, 2010, 2310},
                {"A", 2, 5, 50, 8, 3010, 3410},
        };
        for (size_t r = 0; r < 3; r++) {
                assert_string_equal(str(&out, "Kernel_Name", r), rows[r].k);
                assert_true(num(&out, "Dispatch_ID", r) == rows[r].id);
                assert_true(num(&out, "SQ_WAVES", r) == rows[r].waves);
                assert_true(num(&out, "SQ_INSTS_VALU", r) == rows[r].valu);
                assert_true(num(&out, "GRBM_GUI_ACTIVE", r) == rows[r].grbm);
                assert_true(num(&out, "Start_Timestamp", r) == rows[r].start);
                assert_true(num(&out, "End_Timestamp", r) == rows[r].end);
        }
        table_free(&out);
        table_free(&a);
        table_free(&b);
        table_free(&c);
        warn_quiet = 0;
}

static void test_join_grid(void **state)
{
        (void)state;
        struct table a, b, out;
        make_pass(&a, c0, 2, p0, 3);
        make_pass(&b, c1, 2, p1, 3);
        const struct table *ps[] = {&a, &b};
        int ids[] = {0, 1};
        struct err err = {0};
        assert_int_equal(merge_passes(ps, ids, 2, MERGE_JOIN_GRID, &out, &err), 0);
        /* by grid, A(100) of pass 0 joins A(100) of pass 1, which came third there */
        const double valu[] = {50, 30, 10};
        for (size_t r = 0; r < 3; r++) {
                assert_true(num(&out, "SQ_INSTS_VALU", r) == valu[r]);
                assert_true(num(&out, "Grid_Size", r) == p0[r].grid);
        }
        table_free(&out);
        table_free(&a);
        table_free(&b);
}

/* passes that saw other dispatches: the message names both passes, the kernel, the counts */
static const struct bad_case {
        const char *what;
        enum merge_join join;
        struct row rows[4];
        size_t n;
        const char *msg;
} bad_cases[] = {
        {"one A missing", MERGE_JOIN_KERNEL,
         {{"A", 100, 0, 0, {0}}, {"B", 50, 0, 0, {0}}}, 2,
         "pass 4 has 1 dispatch of kernel 'A' but pass 0 has 2"},
        {"an extra kernel", MERGE_JOIN_KERNEL,
         {{"A", 100, 0, 0, {0}}, {"B", 50, 0, 0, {0}}, {"A", 200, 0, 0, {0}},
          {"C", 1, 0, 0, {0}}},
         4, "pass 4 has 1 dispatch of kernel 'C' but pass 0 has no dispatches"},
        {"no B at all", MERGE_JOIN_KERNEL,
         {{"A", 100, 0, 0, {0}}, {"A", 200, 0, 0, {0}}}, 2,
         "pass 4 has no dispatches of kernel 'B' but pass 0 has 1 dispatch"},
        {"another grid", MERGE_JOIN_GRID,
         {{"A", 100, 0, 0, {0}}, {"B", 50, 0, 0, {0}}, {"A", 300, 0, 0, {0}}}, 3,
         "pass 4 has no dispatches of kernel 'A' with grid 200 but pass 0 has 1 dispatch"},
        {"another grid, kernel join ok", MERGE_JOIN_KERNEL,
         {{"A", 100, 0, 0, {0}}, {"B", 50, 0, 0, {0}}, {"A", 300, 0, 0, {0}}}, 3, NULL},
};

static void test_mismatch(void **state)
{
        (void)state;
        warn_quiet = 1;
        for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
                const struct bad_case *bc = &bad_cases[i];
                struct table a, b, out;
                make_pass(&a, c0, 2, p0, 3);
                make_pass(&b, c1, 2, bc->rows, bc->n);
                const struct table *ps[] = {&a, &b};
                int ids[] = {0, 4};
                struct err err = {0};
                int rc = merge_passes(ps, ids, 2, bc->join, &out, &err);
                if (bc->msg) {
                        if (rc == 0 || !strstr(err.msg, bc->msg))
                                fail_msg("%s: got rc %d '%s'", bc->what, rc, err.msg);
                        assert_int_equal(out.nrows, 0);
                } else {
                        assert_int_equal(rc, 0);
                        table_free(&out);
                }
                table_free(&a);
                table_free(&b);
        }
        warn_quiet = 0;
}

static void test_align(void **state)
{
        (void)state;
        struct table a, b, merged, acc;
        make_pass(&a, c0, 2, p0, 3);
        const struct table *ps[] = {&a};
        int ids[] = {0};
        struct err err = {0};
        assert_int_equal(merge_passes(ps, ids, 1, MERGE_JOIN_KERNEL, &merged, &err), 0);
        const char *const ac[] = {"SQ_INSTS_LDS", "SQ_ACCUM_PREV_HIRES"};
        make_pass(&b, ac, 2, p1, 3);
        assert_int_equal(merge_align(&merged, 0, &b, 7, MERGE_JOIN_KERNEL, &acc, &err), 0);
        assert_int_equal(acc.nrows, 3);
        const double hires[] = {20, 40, 60};
        for (size_t r = 0; r < 3; r++) {
                assert_true(num(&acc, "Dispatch_ID", r) == (double)r);
                assert_true(num(&acc, "SQ_ACCUM_PREV_HIRES", r) == hires[r]);
                assert_string_equal(str(&acc, "Kernel_Name", r), p0[r].kernel);
        }
        /* its own timestamps, not the merged ones */
        assert_true(num(&acc, "Start_Timestamp", 0) == 1010);
        assert_int_equal(table_col(&acc, "SQ_WAVES"), -1);
        table_free(&acc);
        table_free(&b);

        make_pass(&b, ac, 2, p1, 2);
        assert_true(merge_align(&merged, 0, &b, 7, MERGE_JOIN_KERNEL, &acc, &err) < 0);
        assert_non_null(strstr(err.msg, "pass 7 has 1 dispatch of kernel 'A' but pass 0 has 2"));
        table_free(&b);
        table_free(&merged);
        table_free(&a);
}

static void test_empty(void **state)
{
        (void)state;
        struct table a, b, out;
        make_pass(&a, c0, 2, p0, 0);
        make_pass(&b, c1, 2, p1, 0);
        const struct table *ps[] = {&a, &b};
        int ids[] = {0, 1};
        struct err err = {0};
        assert_int_equal(merge_passes(ps, ids, 2, MERGE_JOIN_KERNEL, &out, &err), 0);
        assert_int_equal(out.nrows, 0);
        assert_true(table_col(&out, "TCC_MISS_sum") >= 0);
        table_free(&out);
        table_free(&a);
        table_free(&b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_join_kernel), cmocka_unit_test(test_join_grid),
                cmocka_unit_test(test_mismatch),    cmocka_unit_test(test_align),
                cmocka_unit_test(test_empty),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
