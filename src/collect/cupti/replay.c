/* The collector's own kernel replay (experimental: PRISM_CUPTI_CHECKPOINT=1 or 2 with
 * PRISM_CUPTI_REPLAY=kernel and PRISM_CUPTI_FLUSH=1, i.e. prism's --replay kernel
 * --cache-control all with PRISM_CUPTI_CHECKPOINT in its environment). Measured on the
 * H200 (bench/cost-h200.md): DRAM and L2 counters of L2-resident kernels as ncu's
 * --cache-control all gives them, at ~23 ms a pass against CUPTI's ~15; the metrics CUPTI
 * collects by instrumenting the code (PRISM_CUPTI_INSTRUMENTED) read 0 in a kernel the
 * collector relaunches, so with 1 they are left empty, and with 2 (the split, range.c) they
 * go to CUPTI's kernel replay of the program's own launch -- which crashed the target right
 * after its first kernel on the H200 (bench/replay-h100.md, 2026-11-29): not the default.
 * CUPTI's kernel replay saves and restores device memory between a kernel's passes but leaves
 * the L2 as the restore left it, so the cache and DRAM counters of a kernel whose data fits in
 * the L2 depend on the pass. Here the collector replays the kernel itself in CUPTI's
 * user-replay mode, from the launch's API entry: save what the kernel can modify (CUPTI's
 * checkpoint API, libcheckpoint.so), then for each pass restore it (from the second pass on),
 * flush the L2 (flush.c) and launch the kernel once more with the program's own arguments
 * under a user range; after the last pass restore once more and let the program's launch run,
 * unprofiled. Every pass thus starts from the program's memory and a cold L2, as ncu's default
 * (--cache-control all).
 *
 * Launches this cannot replay go to CUPTI's kernel replay as before, said once each kind:
 * cooperative launches (the grid must be co-resident; relaunching inside the callback is
 * not what the program asked for), kernels given managed memory (the checkpoint does not
 * cover it), and any launch when libcheckpoint.so or a checkpoint fails. Graph launches
 * reach no launch callback at all. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "collector.h"

__thread int pc_replaying;

/* CUpti_Checkpoint of cupti_checkpoint.h, a C++-only header: the same layout in C. */
struct checkpoint {
        size_t structSize;
        CUcontext ctx;
        size_t reserveDeviceMB;
        size_t reserveHostMB;
        uint8_t allowOverwrite;
        uint8_t optimizations;
        void *pPriv;
};

static struct {
        int loaded; /* 1 ok, -1 failed */
        CUptiResult (*save)(struct checkpoint *);
        CUptiResult (*restore)(struct checkpoint *);
        CUptiResult (*free)(struct checkpoint *);
        CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, CUstream, void **, void **);
        CUresult (*launch_ptsz)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                unsigned, unsigned, CUstream, void **, void **);
        CUresult (*launch_ex)(const CUlaunchConfig *, CUfunction, void **, void **);
        CUresult (*launch_ex_ptsz)(const CUlaunchConfig *, CUfunction, void **, void **);
        CUresult (*param_info)(CUfunction, size_t, size_t *, size_t *);
        CUresult (*kparam_info)(CUkernel, size_t, size_t *, size_t *);
        CUresult (*ptr_attr)(void *, CUpointer_attribute, CUdeviceptr);
} rp;

/* The parameter blocks of the launch calls (generated_cuda_meta.h's layout). */
struct launch_params {
        CUfunction f;
        unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared;
        CUstream stream;
        void **args;
        void **extra;
};
struct launch_ex_params {
        const CUlaunchConfig *config;
        CUfunction f;
        void **args;
        void **extra;
};

