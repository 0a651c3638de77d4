// Kernels whose work is known exactly, for checking the CUPTI collector's counters.
//   vec_copy   : b[i] = a[i] over n floats          -> 4n bytes read, 4n bytes written
//   fma_loop   : 4 independent FFMA chains x iters  -> 4 * iters * m FFMA (8 * iters * m FLOP)
//   smem_rev   : 1 KiB static + 2 KiB dynamic shared memory per block
//   tiny_copy  : many small launches, launch j with (j % 7 + 1) blocks of 128 threads
//   -T k       : then k host threads, thread t launching tiny_copy L times with t+1 blocks
// Usage: vec_kernels [-n FLOATS] [-m THREADS] [-i ITERS] [-l LAUNCHES] [-T K] [-r] [-x STATUS]
//   -r: cudaDeviceReset() before exit (the collector then reads its counters at context
//   teardown); -x: exit with STATUS after the work (tests the backend's error path).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                                 \
        do {                                                                                  \
                cudaError_t e_ = (x);                                                         \
                if (e_ != cudaSuccess) {                                                      \
                        fprintf(stderr, "vec_kernels: %s: %s\n", #x, cudaGetErrorString(e_)); \
                        exit(1);                                                              \
                }                                                                             \
        } while (0)

// 2-D blocks (32 x 8) so that Workgroup_Size must be the product of the block dims.
__global__ void vec_copy(const float *__restrict__ a, float *__restrict__ b, size_t n)
{
        size_t t = threadIdx.y * blockDim.x + threadIdx.x;
        size_t i = (size_t)blockIdx.x * (blockDim.x * blockDim.y) + t;
        if (i < n)
                b[i] = a[i];
}

// Four dependent chains per thread; the adds before and after are FADD, not FFMA.
__global__ void fma_loop(float *x, int m, int iters)
{
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i >= m)
                return;
        float a = x[i], b = a + 1.0f, c = a + 2.0f, d = a + 3.0f;
        const float k = 0.999f, o = 0.001f;
        for (int j = 0; j < iters; j++) {
                a = fmaf(a, k, o);
                b = fmaf(b, k, o);
                c = fmaf(c, k, o);
                d = fmaf(d, k, o);
        }
        x[i] = (a + b) + (c + d);
}

// Threads read what others wrote, so that neither array can be kept in registers.
__global__ void smem_rev(float *x)
{
        __shared__ float s[256];
        extern __shared__ float dyn[];
        int t = threadIdx.x;
        s[t] = x[blockIdx.x * 256 + t];
        __syncthreads();
        dyn[t] = s[255 - t];
        dyn[t + 256] = 2.0f * s[(t + 1) % 256];
        __syncthreads();
        x[blockIdx.x * 256 + t] = dyn[255 - t] + dyn[511 - t];
}

__global__ void tiny_copy(const float *a, float *b)
{
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        b[i] = a[i] + 1.0f;
}

int main(int argc, char **argv)
{
        size_t n = (size_t)256 << 20; // 1 GiB per array: far beyond the L2
        int m = 1 << 20, iters = 1000, launches = 40, reset = 0, status = 0, nthreads = 0;
        for (int i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "-n") && i + 1 < argc)
                        n = strtoull(argv[++i], NULL, 0);
                else if (!strcmp(argv[i], "-m") && i + 1 < argc)
                        m = atoi(argv[++i]);
                else if (!strcmp(argv[i], "-i") && i + 1 < argc)
                        iters = atoi(argv[++i]);
                else if (!strcmp(argv[i], "-l") && i + 1 < argc)
                        launches = atoi(argv[++i]);
                else if (!strcmp(argv[i], "-T") && i + 1 < argc)
                        nthreads = atoi(argv[++i]) % 8;
                else if (!strcmp(argv[i], "-r"))
                        reset = 1;
                else if (!strcmp(argv[i], "-x") && i + 1 < argc)
                        status = atoi(argv[++i]);
                else {
                        fprintf(stderr, "usage: vec_kernels [-n F] [-m T] [-i I] [-l L] [-T K] [-r] [-x S]\n");
                        return 2;
                }
        }
        n = (n + 255) / 256 * 256;
        m = (m + 255) / 256 * 256;
        float *a, *b, *x, *s, *ta, *tb;
        CK(cudaMalloc(&a, n * sizeof(float)));
        CK(cudaMalloc(&b, n * sizeof(float)));
        CK(cudaMalloc(&x, m * sizeof(float)));
        CK(cudaMalloc(&s, 64 * 256 * sizeof(float)));
        CK(cudaMalloc(&ta, 7 * 128 * sizeof(float)));
        CK(cudaMalloc(&tb, 7 * 128 * sizeof(float)));
        CK(cudaMemset(a, 0, n * sizeof(float)));
        CK(cudaMemset(b, 0, n * sizeof(float)));
        CK(cudaMemset(x, 0, m * sizeof(float)));
        CK(cudaMemset(s, 0, 64 * 256 * sizeof(float)));
        CK(cudaMemset(ta, 0, 7 * 128 * sizeof(float)));

        vec_copy<<<(unsigned)(n / 256), dim3(32, 8)>>>(a, b, n);
        CK(cudaGetLastError());
        fma_loop<<<m / 256, 256>>>(x, m, iters);
        CK(cudaGetLastError());
        smem_rev<<<64, 256, 512 * sizeof(float)>>>(s);
        CK(cudaGetLastError());
        for (int j = 0; j < launches; j++)
                tiny_copy<<<j % 7 + 1, 128>>>(ta, tb);
        CK(cudaGetLastError());
        std::vector<std::thread> threads;
        for (int t = 0; t < nthreads; t++)
                threads.emplace_back([=] {
                        cudaStream_t st;
                        CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
                        for (int j = 0; j < launches; j++)
                                tiny_copy<<<t + 1, 128, 0, st>>>(ta, tb);
                        CK(cudaStreamSynchronize(st));
                        CK(cudaStreamDestroy(st));
                });
        for (auto &th : threads)
                th.join();
        CK(cudaDeviceSynchronize());
        printf("vec_kernels: n=%zu m=%d iters=%d launches=%d\n", n, m, iters, launches);
        printf("EXPECT vec_copy bytes_read %zu bytes_write %zu grid %zu block 256\n",
               n * sizeof(float), n * sizeof(float), n);
        printf("EXPECT fma_loop ffma %.0f grid %d block 256\n", 4.0 * iters * m, m);
        printf("EXPECT smem_rev lds %zu\n", 256 * sizeof(float) + 512 * sizeof(float));
        fflush(stdout);
        CK(cudaFree(a));
        CK(cudaFree(b));
        CK(cudaFree(x));
        CK(cudaFree(s));
        CK(cudaFree(ta));
        CK(cudaFree(tb));
        if (reset)
                CK(cudaDeviceReset());
        return status;
}
