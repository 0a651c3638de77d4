/* Kernel start/end timestamps (ns, CUPTI's clock) from CUPTI activity records of kind
 * CONCURRENT_KERNEL (or KERNEL), joined to the launches by correlation id. Under kernel
 * replay a launch may give more than one record; the first (earliest start) is kept. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_activity.h>

#include "collector.h"

#define BUF_SIZE (4u << 20)
#define BUF_ALIGN 8

struct span {
        uint32_t correlation;
        uint64_t start, end;
        double la[PC_LA_N]; /* the launch attributes the record gives */
};

static struct span *spans;
static size_t nspans, cap_spans;
static pthread_mutex_t spans_lock = PTHREAD_MUTEX_INITIALIZER;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
        *buffer = aligned_alloc(BUF_ALIGN, BUF_SIZE);
        *size = *buffer ? BUF_SIZE : 0;
        *max_records = 0;
}

static void add_span(const CUpti_ActivityKernel10 *k)
{
        if (nspans == cap_spans) {
                size_t cap = cap_spans ? 2 * cap_spans : 1024;
                struct span *n = realloc(spans, cap * sizeof *n);
                if (!n)
                        return;
                spans = n;
                cap_spans = cap;
        }
        struct span *sp = &spans[nspans++];
        *sp = (struct span){k->correlationId, k->start, k->end, {0}};
        pc_la_clear(sp->la);
        pc_la_from_record(sp->la, k);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
        CUpti_Activity *rec = NULL;
        (void)ctx;
        (void)stream;
        (void)size;
        pthread_mutex_lock(&spans_lock);
        while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
                if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
                    rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
                        continue;
                const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
                if (nspans < 3)
                        pc_debug("activity record: correlation %u start %llu end %llu",
                                 k->correlationId, (unsigned long long)k->start,
                                 (unsigned long long)k->end);
                add_span(k);
        }
        pthread_mutex_unlock(&spans_lock);
        free(buffer);
}

/* A failure here is a warning: the caller falls back to API timestamps. */
int pc_activity_start(void)
{
        char buf[256];
        CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
        if (r == CUPTI_SUCCESS)
                r = cuptiActivityEnable((CUpti_ActivityKind)pc.activity_kind);
        if (r == CUPTI_SUCCESS)
                return 0;
        pc_format_result(buf, sizeof buf, r, "cannot enable kernel activity records");
        pc_warn("%s", buf);
        return -1;
}

static int by_corr(const void *a, const void *b)
{
        const struct span *x = a, *y = b;
        if (x->correlation != y->correlation)
                return x->correlation < y->correlation ? -1 : 1;
        return x->start < y->start ? -1 : x->start > y->start;
}

static int launch_by_corr(const void *a, const void *b)
{
        size_t i = *(const size_t *)a, j = *(const size_t *)b;
        uint32_t x = pc.launches[i].correlation, y = pc.launches[j].correlation;
        return x < y ? -1 : x > y;
}

void pc_activity_finish(void)
{
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        pthread_mutex_lock(&spans_lock);
        qsort(spans, nspans, sizeof *spans, by_corr);
        size_t *order = malloc((pc.nlaunches ? pc.nlaunches : 1) * sizeof *order);
        if (!order)
                goto out;
        for (size_t i = 0; i < pc.nlaunches; i++)
                order[i] = i;
        qsort(order, pc.nlaunches, sizeof *order, launch_by_corr);
        size_t s = 0, nrec = 0, extra = 0;
        for (size_t i = 0; i < pc.nlaunches; i++) {
                struct pc_launch *l = &pc.launches[order[i]];
                while (s < nspans && spans[s].correlation < l->correlation)
                        s++;
                if (s < nspans && spans[s].correlation == l->correlation) {
                        l->start = spans[s].start;
                        l->end = spans[s].end;
                        /* launch attributes from a record of a kernel that ran (a start
                         * time), the first record's otherwise */
                        size_t a = s;
                        nrec++;
                        while (s + 1 < nspans && spans[s + 1].correlation == l->correlation) {
                                s++;
                                extra++;
                                if (!spans[a].start && spans[s].start)
                                        a = s;
                        }
                        pc_la_merge(l->la, spans[a].la);
                }
        }
        pc_debug("activity: %zu records, %zu launches matched, %zu extra records (replays)", nspans,
                 nrec, extra);
        free(order);
out:
        free(spans);
        spans = NULL;
        nspans = cap_spans = 0;
        pthread_mutex_unlock(&spans_lock);
}
