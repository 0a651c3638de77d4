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

#include "rocpd_int.h"
#include "csvpipe.h"

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
/* s as 1 to 18 decimal digits and nothing else (what strtoll reads exactly, never past
 * 2^63): 1 and *v, else 0 (strtoll decides) */
static int digits_ll(const char *s, long long *v)
{
        long long x = 0;
        size_t i = 0;
        for (; i < 18 && s[i] >= '0' && s[i] <= '9'; i++)
                x = x * 10 + (s[i] - '0');
        if (!i || s[i])
                return 0;
        *v = x;
        return 1;
}

static int parse_ts(const char *s, struct ts *out)
{
        char *end;
        long long v;
        if (digits_ll(s, &v)) {
                *out = (struct ts){v, (double)v, 1};
                return 0;
        }
        errno = 0;
        v = strtoll(s, &end, 10);
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

/* Dispatch_ID: an exact integer (a whole number written as a real too) */
static int parse_id(const char *s, long long *out)
{
        char *end;
        if (digits_ll(s, out))
                return 0;
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
                rc = csv_stream_piped(paths[i], on_row, &rp, err);
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
                rocpd_build(&rp, pmc, sigs);
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
