// A program whose host work outweighs its kernels (the cost of profiling where the GPU is
// idle most of the time): SECONDS of host computation (a busy loop, split in ROUNDS parts),
// each part followed by two kernels -- a scale over 2 x 16 MiB (in the L2) and a reduction.
// Usage: host_phase [-t SECONDS] [-r ROUNDS]   (default 3 s, 4 rounds)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define PROG "host_phase"
#include "common.cuh"

__global__ void scale(float *__restrict__ y, const float *__restrict__ x, float a, size_t n)
{
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
                y[i] = a * x[i];
}

__global__ void block_sum(float *out, const float *x, size_t n)
{
        __shared__ float s[256];
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        s[threadIdx.x] = i < n ? x[i] : 0.0f;
        __syncthreads();
        for (int k = blockDim.x / 2; k > 0; k >>= 1) {
                if ((int)threadIdx.x < k)
                        s[threadIdx.x] += s[threadIdx.x + k];
                __syncthreads();
        }
        if (threadIdx.x == 0)
                out[blockIdx.x] = s[0];
}

// host work that the compiler cannot drop: a linear congruential walk for `secs` seconds
static unsigned long host_work(double secs)
{
        auto t0 = std::chrono::steady_clock::now();
        unsigned long v = 1;
        for (;;) {
                for (int k = 0; k < 1000000; k++)
                        v = v * 6364136223846793005UL + 1442695040888963407UL;
                std::chrono::duration<double> d = std::chrono::steady_clock::now() - t0;
                if (d.count() >= secs)
                        return v;
        }
}

int main(int argc, char **argv)
{
        double secs = 3.0;
        int rounds = 4;
        for (int i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "-t") && i + 1 < argc)
                        secs = atof(argv[++i]);
                else if (!strcmp(argv[i], "-r") && i + 1 < argc)
                        rounds = atoi(argv[++i]);
                else {
                        fprintf(stderr, "usage: host_phase [-t SECONDS] [-r ROUNDS]\n");
                        return 2;
                }
        }
        if (!(secs >= 0) || rounds < 1) {
                fprintf(stderr, "host_phase: -t takes seconds >= 0, -r a positive count\n");
                return 2;
        }
        const size_t n = (size_t)4 << 20;
        const int threads = 256, blocks = (int)((n + threads - 1) / threads);
        float *x, *y, *out;
        CK(cudaMalloc(&x, n * sizeof *x));
        CK(cudaMalloc(&y, n * sizeof *y));
        CK(cudaMalloc(&out, blocks * sizeof *out));
        CK(cudaMemset(x, 0, n * sizeof *x));
        unsigned long acc = 0;
        for (int r = 0; r < rounds; r++) {
                acc ^= host_work(secs / rounds);
                scale<<<blocks, threads>>>(y, x, 1.5f, n);
                block_sum<<<blocks, threads>>>(out, y, n);
                CK(cudaDeviceSynchronize());
        }
        printf("host_phase: %d rounds, %.1f s of host work (%lu)\n", rounds, secs, acc & 0xff);
        CK(cudaFree(x));
        CK(cudaFree(y));
        CK(cudaFree(out));
        return 0;
}
