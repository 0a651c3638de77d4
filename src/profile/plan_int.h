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

/* The builtin of that name, or NULL. */
const struct plan_src *plan_find_builtin(const struct plan_req *r, const char *name);

#endif
