/* expr_ratio_of_sums (src/expr/expr_ratio.c): a formula's mean over dispatches as
 * rocprof-compute 3.7+ computes it, SUM(A) / SUM(B) for A / B, with what is the same for every
 * dispatch kept outside the sums; formulas it does not apply to give NULL (plain AVG). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"

/* $denom and $per are per dispatch, every other $name (sysinfo) is not */
static int per_row(void *ctx, const char *name)
{
        (void)ctx;
        return !strcmp(name, "denom") || !strcmp(name, "per");
}

static char *canon(const char *src)
{
        struct err err = {0};
        struct expr *e = expr_parse(src, NULL, NULL, &err);
        assert_non_null(e);
        char *s = expr_to_string(e);
        expr_free(e);
        return s;
}

static void test_cases(void **state)
{
        (void)state;
        static const struct {
                const char *in, *want; /* want NULL: no ratio of sums */
        } cases[] = {
                {"A / B", "SUM(A) / SUM(B)"},
                {"100 * A / B", "SUM(100 * A) / SUM(B)"},
                {"100 - 100 * A / B", "100 - SUM(100 * A) / SUM(B)"},
                {"(A / B) if (B != 0) else None", "SUM(A) / SUM(B)"},
                {"A / B / $cu_per_gpu", "SUM(A) / SUM(B) / $cu_per_gpu"},
                {"$cu_per_gpu * (A / (End_Timestamp - Start_Timestamp))",
                 "$cu_per_gpu * (SUM(A) / SUM(End_Timestamp - Start_Timestamp))"},
                {"-(A / B)", "-(SUM(A) / SUM(B))"},
                {"A / $denom", "SUM(A) / SUM($denom)"},
                {"A / $per / 2", "SUM(A) / SUM($per) / 2"},
                {"A / $max_sclk", NULL},        /* divides by nothing per dispatch */
                {"A * 2", NULL},                /* no division at all */
                {"A / B + C / D", NULL},        /* no rule reaches both */
                {"AVG(A) / B", NULL},           /* an aggregate of its own */
                {"ROUND(A / B, 2)", NULL},      /* a division inside a function */
                {"$max_sclk / $cu_per_gpu", NULL},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                struct err err = {0};
                struct expr *e = expr_parse(cases[i].in, NULL, NULL, &err);
                assert_non_null(e);
                char *got = expr_ratio_of_sums(e, per_row, NULL);
                if (!cases[i].want) {
                        if (got)
                                fail_msg("'%s': got '%s', want none", cases[i].in, got);
                } else {
                        if (!got)
                                fail_msg("'%s': got none, want '%s'", cases[i].in,
                                         cases[i].want);
                        char *a = canon(got), *b = canon(cases[i].want);
                        if (strcmp(a, b))
                                fail_msg("'%s': got '%s', want '%s'", cases[i].in, a, b);
                        free(a);
                        free(b);
                }
                free(got);
                expr_free(e);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_cases)};
        return cmocka_run_group_tests(tests, NULL, NULL);
}
