/* A formula's mean over dispatches as a ratio of sums (expr.h: expr_ratio_of_sums): how
 * rocprof-compute 3.7+ aggregates ratio metrics, SUM(A) / SUM(B) instead of AVG(A / B). */
#include <math.h>
#include <stdlib.h>

#include "expr_int.h"

struct ratio {
        expr_per_row_fn per_row;
        void *ctx;
};

/* 1 if n has the same value for every dispatch */
static int is_const(const struct ratio *r, const struct expr_node *n)
{
        if (n->kind == EK_NAME)
                return n->dollar && !r->per_row(r->ctx, n->name);
        if (n->kind == EK_CALL && expr_fn_is_aggregate(n->op))
                return 1;
        for (int i = 0; i < n->nkids; i++)
                if (!is_const(r, n->kids[i]))
                        return 0;
        return 1;
}

static void text(struct strbuf *sb, const struct expr_node *n)
{
        expr_node_string(sb, n);
}

/* the mean of n over dispatches into sb: 1 where a ratio of sums was written, 0 where n's
 * mean is plain (sb gets AVG(n) or n itself), -1 where no rule applies */
static int mean(const struct ratio *r, struct strbuf *sb, const struct expr_node *n)
{
        if (is_const(r, n)) {
                text(sb, n);
                return 0;
        }
        if (n->kind == EK_UN && n->op == EOP_NEG) {
                sb_add(sb, "(-");
                int k = mean(r, sb, n->kids[0]);
                sb_addc(sb, ')');
                return k;
        }
        /* X if C else None: X's mean (the guard only turned 0 / 0 into None) */
        if (n->kind == EK_COND && n->kids[2]->kind == EK_NUM && isnan(n->kids[2]->num))
                return mean(r, sb, n->kids[0]);
        if (n->kind == EK_BIN) {
                const struct expr_node *a = n->kids[0], *b = n->kids[1];
                int ca = is_const(r, a), cb = is_const(r, b);
                if (n->op == EOP_DIV && !cb) {
                        sb_add(sb, "(SUM(");
                        text(sb, a);
                        sb_add(sb, ") / SUM(");
                        text(sb, b);
                        sb_add(sb, "))");
                        return 1;
                }
                int linear = n->op == EOP_ADD || n->op == EOP_SUB || n->op == EOP_MUL ||
                             (n->op == EOP_DIV && cb);
                if (linear && (ca || cb)) {
                        sb_addc(sb, '(');
                        int k;
                        if (ca) {
                                text(sb, a);
                                sb_addf(sb, " %s ", n->op == EOP_ADD   ? "+"
                                                    : n->op == EOP_SUB ? "-"
                                                    : n->op == EOP_MUL ? "*"
                                                                       : "/");
                                k = mean(r, sb, b);
                        } else {
                                k = mean(r, sb, a);
                                sb_addf(sb, " %s ", n->op == EOP_ADD   ? "+"
                                                    : n->op == EOP_SUB ? "-"
                                                    : n->op == EOP_MUL ? "*"
                                                                       : "/");
                                text(sb, b);
                        }
                        sb_addc(sb, ')');
                        return k;
                }
        }
        /* no rule: a mean of its own where n divides by nothing per dispatch */
        struct strbuf t = {0};
        text(&t, n);
        int has_div = 0;
        /* a division left inside: no rule reaches it */
        for (const char *p = t.buf; p && *p; p++)
                has_div |= *p == '/';
        if (has_div) {
                sb_free(&t);
                return -1;
        }
        sb_add(sb, "AVG(");
        sb_add(sb, t.buf);
        sb_addc(sb, ')');
        sb_free(&t);
        return 0;
}

char *expr_ratio_of_sums(const struct expr *e, expr_per_row_fn per_row, void *ctx)
{
        if (!e || expr_has_aggregate(e))
                return NULL;
        struct ratio r = {per_row, ctx};
        struct strbuf sb = {0};
        if (mean(&r, &sb, e->root) != 1) {
                sb_free(&sb);
                return NULL;
        }
        return sb_detach(&sb);
}
