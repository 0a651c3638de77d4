/* Private to the planners (plan.c, plan_pack.c, plan_groups.c): what a request holds. */
#ifndef PRISM_PLAN_INT_H
#define PRISM_PLAN_INT_H

#include "plan.h"

enum src_kind { SRC_FORMULA, SRC_BUILTIN, SRC_NORM };

/* One division a / b of a formula: the names of a (side 0) and of b (side 1), as the
 * formula spells them ("$x" for builtins). */
struct plan_div {
        char **names[2];
        size_t n[2], cap[2];
};

struct plan_src {
        enum src_kind kind;
        char *name;    /* builtin name */
        char *table;   /* accumulate counter, or NULL */
        int aggregate; /* the formula reduces over dispatches (a builtin such as numActiveCUs) */
        char **names;
        size_t nnames, cap;
        struct plan_div *divs;
        size_t ndivs;
};

/* A deep copy of n counter definitions (plan.c). */
struct counter_def *plan_defs_copy(const struct counter_def *defs, size_t n);

/* Free a counter's names (plan.c). */
void plan_counter_clear(struct plan_counter *c);

/* Insert name (copied) into a sorted list of unique names; returns its position, *added
 * says whether it was new (plan.c). */
size_t plan_sorted_add(char ***v, size_t *n, size_t *cap, const char *name, int *added);
/* The formulas read hardware counter c under another name too (a family's alias). */
void plan_aka_add(struct plan_counter *c, const char *name, unsigned forms);
/* plan_classify under the request's counter definitions: 2 (and *slot) for a counter not
 * on this architecture; for an alias, *slot and *block are the hardware counter's and
 * *alias (malloc'd) the name asked for; else as plan_classify, *alias NULL. */
int plan_resolve(const struct plan_req *r, const char *name, char **slot, const char **block,
                 unsigned *forms, char **alias);

/* The builtin of that name, or NULL. */
const struct plan_src *plan_find_builtin(const struct plan_req *r, const char *name);

#endif
