// Other kernels of the classes of tests/gpu/limiters.cu, written after the rules: other
// strides, widths, sizes and pipes, to check that the findings follow the concept and not
// the first set's kernels (tests/data/variants, tests/findings.sh):
//   strided2      each lane loads a float 8 bytes from its neighbour's: half of each sector
//   gather        loads at hashed indices over 256 MiB                     uncoalesced (random)
//   scatter       each lane stores a float into its own 128-byte line     uncoalesced stores
//   chase_warp    one block of 32 threads, each chasing its own chain     grid too small
//   diverge_int   integer hashing by 8 of the 32 lanes                     divergence (ALU pipe)
//   atomic_int    integer atomics from every thread onto one address      atomics serialization
//   cas_max       a compare-and-swap loop (float max) on 2 addresses      atomics serialization
//   local_dbl     a 32-double private array indexed at run time           local memory
//   block1024     one block of 1024 threads of FFMA chains               grid too small
//   tail15        FFMA chains on 1.5 waves of blocks                      tail wave
//   smem_8way     shared-memory loop at a stride of 8 words               8-way bank conflicts
//   dgemm         cublasDgemm 2048^3 (FP64 tensor cores)                  tensor pipe
//   hgemm         cublasGemmEx FP16 in, FP32 accumulate, 8192^2 x 4096     tensor pipe
// Usage: variants [all|NAME...]; prints EXPECT lines.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cublas_v2.h>

#define PROG "variants"
#include "common.cuh"

__global__ void strided2(float *__restrict__ out, const float *__restrict__ in, size_t mask)
{
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = in[(i * 2) & mask];
}

__device__ __forceinline__ unsigned hash32(unsigned x)
{
        x ^= x >> 16;
        x *= 0x7feb352dU;
        x ^= x >> 15;
        x *= 0x846ca68bU;
        x ^= x >> 16;
        return x;
}

__global__ void gather(float *__restrict__ out, const float *__restrict__ in, unsigned mask)
{
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = in[hash32(i) & mask];
}

__global__ void scatter(float *__restrict__ out, size_t mask)
{
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        out[(i * 32) & mask] = (float)i;
}

__global__ void init_chain2(unsigned *next, unsigned mask)
{
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i <= mask)
                next[i] = (i * 2891336453u + 12345u) & mask;
}

__global__ void chase_warp(const unsigned *__restrict__ next, unsigned *out, int steps)
{
        unsigned p = threadIdx.x * 104729u;
        for (int s = 0; s < steps; s++)
                p = next[p];
        out[threadIdx.x] = p;
}

__global__ void diverge_int(unsigned *x, int iters)
{
        unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
        unsigned v = x[i];
        if ((threadIdx.x & 3) == 1) { // 8 of 32 lanes
                unsigned a = v, b = v + 1, c = v + 2, d = v + 3;
                for (int j = 0; j < iters; j++) {
                        a = (a ^ (a << 3)) + 0x9e3779b9u;
                        b = (b ^ (b >> 5)) + 0x7f4a7c15u;
                        c = (c ^ (c << 7)) + 0x94d049bbu;
                        d = (d ^ (d >> 9)) + 0xbf58476du;
                }
                v = a ^ b ^ c ^ d;
        }
        x[i] = v;
}

__global__ void atomic_int(int *ctr, int iters)
{
        int v = (threadIdx.x & 7) + 1;
        for (int j = 0; j < iters; j++)
                atomicAdd(ctr, v + j);
}

__global__ void cas_max(float *m, int iters)
{
        float v = (float)(blockIdx.x * blockDim.x + threadIdx.x);
        for (int j = 0; j < iters; j++) {
                int *a = (int *)&m[(threadIdx.x + j) & 1];
                int old = *a, assumed;
                do {
                        assumed = old;
                        if (__int_as_float(assumed) >= v + j)
                                break;
                        old = atomicCAS(a, assumed, __float_as_int(v + j));
                } while (old != assumed);
        }
}

__global__ void local_dbl(double *out, const int *idx, int iters)
{
        double a[32];
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        for (int k = 0; k < 32; k++)
                a[k] = (double)(k * i);
        int p = idx[i & 1023];
        double s = 0.0;
        for (int j = 0; j < iters; j++) {
                int q = (p + j * 5) & 31;
                s += a[q];
                a[(q + 7) & 31] = s * 0.25;
        }
        out[i] = s;
}

__global__ void block1024(float *x, int iters)
{
        fma8_chains(x, iters);
}

__global__ void tail15(float *x, int iters)
{
        fma8_chains(x, iters);
}

__global__ void smem_8way(float *out, int iters)
{
        __shared__ float s[8192];
        smem_stride_loop(s, out, iters, 8);
}

static const char *const names[] = {"strided2",  "gather",   "scatter",   "chase_warp", "diverge_int",
                                    "atomic_int", "cas_max", "local_dbl", "block1024",  "tail15",
                                    "smem_8way", "dgemm",    "hgemm"};
static const size_t nnames = sizeof names / sizeof *names;

