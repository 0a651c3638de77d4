/* rocpd's long pmc_perf.csv (one row per dispatch and counter: Counter_Name, Counter_Value)
 * grouped into one row per dispatch, by the rules of rocprof-compute 3.3 (rocpd_data.py):
 * - a dispatch is the rows that share Dispatch_ID, Kernel_Name, Grid_Size, Workgroup_Size
 *   and LDS_Per_Workgroup; dispatches are ordered by those, then numbered 0, 1, ...;
 * - GPU_ID, Scratch_Per_Workitem, the register counts and Kernel_ID are its first row's,
 *   GPU_ID then ranked (the lowest GPU is 0, the next 1, ...);
 * - each counter becomes a column; a counter given twice for one dispatch takes the last
 *   value (prism warns when the two differ);
 * - Start_Timestamp is 0 and End_Timestamp the median of its rows' durations (End - Start,
 *   read as exact 64-bit integers: today's timestamps are past 2^53; a timestamp below 0
 *   or a difference past 2^63 is damaged: that row's duration is left out, with a warning);
 * - Dispatch_ID is an exact 64-bit integer (ids past 2^53 stay apart);
 * - a counter named like a dispatch column (Grid_Size, Kernel_Name, ...) is left out with
 *   a warning (it would overwrite that column);
 * - values are kept per row given, not per dispatch and counter, so grouping is linear in
 *   the rows; a file whose dispatches times counters exceed ROCPD_MAX_FILL times its rows
 *   (plus ROCPD_MAX_SPARE) is refused: its wide table would hold mostly empty cells.
 * rocprof-compute 3.6+ writes the same rows as one file per pass (results_*.csv[.gz]),
 * which its analyze concatenates in file-name order and groups alike; from 3.10 on the
 * rules differ where struct pass_rules says (formats.h): the timestamps are the group's
 * first row's, and dispatches are numbered from 1. A timestamp written as a fraction is
 * read as a double (3.3's joined tables of some GPUs average the passes' timestamps).
 * Unlike 3.3 nothing is dropped silently: a row whose grouping fields are empty or not
 * numbers is an error, a damaged value or timestamp a warning naming file:line. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "formats.h"

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

static int keep(const struct rocpd *rp, const char *name)
{
        size_t l = strlen(name);
        return !rp->want || rp->want(rp->ctx, name) ||
               (l > 6 && !strcmp(name + l - 6, "_ACCUM")); /* the accumulate tables' */
}

static int on_header(struct rocpd *rp, char **f, size_t n, struct err *err)
{
        for (int k = 0; k < NF; k++)
                rp->col[k] = -1;
        for (size_t i = 0; i < n; i++)
                for (int k = 0; k < NF; k++)
                        if (rp->col[k] < 0 && !strcmp(f[i], field_name[k]))
                                rp->col[k] = (int)i;
        for (int k = 0; k < NREQ; k++)
                if (rp->col[k] < 0)
                        return err_set(err, ERR_INPUT,
                                       "%s: no %s column (rocpd's layout needs Dispatch_ID, "
                                       "Kernel_Name, Grid_Size, Workgroup_Size, "
                                       "LDS_Per_Workgroup, Start_Timestamp, End_Timestamp, "
                                       "Counter_Name and Counter_Value)",
                                       rp->path, field_name[k]);
        return 0;
}

/* A timestamp, not below 0: an integer exactly (today's are past 2^53, where a double is
 * off by a nanosecond or two), a fraction as a double (as pandas reads such a column).
 * 0 on success. */
static int parse_ts(const char *s, struct ts *out)
{
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (*s && !*end && !errno) {
                *out = (struct ts){v, (double)v, 1};
                return v < 0 ? -1 : 0;
        }
        double d;
        if (parse_double(s, &d) || !isfinite(d) || d < 0 || d >= 9.2e18)
                return -1;
        *out = (struct ts){(long long)d, d, d == floor(d)};
        return 0;
}

/* a - b, exactly where both are integers; *ovf where that difference is past 2^63 */
static double ts_sub(struct ts a, struct ts b, int *ovf)
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

/* Dispatch_ID: an exact integer (a whole number written as a real too) */
static int parse_id(const char *s, long long *out)
{
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (*s && !*end && !errno) {
                *out = v;
                return 0;
        }
        double d;
        if (parse_double(s, &d) || !isfinite(d) || d != floor(d) || fabs(d) >= 9.2e18)
                return -1;
        *out = (long long)d;
        return 0;
}

