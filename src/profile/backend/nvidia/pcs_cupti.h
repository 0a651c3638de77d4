/* NVIDIA PC sampling, the profile side (pcs_cupti.c): the backend's pc_sampling, and the
 * SASS listing reader that gives each sampled offset its instruction. */
#ifndef PRISM_PCS_CUPTI_H
#define PRISM_PCS_CUPTI_H

#include "../../../util/util.h"
#include "../../backend.h"

/* backend_cupti's pc_sampling (backend.h) */
int cupti_pc_sampling(const struct backend_pcs *p, struct err *err);

/* Instructions by function (mangled) and offset, from `nvdisasm -c` or `cuobjdump -sass`
 * listings (several may be parsed into one index). */
struct sass_index {
        struct smap at;
        char **text;
        size_t n, cap;
};
void pcs_sass_parse(struct sass_index *ix, const char *listing);
/* The instruction at off of func ("LDG.E R2, desc[UR4][R2.64]"), or NULL. */
const char *pcs_sass_at(const struct sass_index *ix, const char *func, unsigned long long off);
void pcs_sass_free(struct sass_index *ix);

#endif
