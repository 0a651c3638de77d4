/* Walks of the AST that compute nothing: clone, names, bind, to_string, has_aggregate. */
#include "expr_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the nodes and text bytes of a packed copy */
static void pack_size(const struct expr_node *n, const struct at_marks *at, size_t *nodes,
                      size_t *bytes)
{
        ++*nodes;
        if (n->name)
                *bytes += strlen(n->name) + 1 + (at && strstr(n->name, "[@]") ? at->nlen - 1 : 0);
        for (int i = 0; i < n->nkids; i++)
                pack_size(n->kids[i], at, nodes, bytes);
}

struct packing {
        struct expr_node *node; /* the next free node */
        char *text;             /* the next free text byte */
        const struct at_marks *at;
};

static char *pack_text(struct packing *pk, const char *s)
{
        size_t n = strlen(s) + 1;
        char *t = memcpy(pk->text, s, n);
        pk->text += n;
        return t;
}

/* n's copy unbound and untagged: what the parser made, never the binding (slot) or the
 * aggregate tags, which another thread may be writing into n (analysis.c's halves) */
static struct expr_node *pack_node(const struct expr_node *n, struct packing *pk)
{
        struct expr_node *c = pk->node++;
        c->kind = n->kind;
        c->op = n->op;
        c->line = n->line;
        c->col = n->col;
        c->num = n->num;
        c->name = NULL;
        c->dollar = n->dollar;
        c->slot = -1;
        c->nkids = n->nkids;
        c->height = n->height;
        c->agg_tag = -1;
        for (int i = 0; i < EXPR_MAX_KIDS; i++)
                c->kids[i] = NULL;
        const struct at_marks *at = pk->at;
        const char *br = at && n->name ? strstr(n->name, "[@]") : NULL;
        if (at) {
                size_t before = 0;
                for (size_t k = 0; k < at->n; k++)
                        before += at->line[k] == n->line && at->col[k] < n->col;
                c->col += (int)(before * (at->nlen - 1));
        }
        if (br) {
                size_t b = (size_t)(br - n->name) + 1; /* through '[' */
                c->name = pk->text;
                memcpy(pk->text, n->name, b);
                memcpy(pk->text + b, at->num, at->nlen);
                memcpy(pk->text + b + at->nlen, br + 2, strlen(br + 2) + 1); /* "]..." */
                pk->text += strlen(c->name) + 1;
        } else if (n->name) {
                c->name = pack_text(pk, n->name);
        }
        for (int i = 0; i < n->nkids; i++)
                c->kids[i] = pack_node(n->kids[i], pk);
        return c;
}

struct expr *expr_pack(const struct expr_node *root, const char *file, const char *what,
                       const struct at_marks *at, struct arena *ar)
{
        size_t nodes = 0, bytes = (file ? strlen(file) + 1 : 0) + (what ? strlen(what) + 1 : 0);
        pack_size(root, at, &nodes, &bytes);
        size_t size = sizeof(struct expr) + nodes * sizeof(struct expr_node) + bytes;
        struct expr *e = ar ? arena_alloc(ar, size) : xmalloc(size);
        e->in_arena = ar != NULL;
        struct packing pk = {(struct expr_node *)(e + 1), NULL, at};
        pk.text = (char *)(pk.node + nodes);
        e->file = file ? pack_text(&pk, file) : NULL;
        e->what = what ? pack_text(&pk, what) : NULL;
        e->view = 0;
        e->root = pack_node(root, &pk);
        return e;
}

struct expr *expr_clone(const struct expr *e)
{
        return e ? expr_pack(e->root, e->file, e->what, NULL, NULL) : NULL;
}

/* Kids are stored in source order (the conditional's body, test, else), so a
 * depth-first walk visits names in source order. */
static void node_names(const struct expr_node *n, expr_name_fn fn, void *ctx)
{
        int i;

        if (n->kind == EK_NAME)
                fn(ctx, n->name, n->dollar);
        for (i = 0; i < n->nkids; i++)
                node_names(n->kids[i], fn, ctx);
}

void expr_names(const struct expr *e, expr_name_fn fn, void *ctx)
{
        if (e && fn)
                node_names(e->root, fn, ctx);
}

static int node_bind(const struct expr *e, struct expr_node *n, expr_resolve_fn resolve, void *ctx,
                     struct err *err)
{
        int i, rc;

