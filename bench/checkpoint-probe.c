/* Does CUPTI's checkpoint API work here, outside any callback? A context, two buffers, a
 * save with the context named and one with ctx NULL, a change, a restore, a check.
 * gcc -O2 -I/usr/local/cuda/include -o checkpoint-probe bench/checkpoint-probe.c -ldl */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct checkpoint {
        size_t structSize;
        CUcontext ctx;
        size_t reserveDeviceMB, reserveHostMB;
        uint8_t allowOverwrite, optimizations;
        void *pPriv;
};

int main(void)
{
        void *cu = dlopen("libcuda.so.1", RTLD_NOW), *ck = dlopen("libcheckpoint.so", RTLD_NOW);
        if (!cu || !ck) {
                printf("dlopen: %s\n", dlerror());
                return 1;
        }
        int (*save)(struct checkpoint *) = (int (*)(struct checkpoint *))dlsym(ck, "cuptiCheckpointSave");
        int (*restore)(struct checkpoint *) = (int (*)(struct checkpoint *))dlsym(ck, "cuptiCheckpointRestore");
        CUresult (*init)(unsigned) = (CUresult(*)(unsigned))dlsym(cu, "cuInit");
        CUresult (*ctx_create)(CUcontext *, unsigned, CUdevice) =
            (CUresult(*)(CUcontext *, unsigned, CUdevice))dlsym(cu, "cuCtxCreate_v2");
        CUresult (*alloc)(CUdeviceptr *, size_t) = (CUresult(*)(CUdeviceptr *, size_t))dlsym(cu, "cuMemAlloc_v2");
        CUresult (*set)(CUdeviceptr, unsigned, size_t) = (CUresult(*)(CUdeviceptr, unsigned, size_t))dlsym(cu, "cuMemsetD32_v2");
        CUresult (*get)(void *, CUdeviceptr, size_t) = (CUresult(*)(void *, CUdeviceptr, size_t))dlsym(cu, "cuMemcpyDtoH_v2");
        CUcontext ctx;
        CUdeviceptr p;
        printf("init %d ctx %d alloc %d\n", init(0), ctx_create(&ctx, 0, 0), alloc(&p, 1 << 20));
        set(p, 7, 1 << 18);
        struct checkpoint a = {.structSize = sizeof a, .ctx = ctx}, b = {.structSize = sizeof b};
        int ra = save(&a), rb = save(&b);
        set(p, 9, 1 << 18);
        int rr = restore(&a);
        unsigned v = 0;
        get(&v, p, 4);
        printf("save(ctx) %d save(NULL) %d restore %d value %u (want 7)\n", ra, rb, rr, v);
        return 0;
}
