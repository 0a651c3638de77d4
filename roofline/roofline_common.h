/* The roofline harness and the kernels that build under both CUDA and HIP: memory bandwidth
 * (HBM, L2, L1, shared memory/LDS) and vector FMA peaks. Each vendor file includes this once,
 * adds its matrix-unit kernels and calls rf_main() with its table of benchmarks. */
#ifndef PRISM_ROOFLINE_COMMON_H
#define PRISM_ROOFLINE_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one spelling of the runtime API for both vendors ---- */
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
typedef hipDeviceProp_t gpuDeviceProp;
typedef hipError_t gpuError_t;
typedef hipStream_t gpuStream_t;
typedef hipEvent_t gpuEvent_t;
#define gpuSuccess hipSuccess
#define gpuGetErrorString hipGetErrorString
#define gpuGetLastError hipGetLastError
#define gpuSetDevice hipSetDevice
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDeviceGetAttribute hipDeviceGetAttribute
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuEventCreate hipEventCreate
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuStreamCreate hipStreamCreate
#define gpuStreamDestroy hipStreamDestroy
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
#define gpuDevAttrClockRate hipDeviceAttributeClockRate
#define gpuDevAttrMemoryClockRate hipDeviceAttributeMemoryClockRate
#define gpuDevAttrMemoryBusWidth hipDeviceAttributeMemoryBusWidth
#define RF_SMEM_PER_SM(p) ((size_t)(p).maxSharedMemoryPerMultiProcessor)
#define RF_VENDOR "hip"
#else
#include <cuda_runtime.h>
typedef cudaDeviceProp gpuDeviceProp;
typedef cudaError_t gpuError_t;
typedef cudaStream_t gpuStream_t;
typedef cudaEvent_t gpuEvent_t;
#define gpuSuccess cudaSuccess
#define gpuGetErrorString cudaGetErrorString
#define gpuGetLastError cudaGetLastError
#define gpuSetDevice cudaSetDevice
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDeviceGetAttribute cudaDeviceGetAttribute
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuEventCreate cudaEventCreate
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuStreamCreate cudaStreamCreate
#define gpuStreamDestroy cudaStreamDestroy
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define gpuDevAttrClockRate cudaDevAttrClockRate
#define gpuDevAttrMemoryClockRate cudaDevAttrMemoryClockRate
#define gpuDevAttrMemoryBusWidth cudaDevAttrGlobalMemoryBusWidth
#define RF_SMEM_PER_SM(p) ((size_t)(p).sharedMemPerMultiprocessor)
#define RF_VENDOR "cuda"
#endif

/* Exit status of the benchmark binary: 0 ok, 2 no GPU of this vendor, 3 usage (a bad option
 * or device number), 4 a runtime failure. */
#define RF_CHECK(call)                                                                             \
        do {                                                                                       \
                gpuError_t e_ = (call);                                                            \
                if (e_ != gpuSuccess) {                                                            \
                        fprintf(stderr, "prism-roofline: %s failed: %s\n", #call,                  \
                                gpuGetErrorString(e_));                                            \
                        exit(4);                                                                   \
                }                                                                                  \
        } while (0)

/* ---- the device as the harness sees it ---- */
struct rf_dev {
        int id;
        gpuDeviceProp prop;
        int sms;         /* multiprocessors / compute units */
        size_t l2_bytes; /* L2 size reported by the runtime */
        size_t smem_sm;  /* shared memory (LDS) per multiprocessor */
        double clk_hz;   /* peak core clock */
        double hbm_peak; /* bytes/s from memory clock and bus width (DDR: two transfers) */
        int quick;
};

/* One benchmark run as prepare() sets it up: the launch geometry and the buffers. */
struct rf_run {
        const struct rf_dev *dev;
        unsigned grid, block;
        size_t smem;   /* dynamic shared memory per block */
        long iters;    /* loop steps per thread */
        int scalable;  /* 1: the harness may raise iters to lengthen a launch */
        uint32_t mask; /* index mask (in 16-byte elements) for wrapping kernels */
        void *buf;     /* input buffer (freed by the harness) */
        size_t buf_bytes;
        void *buf2; /* second buffer (copy destination), may be NULL */
        void *out;  /* sink, grid*block*16 bytes, allocated by the harness */
};

