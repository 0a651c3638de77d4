/* Splitting a common CSV line (csvsplit.h). */
#include "csvsplit.h"

#include "../util/util.h"

#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <string.h>

/* bytes that end an unquoted field's scan: the delimiter and what needs a closer look */
static const unsigned char stop[256] = {[0] = 1, [','] = 1, ['"'] = 1, ['\r'] = 1, ['\n'] = 1};

static inline void add(struct csv_line *l, size_t at, size_t len)
{
        if (__builtin_expect(l->n == l->cap, 0)) {
                l->cap = l->cap ? 2 * l->cap : 1024;
                l->at = xrealloc(l->at, l->cap * sizeof *l->at);
                l->len = xrealloc(l->len, l->cap * sizeof *l->len);
        }
        l->at[l->n] = (uint32_t)at;
        l->len[l->n++] = (uint32_t)len;
}

static inline int blank(unsigned char c)
{
        return c == ' ' || c == '\t';
}

/* Which scan splits plain fields: chosen once from the processor (csv_split_level) */
static int level = -1;

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_X86 1
#include <immintrin.h>
#endif

#if defined(__SSE2__)
/* Plain fields (no blank, quote, CR, LF or NUL) from p on, 16 bytes at a time: each comma
 * ends one. Returns where the first byte that needs a closer look is; *start: where the
 * field that holds it begins. The line's '\n' is such a byte, so this stops on the line
 * (reading at most 15 bytes past it: the buffer has room). */
static const unsigned char *plain_fields(const unsigned char *p, const unsigned char *u,
                                         const unsigned char **start, struct csv_line *l)
{
        const __m128i comma = _mm_set1_epi8(','), quote = _mm_set1_epi8('"'),
                      cr = _mm_set1_epi8('\r'), lf = _mm_set1_epi8('\n'),
                      sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), nul = _mm_setzero_si128();
        const unsigned char *f = *start;
        for (;;) {
                __m128i x = _mm_loadu_si128((const __m128i *)p);
                unsigned cm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, comma));
                __m128i sx = _mm_or_si128(
                    _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, cr)),
                                 _mm_or_si128(_mm_cmpeq_epi8(x, lf), _mm_cmpeq_epi8(x, nul))),
                    _mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, tab)));
                unsigned sm = (unsigned)_mm_movemask_epi8(sx);
                if (sm)
                        cm &= (1u << __builtin_ctz(sm)) - 1;
                while (cm) {
                        const unsigned char *c = p + __builtin_ctz(cm);
                        add(l, (size_t)(f - u), (size_t)(c - f));
                        f = c + 1;
                        cm &= cm - 1;
                }
                if (sm) {
                        *start = f;
                        return p + __builtin_ctz(sm);
                }
                p += 16;
        }
}
#endif

#if defined(HAVE_X86) && defined(__GNUC__)
/* the same, 32 bytes at a time (AVX2, where the processor has it; the buffer has room for
 * 31 bytes past the line: table.c's reader keeps 32 readable bytes after its data) */
__attribute__((target("avx2"))) static const unsigned char *
plain_fields_avx2(const unsigned char *p, const unsigned char *u, const unsigned char **start,
                  struct csv_line *l)
{
        const __m256i comma = _mm256_set1_epi8(','), quote = _mm256_set1_epi8('"'),
                      cr = _mm256_set1_epi8('\r'), lf = _mm256_set1_epi8('\n'),
                      sp = _mm256_set1_epi8(' '), tab = _mm256_set1_epi8('\t'),
                      nul = _mm256_setzero_si256();
        const unsigned char *f = *start;
        for (;;) {
                __m256i x = _mm256_loadu_si256((const __m256i *)p);
                unsigned cm = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, comma));
                __m256i sx = _mm256_or_si256(
                    _mm256_or_si256(
                        _mm256_or_si256(_mm256_cmpeq_epi8(x, quote), _mm256_cmpeq_epi8(x, cr)),
                        _mm256_or_si256(_mm256_cmpeq_epi8(x, lf), _mm256_cmpeq_epi8(x, nul))),
                    _mm256_or_si256(_mm256_cmpeq_epi8(x, sp), _mm256_cmpeq_epi8(x, tab)));
                unsigned sm = (unsigned)_mm256_movemask_epi8(sx);
                if (sm)
                        cm &= (1u << __builtin_ctz(sm)) - 1;
                while (cm) {
                        const unsigned char *c = p + __builtin_ctz(cm);
                        add(l, (size_t)(f - u), (size_t)(c - f));
                        f = c + 1;
                        cm &= cm - 1;
                }
                if (sm) {
                        *start = f;
                        return p + __builtin_ctz(sm);
                }
                p += 32;
        }
}
#endif

