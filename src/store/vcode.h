/* A block of doubles in as few bytes as hold it exactly: the spill's column blocks
 * (wstream.c) and the evaluator's kept values (analyze/accvals.c). A block whose values are
 * all one (bit for bit) is that value alone; one of whole numbers 0 .. 2^32 - 1 (most
 * counter values) takes 1, 2 or 4 bytes a value; any other (fractions, -0.0, NaN, inf,
 * large values) stays doubles. Read back, they are the same doubles bit for bit. */
#ifndef PRISM_VCODE_H
#define PRISM_VCODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum vcode_kind { VC_F64, VC_U8, VC_U16, VC_U32, VC_ONE };

/* scratch room of a coder (one per thread): zeroed to start, vcoder_free to end */
struct vcoder {
        uint32_t *u; /* the last block vcode_kind narrowed, 32 bits a value */
        size_t capu;
};

/* The narrowest kind that holds v[0..n) exactly (narrow 0: VC_ONE or VC_F64 only); for
 * VC_ONE, *one is the value's bits (nothing else to keep). n 0 is never VC_ONE. */
enum vcode_kind vcode_kind(struct vcoder *c, const double *v, size_t n, int narrow,
                           uint64_t *one);
/* the bytes n values of kind k take */
size_t vcode_bytes(enum vcode_kind k, size_t n);
/* v[0..n), of the kind vcode_kind just gave for them, coded into d (vcode_bytes bytes) */
void vcode_put(const struct vcoder *c, enum vcode_kind k, const double *v, size_t n,
               unsigned char *d);
/* n values of kind k (coded at d; for VC_ONE the value's bits in one) as doubles */
void vcode_get(enum vcode_kind k, const unsigned char *d, uint64_t one, double *out,
               size_t n);
void vcoder_free(struct vcoder *c);

/* Coded blocks appended to a file through a write buffer of cap bytes (made at the first
 * block): the spill's columns, the evaluator's kept values. Zeroed to start, with f the
 * open file; vappend_free frees the buffer (not f). */
struct vappend {
        FILE *f;
        size_t cap;
        unsigned char *buf; /* blocks waiting to be written at end */
        size_t len;
        long long end;      /* the file's bytes written */
};
/* v[0..n), of the kind vcode_kind just gave c for them (not VC_ONE), appended; *at: where.
 * A block over the buffer is coded apart and written at once. 0, or -1 when a write
 * failed. */
int vappend_block(struct vappend *w, const struct vcoder *c, enum vcode_kind k,
                  const double *v, size_t n, long long *at);
/* the buffer written out: 0, or -1 when the write failed */
int vappend_flush(struct vappend *w);
void vappend_free(struct vappend *w);

/* Whether v[0..n) are all whole numbers 0 .. 2^32 - 1 (-0.0 not), each then in u and
 * their bits ORed in *bits (how a block is narrowed); simd: AVX2 where the CPU has it (the
 * same answers; exposed for tests/t-dbstream.c). */
int vcode_whole32(const double *v, size_t n, uint32_t *u, uint32_t *bits, int simd);

#endif
