/* What a workload path is, asked once before anything is loaded: a workload directory, a
 * prism database or a multi-rank tree, with the facts about its files that loading needs
 * (so that no later step stats them again). The loads that follow a probe are in
 * workload.h (store_open_sysinfo, store_detect, store_load). */
#ifndef PRISM_PROBE_H
#define PRISM_PROBE_H

#include "formats.h"
#include "table.h"

enum store_kind {
        STORE_DIR = 1, /* a workload directory (docs/FORMATS.md; layout: store_detect) */
        STORE_DB,      /* a prism database: FILE.db, or a directory holding only prism.db */
        STORE_RANKS,   /* a multi-rank tree NAME/<node>/rank<N>/ (multi.h) */
};

struct store_probe {
        char *path;          /* as given */
        enum store_kind kind;
        char *db;            /* STORE_DB: the database file */
        char *sys;           /* STORE_DIR: path/sysinfo.csv (the name messages give) */
        int pmc_there;       /* STORE_DIR: pmc_perf.csv[.gz] or results_*.csv[.gz] there */
        /* the size of the per-dispatch data in bytes (a directory's pmc_perf.csv, else the
         * database), what deciding to stream keys on; -1: none to stream */
        long long data_bytes;
        /* STORE_DIR, once store_detect ran (detected): the layout, the accumulate files
         * (names without .csv, sorted) and the bytes of the small CSV files read for it */
        int detected;
        enum wl_layout layout;
        char **accum;
        size_t naccum;
        struct csv_texts ct;
};

/* Probe path. Errors (one line, naming path): neither a directory nor a database
 * ("not a directory"), a directory with neither sysinfo.csv nor pmc_perf.csv nor a
 * database or rank directories ("no pmc_perf.csv or sysinfo.csv found"), or without
 * sysinfo.csv ("no sysinfo.csv"). Free with store_probe_free (also after an error). */
int store_probe(const char *path, struct store_probe *p, struct err *err);
void store_probe_free(struct store_probe *p);

#endif
