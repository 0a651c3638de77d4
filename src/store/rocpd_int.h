/* rocpd.c and rocpd_build.c: rocpd's long rows as read, grouped into dispatches (rocpd.c
 * says how), and the wide table made of them. */
#ifndef PRISM_ROCPD_INT_H
#define PRISM_ROCPD_INT_H

#include "columns.h"
#include "formats.h"

#include <stddef.h>
#include <stdint.h>

enum {
        F_DISPATCH, F_GRID, F_WG, F_LDS, /* numeric grouping fields */
        F_KERNEL, F_START, F_END, F_NAME, F_VALUE,
        F_GPU, F_SCRATCH, F_AVGPR, F_ACCVGPR, F_SGPR, F_KID, /* first row's, optional */
        NF
};
#define NKEY 4
#define NREQ (F_VALUE + 1)
#define NFIXED (NF - F_GPU)
static const char *const field_name[NF] = {COL_DISPATCH_ID,
                                           COL_GRID_SIZE,
                                           COL_WORKGROUP_SIZE,
                                           COL_LDS_PER_WORKGROUP,
                                           COL_KERNEL_NAME,
                                           COL_START,
                                           COL_END,
                                           COL_COUNTER_NAME,
                                           COL_COUNTER_VALUE,
                                           COL_GPU_ID,
                                           COL_SCRATCH_PER_WORKITEM,
                                           COL_ARCH_VGPR,
                                           COL_ACCUM_VGPR,
                                           COL_SGPR,
                                           COL_KERNEL_ID};

#define MAX_WARN 5

/* where a value was given: the file's index in the high 16 bits, its line below */
#define VLINE(file, line) (((size_t)(file) << 48) | (size_t)(line))
#define VLINE_FILE(v) ((size_t)(v) >> 48)
#define VLINE_LINE(v) ((size_t)(v) & (((size_t)1 << 48) - 1))

struct ts {
        long long i; /* exact: the integer */
        double d;
        int exact;
};
#define ROCPD_MAX_FILL 16
#define ROCPD_MAX_SPARE ((size_t)1 << 22)

struct group {
        double key[NKEY];
        long long id; /* Dispatch_ID, exactly */
        char *kernel;
        double fixed[NFIXED];
        size_t line; /* its first row */
        struct ts s0, e0; /* its first row's timestamps (first_ok 1: both read) */
        int first_ok;
        unsigned long long sig; /* which counters it has (iteration multiplexing's
                                 * buckets): a sum of their names' mixed ids */
        double *dur;
        size_t ndur, cap_dur;
        uint32_t *vi; /* (not hashed) per kept counter: its value's index in val + 1 */
        size_t cap_vi;
};

/* a counter's value given for a group (the last one given) */
struct given {
        size_t g, line;
        int ci;
        double v;
};

struct rocpd {
        const char *path;
        const char *const *paths; /* every file read, path among them */
        size_t file;              /* path's index in paths */
        struct pass_rules rules;
        int sigs;                 /* compute each group's sig */
        int nunkept;              /* counters not kept, numbered -2, -3, ... in cidx */
        table_col_fn want;
        void *ctx;
        int col[NF];
        struct group *g;
        size_t ng, cap_g;
        struct smap gidx;
        char **cname; /* kept counters, in the order first seen */
        size_t nc, cap_c;
        struct smap cidx; /* counter name -> kept index, or -1 */
        struct given *val; /* the values given, in row order (one per group and counter) */
        size_t nval, cap_val;
        size_t *slot; /* open addressing: (group, counter) -> its index in val + 1 */
        size_t cap_slot;
        /* A value is found through its group's own index by counter (vi) while those hold
         * at most a few cells per value given (dense: their cells): near each other for a
         * dispatch's rows, where the slots above cost a cache miss a row (the reader's
         * largest cost). A file that would make them large (many dispatches, each with
         * other counters) goes over to the slots (hashed 1), made then of every value. */
        int hashed;
        size_t dense;
        size_t rows;
        size_t bad, dup, badts;
        struct strbuf key;
        /* the previous row's grouping fields as written, and its group: rows come in runs
         * of one dispatch, so most rows skip parsing them */
        struct strbuf last;
        int last_group;
};

/* a - b, exactly where both are integers; *ovf where that difference is past 2^63 */
static inline double ts_sub(struct ts a, struct ts b, int *ovf)
{
        long long d;
        *ovf = 0;
        if (!a.exact || !b.exact)
                return a.d - b.d;
        if (__builtin_sub_overflow(a.i, b.i, &d)) {
                *ovf = 1;
                return a.d - b.d;
        }
        return (double)d;
}

/* given_at where rp is hashed */
struct given *given_slot(struct rocpd *rp, size_t g, int ci);

/* the value given for group g and counter ci, or NULL */
static inline struct given *given_at(struct rocpd *rp, size_t g, int ci)
{
        if (rp->hashed)
                return given_slot(rp, g, ci);
        const struct group *gr = &rp->g[g];
        return (size_t)ci < gr->cap_vi && gr->vi[ci] ? &rp->val[gr->vi[ci] - 1] : NULL;
}
/* rp->val[k - 1], group g's value of ci, found from here on */
void given_put(struct rocpd *rp, size_t g, int ci, size_t k);

/* the wide table of rp's groups into t (rocpd_load_files); each dispatch's counter set
 * (sig) into *sig_out where that is not NULL */
void rocpd_build(struct rocpd *rp, struct table *t, unsigned long long **sig_out);

#endif