int csv_split_level(int want)
{
        if (want >= 0) {
                level = want;
        } else if (level < 0) {
                const char *e = getenv("PRISM_CSV_SIMD");
                int best = CSV_SCAN_SCALAR;
#if defined(__SSE2__)
                best = CSV_SCAN_SSE2;
#endif
#if defined(HAVE_X86) && defined(__GNUC__)
                __builtin_cpu_init();
                if (__builtin_cpu_supports("avx2"))
                        best = CSV_SCAN_AVX2;
#endif
                level = best;
                if (e && !strcmp(e, "scalar"))
                        level = CSV_SCAN_SCALAR;
                else if (e && !strcmp(e, "sse2") && best >= CSV_SCAN_SSE2)
                        level = CSV_SCAN_SSE2;
        }
        return level;
}

int csv_split(const char *s, const char *e, struct csv_line *l)
{
        const unsigned char *p = (const unsigned char *)s, *u = (const unsigned char *)s;
        const unsigned char *end = (const unsigned char *)e;
        if ((size_t)(end - p) > UINT32_MAX)
                return -1;
        if (end > p && end[-1] == '\r')
                end--;
        l->n = 0;
        int lv = level >= 0 ? level : csv_split_level(-1);
        for (;;) {
#if defined(HAVE_X86) && defined(__GNUC__)
                if (lv == CSV_SCAN_AVX2) {
                        const unsigned char *f = p;
                        plain_fields_avx2(p, u, &f, l);
                        p = f; /* the field that needs a closer look */
                }
#endif
#if defined(__SSE2__)
                if (lv == CSV_SCAN_SSE2) {
                        const unsigned char *f = p;
                        plain_fields(p, u, &f, l);
                        p = f;
                }
#endif
                while (blank(*p))
                        p++;
                if (*p == '"') {
                        const unsigned char *q = p + 1;
                        q = memchr(q, '"', (size_t)(end - q));
                        if (!q || memchr(p + 1, 0, (size_t)(q - p - 1)))
                                return -1; /* goes on past the line, or holds a NUL */
                        const unsigned char *r = q + 1;
                        while (blank(*r))
                                r++;
                        if (r != end && *r != ',')
                                return -1; /* a doubled quote, text after the quote, '\r' */
                        add(l, (size_t)(p + 1 - u), (size_t)(q - p - 1));
                        p = r;
                } else {
                        const unsigned char *f = p;
                        while (!stop[*p])
                                p++;
                        if (*p != ',' && p != end)
                                return -1; /* a quote inside, a NUL, a lone '\r' */
                        const unsigned char *t = p;
                        while (t > f && blank(t[-1]))
                                t--;
                        /* nothing but blanks on the line: libcsv sees no record */
                        if (p == end && l->n == 0 && t == f)
                                return 0;
                        add(l, (size_t)(f - u), (size_t)(t - f));
                }
                if (p == end)
                        return 0;
                p++; /* the comma */
        }
}

void csv_line_free(struct csv_line *l)
{
        free(l->at);
        free(l->len);
        memset(l, 0, sizeof *l);
}
