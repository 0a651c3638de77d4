/* Findings rules as data: rules/<family>.yaml files with inheritance (a shared base, then
 * per-family files that add, change or switch off rules), resolved for one architecture.
 * Format and semantics: docs/RULES.md. */
#ifndef PRISM_RULES_H
#define PRISM_RULES_H

#include "../arch/arch.h"

/* a formula of a rules file */
struct rule_expr {
        char *src;
        struct expr *expr;
        struct expr_loc loc;
};

/* a test case of a rule: inputs by name (unnamed ones are n/a) */
struct rule_case {
        char **names;
        double *vals;
        size_t n, cap;
};

struct rule {
        char *id;       /* "mem.hbm_bandwidth" */
        char *title;    /* "HBM bandwidth bound" */
        char *severity; /* high, medium, low */
        char *level;    /* memory level or unit it names (HBM, L2, ...); NULL */
        char *model;    /* how gain is estimated, in words */
        char *message;  /* template: {name}, {name:.1f}, {2.1.22:.0f} */
        char *hint;
        struct rule_expr when, gain; /* condition; estimated speedup (speedup:, in percent of
                                      * the kernel's time that removing the cause saves) */
        char **evidence; size_t nevidence; /* metric keys */
        char **unless; size_t nunless;     /* rule ids that, when they fire, silence this one */
        char **explains; size_t nexplains; /* rule ids (symptoms) this cause explains: when
                                            * both fire, this one is listed first */
        struct rule_case fires, silent;    /* unit-test inputs: it fires / it stays silent */
        int off;
};

/* a named value computed per kernel before the rules, in file order */
struct rule_value {
        char *name;
        struct rule_expr e;
};

/* a roofline ceiling: the kernel's use of it in percent */
struct rule_ceiling {
        char *id, *name;
        struct rule_expr util;
        int required; /* n/a here: no classification at all */
        char **evidence; size_t nevidence;
};

struct ruleset {
        char *chain; /* "cdna < base" for messages */
        char **files; size_t nfiles; /* leaf first; owned paths (expr locations point here) */
        long top_kernels;            /* kernels given findings (default 10) */
        char *norm;                  /* normalization the values are read under; NULL:
                                      * the analysis's own (-n) */
        struct rule *rules; size_t nrules;
        struct rule_value *values; size_t nvalues;
        struct rule_ceiling *ceilings; size_t nceilings;
        /* the family's words for the base's (terms:), applied to titles, messages, hints
         * and ceiling names once the chain is merged; in file order, root first */
        char **term_from, **term_to; size_t nterms;
        int cases; /* the rules' fires/silent inputs kept (else only checked) */
};

/* Load the rules for architecture a from dir: the file whose family is the first of a's
 * metric-family chain that has one (leaf first), else the family "base", with its
 * inherits: chain. Formula errors carry file:line:col. The rules' unit-test inputs
 * (fires:, silent:) are checked as read, and kept when cases is 1 (an analysis reads them
 * nowhere: about 40% of loading them, kept). */
int rules_load(const char *dir, const struct arch *a, int cases, struct ruleset *rs,
               struct err *err);
/* Load one rules family by name, the unit-test inputs kept (tests, check-data). */
int rules_load_family(const char *dir, const char *family, struct ruleset *rs,
                      struct err *err);
void rules_free(struct ruleset *rs);

/* Replace the words of rs->term_from by rs->term_to in titles, messages, hints, models
 * and ceiling names (the loader does this once the chain is merged). */
void rules_apply_terms(struct ruleset *rs);

/* Every name the formulas and message templates of rs use (values, metric keys with an
 * optional .peak/.pop suffix, kernel.*), once each, in first-use order. Templates' numeric
 * ids ("2.1.22") are not names and are left out. */
void rules_names(const struct ruleset *rs, void (*fn)(void *ctx, const char *name), void *ctx);

/* The next {name} or {name:fmt} of a message template at or after p ("{{" is a literal
 * brace): *name gets the name (malloc'd); returns the position after it, NULL when none. */
const char *rules_placeholder(const char *p, char **name);

/* The metric key a rule name refers to ("sol.l2_cache_bw.pop" -> "sol.l2_cache_bw"), or
 * NULL when it names no metric of a. suffix gets "", "peak" or "pop". */
const struct metric *rules_name_metric(const struct arch *a, const char *name,
                                       const char **suffix);

#endif
