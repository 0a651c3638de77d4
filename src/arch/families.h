/* The metric files of a directory and its version overlays: their headers (family,
 * parent, targets), read to find an architecture's chain. Internal to src/arch. */
#ifndef PRISM_FAMILIES_H
#define PRISM_FAMILIES_H

#include <stddef.h>

#include "../util/util.h"
#include "yamldoc.h"

/* One metric file's header, read to find the chain. */
struct family_file {
        char *path;
        char *family;
        char *inherits;
        char **archs;
        size_t narchs;
        char **over;        /* version overlays of this family, applied after it in order */
        size_t nover;
        /* the texts of the file and of its overlays, read once: the header scan and the
         * full load (arch_load) use the same */
        struct ysrc src;
        struct ysrc *over_src;
};

/* Read the headers of every .yaml file in dir, then of the version overlays in force
 * (dir/<version>/, versions.h): a file there naming a family of dir overlays it (its path
 * goes to that family's `over`), any other is a family of its own. Each file is read at
 * most once (ysrc_open: not at all where stat shows the packed file unchanged). Uses no
 * state shared between calls: safe from several threads. */
int scan_families(const char *dir, struct family_file **out, size_t *nout, struct err *err);
void family_files_free(struct family_file *ff, size_t n);

#endif
