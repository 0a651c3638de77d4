/* prism-roofline-cuda: the roofline micro-benchmarks for NVIDIA GPUs. Memory and vector
 * kernels come from roofline_common.h; this file adds the half-precision and INT8 vector
 * kernels and the tensor-core kernels (mma.sync everywhere, wgmma on sm_90a). */
#include "roofline_common.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

/* ---- vector kernels that need CUDA's packed types ---- */
/* Packed half and bfloat16: one HFMA2 is two FMAs, four flops. */
template <> __device__ __forceinline__ __half2 rf_fma(__half2 x, __half2 a, __half2 b)
{
        return __hfma2(x, a, b);
}
template <>
__device__ __forceinline__ __nv_bfloat162 rf_fma(__nv_bfloat162 x, __nv_bfloat162 a,
                                                 __nv_bfloat162 b)
{
        return __hfma2(x, a, b);
}

template <typename T2> __global__ void rf_fma2_kernel(long iters, T2 a, T2 b, int4 *out)
{
        T2 x[RF_FMA_CHAINS];
#pragma unroll
        for (int c = 0; c < RF_FMA_CHAINS; c++)
                x[c] = b;
        for (long i = 0; i < iters; i++) {
#pragma unroll
                for (int r = 0; r < RF_FMA_ROUNDS; r++)
#pragma unroll
                        for (int c = 0; c < RF_FMA_CHAINS; c++)
                                x[c] = rf_fma(x[c], a, b);
        }
        uint32_t s = 0;
#pragma unroll
        for (int c = 0; c < RF_FMA_CHAINS; c++)
                s ^= *(uint32_t *)&x[c];
        if (s == 0x2c1b3c6d)
                out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = make_int4(1, 1, 1, 1);
}

/* INT8 dot products: one DP4A is four multiply-adds, eight ops. */
__global__ void rf_dp4a_kernel(long iters, int a, int b, int4 *out)
{
        int x[RF_FMA_CHAINS];
#pragma unroll
        for (int c = 0; c < RF_FMA_CHAINS; c++)
                x[c] = threadIdx.x + c;
        for (long i = 0; i < iters; i++) {
#pragma unroll
                for (int r = 0; r < RF_FMA_ROUNDS; r++)
#pragma unroll
                        for (int c = 0; c < RF_FMA_CHAINS; c++)
                                x[c] = __dp4a(a ^ c, b, x[c]);
        }
        int s = 0;
#pragma unroll
        for (int c = 0; c < RF_FMA_CHAINS; c++)
                s ^= x[c];
        if (s == 0x2c1b3c6d)
                out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = make_int4(1, 1, 1, 1);
}

enum { T_F16, T_BF16, T_TF32, T_I8 };

template <int T> static int rf_prep_fma2(struct rf_run *r)
{
        const void *fn = T == T_F16    ? (const void *)rf_fma2_kernel<__half2>
                         : T == T_BF16 ? (const void *)rf_fma2_kernel<__nv_bfloat162>
                                       : (const void *)rf_dp4a_kernel;
        r->block = RF_BLOCK;
        r->grid = rf_occupancy_grid(r->dev, fn, r->block, 0);
        r->iters = 64;
        r->scalable = 1;
        return 0;
}

template <int T> static void rf_launch_fma2(const struct rf_run *r, cudaStream_t s)
{
        if (T == T_F16)
                rf_fma2_kernel<__half2><<<r->grid, r->block, 0, s>>>(
                    r->iters, __floats2half2_rn(0.999f, 0.998f), __floats2half2_rn(0.001f, 0.002f),
                    (int4 *)r->out);
        else if (T == T_BF16)
                rf_fma2_kernel<__nv_bfloat162><<<r->grid, r->block, 0, s>>>(
                    r->iters, __floats2bfloat162_rn(0.999f, 0.998f),
                    __floats2bfloat162_rn(0.001f, 0.002f), (int4 *)r->out);
        else
                rf_dp4a_kernel<<<r->grid, r->block, 0, s>>>(r->iters, 0x01ff7f03, 0x05fe8007,
                                                            (int4 *)r->out);
}

