// Kernels whose limiter is known by construction, one per class of finding, for the findings
// ground truth (tests/gpu/run-findings-check.sh records them with prism and ncu; the recording
// in tests/data/limiters checks every verdict offline, tests/findings.sh):
//   strided      each lane loads a float from its own 128-byte line     uncoalesced loads
//   chase        a dependent pointer chase, 132 blocks of one thread     grid too small (latency)
//   mma_grid     a tensor-core loop on 132 blocks of 128 threads        grid too small (one wave
//                                                                         holds 16x more blocks)
//   diverge      8 FFMA chains run by 4 of the 32 lanes of every warp    warp divergence
//   atomics      float atomics from every thread onto 4 addresses       atomics serialization
//   local_array  a 64-float private array indexed at run time            local memory
//   one_block    8 FFMA chains in a single block of 256 threads          grid too small (1 block)
//   tail         FFMA chains on 1.2 waves of blocks                       tail wave
//   smem_conflict shared-memory loop at a stride of 32 words              32-way bank conflicts
//   fma32 / fma64 / mma_full  FP32, FP64 and FP16 tensor loops on a full grid   their pipe
//   gemm         cublasSgemm 4096^3 (a library kernel)                    FMA pipe / compute
// Usage: limiters [all|NAME...] [-l L]; prints EXPECT lines (grid and what the kernel does).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#ifndef NO_CUBLAS // -DNO_CUBLAS: without the GEMM, for a machine without libcublas
#include <cublas_v2.h>
#endif

#define PROG "limiters"
#include "common.cuh"

__global__ void strided(float *__restrict__ out, const float *__restrict__ in, size_t mask)
{
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = in[(i * 32) & mask]; // 32 floats = 128 bytes apart: one sector per lane
}

// next[] is one full-period cycle (an LCG modulo a power of two), so every load depends on
// the one before and they land far apart
__global__ void init_chain(unsigned *next, unsigned mask)
{
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i <= mask)
                next[i] = (i * 1664525u + 1013904223u) & mask;
}

__global__ void chase(const unsigned *__restrict__ next, unsigned *out, int steps)
{
        unsigned p = blockIdx.x * 7919u;
        for (int s = 0; s < steps; s++)
                p = next[p];
        out[blockIdx.x] = p;
}

__global__ void mma_grid(const half *a, const half *b, float *c, int iters)
{
        mma_f16_loop(a, b, c, iters);
}

__global__ void mma_full(const half *a, const half *b, float *c, int iters)
{
        mma_f16_loop(a, b, c, iters);
}

__global__ void diverge(float *x, int iters)
{
        if ((threadIdx.x & 7) == 0) // lanes 0, 8, 16, 24
                fma8_chains(x, iters);
}

__global__ void atomics(float *ctr, int iters)
{
        float v = (float)(threadIdx.x & 15);
        for (int j = 0; j < iters; j++)
                atomicAdd(&ctr[(threadIdx.x + j) & 3], v);
}

__global__ void local_array(float *out, const int *idx, int iters)
{
        float a[64];
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        for (int k = 0; k < 64; k++)
                a[k] = (float)(k + i);
        int p = idx[i & 1023];
        float s = 0.0f;
        for (int j = 0; j < iters; j++) {
                int q = (p + j * 7) & 63;
                s += a[q];
                a[(q + 13) & 63] = s * 0.5f;
        }
        out[i] = s;
}

__global__ void one_block(float *x, int iters)
{
        fma8_chains(x, iters);
}

__global__ void tail(float *x, int iters)
{
        fma8_chains(x, iters);
}

__global__ void fma32(float *x, int iters)
{
        fma8_chains(x, iters);
}

__global__ void fma64(double *x, int iters)
{
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        double v0 = x[i], v1 = v0 + 1.0, v2 = v0 + 2.0, v3 = v0 + 3.0;
        const double k = 0.9999, o = 0.0001;
#pragma unroll 4
        for (int j = 0; j < iters; j++) {
                v0 = fma(v0, k, o);
                v1 = fma(v1, k, o);
                v2 = fma(v2, k, o);
                v3 = fma(v3, k, o);
        }
        x[i] = (v0 + v1) + (v2 + v3);
}

// each thread reads and writes shared word (t * 32 + j) mod 8192: all 32 lanes in one bank
__global__ void smem_conflict(float *out, int iters)
{
        __shared__ float s[8192];
        smem_stride_loop(s, out, iters, 32);
}

static const char *const names[] = {"strided",  "chase", "mma_grid", "diverge",       "atomics",
                                    "local_array", "one_block", "tail", "smem_conflict",
                                    "fma32",    "fma64", "mma_full", "gemm"};
static const size_t nnames = sizeof names / sizeof *names;

