/* The CSV reader's second thread (csvbatch.h). Both threads split the job's lines: each
 * takes the next line not yet taken (under the lock, which also finds where it ends) and
 * splits it into that line's place; the reader stores them in order, and splits lines
 * itself while the one it needs next is still being split elsewhere. */
#include "csvbatch.h"

#include "csvsplit.h"
#include "../util/numparse.h"
#include "../util/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
#endif

/* slow fields a line may have: beyond, the line is handed back unsplit (!ok) */
#define SLOW_PER_LINE 16

struct csv_batch {
        pthread_t th;
        pthread_mutex_t mu;
        pthread_cond_t work, ready_cv;
        int quit, has_job, stop, waiting;
        int busy; /* lines being split now (by either thread) */
        struct csv_job job;
        size_t taken, next_pos; /* lines taken so far; where the next one starts */
        /* the results: per line its state (0 not split yet, 1 split), its line, its
         * values (nkeep each) and its slow fields (SLOW_PER_LINE triples each) */
        unsigned char *ready;
        struct csv_bline *lines;
        size_t cap_lines;
        double *vals;
        size_t cap_vals;
        uint32_t *slow;
        struct csv_line fl[2]; /* each thread's own */
        int *kidx;   /* per field of a line: its kept value's number, or -1 */
        size_t cap_kidx;
        int fused;   /* lines split and read in one scan (split_fused) */
};

/* the next line to split, under the lock: its number and start, 0 when none is left */
static int take(struct csv_batch *b, size_t *j, size_t *pos)
{
        const struct csv_job *jb = &b->job;
        if (b->stop || b->taken >= jb->max_lines || b->next_pos >= jb->to)
                return 0;
        *j = b->taken++;
        *pos = b->next_pos;
        const char *nl = memchr(jb->buf + *pos, '\n', jb->to - *pos);
        b->lines[*j].start = (uint32_t)*pos;
        b->lines[*j].end = (uint32_t)(nl - jb->buf);
        b->next_pos = (size_t)(nl - jb->buf) + 1;
        b->busy++;
        return 1;
}

/* kept value k of a line from the field f (l bytes): the number as table.c's fast_row
 * reads it (digits, digits and ".0" as rocprof writes some counters, the rest), else a slow
 * field; 0 when the line has no room for another slow field */
static inline __attribute__((always_inline)) int
put_field(const struct csv_job *jb, size_t k, const char *f, size_t l, uint32_t at, double *v,
          uint32_t *sl, size_t *ns)
{
        if (!jb->text[k] &&
            (num_digits8(f, l, &v[k]) ||
             (l > 2 && f[l - 2] == '.' && f[l - 1] == '0' && num_digits8(f, l - 2, &v[k])) ||
             num_fast(f, l, &v[k])))
                return 1;
        if (*ns == SLOW_PER_LINE)
                return 0;
        sl[3 * *ns] = (uint32_t)k;
        sl[3 * *ns + 1] = at;
        sl[3 * *ns + 2] = (uint32_t)l;
        ++*ns;
        return 1;
}

#if defined(HAVE_AVX2_PATH)
/* The common line in one scan, 32 bytes at a time (AVX2): plain fields (no blank, quote,
 * CR or NUL) and quoted ones whose closing quote ends the field, each kept value read as it
 * is found. Returns 1 with L filled (ok or not: too many or too few fields), 0 for a line
 * csv_split must read (a blank, a quote inside a field or doubled, a lone CR, a NUL): for
 * the lines it reads, the fields are csv_split's. */
