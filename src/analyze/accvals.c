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
        long long at = 0;
        if (s->in_mem) {
                at = (long long)s->len;
                vcode_put(&s->vc, kd, v, n, s->mem + s->len);
                s->len += vcode_bytes(kd, n);
        } else {
                /* the temporary file, made as the first block goes to it */
                if (!s->file.f && !(s->file.f = tmp_file())) {
                        s->failed = 1;
                        return;
                }
                s->file.cap = WBUF;
                if (vappend_block(&s->file, &s->vc, kd, v, n, &at)) {
                        s->failed = 1;
                        return;
                }
        }
        s->off[b] = at;
        s->kind[b] = (unsigned char)kd;
}

int accvals_get(struct accvals *s, size_t a, double *out)
{
        if (s->failed || (s->file.f && vappend_flush(&s->file))) {
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
                        if (pread(fileno(s->file.f), r, bytes, (off_t)s->off[b]) !=
                            (ssize_t)bytes)
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
        vappend_free(&s->file);
        free(s->rbuf);
        if (s->file.f)
                fclose(s->file.f);
        memset(s, 0, sizeof *s);
}
