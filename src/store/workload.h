/* A workload as analyze sees it: the tables of one rocprof-compute-style directory. */
#ifndef PRISM_WORKLOAD_H
#define PRISM_WORKLOAD_H

#include "../store/table.h"

struct wspill;

struct workload {
        char *path;
        struct table sysinfo; /* one row */
        struct table pmc;     /* pmc_perf.csv: one row per dispatch */
        struct table *acc;    /* accumulate tables (X.csv of counter X), aligned with pmc by row */
        char **acc_names;     /* their names without .csv */
        size_t nacc;
        struct table roofline; /* roofline.csv; nrows == 0 when absent */
        int has_roofline;
        /* a multi-rank tree: one row per rank, in load order: Rank, Node and the GPU each
         * rank's sysinfo names (gpu_uuid, gpu_pci_bus, gpu_choice); empty otherwise */
        struct table ranks;
        /* 3.6+'s kernel_symbols files (ksyms_load): Kernel_Name, Kernel_Short_Name, a row
         * per kernel; no rows for other layouts */
        struct table ksyms;
        char *arch;  /* gpu_arch from sysinfo.csv */
        char *model; /* gpu_model */
        char *sysinfo_file; /* the sysinfo.csv sysinfo was read from; NULL: a database or a
                             * rank tree (path names where it came from) */
        /* streamed (workload_open_streamed): the per-dispatch columns analysis reads, in a
         * temporary file read a chunk at a time (src/store/wstream.h); pmc and acc then
         * hold only the columns selection and the built-in tables read. NULL: every
         * loaded column is in pmc and acc. */
        struct wspill *spill;
};

struct store_probe;

/* A workload is opened in three steps after store_probe (probe.h): its sysinfo, whose
 * gpu_arch says which architecture to load, then (with the columns that architecture's
 * tables read) the rest. w->path is set from the first step on; on error w is closed. */

/* A directory's sysinfo.csv, loaded once into w->sysinfo (with w->arch, w->model and
 * w->sysinfo_file); of a database or rank tree only its gpu_arch (w->arch). Errors name
 * the file: malformed, no data row, no gpu_arch field. */
int store_open_sysinfo(const struct store_probe *p, struct workload *w, struct err *err);

/* A directory's layout, given its sysinfo in w (formats_detect): p->layout and the
 * accumulate files; keep_texts keeps the small CSV files' bytes in p for the load. Nothing
 * for a database or rank tree, or once done. Errors are formats_detect's. */
int store_detect(struct store_probe *p, const struct workload *w, int keep_texts,
                 struct err *err);

/* Which columns store_load keeps: want/want_ctx project the per-dispatch tables (want NULL:
 * all; Kernel_Name always kept); keep non-NULL streams them as workload_open_streamed. */
struct store_cols {
        table_col_fn want;
        void *want_ctx;
        table_col_fn keep;
        void *keep_ctx;
};

/* The rest of the workload whose sysinfo store_open_sysinfo loaded into w (detecting a
 * directory's layout first where store_detect has not). Errors: workload_open's. */
int store_load(struct store_probe *p, const struct store_cols *c, struct workload *w,
               struct err *err);

/* Load a workload directory. No directory, no pmc_perf.csv or sysinfo.csv, or a malformed
 * file: a one-line error naming the file. Optional files that are missing only warn. */
int workload_open(const char *path, struct workload *w, struct err *err);

/* workload_open for any store: a workload directory, a prism database (FILE.db, or a
 * directory holding only prism.db) or a multi-rank tree NAME/<node>/rank<N>/ (one
 * workload with Rank and Node columns; src/store/multi.h). want/ctx (want NULL: all)
 * keep only the columns of pmc_perf and the accumulate tables that want accepts, and
 * Kernel_Name: memory then grows with the columns analysis needs, not with the file. */
int workload_open_cols(const char *path, table_col_fn want, void *ctx, struct workload *w,
                       struct err *err);

/* workload_open_cols reading a directory's per-dispatch tables once, a chunk of rows at a
 * time: the columns want accepts go to a temporary file that analysis reads a chunk at a
 * time, and only those keep accepts (and Kernel_Name) stay in pmc and acc, so that memory
 * does not grow with the columns times the dispatches. A database or a rank tree loads as
 * workload_open_cols(want). */
int workload_open_streamed(const char *path, table_col_fn keep, void *keep_ctx,
                           table_col_fn want, void *want_ctx, struct workload *w,
                           struct err *err);

/* The gpu_arch of the workload at path (malloc'd) without loading its dispatches; the
 * errors are workload_open's. workload_arch and the workload_open functions keep no state
 * between calls (a directory's files are read once per call): safe from several threads. */
int workload_arch(const char *path, char **arch, struct err *err);
void workload_close(struct workload *w);

/* Give the accumulated value of every accumulate table also the name the architecture's
 * formulas read it under (its family's accumulate_value, arch.h), where rocpd's layout
 * holds it under another (formats_accum_alias); name NULL: nothing. */
void workload_accum_value(struct workload *w, const char *name);

/* The table an accumulate name refers to, or NULL ("pmc_perf" or NULL gives pmc). */
const struct table *workload_table(const struct workload *w, const char *name);

/* A sysinfo field as number (NaN if absent or not numeric) or text (NULL if absent). */
double workload_sys_num(const struct workload *w, const char *field);
const char *workload_sys_str(const struct workload *w, const char *field);

#endif
