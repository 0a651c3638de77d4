/* The prism SQLite store: one workload per database file (schema: docs/STORE.md).
 * profile and `prism database --import` write it; analyze reads it into the same struct
 * workload that a workload directory gives. Several databases are read together by
 * attaching them read-only to one connection and reading through views. */
#ifndef PRISM_DB_H
#define PRISM_DB_H

#include <stddef.h>

#include "table.h"
#include "workload.h"

/* The schema version this build writes and reads (meta key 'schema_version'). */
#define DB_SCHEMA_VERSION 2

/* The file name profile and --import give a database inside a workload directory. */
#define DB_DEFAULT_NAME "prism.db"

/* An extra meta entry recorded with a workload (rank, node, launcher, ...). */
struct db_meta_kv {
        const char *key;
        const char *value;
};

/* 1 if path is a regular file that is an SQLite database (its header says so), or does
 * not exist yet but ends in ".db"; 0 otherwise. */
int db_is_path(const char *path);

/* Write workload w into a new database at path. src_dir (may be NULL) is the directory w
 * came from: its perfmon/ plan and timestamps.csv are recorded too. extra: nextra more
 * meta entries. The file is written under a temporary name and renamed into place, so a
 * failed write leaves no partial database; an existing file is replaced only with
 * replace != 0 (else an error naming it). */
int db_write(const char *path, const struct workload *w, const char *src_dir,
             const struct db_meta_kv *extra, size_t nextra, int replace, struct err *err);

/* Import a workload directory (every column) into a database at path (see db_write); its
 * accumulate tables give their accumulated value also under accum_value (the family's name
 * for it, workload_accum_value; NULL: as recorded). On success *ndispatches and *ncols
 * (may be NULL) tell what was stored. */
int db_import_dir(const char *dir, const char *path, const char *accum_value,
                  const struct db_meta_kv *extra, size_t nextra, int replace,
                  size_t *ndispatches, size_t *ncols, struct err *err);

/* Load the database at path as a workload. want/ctx project the per-dispatch tables
 * (pmc_perf and the accumulate tables) to the columns want accepts (NULL: all);
 * Kernel_Name is always kept. Errors name the file: not a database, not a prism
 * database, a newer schema, no gpu_arch, no dispatches. */
int db_open_workload(const char *path, table_col_fn want, void *ctx, struct workload *w,
                     struct err *err);

/* db_open_workload streamed (workload_open_streamed): pmc_perf and the accumulate passes
 * are read a chunk of rows at a time into w->spill (the columns want accepts), and only
 * the columns keep accepts stay in w->pmc; w->acc hold the rows' counts. */
int db_open_streamed(const char *path, table_col_fn keep, void *keep_ctx, table_col_fn want,
                     void *want_ctx, struct workload *w, struct err *err);

/* Load n databases together: each is attached read-only to one connection and read through
 * temporary views that union them, never copied. out[i] receives paths[i]'s workload; on
 * error none is left open. n must not exceed db_attach_limit(). */
int db_open_many(const char *const *paths, size_t n, table_col_fn want, void *ctx,
                 struct workload *out, struct err *err);

/* How many databases one db_open_many call can attach (SQLite's compiled limit). */
size_t db_attach_limit(void);

/* The gpu_arch recorded in the database (malloc'd), without loading its counters. */
int db_read_arch(const char *path, char **arch, struct err *err);

/* A meta value of the database (malloc'd), or NULL with err filled when absent. */
char *db_read_meta(const char *path, const char *key, struct err *err);

#endif
