/* csv_stream on two threads (csvpipe.h). The reader thread runs csv_stream itself and
 * copies each record it hands over into a batch (the fields' bytes, where each starts,
 * their lengths, the record's line); full batches go to the calling thread through a ring
 * of PIPE_SLOTS, which runs row on each record in order. The reader waits when the ring
 * is full, so memory stays at PIPE_SLOTS batches whatever the file's size. Where row stops
 * the reading (an error, or > 0), the reader is told and ends at its next record. */
#include "csvpipe.h"

#include "../util/task.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

size_t csv_pipe_min = 16 << 20;
size_t csv_pipe_records = 4096;

#define PIPE_SLOTS 4
#define PIPE_BYTES ((size_t)1 << 20)

struct batch {
        struct strbuf text; /* every field, each NUL-terminated */
        size_t *at, *len;   /* per field: its offset in text, its length */
        size_t nf, cap_f;
        size_t *first, *line; /* per record: its first field; its line */
        size_t nrec, cap_rec;
};

struct pipe {
        pthread_mutex_t mu;
        pthread_cond_t cv;
        struct batch b[PIPE_SLOTS];
        size_t made, used; /* batches handed over; batches row has been through */
        int done, stop;    /* the reader ended; the caller wants no more */
        int rc;            /* csv_stream's result on the reader */
        struct err err;    /* its error */
        const char *path;
};

static void batch_reset(struct batch *b)
{
        sb_reset(&b->text);
        b->nf = b->nrec = 0;
}

static void batch_free(struct batch *b)
{
        sb_free(&b->text);
        free(b->at);
        free(b->len);
        free(b->first);
        free(b->line);
}

/* the batch being filled handed over, and the next one waited for (0: go on, 1: stop) */
static int hand_over(struct pipe *p)
{
        pthread_mutex_lock(&p->mu);
        p->made++;
        pthread_cond_broadcast(&p->cv);
        while (!p->stop && p->made - p->used >= PIPE_SLOTS)
                pthread_cond_wait(&p->cv, &p->mu);
        int stop = p->stop;
        pthread_mutex_unlock(&p->mu);
        if (!stop)
                batch_reset(&p->b[p->made % PIPE_SLOTS]);
        return stop;
}

/* csv_stream's row on the reader: the record into the batch being filled */
static int take_row(void *ctx, char **f, const size_t *lens, size_t n, size_t line,
                    struct err *err)
{
        struct pipe *p = ctx;
        (void)err;
        if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
                return 1;
        struct batch *b = &p->b[p->made % PIPE_SLOTS];
        if (b->nrec == b->cap_rec) {
                xgrow(&b->first, &b->cap_rec, b->nrec + 1, sizeof *b->first);
                b->line = xrealloc(b->line, b->cap_rec * sizeof *b->line);
        }
        b->first[b->nrec] = b->nf;
        b->line[b->nrec++] = line;
        if (b->nf + n > b->cap_f) {
                size_t cap = b->cap_f;
                xgrow(&b->at, &cap, b->nf + n, sizeof *b->at);
                b->len = xrealloc(b->len, cap * sizeof *b->len);
                b->cap_f = cap;
        }
        /* the fields usually lie one after another, each ended by its NUL: one copy */
        size_t off = 0, base = b->text.len, i;
        for (i = 0; i < n && f[i] == f[0] + off; i++) {
                b->at[b->nf + i] = base + off;
                b->len[b->nf + i] = lens[i];
                off += lens[i] + 1;
        }
        if (i == n) {
                sb_addn(&b->text, f[0], off);
                b->nf += n;
        } else {
                for (i = 0; i < n; i++) {
                        b->at[b->nf] = b->text.len;
                        b->len[b->nf++] = lens[i];
                        sb_addn(&b->text, f[i], lens[i] + 1); /* with its NUL */
                }
        }
        if (b->nrec >= csv_pipe_records || b->text.len >= PIPE_BYTES)
                return hand_over(p);
        return 0;
}

static void *reader(void *arg)
{
        struct pipe *p = arg;
        int rc = csv_stream(p->path, take_row, p, &p->err);
        pthread_mutex_lock(&p->mu);
        p->rc = rc;
        p->made++; /* the last batch, maybe empty */
        p->done = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        return NULL;
}

/* row on each record of batch b; its result where one is not 0 */
static int run_batch(const struct batch *b, char ***fields, size_t *cap, csv_row_fn row,
                     void *ctx, struct err *err)
{
        for (size_t r = 0; r < b->nrec; r++) {
                size_t f0 = b->first[r], n = (r + 1 < b->nrec ? b->first[r + 1] : b->nf) - f0;
                xgrow(fields, cap, n + 1, sizeof **fields);
                for (size_t i = 0; i < n; i++)
                        (*fields)[i] = b->text.buf + b->at[f0 + i];
                int rc = row(ctx, *fields, b->len + f0, n, b->line[r], err);
                if (rc)
                        return rc;
        }
        return 0;
}

int csv_stream_piped(const char *path, csv_row_fn row, void *ctx, struct err *err)
{
        struct stat st;
        if (stat(path, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size < csv_pipe_min ||
            task_workers() < 2)
                return csv_stream(path, row, ctx, err);
        struct pipe *p = xcalloc(1, sizeof *p);
        p->path = path;
        pthread_mutex_init(&p->mu, NULL);
        pthread_cond_init(&p->cv, NULL);
        pthread_t th;
        if (pthread_create(&th, NULL, reader, p)) {
                pthread_mutex_destroy(&p->mu);
                pthread_cond_destroy(&p->cv);
                free(p);
                return csv_stream(path, row, ctx, err);
        }
        char **fields = NULL;
        size_t cap = 0;
        int rc = 0;
        for (;;) {
                pthread_mutex_lock(&p->mu);
                while (p->used == p->made && !p->done)
                        pthread_cond_wait(&p->cv, &p->mu);
                int last = p->used == p->made; /* done, and every batch run */
                pthread_mutex_unlock(&p->mu);
                if (last)
                        break;
                rc = run_batch(&p->b[p->used % PIPE_SLOTS], &fields, &cap, row, ctx, err);
                pthread_mutex_lock(&p->mu);
                p->used++;
                if (rc)
                        __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
                pthread_cond_broadcast(&p->cv);
                pthread_mutex_unlock(&p->mu);
                if (rc)
                        break;
        }
        pthread_join(th, NULL);
        if (rc) /* as csv_stream: > 0 stops the reading, < 0 fails it (row filled err) */
                rc = rc > 0 ? 0 : ERR_INPUT;
        else if (p->rc) {
                *err = p->err;
                rc = p->rc;
        }
        free(fields);
        for (int i = 0; i < PIPE_SLOTS; i++)
                batch_free(&p->b[i]);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
        free(p);
        return rc;
}
