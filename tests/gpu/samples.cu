// The programs behind workloads-sample/ (recorded with prism profile on an NVIDIA GPU), with
// work known exactly so that tests/gpu/run-profile-check.sh can check the counters:
//   samples stream  : triad a[i] = b[i] + s * c[i] over N floats, L launches
//                     -> per launch 8N bytes read and 4N written in DRAM, N FFMA
//   samples compute : fma_chains, M threads x I iterations x 8 independent FFMA chains
//                     (8 * I * M FFMA per launch), and mma_f16, W warps x I iterations of a
//                     16x16x16 FP16 tensor-core product with FP32 accumulation
//                     (4096 multiply-adds = 8192 flop each), L launches of each
// Usage: samples stream|compute [-n N] [-m M] [-w W] [-i I] [-l L]
// Prints EXPECT lines with the exact amounts per launch.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define PROG "samples"
#include "common.cuh"

__global__ void triad(float *__restrict__ a, const float *__restrict__ b,
                      const float *__restrict__ c, float s, size_t n)
{
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
                a[i] = fmaf(s, c[i], b[i]);
}

__global__ void fma_chains(float *x, int iters)
{
        fma8_chains(x, iters);
}

__global__ void mma_f16(const half *a, const half *b, float *c, int iters)
{
        mma_f16_loop(a, b, c, iters);
}

int main(int argc, char **argv)
{
        if (argc < 2 || (strcmp(argv[1], "stream") && strcmp(argv[1], "compute"))) {
                fprintf(stderr, "usage: samples stream|compute [-n N] [-m M] [-w W] [-i I] [-l L]\n");
                return 2;
        }
        int stream = !strcmp(argv[1], "stream");
        size_t n = (size_t)64 << 20; // 3 x 256 MiB: far beyond the 50 MiB L2
        int m = 132 * 2048, w = 132 * 64, iters = stream ? 0 : 4096, launches = stream ? 4 : 2;
        for (int i = 2; i < argc; i++) {
                if (!strcmp(argv[i], "-n") && i + 1 < argc)
                        n = strtoull(argv[++i], NULL, 0);
                else if (!strcmp(argv[i], "-m") && i + 1 < argc)
                        m = atoi(argv[++i]);
                else if (!strcmp(argv[i], "-w") && i + 1 < argc)
                        w = atoi(argv[++i]);
                else if (!strcmp(argv[i], "-i") && i + 1 < argc)
                        iters = atoi(argv[++i]);
                else if (!strcmp(argv[i], "-l") && i + 1 < argc)
                        launches = atoi(argv[++i]);
                else {
                        fprintf(stderr, "samples: bad argument '%s'\n", argv[i]);
                        return 2;
                }
        }
        if (stream) {
                n = (n + 255) / 256 * 256;
                float *a, *b, *c;
                CK(cudaMalloc(&a, n * sizeof(float)));
                CK(cudaMalloc(&b, n * sizeof(float)));
                CK(cudaMalloc(&c, n * sizeof(float)));
                CK(cudaMemset(a, 0, n * sizeof(float)));
                CK(cudaMemset(b, 0, n * sizeof(float)));
                CK(cudaMemset(c, 0, n * sizeof(float)));
                for (int l = 0; l < launches; l++)
                        triad<<<(unsigned)(n / 256), 256>>>(a, b, c, 3.0f, n);
                CK(cudaGetLastError());
                CK(cudaDeviceSynchronize());
                printf("EXPECT triad launches %d grid %zu block 256 dram_read %zu dram_write %zu "
                       "ffma %zu\n",
                       launches, n, 2 * n * sizeof(float), n * sizeof(float), n);
                CK(cudaFree(a));
                CK(cudaFree(b));
                CK(cudaFree(c));
                return 0;
        }
        m = (m + 255) / 256 * 256;
        w = (w + 3) / 4 * 4; // blocks of 4 warps
        float *x, *c;
        half *ab;
        CK(cudaMalloc(&x, m * sizeof(float)));
        CK(cudaMalloc(&c, (size_t)w * 256 * sizeof(float)));
        CK(cudaMalloc(&ab, 512 * sizeof(half)));
        CK(cudaMemset(x, 0, m * sizeof(float)));
        CK(cudaMemset(ab, 0, 512 * sizeof(half)));
        for (int l = 0; l < launches; l++) {
                fma_chains<<<m / 256, 256>>>(x, iters);
                mma_f16<<<w / 4, 128>>>(ab, ab + 256, c, iters);
        }
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        printf("EXPECT fma_chains launches %d grid %d block 256 ffma %.0f\n", launches, m,
               8.0 * iters * m);
        printf("EXPECT mma_f16 launches %d grid %d block 128 mma %.0f tensor_fma %.0f\n", launches,
               w * 32, (double)w * iters, 4096.0 * w * iters);
        CK(cudaFree(x));
        CK(cudaFree(c));
        CK(cudaFree(ab));
        return 0;
}
