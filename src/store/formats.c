/* Which layout a workload directory is in (docs/FORMATS.md), and the rocpd layout's
 * accumulate tables; the rocpd grouping itself is in rocpd.c. */
#include "formats.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "columns.h"

/* ---- what a CSV header says ---- */

struct header {
        const char *col; /* a column looked for, or NULL */
        int kernel_name, counter_name, counter_value, has_col;
        int only_dispatch; /* every column a dispatch column (columns.h), at least one */
};

static int header_row(void *p, char **f, const size_t *lens, size_t n, size_t line,
                      struct err *err)
{
        struct header *h = p;
        (void)lens, (void)line, (void)err;
        h->only_dispatch = n > 0;
        for (size_t i = 0; i < n; i++) {
                h->only_dispatch &= col_is_dispatch(f[i]);
                h->kernel_name |= !strcmp(f[i], COL_KERNEL_NAME);
                h->counter_name |= !strcmp(f[i], COL_COUNTER_NAME);
                h->counter_value |= !strcmp(f[i], COL_COUNTER_VALUE);
                h->has_col |= h->col && !strcmp(f[i], h->col);
        }
        return 1; /* the header is all we need */
}

/* The layout path's header is in: 0 and *long_form set (and *has_col: whether the header
 * names column col, or holds only dispatch columns, when col is given); the file's own error (unreadable, empty, ...); or,
 * with *half set, the error for a header with one of rocpd's two counter columns but not
 * the other. */
static int header_layout(const char *path, const char *col, int *long_form, int *half,
                         int *has_col, struct csv_texts *ct, struct err *err)
{
        struct header h = {.col = col};
        *half = 0;
        if (ct) /* read once: the load takes the same bytes */
                csv_texts_read(ct, path);
        int rc = csv_stream_in(path, ct, header_row, &h, err);
        if (rc)
                return rc;
        if (has_col)
                *has_col = h.has_col || h.only_dispatch;
        *half = h.counter_name != h.counter_value;
        if (*half)
                return err_set(err, ERR_INPUT,
                               "%s: a '%s' column without '%s': neither the wide layout nor "
                               "rocpd's (docs/FORMATS.md)",
                               path, h.counter_name ? COL_COUNTER_NAME : COL_COUNTER_VALUE,
                               h.counter_name ? COL_COUNTER_VALUE : COL_COUNTER_NAME);
        *long_form = h.counter_name;
        return 0;
}

/* ---- the accumulate files ---- */

/* The files of a workload directory that have roles of their own (X for X.csv): never an
 * accumulate file, whatever they hold. */
static int own_file(const char *x, size_t len)
{
        static const char *const own[] = {"pmc_perf", "sysinfo", "roofline", "timestamps",
                                          "pmc_dispatch_info"};
        for (size_t i = 0; i < sizeof own / sizeof *own; i++)
                if (strlen(own[i]) == len && !strncmp(x, own[i], len))
                        return 1;
        /* the per-pass tables pmc_perf_N.csv; 3.6+'s results and kernel names per pass */
        if (len > 8 && (!strncmp(x, "results_", 8) || !strncmp(x, "kernel_symbols_", 15)))
                return 1;
        return len > 9 && !strncmp(x, "pmc_perf_", 9) && strspn(x + 9, "0123456789") == len - 9;
}

enum accum_kind {
        ACCUM_NONE,       /* no accumulate file */
        ACCUM_WIDE,       /* X.csv in the wide layout with a column X */
        ACCUM_LONG,       /* an X.csv in rocpd's long layout */
        ACCUM_UNREADABLE, /* an X.csv that cannot be read (it warns when loaded) */
};

/* What the directory entry fname of dir is. An accumulate file is recognised by its shape,
 * not by a counter's name: the run that accumulates counter X over time writes X.csv, with
 * the dispatch columns and X among its columns (its accumulated value beside it), or only
 * the dispatch columns where it recorded no dispatch (a filtered run). A CSV
 * file in rocpd's long layout other than pmc_perf.csv is one too (rocpd keeps its
 * accumulate counters in pmc_perf.csv: such a file means a mixed directory). */
