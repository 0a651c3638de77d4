/* The input files of one rocprofv3 run (the AMD backend): the counter list (-i) and the
 * counter definitions (-E) for per-channel and accumulate counters, in the layout that
 * rocprof-compute 3.x's perfmon files show real rocprofv3 runs used. */
#ifndef PRISM_ROCPROF_INPUT_H
#define PRISM_ROCPROF_INPUT_H

#include "../../backend.h"

struct rocprof_gpu {
        const char *gfx;   /* the gfx target the definitions are for */
        int num_xcd;       /* XCDs (1 or more) */
        int total_l2_chan; /* L2 channels over all XCDs; channel n is instance
                              n % (total / num_xcd) of XCD n / (total / num_xcd) */
        int schema_v1;     /* ROCm 7: "counters-schema-version: 1"; else the ROCm 6 map */
};

/* The name rocprofv3 knows counter i of the pass by: the accumulate value of an
 * accumulate pass is NAME_ACCUM, defined as accumulate(NAME, HIGH_RES). malloc'd. */
char *rocprof_name(const struct backend_pass *p, size_t i);

/* "pmc: A B C\n\ngpu:\nrange:\nkernel:\n" (malloc'd). */
char *rocprof_pass_text(const struct backend_pass *p);

/* The counter definitions the pass needs (malloc'd), or NULL when it needs none. */
char *rocprof_pass_yaml(const struct backend_pass *p, const struct rocprof_gpu *g);

/* backend_rocprof.c: $PRISM_ROCPROFV3, else rocprofv3 on PATH, else /opt/rocm/bin's;
 * malloc'd, NULL if none. */
char *rocprof_tool(void);
/* The files under dir (3 levels down) whose names end with suffix, sorted (malloc'd paths
 * appended to *out). */
void rocprof_find_files(const char *dir, const char *suffix, int depth, char ***out,
                        size_t *n, size_t *cap);

/* pcs_rocprof.c: the backend's pc_sampling (backend.h): rocprofv3's PC sampling. */
int rocprof_pc_sampling(const struct backend_pcs *p, struct err *err);

#endif
