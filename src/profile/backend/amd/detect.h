/* AMD GPU detection without the HSA runtime: the KFD topology in sysfs, the amdgpu DRM
 * info query where a render node can be opened, and the table that maps gfx targets and
 * device ids to the gpu_model names that rocprof-compute workloads use. */
#ifndef PRISM_DETECT_H
#define PRISM_DETECT_H

#include <stddef.h>

#include "../../../util/util.h"
#include "../../host.h"

struct table;

/* One AMD GPU as prism sees it; numbers are 0 when unknown. */
struct amd_gpu {
        int node;             /* KFD topology node number */
        int index;            /* 0-based among the GPU nodes (the GPU_ID of pmc_perf.csv) */
        unsigned gfx_version; /* gfx_target_version, e.g. 90010 */
        char gfx[16];         /* the gfx target name */
        char model[24];       /* the gpu_model name of the architecture data */
        unsigned vendor_id, device_id;
        int cu_per_gpu, simd_per_cu, se_per_gpu, wave_size;
        int max_waves_per_cu, workgroup_max_size;
        int lds_kb;
        int max_sclk, max_mclk; /* MHz */
        int num_xcd;
        int l1_kb, l2_kb;  /* largest level-1 data cache, level-2 cache (per XCD) */
        int total_l2_chan; /* L2 channels over all XCDs */
        int lds_banks_per_cu, pipes_per_gpu, sqc_per_gpu;
        int hbm_channels;
        double hbm_bw;     /* GB/s, as rocprof-compute computes it */
        int mem_bus_width; /* bits */
        unsigned long long vram_bytes;
        int drm_render_minor;                             /* -1 when unknown */
        char compute_partition[16], memory_partition[16]; /* "NA" when unknown */
        char vbios[64];
        /* identity: "GPU-" and the 16 hex digits of KFD's unique_id (what ROCR_VISIBLE_DEVICES
         * takes), and the PCI address "DDDD:BB:DD.F" of domain and location_id; "" unknown */
        char uuid[24], pci_bus[16];
};

/* The gfx target name of a KFD gfx_target_version: major * 10000 + minor * 100 + stepping,
 * the name "gfx" with the major in decimal and minor and stepping as one hex digit each.
 * Returns 0, or -1 if version is 0 or does not fit buf. */
int detect_gfx_name(unsigned gfx_version, char *buf, size_t len);

/* The gpu_model name for a gfx target and PCI device id (0: unknown) into buf, as the
 * architecture data names it (the family's models:, metrics/ files); -1 for a target
 * without a model there. */
int detect_amd_model(const char *gfx, unsigned device_id, char *buf, size_t len);

/* All AMD GPUs of the KFD topology under detect_root(), in node order. No topology or no
 * GPU node: 0 GPUs and return 0 (not an error). A node whose properties cannot be parsed
 * fills err. *gpus is malloc'd (free it). */
int detect_amd_gpus(struct amd_gpu **gpus, size_t *n, struct err *err);

/* Parse one node directory ("<root>/sys/class/kfd/kfd/topology/nodes/2"). Returns 1 and
 * fills g if the node is a GPU, 0 for a CPU node, negative with err on a broken file. */
int detect_amd_node(const char *node_dir, int node, struct amd_gpu *g, struct err *err);

/* Fill g with what the architecture data knows of a gfx target when no GPU is present (for planning
 * with --dry-run --arch): model, L2 channels, XCD count, wave size. Unknown target: error
 * naming the known ones. */
int detect_amd_defaults(const char *gfx, struct amd_gpu *g, struct err *err);

/* Fill row 0 of si (added if absent) with the sysinfo.csv columns that describe the machine
 * and this GPU: hostname ... num_xcd, in rocprof-compute's column order. The workload
 * columns (workload_name, command, ip_blocks, timestamp, version) are added empty first so
 * that the caller can fill them and the order stays that of recorded workloads. */
void detect_amd_sysinfo(const struct amd_gpu *g, struct table *si);


#endif
