/* Streamed workloads: per-dispatch tables read once, chunk by chunk, into a temporary file
 * of column blocks (wstream.h). */
#include "wstream.h"
#include "cellcheck.h"

#include "columns.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct spill_table {
        int used;
        struct table head; /* the columns, no rows */
        size_t nrows;
        long long *off;    /* per block and column (ncols + 1 of them, the last the rows'
                            * lines): where its values are */
        unsigned char *kind; /* the same: how they are stored (enum spill_kind) */
        size_t *n;         /* per block: its rows */
        size_t nblk, cap, capoff;
};

/* A column of a block is stored as doubles, or, where every value is a whole number from
 * 0 to 2^32 - 1 (most counter values), in 1, 2 or 4 bytes each: less to write and read
 * back, and the same doubles when read. A block whose values are all the same (bit for
 * bit: a counter of a unit the kernels leave idle stays 0) is that value alone, kept in
 * its offset's place: nothing written, nothing read back. */
enum spill_kind { SK_F64, SK_U8, SK_U16, SK_U32, SK_CONST };
static const size_t kind_width[] = {8, 1, 2, 4, 0};

struct wspill {
        FILE *f;
        struct spill_table *t;
        size_t nt;
        /* encoded columns waiting to be written at wend */
        unsigned char *wbuf;
        size_t wlen;
        long long wend;
        uint32_t *ubuf;      /* spill_put's values as 32 bits */
        size_t capu;
};

#define WBUF (1 << 20)

static int spill_flush(struct wspill *s)
{
        int ok = !s->wlen ||
                 pwrite(fileno(s->f), s->wbuf, s->wlen, (off_t)s->wend) == (ssize_t)s->wlen;
        s->wend += (long long)s->wlen;
        s->wlen = 0;
        return ok ? 0 : -1;
}

/* v[i..n) checked and copied one at a time, as spill_whole32 does: 1 with *bits updated, or 0 */
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

int spill_whole32(const double *v, size_t n, uint32_t *u, uint32_t *bits, int simd)
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

/* v (n values) appended to the spill as the narrowest kind that holds them exactly; *off and
 * *kind say where and how. One pass converts and checks (into u, 32 bits a value), a second
 * narrows what it holds. */
static int spill_put(struct wspill *s, const double *v, size_t n, long long *off,
                     unsigned char *kind)
{
        if (!s->wbuf)
                s->wbuf = xmalloc(WBUF);
        /* one value throughout? (a differing one usually comes at once; a counter that
         * stays 0 is read to the end, eight values at a time) */
        uint64_t v0 = 0, x0;
        if (n)
                memcpy(&v0, v, sizeof v0);
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
        for (; same < n; same++) {
                memcpy(&x0, v + same, sizeof x0);
                if (x0 != v0)
                        break;
        }
        if (n && same == n) {
                memcpy(off, &v0, sizeof *off);
                *kind = SK_CONST;
                return 0;
        }
        if (n > s->capu) {
                s->capu = n;
                s->ubuf = xrealloc(s->ubuf, n * sizeof *s->ubuf);
        }
        uint32_t *u = s->ubuf, bits = 0;
        enum spill_kind k = n * sizeof *v <= WBUF && spill_whole32(v, n, u, &bits, 1) ? SK_U32 : SK_F64;
        if (k != SK_F64)
                k = bits < 256 ? SK_U8 : bits < 65536 ? SK_U16 : SK_U32;
        size_t bytes = n * kind_width[k];
        if (s->wlen + bytes > WBUF && spill_flush(s))
                return -1;
        *off = s->wend + (long long)s->wlen;
        *kind = (unsigned char)k;
        if (bytes > WBUF) { /* doubles of a block over WBUF (never at SPILL_CHUNK rows) */
                int ok = pwrite(fileno(s->f), v, bytes, (off_t)s->wend) == (ssize_t)bytes;
                s->wend += (long long)bytes;
                return ok ? 0 : -1;
        }
        unsigned char *d = s->wbuf + s->wlen;
        switch (k) {
        case SK_F64:
                memcpy(d, v, bytes);
                break;
        case SK_U8:
                for (size_t i = 0; i < n; i++)
                        d[i] = (uint8_t)u[i];
                break;
        case SK_U16:
                for (size_t i = 0; i < n; i++) {
                        uint16_t x = (uint16_t)u[i];
                        memcpy(d + 2 * i, &x, 2);
                }
                break;
        case SK_U32:
        case SK_CONST: /* (not here) */
                memcpy(d, u, bytes);
                break;
        }
        s->wlen += bytes;
        return 0;
}

