/* The CUPTI Range Profiler per CUDA context: auto range (one range per kernel launch, the
 * launches serialized) with kernel replay, a counter data image of pc.max_ranges ranges that
 * is decoded and re-armed whenever it fills, and at context teardown or exit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "range_int.h"

static struct pc_ctx **ctxs;
static size_t nctxs, cap_ctxs;

struct pc_ctx *pc_ctx_get(CUcontext ctx)
{
        for (size_t i = 0; i < nctxs; i++)
                if (ctxs[i]->ctx == ctx)
                        return ctxs[i];
        if (nctxs == cap_ctxs) {
                size_t cap = cap_ctxs ? 2 * cap_ctxs : 4;
                struct pc_ctx **n = realloc(ctxs, cap * sizeof *n);
                if (!n)
                        return NULL;
                ctxs = n;
                cap_ctxs = cap;
        }
        struct pc_ctx *c = calloc(1, sizeof *c);
        if (!c)
                return NULL;
        c->ctx = ctx;
        c->named = 1;
        c->state = pc.nmetrics ? CTX_NEW : CTX_OFF;
        c->nsets = 1;
        c->sets[SET_MAIN] = (struct mset){.names = pc.metrics, .n = pc.nmetrics};
        if (pc.hybrid && pc.split.ninst && pc.split.nhw) {
                c->nsets = NSETS;
                c->sets[SET_MAIN] = (struct mset){.names = pc.split.hw, .n = pc.split.nhw,
                                                  .slot = pc.split.hw_slot};
                c->sets[SET_INST] = (struct mset){.names = pc.split.inst, .n = pc.split.ninst,
                                                  .slot = pc.split.inst_slot};
                c->sets[SET_ALL] = (struct mset){.names = pc.metrics, .n = pc.nmetrics};
        }
        c->s = &c->sets[SET_MAIN];
        if (cuptiGetDeviceId(ctx, &c->dev) != CUPTI_SUCCESS)
                c->dev = 0;
        ctxs[nctxs++] = c;
        return c;
}

static void ctx_release(struct pc_ctx *c)
{
        for (size_t k = 0; k < c->nsets; k++) {
                struct mset *m = &c->sets[k];
                pc_host_free(m->host);
                m->host = NULL;
                free(m->config);
                m->config = NULL;
                free(m->cd);
                m->cd = NULL;
        }
        free(c->avail);
        c->avail = NULL;
        free(c->batch);
        c->batch = NULL;
        c->cap_batch = 0;
}

/* The counter data images and the launch list (a shared GPU's release); the configs stay. */
void rg_free_images(struct pc_ctx *c)
{
        for (size_t k = 0; k < c->nsets; k++) {
                free(c->sets[k].cd);
                c->sets[k].cd = NULL;
        }
        free(c->batch);
        c->batch = NULL;
        c->cap_batch = 0;
}

/* Report on the first failure of ctx only; later calls fail quietly. */
int rg_ck(struct pc_ctx *c, CUptiResult r, const char *what)
{
        if (r == CUPTI_SUCCESS)
                return 0;
        char buf[160];
        snprintf(buf, sizeof buf, "device %u: %s", c->dev, what);
        pc_check(r, buf);
        return -1;
}

CUptiResult rg_init_image(struct pc_ctx *c)
{
        double t0 = pc_now();
        /* the profiler object initializes an image for the metrics it last sized one for
         * (another set's: CUPTI_ERROR_UNKNOWN) */
        if (c->sized != c->s && rg_size_image(c, c->s->max) < 0)
                return CUPTI_ERROR_INVALID_OPERATION;
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip =
            PC_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
        ip.pRangeProfilerObject = c->rp;
        ip.counterDataSize = c->s->cd_size;
        ip.pCounterData = c->s->cd;
        CUptiResult r = cuptiRangeProfilerCounterDataImageInitialize(&ip);
        pc.t.arm_image += pc_now() - t0;
        return r;
}

/* SetConfig and Start: CUPTI's kernel replay with auto range (one range per launch), or
 * (user) pass `pass` of the collector's own replay with one user range */
