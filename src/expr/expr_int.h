/* Private to src/expr/: the tokens of the lexer, the AST nodes of a parsed formula, and
 * the helpers the parser and the evaluator share. */
#ifndef PRISM_EXPR_INT_H
#define PRISM_EXPR_INT_H

#include "expr.h"

/* ---- lexer (lex.c) ---- */

enum tok_kind {
        T_END,
        T_NUM,    /* num holds the value */
        T_NAME,   /* an identifier that is not a keyword */
        T_DOLLAR, /* '$' followed by an identifier; the identifier starts at pos + 1 */
        T_LPAREN,
        T_RPAREN,
        T_LBRACK,
        T_RBRACK,
        T_COMMA,
        T_AT,
        T_PLUS,
        T_MINUS,
        T_STAR,
        T_POW,
        T_SLASH,
        T_PERCENT,
        T_EQ,
        T_NE,
        T_LT,
        T_LE,
        T_GT,
        T_GE,
        T_IF,
        T_ELSE,
        T_NONE,
        T_AND,
        T_OR,
        T_NOT,
        T_BADNUM,  /* "1e", "1.2.3", "12abc" */
        T_BADCHAR, /* anything else */
};

struct token {
        enum tok_kind kind;
        size_t pos, len; /* byte offset and length in the formula */
        double num;
};

struct lexer {
        const char *src;
        size_t pos;
};

void lex_init(struct lexer *lx, const char *src);
/* Scan the next token; never fails (bad input gives T_BADNUM or T_BADCHAR). */
void lex_next(struct lexer *lx, struct token *t);
/* "')'", "'foo'", "end of formula": how a message names a token. */
void lex_describe(const char *src, const struct token *t, char *buf, size_t size);

/* ---- AST ---- */

enum expr_kind {
        EK_NUM,  /* num */
        EK_NAME, /* name, dollar, slot */
        EK_UN,   /* op (EOP_NEG, EOP_NOT) of kids[0] */
        EK_BIN,  /* op of kids[0], kids[1] */
        EK_COND, /* kids[0] if kids[1] else kids[2] (source order) */
        EK_CALL, /* fn of kids[0..nkids-1] */
};

/* Element-wise operations; functions that are element-wise map onto these too. */
enum expr_op {
        EOP_ADD,
        EOP_SUB,
        EOP_MUL,
        EOP_DIV,
        EOP_MOD, /* floored, % and MOD() */
        EOP_POW,
        EOP_EQ,
        EOP_NE,
        EOP_LT,
        EOP_LE,
        EOP_GT,
        EOP_GE,
        EOP_AND,
        EOP_OR,
        EOP_MIN,   /* MIN(a, b) */
        EOP_MAX,   /* MAX(a, b) */
        EOP_ROUND, /* ROUND(x, n) */
        EOP_NEG,   /* unary */
        EOP_NOT,   /* unary */
        EOP_TRUNC, /* TO_INT(x), unary */
};

enum expr_fn {
        EF_AVG,
        EF_MEDIAN,
        EF_STD,
        EF_SUM,
        EF_QUANTILE,
        EF_MIN,  /* MIN(x): aggregate */
        EF_MAX,  /* MAX(x): aggregate */
        EF_MIN2, /* MIN(a, b): element-wise */
        EF_MAX2,
        EF_ROUND,
        EF_TO_INT,
        EF_MOD,
        EF_NOISE_CLAMP, /* NOISE_CLAMP(x, ref): x, negatives as 0 (rocprof-compute 3.5+) */
        EF_COUNT
};

#define EXPR_MAX_KIDS 3

struct expr_node {
        enum expr_kind kind;
        int op;        /* enum expr_op for EK_UN/EK_BIN, enum expr_fn for EK_CALL */
        int line, col; /* where the node is in the source file (1-based) */
        double num;
        char *name; /* EK_NAME: without '$', index kept ("CACHE_HIT[3]") */
        int dollar;
        int slot; /* -1 until bound */
        int nkids;
        struct expr_node *kids[EXPR_MAX_KIDS];
        int height; /* 1 + the tallest kid's; the parser refuses more than MAX_HEIGHT */
        int agg_tag; /* an aggregate call's tag (expr_tag_aggregates), -1 when none */
};

/* An expression is one allocation (expr_pack): this struct, then its nodes, then its texts
 * (file, what, the names); expr_free frees that block (or, when it is in an arena, leaves it
 * to the arena). A view (expr_tag_aggregates) is a
 * struct alone, its root and texts those of the expression it is a part of. */
struct expr {
        struct expr_node *root;
        char *file; /* may be NULL */
        char *what; /* may be NULL */
        int view;   /* root belongs to another expression (expr_tag_aggregates) */
        int in_arena; /* the block is in an arena (expr_parse_in): expr_free leaves it */
};

/* The '@' marks of a per-channel template row's text (expr_instance): where each is (line,
 * col) and the number that replaces them. */
struct at_marks {
        int *line, *col;
        size_t n;
        char num[24];
        size_t nlen;
};

/* root's tree copied into one block (from ar, or malloc'd when NULL) with file and what
 * (either may be NULL); with at, as
 * the instance for at's number: "[@]" in names read as "[number]" and every column after an
 * '@' on its line moved as the wider number moves the text (expr_walk.c) */
struct expr *expr_pack(const struct expr_node *root, const char *file, const char *what,
                       const struct at_marks *at, struct arena *ar);

/* out[i] = a[i] op b[i] for + - * / and the comparisons (1.0 or 0.0; expr_vec.c), a
 * stride of 0 broadcasting a scalar; out may be a or b. */
void expr_arith(int op, const double *pa, size_t sa, const double *pb, size_t sb, double *out,
                size_t n);
/* numpy's pairwise sum of n <= 128 values (one block: 8 accumulators from 8 on), NaN as 0 */
double expr_pw_block(const double *v, size_t n);

/* n's text as expr_to_string writes it (fully parenthesised, parses back to n) */
void expr_node_string(struct strbuf *sb, const struct expr_node *n);

/* A function's source name ("MIN" for EF_MIN and EF_MIN2). */
const char *expr_fn_name(int fn);
/* 1 if fn reduces a column to one value. */
int expr_fn_is_aggregate(int fn);

/* Fill err with "file:line:col: <fmt> in 'what'" for node n of e; returns code. */
int expr_node_err(const struct expr *e, const struct expr_node *n, struct err *err, int code,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
