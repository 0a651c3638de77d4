// Launches the collector's own kernel replay (--cache-control all) cannot replay, between
// ones it can: the same kernel on device memory, on managed memory (twice) and as a
// cooperative launch (twice), then on device memory again. Each launch adds 1 to N floats
// in place, so a replay that did not restore memory shows in the sums it prints:
//   sum device D, sum managed M, sum coop C (each N * launches on it).
// Usage: fallback [-n N]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define PROG "fallback"
#include "common.cuh"

__global__ void add_one(float *x, int n)
{
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n)
                x[i] += 1.0f;
}

static double sum(const float *d, int n, int managed)
{
        float *h = (float *)malloc(n * sizeof *h);
        if (managed)
                memcpy(h, d, n * sizeof *h);
        else
                CK(cudaMemcpy(h, d, n * sizeof *h, cudaMemcpyDeviceToHost));
        double s = 0;
        for (int i = 0; i < n; i++)
                s += h[i];
        free(h);
        return s;
}

int main(int argc, char **argv)
{
        int n = 1 << 18;
        if (argc == 3 && !strcmp(argv[1], "-n"))
                n = atoi(argv[2]);
        else if (argc != 1) {
                fprintf(stderr, "usage: fallback [-n N]\n");
                return 2;
        }
        float *d, *m, *c;
        CK(cudaMalloc(&d, n * sizeof *d));
        CK(cudaMalloc(&c, n * sizeof *c));
        CK(cudaMallocManaged(&m, n * sizeof *m));
        CK(cudaMemset(d, 0, n * sizeof *d));
        CK(cudaMemset(c, 0, n * sizeof *c));
        CK(cudaMemset(m, 0, n * sizeof *m));
        CK(cudaDeviceSynchronize());
        // one thread per element, and a cooperative grid must be resident at once: n is
        // limited to what the GPU holds at 256 threads a block
        int per_sm = 0, sms = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, add_one, 256, 0));
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        int blocks = (n + 255) / 256;
        if (blocks > per_sm * sms) {
                fprintf(stderr, "fallback: -n %d does not fit one cooperative grid\n", n);
                return 2;
        }
        add_one<<<blocks, 256>>>(d, n);
        for (int k = 0; k < 2; k++)
                add_one<<<blocks, 256>>>(m, n);
        for (int k = 0; k < 2; k++) {
                void *args[] = {&c, &n};
                CK(cudaLaunchCooperativeKernel((void *)add_one, blocks, 256, args, 0, 0));
        }
        add_one<<<blocks, 256>>>(d, n);
        CK(cudaDeviceSynchronize());
        printf("sum device %.0f, sum managed %.0f, sum coop %.0f\n", sum(d, n, 0), sum(m, n, 1),
               sum(c, n, 0));
        CK(cudaFree(d));
        CK(cudaFree(c));
        CK(cudaFree(m));
        return 0;
}