CUptiResult rg_config_start(struct pc_ctx *c, int user, size_t pass)
{
        CUptiResult r;
        double t1 = pc_now();
        CUpti_RangeProfiler_SetConfig_Params sp = PC_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
        sp.pRangeProfilerObject = c->rp;
        sp.configSize = c->s->config_size;
        sp.pConfig = c->s->config;
        sp.counterDataImageSize = c->s->cd_size;
        sp.pCounterDataImage = c->s->cd;
        /* the collector's replay brackets the kernel with an auto range too (a user range
         * around the launch call also counts the launch's own latency); with
         * PRISM_CUPTI_USER_RANGE=1 a user range */
        sp.range = user && pc.user_range ? CUPTI_UserRange : CUPTI_AutoRange;
        sp.replayMode = user ? CUPTI_UserReplay : CUPTI_KernelReplay;
        c->mode = user ? 2 : 1;
        sp.maxRangesPerPass = c->s->max;
        sp.numNestingLevels = 1;
        sp.minNestingLevel = 1;
        sp.passIndex = pass;
        sp.targetNestingLevel = 1;
        if ((r = cuptiRangeProfilerSetConfig(&sp)) != CUPTI_SUCCESS)
                return r;
        double t2 = pc_now();
        pc.t.arm_config += t2 - t1;
        CUpti_RangeProfiler_Start_Params st = PC_PARAMS(CUpti_RangeProfiler_Start_Params);
        st.pRangeProfilerObject = c->rp;
        r = cuptiRangeProfilerStart(&st);
        pc.t.arm_start += pc_now() - t2;
        return r;
}

CUptiResult rg_arm(struct pc_ctx *c)
{
        CUptiResult r = rg_init_image(c);
        return r != CUPTI_SUCCESS ? r : rg_config_start(c, 0, 0);
}

CUptiResult rg_enable(struct pc_ctx *c)
{
        CUpti_RangeProfiler_Enable_Params ep = PC_PARAMS(CUpti_RangeProfiler_Enable_Params);
        ep.ctx = c->ctx;
        CUptiResult r = cuptiRangeProfilerEnable(&ep);
        c->rp = ep.pRangeProfilerObject;
        c->sized = NULL;
        return r;
}

/* A fresh profiler object for ctx, when one would not start a session of the other replay
 * mode (the split alternates the collector's and CUPTI's). */
CUptiResult rg_restart(struct pc_ctx *c)
{
        pc_debug("device %u: re-enabling the range profiler", c->dev);
        pc.t.nrestart++;
        rg_disable(c);
        return rg_enable(c);
}

void rg_disable(struct pc_ctx *c)
{
        if (!c->rp)
                return;
        CUpti_RangeProfiler_Disable_Params dp = PC_PARAMS(CUpti_RangeProfiler_Disable_Params);
        dp.pRangeProfilerObject = c->rp;
        cuptiRangeProfilerDisable(&dp);
        c->rp = NULL;
}

/* Ranges of a context's first image: few, since the Start of a profiling session costs
 * about 1 ms per range the image can hold (measured on the H100: 0.38 s at 256, 0.19 s at
 * 16), and most programs launch few kernels; one when the GPU is shared (one kernel per
 * session). */
size_t rg_first_ranges(void)
{
        size_t n = pc.lock_fd >= 0 || pc.user_replay ? 1 : 16;
        return n < pc.max_ranges ? n : pc.max_ranges;
}

/* (Re)size the counter data image for max ranges (the profiler object must exist). */
int rg_size_image(struct pc_ctx *c, size_t max)
{
        CUpti_RangeProfiler_GetCounterDataSize_Params sp =
            PC_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
        sp.pRangeProfilerObject = c->rp;
        sp.pMetricNames = c->s->names;
        sp.numMetrics = c->s->n;
        sp.maxNumOfRanges = max;
        sp.maxNumRangeTreeNodes = (uint32_t)max;
        if (rg_ck(c, cuptiRangeProfilerGetCounterDataSize(&sp), "cannot size the counter data") < 0)
                return -1;
        uint8_t *cd = realloc(c->s->cd, sp.counterDataSize);
        size_t *batch = max > c->cap_batch ? realloc(c->batch, max * sizeof *batch) : c->batch;
        if (cd)
                c->s->cd = cd;
        if (batch && max > c->cap_batch) {
                c->batch = batch;
                c->cap_batch = max;
        }
        if (!cd || !batch) {
                pc_error("device %u: out of memory for a %zu-byte counter data image", c->dev,
                         (size_t)sp.counterDataSize);
                return -1;
        }
        c->s->cd_size = sp.counterDataSize;
        c->s->max = max;
        c->sized = c->s;
        return 0;
}

static int query_avail(struct pc_ctx *c)
{
        CUpti_Profiler_GetCounterAvailability_Params ap =
            PC_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
        ap.ctx = c->ctx;
        if (rg_ck(c, cuptiProfilerGetCounterAvailability(&ap),
                  "cannot query counter availability") < 0)
                return -1;
        free(c->avail);
        c->avail = malloc(ap.counterAvailabilityImageSize ? ap.counterAvailabilityImageSize : 1);
        if (!c->avail)
                return -1;
        ap.pCounterAvailabilityImage = c->avail;
        if (rg_ck(c, cuptiProfilerGetCounterAvailability(&ap),
                  "cannot query counter availability") < 0)
                return -1;
        return 0;
}