int pc_replay_init(void)
{
        if (rp.loaded)
                return rp.loaded > 0 ? 0 : -1;
        rp.loaded = -1;
        void *h = dlopen("libcheckpoint.so", RTLD_NOW | RTLD_LOCAL);
        void *cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (!h || !cu) {
                pc_warn("cannot load %s (%s): kernels are replayed by CUPTI, the L2 flushed "
                        "before the first pass only",
                        h ? "libcuda.so.1" : "libcheckpoint.so", dlerror());
                return -1;
        }
        *(void **)(&rp.save) = dlsym(h, "cuptiCheckpointSave");
        *(void **)(&rp.restore) = dlsym(h, "cuptiCheckpointRestore");
        *(void **)(&rp.free) = dlsym(h, "cuptiCheckpointFree");
        *(void **)(&rp.launch) = dlsym(cu, "cuLaunchKernel");
        *(void **)(&rp.launch_ptsz) = dlsym(cu, "cuLaunchKernel_ptsz");
        *(void **)(&rp.launch_ex) = dlsym(cu, "cuLaunchKernelEx");
        *(void **)(&rp.launch_ex_ptsz) = dlsym(cu, "cuLaunchKernelEx_ptsz");
        *(void **)(&rp.param_info) = dlsym(cu, "cuFuncGetParamInfo");
        *(void **)(&rp.kparam_info) = dlsym(cu, "cuKernelGetParamInfo");
        *(void **)(&rp.ptr_attr) = dlsym(cu, "cuPointerGetAttribute");
        if (!rp.save || !rp.restore || !rp.free || !rp.launch) {
                pc_warn("libcheckpoint.so or libcuda.so.1 lacks the checkpoint or launch calls: "
                        "kernels are replayed by CUPTI");
                return -1;
        }
        rp.loaded = 1;
        return 0;
}

/* Say once per kind why a launch goes to CUPTI's replay. */
static void fallback_note(int kind, const char *why, const char *kernel)
{
        static int said[4];
        if (kind < 0 || kind > 3 || said[kind])
                return;
        said[kind] = 1;
        pc_warn("%s (first: %s): CUPTI replays such kernels, the L2 flushed before the first "
                "pass only",
                why, kernel);
}

/* Does a pointer argument of f point to managed memory? (Unknown layout: no.) */
static int managed_args(CUfunction f, void **args)
{
        if (!args || !rp.ptr_attr || (!rp.param_info && !rp.kparam_info))
                return 0;
        for (size_t i = 0; i < 4096; i++) {
                size_t off, size;
                if (!(rp.param_info && rp.param_info(f, i, &off, &size) == CUDA_SUCCESS) &&
                    !(rp.kparam_info && rp.kparam_info((CUkernel)f, i, &off, &size) == CUDA_SUCCESS))
                        break;
                if (size != sizeof(CUdeviceptr) || !args[i])
                        continue;
                CUdeviceptr p;
                memcpy(&p, args[i], sizeof p);
                unsigned managed = 0;
                if (p && rp.ptr_attr(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p) ==
                             CUDA_SUCCESS &&
                    managed)
                        return 1;
        }
        return 0;
}

static int cooperative_ex(const CUlaunchConfig *c)
{
        for (unsigned i = 0; c && i < c->numAttrs; i++)
                if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && c->attrs[i].value.cooperative)
                        return 1;
        return 0;
}

struct job {
        CUpti_CallbackId cbid;
        const void *params;
        struct checkpoint cp;
};

static int prepare(void *arg, size_t n)
{
        struct job *j = arg;
        if (n > 0) {
                double t0 = pc_now();
                CUptiResult r = rp.restore(&j->cp);
                /* the restore's copies must be done before the pass: in a range they count
                 * as the kernel's work */
                if (pc_cu.ctx_synchronize)
                        pc_cu.ctx_synchronize();
                pc.t.restore += pc_now() - t0;
                if (pc_check(r, "cannot restore device memory before a replay pass") < 0)
                        return -1;
        }
        if (pc.flush_caches)
                pc_l2_flush();
        return 0;
}

