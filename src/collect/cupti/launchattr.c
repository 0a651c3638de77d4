/* Launch attributes as metrics: the names ncu gives them (launch__*), written by the collector
 * from the launch call and from the kernel's activity record, with no hardware pass (the
 * family's `launch:` prefix keeps them out of CUPTI's pass counts). A name the collector does
 * not know is reported once and its cells stay empty (n/a); an attribute the driver or the
 * record does not give stays empty too. */
#include <math.h>
#include <string.h>

#include "collector.h"

static const char *const names[PC_LA_N] = {
    [PC_LA_SMEM_STATIC] = "launch__shared_mem_per_block_static",
    [PC_LA_SMEM_DYNAMIC] = "launch__shared_mem_per_block_dynamic",
    [PC_LA_STACK] = "launch__stack_size",
    [PC_LA_PERSIST_L2] = "launch__persisting_l2_cache_size",
    [PC_LA_CACHE_CONFIG] = "launch__func_cache_config",
    [PC_LA_CLUSTER_SIZE] = "launch__cluster_size",
    [PC_LA_CLUSTER_POLICY] = "launch__cluster_scheduling_policy",
    [PC_LA_CLUSTER_MAX_SIZE] = "launch__cluster_max_potential_size",
    [PC_LA_CLUSTER_MAX_ACTIVE] = "launch__cluster_max_active",
};

int pc_la_index(const char *name)
{
        for (int i = 0; i < PC_LA_N; i++)
                if (!strcmp(name, names[i]))
                        return i;
        return -1;
}

void pc_la_clear(double *la)
{
        for (int i = 0; i < PC_LA_N; i++)
                la[i] = NAN;
}

void pc_la_from_call(double *la, CUfunction f, const unsigned grid[3], const unsigned block[3],
                     int static_shared, unsigned dyn_shared)
{
        if (static_shared >= 0)
                la[PC_LA_SMEM_STATIC] = static_shared;
        la[PC_LA_SMEM_DYNAMIC] = dyn_shared;
        size_t v;
        if (pc_cu.ctx_get_limit && pc_cu.ctx_get_limit(&v, CU_LIMIT_STACK_SIZE) == CUDA_SUCCESS)
                la[PC_LA_STACK] = (double)v;
        if (pc_cu.ctx_get_limit &&
            pc_cu.ctx_get_limit(&v, CU_LIMIT_PERSISTING_L2_CACHE_SIZE) == CUDA_SUCCESS)
                la[PC_LA_PERSIST_L2] = (double)v;
        /* the largest cluster the kernel could run with (8 blocks, the portable size, for a
         * kernel that asks for no more), as ncu's launch__cluster_max_potential_size */
        int n = 0;
        CUlaunchConfig cfg = {.gridDimX = grid[0], .gridDimY = grid[1], .gridDimZ = grid[2],
                              .blockDimX = block[0], .blockDimY = block[1],
                              .blockDimZ = block[2], .sharedMemBytes = dyn_shared};
        if (pc_cu.max_cluster_size && pc_cu.max_cluster_size(&n, f, &cfg) == CUDA_SUCCESS)
                la[PC_LA_CLUSTER_MAX_SIZE] = n;
}

void pc_la_from_record(double *la, const CUpti_ActivityKernel10 *k)
{
        /* the function's preferred configuration, as ncu's launch__func_cache_config (the
         * driver's executed one read 0 in full profiles and 2 in a profile of panels 6-7 of
         * the same program on the H200) */
        la[PC_LA_CACHE_CONFIG] = k->cacheConfig.config.requested;
        la[PC_LA_CLUSTER_SIZE] = (double)k->clusterX * k->clusterY * k->clusterZ;
        la[PC_LA_CLUSTER_POLICY] = k->clusterSchedulingPolicy;
        la[PC_LA_CLUSTER_MAX_ACTIVE] = k->maxActiveClusters;
}

void pc_la_merge(double *dst, const double *src)
{
        for (int i = 0; i < PC_LA_N; i++)
                if (!isnan(src[i]))
                        dst[i] = src[i];
}
