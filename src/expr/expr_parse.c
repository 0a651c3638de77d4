/* The parser of the metric expression language (recursive descent, Python precedence) and
 * expr_free. The walks that compute nothing are in expr_walk.c, the numbers in expr_eval.c. */
#include "expr_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/arena.h"

/* Deeper nesting than this is refused rather than risking the C stack. */
#define MAX_DEPTH 200
/* A taller AST is refused too: MAX_DEPTH bounds the parser's recursion, but a chain of
 * operators ("a + a + ... + a") builds a tree as tall as it is long, and every walk
 * (free, eval, to_string) recurses on it; 200,000 terms overflowed the stack (found by
 * fuzz_expr). The longest formula in metrics/ is about 200 operators tall. */
#define MAX_HEIGHT 1000

struct func_def {
        const char *name;
        int fn;       /* with one argument */
        int fn2;      /* with two arguments (MIN and MAX: with two or more, folded in pairs) */
        int min, max; /* argument counts */
};

/* MIN and MAX of two or more arguments are element-wise: MAX(a, b, c, d) is built as
 * MAX(MAX(a, b), MAX(c, d)), so the parse tree stays shallow for long lists */
enum { VARIADIC = EXPR_MAX_KIDS * 64 };

/* TO_INT_ALL(x): no node of its own, written out at parse time (to_int_all) */
enum { FN_TO_INT_ALL = -2 };

static const struct func_def funcs[] = {
    {"AVG", EF_AVG, EF_AVG, 1, 1},
    {"MEDIAN", EF_MEDIAN, EF_MEDIAN, 1, 1},
    {"STD", EF_STD, EF_STD, 1, 1},
    {"SUM", EF_SUM, EF_SUM, 1, 1},
    {"QUANTILE", EF_QUANTILE, EF_QUANTILE, 2, 2},
    {"MIN", EF_MIN, EF_MIN2, 1, VARIADIC},
    {"MAX", EF_MAX, EF_MAX2, 1, VARIADIC},
    {"ROUND", EF_ROUND, EF_ROUND, 1, 2},
    {"TO_INT", EF_TO_INT, EF_TO_INT, 1, 1},
    {"MOD", EF_MOD, EF_MOD, 2, 2},
    {"NOISE_CLAMP", EF_NOISE_CLAMP, EF_NOISE_CLAMP, 2, 2},
    {"TO_INT_ALL", FN_TO_INT_ALL, FN_TO_INT_ALL, 1, 1},
};

static const char *const fn_names[EF_COUNT] = {
    [EF_AVG] = "AVG",           [EF_MEDIAN] = "MEDIAN", [EF_STD] = "STD",       [EF_SUM] = "SUM",
    [EF_QUANTILE] = "QUANTILE", [EF_MIN] = "MIN",       [EF_MAX] = "MAX",       [EF_MIN2] = "MIN",
    [EF_MAX2] = "MAX",          [EF_ROUND] = "ROUND",   [EF_TO_INT] = "TO_INT", [EF_MOD] = "MOD",
    [EF_NOISE_CLAMP] = "NOISE_CLAMP",
};

const char *expr_fn_name(int fn)
{
        return fn >= 0 && fn < EF_COUNT ? fn_names[fn] : "?";
}

int expr_fn_is_aggregate(int fn)
{
        switch (fn) {
        case EF_AVG:
        case EF_MEDIAN:
        case EF_STD:
        case EF_SUM:
        case EF_QUANTILE:
        case EF_MIN:
        case EF_MAX:
                return 1;
        default:
                return 0;
        }
}

/* ---- messages ---- */

static int loc_err(struct err *err, int code, const char *file, const char *what, int line, int col,
                   const char *msg)
{
        return err_set(err, code, "%s%s%d:%d: %s%s%s%s", file ? file : "", file ? ":" : "", line,
                       col, msg, what ? " in '" : "", what ? what : "", what ? "'" : "");
}