int main(int argc, char **argv)
{
        int launches = 1, sel[16] = {0};
        if (select_kernels(argc, argv, names, nnames, sel, &launches))
                return 2;
        int sms = 0;
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        const size_t nin = (size_t)64 << 20, nout = (size_t)8 << 20; // 256 MiB in, 32 MiB out
        const unsigned cmask = (1u << 24) - 1;                       // 64 MiB chain
        const int full = sms * 2048; // threads of a full grid (2048 per SM)
        float *in, *out, *x, *ctr, *c, *g = NULL;
        double *xd;
        unsigned *next, *cout;
        int *idx;
        half *ab;
        CK(cudaMalloc(&in, nin * sizeof(float)));
        CK(cudaMalloc(&out, nout * sizeof(float)));
        CK(cudaMalloc(&x, (size_t)full * 2 * sizeof(float)));
        CK(cudaMalloc(&xd, (size_t)full * sizeof(double)));
        CK(cudaMalloc(&ctr, 4 * sizeof(float)));
        CK(cudaMalloc(&c, (size_t)full / 32 * 256 * sizeof(float)));
        CK(cudaMalloc(&next, ((size_t)cmask + 1) * sizeof(unsigned)));
        CK(cudaMalloc(&cout, 1024 * sizeof(unsigned)));
        CK(cudaMalloc(&idx, 1024 * sizeof(int)));
        CK(cudaMalloc(&ab, 512 * sizeof(half)));
        CK(cudaMemset(in, 0, nin * sizeof(float)));
        CK(cudaMemset(x, 0, (size_t)full * 2 * sizeof(float)));
        CK(cudaMemset(xd, 0, (size_t)full * sizeof(double)));
        CK(cudaMemset(ctr, 0, 4 * sizeof(float)));
        CK(cudaMemset(idx, 0, 1024 * sizeof(int)));
        CK(cudaMemset(ab, 0, 512 * sizeof(half)));
        int tail_per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&tail_per_sm, tail, 256, 0));
        const int tail_blocks = sms * tail_per_sm + sms * tail_per_sm / 5; // 1.2 waves
        const int gn = 4096;
#ifdef NO_CUBLAS
        sel[12] = 0;
        (void)g;
        (void)gn;
#else
        cublasHandle_t h = NULL;
        if (sel[12]) {
                if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
                        fprintf(stderr, "limiters: cublasCreate failed\n");
                        return 1;
                }
                CK(cudaMalloc(&g, (size_t)3 * gn * gn * sizeof(float)));
                CK(cudaMemset(g, 0, (size_t)3 * gn * gn * sizeof(float)));
        }
#endif
        if (sel[1])
                init_chain<<<(cmask + 1) / 256, 256>>>(next, cmask);
        for (int l = 0; l < launches; l++) {
                if (sel[0])
                        strided<<<(unsigned)(nout / 256), 256>>>(out, in, nin - 1);
                if (sel[1])
                        chase<<<sms, 1>>>(next, cout, 4096);
                if (sel[2])
                        mma_grid<<<sms, 128>>>(ab, ab + 256, c, 65536);
                if (sel[3])
                        diverge<<<full / 256, 256>>>(x, 4096);
                if (sel[4])
                        atomics<<<sms * 8, 256>>>(ctr, 16);
                if (sel[5])
                        local_array<<<full / 256, 256>>>(x, idx, 512);
                if (sel[6])
                        one_block<<<1, 256>>>(x, 65536);
                if (sel[7])
                        tail<<<tail_blocks, 256>>>(x, 8192);
                if (sel[8])
                        smem_conflict<<<sms * 4, 256>>>(x, 1024);
                if (sel[9])
                        fma32<<<full / 256, 256>>>(x, 4096);
                if (sel[10])
                        fma64<<<full / 256, 256>>>(xd, 2048);
                if (sel[11])
                        mma_full<<<full / 128, 128>>>(ab, ab + 256, c, 2048);
#ifndef NO_CUBLAS
                if (sel[12]) {
                        const float one = 1.0f, zero = 0.0f;
                        float *A = g, *B = g + (size_t)gn * gn, *C = g + (size_t)2 * gn * gn;
                        if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, gn, gn, gn, &one, A, gn, B, gn,
                                        &zero, C, gn) != CUBLAS_STATUS_SUCCESS) {
                                fprintf(stderr, "limiters: cublasSgemm failed\n");
                                return 1;
                        }
                }
#endif
                CK(cudaGetLastError());
        }
        CK(cudaDeviceSynchronize());
        printf("EXPECT strided grid_blocks %zu block 256 bytes_used_per_sector 4\n", nout / 256);
        printf("EXPECT chase grid_blocks %d block 1 steps 4096\n", sms);
        printf("EXPECT mma_grid grid_blocks %d block 128\n", sms);
        printf("EXPECT diverge grid_blocks %d block 256 active_lanes 4\n", full / 256);
        printf("EXPECT atomics grid_blocks %d block 256 addresses 4\n", sms * 8);
        printf("EXPECT local_array grid_blocks %d block 256 local_floats 64\n", full / 256);
        printf("EXPECT one_block grid_blocks 1 block 256\n");
        printf("EXPECT tail grid_blocks %d block 256 blocks_per_sm %d waves 1.2\n", tail_blocks,
               tail_per_sm);
        printf("EXPECT smem_conflict grid_blocks %d block 256 bank_ways 32\n", sms * 4);
        printf("EXPECT fma32 grid_blocks %d fma64 grid_blocks %d mma_full grid_blocks %d\n",
               full / 256, full / 256, full / 128);
#ifndef NO_CUBLAS
        printf("EXPECT gemm sgemm %d\n", gn);
        if (h)
                cublasDestroy(h);
#endif
        return 0;
}