int main(int argc, char **argv)
{
        int sel[16] = {0};
        if (select_kernels(argc, argv, names, nnames, sel, NULL))
                return 2;
        int sms = 0;
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        const size_t nin = (size_t)64 << 20, nout = (size_t)8 << 20;
        const unsigned cmask = (1u << 24) - 1;
        const int full = sms * 2048;
        float *in, *out, *x, *m;
        double *xd;
        unsigned *next, *cout, *xu;
        int *ctr, *idx;
        CK(cudaMalloc(&in, nin * sizeof(float)));
        CK(cudaMalloc(&out, nin * sizeof(float)));
        CK(cudaMalloc(&x, (size_t)full * 2 * sizeof(float)));
        CK(cudaMalloc(&xd, (size_t)full * sizeof(double)));
        CK(cudaMalloc(&xu, (size_t)full * sizeof(unsigned)));
        CK(cudaMalloc(&m, 2 * sizeof(float)));
        CK(cudaMalloc(&ctr, sizeof(int)));
        CK(cudaMalloc(&next, ((size_t)cmask + 1) * sizeof(unsigned)));
        CK(cudaMalloc(&cout, 1024 * sizeof(unsigned)));
        CK(cudaMalloc(&idx, 1024 * sizeof(int)));
        CK(cudaMemset(in, 0, nin * sizeof(float)));
        CK(cudaMemset(x, 0, (size_t)full * 2 * sizeof(float)));
        CK(cudaMemset(xu, 0, (size_t)full * sizeof(unsigned)));
        CK(cudaMemset(m, 0, 2 * sizeof(float)));
        CK(cudaMemset(ctr, 0, sizeof(int)));
        CK(cudaMemset(idx, 0, 1024 * sizeof(int)));
        int tail_per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&tail_per_sm, tail15, 128, 0));
        const int tail_blocks = sms * tail_per_sm + sms * tail_per_sm / 2; // 1.5 waves
        if (sel[3])
                init_chain2<<<(cmask + 1) / 256, 256>>>(next, cmask);
        if (sel[0])
                strided2<<<(unsigned)(nout / 256), 256>>>(out, in, nin - 1);
        if (sel[1])
                gather<<<(unsigned)(nout / 256), 256>>>(out, in, (unsigned)(nin - 1));
        if (sel[2])
                scatter<<<(unsigned)(nout / 256), 256>>>(out, nin - 1);
        if (sel[3])
                chase_warp<<<1, 32>>>(next, cout, 8192);
        if (sel[4])
                diverge_int<<<full / 256, 256>>>(xu, 8192);
        if (sel[5])
                atomic_int<<<sms * 4, 256>>>(ctr, 32);
        if (sel[6])
                cas_max<<<sms * 4, 256>>>(m, 4);
        if (sel[7])
                local_dbl<<<full / 256, 256>>>(xd, idx, 512);
        if (sel[8])
                block1024<<<1, 1024>>>(x, 32768);
        if (sel[9])
                tail15<<<tail_blocks, 128>>>(x, 8192);
        if (sel[10])
                smem_8way<<<sms * 4, 256>>>(x, 2048);
        CK(cudaGetLastError());
        if (sel[11] || sel[12]) {
                cublasHandle_t h;
                CB(cublasCreate(&h));
                if (sel[11]) {
                        const int n = 2048;
                        double *g, one = 1.0, zero = 0.0;
                        CK(cudaMalloc(&g, (size_t)3 * n * n * sizeof(double)));
                        CK(cudaMemset(g, 0, (size_t)3 * n * n * sizeof(double)));
                        CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, g, n,
                                       g + (size_t)n * n, n, &zero, g + (size_t)2 * n * n, n));
                        CK(cudaDeviceSynchronize());
                        CK(cudaFree(g));
                }
                if (sel[12]) {
                        const int mm = 8192, nn = 8192, kk = 4096;
                        half *a, *b;
                        float *c, one = 1.0f, zero = 0.0f;
                        CK(cudaMalloc(&a, (size_t)mm * kk * sizeof(half)));
                        CK(cudaMalloc(&b, (size_t)kk * nn * sizeof(half)));
                        CK(cudaMalloc(&c, (size_t)mm * nn * sizeof(float)));
                        CK(cudaMemset(a, 0, (size_t)mm * kk * sizeof(half)));
                        CK(cudaMemset(b, 0, (size_t)kk * nn * sizeof(half)));
                        CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, mm, nn, kk, &one, a, CUDA_R_16F,
                                        mm, b, CUDA_R_16F, kk, &zero, c, CUDA_R_32F, mm,
                                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
                        CK(cudaDeviceSynchronize());
                        CK(cudaFree(a));
                        CK(cudaFree(b));
                        CK(cudaFree(c));
                }
                cublasDestroy(h);
        }
        CK(cudaDeviceSynchronize());
        printf("EXPECT strided2 gather scatter grid_blocks %zu block 256\n", nout / 256);
        printf("EXPECT chase_warp grid_blocks 1 block 32\n");
        printf("EXPECT diverge_int grid_blocks %d active_lanes 8\n", full / 256);
        printf("EXPECT atomic_int cas_max grid_blocks %d addresses 1 and 2\n", sms * 4);
        printf("EXPECT local_dbl grid_blocks %d local_doubles 32\n", full / 256);
        printf("EXPECT block1024 grid_blocks 1 block 1024\n");
        printf("EXPECT tail15 grid_blocks %d block 128 blocks_per_sm %d waves 1.5\n", tail_blocks,
               tail_per_sm);
        printf("EXPECT smem_8way grid_blocks %d bank_ways 8\n", sms * 4);
        printf("EXPECT dgemm 2048 hgemm 8192x8192x4096\n");
        return 0;
}
