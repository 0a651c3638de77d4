/* PC sampling in the collector (PRISM_CUPTI_PCSAMPLING=FILE): CUPTI's warp-state sampling
 * (cupti_pcsampling.h) in every context, in continuous mode (kernels run as the program
 * launches them; a sample names its cubin by CRC, its function and its offset in it, and
 * the samples of each stall reason), aggregated per function and offset, mapped to file:line
 * by CUPTI's SASS-to-source correlation where the cubin carries line information
 * (-lineinfo), and written at exit as FILE in pc_sampling_summary.csv's columns (src/store/
 * pcsamp.h) plus `function` (the mangled name), with each sampled cubin as FILE.cubin.<id>
 * for disassembly. Called from inject.c's callbacks, under its lock.
 *
 * Environment: PRISM_CUPTI_PC_PERIOD  the sampling period as 2^N cycles, N in 5..31
 *              (default: CUPTI's, which depends on the SM count). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cupti_pcsampling.h>

#include "../../util/csvfield.h"
#include "collector.h"

#define REASON_PREFIX "smsp__pcsamp_warps_issue_stalled_"
#define CONFIG_PCS 20000 /* PCs the configured buffer holds (what Disable copies into it) */
#define SCRATCH_PCS 5000 /* PCs fetched at a time while the program runs */
#define NBUCKET 4096

struct spc { /* one sampled PC of one function */
        uint64_t crc, off;
        char *func;
        uint64_t *n; /* samples per reason (nreason) */
        struct spc *next;
};

struct sctx {
        CUcontext ctx;
        CUpti_PCSamplingData config; /* the buffer CUPTI fills on Disable */
        int enabled;
};

struct cubin {
        uint64_t crc;
        size_t size;
        char *data;
        int id; /* 1-based, in load order: the code_object_id written */
};

static struct {
        int on;
        const char *out;
        int period; /* 0: CUPTI's default */
        size_t nreason;
        uint32_t *rindex;  /* CUPTI's index of each reason */
        char **rname;      /* its name, prefix removed */
        struct sctx *ctxs;
        size_t nctx;
        struct cubin *cubins;
        size_t ncubin;
        struct spc *bucket[NBUCKET];
        size_t npc;
        CUpti_PCSamplingData scratch;
        uint64_t dropped, total;
} ps;

int pc_samp_enabled(void)
{
        return ps.on;
}

int pc_samp_init(CUpti_SubscriberHandle sub)
{
        const char *s = getenv("PRISM_CUPTI_PCSAMPLING");
        if (!s || !*s)
                return 0;
        ps.out = s;
        s = getenv("PRISM_CUPTI_PC_PERIOD");
        if (s && *s) {
                int v = atoi(s);
                if (v >= 5 && v <= 31)
                        ps.period = v;
                else
                        pc_warn("ignoring PRISM_CUPTI_PC_PERIOD='%s' (want 5..31)", s);
        }
        if (pc_check(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE,
                                         CUPTI_CBID_RESOURCE_MODULE_LOADED),
                     "cannot enable the module callback") < 0)
                return -1;
        ps.on = 1;
        return 1;
}

static int alloc_data(CUpti_PCSamplingData *d, size_t npcs)
{
        memset(d, 0, sizeof *d);
        d->size = sizeof *d;
        d->collectNumPcs = npcs;
        d->pPcData = calloc(npcs, sizeof *d->pPcData);
        if (!d->pPcData)
                return -1;
        for (size_t i = 0; i < npcs; i++) {
                d->pPcData[i].size = sizeof d->pPcData[i];
                d->pPcData[i].stallReason = calloc(ps.nreason ? ps.nreason : 1,
                                                   sizeof *d->pPcData[i].stallReason);
                if (!d->pPcData[i].stallReason)
                        return -1;
        }
        return 0;
}

static int load_reasons(CUcontext ctx)
{
        size_t n = 0;
        CUpti_PCSamplingGetNumStallReasonsParams np = {
            .size = CUpti_PCSamplingGetNumStallReasonsParamsSize, .ctx = ctx,
            .numStallReasons = &n};
        if (pc_check(cuptiPCSamplingGetNumStallReasons(&np), "PC sampling: stall reasons") < 0)
                return -1;
        ps.rindex = calloc(n ? n : 1, sizeof *ps.rindex);
        char **names = calloc(n ? n : 1, sizeof *names);
        for (size_t i = 0; names && i < n; i++)
                names[i] = calloc(1, CUPTI_STALL_REASON_STRING_SIZE);
        CUpti_PCSamplingGetStallReasonsParams rp = {
            .size = CUpti_PCSamplingGetStallReasonsParamsSize, .ctx = ctx, .numStallReasons = n,
            .stallReasonIndex = ps.rindex, .stallReasons = names};
        if (!ps.rindex || !names ||
            pc_check(cuptiPCSamplingGetStallReasons(&rp), "PC sampling: stall reasons") < 0)
                return -1;
        ps.rname = names;
        for (size_t i = 0; i < n; i++) {
                char *r = names[i];
                if (!r)
                        return -1;
                if (!strncmp(r, REASON_PREFIX, strlen(REASON_PREFIX)))
                        memmove(r, r + strlen(REASON_PREFIX), strlen(r + strlen(REASON_PREFIX)) + 1);
                pc_debug("stall reason %u: %s", ps.rindex[i], r);
        }
        ps.nreason = n;
        return alloc_data(&ps.scratch, SCRATCH_PCS);
}