static int launch(void *arg)
{
        struct job *j = arg;
        CUresult r = CUDA_ERROR_NOT_SUPPORTED;
        double t0 = pc_now();
        pc_replaying = 1;
        switch (j->cbid) {
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
                const struct launch_params *p = j->params;
                int ptsz = j->cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz && rp.launch_ptsz;
                r = (ptsz ? rp.launch_ptsz : rp.launch)(p->f, p->grid_x, p->grid_y, p->grid_z,
                                                         p->block_x, p->block_y, p->block_z,
                                                         p->shared, p->stream, p->args, p->extra);
                break;
        }
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
                const struct launch_ex_params *p = j->params;
                int ptsz = j->cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz &&
                           rp.launch_ex_ptsz;
                if (rp.launch_ex)
                        r = (ptsz ? rp.launch_ex_ptsz : rp.launch_ex)(p->config, p->f, p->args,
                                                                     p->extra);
                break;
        }
        default:
                break;
        }
        if (r == CUDA_SUCCESS && pc_cu.ctx_synchronize)
                r = pc_cu.ctx_synchronize();
        pc_replaying = 0;
        pc.t.replay += pc_now() - t0;
        if (r != CUDA_SUCCESS) {
                pc_error("a replay of kernel launch failed (CUDA error %d)", (int)r);
                return -1;
        }
        return 0;
}

void pc_replay_launch(struct pc_ctx *c, size_t dispatch, CUpti_CallbackId cbid,
                      const void *params)
{
        const char *name = pc.launches[dispatch].name;
        int kind = -1;
        const char *why = NULL;
        if (pc_replay_init() < 0) {
                kind = 0;
        } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
                   cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz ||
                   ((cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
                     cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) &&
                    cooperative_ex(((const struct launch_ex_params *)params)->config))) {
                kind = 1;
                why = "a cooperative launch";
        } else {
                const struct launch_params *lp = params;
                const struct launch_ex_params *xp = params;
                int ex = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
                         cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
                if (managed_args(ex ? xp->f : lp->f, ex ? xp->args : lp->args)) {
                        kind = 2;
                        why = "a kernel given managed memory, which a checkpoint does not hold";
                }
        }
        /* only instrumented metrics: nothing for the collector's replay to count (they read
         * 0 in a kernel it relaunches) and nothing the caches change: CUPTI's replay */
        if (pc.split.ninst && !pc.split.nhw) {
                pc_ctx_cupti_begin(c, dispatch, 0);
                return;
        }
        struct job j = {.cbid = cbid, .params = params};
        if (kind < 0) {
                if (pc_cu.ctx_synchronize)
                        pc_cu.ctx_synchronize();
                j.cp.structSize = sizeof j.cp;
                j.cp.ctx = pc_ctx_context(c); /* named: NULL (the current one) fails */
                double t0 = pc_now();
                CUptiResult r = rp.save(&j.cp);
                if (pc_cu.ctx_synchronize)
                        pc_cu.ctx_synchronize();
                pc.t.save += pc_now() - t0;
                if (r != CUPTI_SUCCESS) {
                        char buf[300];
                        pc_format_result(buf, sizeof buf, r, "cannot save device memory");
                        kind = 3;
                        why = buf;
                        fallback_note(kind, why, name);
                        why = NULL;
                }
        }
        if (kind >= 0) {
                if (why)
                        fallback_note(kind, why, name);
                pc.t.nfallback++;
                pc_ctx_cupti_begin(c, dispatch, 0);
                return;
        }
        struct pc_replay_ops ops = {prepare, launch, &j};
        int rc = pc_ctx_user_profile(c, dispatch, &ops);
        /* the program's own launch then starts from its memory as it was */
        double t0 = pc_now();
        if (pc_check(rp.restore(&j.cp), "cannot restore device memory after replaying a kernel") ==
            0)
                pc.t.restore += pc_now() - t0;
        rp.free(&j.cp);
        pc_debug("launch %zu: device memory restored after %s", dispatch,
                 rc == 0 ? "its passes" : "a failed replay");
        /* the instrumented metrics: CUPTI's replay of that launch (their counts do not
         * depend on the caches) */
        if (rc == 0 && pc_ctx_split(c))
                pc_ctx_cupti_begin(c, dispatch, 1);
}
