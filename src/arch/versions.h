/* rocprof-compute versions as data: metrics/ and panels/ reproduce the oldest version
 * prism follows; each later one is an overlay directory (metrics/3.3/, panels/3.3/) that
 * states only what that version changed. panels/versions lists them with each one's
 * default normalization. The data version in force applies every overlay up to it. */
#ifndef PRISM_VERSIONS_H
#define PRISM_VERSIONS_H

#include <stddef.h>

#include "../util/util.h"

/* The version whose data arch_load, arch_list and panels_load give; NULL (the start):
 * every overlay, i.e. the newest version. */
void data_version_set(const char *version);
const char *data_version(void);

/* One listing of dir: its .yaml file names in the directory's order (malloc'd names, not
 * paths), and its overlay directories (entries named like a version) up to the data version
 * in force, oldest first (malloc'd paths). -1 (nothing set) when dir cannot be opened. */
int data_dir_list(const char *dir, char ***yaml, size_t *nyaml, char ***paths, size_t *n);

struct data_version {
        char name[16];
        char norm[16];   /* default normalization of that version */
};

/* Read <pdir>/versions. A missing file gives one unnamed version (per_wave). */
int data_versions_load(const char *pdir, struct data_version **v, size_t *n, struct err *err);

#endif
