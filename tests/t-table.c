/* The CSV loader: good, odd and malformed inputs as a table of cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/table.h"

static char *write_tmp(const char *text)
{
        char *path = xstrdup("/tmp/prism-t-table-XXXXXX");
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
        return path;
}

struct good_case {
        const char *csv;
        size_t rows, cols;
        const char *col;  /* a column to check */
        size_t row;
        double num;       /* expected number (NaN: not a number) */
        const char *text; /* expected cell text */
};

static const struct good_case good[] = {
    {"a,b\n1,2\n3,4\n", 2, 2, "b", 1, 4, "4"},
    {"\xEF\xBB\xBF" "a,b\r\n1,2\r\n", 1, 2, "a", 0, 1, "1"},           /* BOM and CRLF */
    {"name,v\n\"x, y\",2.5\n", 1, 2, "name", 0, NAN, "x, y"},          /* quoted comma */
    {"name,v\n\"two\nlines\",1\n", 1, 2, "name", 0, NAN, "two\nlines"}, /* quoted newline */
    {"name,v\n\"say \"\"hi\"\"\",1\n", 1, 2, "name", 0, NAN, "say \"hi\""},
    {"k,v\n12,1\nabc,2\n", 2, 2, "k", 0, 12, "12"},                     /* text after number */
    {"k,v\n1,\n", 1, 2, "v", 0, NAN, ""},                                /* empty cell */
    {"k,v\n1,nan\n2,inf\n", 2, 2, "v", 1, INFINITY, "inf"},
    {"k,v\n1,2\n\n3,4\n", 2, 2, "k", 1, 3, "3"},                         /* blank line */
    {"k,v\n1,1e300\n", 1, 2, "v", 0, 1e300, NULL},
    {"a,b\n", 0, 2, "a", 0, 0, NULL},                                    /* header only */
    {"a,a#2,a\n1,2,3\n", 1, 3, "a#2#2", 0, 3, "3"},                      /* taken alias */
    {"k,v\n1,1e400\n", 1, 2, "v", 0, INFINITY, "1e400"},                 /* text kept */
};

static void test_good(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
                const struct good_case *c = &good[i];
                char *p = write_tmp(c->csv);
                struct table t;
                struct err err = {0};
                assert_int_equal(table_load_csv(&t, p, &err), 0);
                assert_int_equal(t.nrows, c->rows);
                assert_int_equal(t.ncols, c->cols);
                int col = table_col(&t, c->col);
                assert_true(col >= 0);
                if (c->rows) {
                        double v = t.num[col][c->row];
                        if (isnan(c->num))
                                assert_true(isnan(v));
                        else
                                assert_true(v == c->num);
                        char buf[64];
                        if (c->text)
                                assert_string_equal(table_cell(&t, col, c->row, buf, sizeof buf),
                                                    c->text);
                }
                table_free(&t);
                unlink(p);
                free(p);
        }
}

struct bad_case {
        const char *csv;
        const char *msg; /* part of the error */
};

static const struct bad_case bad[] = {
    {"", "is empty"},
    {"a,b\n1,2,3\n", ":2: 3 fields, but the header has 2"},
    {"a,b,c\n1,2,3\n4,5\n", ":3: 2 fields, but the header has 3 (truncated"},
    {"a,b\n1,\"unterminated\n", ":2: malformed quoting"},
    {"a,b\n1,x\"y\n", ":2: "},
    {"\xEF\xBB\xBF", "is empty"},                                  /* a byte order mark only */
    {"\n\n\n", "is empty"},
    {"a,b\n\"x\ny\",1\n1,2,3\n", ":4: 3 fields"},                 /* lines, not records */
    {"a,b\n\n\n1,2,3\n", ":4: 3 fields"},                          /* blank lines count */
    {"a,b\n1,2\n\"open,3\n", ":3: malformed quoting"},            /* where the record began */
};

static void test_bad(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                char *p = write_tmp(bad[i].csv);
                struct table t;
                struct err err = {0};
                assert_int_not_equal(table_load_csv(&t, p, &err), 0);
                if (!strstr(err.msg, bad[i].msg))
                        fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].msg);
                assert_non_null(strstr(err.msg, p)); /* names the file */
                unlink(p);
                free(p);
        }
        struct table t;
        struct err err = {0};
        assert_int_not_equal(table_load_csv(&t, "/nonexistent/x.csv", &err), 0);
        assert_non_null(strstr(err.msg, "cannot open '/nonexistent/x.csv'"));
        assert_int_not_equal(table_load_csv(&t, "/tmp", &err), 0);
        assert_non_null(strstr(err.msg, "is a directory"));
}

static void test_write_roundtrip(void **state)
{
        (void)state;
        struct table t, u;
        struct err err = {0};
        table_init(&t);
        int a = table_add_col(&t, "name"), b = table_add_col(&t, "value");
        assert_int_equal(table_add_col(&t, "name"), a);
        size_t r = table_add_row(&t);
        table_set_str(&t, a, r, "a, \"quoted\"\nname");
        table_set_num(&t, b, r, 0.1);
        r = table_add_row(&t);
        table_set_str(&t, a, r, "plain");
        char *p = xstrdup("/tmp/prism-t-table-out-XXXXXX");
        close(mkstemp(p));
        assert_int_equal(table_write_csv(&t, p, &err), 0);
        assert_int_equal(table_load_csv(&u, p, &err), 0);
        assert_int_equal(u.nrows, 2);
        char buf[64];
        assert_string_equal(table_cell(&u, 0, 0, buf, sizeof buf), "a, \"quoted\"\nname");
        assert_true(u.num[1][0] == 0.1);
        assert_true(isnan(u.num[1][1]));
        table_free(&t);
        table_free(&u);
        unlink(p);
        free(p);
}

int main(void)
{
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_good), cmocka_unit_test(test_bad),
                                           cmocka_unit_test(test_write_roundtrip)};
        return cmocka_run_group_tests(tests, NULL, NULL);
}