static struct group *group_of(struct rocpd *rp, char **f, size_t line, struct err *err,
                              int *rc)
{
        double key[NKEY];
        long long id = 0;
        char buf[100];
        *rc = 0;
        struct strbuf *raw = &rp->key;
        sb_reset(raw);
        for (int k = 0; k <= F_KERNEL; k++) /* NUL-separated: no field holds one */
                sb_addn(raw, f[rp->col[k]], strlen(f[rp->col[k]]) + 1);
        if (rp->last_group >= 0 && rp->last.len == raw->len &&
            !memcmp(rp->last.buf, raw->buf, raw->len))
                return &rp->g[rp->last_group];
        sb_reset(&rp->last);
        sb_addn(&rp->last, raw->buf, raw->len);
        rp->last_group = -1;
        for (int k = 0; k < NKEY; k++) {
                const char *s = f[rp->col[k]];
                if (k == F_DISPATCH ? parse_id(s, &id) || (key[k] = (double)id, 0)
                                    : parse_double(s, &key[k]) || !isfinite(key[k])) {
                        *rc = err_set(err, ERR_INPUT,
                                      "%s:%zu: %s %s (rocpd's rows are grouped into "
                                      "dispatches by it)",
                                      rp->path, line, field_name[k],
                                      text_desc(s, k == F_DISPATCH ? "an integer" : "a number",
                                                buf, sizeof buf));
                        return NULL;
                }
        }
        const char *kernel = f[rp->col[F_KERNEL]];
        if (!*kernel) {
                *rc = err_set(err, ERR_INPUT,
                              "%s:%zu: Kernel_Name is empty (rocpd's rows are grouped into "
                              "dispatches by it)",
                              rp->path, line);
                return NULL;
        }
        sb_reset(&rp->key);
        sb_addf(&rp->key, "%lld\x1f", id);
        for (int k = 1; k < NKEY; k++)
                sb_addf(&rp->key, "%.17g\x1f", key[k]);
        sb_add(&rp->key, kernel);
        int gi;
        if (smap_get(&rp->gidx, rp->key.buf, &gi)) {
                rp->last_group = gi;
                return &rp->g[gi];
        }
        xgrow(&rp->g, &rp->cap_g, rp->ng + 1, sizeof *rp->g);
        struct group *g = &rp->g[rp->ng];
        memset(g, 0, sizeof *g);
        memcpy(g->key, key, sizeof key);
        g->id = id;
        g->kernel = xstrdup(kernel);
        g->line = line;
        g->first_ok = -1; /* set by its first row's add_duration */
        for (int k = 0; k < NFIXED; k++) {
                int c = rp->col[F_GPU + k];
                double v = NAN;
                if (c >= 0 && (parse_double(f[c], &v) || !isfinite(v) || v < 0)) {
                        if (++rp->bad <= MAX_WARN)
                                warnf("%s:%zu: column '%s' %s; the metrics that use it are "
                                      "n/a for that dispatch",
                                      rp->path, line, field_name[F_GPU + k],
                                      text_desc(f[c], "a count", buf, sizeof buf));
                        v = NAN;
                }
                g->fixed[k] = v;
        }
        smap_put(&rp->gidx, rp->key.buf, (int)rp->ng);
        rp->last_group = (int)rp->ng;
        return &rp->g[rp->ng++];
}

static void add_duration(struct rocpd *rp, struct group *g, char **f, size_t line)
{
        struct ts s, e;
        char buf[100];
        const char *bad = NULL, *text = NULL;
        int first = g->first_ok < 0, ovf = 0;
        if (first)
                g->first_ok = 0;
        if (rp->rules.first_times && !first)
                return; /* only the first row's count (3.10) */
        if (parse_ts(f[rp->col[F_START]], &s))
                bad = COL_START, text = f[rp->col[F_START]];
        else if (parse_ts(f[rp->col[F_END]], &e))
                bad = COL_END, text = f[rp->col[F_END]];
        double d = bad ? 0 : ts_sub(e, s, &ovf);
        if (!bad && ovf)
                bad = COL_END, text = f[rp->col[F_END]]; /* past 2^63 after its start */
        if (!bad && d < 0) {
                if (++rp->badts <= MAX_WARN)
                        warnf("%s:%zu: End_Timestamp is before Start_Timestamp; that row's "
                              "duration is left out of its dispatch's",
                              rp->path, line);
                return;
        }
        if (bad) {
                if (++rp->badts <= MAX_WARN)
                        warnf("%s:%zu: %s %s; that row's duration is left out of its "
                              "dispatch's",
                              rp->path, line, bad, text_desc(text, "a timestamp", buf, sizeof buf));
                return;
        }
        if (rp->rules.first_times) {
                g->s0 = s, g->e0 = e, g->first_ok = 1;
                return;
        }
        xgrow(&g->dur, &g->cap_dur, g->ndur + 1, sizeof *g->dur);
        g->dur[g->ndur++] = d;
}