__attribute__((target("avx2"))) static int split_fused(struct csv_batch *b,
                                                       struct csv_bline *L, double *v,
                                                       uint32_t *sl)
{
        const struct csv_job *jb = &b->job;
        const char *line = jb->buf + L->start, *nl = jb->buf + L->end;
        const char *end = nl > line && nl[-1] == '\r' ? nl - 1 : nl;
        const int *kidx = b->kidx;
        size_t nhead = jb->nhead, i = 0, ns = 0;
        const __m256i comma = _mm256_set1_epi8(','), quote = _mm256_set1_epi8('"'),
                      cr = _mm256_set1_epi8('\r'), lf = _mm256_set1_epi8('\n'),
                      sp = _mm256_set1_epi8(' '), tab = _mm256_set1_epi8('\t'),
                      nul = _mm256_setzero_si256();
        const char *f = line; /* the field being read */
        if (end == line)
                return 0; /* a blank line (or a lone CR): csv_split says which */
        for (;;) {
                if (*f == '"') {
                        /* a quoted field: its text up to the closing quote, which must
                         * end the field (no NUL inside) */
                        const char *q = memchr(f + 1, '"', (size_t)(end - f - 1));
                        if (!q || (q + 1 != end && q[1] != ',') ||
                            memchr(f + 1, 0, (size_t)(q - f - 1)))
                                return 0;
                        if (i >= nhead)
                                goto count;
                        if (kidx[i] >= 0 &&
                            !put_field(jb, (size_t)kidx[i], f + 1, (size_t)(q - f - 1),
                                       (uint32_t)(f + 1 - line), v, sl, &ns))
                                goto slow_full;
                        i++;
                        if (q + 1 == end)
                                break;
                        f = q + 2;
                        continue;
                }
                /* plain fields from f on, each comma ending one */
                const char *p = f;
                for (;;) {
                        __m256i x = _mm256_loadu_si256((const __m256i *)p);
                        unsigned cm = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, comma));
                        unsigned sm = (unsigned)_mm256_movemask_epi8(_mm256_or_si256(
                            _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(x, quote),
                                                            _mm256_cmpeq_epi8(x, cr)),
                                            _mm256_or_si256(_mm256_cmpeq_epi8(x, lf),
                                                            _mm256_cmpeq_epi8(x, nul))),
                            _mm256_or_si256(_mm256_cmpeq_epi8(x, sp), _mm256_cmpeq_epi8(x, tab))));
                        if (sm)
                                cm &= (1u << __builtin_ctz(sm)) - 1;
                        while (cm) {
                                const char *c = p + __builtin_ctz(cm);
                                if (i >= nhead)
                                        goto count;
                                if (kidx[i] >= 0 &&
                                    !put_field(jb, (size_t)kidx[i], f, (size_t)(c - f),
                                               (uint32_t)(f - line), v, sl, &ns))
                                        goto slow_full;
                                i++;
                                f = c + 1;
                                cm &= cm - 1;
                        }
                        if (sm) {
                                p += __builtin_ctz(sm);
                                break;
                        }
                        p += 32;
                }
                if (p == end) { /* the line's last field */
                        if (i >= nhead)
                                goto count;
                        if (kidx[i] >= 0 &&
                            !put_field(jb, (size_t)kidx[i], f, (size_t)(p - f),
                                       (uint32_t)(f - line), v, sl, &ns))
                                goto slow_full;
                        i++;
                        break;
                }
                if (*p == '"' && p == f)
                        continue; /* a quoted field next */
                return 0; /* a blank, a quote inside a field, a CR, a NUL */
        }
        if (i != nhead)
                return 1; /* fewer fields than the header: the reader says so */
        L->nslow = ns;
        L->ok = 1;
        return 1;
count:
        return 1; /* more fields than the header */
slow_full:
        return 1; /* too many slow fields: the reader splits it */
}
#endif

/* line j split with fl, its kept numbers read as table.c's fast_row reads them */
static void split_one(struct csv_batch *b, size_t j, struct csv_line *fl)
{
        const struct csv_job *jb = &b->job;
        struct csv_bline *L = &b->lines[j];
        const char *p = jb->buf + L->start, *nl = jb->buf + L->end;
        size_t nk = jb->nkeep;
        double *v = b->vals + j * nk;
        uint32_t *sl = b->slow + 3 * SLOW_PER_LINE * j;
        L->ok = 0;
        L->nslow = 0;
        L->vals = v;
        L->slow = sl;
#if defined(HAVE_AVX2_PATH)
        if (b->fused && split_fused(b, L, v, sl))
                return;
        L->ok = 0; /* (values it read are overwritten below) */
#endif
        if (csv_split(p, nl, fl) || fl->n == 0 || fl->n != jb->nhead)
                return;
        const uint32_t *at = fl->at, *len = fl->len;
        size_t ns = 0;
        for (size_t k = 0; k < nk; k++) {
                size_t i = jb->keep[k];
                if (!put_field(jb, k, p + at[i], len[i], at[i], v, sl, &ns))
                        return; /* too many slow fields: the reader splits it */
        }
        L->nslow = ns;
        L->ok = 1;
}

/* split lines while the job has some; with the lock held (released while splitting) */
static void split_lines(struct csv_batch *b, struct csv_line *fl, size_t until)
{
        size_t j, pos;
        while ((until == (size_t)-1 || !b->ready[until]) && take(b, &j, &pos)) {
                pthread_mutex_unlock(&b->mu);
                split_one(b, j, fl);
                pthread_mutex_lock(&b->mu);
                b->ready[j] = 1;
                b->busy--;
                if (b->waiting)
                        pthread_cond_broadcast(&b->ready_cv);
        }
}