int expr_node_err(const struct expr *e, const struct expr_node *n, struct err *err, int code,
                  const char *fmt, ...)
{
        char msg[sizeof err->msg];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        return loc_err(err, code, e->file, e->what, n->line, n->col, msg);
}

/* ---- parser ---- */

struct parser {
        struct lexer lx;
        struct token tok; /* the lookahead */
        const char *src;
        const char *file, *what;
        int line0, col0;
        /* offsets of the formula's newlines, for line:col (see linecol) */
        size_t *nl, nnl, len;
        int depth;
        int failed;
        struct err *err;
        /* the nodes and names while parsing (dropped whole, also on a failed parse; the
         * expression is a packed copy, expr_pack) */
        struct arena ar;
};

/* Byte offset in the formula -> line:col in the file. A newline in the formula moves to
 * the next line, whose column restarts at 1 (YAML indentation is not known here).
 * A binary search in the newline offsets: nodes ask for positions out of order (an
 * operator node for its left operand's start), and rescanning the formula from its
 * start for each gave quadratic time on long formulas (found by fuzz_expr). */
static void linecol(struct parser *p, size_t pos, int *line, int *col)
{
        size_t lo = 0, hi = p->nnl;

        if (pos > p->len)
                pos = p->len;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (p->nl[mid] < pos)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *line = p->line0 + (int)lo;
        *col = lo ? (int)(pos - p->nl[lo - 1]) : p->col0 + (int)pos;
}