/* a counter id spread over 64 bits (splitmix64's finaliser), so that sums of distinct sets
 * differ */
static unsigned long long mix_id(int id)
{
        unsigned long long x = (unsigned long long)(long long)id + 0x9e3779b97f4a7c15ULL;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
}

static int counter_index(struct rocpd *rp, const char *name)
{
        int ci;
        if (smap_get(&rp->cidx, name, &ci))
                return ci;
        ci = -1;
        for (int k = 0; k < NF; k++)
                if (!strcmp(name, field_name[k])) {
                        /* it would take that column's place: left out, said once */
                        warnf("%s: a counter is named '%s', like a dispatch column; its "
                              "values are left out",
                              rp->path, name);
                        smap_put(&rp->cidx, name, -1);
                        return -1;
                }
        ci = -2 - rp->nunkept++; /* not kept: an id all the same, for sig */
        if (keep(rp, name)) {
                xgrow(&rp->cname, &rp->cap_c, rp->nc + 1, sizeof *rp->cname);
                rp->cname[rp->nc] = xstrdup(name);
                ci = (int)rp->nc++;
        }
        smap_put(&rp->cidx, name, ci);
        return ci;
}

static size_t slot_hash(size_t g, int ci)
{
        /* splitmix64's finaliser: every bit of both mixed into the low ones */
        uint64_t h = (uint64_t)g * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)(unsigned)ci;
        h = (h ^ (h >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
        h = (h ^ (h >> 27)) * UINT64_C(0x94D049BB133111EB);
        return (size_t)(h ^ (h >> 31));
}

/* the value given for group g and counter ci, or NULL */
static struct given *given_at(struct rocpd *rp, size_t g, int ci)
{
        if (!rp->hashed) {
                const struct group *gr = &rp->g[g];
                return (size_t)ci < gr->cap_vi && gr->vi[ci] ? &rp->val[gr->vi[ci] - 1] : NULL;
        }
        if (!rp->cap_slot)
                return NULL;
        for (size_t i = slot_hash(g, ci) & (rp->cap_slot - 1);; i = (i + 1) & (rp->cap_slot - 1)) {
                size_t k = rp->slot[i];
                if (!k)
                        return NULL;
                if (rp->val[k - 1].g == g && rp->val[k - 1].ci == ci)
                        return &rp->val[k - 1];
        }
}

static void slot_insert(size_t *slot, size_t cap, const struct given *val, size_t k)
{
        size_t i = slot_hash(val[k - 1].g, val[k - 1].ci) & (cap - 1);
        while (slot[i])
                i = (i + 1) & (cap - 1);
        slot[i] = k;
}

/* val[k - 1] is group g's value of ci (the table grown at half full) */
#define DENSE_PER_VALUE 4
#define DENSE_SPARE ((size_t)1 << 20)

static void given_put(struct rocpd *rp, size_t g, int ci, size_t k)
{
        if (!rp->hashed) {
                struct group *gr = &rp->g[g];
                if ((size_t)ci >= gr->cap_vi) {
                        size_t cap = rp->nc > (size_t)ci ? rp->nc : (size_t)ci + 1;
                        rp->dense += cap - gr->cap_vi;
                        if (rp->dense <= DENSE_PER_VALUE * k + DENSE_SPARE && k < UINT32_MAX) {
                                gr->vi = xrealloc(gr->vi, cap * sizeof *gr->vi);
                                memset(gr->vi + gr->cap_vi, 0,
                                       (cap - gr->cap_vi) * sizeof *gr->vi);
                                gr->cap_vi = cap;
                        } else { /* too sparse for the groups' indexes: the slots */
                                rp->hashed = 1;
                                for (size_t i = 0; i < rp->ng; i++) {
                                        free(rp->g[i].vi);
                                        rp->g[i].vi = NULL;
                                        rp->g[i].cap_vi = 0;
                                }
                                for (size_t j = 1; j <= k; j++)
                                        given_put(rp, rp->val[j - 1].g, rp->val[j - 1].ci, j);
                                return;
                        }
                }
                gr->vi[ci] = (uint32_t)k;
                return;
        }
        if (2 * k > rp->cap_slot) {
                size_t cap = rp->cap_slot ? 2 * rp->cap_slot : 1024;
                size_t *slot = xcalloc(cap, sizeof *slot);
                for (size_t j = 1; j < k; j++)
                        slot_insert(slot, cap, rp->val, j);
                free(rp->slot);
                rp->slot = slot;
                rp->cap_slot = cap;
        }
        slot_insert(rp->slot, rp->cap_slot, rp->val, k);
}

static void set_value(struct rocpd *rp, struct group *g, int ci, char **f, size_t line)
{
        char buf[100];
        const char *s = f[rp->col[F_VALUE]], *name = rp->cname[ci];
        double v;
        if (parse_double(s, &v) || !isfinite(v) || v < 0) {
                if (++rp->bad <= MAX_WARN)
                        warnf("%s:%zu: counter '%s' %s; the metrics that use it are n/a for "
                              "that dispatch",
                              rp->path, line, name, text_desc(s, "a count", buf, sizeof buf));
                v = NAN;
        }
        size_t gi = (size_t)(g - rp->g);
        struct given *old = given_at(rp, gi, ci);
        if (old && !(old->v == v || (isnan(old->v) && isnan(v))) && ++rp->dup <= MAX_WARN) {
                if (VLINE_FILE(old->line) == rp->file)
                        warnf("%s:%zu: counter '%s' of dispatch %lld also at line %zu, with "
                              "another value; the last is used (as rocprof-compute does)",
                              rp->path, line, name, g->id, VLINE_LINE(old->line));
                else
                        warnf("%s:%zu: counter '%s' of dispatch %lld also in %s:%zu, with "
                              "another value; the last is used (as rocprof-compute does)",
                              rp->path, line, name, g->id, rp->paths[VLINE_FILE(old->line)],
                              VLINE_LINE(old->line));
        }
        if (old) {
                old->v = v;
                old->line = VLINE(rp->file, line);
                return;
        }
        xgrow(&rp->val, &rp->cap_val, rp->nval + 1, sizeof *rp->val);
        rp->val[rp->nval++] = (struct given){gi, VLINE(rp->file, line), ci, v};
        given_put(rp, gi, ci, rp->nval);
}

static int on_row(void *p, char **f, const size_t *lens, size_t n, size_t line,
                  struct err *err)
{
        struct rocpd *rp = p;
        (void)lens, (void)n;
        if (line == 0)
                return on_header(rp, f, n, err);
        rp->rows++;
        int rc;
        struct group *g = group_of(rp, f, line, err, &rc);
        if (!g)
                return rc;
        add_duration(rp, g, f, line);
        const char *name = f[rp->col[F_NAME]];
        if (!*name) {
                if (++rp->bad <= MAX_WARN)
                        warnf("%s:%zu: Counter_Name is empty; the row is left out", rp->path,
                              line);
                return 0;
        }
        int ci = counter_index(rp, name);
        if (rp->sigs && ci != -1) {
                /* the counters a dispatch has values for, each once (pandas' dropna) */
                double v;
                int first = ci < 0 || !given_at(rp, (size_t)(g - rp->g), ci);
                if (first && !parse_double(f[rp->col[F_VALUE]], &v) && isfinite(v) && v >= 0)
                        g->sig += mix_id(ci);
        }
        if (ci >= 0)
                set_value(rp, g, ci, f, line);
        return 0;
}

/* ---- the wide table ---- */

static int cmp_dur(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

static double median(struct group *g)
{
        if (!g->ndur)
                return NAN;
        qsort(g->dur, g->ndur, sizeof *g->dur, cmp_dur);
        size_t m = g->ndur / 2;
        return g->ndur % 2 ? g->dur[m] : (g->dur[m - 1] + g->dur[m]) / 2;
}

static int cmp_group(const void *a, const void *b)
{
        const struct group *x = *(struct group *const *)a, *y = *(struct group *const *)b;
        if (x->id != y->id)
                return x->id < y->id ? -1 : 1;
        int c = strcmp(x->kernel, y->kernel);
        if (c)
                return c;
        for (int k = F_GRID; k < NKEY; k++)
                if (x->key[k] != y->key[k])
                        return x->key[k] < y->key[k] ? -1 : 1;
        return 0;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

/* GPU_ID as rank: the lowest id 0, the next 1, ... */
static void rank_gpus(struct group **order, size_t n)
{
        double *ids = xmalloc((n ? n : 1) * sizeof *ids);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                if (!isnan(order[i]->fixed[0]))
                        ids[k++] = order[i]->fixed[0];
        qsort(ids, k, sizeof *ids, cmp_double);
        size_t m = 0; /* the distinct ids, ascending: an id's rank is its index */
        for (size_t j = 0; j < k; j++)
                if (!m || ids[j] != ids[m - 1])
                        ids[m++] = ids[j];
        for (size_t i = 0; i < n; i++) {
                double *v = &order[i]->fixed[0];
                if (isnan(*v))
                        continue;
                const double *at = bsearch(v, ids, m, sizeof *ids, cmp_double);
                *v = (double)(at - ids);
        }
        free(ids);
}

static int want_col(const struct rocpd *rp, const char *name)
{
        return !rp->want || !strcmp(name, COL_KERNEL_NAME) || rp->want(rp->ctx, name);
}

static void build(struct rocpd *rp, struct table *t, unsigned long long **sig_out)
{
        struct group **order = xmalloc((rp->ng ? rp->ng : 1) * sizeof *order);
        for (size_t i = 0; i < rp->ng; i++)
                order[i] = &rp->g[i];
        qsort(order, rp->ng, sizeof *order, cmp_group);
        rank_gpus(order, rp->ng);
        if (sig_out) {
                *sig_out = xmalloc((rp->ng ? rp->ng : 1) * sizeof **sig_out);
                for (size_t r = 0; r < rp->ng; r++)
                        (*sig_out)[r] = order[r]->sig;
        }
        table_init(t);
        double *dur = xmalloc((rp->ng ? rp->ng : 1) * sizeof *dur);
        double *start = xmalloc((rp->ng ? rp->ng : 1) * sizeof *start);
        /* the first row's timestamps (3.10): relative to the earliest, so that End - Start
         * stays exact in a double (today's timestamps are past 2^53) */
        struct ts t0 = {0, 0, 1};
        int any = 0, ovf;
        for (size_t r = 0; rp->rules.first_times && r < rp->ng; r++)
                if (order[r]->first_ok == 1 && (!any || ts_sub(order[r]->s0, t0, &ovf) < 0))
                        t0 = order[r]->s0, any = 1;
        for (size_t r = 0; r < rp->ng; r++) {
                size_t row = table_add_row(t); /* may move t->line */
                t->line[row] = order[r]->line;
                if (!rp->rules.first_times) {
                        dur[r] = median(order[r]);
                        start[r] = isnan(dur[r]) ? NAN : 0;
                } else if (order[r]->first_ok == 1) {
                        start[r] = ts_sub(order[r]->s0, t0, &ovf);
                        dur[r] = ts_sub(order[r]->e0, t0, &ovf);
                } else {
                        start[r] = dur[r] = NAN;
                }
        }
        /* the columns in 3.3's order: the first row's fields, the counters, the times */
        static const int head[] = {F_GPU, F_GRID, F_WG, F_LDS, F_SCRATCH, F_AVGPR,
                                   F_ACCVGPR, F_SGPR, F_KERNEL, F_KID};
        for (size_t h = 0; h < sizeof head / sizeof *head; h++) {
                int k = head[h];
                if (rp->col[k] < 0 || !want_col(rp, field_name[k]))
                        continue;
                int c = table_add_col(t, field_name[k]);
                for (size_t r = 0; r < rp->ng; r++) {
                        if (k == F_KERNEL)
                                table_set_str(t, c, r, order[r]->kernel);
                        else
                                t->num[c][r] = k < NKEY ? order[r]->key[k]
                                                        : order[r]->fixed[k - F_GPU];
                }
        }
        size_t missing = 0;
        const char *mname = NULL;
        long long mdisp = 0;
        /* the values given, each into its dispatch's row; then the cells none was given
         * for, the first of them (counter by counter, row by row) named */
        size_t *row = xmalloc((rp->ng ? rp->ng : 1) * sizeof *row);
        for (size_t r = 0; r < rp->ng; r++)
                row[(size_t)(order[r] - rp->g)] = r;
        int *col = xmalloc((rp->nc ? rp->nc : 1) * sizeof *col);
        unsigned char *given = xcalloc(rp->ng * rp->nc + 1, 1);
        for (size_t i = 0; i < rp->nc; i++) {
                col[i] = table_add_col(t, rp->cname[i]);
                for (size_t r = 0; r < rp->ng; r++)
                        t->num[col[i]][r] = NAN;
        }
        for (size_t k = 0; k < rp->nval; k++) {
                const struct given *v = &rp->val[k];
                t->num[col[v->ci]][row[v->g]] = v->v;
                given[(size_t)v->ci * rp->ng + row[v->g]] = 1;
        }
        missing = rp->ng * rp->nc - rp->nval;
        for (size_t k = 0; missing && k < rp->ng * rp->nc; k++)
                if (!given[k]) {
                        mname = rp->cname[k / rp->ng];
                        mdisp = order[k % rp->ng]->id;
                        break;
                }
        free(given);
        free(col);
        free(row);
        if (missing)
                warnf("%s: %zu counter value%s missing (dispatch %lld has no row for '%s'); "
                      "the metrics that use %s are n/a for %s dispatch%s",
                      rp->path, missing, missing == 1 ? " is" : "s are", mdisp, mname,
                      missing == 1 ? "it" : "them", missing == 1 ? "that" : "those",
                      missing == 1 ? "" : "es");
        if (want_col(rp, COL_END)) {
                int c = table_add_col(t, COL_END);
                for (size_t r = 0; r < rp->ng; r++)
                        t->num[c][r] = dur[r];
        }
        if (want_col(rp, COL_START)) {
                int c = table_add_col(t, COL_START);
                for (size_t r = 0; r < rp->ng; r++)
                        t->num[c][r] = start[r];
        }
        if (want_col(rp, COL_DISPATCH_ID)) {
                int c = table_add_col(t, COL_DISPATCH_ID);
                for (size_t r = 0; r < rp->ng; r++)
                        t->num[c][r] = (double)(r + (size_t)rp->rules.dispatch_base);
        }
        free(dur);
        free(start);
        free(order);
}

int rocpd_load(const char *path, table_col_fn want, void *ctx, struct table *pmc,
               struct err *err)
{
        return rocpd_load_files(&path, 1, path, want, ctx, pmc, NULL, err);
}

int rocpd_load_files(const char *const *paths, size_t npaths, const char *label,
                     table_col_fn want, void *ctx, struct table *pmc,
                     unsigned long long **sigs, struct err *err)
{
        struct rocpd rp = {.path = paths[0], .paths = paths, .want = want, .ctx = ctx,
                           .last_group = -1, .rules = formats_rules(), .sigs = sigs != NULL};
        const char *path = label;
        if (sigs)
                *sigs = NULL;
        table_init(pmc);
        int rc = 0;
        for (size_t i = 0; !rc && i < npaths; i++) {
                rp.path = paths[i];
                rp.file = i;
                rp.last_group = -1; /* a new file: its rows start a run of their own */
                rc = csv_stream(paths[i], on_row, &rp, err);
        }
        rp.path = label; /* the messages below are about them all */
        /* a wide table of mostly empty cells is refused before it is made */
        if (!rc && rp.nc && rp.ng > (ROCPD_MAX_SPARE + ROCPD_MAX_FILL * rp.rows) / rp.nc)
                rc = err_set(err, ERR_INPUT,
                             "%s: %zu dispatches times %zu counters from %zu rows: a table "
                             "of mostly empty cells (more than %d times the rows, plus %zu; "
                             "docs/FORMATS.md)",
                             path, rp.ng, rp.nc, rp.rows, ROCPD_MAX_FILL, ROCPD_MAX_SPARE);
        if (!rc) {
                build(&rp, pmc, sigs);
                if (rp.bad > MAX_WARN)
                        warnf("%s: %zu more damaged values read as n/a", path,
                              rp.bad - MAX_WARN);
                if (rp.dup > MAX_WARN)
                        warnf("%s: %zu more counters given twice with other values", path,
                              rp.dup - MAX_WARN);
                if (rp.badts > MAX_WARN)
                        warnf("%s: %zu more rows without a duration", path,
                              rp.badts - MAX_WARN);
        }
        for (size_t i = 0; i < rp.ng; i++) {
                free(rp.g[i].kernel);
                free(rp.g[i].dur);
                free(rp.g[i].vi);
        }
        free(rp.val);
        free(rp.slot);
        free(rp.g);
        for (size_t i = 0; i < rp.nc; i++)
                free(rp.cname[i]);
        free(rp.cname);
        smap_free(&rp.gidx);
        smap_free(&rp.cidx);
        sb_free(&rp.key);
        sb_free(&rp.last);
        return rc;
}
