/* Walks of the AST that compute nothing: names, bind, to_string, has_aggregate. */
#include "expr_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
