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

/* The overlay directories of dir (subdirectories named like a version) up to the data
 * version in force, oldest first: malloc'd paths. */
void data_overlays(const char *dir, char ***paths, size_t *n);

struct data_version {
        char name[16];
        char norm[16];   /* default normalization of that version */
};

/* Read <pdir>/versions. A missing file gives one unnamed version (per_wave). */
int data_versions_load(const char *pdir, struct data_version **v, size_t *n, struct err *err);

#endif
