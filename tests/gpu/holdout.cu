// Held-out kernels of the finding classes (issue 28): written after the rules, never used to
// tune them, each varying the degree or shape of a class that tests/gpu/limiters.cu and
// variants.cu already cover. The expected top finding of each kernel was decided and written
// here BEFORE prism's output on them was seen (tests/data/holdout, tests/findings.py):
//   kernel        what it does                                          expected top finding
//   stride8       each lane loads a float 32 bytes from its neighbour's  access.uncoalesced
//                 (one sector per lane, 4 of 32 bytes used)
//   stride2_dbl   each lane loads a double 16 bytes from its neighbour's access.uncoalesced
//                 (half of each sector used)
//   chase2        2 blocks of 64 threads, each chasing its own chain     launch.grid_too_small
//   diverge2      8 FFMA chains run by 2 of the 32 lanes                  divergence
//   diverge16     8 FFMA chains run by 16 of the 32 lanes (odd lanes)     divergence
//   atomic64      float atomics from every thread onto 64 addresses     atomics.contention
//   atomic1_dbl   double atomics from every thread onto 1 address       atomics.contention
//   smem_atomic   shared-memory integer atomics onto 4 shared words     atomics.contention
//                 per block (global memory barely touched)
//   local_loop    a 48-float private array indexed by the loop variable  spills
//                 (j % 48, a run-time trip count: not unrollable)
//   bank2way      shared-memory loop at a stride of 2 words (2-way)      lds.bank_conflicts
//   bank8_col     column reads of a [256][8] shared tile (8-way)         lds.bank_conflicts
//   tail11        FFMA chains on 1.1 waves of 256-thread blocks          launch.tail_wave
//   fp64_stream   a[i] = b[i] + 3 c[i] in doubles over 3 x 256 MiB       mem.hbm_bandwidth
//   mma_bf16      a BF16 tensor-core loop on a full grid of 256 threads  pipe.matrix
//   bgemm         cublasGemmEx BF16 in, FP32 accumulate, 4096^3          pipe.matrix
// (init_chain3 only writes the chains chase2 follows.)
// Usage: holdout [all|NAME...]; prints EXPECT lines.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cublas_v2.h>
#include <cuda_bf16.h>

#define PROG "holdout"
#include "common.cuh"

__global__ void stride8(float *__restrict__ out, const float *__restrict__ in, size_t mask)
{
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = in[(i * 8) & mask];
}

__global__ void stride2_dbl(double *__restrict__ out, const double *__restrict__ in,
                            size_t mask)
{
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = in[(i * 2) & mask];
}

__global__ void init_chain3(unsigned *next, unsigned mask)
{
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i <= mask)
                next[i] = (i * 2654435761u + 977u) & mask;
}

__global__ void chase2(const unsigned *__restrict__ next, unsigned *out, int steps)
{
        unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
        unsigned p = t * 7919u;
        for (int s = 0; s < steps; s++)
                p = next[p];
        out[t] = p;
}

// 8 FFMA chains for the lanes where (lane & mask) == pick
__device__ __forceinline__ void chains_if(float *x, int iters, unsigned mask, unsigned pick)
{
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        float v0 = x[i];
        if ((threadIdx.x & mask) == pick) {
                float v1 = v0 + 1.0f, v2 = v0 + 2.0f, v3 = v0 + 3.0f;
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
                v0 = ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7));
        }
        x[i] = v0;
}

__global__ void diverge2(float *x, int iters)
{
        chains_if(x, iters, 15, 3); // lanes 3 and 19
}

__global__ void diverge16(float *x, int iters)
{
        chains_if(x, iters, 1, 1); // the odd lanes
}

__global__ void atomic64(float *ctr, int iters)
{
        for (int j = 0; j < iters; j++)
                atomicAdd(&ctr[(threadIdx.x + j) & 63], 1.0f);
}

__global__ void atomic1_dbl(double *ctr, int iters)
{
        double v = (double)(threadIdx.x & 7) + 0.5;
        for (int j = 0; j < iters; j++)
                atomicAdd(ctr, v);
}