/* A table entry. bytes_per_iter and ops_per_iter are the work one loop step of one thread
 * does; the harness multiplies by iters * grid * block to get the work of one launch. */
struct rf_bench {
        const char *name;
        const char *column;    /* roofline.csv column this may fill (the best variant wins) */
        double bytes_per_iter; /* bandwidth benchmarks */
        double ops_per_iter;   /* FLOP (or integer op) benchmarks */
        int (*prepare)(struct rf_run *r); /* 0, or <0 to skip on this device */
        void (*launch)(const struct rf_run *r, gpuStream_t s);
        const char *what; /* one line for the detail table */
};

/* ---- device helpers ---- */
static inline unsigned rf_occupancy_grid(const struct rf_dev *d, const void *fn, unsigned block,
                                         size_t smem)
{
        int per_sm = 0;
        RF_CHECK(gpuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, (int)block, smem));
        if (per_sm < 1)
                per_sm = 1;
        return (unsigned)(per_sm * d->sms);
}

__global__ void rf_fill_kernel(uint32_t *p, size_t n, uint32_t seed)
{
        size_t stride = (size_t)gridDim.x * blockDim.x;
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
                uint32_t h = (uint32_t)i * 2654435761u ^ seed;
                h ^= h >> 15;
                h *= 2246822519u;
                h ^= h >> 13;
                p[i] = h | 1u; /* never zero: zeros can run faster than real data */
        }
}

/* Allocate and fill a buffer with a non-zero pattern. */
static inline void *rf_alloc_filled(size_t bytes)
{
        void *p = NULL;
        RF_CHECK(gpuMalloc(&p, bytes));
        rf_fill_kernel<<<1024, 256>>>((uint32_t *)p, bytes / 4, 0x9e3779b9u);
        RF_CHECK(gpuGetLastError());
        RF_CHECK(gpuDeviceSynchronize());
        return p;
}

static inline size_t rf_pow2_floor(size_t x)
{
        size_t p = 1;
        while (p * 2 <= x)
                p *= 2;
        return p;
}

/* ---- memory kernels ---- */
/* Loads of 16 bytes with a cache policy: 0 streaming (HBM), 1 L2 only (bypass L1),
 * 2 cached in L1, 3 read-only path. */
template <int POLICY> __device__ __forceinline__ int4 rf_load(const int4 *p)
{
#if defined(__HIPCC__)
        /* HIP's int4 is a struct, which the nontemporal builtins do not take; CDNA's small L1
         * (16 KiB) is not a concern for the streaming kernels anyway */
        return *p;
#else
        if (POLICY == 0)
                return __ldcs(p);
        if (POLICY == 1)
                return __ldcg(p);
        if (POLICY == 2)
                return __ldca(p);
        return __ldg(p);
#endif
}

__device__ __forceinline__ void rf_xor(int4 &a, int4 v)
{
        a.x ^= v.x;
        a.y ^= v.y;
        a.z ^= v.z;
        a.w ^= v.w;
}

/* The sink: written only when the xor of everything read hits one value, which keeps every
 * load alive without a store per thread in the timed work. */
__device__ __forceinline__ void rf_sink(int4 acc, int4 *out)
{
        if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x2c1b3c6d)
                out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/* Streaming read: step s, unroll u reads element ((s*U+u)*nth + tid) & mask. With LOCAL the
 * index is per block (tid = threadIdx.x, nth = blockDim.x), so every block re-reads the same
 * small region: an L1 working set. */
template <int POLICY, int U, bool LOCAL>
__global__ void rf_read_kernel(const int4 *__restrict__ p, long steps, uint32_t mask, int4 *out)
{
        /* 32-bit indices: the largest buffer is 2^28 elements, and 64-bit index arithmetic
         * would cost issue slots that the L1 and shared-memory kernels need */
        const uint32_t nth = LOCAL ? blockDim.x : gridDim.x * blockDim.x;
        uint32_t idx = LOCAL ? threadIdx.x : blockIdx.x * blockDim.x + threadIdx.x;
        int4 acc = make_int4(0, 0, 0, 0);
        for (long s = 0; s < steps; s++) {
                int4 v[U];
#pragma unroll
                for (int u = 0; u < U; u++)
                        v[u] = rf_load<POLICY>(p + ((idx + u * nth) & mask));
#pragma unroll
                for (int u = 0; u < U; u++)
                        rf_xor(acc, v[u]);
                idx += U * nth;
        }
        rf_sink(acc, out);
}

