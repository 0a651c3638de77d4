// Seven kinds of kernels, each with one clear limiter and work known exactly, for checking
// prism's NVIDIA metrics against ncu, kernel against application replay, and the findings:
//   copy        b[i] = a[i] over N floats               DRAM bandwidth (4N read, 4N written)
//   fma32       8 independent FFMA chains x I per thread FMA pipe (8*I FFMA per thread)
//   fma64       4 independent DFMA chains x I per thread FP64 pipe (4*I DFMA per thread)
//   smem_s1     shared-memory loop, stride 1 words        shared memory, no bank conflicts
//   smem_s32    the same loop at stride 32 words          32-way bank conflicts
//   smem_lowocc stride-1 loop, 48 KiB dynamic shared/block occupancy (4 blocks of 64 per SM)
//   mma_small   FP16 tensor-core loop on 8 blocks         grid far too small for 132 SMs
// Usage: kinds [all|copy|fma32|fma64|smem_s1|smem_s32|smem_lowocc|mma_small] [-s SCALE] [-l L]
// Prints one EXPECT line per kernel with its exact per-launch amounts.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define PROG "kinds"
#include "common.cuh"

__global__ void copy(float *__restrict__ b, const float *__restrict__ a, size_t n)
{
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
                b[i] = a[i];
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

// Each thread reads and writes shared words (t * stride + j) mod 8192: stride 1 spreads a
// warp's 32 accesses over the 32 banks, stride 32 puts all of them in one bank.
__global__ void smem_loop(float *out, int iters, int stride)
{
        extern __shared__ float s[]; // 32 KiB touched, whatever the dynamic size
        smem_stride_loop(s, out, iters, stride);
}

__global__ void mma_small(const half *a, const half *b, float *c, int iters)
{
        mma_f16_loop(a, b, c, iters);
}

static int want(const char *which, const char *name)
{
        return !strcmp(which, "all") || !strcmp(which, name);
}

int main(int argc, char **argv)
{
        const char *which = argc > 1 && argv[1][0] != '-' ? argv[1] : "all";
        static const char *names[] = {"all",      "copy",        "fma32",    "fma64",
                                      "smem_s1", "smem_s32", "smem_lowocc", "mma_small"};
        int known = 0;
        for (size_t k = 0; k < sizeof names / sizeof *names; k++)
                known |= !strcmp(which, names[k]);
        if (!known) {
                fprintf(stderr, "usage: kinds [all|copy|fma32|fma64|smem_s1|smem_s32|"
                                "smem_lowocc|mma_small] [-s SCALE] [-l L]\n");
                return 2;
        }
        int scale = 1, launches = 1;
        for (int i = which == argv[1] ? 2 : 1; i < argc; i++) {
                if (!strcmp(argv[i], "-s") && i + 1 < argc)
                        scale = atoi(argv[++i]);
                else if (!strcmp(argv[i], "-l") && i + 1 < argc)
                        launches = atoi(argv[++i]);
                else {
                        fprintf(stderr, "kinds: bad argument '%s'\n", argv[i]);
                        return 2;
                }
        }
        if (scale < 1 || launches < 1) {
                fprintf(stderr, "kinds: -s and -l take positive numbers\n");
                return 2;
        }
        const size_t n = (size_t)32 << 20; // 2 x 128 MiB, beyond the 50 MiB L2
        const int threads = 132 * 2048, it32 = 4096 * scale, it64 = 2048 * scale;
        const int sblocks = 132 * 4, sthreads = 256, sit = 4096 * scale;
        const int lowblocks = 132 * 4, lowthreads = 64, lowsmem = 48 * 1024;
        const int mblocks = 8, mthreads = 128, mit = 16384 * scale;
        float *a, *b, *x, *so, *c;
        double *xd;
        half *ab;
        CK(cudaMalloc(&a, n * sizeof(float)));
        CK(cudaMalloc(&b, n * sizeof(float)));
        CK(cudaMalloc(&x, threads * sizeof(float)));
        CK(cudaMalloc(&xd, threads * sizeof(double)));
        CK(cudaMalloc(&so, (size_t)sblocks * sthreads * sizeof(float)));
        CK(cudaMalloc(&c, (size_t)mblocks * (mthreads / 32) * 256 * sizeof(float)));
        CK(cudaMalloc(&ab, 512 * sizeof(half)));
        CK(cudaMemset(a, 0, n * sizeof(float)));
        CK(cudaMemset(x, 0, threads * sizeof(float)));
        CK(cudaMemset(xd, 0, threads * sizeof(double)));
        CK(cudaMemset(ab, 0, 512 * sizeof(half)));
        CK(cudaFuncSetAttribute(smem_loop, cudaFuncAttributeMaxDynamicSharedMemorySize, lowsmem));
        for (int l = 0; l < launches; l++) {
                if (want(which, "copy"))
                        copy<<<(unsigned)(n / 256), 256>>>(b, a, n);
                if (want(which, "fma32"))
                        fma32<<<threads / 256, 256>>>(x, it32);
                if (want(which, "fma64"))
                        fma64<<<threads / 256, 256>>>(xd, it64);
                if (want(which, "smem_s1"))
                        smem_loop<<<sblocks, sthreads, 32 * 1024>>>(so, sit, 1);
                if (want(which, "smem_s32"))
                        smem_loop<<<sblocks, sthreads, 32 * 1024>>>(so, sit, 32);
                if (want(which, "smem_lowocc"))
                        smem_loop<<<lowblocks, lowthreads, lowsmem>>>(so, sit, 1);
                if (want(which, "mma_small"))
                        mma_small<<<mblocks, mthreads>>>(ab, ab + 256, c, mit);
                CK(cudaGetLastError());
        }
        CK(cudaDeviceSynchronize());
        printf("EXPECT copy grid_blocks %zu block 256 dram_read %zu dram_write %zu\n", n / 256,
               n * sizeof(float), n * sizeof(float));
        printf("EXPECT fma32 grid_blocks %d block 256 ffma %.0f\n", threads / 256,
               8.0 * it32 * threads);
        printf("EXPECT fma64 grid_blocks %d block 256 dfma %.0f\n", threads / 256,
               4.0 * it64 * threads);
        printf("EXPECT smem_s1 grid_blocks %d block %d shared_loads_per_thread %d\n", sblocks,
               sthreads, sit);
        printf("EXPECT smem_s32 grid_blocks %d block %d shared_loads_per_thread %d bank_ways 32\n",
               sblocks, sthreads, sit);
        printf("EXPECT smem_lowocc grid_blocks %d block %d dyn_smem %d\n", lowblocks, lowthreads,
               lowsmem);
        printf("EXPECT mma_small grid_blocks %d block %d mma %.0f\n", mblocks, mthreads,
               (double)mblocks * (mthreads / 32) * mit);
        printf("launches %d\n", launches);
        CK(cudaFree(a));
        CK(cudaFree(b));
        CK(cudaFree(x));
        CK(cudaFree(xd));
        CK(cudaFree(so));
        CK(cudaFree(c));
        CK(cudaFree(ab));
        return 0;
}
