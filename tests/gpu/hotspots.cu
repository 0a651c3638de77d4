// Three kernels, each slow because of one line (marked HOT below), for PC sampling (issue
// 35): a strided global load, a divergent branch, a shared-memory access whose 32 lanes hit
// one bank. Built with -lineinfo so that samples map to these lines; tests/pcsamp_h100.py
// checks that the hottest sampled line of each kernel is its HOT line.
//   hotspots [all|strided|divergent|bank] [-l LAUNCHES]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CK(x)                                                                                 \
        do {                                                                                  \
                cudaError_t e_ = (x);                                                         \
                if (e_ != cudaSuccess) {                                                      \
                        fprintf(stderr, "hotspots: %s: %s\n", #x, cudaGetErrorString(e_));    \
                        exit(1);                                                              \
                }                                                                             \
        } while (0)

// Each thread reads 64 floats 4099 * 32 floats apart: every load of a warp touches 32
// sectors in 32 lines, and the sum waits on each (long scoreboard).
__global__ void strided_load(const float *__restrict__ a, float *__restrict__ b, long mask,
                             int stride)
{
        long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
        float acc = 0.0f;
        for (int k = 0; k < 64; k++)
                acc += a[(i * stride + (long)k * 4099) & mask]; // HOT strided
        b[i] = acc;
}

// Odd lanes run a long dependent chain, even lanes a short one: the warp runs both halves.
__global__ void divergent_branch(float *__restrict__ b, int iters)
{
        long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
        float x = b[i];
        if (threadIdx.x & 1) {
                for (int k = 0; k < iters; k++)
                        x = x * 1.0001f + 0.25f; // HOT divergent
        } else {
                for (int k = 0; k < iters / 16; k++)
                        x = x * 0.9999f - 0.25f;
        }
        b[i] = x;
}

// Lane t reads word t * 32 + k: all 32 lanes in one bank, a 32-way conflict per load.
__global__ void bank_conflict(float *__restrict__ b, int iters)
{
        __shared__ float s[32 * 32];
        int t = threadIdx.x;
        for (int k = t; k < 32 * 32; k += blockDim.x)
                s[k] = (float)k;
        __syncthreads();
        float acc = 0.0f;
        int lane = t & 31;
        for (int k = 0; k < iters; k++)
                acc += s[(lane * 32 + k) & 1023]; // HOT bank
        b[blockIdx.x * (long)blockDim.x + t] = acc;
}

int main(int argc, char **argv)
{
        const char *which = argc > 1 && argv[1][0] != '-' ? argv[1] : "all";
        int launches = 4;
        for (int i = which == argv[1] ? 2 : 1; i < argc; i++) {
                if (!strcmp(argv[i], "-l") && i + 1 < argc)
                        launches = atoi(argv[++i]);
                else {
                        fprintf(stderr, "usage: hotspots [all|strided|divergent|bank] [-l N]\n");
                        return 2;
                }
        }
        int all = !strcmp(which, "all");
        if (!all && strcmp(which, "strided") && strcmp(which, "divergent") && strcmp(which, "bank")) {
                fprintf(stderr, "usage: hotspots [all|strided|divergent|bank] [-l N]\n");
                return 2;
        }
        const long n = 1L << 26; // 256 MiB of floats, beyond the L2
        const int threads = 256, blocks = 132 * 8;
        float *a, *b;
        CK(cudaMalloc(&a, n * sizeof *a));
        CK(cudaMalloc(&b, (size_t)blocks * threads * sizeof *b));
        CK(cudaMemset(a, 0, n * sizeof *a));
        CK(cudaMemset(b, 0, (size_t)blocks * threads * sizeof *b));
        for (int l = 0; l < launches; l++) {
                if (all || !strcmp(which, "strided"))
                        strided_load<<<blocks, threads>>>(a, b, n - 1, 4099 * 32);
                if (all || !strcmp(which, "divergent"))
                        divergent_branch<<<blocks, threads>>>(b, 1 << 14);
                if (all || !strcmp(which, "bank"))
                        bank_conflict<<<blocks, threads>>>(b, 1 << 13);
                CK(cudaGetLastError());
        }
        CK(cudaDeviceSynchronize());
        CK(cudaFree(a));
        CK(cudaFree(b));
        printf("hotspots: done\n");
        return 0;
}