static void *perr(struct parser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void *perr(struct parser *p, size_t pos, const char *fmt, ...)
{
        char msg[512];
        va_list ap;
        int line, col;

        if (p->failed)
                return NULL;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        linecol(p, pos, &line, &col);
        loc_err(p->err, ERR_INPUT, p->file, p->what, line, col, msg);
        p->failed = 1;
        return NULL;
}

static void *unexpected(struct parser *p)
{
        char what[64];

        lex_describe(p->src, &p->tok, what, sizeof what);
        if (p->tok.kind == T_BADNUM)
                return perr(p, p->tok.pos, "invalid number %s", what);
        if (p->tok.kind == T_BADCHAR)
                return perr(p, p->tok.pos, "unexpected character %s", what);
        return perr(p, p->tok.pos, "unexpected %s", what);
}

static void advance(struct parser *p)
{
        lex_next(&p->lx, &p->tok);
}

static int enter(struct parser *p)
{
        if (++p->depth > MAX_DEPTH) {
                perr(p, p->tok.pos, "formula nested too deeply");
                return -1;
        }
        return 0;
}

static struct expr_node *node_new(struct parser *p, enum expr_kind kind, size_t pos)
{
        struct expr_node *n = arena_alloc(&p->ar, sizeof *n);

        *n = (struct expr_node){.kind = kind, .slot = -1, .agg_tag = -1, .height = 1};
        linecol(p, pos, &n->line, &n->col);
        return n;
}

/* Set n's height from its kids'; past MAX_HEIGHT fail the parse and return -1. */
static int node_height(struct parser *p, struct expr_node *n, size_t pos)
{
        int i;

        n->height = 1;
        for (i = 0; i < n->nkids; i++)
                if (n->kids[i]->height + 1 > n->height)
                        n->height = n->kids[i]->height + 1;
        if (n->height > MAX_HEIGHT) {
                perr(p, pos, "formula nested too deeply");
                return -1;
        }
        return 0;
}

/* A node with kids; NULL when one is missing (a failed parse). */
static struct expr_node *node_op(struct parser *p, enum expr_kind kind, int op, size_t pos, int nk,
                                 struct expr_node *a, struct expr_node *b, struct expr_node *c)
{
        struct expr_node *n;

        if (!a || (nk >= 2 && !b) || (nk >= 3 && !c) || p->failed)
                return NULL;
        n = node_new(p, kind, pos);
        n->op = op;
        n->nkids = nk;
        n->kids[0] = a;
        n->kids[1] = b;
        n->kids[2] = c;
        return node_height(p, n, pos) ? NULL : n;
}

static struct expr_node *parse_test(struct parser *p);
static struct expr_node *parse_factor(struct parser *p);

/* NAME '[' (digits | '@') ']': the index becomes part of the name. */
static char *parse_index(struct parser *p, const char *base, size_t blen)
{
        struct token idx;
        char *name;

        advance(p); /* '[' */
        idx = p->tok;
        if (idx.kind == T_NUM) {
                size_t i;
                for (i = 0; i < idx.len; i++)
                        if (p->src[idx.pos + i] < '0' || p->src[idx.pos + i] > '9')
                                return perr(p, idx.pos, "index must be an integer or '@'");
        } else if (idx.kind != T_AT) {
                return unexpected(p);
        }
        advance(p);
        if (p->tok.kind != T_RBRACK)
                return unexpected(p);
        advance(p);
        name = arena_alloc(&p->ar, blen + idx.len + 3);
        memcpy(name, base, blen);
        name[blen] = '[';
        memcpy(name + blen + 1, p->src + idx.pos, idx.len);
        name[blen + 1 + idx.len] = ']';
        name[blen + idx.len + 2] = '\0';
        return name;
}

static struct expr_node *node_copy(struct parser *p, const struct expr_node *n)
{
        struct expr_node *c = arena_alloc(&p->ar, sizeof *c);
        *c = *n; /* the name's text is the parser's, kept until the formula is packed */
        for (int i = 0; i < n->nkids; i++)
                c->kids[i] = node_copy(p, n->kids[i]);
        return c;
}

/* TO_INT_ALL(x): TO_INT(x) if MAX(MOD(x, 1)) == 0 else None. Every selected dispatch's x
 * truncated where all of them are integers; otherwise n/a for every one of them: what
 * rocprof-compute 3.0-3.3's TO_INT does to a column (pandas' astype("Int64") refuses a
 * column holding a fraction, and the cell is left empty). n/a values are skipped. */
static struct expr_node *to_int_all(struct parser *p, struct expr_node *x, size_t pos)
{
        struct expr_node *ti = node_new(p, EK_CALL, pos), *mod = node_new(p, EK_CALL, pos),
                         *one = node_new(p, EK_NUM, pos), *mx = node_new(p, EK_CALL, pos),
                         *zero = node_new(p, EK_NUM, pos), *eq = node_new(p, EK_BIN, pos),
                         *none = node_new(p, EK_NUM, pos), *c = node_new(p, EK_COND, pos);
        ti->op = EF_TO_INT, ti->nkids = 1, ti->kids[0] = x;
        one->num = 1;
        mod->op = EF_MOD, mod->nkids = 2, mod->kids[0] = node_copy(p, x), mod->kids[1] = one;
        mx->op = EF_MAX, mx->nkids = 1, mx->kids[0] = mod;
        zero->num = 0;
        eq->op = EOP_EQ, eq->nkids = 2, eq->kids[0] = mx, eq->kids[1] = zero;
        none->num = NAN;
        c->nkids = 3, c->kids[0] = ti, c->kids[1] = eq, c->kids[2] = none;
        struct expr_node *order[] = {ti, mod, mx, eq, c};
        for (size_t i = 0; i < sizeof order / sizeof *order; i++)
                if (node_height(p, order[i], pos))
                        return NULL;
        return c;
}

static struct expr_node *parse_call(struct parser *p, const struct token *ft)
{
        const struct func_def *f = NULL;
        struct expr_node **args = NULL, *n = NULL;
        size_t nargs = 0, cap = 0, k;

        for (k = 0; k < sizeof funcs / sizeof funcs[0]; k++)
                if (strlen(funcs[k].name) == ft->len &&
                    !memcmp(funcs[k].name, p->src + ft->pos, ft->len))
                        f = &funcs[k];
        if (!f)
                return perr(p, ft->pos, "unknown function '%.*s'", (int)ft->len, p->src + ft->pos);
        advance(p); /* '(' */
        while (p->tok.kind != T_RPAREN) {
                struct expr_node *a = parse_test(p);
                if (!a)
                        goto out;
                xgrow(&args, &cap, nargs + 1, sizeof *args);
                args[nargs++] = a;
                if (p->tok.kind == T_COMMA)
                        advance(p);
                else if (p->tok.kind != T_RPAREN) {
                        unexpected(p);
                        goto out;
                }
        }
        advance(p); /* ')' */
        if (nargs < (size_t)f->min || nargs > (size_t)f->max) {
                if (f->max == VARIADIC)
                        perr(p, ft->pos, "'%s' takes at least %d argument%s, got %zu", f->name,
                             f->min, f->min == 1 ? "" : "s", nargs);
                else if (f->min == f->max)
                        perr(p, ft->pos, "'%s' takes %d argument%s, got %zu", f->name, f->min,
                             f->min == 1 ? "" : "s", nargs);
                else
                        perr(p, ft->pos, "'%s' takes %d or %d arguments, got %zu", f->name, f->min,
                             f->max, nargs);
                goto out;
        }
        if (nargs > 2) {
                /* fold pairs in place until one node is left */
                while (nargs > 1) {
                        size_t w = 0;
                        for (k = 0; k + 1 < nargs; k += 2) {
                                struct expr_node *m = node_new(p, EK_CALL, ft->pos);
                                m->op = f->fn2;
                                m->nkids = 2;
                                m->kids[0] = args[k];
                                m->kids[1] = args[k + 1];
                                if (node_height(p, m, ft->pos))
                                        goto out;
                                args[w++] = m;
                        }
                        if (k < nargs)
                                args[w++] = args[k];
                        nargs = w;
                }
                n = args[0];
                goto out;
        }
        if (f->fn == FN_TO_INT_ALL) {
                n = to_int_all(p, args[0], ft->pos);
                goto out;
        }
        n = node_new(p, EK_CALL, ft->pos);
        n->op = nargs == 1 ? f->fn : f->fn2;
        n->nkids = (int)nargs;
        for (k = 0; k < nargs; k++)
                n->kids[k] = args[k];
        if (node_height(p, n, ft->pos))
                n = NULL;
out:
        free(args);
        return n;
}

static struct expr_node *parse_atom(struct parser *p)
{
        struct token t = p->tok;
        struct expr_node *n;
        char *name;

        switch (t.kind) {
        case T_NUM:
        case T_NONE:
                n = node_new(p, EK_NUM, t.pos);
                n->num = t.kind == T_NUM ? t.num : NAN;
                advance(p);
                return n;
        case T_LPAREN:
                advance(p);
                n = parse_test(p);
                if (!n)
                        return NULL;
                if (p->tok.kind != T_RPAREN)
                        return unexpected(p);
                advance(p);
                return n;
        case T_NAME:
        case T_DOLLAR:
                advance(p);
                if (t.kind == T_NAME && p->tok.kind == T_LPAREN)
                        return parse_call(p, &t);
                {
                        const char *base = p->src + t.pos + (t.kind == T_DOLLAR);
                        size_t blen = t.len - (t.kind == T_DOLLAR);
                        if (p->tok.kind == T_LBRACK)
                                name = parse_index(p, base, blen);
                        else
                                name = arena_strndup(&p->ar, base, blen);
                }
                if (!name)
                        return NULL;
                n = node_new(p, EK_NAME, t.pos);
                n->name = name;
                n->dollar = t.kind == T_DOLLAR;
                return n;
        default:
                return unexpected(p);
        }
}

/* power := atom ['**' factor]  (right-assoc, binds tighter than unary minus on its left) */
static struct expr_node *parse_power(struct parser *p)
{
        struct expr_node *a = parse_atom(p);
        size_t pos;

        if (!a || p->tok.kind != T_POW)
                return a;
        pos = p->tok.pos;
        advance(p);
        return node_op(p, EK_BIN, EOP_POW, pos, 2, a, parse_factor(p), NULL);
}

/* factor := ('-' | '+') factor | power */
static struct expr_node *parse_factor(struct parser *p)
{
        struct expr_node *n;
        size_t pos = p->tok.pos;

        if (enter(p))
                return NULL;
        if (p->tok.kind == T_MINUS) {
                advance(p);
                n = node_op(p, EK_UN, EOP_NEG, pos, 1, parse_factor(p), NULL, NULL);
        } else if (p->tok.kind == T_PLUS) {
                advance(p);
                n = parse_factor(p);
        } else {
                n = parse_power(p);
        }
        p->depth--;
        return n;
}

static struct expr_node *parse_term(struct parser *p)
{
        struct expr_node *n = parse_factor(p);

        while (n) {
                int op;
                size_t pos = p->tok.pos;
                switch (p->tok.kind) {
                case T_STAR:
                        op = EOP_MUL;
                        break;
                case T_SLASH:
                        op = EOP_DIV;
                        break;
                case T_PERCENT:
                        op = EOP_MOD;
                        break;
                default:
                        return n;
                }
                advance(p);
                n = node_op(p, EK_BIN, op, pos, 2, n, parse_factor(p), NULL);
        }
        return n;
}

static struct expr_node *parse_arith(struct parser *p)
{
        struct expr_node *n = parse_term(p);

        while (n && (p->tok.kind == T_PLUS || p->tok.kind == T_MINUS)) {
                int op = p->tok.kind == T_PLUS ? EOP_ADD : EOP_SUB;
                size_t pos = p->tok.pos;
                advance(p);
                n = node_op(p, EK_BIN, op, pos, 2, n, parse_term(p), NULL);
        }
        return n;
}

static int cmp_op(enum tok_kind k)
{
        switch (k) {
        case T_EQ:
                return EOP_EQ;
        case T_NE:
                return EOP_NE;
        case T_LT:
                return EOP_LT;
        case T_LE:
                return EOP_LE;
        case T_GT:
                return EOP_GT;
        case T_GE:
                return EOP_GE;
        default:
                return -1;
        }
}

/* cmp := arith [cmpop arith]. Python chains a < b < c into (a < b and b < c); the
 * reference tool cannot evaluate that on columns, so it is refused here. */
static struct expr_node *parse_cmp(struct parser *p)
{
        struct expr_node *n = parse_arith(p);
        int op;
        size_t pos;

        if (!n || (op = cmp_op(p->tok.kind)) < 0)
                return n;
        pos = p->tok.pos;
        advance(p);
        n = node_op(p, EK_BIN, op, pos, 2, n, parse_arith(p), NULL);
        if (n && cmp_op(p->tok.kind) >= 0)
                return perr(p, p->tok.pos, "chained comparison is not supported");
        return n;
}

static struct expr_node *parse_not(struct parser *p)
{
        struct expr_node *n;
        size_t pos = p->tok.pos;

        if (p->tok.kind != T_NOT)
                return parse_cmp(p);
        if (enter(p))
                return NULL;
        advance(p);
        n = node_op(p, EK_UN, EOP_NOT, pos, 1, parse_not(p), NULL, NULL);
        p->depth--;
        return n;
}

/* operand {tok operand}, left-assoc, as op */
static struct expr_node *parse_chain(struct parser *p, enum tok_kind tok, int op,
                                     struct expr_node *(*operand)(struct parser *))
{
        struct expr_node *n = operand(p);

        while (n && p->tok.kind == tok) {
                size_t pos = p->tok.pos;
                advance(p);
                n = node_op(p, EK_BIN, op, pos, 2, n, operand(p), NULL);
        }
        return n;
}

static struct expr_node *parse_and(struct parser *p)
{
        return parse_chain(p, T_AND, EOP_AND, parse_not);
}

static struct expr_node *parse_or(struct parser *p)
{
        return parse_chain(p, T_OR, EOP_OR, parse_and);
}

/* test := or ['if' or 'else' test]  (lowest precedence, right-assoc) */
static struct expr_node *parse_test(struct parser *p)
{
        struct expr_node *body, *cond, *alt, *n = NULL;
        size_t pos;

        if (enter(p))
                return NULL;
        body = parse_or(p);
        if (!body || p->tok.kind != T_IF) {
                n = body;
                goto out;
        }
        pos = p->tok.pos;
        advance(p);
        cond = parse_or(p);
        if (cond && p->tok.kind != T_ELSE)
                unexpected(p);
        if (!cond || p->failed)
                goto out;
        advance(p);
        alt = parse_test(p);
        n = node_op(p, EK_COND, 0, pos, 3, body, cond, alt);
out:
        p->depth--;
        return n;
}

/* the parser's view of src at loc (for positions only) */
static void parser_at(struct parser *p, const char *src, const struct expr_loc *loc)
{
        memset(p, 0, sizeof *p);
        p->src = src ? src : "";
        p->file = loc ? loc->file : NULL;
        p->line0 = loc && loc->line > 0 ? loc->line : 1;
        p->col0 = loc && loc->col > 0 ? loc->col : 1;
        p->len = strlen(p->src);
        size_t cap = 0;
        for (const char *q = p->src; (q = memchr(q, '\n', p->len - (size_t)(q - p->src))); q++) {
                xgrow(&p->nl, &cap, p->nnl + 1, sizeof *p->nl);
                p->nl[p->nnl++] = (size_t)(q - p->src);
        }
}

struct expr *expr_parse(const char *src, const struct expr_loc *loc, const char *what,
                        struct err *err)
{
        return expr_parse_in(NULL, src, loc, what, err);
}

struct expr *expr_parse_in(struct arena *ar, const char *src, const struct expr_loc *loc,
                           const char *what, struct err *err)
{
        struct parser p;
        struct expr_node *root = NULL;
        struct expr *e = NULL;
        /* the scratch of all but the longest formulas (50 nodes), on the stack */
        union {
                max_align_t align;
                char b[4096];
        } scratch;

        parser_at(&p, src, loc);
        arena_init_buf(&p.ar, &scratch, sizeof scratch);
        p.what = what;
        p.err = err;
        lex_init(&p.lx, p.src);
        advance(&p);
        if (p.tok.kind == T_END) {
                perr(&p, p.tok.pos, "empty formula");
                goto out;
        }
        root = parse_test(&p);
        if (root && p.tok.kind != T_END)
                unexpected(&p);
        if (!root || p.failed)
                goto out;
        e = expr_pack(root, p.file, what, NULL, ar);
out:
        arena_free(&p.ar);
        free(p.nl);
        return e;
}

struct expr *expr_instance(const struct expr *tmpl, const char *src, const struct expr_loc *loc,
                           long i)
{
        struct parser p;
        struct at_marks at = {0};
        int lines[8], cols[8]; /* enough for the '@'s of most rows */
        parser_at(&p, src, loc);
        for (const char *q = p.src; (q = strchr(q, '@')); q++)
                at.n++;
        at.line = at.n <= 8 ? lines : xmalloc(at.n * sizeof *at.line);
        at.col = at.n <= 8 ? cols : xmalloc(at.n * sizeof *at.col);
        size_t j = 0;
        for (const char *q = p.src; (q = strchr(q, '@')); q++, j++)
                linecol(&p, (size_t)(q - p.src), &at.line[j], &at.col[j]);
        at.nlen = long_text(at.num, i);
        struct expr *e = expr_pack(tmpl->root, tmpl->file, tmpl->what, &at, NULL);
        if (at.line != lines) {
                free(at.line);
                free(at.col);
        }
        free(p.nl);
        return e;
}

/* one block, nodes and texts included (expr_pack); a view's too (expr_pass.c) */
void expr_free(struct expr *e)
{
        if (e && !e->in_arena)
                free(e);
}