void pc_samp_context(CUcontext ctx)
{
        if (!ps.on)
                return;
        struct sctx *n = realloc(ps.ctxs, (ps.nctx + 1) * sizeof *ps.ctxs);
        if (!n)
                return;
        ps.ctxs = n;
        struct sctx *c = &ps.ctxs[ps.nctx];
        memset(c, 0, sizeof *c);
        c->ctx = ctx;
        /* enabled first: CUPTI names the stall reasons of a context sampling is on in */
        CUpti_PCSamplingEnableParams ep = {.size = CUpti_PCSamplingEnableParamsSize, .ctx = ctx};
        if (pc_check(cuptiPCSamplingEnable(&ep), "cannot enable PC sampling") < 0)
                return;
        ps.nctx++;
        c->enabled = 1;
        if ((!ps.rname && load_reasons(ctx) < 0) || alloc_data(&c->config, CONFIG_PCS) < 0) {
                pc_error("PC sampling: cannot set up the stall reasons and buffers");
                CUpti_PCSamplingDisableParams dp = {.size = CUpti_PCSamplingDisableParamsSize,
                                                    .ctx = ctx};
                cuptiPCSamplingDisable(&dp);
                c->enabled = 0;
                return;
        }
        CUpti_PCSamplingConfigurationInfo cfg[5];
        size_t k = 0;
        memset(cfg, 0, sizeof cfg);
        cfg[k].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
        cfg[k].attributeData.stallReasonData.stallReasonCount = ps.nreason;
        cfg[k++].attributeData.stallReasonData.pStallReasonIndex = ps.rindex;
        cfg[k].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
        cfg[k++].attributeData.samplingDataBufferData.samplingDataBuffer = &c->config;
        cfg[k].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
        cfg[k++].attributeData.collectionModeData.collectionMode =
            CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
        if (ps.period) {
                cfg[k].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
                cfg[k++].attributeData.samplingPeriodData.samplingPeriod = (uint32_t)ps.period;
        }
        CUpti_PCSamplingConfigurationInfoParams cp = {
            .size = CUpti_PCSamplingConfigurationInfoParamsSize, .ctx = ctx, .numAttributes = k,
            .pPCSamplingConfigurationInfo = cfg};
        pc_check(cuptiPCSamplingSetConfigurationAttribute(&cp), "cannot configure PC sampling");
        pc_debug("PC sampling enabled in context %p (%zu stall reasons)", (void *)ctx, ps.nreason);
}

void pc_samp_module(const CUpti_ResourceData *rd)
{
        const CUpti_ModuleResourceData *m = rd->resourceDescriptor;
        if (!ps.on || !m || !m->pCubin || !m->cubinSize)
                return;
        CUpti_GetCubinCrcParams cp = {.size = CUpti_GetCubinCrcParamsSize,
                                      .cubinSize = m->cubinSize, .cubin = m->pCubin};
        if (pc_check(cuptiGetCubinCrc(&cp), "PC sampling: cubin CRC") < 0)
                return;
        for (size_t i = 0; i < ps.ncubin; i++)
                if (ps.cubins[i].crc == cp.cubinCrc)
                        return;
        struct cubin *n = realloc(ps.cubins, (ps.ncubin + 1) * sizeof *ps.cubins);
        char *copy = malloc(m->cubinSize);
        if (!n || !copy) {
                free(copy);
                if (n)
                        ps.cubins = n;
                return;
        }
        memcpy(copy, m->pCubin, m->cubinSize);
        ps.cubins = n;
        ps.cubins[ps.ncubin] = (struct cubin){cp.cubinCrc, m->cubinSize, copy, (int)ps.ncubin + 1};
        ps.ncubin++;
        pc_debug("module %u loaded: cubin of %zu bytes, CRC %llx", m->moduleId, m->cubinSize,
                 (unsigned long long)cp.cubinCrc);
}

static size_t reason_slot(uint32_t cupti_index)
{
        for (size_t i = 0; i < ps.nreason; i++)
                if (ps.rindex[i] == cupti_index)
                        return i;
        return (size_t)-1;
}