static void head_of(struct table *h, const struct table *t)
{
        table_init(h);
        for (size_t c = 0; c < t->ncols; c++)
                table_add_col(h, t->names[c]);
}

/* the rows of chunk t into resident: their lines (keep_lines), then each column it keeps
 * (keep_col: column c of t into column rc of resident, from row r0 on) */
static void keep_lines(struct table *res, const struct table *t)
{
        size_t r0 = res->nrows, n = t->nrows;
        table_reserve(res, r0 + n); /* text slots past nrows are NULL */
        for (size_t r = 0; r < n; r++)
                res->line[r0 + r] = t->line ? t->line[r] : 0;
        res->nrows = r0 + n;
}

static void keep_col(struct table *res, size_t r0, int rc, const struct table *t, size_t c)
{
        size_t n = t->nrows;
        memcpy(res->num[rc] + r0, t->num[c], n * sizeof *t->num[c]);
        for (size_t r = 0; t->str[c] && r < n; r++)
                if (t->str[c][r])
                        table_set_str(res, rc, r0 + r, t->str[c][r]);
}

static const struct table *csv_next(void *ctx, size_t max_rows, struct err *err)
{
        return table_stream_next(ctx, max_rows, err);
}

static size_t csv_row0(void *ctx)
{
        return table_stream_row0(ctx);
}

int spill_load(struct wspill **sp, size_t ti, const char *path, table_col_fn keep,
               void *keep_ctx, table_col_fn want, void *want_ctx, struct table *resident,
               struct err *err)
{
        struct tstream *ts = table_stream_open(path, want, want_ctx, err);
        if (!ts) {
                table_init(resident);
                return ERR_INPUT;
        }
        struct spill_src src = {table_stream_table(ts), csv_next, csv_row0, ts, 0};
        int rc = spill_load_src(sp, ti, path, &src, keep, keep_ctx, resident, err);
        table_stream_close(ts);
        return rc;
}

