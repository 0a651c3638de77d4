/* Evaluation in passes (expr.h): tagging a formula's aggregate calls, and the pass a formula
 * needs. */
#include <stdlib.h>

#include "expr_int.h"

static struct expr *view(const struct expr *e, struct expr_node *root)
{
        struct expr *v = xmalloc(sizeof *v);
        v->root = root;
        v->file = e->file; /* e's: a view lives no longer than e (its root is e's) */
        v->what = e->what;
        v->view = 1;
        v->in_arena = 0;
        return v;
}

static const char *agg_name(int fn)
{
        switch (fn) {
        case EF_AVG:
                return "avg";
        case EF_MEDIAN:
                return "median";
        case EF_STD:
                return "std";
        case EF_SUM:
                return "sum";
        case EF_QUANTILE:
                return "quantile";
        case EF_MIN:
                return "min";
        case EF_MAX:
                return "max";
        default:
                return NULL;
        }
}

static void tag_node(const struct expr *e, struct expr_node *n, expr_agg_fn fn, void *ctx)
{
        for (int i = 0; i < n->nkids; i++)
                tag_node(e, n->kids[i], fn, ctx);
        n->agg_tag = -1;
        if (n->kind != EK_CALL || !expr_fn_is_aggregate(n->op) || n->nkids < 1)
                return;
        struct expr *arg = view(e, n->kids[0]);
        struct expr *q = n->op == EF_QUANTILE && n->nkids > 1 ? view(e, n->kids[1]) : NULL;
        n->agg_tag = fn(ctx, arg, agg_name(n->op), q);
}

void expr_tag_aggregates(struct expr *e, expr_agg_fn fn, void *ctx)
{
        if (e && fn)
                tag_node(e, e->root, fn, ctx);
}

static int node_level(const struct expr_node *n, expr_level_fn level, void *ctx)
{
        if (n->kind == EK_CALL && n->agg_tag >= 0) {
                int t = level(ctx, -1, n->agg_tag);
                if (t >= 0)
                        return t;
        }
        int l = 0;
        if (n->kind == EK_NAME && n->slot >= 0)
                l = level(ctx, n->slot, -1);
        for (int i = 0; i < n->nkids; i++) {
                int k = node_level(n->kids[i], level, ctx);
                if (k > l)
                        l = k;
        }
        return l;
}

int expr_level(const struct expr *e, expr_level_fn level, void *ctx)
{
        return e ? node_level(e->root, level, ctx) : 0;
}

static void node_slots(const struct expr_node *n, unsigned char *used, size_t nslots)
{
        if (n->kind == EK_CALL && n->agg_tag >= 0 && expr_fn_is_aggregate(n->op))
                return; /* its value comes from its accumulator */
        if (n->kind == EK_NAME && n->slot >= 0 && (size_t)n->slot < nslots)
                used[n->slot] = used[n->slot] ? used[n->slot] : 1;
        for (int i = 0; i < n->nkids; i++)
                node_slots(n->kids[i], used, nslots);
}

void expr_slots_read(const struct expr *e, unsigned char *used, size_t nslots)
{
        if (e)
                node_slots(e->root, used, nslots);
}

static void node_slots_each(const struct expr_node *n, void (*fn)(void *ctx, int slot),
                            void *ctx)
{
        if (n->kind == EK_CALL && n->agg_tag >= 0 && expr_fn_is_aggregate(n->op))
                return; /* its value comes from its accumulator */
        if (n->kind == EK_NAME && n->slot >= 0)
                fn(ctx, n->slot);
        for (int i = 0; i < n->nkids; i++)
                node_slots_each(n->kids[i], fn, ctx);
}

void expr_slots_each(const struct expr *e, void (*fn)(void *ctx, int slot), void *ctx)
{
        if (e)
                node_slots_each(e->root, fn, ctx);
}
