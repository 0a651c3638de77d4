/* libFuzzer target for the expression language (src/expr/): the input is one formula.
 * A formula that parses must print to a canonical text that parses to the same text,
 * clone, bind and evaluate over a few dispatches without a crash; one that does not
 * parse must give a one-line message. */
#include <math.h>
#include <string.h>

#include "expr/expr.h"
#include "fuzz.h"

#define EXPR_ROWS 4

struct expr_fz {
        struct smap names;
        int n;
};

/* every distinct name gets a slot; names ending in "_missing" do not resolve */
static int expr_fz_resolve(void *p, const char *name, int dollar, struct err *err)
{
        struct expr_fz *c = p;
        int slot;
        size_t l = strlen(name);
        (void)dollar;
        if (l >= 8 && !strcmp(name + l - 8, "_missing"))
                return err_set(err, ERR_INPUT, "unknown counter '%s'", name);
        if (smap_get(&c->names, name, &slot))
                return slot;
        smap_put(&c->names, name, c->n);
        return c->n++;
}

static void expr_fz_count(void *ctx, const char *name, int dollar)
{
        (void)dollar;
        FUZZ_CHECK(name != NULL);
        ++*(int *)ctx;
}

int fuzz_expr(const uint8_t *data, size_t n)
{
        static const char *const aggs[] = {"avg", "min", "max", "median", "std",
                                           "sum", "q1",  "q3",  "bogus"};
        /* the columns a slot may hold: odd values on purpose */
        static const double cols[][EXPR_ROWS] = {
            {1, 2, 3, 4}, {0, 0, 0, 0}, {NAN, 1, NAN, -1}, {INFINITY, -INFINITY, 0, 1e308},
            {-0.0, 5e-324, -3, 2.5},
        };
        char *src = xstrndup((const char *)data, n);
        struct expr_loc loc = {"fuzz.yaml", 3, 7};
        struct err err = {0};
        struct expr *e = expr_parse(src, &loc, "m", &err);
        warn_quiet = 1;
        if (!e) {
                FUZZ_CHECK(err.code != 0 && err.msg[0]);
                FUZZ_CHECK(!strchr(err.msg, '\n'));
                FUZZ_CHECK(!strncmp(err.msg, "fuzz.yaml:", 10));
                free(src);
                return 0;
        }
        /* the canonical text parses back to itself; being fully parenthesised it nests
         * deeper than the source, so it may exceed the parser's depth limit */
        char *s1 = expr_to_string(e), *s2 = NULL;
        struct err err2 = {0};
        struct expr *e2 = expr_parse(s1, NULL, NULL, &err2);
        if (!e2 && !strstr(err2.msg, "nested too deeply"))
                fprintf(stderr, "canonical text '%s' does not parse: %s\n", s1, err2.msg);
        FUZZ_CHECK(e2 || strstr(err2.msg, "nested too deeply"));
        if (e2) {
                s2 = expr_to_string(e2);
                FUZZ_CHECK(!strcmp(s1, s2));
                FUZZ_CHECK(expr_has_aggregate(e) == expr_has_aggregate(e2));
        }

        struct expr *c = expr_clone(e);
        char *s3 = expr_to_string(c);
        FUZZ_CHECK(!strcmp(s1, s3));
        int count = 0;
        expr_names(c, expr_fz_count, &count);

        struct expr_fz fz = {0};
        struct err berr = {0};
        if (expr_bind(c, expr_fz_resolve, &fz, &berr) == 0) {
                size_t ncols = sizeof cols / sizeof *cols;
                struct expr_slot *slots = xcalloc(fz.n ? (size_t)fz.n : 1, sizeof *slots);
                for (int i = 0; i < fz.n; i++) {
                        /* every third slot a scalar, the others columns */
                        if (i % 3 == 2)
                                slots[i].s = cols[i % ncols][i % EXPR_ROWS];
                        else
                                slots[i].col = cols[i % ncols];
                }
                for (size_t rows = 0; rows <= EXPR_ROWS; rows += EXPR_ROWS) {
                        struct expr_env env = {.n = rows, .slots = slots, .nslots = (size_t)fz.n};
                        struct expr_val v = {0};
                        struct err eerr = {0};
                        if (expr_eval(c, &env, &v, &eerr) == 0)
                                expr_val_free(&v);
                        else
                                FUZZ_CHECK(eerr.msg[0] && !strchr(eerr.msg, '\n'));
                        for (size_t a = 0; a < sizeof aggs / sizeof *aggs; a++) {
                                struct err aerr = {0};
                                (void)expr_eval_agg(c, &env, aggs[a], &aerr);
                        }
                }
                free(slots);
        } else {
                FUZZ_CHECK(berr.msg[0] && !strchr(berr.msg, '\n'));
        }
        smap_free(&fz.names);
        expr_free(c);
        free(s3);
        free(s2);
        expr_free(e2);
        free(s1);
        expr_free(e);
        free(src);
        return 0;
}

#ifndef PRISM_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
        return fuzz_expr(data, n);
}
#endif
