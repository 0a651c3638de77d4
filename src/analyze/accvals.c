/* The accumulators' kept values, coded, in memory or a temporary file (accvals.h). */
#include "accvals.h"

#include "../util/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WBUF (256 << 10)
#define UNFED 255

void accvals_init(struct accvals *s, size_t nacc, size_t nchunk, const size_t *rows,
                  size_t budget)
{
        memset(s, 0, sizeof *s);
        s->nacc = nacc;
        s->nchunk = nchunk;
        s->rows = rows;
        size_t total = 0;
        for (size_t k = 0; k < nchunk; k++)
                total += rows[k];
        /* as doubles within the budget: in memory (coded they take no more; the pages
         * past what they take are never touched) */
        s->in_mem = (double)nacc * (double)total * sizeof(double) <= (double)budget;
        if (s->in_mem)
                s->mem = xmalloc(nacc * total * sizeof(double) + 1);
        size_t nb = nacc * nchunk;
        if (!nb)
                nb = 1;
        s->off = xcalloc(nb, sizeof *s->off);
        s->kind = xmalloc(nb);
        memset(s->kind, UNFED, nb);
}

static int flush(struct accvals *s)
{
        int ok = !s->wlen ||
                 pwrite(fileno(s->f), s->wbuf, s->wlen, (off_t)s->fend) == (ssize_t)s->wlen;
        s->fend += (long long)s->wlen;
        s->wlen = 0;
        return ok ? 0 : -1;
}

/* the temporary file, made as the first block goes to it */
static int to_file(struct accvals *s)
{
        if (!(s->f = tmp_file()))
                return -1;
        s->wbuf = xmalloc(WBUF);
        return 0;
}

/* room for bytes more at the end, *at its offset: in memory, or the file's write buffer;
 * *d NULL for a block larger than that buffer (the caller writes it at *at). -1 when the
 * file fails. */
static int room(struct accvals *s, size_t bytes, unsigned char **d, long long *at)
{
        if (s->in_mem) {
                *at = (long long)s->len;
                *d = s->mem + s->len;
                s->len += bytes;
                return 0;
        }
        if (!s->f && to_file(s))
                return -1;
        if (s->wlen + bytes > WBUF && flush(s))
                return -1;
        *at = s->fend + (long long)s->wlen;
        *d = NULL;
        if (bytes > WBUF) {
                s->fend += (long long)bytes;
                return 0;
        }
        *d = s->wbuf + s->wlen;
        s->wlen += bytes;
        return 0;
}

void accvals_put(struct accvals *s, size_t k, size_t a, const double *v)
{
        size_t n = s->rows[k], b = k * s->nacc + a;
        if (s->failed)
                return;
        uint64_t one;
        enum vcode_kind kd = vcode_kind(&s->vc, v, n, 1, &one);
        if (kd == VC_ONE) {
                memcpy(&s->off[b], &one, sizeof one);
                s->kind[b] = (unsigned char)kd;
                return;
        }
        size_t bytes = vcode_bytes(kd, n);
        long long at = 0;
        unsigned char *d;
        if (room(s, bytes, &d, &at)) {
                s->failed = 1;
                return;
        }
        if (d) {
                vcode_put(&s->vc, kd, v, n, d);
        } else {
                /* a block larger than the write buffer: coded apart, written at once */
                d = xmalloc(bytes);
                vcode_put(&s->vc, kd, v, n, d);
                int ok = pwrite(fileno(s->f), d, bytes, (off_t)at) == (ssize_t)bytes;
                free(d);
                if (!ok) {
                        s->failed = 1;
                        return;
                }
        }
        s->off[b] = at;
        s->kind[b] = (unsigned char)kd;
}

int accvals_get(struct accvals *s, size_t a, double *out)
{
        if (s->failed || (s->f && flush(s))) {
                s->failed = 1;
                return -1;
        }
        for (size_t k = 0; k < s->nchunk; k++) {
                size_t n = s->rows[k], b = k * s->nacc + a;
                if (s->kind[b] == UNFED)
                        return -1;
                enum vcode_kind kd = (enum vcode_kind)s->kind[b];
                uint64_t one = 0;
                const unsigned char *d = NULL;
                size_t bytes = vcode_bytes(kd, n);
                if (kd == VC_ONE) {
                        memcpy(&one, &s->off[b], sizeof one);
                } else if (s->in_mem) {
                        d = s->mem + s->off[b];
                } else {
                        /* doubles straight into out, narrow values through rbuf */
                        unsigned char *r = (unsigned char *)out;
                        if (kd != VC_F64) {
                                if (bytes > s->caprbuf) {
                                        s->caprbuf = bytes;
                                        s->rbuf = xrealloc(s->rbuf, bytes);
                                }
                                r = s->rbuf;
                        }
                        if (pread(fileno(s->f), r, bytes, (off_t)s->off[b]) != (ssize_t)bytes)
                                return -1;
                        d = r;
                }
                vcode_get(kd, d, one, out, n);
                out += n;
        }
        return 0;
}

void accvals_free(struct accvals *s)
{
        free(s->off);
        free(s->kind);
        vcoder_free(&s->vc);
        free(s->mem);
        free(s->wbuf);
        free(s->rbuf);
        if (s->f)
                fclose(s->f);
        memset(s, 0, sizeof *s);
}