int spill_load_src(struct wspill **sp, size_t ti, const char *path, struct spill_src *src,
                   table_col_fn keep, void *keep_ctx, struct table *resident, struct err *err)
{
        table_init(resident);
        table_pool(resident); /* a kernel name once, not once per dispatch */
        if (!*sp)
                *sp = xcalloc(1, sizeof **sp);
        struct wspill *s = *sp;
        if (!s->f && !(s->f = tmp_file()))
                return err_set(err, ERR_SYS, "cannot create a temporary file for '%s'", path);
        if (ti >= s->nt) {
                s->t = xrealloc(s->t, (ti + 1) * sizeof *s->t);
                memset(s->t + s->nt, 0, (ti + 1 - s->nt) * sizeof *s->t);
                s->nt = ti + 1;
        }
        struct spill_table *st = &s->t[ti];
        if (st->used) { /* a table that failed to load before takes this place again */
                table_free(&st->head);
                free(st->off);
                free(st->kind);
                free(st->n);
        }
        memset(st, 0, sizeof *st);
        st->used = 1;
        const struct table *h = src->head;
        head_of(&st->head, h);
        /* the resident columns, in file order */
        int *map = xcalloc(h->ncols + 1, sizeof *map);
        for (size_t c = 0; c < h->ncols; c++)
                map[c] = keep && keep(keep_ctx, h->names[c]) ? table_add_col(resident, h->names[c])
                                                             : -1;
        struct cellcheck *cc = src->checked ? NULL : cellcheck_new();
        int rc = 0;
        const struct table *t;
        while ((t = src->next(src->ctx, SPILL_CHUNK, err)) && t->nrows) {
                size_t row0 = src->row0(src->ctx);
                /* checked as a loaded table is (the chunk is the source's own), each
                 * column just before it is kept and written on (one pass from memory) */
                if (cc)
                        cellcheck_begin(cc, (struct table *)t, path, row0);
                size_t r0 = resident->nrows;
                if (keep)
                        keep_lines(resident, t);
                size_t nc = t->ncols + 1;
                xgrow(&st->n, &st->cap, st->nblk + 1, sizeof *st->n);
                xgrow(&st->off, &st->capoff, (st->nblk + 1) * nc, sizeof *st->off);
                st->kind = xrealloc(st->kind, st->capoff);
                st->n[st->nblk] = t->nrows;
                long long *off = st->off + st->nblk * nc;
                unsigned char *kind = st->kind + st->nblk * nc;
                st->nblk++;
                st->nrows += t->nrows;
                for (size_t c = 0; c < t->ncols && !rc; c++) {
                        if (cc)
                                cellcheck_col(cc, (struct table *)t, c, path, row0);
                        if (keep && map[c] >= 0)
                                keep_col(resident, r0, map[c], t, c);
                        if (spill_put(s, t->num[c], t->nrows, &off[c], &kind[c]))
                                rc = err_set(err, ERR_SYS,
                                             "cannot write a temporary file for '%s'", path);
                }
                /* and the rows' lines, for messages about them */
                double *ln = xmalloc((t->nrows ? t->nrows : 1) * sizeof *ln);
                for (size_t r = 0; r < t->nrows; r++)
                        ln[r] = t->line ? (double)t->line[r] : (double)(row0 + r + 2);
                if (!rc && spill_put(s, ln, t->nrows, &off[t->ncols], &kind[t->ncols]))
                        rc = err_set(err, ERR_SYS, "cannot write a temporary file for '%s'",
                                     path);
                free(ln);
                if (rc)
                        break;
        }
        if (!t && !rc)
                rc = ERR_INPUT; /* the stream's error */
        if (!rc && spill_flush(s))
                rc = err_set(err, ERR_SYS, "cannot write a temporary file for '%s'", path);
        free(map);
        if (!rc && !cc) {
                /* values checked before (a database): the rows' count only */
                if (!keep)
                        resident->nrows = st->nrows;
        } else if (!rc && keep) {
                resident->dup = h->dup ? xstrdup(h->dup) : NULL;
                cellcheck_report(cc, resident, h->dup, path);
        } else if (!rc) {
                /* no rows kept: the rows' count, and for the check of repeated ids the
                 * Dispatch_ID column and the lines read back for a moment */
                resident->nrows = st->nrows;
                struct table ids;
                table_init(&ids);
                int cid = table_col(h, COL_DISPATCH_ID);
                if (cid >= 0) {
                        int c = table_add_col(&ids, COL_DISPATCH_ID);
                        for (size_t k = 0; k < st->nblk; k++) {
                                size_t n = 0;
                                double *v = xmalloc(SPILL_CHUNK * 2 * sizeof *v);
                                if (spill_read(s, ti, k, cid, v, &n) ||
                                    spill_read(s, ti, k, (int)h->ncols, v + SPILL_CHUNK, &n))
                                        n = 0;
                                for (size_t r = 0; r < n; r++) {
                                        size_t rr = table_add_row(&ids);
                                        ids.num[c][rr] = v[r];
                                        ids.line[rr] = (size_t)v[SPILL_CHUNK + r];
                                }
                                free(v);
                        }
                }
                cellcheck_report(cc, &ids, h->dup, path);
                table_free(&ids);
        } else {
                if (cc)
                        cellcheck_discard(cc);
                table_free(resident);
        }
        return rc;
}