        if (n->kind == EK_NAME) {
                struct err rerr; /* not zeroed whole: 1 KiB for every name bound */
                rerr.code = 0;
                rerr.msg[0] = 0;
                rc = resolve(ctx, n->name, n->dollar, &rerr);
                if (rc < 0) {
                        if (!rerr.msg[0])
                                snprintf(rerr.msg, sizeof rerr.msg, "unknown name '%s%s'",
                                         n->dollar ? "$" : "", n->name);
                        expr_node_err(e, n, err, rc, "%s", rerr.msg);
                        return rc;
                }
                n->slot = rc;
        }
        for (i = 0; i < n->nkids; i++) {
                rc = node_bind(e, n->kids[i], resolve, ctx, err);
                if (rc < 0)
                        return rc;
        }
        return 0;
}

int expr_bind(struct expr *e, expr_resolve_fn resolve, void *ctx, struct err *err)
{
        if (!e || !resolve)
                return err_set(err, ERR_USAGE, "expr_bind: no expression or resolver");
        return node_bind(e, e->root, resolve, ctx, err);
}

static const char *op_text(int op)
{
        switch (op) {
        case EOP_ADD:
                return "+";
        case EOP_SUB:
                return "-";
        case EOP_MUL:
                return "*";
        case EOP_DIV:
                return "/";
        case EOP_MOD:
                return "%";
        case EOP_POW:
                return "**";
        case EOP_EQ:
                return "==";
        case EOP_NE:
                return "!=";
        case EOP_LT:
                return "<";
        case EOP_LE:
                return "<=";
        case EOP_GT:
                return ">";
        case EOP_GE:
                return ">=";
        case EOP_AND:
                return "and";
        case EOP_OR:
                return "or";
        case EOP_NEG:
                return "-";
        case EOP_NOT:
                return "not ";
        default:
                return "?";
        }
}

/* Integers in full, others in the shortest %g form that reads back the same. */
static void add_number(struct strbuf *sb, double v)
{
        char buf[40];
        int prec;

        if (isnan(v)) {
                sb_add(sb, "None");
                return;
        }
        if (isinf(v)) {
                /* a literal too large for a double; this reads back as inf */
                sb_add(sb, v > 0 ? "1e999" : "-1e999");
                return;
        }
        if (v == floor(v) && fabs(v) < 1e15) {
                snprintf(buf, sizeof buf, "%.0f", v);
                sb_add(sb, buf);
                return;
        }
        for (prec = 1; prec <= 17; prec++) {
                snprintf(buf, sizeof buf, "%.*g", prec, v);
                if (strtod(buf, NULL) == v)
                        break;
        }
        sb_add(sb, buf);
}

static void node_string(struct strbuf *sb, const struct expr_node *n)
{
        int i;

        switch (n->kind) {
        case EK_NUM:
                add_number(sb, n->num);
                break;
        case EK_NAME:
                if (n->dollar)
                        sb_addc(sb, '$');
                sb_add(sb, n->name);
                break;
        case EK_UN:
                sb_addc(sb, '(');
                sb_add(sb, op_text(n->op));
                node_string(sb, n->kids[0]);
                sb_addc(sb, ')');
                break;
        case EK_BIN:
                sb_addc(sb, '(');
                node_string(sb, n->kids[0]);
                sb_addf(sb, " %s ", op_text(n->op));
                node_string(sb, n->kids[1]);
                sb_addc(sb, ')');
                break;
        case EK_COND:
                sb_addc(sb, '(');
                node_string(sb, n->kids[0]);
                sb_add(sb, " if ");
                node_string(sb, n->kids[1]);
                sb_add(sb, " else ");
                node_string(sb, n->kids[2]);
                sb_addc(sb, ')');
                break;
        case EK_CALL:
                sb_add(sb, expr_fn_name(n->op));
                sb_addc(sb, '(');
                for (i = 0; i < n->nkids; i++) {
                        if (i)
                                sb_add(sb, ", ");
                        node_string(sb, n->kids[i]);
                }
                sb_addc(sb, ')');
                break;
        }
}

void expr_node_string(struct strbuf *sb, const struct expr_node *n)
{
        node_string(sb, n);
}

char *expr_to_string(const struct expr *e)
{
        struct strbuf sb = {0};

        if (e)
                node_string(&sb, e->root);
        return sb_detach(&sb);
}

static int node_has_aggregate(const struct expr_node *n)
{
        int i;

        if (n->kind == EK_CALL && expr_fn_is_aggregate(n->op))
                return 1;
        for (i = 0; i < n->nkids; i++)
                if (node_has_aggregate(n->kids[i]))
                        return 1;
        return 0;
}

int expr_has_aggregate(const struct expr *e)
{
        return e ? node_has_aggregate(e->root) : 0;
}
