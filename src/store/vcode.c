/* Blocks of doubles in few bytes, exactly (vcode.h). */
#include "vcode.h"

#include "../util/util.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const size_t kind_width[] = {8, 1, 2, 4, 0};

/* v[i..n) checked and copied one at a time, as vcode_whole32 does: 1 with *bits updated, or 0 */
static inline int whole32_from(const double *v, size_t i, size_t n, uint32_t *u, uint32_t *bits)
{
        uint32_t b = *bits;
        for (; i < n; i++) {
                double x = v[i];
                /* NaN, negatives, fractions, -0.0 and large values: doubles */
                if (!(x >= 0 && x <= 4294967295.0))
                        return 0;
                uint32_t w = (uint32_t)x;
                if ((double)w != x || (w == 0 && signbit(x)))
                        return 0;
                u[i] = w;
                b |= w; /* below 2^8 (2^16) exactly when every value is */
        }
        *bits = b;
        return 1;
}

/* Whether v[0..n) are all whole numbers 0 .. 2^32 - 1 (not -0.0), each then in u, their
 * bits ORed in *bits; 0 at the first that is not (u and *bits then say nothing). Four at a
 * time: x + 2^52 is 2^52 + x exactly, its upper word 0x43300000 and its lower word x, just
 * when x is such a number (a fraction rounds: less 2^52 it is no longer x, bit for bit; a
 * negative, a larger value, NaN and inf change the upper word). */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static int whole32_avx2(const double *v, size_t n, uint32_t *u,
                                                        uint32_t *bits)
{
        const __m256d two52 = _mm256_set1_pd(4503599627370496.0);
        const __m256i hi = _mm256_set1_epi64x(0x43300000);
        const __m256i lo32 = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
        __m256i acc = _mm256_setzero_si256();
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
                __m256d x = _mm256_loadu_pd(v + i);
                __m256d y = _mm256_add_pd(x, two52);
                __m256i yb = _mm256_castpd_si256(y);
                __m256i back = _mm256_castpd_si256(_mm256_sub_pd(y, two52));
                __m256i ok = _mm256_and_si256(
                    _mm256_cmpeq_epi64(back, _mm256_castpd_si256(x)),
                    _mm256_cmpeq_epi64(_mm256_srli_epi64(yb, 32), hi));
                if (_mm256_movemask_epi8(ok) != -1)
                        return 0;
                acc = _mm256_or_si256(acc, yb);
                __m256i w = _mm256_permutevar8x32_epi32(yb, lo32);
                _mm_storeu_si128((__m128i *)(u + i), _mm256_castsi256_si128(w));
        }
        uint32_t a[8];
        _mm256_storeu_si256((__m256i *)a, acc);
        *bits = a[0] | a[2] | a[4] | a[6];
        return whole32_from(v, i, n, u, bits);
}
#endif

int vcode_whole32(const double *v, size_t n, uint32_t *u, uint32_t *bits, int simd)
{
#if defined(__x86_64__) && defined(__GNUC__)
        if (simd && __builtin_cpu_supports("avx2"))
                return whole32_avx2(v, n, u, bits);
#else
        (void)simd;
#endif
        *bits = 0;
        return whole32_from(v, 0, n, u, bits);
}

/* how many of v[0..n) from the start have v[0]'s bits (a differing value usually comes at
 * once; a counter that stays 0 is read to the end, eight values at a time) */
static size_t same_run(const double *v, size_t n, uint64_t v0)
{
        size_t same = 1;
#if defined(__SSE2__)
        const __m128i p0 = _mm_set1_epi64x((long long)v0);
        for (; same + 8 <= n; same += 8) {
                const __m128i *q = (const __m128i *)(v + same);
                __m128i d = _mm_or_si128(
                    _mm_or_si128(_mm_xor_si128(_mm_loadu_si128(q), p0),
                                 _mm_xor_si128(_mm_loadu_si128(q + 1), p0)),
                    _mm_or_si128(_mm_xor_si128(_mm_loadu_si128(q + 2), p0),
                                 _mm_xor_si128(_mm_loadu_si128(q + 3), p0)));
                if (_mm_movemask_epi8(_mm_cmpeq_epi8(d, _mm_setzero_si128())) != 0xFFFF)
                        break; /* a differing value among these eight: found below */
        }
#endif
        uint64_t x;
        for (; same < n; same++) {
                memcpy(&x, v + same, sizeof x);
                if (x != v0)
                        break;
        }
        return same;
}

/* One pass converts and checks (into c->u, 32 bits a value); the OR of the values then
 * says how narrow they go. */