/* ---- tensor cores through mma.sync (any sm_80+ part) ----
 * Each warp keeps MMA_ACC independent accumulator tiles so consecutive MMAs do not wait on
 * each other; A and B stay in registers (non-zero bit patterns). */
#define MMA_ACC 8

template <int T>
__device__ __forceinline__ void rf_mma(float (&c)[4], const uint32_t (&a)[4],
                                       const uint32_t (&b)[2])
{
        if (T == T_F16)
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                             "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                             : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        else if (T == T_BF16)
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                             "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                             : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        else if (T == T_TF32)
                asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                             "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                             : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        else /* T_I8: s32 accumulators, carried in the float registers' bits */
                asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                             "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                             : "+r"(*(uint32_t *)&c[0]), "+r"(*(uint32_t *)&c[1]),
                               "+r"(*(uint32_t *)&c[2]), "+r"(*(uint32_t *)&c[3])
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Operand bits for each type: magnitudes in [0.5, 1) with random mantissas and signs. */
template <int T> __device__ __forceinline__ uint32_t rf_operand_bits(uint32_t h)
{
        if (T == T_F16)
                return (h & 0x83ff83ffu) | 0x38003800u;
        if (T == T_BF16)
                return (h & 0x807f807fu) | 0x3f003f00u;
        if (T == T_TF32)
                return (h & 0x807fe000u) | 0x3f000000u;
        return h; /* int8: any bytes */
}

__device__ __forceinline__ uint32_t rf_hash(uint32_t x)
{
        x ^= x >> 16;
        x *= 0x7feb352du;
        x ^= x >> 15;
        x *= 0x846ca68bu;
        x ^= x >> 16;
        return x;
}

template <int T> __global__ void rf_mma_kernel(long iters, int4 *out)
{
        uint32_t a[4], b[2];
        uint32_t seed = rf_hash(blockIdx.x * blockDim.x + threadIdx.x + 1);
#pragma unroll
        for (int i = 0; i < 4; i++)
                a[i] = rf_operand_bits<T>(rf_hash(seed + i));
#pragma unroll
        for (int i = 0; i < 2; i++)
                b[i] = rf_operand_bits<T>(rf_hash(seed + 17 + i));
        float c[MMA_ACC][4];
#pragma unroll
        for (int j = 0; j < MMA_ACC; j++)
#pragma unroll
                for (int k = 0; k < 4; k++)
                        c[j][k] = 0.0f;
        for (long i = 0; i < iters; i++) {
#pragma unroll
                for (int j = 0; j < MMA_ACC; j++)
                        rf_mma<T>(c[j], a, b);
        }
        uint32_t x = 0;
#pragma unroll
        for (int j = 0; j < MMA_ACC; j++)
#pragma unroll
                for (int k = 0; k < 4; k++)
                        x ^= __float_as_uint(c[j][k]);
        if (x == 0x2c1b3c6d)
                out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = make_int4(1, 1, 1, 1);
}

/* FP64 tensor cores (DMMA), shape m16n8k16 (sm_90), with ACC independent accumulators. */
template <int ACC> __global__ void rf_dmma_kernel(long iters, int4 *out)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        double a[8], b[4], c[ACC][4];
#pragma unroll
        for (int i = 0; i < 8; i++)
                a[i] = 0.5 + 0.001 * ((threadIdx.x + i) & 31);
#pragma unroll
        for (int i = 0; i < 4; i++)
                b[i] = 0.75 - 0.001 * ((threadIdx.x + 3 * i) & 31);
#pragma unroll
        for (int j = 0; j < ACC; j++)
#pragma unroll
                for (int k = 0; k < 4; k++)
                        c[j][k] = 0.0;
        for (long i = 0; i < iters; i++) {
#pragma unroll
                for (int j = 0; j < ACC; j++)
                        asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 "
                                     "{%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
                                     "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
                                     : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3])
                                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]),
                                       "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
                                       "d"(b[2]), "d"(b[3]));
        }
        double s = 0;
#pragma unroll
        for (int j = 0; j < ACC; j++)
#pragma unroll
                for (int k = 0; k < 4; k++)
                        s += c[j][k];
        if (s == -12345.0)
                out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = make_int4(1, 1, 1, 1);
#endif
}

