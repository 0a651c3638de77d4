/* rocprof-compute versions as data: metrics/ and panels/ reproduce the oldest version
 * prism follows; each later one is an overlay directory (metrics/3.3/, panels/3.3/) that
 * states only what that version changed. panels/versions lists them with each one's
 * default normalization. The data version in force applies every overlay up to it. */
#ifndef PRISM_VERSIONS_H
#define PRISM_VERSIONS_H

#include <stddef.h>

#include "../util/util.h"

/* The version whose data arch_load, arch_list and panels_load give; NULL (the start): the
 * default version panels/versions marks (every overlay up to it), or the newest where none
 * is marked. */
void data_version_set(const char *version);
const char *data_version(void);

/* One listing of dir: its .yaml file names in the directory's order (malloc'd names, not
 * paths), and its overlay directories (entries named like a version) up to the data version
 * in force, oldest first (malloc'd paths). -1 (nothing set) when dir cannot be opened. */
int data_dir_list(const char *dir, char ***yaml, size_t *nyaml, char ***paths, size_t *n);

struct data_version {
        char name[16];
        char norm[16];   /* default normalization of that version */
        int is_default;  /* marked `default`: what analyze follows without --compat */
        /* how long layouts' rows become dispatches (store's struct pass_rules), as that
         * version reads them; each version keeps its predecessor's unless it says */
        int first_times, dispatch_base, new_sysinfo_names;
        int ratio_avg; /* avg=ratio: a ratio's mean is SUM(A) / SUM(B) (avg=mean: AVG) */
};

/* The normalizations -n takes (panels/versions' `normalizations` line), in that order;
 * each family's metric file gives each a formula under `normalizations:`. */
#define DATA_MAX_NORMS 16
struct data_norms {
        char names[DATA_MAX_NORMS][16];
        size_t n;
};

/* Read <pdir>/versions: lines `VERSION NORMALIZATION [default] [KEY=VALUE...]` with the keys
 * timestamps=median|first, dispatch_base=N, sysinfo_names=old|new and avg=mean|ratio, and
 * one line `normalizations NAME...` (norms, when not NULL, receives it), which names every
 * version's NORMALIZATION. At most one version is the default. A missing or malformed file
 * is an error naming it (and the line). */
int data_versions_load(const char *pdir, struct data_version **v, size_t *n,
                       struct data_norms *norms, struct err *err);

/* The index of name in dn, or -1. */
int data_norm_find(const struct data_norms *dn, const char *name);
/* 0 when name is one of dn, else the error "unknown normalization 'NAME' (the names)". */
int data_norm_check(const struct data_norms *dn, const char *name, struct err *err);

/* The index in v of the default version: the one marked, else the newest (n - 1). */
size_t data_version_default(const struct data_version *v, size_t n);

#endif