/* Add the PCs of d to the aggregate. */
static void absorb(const CUpti_PCSamplingData *d)
{
        ps.total += d->totalSamples;
        ps.dropped += d->droppedSamples;
        for (size_t i = 0; i < d->totalNumPcs && i < d->collectNumPcs; i++) {
                const CUpti_PCSamplingPCData *p = &d->pPcData[i];
                const char *fn = p->functionName ? p->functionName : "unknown";
                uint64_t h = p->cubinCrc * 31 + p->pcOffset;
                for (const char *q = fn; *q; q++)
                        h = h * 131 + (unsigned char)*q;
                struct spc **b = &ps.bucket[h % NBUCKET], *s = *b;
                while (s && !(s->crc == p->cubinCrc && s->off == p->pcOffset && !strcmp(s->func, fn)))
                        s = s->next;
                if (!s) {
                        s = calloc(1, sizeof *s);
                        if (!s || !(s->n = calloc(ps.nreason ? ps.nreason : 1, sizeof *s->n)) ||
                            !(s->func = strdup(fn))) {
                                pc_error("PC sampling: out of memory");
                                return;
                        }
                        s->crc = p->cubinCrc, s->off = p->pcOffset;
                        s->next = *b;
                        *b = s;
                        ps.npc++;
                }
                for (size_t r = 0; r < p->stallReasonCount && r < ps.nreason; r++) {
                        size_t k = reason_slot(p->stallReason[r].pcSamplingStallReasonIndex);
                        if (k != (size_t)-1)
                                s->n[k] += p->stallReason[r].samples;
                }
        }
}

/* Fetch what CUPTI holds for c (while the program runs, when much is pending). */
static void fetch(struct sctx *c, size_t at_least)
{
        for (int guard = 0; guard < 100000 && c->enabled; guard++) {
                if (c->config.remainingNumPcs < at_least || !c->config.remainingNumPcs)
                        return;
                ps.scratch.totalNumPcs = 0;
                CUpti_PCSamplingGetDataParams gp = {.size = CUpti_PCSamplingGetDataParamsSize,
                                                    .ctx = c->ctx, .pcSamplingData = &ps.scratch};
                CUptiResult r = cuptiPCSamplingGetData(&gp);
                if (r != CUPTI_SUCCESS) {
                        pc_check(r, ps.scratch.hardwareBufferFull
                                        ? "PC sampling: the hardware buffer is full"
                                        : "PC sampling: cannot get the data");
                        return;
                }
                absorb(&ps.scratch);
                if (!ps.scratch.totalNumPcs)
                        return;
        }
}

static struct sctx *find_ctx(CUcontext ctx)
{
        for (size_t i = 0; i < ps.nctx; i++)
                if (ps.ctxs[i].ctx == ctx)
                        return &ps.ctxs[i];
        return NULL;
}

void pc_samp_after_launch(CUcontext ctx)
{
        struct sctx *c = ps.on ? find_ctx(ctx) : NULL;
        if (c)
                fetch(c, SCRATCH_PCS);
}

/* Disable sampling in c: CUPTI copies what it still holds into the configured buffer. */
static void finish_ctx(struct sctx *c)
{
        if (!c->enabled)
                return;
        if (pc_cu.ctx_push && pc_cu.ctx_synchronize && pc_cu.ctx_pop) {
                CUcontext old;
                if (pc_cu.ctx_push(c->ctx) == CUDA_SUCCESS) {
                        pc_cu.ctx_synchronize();
                        pc_cu.ctx_pop(&old);
                }
        }
        fetch(c, 1);
        c->config.totalNumPcs = 0;
        CUpti_PCSamplingDisableParams dp = {.size = CUpti_PCSamplingDisableParamsSize,
                                            .ctx = c->ctx};
        if (pc_check(cuptiPCSamplingDisable(&dp), "cannot disable PC sampling") == 0)
                absorb(&c->config);
        c->enabled = 0;
}

void pc_samp_context_end(CUcontext ctx)
{
        struct sctx *c = ps.on ? find_ctx(ctx) : NULL;
        if (c)
                finish_ctx(c);
}

static const struct cubin *cubin_of(uint64_t crc)
{
        for (size_t i = 0; i < ps.ncubin; i++)
                if (ps.cubins[i].crc == crc)
                        return &ps.cubins[i];
        return NULL;
}