/* What the loaded machine code holds: bit 0 DMMA m16n8k16 (sm_90+), bit 1 wgmma (sm_90a).
 * Asked of the device, so a build without the sm_90a target skips the wgmma entries instead
 * of timing empty kernels. */
enum { FEAT_DMMA = 1, FEAT_WGMMA = 2 };
__global__ void rf_feature_kernel(int *f)
{
        int v = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        v |= FEAT_DMMA;
#endif
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
        v |= FEAT_WGMMA;
#endif
        *f = v;
}

static int rf_features(void)
{
        static int feats = -1;
        if (feats < 0) {
                int *d = NULL;
                RF_CHECK(cudaMalloc(&d, sizeof *d));
                rf_feature_kernel<<<1, 1>>>(d);
                RF_CHECK(cudaGetLastError());
                RF_CHECK(cudaMemcpy(&feats, d, sizeof feats, cudaMemcpyDeviceToHost));
                RF_CHECK(cudaFree(d));
        }
        return feats;
}

template <int T> static int rf_prep_mma(struct rf_run *r)
{
        if (r->dev->prop.major < 8)
                return -1;
        r->block = RF_BLOCK;
        r->grid = rf_occupancy_grid(r->dev, (const void *)rf_mma_kernel<T>, r->block, 0);
        r->iters = 64;
        r->scalable = 1;
        return 0;
}

template <int T> static void rf_launch_mma(const struct rf_run *r, cudaStream_t s)
{
        rf_mma_kernel<T><<<r->grid, r->block, 0, s>>>(r->iters, (int4 *)r->out);
}

template <int ACC> static int rf_prep_dmma(struct rf_run *r)
{
        if (!(rf_features() & FEAT_DMMA))
                return -1; /* m16n8k16.f64 needs sm_90 */
        const void *fn = (const void *)rf_dmma_kernel<ACC>;
        r->block = RF_BLOCK;
        r->grid = rf_occupancy_grid(r->dev, fn, r->block, 0);
        r->iters = 64;
        r->scalable = 1;
        return 0;
}

template <int ACC> static void rf_launch_dmma(const struct rf_run *r, cudaStream_t s)
{
        rf_dmma_kernel<ACC><<<r->grid, r->block, 0, s>>>(r->iters, (int4 *)r->out);
}

/* ---- Hopper wgmma (sm_90a only) ----
 * Each warpgroup (4 warps) issues m64n256kK wgmmas back to back on one 64x256 accumulator,
 * with A and B read from shared memory through matrix descriptors. 128 accumulator registers
 * a thread. Two warpgroups a block, so one can issue while the other waits. */
#define WG_PER_BLOCK 2
#define WG_PER_COMMIT 4

#define WG_D                                                                                       \
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "        \
        "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, "         \
        "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "         \
        "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, "         \
        "%66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, "         \
        "%82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, "         \
        "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "       \
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "           \
        "%125, %126, %127}"
#define WG_R8(i)                                                                                   \
        "+r"(d[i]), "+r"(d[i + 1]), "+r"(d[i + 2]), "+r"(d[i + 3]), "+r"(d[i + 4]),                \
            "+r"(d[i + 5]), "+r"(d[i + 6]), "+r"(d[i + 7])
#define WG_R128                                                                                    \
        WG_R8(0), WG_R8(8), WG_R8(16), WG_R8(24), WG_R8(32), WG_R8(40), WG_R8(48), WG_R8(56),      \
            WG_R8(64), WG_R8(72), WG_R8(80), WG_R8(88), WG_R8(96), WG_R8(104), WG_R8(112),         \
            WG_R8(120)

/* The accumulators are kept as 32-bit words ("+r"): f32 for the float types, s32 for int8. */
template <int T>
__device__ __forceinline__ void rf_wgmma(uint32_t (&d)[128], uint64_t da, uint64_t db)
{
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
        if (T == T_BF16)
                asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                             "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " WG_D
                             ", %128, %129, p, 1, 1, 0, 0;\n}\n"
                             : WG_R128
                             : "l"(da), "l"(db), "r"(1));
        else if (T == T_F16)
                asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                             "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " WG_D
                             ", %128, %129, p, 1, 1, 0, 0;\n}\n"
                             : WG_R128
                             : "l"(da), "l"(db), "r"(1));
        else if (T == T_TF32)
                asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                             "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " WG_D
                             ", %128, %129, p, 1, 1;\n}\n"
                             : WG_R128
                             : "l"(da), "l"(db), "r"(1));
        else
                asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                             "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 " WG_D
                             ", %128, %129, p;\n}\n"
                             : WG_R128
                             : "l"(da), "l"(db), "r"(1));