/* The config and host object of the set being armed (kept from an earlier session of the
 * context: a shared GPU). */
int rg_build_config(struct pc_ctx *c)
{
        char msg[512];
        if (c->s->config)
                return 0;
        if (pc_host_config(c->chip, c->avail, c->s->names, c->s->n, &c->s->host, &c->s->config,
                           &c->s->config_size, msg, sizeof msg) < 0) {
                pc_error("device %u: %s", c->dev, msg);
                return -1;
        }
        return 0;
}

int rg_setup(struct pc_ctx *c)
{
        static int initialized;

        double t0 = pc_now();
        if (!initialized) {
                CUpti_Profiler_Initialize_Params pi = PC_PARAMS(CUpti_Profiler_Initialize_Params);
                if (pc_check(cuptiProfilerInitialize(&pi), "cannot initialize the profiler") < 0)
                        return -1;
                initialized = 1;
        }
        double t1 = pc_now();
        pc.t.init += t1 - t0;
        CUpti_Device_GetChipName_Params cn = PC_PARAMS(CUpti_Device_GetChipName_Params);
        cn.deviceIndex = c->dev;
        if (rg_ck(c, cuptiDeviceGetChipName(&cn), "cannot read the chip name") < 0)
                return -1;
        snprintf(c->chip, sizeof c->chip, "%s", cn.pChipName);

        /* The counter availability image costs ~0.1 s per run and fails while another
         * process profiles the GPU; the config is built without it (as the planner's pass
         * counts are) and only a config the GPU refuses is rebuilt with it (in arm). */
        if (pc.use_avail && !c->s->config && query_avail(c) < 0)
                return -1;
        double t2 = pc_now();
        pc.t.avail += t2 - t1;

        c->s = &c->sets[SET_MAIN];
        if (rg_build_config(c) < 0)
                return -1;
        double t3 = pc_now();
        pc.t.config += t3 - t2;
        if (rg_ck(c, rg_enable(c), "cannot enable the range profiler") < 0)
                return -1;

        if (rg_size_image(c, rg_first_ranges()) < 0)
                return -1;
        double t4 = pc_now();
        pc.t.enable += t4 - t3;
        if (pc.user_replay) {
                /* the instrumented metrics' set too (the split); each kernel arms its own
                 * sessions (pc_ctx_user_profile, pc_ctx_cupti_begin) */
                int rc = 0;
                if (c->nsets > SET_INST) {
                        c->s = &c->sets[SET_INST];
                        rc = rg_build_config(c) < 0 ||
                                     rg_size_image(c, rg_first_ranges()) < 0
                                 ? -1
                                 : 0;
                        c->s = &c->sets[SET_MAIN];
                }
                /* the set of every metric again after a shared GPU's release */
                if (!rc && c->nsets > SET_ALL && c->sets[SET_ALL].config) {
                        c->s = &c->sets[SET_ALL];
                        rc = rg_size_image(c, rg_first_ranges());
                        c->s = &c->sets[SET_MAIN];
                }
                pc.t.config += pc_now() - t4;
                return rc;
        }
        CUptiResult ar = rg_arm(c);
        if (ar != CUPTI_SUCCESS && !c->avail) {
                /* a config built for the chip that this GPU refuses: build it for what the
                 * GPU has */
                pc_debug("device %u: arming failed (%d), rebuilding the config with the counter "
                         "availability image",
                         c->dev, (int)ar);
                pc_host_free(c->s->host);
                free(c->s->config);
                c->s->host = NULL;
                c->s->config = NULL;
                if (query_avail(c) < 0)
                        return -1;
                if (rg_build_config(c) < 0)
                        return -1;
                ar = rg_arm(c);
        }
        if (rg_ck(c, ar, "cannot start the range profiler") < 0)
                return -1;
        pc.t.arm += pc_now() - t4;
        pc_debug("device %u (%s): profiling %zu metrics, %zu ranges per image (%zu bytes)", c->dev,
                 c->chip, c->s->n, c->s->max, c->s->cd_size);
        return 0;
}

/* Which launch of the image range i belongs to. Auto range names each range by the index of
 * its launch in the context ("0", "1", ... across re-arms), which keeps launches and ranges
 * paired when a range is dropped; without such names, the i-th range is the i-th launch.
 * Returns (size_t)-1 for a range that matches no recorded launch. */
