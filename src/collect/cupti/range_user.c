/* The collector's own kernel replay on the Range Profiler (replay.c drives it): each kernel
 * profiled pass by pass under CUPTI's user replay, and CUPTI's kernel replay of single
 * launches beside it (kernels the collector cannot replay; the instrumented metrics when it
 * splits them off). */
#include <math.h>
#include <stdio.h>

#include "collector.h"
#include "range_int.h"

/* passes one kernel may ask for before the collector gives up on it */
#define MAX_USER_PASSES 512

/* With the split, a fresh profiler object before a session of the other replay mode than
 * the last one (mode: 1 CUPTI's kernel replay, 2 the collector's user replay). Not measured:
 * the split's first version, without this, crashed the target on the H200 right after its
 * first kernel's own replay (bench/replay-h100.md, 2026-11-29); a profiler object serving
 * both modes is the first suspect. Re-enabling costs 2-4 ms. */
static void switch_mode(struct pc_ctx *c, int mode)
{
        if (c->nsets > 1 && c->mode && c->mode != mode && rg_restart(c) != CUPTI_SUCCESS)
                pc_debug("device %u: re-enabling the range profiler failed", c->dev);
}

/* Set up ctx's profiler on its first kernel (or again after share_release). */
static int ready(struct pc_ctx *c)
{
        if (c->state == CTX_NEW) {
                pc_gpu_lock();
                if (rg_setup(c) < 0) {
                        rg_turn_off(c);
                        pc_gpu_unlock();
                        return -1;
                }
                c->state = CTX_RUNNING;
        }
        return c->state == CTX_RUNNING ? 0 : -1;
}

/* After a kernel on a shared GPU: give the counters and the GPU lock back (as
 * pc_ctx_after_launch does). */
static void share_release(struct pc_ctx *c)
{
        if (pc.lock_fd < 0 || c->state != CTX_RUNNING)
                return;
        double t0 = pc_now();
        rg_disable(c);
        rg_free_images(c);
        pc.t.disable += pc_now() - t0;
        c->state = CTX_NEW;
        c->s = &c->sets[SET_MAIN];
        pc_gpu_unlock();
}

static void fail_off(struct pc_ctx *c)
{
        CUpti_RangeProfiler_Stop_Params st = PC_PARAMS(CUpti_RangeProfiler_Stop_Params);
        st.pRangeProfilerObject = c->rp;
        if (c->rp)
                cuptiRangeProfilerStop(&st); /* a session left started, if any */
        c->nbatch = 0;
        rg_turn_off(c);
        pc_gpu_unlock();
}