#endif
}

/* Matrix descriptor, no swizzle: start address, leading (K) and stride (M/N) byte offsets
 * between 8x16-byte core matrices, each field in units of 16 bytes. */
__device__ __forceinline__ uint64_t rf_wg_desc(const void *p, uint32_t lbo, uint32_t sbo)
{
        uint32_t addr = (uint32_t)__cvta_generic_to_shared(p);
        return (uint64_t)((addr & 0x3ffff) >> 4) | (uint64_t)((lbo & 0x3ffff) >> 4) << 16 |
               (uint64_t)((sbo & 0x3ffff) >> 4) << 32;
}

template <int T>
__global__ void __launch_bounds__(128 * WG_PER_BLOCK, 1) rf_wgmma_kernel(long iters, int4 *out)
{
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
        /* A: 64 rows x 16 bytes of K per row (2 KiB); B: 256 rows (8 KiB); 16-byte core-matrix
         * rows, LBO 128 (next core matrix along K), SBO 256 (next 8 rows) */
        __shared__ __align__(1024) uint32_t sm[4096];
        for (int i = threadIdx.x; i < 4096; i += blockDim.x)
                sm[i] = rf_operand_bits<T>(rf_hash(i * 2654435761u + blockIdx.x));
        /* generic-proxy writes read next by the tensor cores (async proxy) */
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        uint64_t da = rf_wg_desc(sm, 128, 256);
        uint64_t db = rf_wg_desc(sm + 512, 128, 256);
        uint32_t d[128];
#pragma unroll
        for (int i = 0; i < 128; i++)
                d[i] = 0;
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        for (long i = 0; i < iters; i++) {
#pragma unroll
                for (int k = 0; k < WG_PER_COMMIT; k++)
                        rf_wgmma<T>(d, da, db);
                asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
                asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        uint32_t x = 0;
#pragma unroll
        for (int i = 0; i < 128; i++)
                x ^= d[i];
        if (x == 0x2c1b3c6d)
                out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = make_int4(1, 1, 1, 1);
#endif
}

template <int T> static int rf_prep_wgmma(struct rf_run *r)
{
        if (!(rf_features() & FEAT_WGMMA))
                return -1; /* wgmma is sm_90a only */
        r->block = 128 * WG_PER_BLOCK;
        r->grid = rf_occupancy_grid(r->dev, (const void *)rf_wgmma_kernel<T>, r->block, 0);
        r->iters = 64;
        r->scalable = 1;
        return 0;
}

template <int T> static void rf_launch_wgmma(const struct rf_run *r, cudaStream_t s)
{
        rf_wgmma_kernel<T><<<r->grid, r->block, 0, s>>>(r->iters, (int4 *)r->out);
}

/* ---- the table ---- */
/* Work per loop step of one thread:
 *   read kernels: 8 loads of 16 bytes = 128 bytes; copy: 4 x (16 read + 16 written) = 128
 *   vector FMA: 8 chains x 32 rounds = 256 FMAs; x2 flops, x4 for packed half types,
 *   dp4a: 8 ops each
 *   mma.sync (per warp, MMA_ACC=8 per step, divided over 32 threads):
 *     m16n8k16 f16/bf16 2*16*8*16 = 4096 flops; m16n8k8 tf32 2048; m16n8k32 s8 8192;
 *     m16n8k16 f64 4096
 *   wgmma (per warpgroup, 4 per step, divided over 128 threads):
 *     m64n256k16 2*64*256*16 = 524288; k8 (tf32) 262144; k32 (s8) 1048576 */
#define FMA_STEP (RF_FMA_CHAINS * RF_FMA_ROUNDS)
#define MMA_STEP(flops_per_warp) ((double)MMA_ACC * (flops_per_warp) / 32.0)
#define WG_STEP(flops_per_wg) ((double)WG_PER_COMMIT * (flops_per_wg) / 128.0)

static const struct rf_bench rf_table[] = {
    {"hbm_read", "HBMBw", 16.0 * RF_U_HBM, 0, rf_prep_hbm_read<0, RF_U_HBM>,
     rf_launch_read<0, RF_U_HBM>, "stream 4 GiB, ld.global.cs 16 B, 8 loads in flight"},
    {"hbm_read_nc", "HBMBw", 16.0 * RF_U_HBM, 0, rf_prep_hbm_read<3, RF_U_HBM>,
     rf_launch_read<3, RF_U_HBM>, "stream 4 GiB, ld.global.nc 16 B"},
    {"hbm_read_u4", "HBMBw", 16.0 * 4, 0, rf_prep_hbm_read<0, 4>, rf_launch_read<0, 4>,
     "stream 4 GiB, ld.global.cs 16 B, 4 loads in flight"},
    {"hbm_copy", NULL, 128.0, 0, rf_prep_hbm_copy, rf_launch_copy,
     "copy 2 GiB to 2 GiB (bytes read + written)"},
    {"l2_read_q", "L2Bw", 128.0, 0, rf_prep_l2<4>, rf_launch_read<1, 8>,
     "ld.global.cg over a quarter of L2 (power of two)"},
    {"l2_read_e", "L2Bw", 128.0, 0, rf_prep_l2<8>, rf_launch_read<1, 8>,
     "ld.global.cg over an eighth of L2"},
    {"l2_read_s", "L2Bw", 128.0, 0, rf_prep_l2<16>, rf_launch_read<1, 8>,
     "ld.global.cg over a sixteenth of L2"},
    {"l2_read_t", "L2Bw", 128.0, 0, rf_prep_l2<32>, rf_launch_read<1, 8>,
     "ld.global.cg over a thirty-second of L2"},
    {"l2_read_s16", "L2Bw", 256.0, 0, rf_prep_l2<16, 16>, rf_launch_read<1, 16>,
     "ld.global.cg over a sixteenth of L2, 16 loads in flight"},
    {"l2_read_s4", "L2Bw", 64.0, 0, rf_prep_l2<16, 4>, rf_launch_read<1, 4>,
     "ld.global.cg over a sixteenth of L2, 4 loads in flight"},
    {"l1_read", "L1Bw", 128.0, 0, rf_prep_l1<16>, rf_launch_local<2>,
     "ld.global.ca, each block re-reads the same 16 KiB"},
    {"l1_read_nc", "L1Bw", 128.0, 0, rf_prep_l1<16>, rf_launch_local<3>,
     "ld.global.nc, each block re-reads the same 16 KiB"},
    {"lds_read", "LDSBw", 128.0, 0, rf_prep_lds, rf_launch_lds,
     "ld.shared 16 B, conflict-free, 16 KiB a block"},
    {"fp32_fma", "FP32Flops", 0, 2.0 * FMA_STEP, rf_prep_fma<float>, rf_launch_fma<float>,
     "FFMA, 8 chains a thread"},
    {"fp64_fma", "FP64Flops", 0, 2.0 * FMA_STEP, rf_prep_fma<double>, rf_launch_fma<double>,
     "DFMA, 8 chains a thread"},
    {"fp16_fma2", "FP16Flops", 0, 4.0 * FMA_STEP, rf_prep_fma2<T_F16>, rf_launch_fma2<T_F16>,
     "HFMA2 on half2"},
    {"bf16_fma2", "BF16Flops", 0, 4.0 * FMA_STEP, rf_prep_fma2<T_BF16>, rf_launch_fma2<T_BF16>,
     "HFMA2.BF16 on bfloat162"},
    {"i8_dp4a", "I8Ops", 0, 8.0 * FMA_STEP, rf_prep_fma2<T_I8>, rf_launch_fma2<T_I8>,
     "IDP4A (4 int8 multiply-adds)"},
    {"mma_bf16", "MFMABF16Flops", 0, MMA_STEP(4096), rf_prep_mma<T_BF16>, rf_launch_mma<T_BF16>,
     "mma.sync m16n8k16 bf16 -> f32"},
    {"mma_f16", "MFMAF16Flops", 0, MMA_STEP(4096), rf_prep_mma<T_F16>, rf_launch_mma<T_F16>,
     "mma.sync m16n8k16 f16 -> f32"},
    {"mma_tf32", "MFMAF32Flops", 0, MMA_STEP(2048), rf_prep_mma<T_TF32>, rf_launch_mma<T_TF32>,
     "mma.sync m16n8k8 tf32 -> f32"},
    {"mma_i8", "MFMAI8Ops", 0, MMA_STEP(8192), rf_prep_mma<T_I8>, rf_launch_mma<T_I8>,
     "mma.sync m16n8k32 s8 -> s32"},
    {"dmma_f64", "MFMAF64Flops", 0, 8 * 4096 / 32.0, rf_prep_dmma<8>, rf_launch_dmma<8>,
     "mma.sync m16n8k16 f64 (DMMA), 8 accumulators a warp"},
    {"dmma_f64_a4", "MFMAF64Flops", 0, 4 * 4096 / 32.0, rf_prep_dmma<4>, rf_launch_dmma<4>,
     "mma.sync m16n8k16 f64 (DMMA), 4 accumulators a warp"},
    {"dmma_f64_a2", "MFMAF64Flops", 0, 2 * 4096 / 32.0, rf_prep_dmma<2>, rf_launch_dmma<2>,
     "mma.sync m16n8k16 f64 (DMMA), 2 accumulators a warp"},
    {"wgmma_bf16", "MFMABF16Flops", 0, WG_STEP(524288), rf_prep_wgmma<T_BF16>,
     rf_launch_wgmma<T_BF16>, "wgmma m64n256k16 bf16 -> f32, operands in shared memory"},
    {"wgmma_f16", "MFMAF16Flops", 0, WG_STEP(524288), rf_prep_wgmma<T_F16>, rf_launch_wgmma<T_F16>,
     "wgmma m64n256k16 f16 -> f32"},
    {"wgmma_tf32", "MFMAF32Flops", 0, WG_STEP(262144), rf_prep_wgmma<T_TF32>,
     rf_launch_wgmma<T_TF32>, "wgmma m64n256k8 tf32 -> f32"},
    {"wgmma_i8", "MFMAI8Ops", 0, WG_STEP(1048576), rf_prep_wgmma<T_I8>, rf_launch_wgmma<T_I8>,
     "wgmma m64n256k32 s8 -> s32"},
};

/* Physical peaks for the detail table's peak% column, from the clock and per-multiprocessor
 * rates of the part (data for the compute capabilities known here; 0 = not shown). */
struct rf_sm_rates {
        int major, minor;
        double fp32_fma, fp64_fma; /* FMA lanes per SM */
        double smem_bytes_clk;     /* shared memory and L1: bytes per clock per SM */
        double l2_bytes_clk_slice; /* L2 bytes per clock per 512 KiB slice (estimate) */
};
static const struct rf_sm_rates rf_rates[] = {
    {9, 0, 128, 64, 128, 64},
    {8, 0, 64, 32, 128, 64},
};

static double rf_peak(const struct rf_dev *d, const char *column)
{
        if (!strcmp(column, "HBMBw"))
                return d->hbm_peak;
        const struct rf_sm_rates *k = NULL;
        for (size_t i = 0; i < sizeof rf_rates / sizeof rf_rates[0]; i++)
                if (rf_rates[i].major == d->prop.major && rf_rates[i].minor == d->prop.minor)
                        k = &rf_rates[i];
        if (!k)
                return 0;
        double sm_clk = d->sms * d->clk_hz;
        if (!strcmp(column, "FP32Flops"))
                return 2 * k->fp32_fma * sm_clk;
        if (!strcmp(column, "FP64Flops"))
                return 2 * k->fp64_fma * sm_clk;
        if (!strcmp(column, "LDSBw") || !strcmp(column, "L1Bw"))
                return k->smem_bytes_clk * sm_clk;
        if (!strcmp(column, "L2Bw"))
                return k->l2_bytes_clk_slice * (double)(d->l2_bytes / (512 * 1024)) * d->clk_hz;
        return 0;
}

int main(int argc, char **argv)
{
        return rf_main(argc, argv, rf_table, (int)(sizeof rf_table / sizeof rf_table[0]));
}