static size_t range_position(struct pc_ctx *c, size_t i)
{
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params gp =
            PC_PARAMS(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params);
        gp.pCounterDataImage = c->s->cd;
        gp.counterDataImageSize = c->s->cd_size;
        gp.rangeIndex = i;
        gp.rangeDelimiter = "/";
        const char *name = "";
        if (cuptiRangeProfilerCounterDataGetRangeInfo(&gp) == CUPTI_SUCCESS && gp.rangeName)
                name = gp.rangeName;
        char *end;
        unsigned long long idx = strtoull(name, &end, 10);
        size_t pos = i < c->nbatch ? i : (size_t)-1;
        if (c->named && *name && !*end) {
                pos = idx >= c->base && idx - c->base < c->nbatch ? (size_t)(idx - c->base)
                                                                  : (size_t)-1;
        } else if (c->named) {
                pc_debug("device %u: range %zu is named '%s', pairing by position", c->dev, i,
                         name);
                c->named = 0;
        }
        if (pos == (size_t)-1)
                pc_warn("device %u: range '%s' matches no recorded kernel launch (launches "
                        "%zu..%zu in this image)",
                        c->dev, name, c->base, c->base + c->nbatch - 1);
        else
                pc_debug("range %zu '%s' -> dispatch %zu (%s)", i, name, c->batch[pos],
                         pc.launches[c->batch[pos]].name);
        return pos;
}

/* Stop, decode and evaluate the ranges in the image into their launches. */
static int flush_ranges(struct pc_ctx *c);

int rg_flush(struct pc_ctx *c)
{
        double t0 = pc_now();
        int r = flush_ranges(c);
        pc.t.flush += pc_now() - t0;
        pc.t.nflush++;
        return r;
}

static int flush_ranges(struct pc_ctx *c)
{
        if (pc_cu.ctx_synchronize)
                pc_cu.ctx_synchronize();
        CUpti_RangeProfiler_Stop_Params st = PC_PARAMS(CUpti_RangeProfiler_Stop_Params);
        st.pRangeProfilerObject = c->rp;
        if (rg_ck(c, cuptiRangeProfilerStop(&st), "cannot stop the range profiler") < 0)
                return -1;
        if (!st.isAllPassSubmitted)
                pc_warn("device %u: not all passes were submitted (pass index %zu)", c->dev,
                        st.passIndex);
        return rg_decode_ranges(c);
}

/* Decode the stopped session's image and evaluate its ranges into their launches. */
int rg_decode_ranges(struct pc_ctx *c)
{
        CUptiResult r;
        CUpti_RangeProfiler_DecodeData_Params dp = PC_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
        dp.pRangeProfilerObject = c->rp;
        if (rg_ck(c, cuptiRangeProfilerDecodeData(&dp), "cannot decode the counter data") < 0)
                return -1;
        CUpti_RangeProfiler_GetCounterDataInfo_Params ip =
            PC_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
        ip.pCounterDataImage = c->s->cd;
        ip.counterDataImageSize = c->s->cd_size;
        if (rg_ck(c, cuptiRangeProfilerGetCounterDataInfo(&ip), "cannot read the counter data") < 0)
                return -1;
        size_t nr = ip.numTotalRanges;
        pc_debug("device %u: flush %zu: %zu launches, %zu ranges, %zu dropped", c->dev, c->nflushes,
                 c->nbatch, nr, dp.numOfRangeDropped);
        if (nr != c->nbatch || dp.numOfRangeDropped)
                pc_warn("device %u: %zu kernel launches gave %zu ranges (%zu dropped); the "
                        "values of the launches without a range are left empty",
                        c->dev, c->nbatch, nr, dp.numOfRangeDropped);
        for (size_t i = 0; i < nr; i++) {
                size_t pos = range_position(c, i);
                if (pos == (size_t)-1)
                        continue;
                struct pc_launch *l = &pc.launches[c->batch[pos]];
                CUpti_Profiler_Host_EvaluateToGpuValues_Params ev =
                    PC_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
                ev.pHostObject = c->s->host;
                ev.pCounterDataImage = c->s->cd;
                ev.counterDataImageSize = c->s->cd_size;
                ev.rangeIndex = i;
                ev.ppMetricNames = c->s->names;
                ev.numMetrics = c->s->n;
                /* a subset of the metrics (the split) is evaluated apart, then put in place */
                double *v = c->s->slot ? malloc(c->s->n * sizeof *v) : l->vals;
                if (!v) {
                        pc_error("out of memory decoding the counters");
                        return -1;
                }
                ev.pMetricValues = v;
                r = cuptiProfilerHostEvaluateToGpuValues(&ev);
                for (size_t m = 0; c->s->slot && m < c->s->n; m++)
                        l->vals[c->s->slot[m]] = r == CUPTI_SUCCESS ? v[m] : NAN;
                if (v != l->vals)
                        free(v);
                if (r != CUPTI_SUCCESS) {
                        for (size_t m = 0; !c->s->slot && m < pc.nmetrics; m++)
                                l->vals[m] = NAN;
                        rg_ck(c, r, "cannot evaluate the metrics");
                        return -1;
                }
                l->ranged = 1;
                pc_debug("range %zu: %zu metrics evaluated", i, c->s->n);
        }
        c->base += c->nbatch;
        c->nbatch = 0;
        c->nflushes++;
        return 0;
}

