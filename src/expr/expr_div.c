/* The divisions of a formula and the names on either side of each: what the pass planner
 * needs to keep a ratio's parts in one run. */
#include "expr_int.h"

struct div_walk {
        expr_div_fn fn;
        void *ctx;
        int next; /* the next division's number */
};

static void side_names(const struct expr_node *n, struct div_walk *w, int k, int side)
{
        if (n->kind == EK_NAME)
                w->fn(w->ctx, k, side, n->name, n->dollar);
        for (int i = 0; i < n->nkids; i++)
                side_names(n->kids[i], w, k, side);
}

/* Pre-order: a division is numbered before the divisions inside its operands. The test of
 * a conditional (`A if X != 0 else B`) only guards, so its divisions still count. */
static void walk(const struct expr_node *n, struct div_walk *w)
{
        if (n->kind == EK_BIN && n->op == EOP_DIV) {
                int k = w->next++;
                side_names(n->kids[0], w, k, 0);
                side_names(n->kids[1], w, k, 1);
        }
        for (int i = 0; i < n->nkids; i++)
                walk(n->kids[i], w);
}

int expr_div_names(const struct expr *e, expr_div_fn fn, void *ctx)
{
        struct div_walk w = {fn, ctx, 0};
        if (e && e->root && fn)
                walk(e->root, &w);
        return w.next;
}
