/* Cache control (PRISM_CUPTI_FLUSH=1, prism profile --cache-control all): before each
 * profiled kernel, push the program's data out of the L2 so that the kernel's cache and DRAM
 * counters start from the same state whatever ran before it -- the kernel before, another
 * process's kernels on a shared GPU, or the other runs of application replay.
 *
 * The CUDA driver offers no cache flush to a tool, so the collector writes a buffer of four
 * times the L2's size and then discards it from the L2 (below). That runs in a CUDA context
 * of the collector's own: the Range Profiler profiles only the
 * program's contexts, and the callbacks ignore the collector's calls (pc_flushing). The
 * kernel is PTX, JIT-compiled once for whatever GPU this is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"

/* Each thread starts at its global index (d8) and steps by the grid's size (d9) up to the
 * second parameter n (d2); d1 is the buffer. */
#define PTX_KERNEL(name)                                                                           \
        ".visible .entry " name "(.param .u64 buf, .param .u64 n)\n"                             \
        "{\n"                                                                                     \
        "  .reg .pred p;\n"                                                                       \
        "  .reg .b32 r<6>;\n"                                                                     \
        "  .reg .b64 d<12>;\n"                                                                    \
        "  ld.param.u64 d1, [buf];\n"                                                             \
        "  ld.param.u64 d2, [n];\n"                                                               \
        "  mov.u32 r1, %ctaid.x;\n"                                                               \
        "  mov.u32 r2, %ntid.x;\n"                                                                \
        "  mov.u32 r3, %tid.x;\n"                                                                 \
        "  mov.u32 r4, %nctaid.x;\n"                                                              \
        "  cvt.u64.u32 d4, r1;\n"                                                                 \
        "  cvt.u64.u32 d5, r2;\n"                                                                 \
        "  cvt.u64.u32 d6, r3;\n"                                                                 \
        "  cvt.u64.u32 d7, r4;\n"                                                                 \
        "  mad.lo.u64 d8, d4, d5, d6;\n"                                                          \
        "  mul.lo.u64 d9, d7, d5;\n"                                                              \
        "LOOP:\n"                                                                                 \
        "  setp.ge.u64 p, d8, d2;\n"                                                              \
        "  @p bra DONE;\n"

/* Two kernels over the buffer: prism_l2_fill writes every 4-byte word of it (the L2 keeps
 * dirty lines before clean ones, so only writes push the program's dirty lines out: they
 * are written back now, not during the next kernel), then prism_l2_discard drops every
 * 128-byte line of it from the L2 without writing it back (discard.global.L2, sm_80 and
 * later), which leaves no dirty line behind. */
static const char flush_ptx[] =
    ".version 7.4\n"
    ".target sm_80\n"
    ".address_size 64\n"
    PTX_KERNEL("prism_l2_fill")
    "  shl.b64 d10, d8, 2;\n"
    "  add.u64 d11, d1, d10;\n"
    "  st.global.u32 [d11], r3;\n"
    "  add.u64 d8, d8, d9;\n"
    "  bra LOOP;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n"
    PTX_KERNEL("prism_l2_discard")
    "  shl.b64 d10, d8, 7;\n"
    "  add.u64 d11, d1, d10;\n"
    "  discard.global.L2 [d11], 128;\n"
    "  add.u64 d8, d8, d9;\n"
    "  bra LOOP;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

struct flush_dev {
        CUdevice dev;
        CUcontext ctx;
        CUfunction fill, discard;
        CUdeviceptr buf;
        unsigned long long words, lines;
        unsigned blocks;
        int broken; /* setting up failed once: said once, never tried again */
};

static struct flush_dev *devs;
static size_t ndevs;

__thread int pc_flushing;

/* the driver entry points the flush needs beyond the collector's own (pc_cu) */
static int have_driver(void)
{
        return pc_cu.ctx_create && pc_cu.module_load_data && pc_cu.module_get_function &&
               pc_cu.mem_alloc && pc_cu.launch && pc_cu.device_attribute && pc_cu.ctx_pop &&
               pc_cu.ctx_push && pc_cu.ctx_synchronize && pc_cu.ctx_get_device;
}