/* Re-arm after a flush. If the profiler object refuses a second SetConfig, start over with
 * a fresh one (Disable + Enable) before giving up. */
static int rearm(struct pc_ctx *c)
{
        if (c->s->max < pc.max_ranges &&
            rg_size_image(c, 2 * c->s->max < pc.max_ranges ? 2 * c->s->max : pc.max_ranges) < 0)
                return -1;
        CUptiResult r = rg_arm(c);
        if (r == CUPTI_SUCCESS)
                return 0;
        pc_debug("device %u: re-arming failed (%d), re-enabling the range profiler", c->dev,
                 (int)r);
        rg_disable(c);
        c->named = 0; /* a new profiler object may count its ranges from 0 again */
        if (rg_ck(c, rg_enable(c), "cannot enable the range profiler") < 0)
                return -1;
        return rg_ck(c, rg_arm(c), "cannot restart the range profiler");
}

void rg_turn_off(struct pc_ctx *c)
{
        rg_disable(c);
        ctx_release(c);
        c->state = CTX_OFF;
}

void pc_ctx_on_launch(struct pc_ctx *c, size_t dispatch)
{
        if (c->state == CTX_NEW)
                pc_gpu_lock();
        if (c->state == CTX_NEW) {
                if (rg_setup(c) < 0) {
                        rg_turn_off(c);
                        pc_gpu_unlock();
                        return;
                }
                c->state = CTX_RUNNING;
        }
        if (c->state != CTX_RUNNING)
                return;
        if (c->nbatch == c->s->max) {
                if (rg_flush(c) < 0 || rearm(c) < 0) {
                        rg_turn_off(c);
                        return;
                }
        }
        c->batch[c->nbatch++] = dispatch;
        if (pc.flush_caches)
                pc_l2_flush();
}

void pc_ctx_after_launch(struct pc_ctx *c)
{
        if (pc.lock_fd < 0 || c->state != CTX_RUNNING)
                return;
        if (rg_flush(c) < 0) {
                rg_turn_off(c);
        } else {
                /* give the counters back entirely (the next kernel sets up afresh, as the
                 * first did: a re-enabled profiler object with the old image crashes
                 * CUPTI 13 in CounterDataImageInitialize) */
                double t0 = pc_now();
                rg_disable(c);
                rg_free_images(c);
                pc.t.disable += pc_now() - t0;
                c->named = 0; /* a new profiler object numbers its ranges from 0 again */
                c->state = CTX_NEW;
        }
        pc_gpu_unlock();
}

void pc_ctx_drop(struct pc_ctx *c, size_t dispatch)
{
        if (c->state == CTX_RUNNING && c->nbatch > 0 && c->batch[c->nbatch - 1] == dispatch)
                c->nbatch--;
}

void pc_ctx_finish(struct pc_ctx *c, int push)
{
        if (c->state != CTX_RUNNING)
                return;
        int pushed = push && pc_cu.ctx_push && pc_cu.ctx_push(c->ctx) == CUDA_SUCCESS;
        /* the collector's own replay decodes each kernel at once: nothing is started */
        if (!pc.user_replay || c->cupti_pending)
                rg_flush(c);
        c->cupti_pending = 0;
        rg_turn_off(c);
        pc_gpu_unlock();
        if (pushed) {
                CUcontext old;
                pc_cu.ctx_pop(&old);
        }
}

void pc_ctx_finish_all(void)
{
        for (size_t i = 0; i < nctxs; i++)
                pc_ctx_finish(ctxs[i], 1);
}

void pc_ctx_forget(CUcontext ctx)
{
        for (size_t i = 0; i < nctxs; i++) {
                if (ctxs[i]->ctx != ctx)
                        continue;
                ctx_release(ctxs[i]);
                free(ctxs[i]);
                ctxs[i] = ctxs[--nctxs];
                return;
        }
}