enum vcode_kind vcode_kind(struct vcoder *c, const double *v, size_t n, int narrow,
                           uint64_t *one)
{
        uint64_t v0 = 0;
        if (n)
                memcpy(&v0, v, sizeof v0);
        if (n && same_run(v, n, v0) == n) {
                *one = v0;
                return VC_ONE;
        }
        if (!narrow)
                return VC_F64;
        if (n > c->capu) {
                c->capu = n;
                c->u = xrealloc(c->u, n * sizeof *c->u);
        }
        uint32_t bits = 0;
        if (!vcode_whole32(v, n, c->u, &bits, 1))
                return VC_F64;
        return bits < 256 ? VC_U8 : bits < 65536 ? VC_U16 : VC_U32;
}

size_t vcode_bytes(enum vcode_kind k, size_t n)
{
        return n * kind_width[k];
}

void vcode_put(const struct vcoder *c, enum vcode_kind k, const double *v, size_t n,
               unsigned char *d)
{
        const uint32_t *u = c->u;
        switch (k) {
        case VC_F64:
                memcpy(d, v, n * sizeof *v);
                break;
        case VC_U8:
                for (size_t i = 0; i < n; i++)
                        d[i] = (uint8_t)u[i];
                break;
        case VC_U16:
                for (size_t i = 0; i < n; i++) {
                        uint16_t x = (uint16_t)u[i];
                        memcpy(d + 2 * i, &x, 2);
                }
                break;
        case VC_U32:
                memcpy(d, u, n * sizeof *u);
                break;
        case VC_ONE: /* nothing to keep but the value */
                break;
        }
}

/* m narrow values of kind kd at e as doubles. With SSE2, four at a time: a 32-bit value v
 * put under the exponent bits of 2^52 is the double 2^52 + v exactly, less 2^52: v. */
static void widen(enum vcode_kind kd, const unsigned char *restrict e, double *restrict out,
                  size_t m)
{
        size_t i = 0;
#if defined(__SSE2__)
        const __m128i hi = _mm_set1_epi32(0x43300000), zero = _mm_setzero_si128();
        const __m128d bias = _mm_set1_pd(4503599627370496.0);
        for (; i + 4 <= m; i += 4) {
                __m128i x; /* four 32-bit values */
                if (kd == VC_U8) {
                        int32_t w;
                        memcpy(&w, e + i, 4);
                        x = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(w), zero),
                                               zero);
                } else if (kd == VC_U16) {
                        x = _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(e + 2 * i)),
                                               zero);
                } else {
                        x = _mm_loadu_si128((const __m128i *)(e + 4 * i));
                }
                _mm_storeu_pd(out + i,
                              _mm_sub_pd(_mm_castsi128_pd(_mm_unpacklo_epi32(x, hi)), bias));
                _mm_storeu_pd(out + i + 2,
                              _mm_sub_pd(_mm_castsi128_pd(_mm_unpackhi_epi32(x, hi)), bias));
        }
#endif
        for (; i < m; i++) {
                uint32_t x = kd == VC_U8 ? e[i] : 0;
                if (kd == VC_U16) {
                        uint16_t h;
                        memcpy(&h, e + 2 * i, 2);
                        x = h;
                } else if (kd == VC_U32) {
                        memcpy(&x, e + 4 * i, 4);
                }
                out[i] = x;
        }
}

void vcode_get(enum vcode_kind k, const unsigned char *d, uint64_t one, double *out, size_t n)
{
        if (k == VC_ONE) {
                double x;
                memcpy(&x, &one, sizeof x);
                for (size_t i = 0; i < n; i++)
                        out[i] = x;
        } else if (k == VC_F64) {
                memmove(out, d, n * sizeof *out);
        } else {
                widen(k, d, out, n);
        }
}

void vcoder_free(struct vcoder *c)
{
        free(c->u);
        c->u = NULL;
        c->capu = 0;
}

int vappend_flush(struct vappend *w)
{
        int ok = !w->len ||
                 pwrite(fileno(w->f), w->buf, w->len, (off_t)w->end) == (ssize_t)w->len;
        w->end += (long long)w->len;
        w->len = 0;
        return ok ? 0 : -1;
}

int vappend_block(struct vappend *w, const struct vcoder *c, enum vcode_kind k,
                  const double *v, size_t n, long long *at)
{
        size_t bytes = vcode_bytes(k, n);
        if (w->len + bytes > w->cap && vappend_flush(w))
                return -1;
        *at = w->end + (long long)w->len;
        if (bytes > w->cap) {
                /* coded apart (doubles are v itself) and written at once */
                unsigned char *d = k == VC_F64 ? NULL : xmalloc(bytes);
                if (d)
                        vcode_put(c, k, v, n, d);
                const void *src = d ? (const void *)d : (const void *)v;
                int ok = pwrite(fileno(w->f), src, bytes, (off_t)w->end) == (ssize_t)bytes;
                free(d);
                w->end += (long long)bytes;
                return ok ? 0 : -1;
        }
        if (!w->buf)
                w->buf = xmalloc(w->cap);
        vcode_put(c, k, v, n, w->buf + w->len);
        w->len += bytes;
        return 0;
}

void vappend_free(struct vappend *w)
{
        free(w->buf);
        w->buf = NULL;
        w->len = 0;
}