/* Set up d (its context is current on return when this returns 0). */
static int setup(struct flush_dev *d, char *why, size_t len)
{
        CUresult r;
        int l2 = 0, sms = 0;
        CUmodule mod;
        if ((r = pc_cu.device_attribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d->dev)) ||
            (r = pc_cu.device_attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->dev))) {
                snprintf(why, len, "cannot read the L2 size (CUDA error %d)", (int)r);
                return -1;
        }
        if (l2 <= 0)
                l2 = 64 << 20;
        if ((r = pc_cu.ctx_create(&d->ctx, 0, d->dev))) {
                snprintf(why, len, "cannot create a context (CUDA error %d)", (int)r);
                return -1;
        }
        size_t bytes = (size_t)l2 * 4;
        if ((r = pc_cu.module_load_data(&mod, flush_ptx)) ||
            (r = pc_cu.module_get_function(&d->fill, mod, "prism_l2_fill")) ||
            (r = pc_cu.module_get_function(&d->discard, mod, "prism_l2_discard")) ||
            (r = pc_cu.mem_alloc(&d->buf, bytes))) {
                snprintf(why, len, "cannot load the flush kernels (sm_80 or later) or their "
                         "%zu-byte buffer (CUDA error %d)", bytes, (int)r);
                return -1;
        }
        d->words = bytes / 4;
        d->lines = bytes / 128;
        d->blocks = (unsigned)(sms > 0 ? sms : 1) * 8;
        return 0;
}

int pc_l2_flush(void)
{
        CUdevice dev;
        if (!have_driver() || pc_cu.ctx_get_device(&dev))
                return -1;
        struct flush_dev *d = NULL;
        for (size_t i = 0; i < ndevs; i++)
                if (devs[i].dev == dev)
                        d = &devs[i];
        if (!d) {
                struct flush_dev *n = realloc(devs, (ndevs + 1) * sizeof *n);
                if (!n)
                        return -1;
                devs = n;
                d = &devs[ndevs++];
                memset(d, 0, sizeof *d);
                d->dev = dev;
        }
        if (d->broken)
                return -1;
        double t0 = pc_now();
        CUcontext prev = NULL;
        int rc = 0;
        pc_flushing = 1;
        if (!d->ctx) {
                char why[200];
                if (setup(d, why, sizeof why) < 0) {
                        pc_warn("device %d: cannot flush the caches before kernels: %s; the "
                                "cache counters depend on what ran before each kernel",
                                (int)dev, why);
                        d->broken = 1;
                        rc = -1;
                }
                /* cuCtxCreate made the new context current: back to the program's */
                if (d->ctx)
                        pc_cu.ctx_pop(&prev);
        }
        if (!rc) {
                void *fill_args[] = {&d->buf, &d->words};
                void *discard_args[] = {&d->buf, &d->lines};
                if (pc_cu.ctx_push(d->ctx) != CUDA_SUCCESS) {
                        rc = -1;
                } else {
                        if (pc_cu.launch(d->fill, d->blocks, 1, 1, 256, 1, 1, 0, NULL, fill_args,
                                       NULL) != CUDA_SUCCESS ||
                            pc_cu.launch(d->discard, d->blocks, 1, 1, 256, 1, 1, 0, NULL,
                                       discard_args, NULL) != CUDA_SUCCESS ||
                            pc_cu.ctx_synchronize() != CUDA_SUCCESS)
                                rc = -1;
                        pc_cu.ctx_pop(&prev);
                }
                if (rc < 0 && !d->broken) {
                        pc_warn("device %d: the cache flush failed; the cache counters depend "
                                "on what ran before each kernel",
                                (int)dev);
                        d->broken = 1;
                }
        }
        pc_flushing = 0;
        pc.t.cache_flush += pc_now() - t0;
        pc.t.nflushcache++;
        return rc;
}
