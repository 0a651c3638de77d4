// An MPI program for profiling ranks that share a GPU (issue 21): every rank runs the
// same kernels on its own data and exchanges data with its neighbours between kernels, so
// that ranks wait on each other while others are being profiled. Deterministic
// instruction counts per rank: fma_chain does N * ITERS FFMAs (times 4 chains), scale_copy
// moves N floats. Usage: mpirun -np K mpi_ranks [-i ROUNDS] [-n ELEMS]
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                      \
        do {                                                                                       \
                cudaError_t e_ = (x);                                                              \
                if (e_ != cudaSuccess) {                                                           \
                        fprintf(stderr, "mpi_ranks: %s: %s\n", #x, cudaGetErrorString(e_));        \
                        MPI_Abort(MPI_COMM_WORLD, 1);                                              \
                }                                                                                  \
        } while (0)

__global__ void fma_chain(float *x, size_t n, int iters)
{
        size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
        if (i >= n)
                return;
        float a = x[i], b = a + 1.f, c = a + 2.f, d = a + 3.f;
        for (int k = 0; k < iters; k++) {
                a = fmaf(a, 0.999f, 0.001f);
                b = fmaf(b, 0.999f, 0.001f);
                c = fmaf(c, 0.999f, 0.001f);
                d = fmaf(d, 0.999f, 0.001f);
        }
        x[i] = a + b + c + d;
}

__global__ void scale_copy(const float *in, float *out, size_t n, float s)
{
        size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
        if (i < n)
                out[i] = s * in[i];
}

int main(int argc, char **argv)
{
        MPI_Init(&argc, &argv);
        int rank, size;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        size_t n = 1 << 22;
        int rounds = 3, iters = 256;
        for (int i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "-i") && i + 1 < argc)
                        rounds = atoi(argv[++i]);
                else if (!strcmp(argv[i], "-n") && i + 1 < argc)
                        n = strtoull(argv[++i], NULL, 0);
        }
        float *x, *y;
        CK(cudaMalloc(&x, n * sizeof(float)));
        CK(cudaMalloc(&y, n * sizeof(float)));
        std::vector<float> h(n, 1.0f + rank), halo(1024), got(1024);
        CK(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        double total = 0;
        for (int r = 0; r < rounds; r++) {
                unsigned blocks = (unsigned)((n + 255) / 256);
                fma_chain<<<blocks, 256>>>(x, n, iters);
                CK(cudaGetLastError());
                scale_copy<<<blocks, 256>>>(x, y, n, 0.5f);
                CK(cudaDeviceSynchronize());
                // the ring: send my first 1024 values right, receive the left's
                CK(cudaMemcpy(halo.data(), y, 1024 * sizeof(float), cudaMemcpyDeviceToHost));
                MPI_Sendrecv(halo.data(), 1024, MPI_FLOAT, right, r, got.data(), 1024, MPI_FLOAT,
                             left, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CK(cudaMemcpy(x, got.data(), 1024 * sizeof(float), cudaMemcpyHostToDevice));
                scale_copy<<<blocks, 256>>>(y, x + 0, n, 2.0f);
                CK(cudaDeviceSynchronize());
                double local = got[0], sum = 0;
                MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                total += sum;
        }
        if (rank == 0)
                printf("mpi_ranks: %d ranks, %d rounds, checksum %.6g\n", size, rounds, total);
        cudaFree(x);
        cudaFree(y);
        MPI_Finalize();
        return 0;
}
