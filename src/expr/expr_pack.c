/* expr_pack and expr_clone: an expression as one allocation (the struct, its nodes, its
 * texts), copied from a parse tree. */
#include "expr_int.h"

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