/* "dir/file:line" of a PC from the cubin's line table, into buf ("" when none). */
static void source_of(const struct cubin *cb, const struct spc *s, char *buf, size_t len)
{
        buf[0] = 0;
        if (!cb)
                return;
        CUpti_GetSassToSourceCorrelationParams sp = {
            .size = CUpti_GetSassToSourceCorrelationParamsSize, .cubin = cb->data,
            .functionName = s->func, .cubinSize = cb->size, .pcOffset = s->off};
        if (cuptiGetSassToSourceCorrelation(&sp) != CUPTI_SUCCESS)
                return;
        if (sp.fileName && sp.lineNumber)
                snprintf(buf, len, "%s%s%s:%u", sp.dirName && *sp.dirName ? sp.dirName : "",
                         sp.dirName && *sp.dirName ? "/" : "", sp.fileName, sp.lineNumber);
        free(sp.fileName); /* allocated by CUPTI for the caller */
        free(sp.dirName);
}

/* The name the launch records give the function (demangled as inject.c does). */
static char *kernel_name(const char *func)
{
        char *d = pc_demangle(func);
        return d ? d : strdup(func);
}

void pc_samp_finish(void)
{
        if (!ps.on)
                return;
        for (size_t i = 0; i < ps.nctx; i++)
                finish_ctx(&ps.ctxs[i]);
        FILE *f = fopen(ps.out, "w");
        if (!f) {
                pc_error("cannot write '%s'", ps.out);
                return;
        }
        fprintf(f, "pid,code_object_id,kernel_name,offset,instruction,source,count,issue_count,"
                   "stall_count,stall_reason,function\n");
        char src[4096], *json = malloc(100 * (ps.nreason + 1) + 2);
        long pid = (long)getpid();
        int *used = calloc(ps.ncubin + 1, sizeof *used);
        for (size_t b = 0; json && b < NBUCKET; b++)
                for (const struct spc *s = ps.bucket[b]; s; s = s->next) {
                        uint64_t count = 0, issued = 0;
                        size_t jl = 0;
                        json[0] = 0;
                        for (size_t r = 0; r < ps.nreason; r++) {
                                /* "X_not_issued" counts a subset of X's samples, and the
                                 * names CUPTI lists without the stall prefix
                                 * (smsp__pcsamp_sample_count, ..._samples_data_dropped)
                                 * are totals: neither is added */
                                size_t nl = strlen(ps.rname[r]);
                                if (!s->n[r] || !strncmp(ps.rname[r], "smsp__", 6) ||
                                    (nl > 11 && !strcmp(ps.rname[r] + nl - 11, "_not_issued")))
                                        continue;
                                count += s->n[r];
                                if (!strcmp(ps.rname[r], "selected")) { /* the warp issued */
                                        issued += s->n[r];
                                        continue;
                                }
                                jl += (size_t)sprintf(json + jl, "%s\"%.60s\":%llu",
                                                      jl ? "," : "{", ps.rname[r],
                                                      (unsigned long long)s->n[r]);
                        }
                        if (jl)
                                strcpy(json + jl, "}");
                        if (!count)
                                continue;
                        const struct cubin *cb = cubin_of(s->crc);
                        if (cb)
                                used[cb->id] = 1;
                        source_of(cb, s, src, sizeof src);
                        char *k = kernel_name(s->func);
                        fprintf(f, "%ld,", pid);
                        if (cb)
                                fprintf(f, "%d", cb->id);
                        fputc(',', f);
                        csv_put_field(f, k ? k : s->func, 0);
                        fprintf(f, ",%llu,,", (unsigned long long)s->off);
                        csv_put_field(f, src, 0);
                        fprintf(f, ",%llu,%llu,%llu,", (unsigned long long)count,
                                (unsigned long long)issued, (unsigned long long)(count - issued));
                        csv_put_field(f, json, 0);
                        fputc(',', f);
                        csv_put_field(f, s->func, 0);
                        fputc('\n', f);
                        free(k);
                }
        if (fclose(f))
                pc_error("cannot write '%s'", ps.out);
        for (size_t i = 0; i < ps.ncubin; i++) {
                if (!used[ps.cubins[i].id])
                        continue;
                char path[4200];
                snprintf(path, sizeof path, "%s.cubin.%d", ps.out, ps.cubins[i].id);
                FILE *cf = fopen(path, "wb");
                if (!cf || fwrite(ps.cubins[i].data, 1, ps.cubins[i].size, cf) != ps.cubins[i].size)
                        pc_warn("cannot write '%s'", path);
                if (cf)
                        fclose(cf);
        }
        pc_debug("PC sampling: %zu PCs, %llu samples, %llu dropped", ps.npc,
                 (unsigned long long)ps.total, (unsigned long long)ps.dropped);
        if (ps.dropped)
                pc_warn("PC sampling dropped %llu of %llu samples (a fuller buffer than CUPTI's)",
                        (unsigned long long)ps.dropped, (unsigned long long)ps.total);
        free(json);
        free(used);
}