int pc_ctx_user_profile(struct pc_ctx *c, size_t dispatch, const struct pc_replay_ops *ops)
{
        if (ready(c) < 0)
                return -1;
        char name[32];
        snprintf(name, sizeof name, "%zu", dispatch);
        c->s = &c->sets[SET_MAIN];
        c->base = dispatch;
        c->batch[0] = dispatch;
        c->nbatch = 1;
        c->named = pc.user_range; /* an auto range's name counts the replays: by position */
        switch_mode(c, 2);
        if (rg_ck(c, rg_init_image(c), "cannot initialize the counter data") < 0) {
                fail_off(c);
                return -1;
        }
        size_t pass = 0;
        for (size_t n = 0; n < MAX_USER_PASSES; n++) {
                if (ops->prepare(ops->arg, n) < 0) {
                        fail_off(c);
                        return -1;
                }
                CUptiResult sr = rg_config_start(c, 1, pass);
                if (sr != CUPTI_SUCCESS && n == 0 && rg_restart(c) == CUPTI_SUCCESS &&
                    rg_init_image(c) == CUPTI_SUCCESS)
                        sr = rg_config_start(c, 1, pass);
                if (rg_ck(c, sr, "cannot start a replay pass") < 0) {
                        fail_off(c);
                        return -1;
                }
                CUpti_RangeProfiler_PushRange_Params pp =
                    PC_PARAMS(CUpti_RangeProfiler_PushRange_Params);
                pp.pRangeProfilerObject = c->rp;
                pp.pRangeName = name;
                CUptiResult pr = pc.user_range ? cuptiRangeProfilerPushRange(&pp) : CUPTI_SUCCESS;
                int lr = pr == CUPTI_SUCCESS ? ops->launch(ops->arg) : -1;
                if (pr == CUPTI_SUCCESS && pc.user_range) {
                        CUpti_RangeProfiler_PopRange_Params op =
                            PC_PARAMS(CUpti_RangeProfiler_PopRange_Params);
                        op.pRangeProfilerObject = c->rp;
                        cuptiRangeProfilerPopRange(&op);
                }
                if (pc_cu.ctx_synchronize)
                        pc_cu.ctx_synchronize();
                CUpti_RangeProfiler_Stop_Params st = PC_PARAMS(CUpti_RangeProfiler_Stop_Params);
                st.pRangeProfilerObject = c->rp;
                if (rg_ck(c, pr, "cannot open the kernel's range") < 0 || lr < 0 ||
                    rg_ck(c, cuptiRangeProfilerStop(&st), "cannot stop a replay pass") < 0) {
                        fail_off(c);
                        return -1;
                }
                pc.t.npasses++;
                if (st.isAllPassSubmitted) {
                        double t0 = pc_now();
                        int rc = rg_decode_ranges(c);
                        pc.t.flush += pc_now() - t0;
                        pc.t.nflush++;
                        if (rc < 0) {
                                fail_off(c);
                                return -1;
                        }
                        /* without the split the instrumented metrics read 0 here: empty */
                        for (size_t k = 0; c->nsets == 1 && k < pc.split.ninst; k++)
                                pc.launches[dispatch].vals[pc.split.inst_slot[k]] = NAN;
                        if (c->nsets == 1) /* else the instrumented metrics' session
                                              follows (pc_ctx_cupti_begin) and releases */
                                share_release(c);
                        return 0;
                }
                pass = st.passIndex;
        }
        pc_error("device %u: %s: CUPTI asked for more than %d passes", c->dev,
                 pc.launches[dispatch].name, MAX_USER_PASSES);
        fail_off(c);
        return -1;
}

int pc_ctx_split(const struct pc_ctx *c)
{
        return c->nsets > 1;
}

int pc_ctx_cupti_begin(struct pc_ctx *c, size_t dispatch, int inst)
{
        if (ready(c) < 0)
                return -1;
        c->s = &c->sets[c->nsets == 1 ? SET_MAIN : inst ? SET_INST : SET_ALL];
        if (!c->s->cd) { /* every metric at once: the first kernel the collector cannot
                            replay */
                double t0 = pc_now();
                int rc = rg_build_config(c) < 0 || rg_size_image(c, rg_first_ranges()) < 0
                             ? -1
                             : 0;
                pc.t.config += pc_now() - t0;
                if (rc < 0) {
                        fail_off(c);
                        return -1;
                }
        }
        pc_debug("device %u: CUPTI's replay of launch %zu (%zu metrics)", c->dev, dispatch,
                 c->s->n);
        switch_mode(c, 1);
        c->named = 0; /* auto range counts launches its own way here: pair by position */
        c->base = dispatch;
        c->batch[0] = dispatch;
        c->nbatch = 1;
        CUptiResult r = rg_arm(c);
        if (r != CUPTI_SUCCESS && rg_restart(c) == CUPTI_SUCCESS)
                r = rg_arm(c);
        if (rg_ck(c, r, "cannot start the range profiler") < 0) {
                fail_off(c);
                return -1;
        }
        pc_debug("device %u: started", c->dev);
        pc.t.ninst += inst && c->nsets > 1;
        c->cupti_pending = 1;
        return 0;
}

void pc_ctx_cupti_end(struct pc_ctx *c)
{
        if (!c->cupti_pending)
                return;
        c->cupti_pending = 0;
        int rc = rg_flush(c);
        c->s = &c->sets[SET_MAIN];
        if (rc < 0) {
                rg_turn_off(c);
                pc_gpu_unlock();
                return;
        }
        share_release(c);
}

CUcontext pc_ctx_context(const struct pc_ctx *c)
{
        return c->ctx;
}
