/* Multi-rank trees, as `mpirun -n N prism profile -n NAME` or `srun ... prism profile`
 * writes them: NAME/<node>/rank<N>/ holds one rank's workload (a workload directory,
 * directly or in a <gpu model>/ directory, or a prism database). analyze loads a tree as one
 * workload whose per-dispatch table has two more columns, Rank and Node. */
#ifndef PRISM_MULTI_H
#define PRISM_MULTI_H

#include <stddef.h>

#include "table.h"
#include "workload.h"

struct rank_entry {
        char *path; /* the workload directory or database */
        char *node; /* the <node> directory's name */
        long rank;
        int is_db;
};

struct rank_tree {
        struct rank_entry *v; /* sorted by rank, then path */
        size_t n;
};

/* 1 if root holds at least one <node>/rank<N>/ directory. */
int multi_is_tree(const char *root);

/* Every rank workload under root. A rank number found under two node directories is an
 * error; a root that is no tree gives n == 0. Free with multi_free. */
int multi_scan(const char *root, struct rank_tree *t, struct err *err);
void multi_free(struct rank_tree *t);

/* How one rank that is no database is opened, and its gpu_arch read: the opener's
 * (workload_open_cols, workload_arch), handed down so that this file never calls up into it. */
typedef int (*multi_open_fn)(const char *path, table_col_fn want, void *ctx, struct workload *w,
                             struct err *err);
typedef int (*multi_arch_fn)(const char *path, char **arch, struct err *err);

/* Load every rank of the tree at root and concatenate them into w (rows in rank order).
 * Databases are attached together, up to db_attach_limit() at a time, and read through
 * views; other ranks are opened with open_one. want/ctx project the per-dispatch tables as
 * in workload_open_cols. sysinfo and roofline are the lowest rank's; ranks recorded on
 * different architectures are an error. */
int multi_open(const char *root, table_col_fn want, void *ctx, multi_open_fn open_one,
               struct workload *w, struct err *err);

/* The gpu_arch of the tree's lowest rank (malloc'd), read with arch_one. */
int multi_arch(const char *root, multi_arch_fn arch_one, char **arch, struct err *err);

/* Append src's rows to dst, tagging them with rank and node (columns "Rank", "Node" of
 * pmc). Columns are matched by name, new ones added (earlier rows NaN); accumulate tables
 * stay aligned with pmc by row (padded with empty rows where a rank has fewer). An empty
 * dst takes src's sysinfo, roofline, arch and model. */
void multi_append(struct workload *dst, const struct workload *src, long rank, const char *node);

#endif
