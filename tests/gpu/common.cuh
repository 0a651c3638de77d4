// Kernel bodies and the error check shared by the GPU test programs (samples.cu, kinds.cu);
// each program wraps them in kernels of its own names, which its recorded workloads use.
// Define PROG (the program's name, for error messages) before including this file.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#define CK(x)                                                                                 \
        do {                                                                                  \
                cudaError_t e_ = (x);                                                         \
                if (e_ != cudaSuccess) {                                                      \
                        fprintf(stderr, "%s: %s: %s\n", PROG, #x, cudaGetErrorString(e_));     \
                        exit(1);                                                              \
                }                                                                             \
        } while (0)

#ifdef CUBLAS_V2_H_ /* programs that include cublas_v2.h first */
#define CB(x)                                                                                 \
        do {                                                                                  \
                if ((x) != CUBLAS_STATUS_SUCCESS) {                                           \
                        fprintf(stderr, "%s: %s failed\n", PROG, #x);                          \
                        exit(1);                                                              \
                }                                                                             \
        } while (0)
#endif

// The kernels a set program's arguments select, as flags sel[0..n) of names[0..n): each
// name, "all", or none at all for every one. With launches non-NULL, "-l L" sets it (at
// least 1). 0, or 2 after a usage line on stderr.
static int select_kernels(int argc, char **argv, const char *const *names, size_t n, int *sel,
                          int *launches)
{
        int any = 0;
        for (int i = 1; i < argc; i++) {
                if (launches && !strcmp(argv[i], "-l") && i + 1 < argc) {
                        *launches = atoi(argv[++i]);
                        continue;
                }
                size_t k;
                for (k = 0; k < n && strcmp(argv[i], names[k]); k++)
                        ;
                if (!strcmp(argv[i], "all")) {
                        for (k = 0; k < n; k++)
                                sel[k] = 1;
                } else if (k == n) {
                        fprintf(stderr, "usage: %s [all|NAME...]%s\n", PROG, launches ? " [-l L]" : "");
                        return 2;
                } else {
                        sel[k] = 1;
                }
                any = 1;
        }
        for (size_t k = 0; !any && k < n; k++)
                sel[k] = 1;
        if (launches && *launches < 1) {
                fprintf(stderr, "%s: -l takes a positive number\n", PROG);
                return 2;
        }
        return 0;
}

// Each thread reads and writes the shared words (t * stride + j) mod 8192 of s (at least
// 32 KiB): stride 1 spreads a warp's 32 accesses over the 32 banks, stride k > 1 puts k
// lanes in each bank it uses (k-way conflicts, 32 at most).
__device__ __forceinline__ void smem_stride_loop(float *s, float *out, int iters, int stride)
{
        const int words = 8192;
        for (int k = threadIdx.x; k < words; k += blockDim.x)
                s[k] = (float)k;
        __syncthreads();
        float acc = 0.0f;
        int base = (threadIdx.x * stride) & (words - 1);
        for (int j = 0; j < iters; j++) {
                int idx = (base + j) & (words - 1);
                acc += s[idx];
                s[idx] = acc * 0.5f;
        }
        out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Eight independent FFMA chains of iters steps per thread keep the FMA pipes busy (8 * iters
// FFMA per thread); the sum at the end is FADD.
__device__ __forceinline__ void fma8_chains(float *x, int iters)
{
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        float v0 = x[i], v1 = v0 + 1.0f, v2 = v0 + 2.0f, v3 = v0 + 3.0f;
        float v4 = v0 + 4.0f, v5 = v0 + 5.0f, v6 = v0 + 6.0f, v7 = v0 + 7.0f;
        const float k = 0.9999f, o = 0.0001f;
#pragma unroll 4
        for (int j = 0; j < iters; j++) {
                v0 = fmaf(v0, k, o);
                v1 = fmaf(v1, k, o);
                v2 = fmaf(v2, k, o);
                v3 = fmaf(v3, k, o);
                v4 = fmaf(v4, k, o);
                v5 = fmaf(v5, k, o);
                v6 = fmaf(v6, k, o);
                v7 = fmaf(v7, k, o);
        }
        x[i] = ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7));
}

// One 16x16x16 FP16 product with FP32 accumulation per warp and iteration, the fragments
// staying in registers.
__device__ __forceinline__ void mma_f16_loop(const half *a, const half *b, float *c, int iters)
{
        using namespace nvcuda;
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::load_matrix_sync(fa, a, 16);
        wmma::load_matrix_sync(fb, b, 16);
        wmma::fill_fragment(acc, 0.0f);
        for (int j = 0; j < iters; j++)
                wmma::mma_sync(acc, fa, fb, acc);
        int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
        wmma::store_matrix_sync(c + (size_t)warp * 256, acc, 16, wmma::mem_row_major);
}
