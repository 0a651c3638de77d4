/* The formula evaluator's inside (eval.c binds and plans, stream.c runs): formulas are
 * bound to slots (counter columns, sysinfo scalars, built-ins) once, then evaluated chunk
 * by chunk of the selected dispatches, each feeding an accumulator that keeps what its
 * aggregates need (count, pairwise sum, min, max; every value only for median, quartiles
 * and standard deviation, in a temporary file when large). Aggregate calls inside formulas
 * get accumulators of their own and a pass before the formulas that use them. */
#ifndef PRISM_EVAL_INT_H
#define PRISM_EVAL_INT_H

#include <stdio.h>

#include "accvals.h"
#include "build.h"

/* rows evaluated at a time */
#define EVAL_CHUNK 8192

enum slot_kind { SK_COL, SK_SCALAR, SK_EXPR };

struct slot {
        enum slot_kind kind;
        int table;      /* SK_COL: 0 pmc_perf, 1 + i accumulate table i */
        int col;        /* SK_COL: its column there, -1 when missing */
        double s;       /* SK_SCALAR */
        struct expr *e; /* SK_EXPR: a clone bound in its table's context (owned) */
        int tainted;    /* a missing counter went into it */
        int level;      /* SK_EXPR: the passes its aggregate calls need before it */
};

/* numpy's pairwise summation, fed block by block */
struct pwacc {
        double *pend;   /* a block's values until it is whole (allocated when a chunk ends
                           inside a block) */
        size_t npend, leaf;
        double *stack;  /* the partial sums waiting for their pair (eval's pw_depth; in
                           eval's pw_stacks) */
        int sp;
};

struct acc {
        struct expr *e;    /* evaluated per chunk: a formula, or an aggregate call's argument */
        const char *table; /* the table its names resolve in (NULL: pmc_perf) */
        const char *agg;   /* an aggregate call's reduction (its tag is this index) */
        struct expr *q;    /* QUANTILE's q, or NULL */
        int inner;         /* an aggregate call inside a formula */
        int level, pass;   /* pass: the one over the rows that feeds it (1-based) */
        int missing, failed, scalar, need_vals;
        double sval;       /* the value when scalar */
        size_t m;          /* values that are not NaN */
        double mn, mx;
        struct pwacc pw;
        size_t vidx;       /* need_vals: its place among eval's vals */
        int have_r;        /* r holds median, q1, q3, std */
        double r[4];
};

/* a place of eval's accmap: the accumulator i of formula e read in table */
struct accslot {
        const struct expr *e; /* NULL: a free place */
        const char *table;
        int i;
};

/* a cell waiting for its accumulators: (a op b) reduced by agg */
struct pending {
        size_t table, row, col;
        int a, b;     /* accumulators; b only for pop (percent of peak) */
        char agg[8];
        int round;    /* decimals, -1 none */
        int pop;
};

struct eval {
        const struct workload *w;
        const struct arch *a;
        const struct analysis_opts *o;
        const size_t *sel;
        size_t n;
        struct analysis *an;  /* cells go to an->tables, or to single */
        struct rtable *single;
        /* slots */
        struct smap slotmap;
        struct slot *slots;
        size_t nslots, capslots;
        const char *table; /* the table names resolve in while binding */
        int depth;
        struct smap missing;
        int bind_missing;
        /* accumulators and the cells that read them */
        struct acc *accs;
        size_t naccs, capaccs;
        struct accslot *accmap;       /* (e, table) -> accumulator, open-addressed */
        size_t capaccmap;             /* a power of two, over twice naccs */
        struct pending *pend;
        size_t npend, cappend;
        struct expr **owned;
        size_t nowned, capowned;
        int owned_row; /* the row being planned reads formulas of its own (a template's) */
        /* per-channel templates' formulas parsed once (by their field's address; NULL
         * when the text does not parse with '@': then each instance is parsed) */
        struct smap tmplmap;
        struct expr **tmpls;
        size_t ntmpls, captmpls;
        /* the pairwise summation's blocks for n rows: lengths, and the additions after */
        size_t *leaf_len;
        unsigned char *leaf_comb;
        size_t nleaves, capleaves, pw_depth;
        double *pw_stacks; /* the accumulators' stacks, pw_depth + 1 sums each */
        /* every value of the accumulators that need them (nvacc of them), a block per
         * chunk of blk_n[chunk] rows */
        struct accvals vals;
        size_t nvacc;
        size_t *blk_n;
        size_t chunk; /* rows per chunk */
        struct {
                size_t s0, n; /* selected rows s0 ... s0 + n - 1 */
                long blk;     /* streamed: the spill block they are in, else -1 */
        } *chunks;
        size_t nchunks, capchunks;
};

/* stream.c: every formula bound (eval.c) */
int eval_run(struct eval *ev, struct err *err);
void eval_stream_free(struct eval *ev);

#endif
