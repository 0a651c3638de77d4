/* A workload session: everything analyze opens before it analyzes, opened once and in one
 * place. prism's data in the rocprof-compute version in force (its normalization, its
 * pass rules, how it averages ratios), the panels, and one or two workloads, each probed
 * (store/probe.h), its sysinfo and its architecture loaded once, then its dispatches
 * (only the columns the selected tables read). */
#ifndef PRISM_SESSION_H
#define PRISM_SESSION_H

#include "../arch/arch.h"
#include "../arch/versions.h"
#include "../store/workload.h"
#include "analysis.h"

struct session {
        char *mdir, *pdir;         /* metrics/ and panels/ */
        struct data_version ver;   /* the version in force (--compat, else the default) */
        struct data_norms norms;   /* the normalizations -n takes */
        const char *norm;          /* -n, else the version's default normalization */
        int ratio_avg;             /* that version averages ratios as SUM(A) / SUM(B) */
        struct panel_set ps;
        struct workload w[2];
        struct arch a[2];
        size_t n;                  /* workloads open (w and a both loaded) */
        struct analysis an[2];     /* session_analyze's, one per workload open */
        size_t nan;
        struct arch list;          /* --list-metrics TARGET's architecture (has_list) */
        int has_list;
};

/* Find prism's data and apply the version compat names (NULL: the default of
 * panels/versions): data_version_set, the long layouts' pass rules (formats_rules_set),
 * s->ratio_avg and s->norm (norm, else the version's default). Errors: no data directory,
 * panels/versions' own; a norm that is none of panels/versions' normalizations, then an
 * unknown version (each message lists the known ones). s is zeroed first; close it with
 * session_close whatever this returns. */
int session_data(struct session *s, const char *compat, const char *norm, struct err *err);

/* The panels, and the n (0 to 2) workloads at paths: each probed once, its sysinfo read
 * once, its architecture loaded once (the first one's while the panels load on a second
 * thread, with the rules of its family for the findings: sel->no_findings), then its
 * dispatches, reading only the columns of the tables sel's -b ids select. A workload of
 * $PRISM_STREAM_MB megabytes or more (default 32) is streamed (store_cols.keep). Warnings
 * come out in the order of a one-thread run. With a workload, the panels take the first
 * one's family titles. Errors name the file (more than two paths: a usage error). */
int session_open(struct session *s, char *const *paths, size_t n,
                 const struct analysis_opts *sel, struct err *err);

/* The architecture --list-metrics lists: target's (loaded once; with no workload open
 * its family titles become the panels'), or with target NULL the first workload's. An
 * unknown target is arch_load's error. */
int session_list_arch(struct session *s, const char *target, const struct arch **a,
                      struct err *err);

/* 1 if the first workload is a multi-rank tree's (its dispatches have a Rank column) */
int session_multi_rank(const struct session *s);

/* Analyze each open workload with o into s->an (the roofline, o->roof, is the first one's
 * alone: set it only with one workload). Then what the report must say once: the counters
 * the first workload was not collected with (the metrics that need them are n/a), and the
 * values a difference of counters read in different passes had clamped to 0. Errors name
 * the workload. */
int session_analyze(struct session *s, const struct analysis_opts *o, struct err *err);

void session_close(struct session *s);

#endif
