/* The layouts of a rocprof-compute workload directory (docs/FORMATS.md): which one a
 * directory is in, and reading its dispatches into the one wide table analysis reads (one
 * row per dispatch, one column per counter). Never a guess: a layout prism does not know,
 * or a directory that mixes two, is a one-line error naming the file. */
#ifndef PRISM_FORMATS_H
#define PRISM_FORMATS_H

#include "table.h"

enum wl_layout {
        WL_LAYOUT_WIDE,  /* pmc_perf.csv: a row per dispatch (rocprof-compute 1.x-3.x, prism) */
        WL_LAYOUT_ROCPD, /* pmc_perf.csv: a row per dispatch and counter (rocpd output, 3.2+) */
        WL_LAYOUT_PASSES, /* results_*.csv[.gz]: rocpd's rows, a file per pass (3.6+) */
};

/* How the long layouts' rows become one row per dispatch where rocprof-compute versions
 * differ (the version in force says which: analyze's --compat, panels/versions). */
struct pass_rules {
        int first_times;   /* 0: Start_Timestamp 0, End_Timestamp the median of the rows'
                            * durations (3.3); 1: the first row's (3.10), both relative to
                            * the earliest dispatch's start so that their difference is exact */
        int dispatch_base; /* the first dispatch's number: 0 (3.3) or 1 (3.10) */
        int new_sysinfo_names; /* sysinfo.csv's fields under 3.8's names (num_memory_channels,
                                * workload_path), else under the earlier ones */
};
/* The rules in force (a process-wide setting, like the data version; default all 0). */
void formats_rules_set(const struct pass_rules *r);
struct pass_rules formats_rules(void);

/* The layout of the workload directory dir, whose sysinfo.csv is loaded in sysinfo: its
 * layout version (rocprof-compute's major version, 1 to 3, or none), profiling_config.yaml's
 * format_rocprof_output when present, and the headers of pmc_perf.csv and of the
 * accumulate files (wide, none in the rocpd layout) must agree on one layout.
 * On success, *accum (when not NULL) receives the accumulate files of the wide layout,
 * sorted, as names without ".csv" (malloc'd; none in the rocpd layout), *naccum their
 * count: recognised by their shape, never by a counter's name. The run that accumulates
 * counter X over time writes X.csv, whose header names X among its columns (or only
 * dispatch columns, where the run recorded no dispatch); an X.csv that cannot be read and
 * is none of the layout's other files (pmc_perf, sysinfo, roofline, timestamps, ...) is
 * listed too, so that loading it warns. */
int formats_detect(const char *dir, const struct table *sysinfo, enum wl_layout *layout,
                   char ***accum, size_t *naccum, struct err *err);
/* The same, keeping in ct (when not NULL) the bytes of the small CSV files whose headers it
 * read, for their loads (table_load_csv_in): each is then read once. */
int formats_detect_in(const char *dir, const struct table *sysinfo, enum wl_layout *layout,
                      char ***accum, size_t *naccum, struct csv_texts *ct, struct err *err);

/* The path of dir's pmc_perf file (malloc'd): pmc_perf.csv, else pmc_perf.csv.gz where only
 * that exists (3.9+'s joined file), "?" where both exist (formats_detect's error). */
char *formats_pmc_file(const char *dir);

/* Load dir/pmc_perf.csv of the given layout (the results files of the per-pass one) as one row per dispatch, keeping the columns
 * that want accepts (all when want is NULL) and Kernel_Name (from ct's bytes of the file
 * where it holds them, NULL: none). The rocpd layout is grouped
 * as rocprof-compute 3.3 groups it (src/store/rocpd.c); its damaged cells warn there. */
int formats_load_pmc(const char *dir, enum wl_layout layout, table_col_fn want, void *ctx,
                     const struct csv_texts *ct, struct table *pmc, struct err *err);

/* The rocpd layout's accumulate tables: for each column X_ACCUM of pmc a table X, holding
 * pmc's other columns and X_ACCUM, row for row. Replaces the *n_acc tables acc and their
 * names (freed). */
void formats_rocpd_accum(const struct table *pmc, struct table **acc, char ***names,
                         size_t *n_acc);