const struct table *spill_head(const struct wspill *s, size_t ti)
{
        return s && ti < s->nt && s->t[ti].used ? &s->t[ti].head : NULL;
}

size_t spill_rows(const struct wspill *s, size_t ti)
{
        return s && ti < s->nt && s->t[ti].used ? s->t[ti].nrows : 0;
}

size_t spill_block_rows(const struct wspill *s, size_t ti, size_t k)
{
        return s && ti < s->nt && s->t[ti].used && k < s->t[ti].nblk ? s->t[ti].n[k] : 0;
}

/* m narrow values of kind kd at e as doubles. With SSE2, four at a time: a 32-bit value v
 * put under the exponent bits of 2^52 is the double 2^52 + v exactly, less 2^52: v. */
static void widen(enum spill_kind kd, const unsigned char *restrict e, double *restrict out,
                  size_t m)
{
        size_t i = 0;
#if defined(__SSE2__)
        const __m128i hi = _mm_set1_epi32(0x43300000), zero = _mm_setzero_si128();
        const __m128d bias = _mm_set1_pd(4503599627370496.0);
        for (; i + 4 <= m; i += 4) {
                __m128i x; /* four 32-bit values */
                if (kd == SK_U8) {
                        int32_t w;
                        memcpy(&w, e + i, 4);
                        x = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(w), zero),
                                               zero);
                } else if (kd == SK_U16) {
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
                uint32_t x = kd == SK_U8 ? e[i] : 0;
                if (kd == SK_U16) {
                        uint16_t h;
                        memcpy(&h, e + 2 * i, 2);
                        x = h;
                } else if (kd == SK_U32) {
                        memcpy(&x, e + 4 * i, 4);
                }
                out[i] = x;
        }
}

int spill_read(const struct wspill *s, size_t ti, size_t k, int c, double *out, size_t *n)
{
        const struct spill_table *st = &s->t[ti];
        *n = k < st->nblk ? st->n[k] : 0;
        if (!*n)
                return 0;
        /* column c, or c == ncols for the rows' lines */
        size_t at = k * (st->head.ncols + 1) + (size_t)c;
        enum spill_kind kd = (enum spill_kind)st->kind[at];
        size_t m = *n, bytes = m * kind_width[kd];
        if (kd == SK_CONST) {
                double x;
                memcpy(&x, &st->off[at], sizeof x);
                for (size_t i = 0; i < m; i++)
                        out[i] = x;
                return 0;
        }
        /* narrow values go to rbuf (the caller's stack: two threads read one spill) and
         * are widened into out; beyond rbuf's room (a block longer than SPILL_CHUNK rows),
         * through a copy; doubles straight into out */
        unsigned char rbuf[SPILL_CHUNK * 4];
        unsigned char *e = kd != SK_F64 && bytes <= sizeof rbuf
                               ? rbuf
                               : (unsigned char *)out + m * sizeof *out - bytes;
        if (pread(fileno(s->f), e, bytes, (off_t)st->off[at]) != (ssize_t)bytes)
                return -1;
        if (e == rbuf)
                widen(kd, rbuf, out, m);
        else if (kd != SK_F64) {
                unsigned char *c = xmalloc(bytes);
                memcpy(c, e, bytes);
                widen(kd, c, out, m);
                free(c);
        }
        return 0;
}

void spill_free(struct wspill *s)
{
        if (!s)
                return;
        for (size_t i = 0; i < s->nt; i++) {
                table_free(&s->t[i].head);
                free(s->t[i].off);
                free(s->t[i].kind);
                free(s->t[i].n);
        }
        free(s->t);
        free(s->wbuf);
        free(s->ubuf);
        if (s->f)
                fclose(s->f);
        free(s);
}