static enum accum_kind accum_kind(const char *dir, const char *fname, struct csv_texts *ct)
{
        size_t l = strlen(fname);
        if (l <= 4 || strcmp(fname + l - 4, ".csv") || fname[0] == '.' ||
            own_file(fname, l - 4))
                return ACCUM_NONE;
        char *p = xasprintf("%s/%s", dir, fname);
        char *x = xstrndup(fname, l - 4);
        int lf = 0, half = 0, has = 0;
        struct err e = {0};
        int rc = header_layout(p, x, &lf, &half, &has, ct, &e);
        free(p);
        free(x);
        if (rc && !half)
                return ACCUM_UNREADABLE;
        if (!rc && lf)
                return ACCUM_LONG;
        return has ? ACCUM_WIDE : ACCUM_NONE;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- profiling_config.yaml ---- */

/* profiling_config.yaml's limits: rocprof-compute writes a flat mapping of options with
 * lists, a few kilobytes. libyaml's scanner works per token in proportion to the open
 * flow collections (its simple keys), so a deeply nested file costs the square of its
 * size: a file past YAML_MAX_BYTES or nested past YAML_MAX_DEPTH is refused. */
#define YAML_MAX_BYTES ((off_t)1 << 20)
#define YAML_MAX_DEPTH 32

/* The top-level scalar value of key in the YAML file at path (malloc'd), NULL when the
 * file has no such key; a file that is no YAML mapping is an error naming it. */
static int yaml_top_value(const char *path, const char *key, char **out, struct err *err)
{
        *out = NULL;
        FILE *f = fopen_regular(path, err);
        if (!f)
                return ERR_INPUT;
        struct stat sb;
        if (fstat(fileno(f), &sb) == 0 && sb.st_size > YAML_MAX_BYTES) {
                fclose(f);
                return err_set(err, ERR_INPUT,
                               "%s: %lld bytes, more than a profile's options take (at most "
                               "%lld)",
                               path, (long long)sb.st_size, (long long)YAML_MAX_BYTES);
        }
        /* the nesting, counted on the bytes before libyaml reads them: brackets and
         * braces outside quotes and comments, and indentation */
        int deep = 0, level = 0, c, quote = 0, comment = 0, col = 0, bol = 1;
        while (!deep && (c = getc(f)) != EOF) {
                if (c == '\n') { /* a quoted scalar may span lines: quote stays */
                        comment = 0, bol = 1, col = 0;
                        continue;
                }
                if (bol && c == ' ') {
                        if (++col > 2 * YAML_MAX_DEPTH + 64)
                                deep = 1;
                        continue;
                }
                bol = 0;
                if (comment)
                        continue;
                if (quote) {
                        if (c == quote)
                                quote = 0;
                        else if (c == '\\' && quote == '"')
                                getc(f);
                        continue;
                }
                if (c == '#')
                        comment = 1;
                else if (c == '"' || c == '\'')
                        quote = c;
                else if (c == '[' || c == '{')
                        deep = ++level > YAML_MAX_DEPTH;
                else if ((c == ']' || c == '}') && level > 0)
                        level--;
        }
        if (deep) {
                fclose(f);
                return err_set(err, ERR_INPUT,
                               "%s: nested deeper than %d levels (a profile's options are a "
                               "flat mapping)",
                               path, YAML_MAX_DEPTH);
        }
        rewind(f);
        yaml_parser_t p;
        yaml_event_t ev;
        int rc = 0, depth = 0, is_key = 0, want_val = 0, done = 0;
        yaml_parser_initialize(&p);
        yaml_parser_set_input_file(&p, f);
        while (!done && !rc) {
                if (!yaml_parser_parse(&p, &ev)) {
                        rc = err_set(err, ERR_INPUT, "%s:%zu: %s", path,
                                     (size_t)p.problem_mark.line + 1,
                                     p.problem ? p.problem : "not YAML");
                        break;
                }
                switch (ev.type) {
                case YAML_STREAM_END_EVENT:
                        done = 1;
                        break;
                case YAML_MAPPING_START_EVENT:
                case YAML_SEQUENCE_START_EVENT:
                        if (depth == 0 && ev.type != YAML_MAPPING_START_EVENT)
                                rc = err_set(err, ERR_INPUT, "%s: not a YAML mapping", path);
                        if (depth == 1)
                                is_key = !is_key, want_val = 0; /* a nested value */
                        if (++depth > YAML_MAX_DEPTH)
                                rc = err_set(err, ERR_INPUT,
                                             "%s: nested deeper than %d levels (a profile's "
                                             "options are a flat mapping)",
                                             path, YAML_MAX_DEPTH);
                        break;
                case YAML_MAPPING_END_EVENT:
                case YAML_SEQUENCE_END_EVENT:
                        depth--;
                        break;
                case YAML_SCALAR_EVENT:
                        if (depth == 0) {
                                rc = err_set(err, ERR_INPUT, "%s: not a YAML mapping", path);
                        } else if (depth == 1) {
                                is_key = !is_key;
                                if (want_val && !is_key) {
                                        *out = xstrdup((const char *)ev.data.scalar.value);
                                        done = 1;
                                }
                                want_val = is_key &&
                                           !strcmp((const char *)ev.data.scalar.value, key);
                        }
                        break;
                case YAML_ALIAS_EVENT:
                        if (depth == 1)
                                is_key = !is_key, want_val = 0;
                        break;
                default:
                        break;
                }
                yaml_event_delete(&ev);
        }
        yaml_parser_delete(&p);
        fclose(f);
        return rc;
}

static char *multiplexing(const char *dir);

/* ---- the directory's layout ---- */

int formats_detect(const char *dir, const struct table *sysinfo, enum wl_layout *layout,
                   char ***accum, size_t *naccum, struct err *err)
{
        return formats_detect_in(dir, sysinfo, layout, accum, naccum, NULL, err);
}

int formats_detect_in(const char *dir, const struct table *sysinfo, enum wl_layout *layout,
                      char ***accum, size_t *naccum, struct csv_texts *ct, struct err *err)
{
        int rc = 0;
        char **names = NULL;
        size_t nn = 0, cap = 0;
        char *sys = xasprintf("%s/sysinfo.csv", dir);
        char *cfg = xasprintf("%s/profiling_config.yaml", dir);
        char *pmc = formats_pmc_file(dir);
        char *stated = NULL;
        char **passes = NULL;
        size_t np = 0;
        *layout = WL_LAYOUT_WIDE;
        /* sysinfo.csv's layout: "version" is the major version of the rocprof-compute
         * (omniperf) that wrote it; prism reads those of 1 to 3 and its own (3) */
        int c = table_col(sysinfo, "version");
        if (c >= 0 && sysinfo->nrows > 0) {
                char buf[64];
                const char *v = table_cell(sysinfo, c, 0, buf, sizeof buf);
                if (*v && strcmp(v, "1") && strcmp(v, "2") && strcmp(v, "3")) {
                        rc = err_set(err, ERR_INPUT,
                                     "%s: layout version '%.40s' is not one prism reads (1 to "
                                     "3; docs/FORMATS.md)",
                                     sys, v);
                        goto out;
                }
        }
        /* version 3 may record a clock as 0 (some GPUs' max_sclk): the peaks that use it are
         * then 0 and their percentages inf or n/a, as rocprof-compute 3.3 shows them; say so
         * once rather than show such peaks silently */
        static const char *const clocks[] = {"max_sclk", "cur_sclk", "max_mclk", "cur_mclk"};
        struct strbuf zero = {0};
        size_t nzero = 0;
        for (size_t i = 0; i < sizeof clocks / sizeof *clocks; i++) {
                int k = table_col(sysinfo, clocks[i]);
                if (k >= 0 && sysinfo->nrows > 0 && sysinfo->num[k][0] == 0)
                        sb_addf(&zero, "%s%s", nzero++ ? ", " : "", clocks[i]);
        }
        if (nzero)
                warnf("%s: %s %s 0 (not recorded): the peaks that use %s are 0 and their "
                      "percentages inf or n/a",
                      sys, zero.buf, nzero == 1 ? "is" : "are", nzero == 1 ? "it" : "them");
        sb_free(&zero);
        /* what profiling_config.yaml says pmc_perf.csv holds */
        if (file_kind(cfg)) { /* anything there but a file is refused by opening it */
                if ((rc = yaml_top_value(cfg, "format_rocprof_output", &stated, err)))
                        goto out;
                if (stated && strcmp(stated, "csv") && strcmp(stated, "json") &&
                    strcmp(stated, "rocpd")) {
                        rc = err_set(err, ERR_INPUT,
                                     "%s: format_rocprof_output '%.40s' is not a layout prism "
                                     "reads (csv, json or rocpd; docs/FORMATS.md)",
                                     cfg, stated);
                        goto out;
                }
        }
        /* 3.6+: a results file per pass, each in rocpd's long layout; a pmc_perf.csv beside
         * them is what 3.6-3.8's analyze joined from them, and is not read */
        int long_form = 0;
        if ((rc = passes_list(dir, &passes, &np, err)))
                goto out;
        for (size_t i = 0; i < np; i++) {
                int lf = 0, half = 0;
                if ((rc = header_layout(passes[i], NULL, &lf, &half, NULL, NULL, err)) ||
                    (rc = passes_check_end(passes[i], err)))
                        goto out;
                if (!lf) {
                        rc = err_set(err, ERR_INPUT,
                                     "%s: a per-pass results file without rocpd's "
                                     "Counter_Name and Counter_Value columns (docs/FORMATS.md)",
                                     passes[i]);
                        goto out;
                }
        }
        if (np && stated && strcmp(stated, "rocpd")) {
                rc = err_set(err, ERR_INPUT,
                             "%s: rocpd's long layout, but profiling_config.yaml says "
                             "format_rocprof_output: %s (a mixed directory?)",
                             passes[0], stated);
                goto out;
        }
        if (np) {
                /* with iteration multiplexing one run holds every pass: its files are no
                 * passes of perfmon/ */
                char *mx = multiplexing(dir);
                rc = mx ? 0 : passes_check_perfmon(dir, passes, np, 1, err);
                free(mx);
                if (rc)
                        goto out;
        }
        if (np) {
                long_form = 1;
        } else if (!strcmp(pmc, "?")) {
                rc = err_set(err, ERR_INPUT,
                             "%s/pmc_perf.csv: also given as pmc_perf.csv.gz (which one is "
                             "the workload's?)",
                             dir);
                goto out;
        } else if (is_file(pmc)) {
                /* what pmc_perf.csv holds: its own errors (empty, a directory, ...) come later,
                 * from loading it, so that they read the same in every layout */
                struct err e2 = {0};
                int half, hr = header_layout(pmc, NULL, &long_form, &half, NULL, ct, &e2);
                if (hr && half) {
                        *err = e2;
                        rc = hr;
                        goto out;
                }
                if (!hr && stated && long_form != !strcmp(stated, "rocpd")) {
                        rc = err_set(err, ERR_INPUT,
                                     "%s: %s layout, but profiling_config.yaml says "
                                     "format_rocprof_output: %s (a mixed directory?)",
                                     pmc, long_form ? "rocpd's long" : "the wide", stated);
                        goto out;
                }
        } else if (stated && !strcmp(stated, "rocpd")) {
                long_form = 1;
        }
        /* the accumulate files (accum_kind): wide, beside a wide pmc_perf.csv (listed for
         * *accum). rocpd's layout keeps its accumulate counters in pmc_perf.csv (the _ACCUM
         * columns) and writes none. */
        DIR *d = opendir(dir);
        struct dirent *de;
        while (d && !rc && (de = readdir(d))) {
                enum accum_kind k = accum_kind(dir, de->d_name, ct);
                if (!long_form && (k == ACCUM_WIDE || k == ACCUM_UNREADABLE)) {
                        xgrow(&names, &cap, nn + 1, sizeof *names);
                        names[nn++] = xstrndup(de->d_name, strlen(de->d_name) - 4);
                }
                /* an unreadable one warns when it is loaded */
                if (k == ACCUM_NONE || k == ACCUM_UNREADABLE || (k == ACCUM_WIDE && !long_form))
                        continue;
                char *p = xasprintf("%s/%s", dir, de->d_name);
                const char *lf = np ? "the results_*.csv files" : "pmc_perf.csv";
                if (long_form && k == ACCUM_WIDE)
                        rc = err_set(err, ERR_INPUT,
                                     "%s: an accumulate file, but %s %s in rocpd's long "
                                     "layout, which has none (a mixed directory?)",
                                     p, lf, np ? "are" : "is");
                else if (long_form)
                        rc = err_set(err, ERR_INPUT,
                                     "%s: rocpd's long layout beside %s, which hold%s all of "
                                     "rocpd's counters (a mixed directory?)",
                                     p, lf, np ? "" : "s");
                else
                        rc = err_set(err, ERR_INPUT,
                                     "%s: rocpd's long layout, but pmc_perf.csv is in the wide "
                                     "one (a mixed directory?)",
                                     p);
                free(p);
        }
        if (d)
                closedir(d);
        if (!rc)
                *layout = np ? WL_LAYOUT_PASSES : long_form ? WL_LAYOUT_ROCPD : WL_LAYOUT_WIDE;
        if (!rc && accum) {
                if (nn)
                        qsort(names, nn, sizeof *names, cmp_str);
                *accum = names;
                *naccum = nn;
                names = NULL;
                nn = 0;
        }
out:
        free_all((void *const *)passes, np);
        free(passes);
        free_all((void *const *)names, nn);
        free(names);
        free(stated);
        free(sys);
        free(cfg);
        free(pmc);
        return rc;
}

char *formats_pmc_file(const char *dir)
{
        char *plain = xasprintf("%s/pmc_perf.csv", dir), *gz = xasprintf("%s.gz", plain);
        int hp = access(plain, F_OK) == 0, hg = access(gz, F_OK) == 0;
        char *r = hp && hg ? xstrdup("?") : hg ? xstrdup(gz) : xstrdup(plain);
        free(plain);
        free(gz);
        return r;
}

/* profiling_config.yaml's iteration_multiplexing policy (malloc'd), NULL when none */
static char *multiplexing(const char *dir)
{
        char *cfg = xasprintf("%s/profiling_config.yaml", dir), *v = NULL;
        struct err e = {0};
        if (is_file(cfg) && yaml_top_value(cfg, "iteration_multiplexing", &v, &e))
                v = NULL; /* formats_detect reported what is wrong with the file */
        free(cfg);
        if (v && (!*v || !strcmp(v, "null") || !strcmp(v, "~") || !strcmp(v, "None"))) {
                free(v);
                v = NULL;
        }
        return v;
}

/* the counter sets perfmon/ lists: its .txt files and its pmc_perf_*.yaml files */
static size_t perfmon_sets(const char *dir)
{
        char *pm = xasprintf("%s/perfmon", dir);
        DIR *d = opendir(pm);
        struct dirent *de;
        size_t n = 0;
        while (d && (de = readdir(d))) {
                size_t l = strlen(de->d_name);
                n += (l > 4 && !strcmp(de->d_name + l - 4, ".txt")) ||
                     (l > 14 && !strncmp(de->d_name, "pmc_perf_", 9) &&
                      !strcmp(de->d_name + l - 5, ".yaml"));
        }
        if (d)
                closedir(d);
        free(pm);
        return n;
}

int formats_load_pmc(const char *dir, enum wl_layout layout, table_col_fn want, void *ctx,
                     const struct csv_texts *ct, struct table *pmc, struct err *err)
{
        char *policy = layout == WL_LAYOUT_WIDE ? NULL : multiplexing(dir);
        unsigned long long *sig = NULL;
        int rc;
        if (layout == WL_LAYOUT_PASSES) {
                char **v;
                size_t n;
                rc = passes_list(dir, &v, &n, err);
                if (!rc) {
                        char *label = xasprintf("%s/results_*.csv", dir);
                        rc = rocpd_load_files((const char *const *)v, n, label, want, ctx, pmc,
                                              policy ? &sig : NULL, err);
                        free(label);
                        free_all((void *const *)v, n);
                        free(v);
                }
        } else {
                char *f = formats_pmc_file(dir);
                rc = layout == WL_LAYOUT_ROCPD
                         ? rocpd_load_files((const char *const *)&f, 1, f, want, ctx, pmc,
                                            policy ? &sig : NULL, err)
                         : table_load_csv_in(pmc, f, ct, want, ctx, err);
                free(f);
        }
        /* iteration multiplexing (3.5+): every pass in one run, imputed (impute.c) */
        if (!rc && policy)
                formats_impute(pmc, sig, policy, perfmon_sets(dir), dir);
        free(sig);
        free(policy);
        return rc;
}

/* ---- the rocpd layout's accumulate tables ---- */

static int is_accum_col(const char *name)
{
        size_t l = strlen(name);
        return l > 6 && !strcmp(name + l - 6, "_ACCUM");
}

/* table X for column X_ACCUM of pmc (kept under that name: formats_accum_alias) */
static void accum_table(const struct table *pmc, const char *col, struct table *t)
{
        table_init(t);
        for (size_t r = 0; r < pmc->nrows; r++) {
                size_t row = table_add_row(t);
                t->line[row] = pmc->line ? pmc->line[r] : 0;
        }
        for (size_t c = 0; c < pmc->ncols; c++) {
                const char *name = pmc->names[c];
                if (is_accum_col(name) && strcmp(name, col))
                        continue;
                int to = table_add_col(t, name);
                for (size_t r = 0; r < pmc->nrows; r++) {
                        if (pmc->str && pmc->str[c] && pmc->str[c][r])
                                table_set_str(t, to, r, pmc->str[c][r]);
                        t->num[to][r] = pmc->num[c][r];
                }
        }
}

void formats_rocpd_accum(const struct table *pmc, struct table **acc, char ***names, size_t *n_acc)
{
        for (size_t i = 0; i < *n_acc; i++) {
                table_free(&(*acc)[i]);
                free((*names)[i]);
        }
        char **cols = NULL;
        size_t n = 0, cap = 0;
        for (size_t c = 0; c < pmc->ncols; c++)
                if (is_accum_col(pmc->names[c])) {
                        xgrow(&cols, &cap, n + 1, sizeof *cols);
                        cols[n++] = pmc->names[c];
                }
        if (n)
                qsort(cols, n, sizeof *cols, cmp_str);
        free(*acc);
        free(*names);
        *acc = xcalloc(n ? n : 1, sizeof **acc);
        *names = xcalloc(n ? n : 1, sizeof **names);
        for (size_t i = 0; i < n; i++) {
                (*names)[i] = xstrndup(cols[i], strlen(cols[i]) - 6);
                accum_table(pmc, cols[i], &(*acc)[i]);
        }
        free(cols);
        *n_acc = n;
}

void formats_accum_alias(struct table *t, const char *table, const char *value)
{
        char *col = xasprintf("%s_ACCUM", table);
        int from = table_col(t, col);
        free(col);
        if (from < 0 || table_col(t, value) >= 0)
                return;
        int to = table_add_col(t, value);
        for (size_t r = 0; r < t->nrows; r++)
                t->num[to][r] = t->num[from][r];
}
