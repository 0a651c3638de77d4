/* Every value of the accumulators whose aggregates need them all (median, quartiles,
 * standard deviation): a block per chunk of rows and accumulator, coded by vcode.h (one
 * value, 1, 2 or 4 bytes a whole number, else doubles), in memory or in a temporary file. Read back, they are the doubles fed in, bit for
 * bit. One evaluation's (one thread's). */
#ifndef PRISM_ACCVALS_H
#define PRISM_ACCVALS_H

#include "../store/vcode.h"

#include <stdio.h>

struct accvals {
        size_t nacc, nchunk;
        const size_t *rows;   /* per chunk: its rows (the caller's) */
        long long *off;       /* per chunk and accumulator: where its block is (VC_ONE:
                                 the value's bits) */
        unsigned char *kind;  /* the same: enum vcode_kind, or 255 not fed */
        struct vcoder vc;
        int in_mem;           /* the blocks are in mem, else in the file */
        unsigned char *mem;
        size_t len;
        struct vappend file;  /* the temporary file (file.f NULL until the first block) */
        unsigned char *rbuf;  /* a coded block read back */
        size_t caprbuf;
        int failed;           /* the file could not be made or written */
};

/* nacc accumulators over nchunk chunks of rows[k] rows each: in memory when all their
 * values as doubles take at most budget bytes (coded they take no more), else in a
 * temporary file */
void accvals_init(struct accvals *s, size_t nacc, size_t nchunk, const size_t *rows,
                  size_t budget);
/* the values of accumulator a in chunk k (rows[k] of them) */
void accvals_put(struct accvals *s, size_t k, size_t a, const double *v);
/* every value of accumulator a, chunk after chunk, into out; -1 when they cannot be read
 * back (a temporary file that failed, or a chunk never fed) */
int accvals_get(struct accvals *s, size_t a, double *out);
void accvals_free(struct accvals *s);

#endif
