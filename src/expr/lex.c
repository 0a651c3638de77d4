/* The tokenizer of the metric expression language: Python-like numbers, names,
 * $built-ins, operators and the keywords if/else/None/and/or/not. */
#include "expr_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct keyword {
        const char *word;
        enum tok_kind kind;
};

static const struct keyword keywords[] = {
    {"if", T_IF}, {"else", T_ELSE}, {"None", T_NONE}, {"and", T_AND}, {"or", T_OR}, {"not", T_NOT},
};

void lex_init(struct lexer *lx, const char *src)
{
        lx->src = src;
        lx->pos = 0;
}

/* The character classes of <ctype.h>, ASCII decided here without a call into the C
 * library (the lexer's hottest tests); a byte from 0x80 up asks <ctype.h> as before, so a
 * locale that classes it (prism's TUI sets one) still decides. */
static inline int c_digit(unsigned char c)
{
        return (c >= '0' && c <= '9') || (c >= 0x80 && isdigit(c));
}

static inline int c_space(unsigned char c)
{
        return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x80 && isspace(c));
}

/* ASCII 64..127 as bits: 'A'-'Z', '_', 'a'-'z' */
#define WORD_HI 0x07FFFFFE87FFFFFEull
/* ASCII 0..63 as bits: '0'-'9' */
#define DIGITS_LO 0x03FF000000000000ull

static inline int is_ident_start(int c)
{
        unsigned char u = (unsigned char)c;
        if (u < 64)
                return 0;
        if (u < 128)
                return (int)(WORD_HI >> (u - 64) & 1);
        return isalpha(u) != 0;
}

static inline int is_ident(int c)
{
        unsigned char u = (unsigned char)c;
        if (u < 64)
                return (int)(DIGITS_LO >> u & 1);
        if (u < 128)
                return (int)(WORD_HI >> (u - 64) & 1);
        return isalnum(u) != 0;
}

static size_t scan_digits(const char *s, size_t i)
{
        while (c_digit((unsigned char)s[i]))
                i++;
        return i;
}

/* digits ['.' digits] [e [+-] digits], or '.' digits ...; at least one mantissa digit. */
static void scan_number(struct lexer *lx, struct token *t)
{
        const char *s = lx->src;
        size_t start = lx->pos, i = start, mant;
        char buf[128];
        int bad = 0;

        i = scan_digits(s, i);
        mant = i - start;
        if (s[i] == '.') {
                size_t j = scan_digits(s, i + 1);
                mant += j - (i + 1);
                i = j;
        }
        if (mant == 0)
                bad = 1;
        if (s[i] == 'e' || s[i] == 'E') {
                size_t j = i + 1, k;
                if (s[j] == '+' || s[j] == '-')
                        j++;
                k = scan_digits(s, j);
                if (k == j)
                        bad = 1;
                i = k;
        }
        /* "12abc", "1.2.3": Python rejects these as well */
        if (is_ident(s[i]) || s[i] == '.') {
                bad = 1;
                while (is_ident(s[i]) || s[i] == '.')
                        i++;
        }
        t->pos = start;
        t->len = i - start;
        lx->pos = i;
        if (bad || t->len >= sizeof buf) {
                t->kind = T_BADNUM;
                return;
        }
        t->kind = T_NUM;
        if (num_fast(s + start, t->len, &t->num))
                return;
        memcpy(buf, s + start, t->len);
        buf[t->len] = '\0';
        t->num = strtod(buf, NULL);
}

static void scan_word(struct lexer *lx, struct token *t)
{
        const char *s = lx->src;
        size_t i = lx->pos;
        size_t k;

        /* a dot inside a name joins its parts: NVIDIA metric names such as
         * unit__counter.sum are one counter */
        while (is_ident(s[i]) || (s[i] == '.' && is_ident_start(s[i + 1])))
                i++;
        t->kind = T_NAME;
        t->pos = lx->pos;
        t->len = i - lx->pos;
        lx->pos = i;
        for (k = 0; k < sizeof keywords / sizeof keywords[0]; k++) {
                const char *w = keywords[k].word;
                if (w[0] == s[t->pos] && !strncmp(w, s + t->pos, t->len) && !w[t->len]) {
                        t->kind = keywords[k].kind;
                        return;
                }
        }
}

struct punct {
        const char *text;
        enum tok_kind kind;
};

/* Longest first, so that "**" wins over "*" and "<=" over "<"; the entries of one first byte
 * together, where punct_at (below) finds them. */
static const struct punct puncts[] = {
    {"**", T_POW},    {"*", T_STAR},    {"==", T_EQ},     {"!=", T_NE},    {"<=", T_LE},
    {"<", T_LT},      {">=", T_GE},     {">", T_GT},      {"(", T_LPAREN}, {")", T_RPAREN},
    {"[", T_LBRACK},  {"]", T_RBRACK},  {",", T_COMMA},   {"@", T_AT},     {"+", T_PLUS},
    {"-", T_MINUS},   {"/", T_SLASH},   {"%", T_PERCENT},
};

/* 1 + the index in puncts of the first entry that starts with the byte; 0: none */
static const unsigned char punct_at[128] = {
    ['*'] = 1,  ['='] = 3,  ['!'] = 4,  ['<'] = 5,  ['>'] = 7,  ['('] = 9,
    [')'] = 10, ['['] = 11, [']'] = 12, [','] = 13, ['@'] = 14, ['+'] = 15,
    ['-'] = 16, ['/'] = 17, ['%'] = 18,
};

void lex_next(struct lexer *lx, struct token *t)
{
        const char *s = lx->src;
        size_t k;

        /* whitespace, newlines included: formulas span lines in YAML block scalars */
        while (s[lx->pos] && c_space((unsigned char)s[lx->pos]))
                lx->pos++;
        t->pos = lx->pos;
        t->len = 0;
        t->num = 0;
        if (!s[lx->pos]) {
                t->kind = T_END;
                return;
        }
        if (c_digit((unsigned char)s[lx->pos]) ||
            (s[lx->pos] == '.' && c_digit((unsigned char)s[lx->pos + 1]))) {
                scan_number(lx, t);
                return;
        }
        if (is_ident_start(s[lx->pos])) {
                scan_word(lx, t);
                return;
        }
        if (s[lx->pos] == '$' && is_ident_start(s[lx->pos + 1])) {
                size_t i = lx->pos + 1;
                while (is_ident(s[i]))
                        i++;
                t->kind = T_DOLLAR;
                t->len = i - lx->pos;
                lx->pos = i;
                return;
        }
        /* only the entries for this first byte */
        unsigned char c0 = (unsigned char)s[lx->pos];
        k = c0 < 0x80 && punct_at[c0] ? punct_at[c0] - 1u : sizeof puncts / sizeof puncts[0];
        for (; k < sizeof puncts / sizeof puncts[0]; k++) {
                const char *p = puncts[k].text;
                size_t n = p[1] ? 2 : 1;
                if (s[lx->pos] != p[0])
                        break;
                if (n == 1 || s[lx->pos + 1] == p[1]) {
                        t->kind = puncts[k].kind;
                        t->len = n;
                        lx->pos += n;
                        return;
                }
        }
        t->kind = T_BADCHAR;
        t->len = 1;
        lx->pos++;
}

void lex_describe(const char *src, const struct token *t, char *buf, size_t size)
{
        size_t len = t->len;

        if (t->kind == T_END) {
                snprintf(buf, size, "end of formula");
                return;
        }
        if (len > 40)
                len = 40;
        snprintf(buf, size, "'%.*s'", (int)len, src + t->pos);
}