/* Streaming copy (read + write), for the detail table. */
template <int U> __global__ void rf_copy_kernel(const int4 *__restrict__ p, int4 *q, long steps)
{
        const long nth = (long)gridDim.x * blockDim.x;
        long idx = (long)blockIdx.x * blockDim.x + threadIdx.x;
        for (long s = 0; s < steps; s++) {
                int4 v[U];
#pragma unroll
                for (int u = 0; u < U; u++)
                        v[u] = rf_load<0>(p + idx + u * nth);
#pragma unroll
                for (int u = 0; u < U; u++)
                        q[idx + u * nth] = v[u];
                idx += U * nth;
        }
}

/* Shared memory (LDS) read: the block fills smem_bytes, then every thread reads 16 bytes per
 * load at ((s*U+u)*blockDim + tid) & mask: consecutive threads read consecutive 16-byte words,
 * so each quarter warp covers all banks once (no conflicts). */
template <int U> __global__ void rf_lds_kernel(long steps, uint32_t mask, int4 *out)
{
        extern __shared__ int4 rf_smem[];
        for (uint32_t i = threadIdx.x; i <= mask; i += blockDim.x)
                rf_smem[i] = make_int4((int)i * 3 + 1, (int)i ^ 0x55, (int)i + 7, blockIdx.x);
        __syncthreads();
        uint32_t idx = threadIdx.x;
        const uint32_t nth = blockDim.x;
        int4 acc = make_int4(0, 0, 0, 0);
        for (long s = 0; s < steps; s++) {
                int4 v[U];
#pragma unroll
                for (int u = 0; u < U; u++)
                        v[u] = rf_smem[(idx + u * nth) & mask];
#pragma unroll
                for (int u = 0; u < U; u++)
                        rf_xor(acc, v[u]);
                idx += U * nth;
        }
        rf_sink(acc, out);
}

/* ---- vector FMA kernels ---- */
/* C independent chains, R rounds per loop step: C*R fused multiply-adds per thread per step.
 * x = x*a + b with |a| < 1 converges, so values stay finite whatever iters is. */
#define RF_FMA_CHAINS 8
#define RF_FMA_ROUNDS 32

template <typename T> __device__ __forceinline__ T rf_fma(T x, T a, T b)
{
        return x * a + b; /* contracted to one FMA (-fmad=true, the default) */
}

template <typename T> __global__ void rf_fma_kernel(long iters, T a, T b, int4 *out)
{
        T x[RF_FMA_CHAINS];
#pragma unroll
        for (int c = 0; c < RF_FMA_CHAINS; c++)
                x[c] = (T)(threadIdx.x + c) * (T)0.001;
        for (long i = 0; i < iters; i++) {
#pragma unroll
                for (int r = 0; r < RF_FMA_ROUNDS; r++)
#pragma unroll
                        for (int c = 0; c < RF_FMA_CHAINS; c++)
                                x[c] = rf_fma(x[c], a, b);
        }
        T s = x[0];
#pragma unroll
        for (int c = 1; c < RF_FMA_CHAINS; c++)
                s += x[c];
        if (s == (T)-12345.0)
                out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = make_int4(1, 1, 1, 1);
}

/* ---- generic prepare/launch pairs for the kernels above ---- */
#define RF_BLOCK 256
#define RF_U_HBM 8

/* HBM: a buffer of 4 GiB (1 GiB with --quick), far larger than any L2. */
static inline size_t rf_hbm_bytes(const struct rf_dev *d)
{
        size_t want = d->quick ? ((size_t)1 << 30) : ((size_t)4 << 30);
        size_t total = d->prop.totalGlobalMem;
        while (want > total / 4)
                want /= 2;
        return want;
}

template <int POLICY, int U> static int rf_prep_hbm_read(struct rf_run *r)
{
        const struct rf_dev *d = r->dev;
        r->block = RF_BLOCK;
        r->grid = rf_occupancy_grid(d, (const void *)rf_read_kernel<POLICY, U, false>, r->block, 0);
        r->buf_bytes = rf_hbm_bytes(d);
        r->buf = rf_alloc_filled(r->buf_bytes);
        long elems = (long)(r->buf_bytes / 16);
        long per_step = (long)r->grid * r->block * U;
        /* one pass over the buffer per launch; the last step wraps (mask) onto lines read at the
         * start of the pass, long evicted, so every counted byte still comes from memory */
        r->iters = (elems + per_step - 1) / per_step;
        r->mask = (uint32_t)(elems - 1);
        r->scalable = 0;
        return 0;
}

