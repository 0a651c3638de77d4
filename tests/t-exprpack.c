/* Formulas as one block (expr_pack): per-channel instances against a parse of their text,
 * formulas in an arena, and the levels a formula's walk asks for (expr_level); the lexer's
 * character classes against <ctype.h>. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr.h"
#include "expr/expr_int.h"
#include "util/arena.h"

static const struct expr_loc loc = {"metrics/cdna.yaml", 41, 10};

/* a, b, K: slots 0, 1, 2 */
static int resolve_abk(void *ctx, const char *name, int dollar, struct err *err)
{
        (void)ctx;
        static const char *const names[] = {"a", "b", "K"};
        for (int i = 0; i < 3; i++)
                if (!dollar && !strcmp(name, names[i]))
                        return i;
        return err_set(err, ERR_INPUT, "unknown counter '%s'", name);
}

/* every name binds to slot 0 but "zz" (a binding error that shows the column) */
static int resolve_but_zz(void *ctx, const char *name, int dollar, struct err *err)
{
        (void)ctx;
        (void)dollar;
        return strcmp(name, "zz") ? 0 : err_set(err, ERR_INPUT, "unknown counter 'zz'");
}

/* a per-channel instance is what parsing the text with '@' replaced gives: its names, its
 * text form and the line:col of its messages (the columns after an '@' move as the number
 * is wider), packed in one block; a formula in an arena is freed with the arena */
static void test_instance_and_arena(void **state)
{
        (void)state;
        static const char *const tmpl[] = {
            "TCC_HIT[@] * zz",
            "a +\n  TCC_HIT[@] - zz + b[@]",
            "MAX(x[@], y[@], zz) + TCC_HIT[@] / zz",
            "zz",
        };
        static const long nums[] = {0, 7, 1234, 99};
        for (size_t t = 0; t < sizeof tmpl / sizeof *tmpl; t++) {
                struct err err = {0};
                struct expr *te = expr_parse(tmpl[t], &loc, "m", &err);
                assert_non_null(te);
                for (size_t k = 0; k < sizeof nums / sizeof *nums; k++) {
                        char num[24], text[256];
                        snprintf(num, sizeof num, "%ld", nums[k]);
                        size_t o = 0;
                        for (const char *c = tmpl[t]; *c; c++)
                                o += (size_t)snprintf(text + o, sizeof text - o, "%s",
                                                      *c == '@' ? num : (char[2]){*c, 0});
                        struct expr *in = expr_instance(te, tmpl[t], &loc, nums[k]);
                        struct expr *pe = expr_parse(text, &loc, "m", &err);
                        assert_non_null(in);
                        assert_non_null(pe);
                        char *a = expr_to_string(in), *b = expr_to_string(pe);
                        assert_string_equal(a, b);
                        free(a);
                        free(b);
                        struct err e1 = {0}, e2 = {0};
                        assert_true(expr_bind(in, resolve_but_zz, NULL, &e1) < 0);
                        assert_true(expr_bind(pe, resolve_but_zz, NULL, &e2) < 0);
                        assert_string_equal(e1.msg, e2.msg);
                        expr_free(in);
                        expr_free(pe);
                }
                expr_free(te);
        }
        /* in an arena: expr_free leaves it, arena_free frees it (ASan, valgrind) */
        struct arena ar = ARENA_INIT;
        struct err err = {0};
        struct expr *e = expr_parse_in(&ar, "a + AVG(b) * MAX(a, b, a)", &loc, "m", &err);
        assert_non_null(e);
        assert_true(arena_blocks(&ar) == 1);
        struct expr *c = expr_clone(e); /* a clone is its own block */
        expr_free(e);
        arena_free(&ar);
        char *s = expr_to_string(c);
        assert_string_equal(s, "(a + (AVG(b) * MAX(MAX(a, b), a)))");
        free(s);
        expr_free(c);
}

/* the levels of a formula: a name's slot's, an outermost tagged call's (a negative answer
 * walks into the call) */
static int level_tags[2];
static int tag_count(void *ctx, struct expr *arg, const char *agg, struct expr *q)
{
        int *n = ctx;
        (void)agg;
        expr_free(arg);
        expr_free(q);
        return (*n)++;
}

static int level_cb(void *ctx, int slot, int tag)
{
        (void)ctx;
        if (tag >= 0)
                return level_tags[tag];
        return slot == 2 ? 3 : 0; /* "K" */
}

static void test_levels(void **state)
{
        (void)state;
        struct err err = {0};
        struct expr *e = expr_parse("a + K * AVG(b - AVG(a))", &loc, "m", &err);
        assert_non_null(e);
        assert_int_equal(expr_bind(e, resolve_abk, NULL, &err), 0);
        int ntags = 0;
        expr_tag_aggregates(e, tag_count, &ntags);
        assert_int_equal(ntags, 2); /* the inner call first: tag 0 */
        level_tags[0] = 7;
        level_tags[1] = 5;
        assert_int_equal(expr_level(e, level_cb, NULL), 5);
        level_tags[1] = 1;
        assert_int_equal(expr_level(e, level_cb, NULL), 3);
        level_tags[1] = -1; /* not known as tagged: its argument's level, the inner call's */
        assert_int_equal(expr_level(e, level_cb, NULL), 7);
        expr_free(e);
}

/* the first token of src */
static struct token first_token(const char *src)
{
        struct lexer lx;
        struct token t;
        lex_init(&lx, src);
        lex_next(&lx, &t);
        return t;
}

/* Every byte's class as <ctype.h> gives it in the C locale (lex.c decides ASCII itself):
 * inside a name, before a name (a space is skipped), and alone (an operator or a bad
 * character, "**" and "<=" taken whole). */
static void test_lexer_classes(void **state)
{
        (void)state;
        for (int c = 1; c < 256; c++) {
                char in[] = {'x', (char)c, 'y', '\0'}, lead[] = {(char)c, 'y', '\0'};
                struct token t = first_token(in);
                int word = isalnum(c) || c == '_';
                assert_int_equal(t.kind, T_NAME);
                assert_int_equal(t.len, word ? 3 : c == '.' ? 3 : 1);
                t = first_token(lead);
                if (isspace(c)) {
                        assert_int_equal(t.kind, T_NAME);
                        assert_int_equal(t.pos, 1);
                } else if (isalpha(c) || c == '_') {
                        assert_int_equal(t.kind, T_NAME);
                        assert_int_equal(t.len, 2);
                } else if (isdigit(c)) {
                        assert_int_equal(t.kind, T_BADNUM); /* "1y" */
                } else if (c == '$') {
                        assert_int_equal(t.kind, T_DOLLAR);
                } else {
                        assert_int_equal(t.pos, 0);
                        int op = c < 128 && strchr("*<>()[],@+-/%", c);
                        assert_int_equal(t.kind == T_BADCHAR, !op);
                }
        }
        static const struct {
                const char *src;
                enum tok_kind kind;
                size_t len;
        } ops[] = {{"**2", T_POW, 2}, {"*2", T_STAR, 1}, {"==2", T_EQ, 2}, {"=2", T_BADCHAR, 1},
                   {"!=2", T_NE, 2},  {"!2", T_BADCHAR, 1}, {"<=2", T_LE, 2}, {"<2", T_LT, 1},
                   {">=2", T_GE, 2},  {">2", T_GT, 1},      {"%2", T_PERCENT, 1}};
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
                struct token t = first_token(ops[i].src);
                assert_int_equal(t.kind, ops[i].kind);
                assert_int_equal(t.len, ops[i].len);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_instance_and_arena),
            cmocka_unit_test(test_levels),
            cmocka_unit_test(test_lexer_classes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
