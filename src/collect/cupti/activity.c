/* What the collector records of each launch besides its counters:
 * - kernel start/end timestamps (ns, CUPTI's clock) from CUPTI activity records of kind
 *   CONCURRENT_KERNEL (or KERNEL), joined to the launches by correlation id. Under kernel
 *   replay a launch may give more than one record; the first (earliest start) is kept.
 * - launch attributes as metrics: the names ncu gives them (launch__*), written from the
 *   launch call and from the kernel's activity record, with no hardware pass (the family's
 *   `launch:` prefix keeps them out of CUPTI's pass counts). A name the collector does not
 *   know is reported once and its cells stay empty (n/a); an attribute the driver or the
 *   record does not give stays empty too. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_activity.h>

#include "collector.h"

#define BUF_SIZE (4u << 20)
#define BUF_ALIGN 8

struct span {
        uint32_t correlation;
        uint64_t start, end;
        double la[PC_LA_N]; /* the launch attributes the record gives */
};

static struct span *spans;
static size_t nspans, cap_spans;
static pthread_mutex_t spans_lock = PTHREAD_MUTEX_INITIALIZER;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
        *buffer = aligned_alloc(BUF_ALIGN, BUF_SIZE);
        *size = *buffer ? BUF_SIZE : 0;
        *max_records = 0;
}

static void add_span(const CUpti_ActivityKernel10 *k)
{
        if (nspans == cap_spans) {
                size_t cap = cap_spans ? 2 * cap_spans : 1024;
                struct span *n = realloc(spans, cap * sizeof *n);
                if (!n)
                        return;
                spans = n;
                cap_spans = cap;
        }
        struct span *sp = &spans[nspans++];
        *sp = (struct span){k->correlationId, k->start, k->end, {0}};
        pc_la_clear(sp->la);
        pc_la_from_record(sp->la, k);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
        CUpti_Activity *rec = NULL;
        (void)ctx;
        (void)stream;
        (void)size;
        pthread_mutex_lock(&spans_lock);
        while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
                if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
                    rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
                        continue;
                const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
                if (nspans < 3)
                        pc_debug("activity record: correlation %u start %llu end %llu",
                                 k->correlationId, (unsigned long long)k->start,
                                 (unsigned long long)k->end);
                add_span(k);
        }
        pthread_mutex_unlock(&spans_lock);
        free(buffer);
}

/* A failure here is a warning: the caller falls back to API timestamps. */
int pc_activity_start(void)
{
        char buf[256];
        CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
        if (r == CUPTI_SUCCESS)
                r = cuptiActivityEnable((CUpti_ActivityKind)pc.activity_kind);
        if (r == CUPTI_SUCCESS)
                return 0;
        pc_format_result(buf, sizeof buf, r, "cannot enable kernel activity records");
        pc_warn("%s", buf);
        return -1;
}

static int by_corr(const void *a, const void *b)
{
        const struct span *x = a, *y = b;
        if (x->correlation != y->correlation)
                return x->correlation < y->correlation ? -1 : 1;
        return x->start < y->start ? -1 : x->start > y->start;
}

static int launch_by_corr(const void *a, const void *b)
{
        size_t i = *(const size_t *)a, j = *(const size_t *)b;
        uint32_t x = pc.launches[i].correlation, y = pc.launches[j].correlation;
        return x < y ? -1 : x > y;
}

void pc_activity_finish(void)
{
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        pthread_mutex_lock(&spans_lock);
        qsort(spans, nspans, sizeof *spans, by_corr);
        size_t *order = malloc((pc.nlaunches ? pc.nlaunches : 1) * sizeof *order);
        if (!order)
                goto out;
        for (size_t i = 0; i < pc.nlaunches; i++)
                order[i] = i;
        qsort(order, pc.nlaunches, sizeof *order, launch_by_corr);
        size_t s = 0, nrec = 0, extra = 0;
        for (size_t i = 0; i < pc.nlaunches; i++) {
                struct pc_launch *l = &pc.launches[order[i]];
                while (s < nspans && spans[s].correlation < l->correlation)
                        s++;
                if (s < nspans && spans[s].correlation == l->correlation) {
                        l->start = spans[s].start;
                        l->end = spans[s].end;
                        /* launch attributes from a record of a kernel that ran (a start
                         * time), the first record's otherwise */
                        size_t a = s;
                        nrec++;
                        while (s + 1 < nspans && spans[s + 1].correlation == l->correlation) {
                                s++;
                                extra++;
                                if (!spans[a].start && spans[s].start)
                                        a = s;
                        }
                        pc_la_merge(l->la, spans[a].la);
                }
        }
        pc_debug("activity: %zu records, %zu launches matched, %zu extra records (replays)", nspans,
                 nrec, extra);
        free(order);
out:
        free(spans);
        spans = NULL;
        nspans = cap_spans = 0;
        pthread_mutex_unlock(&spans_lock);
}

/* ---- launch attributes ---- */

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