template <int POLICY, int U> static void rf_launch_read(const struct rf_run *r, gpuStream_t s)
{
        rf_read_kernel<POLICY, U, false>
            <<<r->grid, r->block, 0, s>>>((const int4 *)r->buf, r->iters, r->mask, (int4 *)r->out);
}

static int rf_prep_hbm_copy(struct rf_run *r)
{
        const struct rf_dev *d = r->dev;
        r->block = RF_BLOCK;
        r->grid = rf_occupancy_grid(d, (const void *)rf_copy_kernel<4>, r->block, 0);
        long per_step = (long)r->grid * r->block * 4;
        size_t half = rf_hbm_bytes(d) / 2;
        r->iters = (long)(half / 16) / per_step;
        r->buf_bytes = (size_t)r->iters * per_step * 16;
        r->buf = rf_alloc_filled(r->buf_bytes);
        RF_CHECK(gpuMalloc(&r->buf2, r->buf_bytes));
        r->scalable = 0;
        return 0;
}

static void rf_launch_copy(const struct rf_run *r, gpuStream_t s)
{
        rf_copy_kernel<4>
            <<<r->grid, r->block, 0, s>>>((const int4 *)r->buf, (int4 *)r->buf2, r->iters);
}

/* L2: all threads stream over a working set of L2/DIV bytes (a power of two), with loads that
 * skip L1, so after the warm-up launches every load hits L2. U loads in flight a thread. */
template <int DIV, int U = 8> static int rf_prep_l2(struct rf_run *r)
{
        const struct rf_dev *d = r->dev;
        r->block = RF_BLOCK;
        r->grid = rf_occupancy_grid(d, (const void *)rf_read_kernel<1, U, false>, r->block, 0);
        r->buf_bytes = rf_pow2_floor(d->l2_bytes / DIV);
        r->buf = rf_alloc_filled(r->buf_bytes);
        r->mask = (uint32_t)(r->buf_bytes / 16) - 1;
        r->iters = 64;
        r->scalable = 1;
        return 0;
}

/* L1: every block re-reads the same region of KB kilobytes through the L1 cache, with no
 * shared memory so the carveout leaves L1 its largest share. */
template <int KB> static int rf_prep_l1(struct rf_run *r)
{
        const struct rf_dev *d = r->dev;
        r->block = RF_BLOCK;
        r->grid = rf_occupancy_grid(d, (const void *)rf_read_kernel<2, 8, true>, r->block, 0);
        r->buf_bytes = (size_t)KB << 10;
        r->buf = rf_alloc_filled(r->buf_bytes);
        r->mask = (uint32_t)(r->buf_bytes / 16) - 1;
        r->iters = 256;
        r->scalable = 1;
        return 0;
}

template <int POLICY> static void rf_launch_local(const struct rf_run *r, gpuStream_t s)
{
        rf_read_kernel<POLICY, 8, true>
            <<<r->grid, r->block, 0, s>>>((const int4 *)r->buf, r->iters, r->mask, (int4 *)r->out);
}

/* Shared memory: each block holds a power of two no larger than 1/8 of the multiprocessor's
 * shared memory (16 KiB on a 228 KiB Hopper SM, 8 KiB on a 64 KiB CDNA CU), so several
 * blocks fit per multiprocessor. */
static int rf_prep_lds(struct rf_run *r)
{
        const struct rf_dev *d = r->dev;
        r->block = RF_BLOCK;
        r->smem = rf_pow2_floor(d->smem_sm / 8);
        if (r->smem > 16384)
                r->smem = 16384;
        r->grid = rf_occupancy_grid(d, (const void *)rf_lds_kernel<8>, r->block, r->smem);
        r->mask = (uint32_t)(r->smem / 16) - 1;
        r->iters = 512;
        r->scalable = 1;
        return 0;
}

static void rf_launch_lds(const struct rf_run *r, gpuStream_t s)
{
        rf_lds_kernel<8><<<r->grid, r->block, r->smem, s>>>(r->iters, r->mask, (int4 *)r->out);
}