__global__ void smem_atomic(int *out, int iters)
{
        __shared__ int s[4];
        if (threadIdx.x < 4)
                s[threadIdx.x] = 0;
        __syncthreads();
        for (int j = 0; j < iters; j++)
                atomicAdd(&s[(threadIdx.x + j) & 3], j + 1);
        __syncthreads();
        if (threadIdx.x < 4)
                out[blockIdx.x * 4 + threadIdx.x] = s[threadIdx.x];
}

__global__ void local_loop(float *x, int n)
{
        float a[48];
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        float v = x[i];
        for (int k = 0; k < 48; k++)
                a[k] = v + (float)k;
        float s = 0.0f;
        for (int j = 0; j < n; j++) {
                s += a[j % 48];
                a[(j + 5) % 48] = s * 0.5f;
        }
        x[i] = s;
}

__global__ void bank2way(float *out, int iters)
{
        __shared__ float s[8192];
        smem_stride_loop(s, out, iters, 2);
}

__global__ void bank8_col(float *out, int iters)
{
        __shared__ float t[256][8];
        for (int c = 0; c < 8; c++)
                t[threadIdx.x][c] = (float)(threadIdx.x + c);
        __syncthreads();
        float acc = 0.0f;
        for (int j = 0; j < iters; j++) {
                int c = j & 7;
                acc += t[threadIdx.x][c];
                t[threadIdx.x][(c + 3) & 7] = acc * 0.25f;
        }
        out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void tail11(float *x, int iters)
{
        fma8_chains(x, iters);
}

__global__ void fp64_stream(double *__restrict__ a, const double *__restrict__ b,
                            const double *__restrict__ c, size_t n)
{
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
                a[i] = b[i] + 3.0 * c[i];
}

// one 16x16x16 BF16 product with FP32 accumulation per warp and iteration
__global__ void mma_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int iters)
{
        using namespace nvcuda;
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::load_matrix_sync(fa, a, 16);
        wmma::load_matrix_sync(fb, b, 16);
        wmma::fill_fragment(acc, 0.0f);
        for (int j = 0; j < iters; j++)
                wmma::mma_sync(acc, fa, fb, acc);
        int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
        wmma::store_matrix_sync(c + (size_t)warp * 256, acc, 16, wmma::mem_row_major);
}

static const char *const names[] = {"stride8",   "stride2_dbl", "chase2",      "diverge2",
                                    "diverge16", "atomic64",    "atomic1_dbl", "smem_atomic",
                                    "local_loop", "bank2way",   "bank8_col",   "tail11",
                                    "fp64_stream", "mma_bf16",  "bgemm"};
static const size_t nnames = sizeof names / sizeof *names;

