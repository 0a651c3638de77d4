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
        if (csv_split(p, nl, fl) || fl->n == 0 || fl->n != jb->nhead)
                return;
        const uint32_t *at = fl->at, *len = fl->len;
        size_t ns = 0;
        for (size_t k = 0; k < nk; k++) {
                size_t i = jb->keep[k];
                const char *f = p + at[i];
                size_t l = len[i];
                /* digits, digits and ".0" (how rocprof writes some counters), the rest */
                if (!jb->text[k] &&
                    (num_digits8(f, l, &v[k]) ||
                     (l > 2 && f[l - 2] == '.' && f[l - 1] == '0' &&
                      num_digits8(f, l - 2, &v[k])) ||
                     num_fast(f, l, &v[k])))
                        continue;
                if (ns == SLOW_PER_LINE)
                        return; /* the reader splits it */
                sl[3 * ns] = (uint32_t)k;
                sl[3 * ns + 1] = at[i];
                sl[3 * ns + 2] = (uint32_t)l;
                ns++;
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
        csv_line_free(&b->fl[0]);
        csv_line_free(&b->fl[1]);
        free(b);
}