static void *thread_main(void *arg)
{
        struct csv_batch *b = arg;
        pthread_mutex_lock(&b->mu);
        for (;;) {
                while (!b->quit && !(b->has_job && !b->stop && b->next_pos < b->job.to &&
                                     b->taken < b->job.max_lines))
                        pthread_cond_wait(&b->work, &b->mu);
                if (b->quit)
                        break;
                split_lines(b, &b->fl[0], (size_t)-1);
        }
        pthread_mutex_unlock(&b->mu);
        return NULL;
}

struct csv_batch *csv_batch_new(void)
{
        struct csv_batch *b = xcalloc(1, sizeof *b);
        pthread_mutex_init(&b->mu, NULL);
        pthread_cond_init(&b->work, NULL);
        pthread_cond_init(&b->ready_cv, NULL);
        if (pthread_create(&b->th, NULL, thread_main, b)) {
                pthread_mutex_destroy(&b->mu);
                pthread_cond_destroy(&b->work);
                pthread_cond_destroy(&b->ready_cv);
                free(b);
                return NULL;
        }
        return b;
}

void csv_batch_start(struct csv_batch *b, const struct csv_job *job)
{
        size_t nl = job->max_lines ? job->max_lines : 1;
        size_t nv = nl * (job->nkeep ? job->nkeep : 1);
        /* no job runs (csv_batch_stop before): the arrays are this thread's */
        pthread_mutex_lock(&b->mu);
        if (nl > b->cap_lines) {
                b->lines = xrealloc(b->lines, nl * sizeof *b->lines);
                b->ready = xrealloc(b->ready, nl);
                b->slow = xrealloc(b->slow, nl * 3 * SLOW_PER_LINE * sizeof *b->slow);
                b->cap_lines = nl;
        }
        if (nv > b->cap_vals) {
                b->vals = xrealloc(b->vals, nv * sizeof *b->vals);
                b->cap_vals = nv;
        }
        memset(b->ready, 0, nl);
        if (job->nhead > b->cap_kidx) {
                b->kidx = xrealloc(b->kidx, job->nhead * sizeof *b->kidx);
                b->cap_kidx = job->nhead;
        }
        for (size_t i = 0; i < job->nhead; i++)
                b->kidx[i] = -1;
        for (size_t k = 0; k < job->nkeep; k++)
                if (job->keep[k] < job->nhead)
                        b->kidx[job->keep[k]] = (int)k;
        b->fused = csv_split_level(-1) == CSV_SCAN_AVX2;
        b->job = *job;
        b->job.max_lines = nl;
        b->taken = 0;
        b->next_pos = job->from;
        b->stop = 0;
        b->has_job = 1;
        pthread_cond_signal(&b->work);
        pthread_mutex_unlock(&b->mu);
}

int csv_batch_line(struct csv_batch *b, size_t j, struct csv_bline *out)
{
        pthread_mutex_lock(&b->mu);
        int have = 0;
        if (b->has_job && j < b->job.max_lines) {
                for (;;) {
                        /* split lines here until j is split: j itself when not taken yet */
                        split_lines(b, &b->fl[1], j);
                        if (b->ready[j] || j >= b->taken)
                                break;
                        b->waiting = 1; /* j is being split on the other thread */
                        pthread_cond_wait(&b->ready_cv, &b->mu);
                        b->waiting = 0;
                }
                have = b->ready[j];
                if (have)
                        *out = b->lines[j];
        }
        pthread_mutex_unlock(&b->mu);
        return have;
}

void csv_batch_stop(struct csv_batch *b)
{
        pthread_mutex_lock(&b->mu);
        b->stop = 1;
        while (b->busy) {
                b->waiting = 1;
                pthread_cond_wait(&b->ready_cv, &b->mu);
                b->waiting = 0;
        }
        b->has_job = 0;
        pthread_mutex_unlock(&b->mu);
}

void csv_batch_free(struct csv_batch *b)
{
        if (!b)
                return;
        csv_batch_stop(b);
        pthread_mutex_lock(&b->mu);
        b->quit = 1;
        pthread_cond_signal(&b->work);
        pthread_mutex_unlock(&b->mu);
        pthread_join(b->th, NULL);
        pthread_mutex_destroy(&b->mu);
        pthread_cond_destroy(&b->work);
        pthread_cond_destroy(&b->ready_cv);
        free(b->ready);
        free(b->lines);
        free(b->vals);
        free(b->slow);
        free(b->kidx);
        csv_line_free(&b->fl[0]);
        csv_line_free(&b->fl[1]);
        free(b);
}