int main(int argc, char **argv)
{
        int sel[16] = {0};
        if (select_kernels(argc, argv, names, nnames, sel, NULL))
                return 2;
        int sms = 0;
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        const size_t nin = (size_t)64 << 20, nout = (size_t)8 << 20; // floats
        const size_t nd = (size_t)32 << 20;                           // doubles per array
        const unsigned cmask = (1u << 24) - 1;
        const int full = sms * 2048;
        float *in, *out, *x, *ctr, *c;
        double *d, *dctr;
        unsigned *next, *cout;
        int *iout;
        __nv_bfloat16 *ab;
        CK(cudaMalloc(&in, nin * sizeof(float)));
        CK(cudaMalloc(&out, nin * sizeof(float)));
        CK(cudaMalloc(&x, (size_t)full * 2 * sizeof(float)));
        CK(cudaMalloc(&d, 3 * nd * sizeof(double)));
        CK(cudaMalloc(&ctr, 64 * sizeof(float)));
        CK(cudaMalloc(&dctr, sizeof(double)));
        CK(cudaMalloc(&next, ((size_t)cmask + 1) * sizeof(unsigned)));
        CK(cudaMalloc(&cout, 1024 * sizeof(unsigned)));
        CK(cudaMalloc(&iout, (size_t)full * sizeof(int)));
        CK(cudaMalloc(&c, (size_t)full / 32 * 256 * sizeof(float)));
        CK(cudaMalloc(&ab, 512 * sizeof(__nv_bfloat16)));
        CK(cudaMemset(in, 0, nin * sizeof(float)));
        CK(cudaMemset(x, 0, (size_t)full * 2 * sizeof(float)));
        CK(cudaMemset(d, 0, 3 * nd * sizeof(double)));
        CK(cudaMemset(ctr, 0, 64 * sizeof(float)));
        CK(cudaMemset(dctr, 0, sizeof(double)));
        CK(cudaMemset(ab, 0, 512 * sizeof(__nv_bfloat16)));
        int tail_per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&tail_per_sm, tail11, 256, 0));
        const int tail_blocks = sms * tail_per_sm + sms * tail_per_sm / 10; // 1.1 waves
        if (sel[2])
                init_chain3<<<(cmask + 1) / 256, 256>>>(next, cmask);
        if (sel[0])
                stride8<<<(unsigned)(nout / 256), 256>>>(out, in, nin - 1);
        if (sel[1])
                stride2_dbl<<<(unsigned)(nout / 256), 256>>>((double *)out, (const double *)in,
                                                             nin / 2 - 1);
        if (sel[2])
                chase2<<<2, 64>>>(next, cout, 8192);
        if (sel[3])
                diverge2<<<full / 256, 256>>>(x, 4096);
        if (sel[4])
                diverge16<<<full / 256, 256>>>(x, 4096);
        if (sel[5])
                atomic64<<<sms * 8, 256>>>(ctr, 32);
        if (sel[6])
                atomic1_dbl<<<sms * 4, 256>>>(dctr, 8);
        if (sel[7])
                smem_atomic<<<full / 256, 256>>>(iout, 512);
        if (sel[8])
                local_loop<<<full / 256, 256>>>(x, 1024);
        if (sel[9])
                bank2way<<<sms * 4, 256>>>(x, 2048);
        if (sel[10])
                bank8_col<<<sms * 4, 256>>>(x, 2048);
        if (sel[11])
                tail11<<<tail_blocks, 256>>>(x, 8192);
        if (sel[12])
                fp64_stream<<<(unsigned)(nd / 256), 256>>>(d, d + nd, d + 2 * nd, nd);
        if (sel[13])
                mma_bf16<<<full / 256, 256>>>(ab, ab + 256, c, 2048);
        CK(cudaGetLastError());
        if (sel[14]) {
                cublasHandle_t h;
                CB(cublasCreate(&h));
                const int n = 4096;
                __nv_bfloat16 *a, *b;
                float *cc, one = 1.0f, zero = 0.0f;
                CK(cudaMalloc(&a, (size_t)n * n * sizeof(__nv_bfloat16)));
                CK(cudaMalloc(&b, (size_t)n * n * sizeof(__nv_bfloat16)));
                CK(cudaMalloc(&cc, (size_t)n * n * sizeof(float)));
                CK(cudaMemset(a, 0, (size_t)n * n * sizeof(__nv_bfloat16)));
                CK(cudaMemset(b, 0, (size_t)n * n * sizeof(__nv_bfloat16)));
                CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, CUDA_R_16BF, n, b,
                                CUDA_R_16BF, n, &zero, cc, CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT));
                CK(cudaDeviceSynchronize());
                CK(cudaFree(a));
                CK(cudaFree(b));
                CK(cudaFree(cc));
                cublasDestroy(h);
        }
        CK(cudaDeviceSynchronize());
        printf("EXPECT stride8 stride2_dbl grid_blocks %zu block 256\n", nout / 256);
        printf("EXPECT chase2 grid_blocks 2 block 64\n");
        printf("EXPECT diverge2 diverge16 grid_blocks %d active_lanes 2 and 16\n", full / 256);
        printf("EXPECT atomic64 grid_blocks %d addresses 64; atomic1_dbl grid_blocks %d "
               "addresses 1\n",
               sms * 8, sms * 4);
        printf("EXPECT smem_atomic local_loop grid_blocks %d\n", full / 256);
        printf("EXPECT bank2way bank8_col grid_blocks %d bank_ways 2 and 8\n", sms * 4);
        printf("EXPECT tail11 grid_blocks %d blocks_per_sm %d waves 1.1\n", tail_blocks,
               tail_per_sm);
        printf("EXPECT fp64_stream grid_blocks %zu; mma_bf16 grid_blocks %d; bgemm 4096^3\n",
               nd / 256, full / 256);
        return 0;
}