/* In the rocpd layout's accumulate table t (named table), the accumulated value X_ACCUM
 * also as column value: the name the architecture's formulas read it under, where the
 * wide layout's accumulate file holds it. Nothing when t has no X_ACCUM or already a
 * column value. */
void formats_accum_alias(struct table *t, const char *table, const char *value);

/* For tests (rocpd_table.c): a value is found through its dispatch's index by counter
 * while those hold at most rocpd_dense_per_value cells per value plus rocpd_dense_spare
 * (4 and 2^20), else through one hash table (0 and 0: always) */
extern size_t rocpd_dense_spare;
extern unsigned rocpd_dense_per_value;

/* rocpd.c: the long table at path grouped into pmc (formats_load_pmc's rocpd case). */
int rocpd_load(const char *path, table_col_fn want, void *ctx, struct table *pmc,
               struct err *err);
/* The same for the rows of npaths files read one after another, as one table (the
 * per-pass layout); label names them all in messages about the result. sigs (when not
 * NULL) receives, per row of pmc, a number that is the same for two rows exactly when
 * they have values for the same counters (kept or not; malloc'd): iteration
 * multiplexing's buckets (formats_impute). */
int rocpd_load_files(const char *const *paths, size_t npaths, const char *label,
                     table_col_fn want, void *ctx, struct table *pmc,
                     unsigned long long **sigs, struct err *err);

/* impute.c: iteration multiplexing (rocprof-compute 3.5+, profiling_config.yaml's
 * iteration_multiplexing: kernel, or another policy grouping by kernel and launch
 * configuration). In pmc (from dir, whose perfmon/ lists nperfmon counter sets), each
 * group of dispatches (same Kernel_Name; or also Grid_Size, Workgroup_Size,
 * LDS_Per_Workgroup) with fewer dispatches than nperfmon has every counter n/a (the kernel
 * is left out of the metrics: a warning names it; its times stay); in another, its
 * counter sets (sig, rocpd_load_files) seen in dispatch order until one repeats are its
 * k buckets, and in each run of k consecutive dispatches a counter a dispatch lacks takes
 * the next dispatch's value in the run, else the previous one's. */
void formats_impute(struct table *pmc, const unsigned long long *sig, const char *policy,
                    size_t nperfmon, const char *dir);

/* passes.c: the per-pass layout's results files of dir (results_*.csv and
 * results_*.csv.gz, regular files), as paths sorted by name, the order rocprof-compute
 * concatenates them in (malloc'd; none: *nfiles 0). A pass given both plain and gzip is an
 * error naming it. */
int passes_list(const char *dir, char ***files, size_t *nfiles, struct err *err);
/* The files of dir named <prefix>X.csv or <prefix>X.csv.gz (X not empty), whatever their
 * kind, as paths in name order (malloc'd, *n of them; NULL when none). */
char **formats_csv_files(const char *dir, const char *prefix, size_t *n);
/* A plain results file at path whose last byte is no newline is cut short (rocprof-compute
 * ends every line, and a cut inside a number would read as another number): an error naming
 * it. A gzip file's end is checked by its trailer as it is read. */
int passes_check_end(const char *path, struct err *err);
/* Each of the n results files must be of a pass that dir/perfmon lists (<pass>.yaml): else
 * an error naming it; with warn_lost, a listed pmc_perf_N pass without results warns.
 * Nothing to check without perfmon/ or its .yaml files. */
int passes_check_perfmon(const char *dir, char *const *files, size_t n, int warn_lost,
                         struct err *err);
/* ksyms.c: the kernel_symbols_*.csv[.gz] files of dir (3.6+, one per pass), in name order,
 * as one table of two text columns, Kernel_Name and Kernel_Short_Name, a row per kernel
 * (out is initialised here; no files: no rows). A row lacking either name is skipped and an
 * empty (0-byte) file warns and is skipped, as 3.10's analyze does; a file without the two
 * columns, damaged or truncated (gzip or plain), or one kernel given two short names (in
 * one file or two) is an error naming the file. */
int ksyms_load(const char *dir, struct table *out, struct err *err);
/* sysinfo.csv (at path) with its renamed fields (num_hbm_channels and num_memory_channels,
 * workload_name and workload_path) under the names of the rules in force; both names of one
 * field given is an error naming the file. */
int formats_sysinfo_names(struct table *sys, const char *path, struct err *err);

#endif