template <typename T> static int rf_prep_fma(struct rf_run *r)
{
        r->block = RF_BLOCK;
        r->grid = rf_occupancy_grid(r->dev, (const void *)rf_fma_kernel<T>, r->block, 0);
        r->iters = 64;
        r->scalable = 1;
        return 0;
}

template <typename T> static void rf_launch_fma(const struct rf_run *r, gpuStream_t s)
{
        rf_fma_kernel<T><<<r->grid, r->block, 0, s>>>(r->iters, (T)0.999, (T)0.001, (int4 *)r->out);
}

/* ---- harness ---- */
struct rf_result {
        const struct rf_bench *b;
        int ok;
        double mean, low, high; /* units/s */
        double sd;
        int n;
        double ms_per_launch;
        unsigned grid, block;
        long iters;
};

/* Two-sided 95% Student t quantile for df degrees of freedom (df = samples - 1). */
static double rf_t975(int df)
{
        static const double t[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                                   2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                   2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                                   2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
        if (df < 1)
                return NAN;
        if (df <= 30)
                return t[df];
        return df <= 60 ? 2.00 : 1.96;
}

static double rf_time_ms(const struct rf_bench *b, const struct rf_run *r, gpuStream_t s, int reps,
                         gpuEvent_t e0, gpuEvent_t e1)
{
        RF_CHECK(gpuEventRecord(e0, s));
        for (int i = 0; i < reps; i++)
                b->launch(r, s);
        RF_CHECK(gpuEventRecord(e1, s));
        RF_CHECK(gpuEventSynchronize(e1));
        RF_CHECK(gpuGetLastError());
        float ms = 0;
        RF_CHECK(gpuEventElapsedTime(&ms, e0, e1));
        return ms;
}

/* Warm up, size the launch, then time n samples of reps back-to-back launches each. */
static void rf_measure(const struct rf_dev *d, const struct rf_bench *b, struct rf_result *res)
{
        struct rf_run r;
        memset(&r, 0, sizeof r);
        memset(res, 0, sizeof *res);
        res->b = b;
        r.dev = d;
        if (b->prepare(&r) < 0)
                return;
        RF_CHECK(gpuMalloc(&r.out, (size_t)r.grid * r.block * 16));
        gpuStream_t s;
        gpuEvent_t e0, e1;
        RF_CHECK(gpuStreamCreate(&s));
        RF_CHECK(gpuEventCreate(&e0));
        RF_CHECK(gpuEventCreate(&e1));

        const double launch_ms = d->quick ? 1.0 : 2.0;
        const double sample_ms = d->quick ? 4.0 : 20.0;
        const int n = d->quick ? 6 : 20;

        double ms = rf_time_ms(b, &r, s, 2, e0, e1) / 2; /* warm-up: caches, clocks, module */
        if (r.scalable) {
                for (int k = 0; k < 6 && ms < launch_ms; k++) {
                        double f = ms > 0.01 ? launch_ms / ms : 64.0;
                        if (f > 64.0)
                                f = 64.0;
                        r.iters = (long)(r.iters * f * 1.05) + 1;
                        ms = rf_time_ms(b, &r, s, 1, e0, e1);
                }
        }
        ms = rf_time_ms(b, &r, s, 3, e0, e1) / 3;
        int reps = ms > 0 ? (int)ceil(sample_ms / ms) : 1;
        if (reps < 1)
                reps = 1;

        double work_per_iter = b->bytes_per_iter > 0 ? b->bytes_per_iter : b->ops_per_iter;
        double work = work_per_iter * (double)r.iters * (double)r.grid * (double)r.block;
        double sum = 0, sum2 = 0, tot_ms = 0;
        for (int i = 0; i < n; i++) {
                double t = rf_time_ms(b, &r, s, reps, e0, e1);
                double rate = work * reps / (t * 1e-3);
                sum += rate;
                sum2 += rate * rate;
                tot_ms += t;
        }
        res->n = n;
        res->mean = sum / n;
        double var = (sum2 - sum * sum / n) / (n - 1);
        res->sd = var > 0 ? sqrt(var) : 0;
        double half = rf_t975(n - 1) * res->sd / sqrt((double)n);
        res->low = res->mean - half;
        res->high = res->mean + half;
        res->ok = 1;
        res->ms_per_launch = tot_ms / n / reps;
        res->grid = r.grid;
        res->block = r.block;
        res->iters = r.iters;

        RF_CHECK(gpuEventDestroy(e0));
        RF_CHECK(gpuEventDestroy(e1));
        RF_CHECK(gpuStreamDestroy(s));
        RF_CHECK(gpuFree(r.out));
        if (r.buf)
                RF_CHECK(gpuFree(r.buf));
        if (r.buf2)
                RF_CHECK(gpuFree(r.buf2));
}

/* The rocprof-compute roofline.csv columns (names and order kept, typos included), then
 * prism's own vector columns. Each entry is a base name: Base, Base+Low, Base+High, except
 * where rocprof-compute spelled the bound differently. */
struct rf_column {
        const char *base, *low, *high;
};
static const struct rf_column rf_columns[] = {
    {"HBMBw", "HBMBwLow", "hbmBwHigh"},
    {"L2Bw", "L2BwLow", "L2BwHigh"},
    {"L1Bw", "L1BwLow", "L1BwHigh"},
    {"LDSBw", "LDSBwLow", "LDSBwHigh"},
    {"FP32Flops", "FP32FlopsLow", "FP32FlopsHigh"},
    {"FP64Flops", "FP64FlopsLow", "FP64FlopsHigh"},
    {"MFMABF16Flops", "MFMABF16FlopsLow", "MFMABF16FlopsHigh"},
    {"MFMAF16Flops", "MFMAF16FlopsLow", "MFMAF16FlopsHigh"},
    {"MFMAF32Flops", "MFMAF32FlopsLow", "MFMAF32FlopsHigh"},
    {"MFMAF64Flops", "MFMAF64FlopsLow", "MFMAF64FlopsHigh"},
    {"MFMAI8Ops", "MFMAFI8OpsLow", "MFMAI8OpsHigh"},
    /* prism's additions, appended */
    {"FP16Flops", "FP16FlopsLow", "FP16FlopsHigh"},
    {"BF16Flops", "BF16FlopsLow", "BF16FlopsHigh"},
    {"I8Ops", "I8OpsLow", "I8OpsHigh"},
};
#define RF_NCOLUMNS (sizeof rf_columns / sizeof rf_columns[0])

/* Vendor hook: the physical peak of a benchmark's column for the detail table, or 0 when
 * unknown. Defined by the vendor file. */
static double rf_peak(const struct rf_dev *d, const char *column);

static void rf_usage(FILE *f)
{
        fprintf(f,
                "usage: prism-roofline-%s [--device N] [--quick] [--list] [--only NAME]...\n"
                "                      [--quiet-absent]\n"
                "prints roofline.csv (header and one row) on stdout, details on stderr;\n"
                "exit 2 when no device is present (silently with --quiet-absent)\n",
                RF_VENDOR);
}

static int rf_main(int argc, char **argv, const struct rf_bench *tab, int ntab)
{
        int dev_id = 0, quick = 0, list = 0, quiet_absent = 0;
        const char *only[64];
        int nonly = 0;
        for (int i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "--device") && i + 1 < argc) {
                        char *end;
                        dev_id = (int)strtol(argv[++i], &end, 10);
                        if (*end || dev_id < 0) {
                                fprintf(stderr, "prism-roofline: bad device '%s'\n", argv[i]);
                                return 3;
                        }
                } else if (!strcmp(argv[i], "--quick")) {
                        quick = 1;
                } else if (!strcmp(argv[i], "--quiet-absent")) {
                        quiet_absent = 1;
                } else if (!strcmp(argv[i], "--list")) {
                        list = 1;
                } else if (!strcmp(argv[i], "--only") && i + 1 < argc && nonly < 64) {
                        only[nonly++] = argv[++i];
                } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
                        rf_usage(stdout);
                        return 0;
                } else {
                        fprintf(stderr, "prism-roofline: unknown option '%s'\n", argv[i]);
                        rf_usage(stderr);
                        return 3;
                }
        }
        if (list) {
                for (int i = 0; i < ntab; i++)
                        printf("%-18s %-14s %s\n", tab[i].name, tab[i].column ? tab[i].column : "-",
                               tab[i].what);
                return 0;
        }

        int count = 0;
        if (gpuGetDeviceCount(&count) != gpuSuccess || count == 0) {
                if (!quiet_absent)
                        fprintf(stderr, "prism-roofline: no %s device found\n", RF_VENDOR);
                return 2;
        }
        if (dev_id >= count) {
                fprintf(stderr, "prism-roofline: no device %d (%d present)\n", dev_id, count);
                return 3;
        }
        struct rf_dev d;
        memset(&d, 0, sizeof d);
        d.id = dev_id;
        d.quick = quick;
        RF_CHECK(gpuSetDevice(dev_id));
        RF_CHECK(gpuGetDeviceProperties(&d.prop, dev_id));
        d.sms = d.prop.multiProcessorCount;
        d.l2_bytes = (size_t)d.prop.l2CacheSize;
        d.smem_sm = RF_SMEM_PER_SM(d.prop);
        int khz = 0, mkhz = 0, bus = 0;
        RF_CHECK(gpuDeviceGetAttribute(&khz, gpuDevAttrClockRate, dev_id));
        RF_CHECK(gpuDeviceGetAttribute(&mkhz, gpuDevAttrMemoryClockRate, dev_id));
        RF_CHECK(gpuDeviceGetAttribute(&bus, gpuDevAttrMemoryBusWidth, dev_id));
        d.clk_hz = khz * 1e3;
        d.hbm_peak = mkhz * 1e3 * 2.0 * bus / 8.0;
        fprintf(stderr,
                "device %d: %s, %d multiprocessors, %.0f MHz, L2 %.1f MiB, shared %zu KiB/SM, "
                "memory %.0f MHz x %d bit (%.0f GB/s)\n",
                dev_id, d.prop.name, d.sms, d.clk_hz / 1e6, d.l2_bytes / 1048576.0,
                d.smem_sm / 1024, mkhz / 1e3, bus, d.hbm_peak / 1e9);

        struct rf_result *res = (struct rf_result *)calloc((size_t)ntab, sizeof *res);
        if (!res)
                return 4;
        fprintf(stderr, "%-18s %-14s %12s %12s %12s %6s %8s %9s %6s\n", "benchmark", "column",
                "mean", "low", "high", "unit", "ms/launch", "grid", "peak%");
        for (int i = 0; i < ntab; i++) {
                int want = nonly == 0;
                for (int k = 0; k < nonly; k++)
                        if (!strcmp(only[k], tab[i].name))
                                want = 1;
                if (!want)
                        continue;
                rf_measure(&d, &tab[i], &res[i]);
                if (!res[i].ok) {
                        fprintf(stderr, "%-18s skipped on this device\n", tab[i].name);
                        continue;
                }
                int bw = tab[i].bytes_per_iter > 0;
                double peak = tab[i].column ? rf_peak(&d, tab[i].column) : 0;
                char pct[16] = "-";
                if (peak > 0)
                        snprintf(pct, sizeof pct, "%.1f", 100.0 * res[i].mean / peak);
                fprintf(stderr, "%-18s %-14s %12.1f %12.1f %12.1f %6s %8.3f %9u %6s\n", tab[i].name,
                        tab[i].column ? tab[i].column : "-", res[i].mean / 1e9, res[i].low / 1e9,
                        res[i].high / 1e9, bw ? "GB/s" : "GOP/s", res[i].ms_per_launch, res[i].grid,
                        pct);
        }

        /* the CSV: one row for the device; each column takes its best variant */
        for (size_t c = 0; c < RF_NCOLUMNS; c++)
                printf("%s%s,%s,%s", c ? "," : "device,", rf_columns[c].base, rf_columns[c].low,
                       rf_columns[c].high);
        printf("\n%d", dev_id);
        for (size_t c = 0; c < RF_NCOLUMNS; c++) {
                const struct rf_result *best = NULL;
                for (int i = 0; i < ntab; i++)
                        if (res[i].ok && tab[i].column &&
                            !strcmp(tab[i].column, rf_columns[c].base) &&
                            (!best || res[i].mean > best->mean))
                                best = &res[i];
                if (best)
                        printf(",%.4f,%.4f,%.4f", best->mean / 1e9, best->low / 1e9,
                               best->high / 1e9);
                else
                        printf(",nan,nan,nan");
        }
        printf("\n");
        fflush(stdout);
        free(res);
        return 0;
}

#endif
