/* Control characters in text a person sees (esc.h). */
#include "esc.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* bytes of the UTF-8 sequence that lead byte c starts (0: no lead byte) */
static size_t u8need(unsigned char c)
{
        return c >= 0xC2 && c <= 0xDF   ? 2
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
}

/* 1 when s[0..len) is one well-formed sequence of len bytes (len from u8need) */
static int u8whole(const unsigned char *s, size_t len)
{
        for (size_t i = 1; i < len; i++)
                if ((s[i] & 0xC0) != 0x80)
                        return 0;
        return 1;
}

/* How many of the 8 bytes at s, from the first, are printable ASCII (0x20..0x7e). A flag
 * in the high bit of each byte that is not: its own high bit, x - 0x20 borrowing (below
 * 0x20), x ^ 0x7f being zero (0x7f). A borrow can flag a byte above a flagged one, never
 * one below: the lowest flag is exact. */
static size_t ascii8(const unsigned char *s)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
        uint64_t w, d;
        memcpy(&w, s, 8);
        d = w ^ (ones * 0x7f);
        uint64_t m = (w | ((w - ones * 0x20) & ~w) | ((d - ones) & ~d)) & highs;
        return m ? (size_t)__builtin_ctzll(m) / 8 : 8;
#else
        size_t i = 0;
        while (i < 8 && s[i] >= 0x20 && s[i] < 0x7f)
                i++;
        return i;
#endif
}

#if defined(__SSE2__)
/* How many of the 16 bytes at s, from the first, are kept as they are, when all are of
 * kinds kept whole: printable ASCII, a tab, a newline where flags keep it, and whole
 * three-byte UTF-8 sequences (lead 0xE0..0xEF and two continuation bytes, as esc_run's own
 * fast check takes them; a report's box drawing). A sequence that the block cuts is left
 * for the next block (14 or 15 then); 0 when the block has any other byte. */
static size_t kept16(const unsigned char *s, int flags)
{
        const __m128i x = _mm_loadu_si128((const __m128i *)s);
        /* printable ASCII: 0x20..0x7e, signed (bytes from 0x80 on are negative) */
        __m128i ok = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(0x1f)),
                                   _mm_cmplt_epi8(x, _mm_set1_epi8(0x7f)));
        ok = _mm_or_si128(ok, _mm_cmpeq_epi8(x, _mm_set1_epi8('\t')));
        if (flags & ESC_KEEP_NL)
                ok = _mm_or_si128(ok, _mm_cmpeq_epi8(x, _mm_set1_epi8('\n')));
        unsigned ascii = (unsigned)_mm_movemask_epi8(ok);
        if (ascii == 0xFFFFu)
                return 16;
        unsigned lead = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_and_si128(x, _mm_set1_epi8((char)0xF0)), _mm_set1_epi8((char)0xE0)));
        unsigned cont = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_and_si128(x, _mm_set1_epi8((char)0xC0)), _mm_set1_epi8((char)0x80)));
        /* every byte one of the three kinds; each continuation byte one of the two after a
         * lead, each lead followed by two (as far as the block goes) */
        if ((ascii | lead | cont) != 0xFFFFu || cont != ((lead << 1 | lead << 2) & 0xFFFFu))
                return 0;
        return lead & 0x4000u ? 14 : lead & 0x8000u ? 15 : 16;
}
#endif

/* Appends s[0..n) escaped; returns how many bytes at its end it left (an incomplete but
 * possibly well-formed UTF-8 sequence) when partial, else 0 */
static size_t esc_run(struct strbuf *sb, const unsigned char *s, size_t n, int flags,
                      int partial)
{
        size_t i = 0, run = 0, simd_at = 0;
        while (i < n) {
#if defined(__SSE2__)
                /* sixteen kept bytes at a time where a block is all kept; where it is not,
                 * the checks below take the next sixteen bytes before a block is tried
                 * again */
                if (i >= simd_at && i + 16 <= n) {
                        size_t k = kept16(s + i, flags);
                        if (k) {
                                run += k;
                                i += k;
                                continue;
                        }
                        simd_at = i + 16;
                }
#endif
                /* the common kept bytes first: printable ASCII (up to eight at a time), and
                 * whole three-byte sequences (a report's box-drawing lines), as
                 * the checks below keep them */
                unsigned char c = s[i];
                if (c >= 0x20 && c < 0x7f) {
                        size_t k = i + 8 <= n ? ascii8(s + i) : 1;
                        run += k;
                        i += k;
                        continue;
                }
                if (i + 3 <= n && ((c & 0xF0u) | (s[i + 1] & 0xC0u) << 8 |
                                   (s[i + 2] & 0xC0u) << 16) == 0x8080E0u) {
                        run += 3;
                        i += 3;
                        continue;
                }
                size_t len = 1;
                int bad = 0;
                if (c < 0x20) {
                        bad = !(c == '\t' || (c == '\n' && (flags & ESC_KEEP_NL)));
                } else if (c == 0x7f) {
                        bad = 1;
                } else if (c >= 0x80) {
                        size_t need = u8need(c);
                        if (need && i + need > n && partial) {
                                if (u8whole(s + i, n - i)) { /* the rest comes later */
                                        if (run)
                                                sb_addn(sb, (const char *)s + i - run, run);
                                        return n - i;
                                }
                        }
                        if (need && i + need <= n && u8whole(s + i, need)) {
                                len = need;
                                /* U+0080 .. U+009F: C1 controls (CSI, OSC, ...) */
                                bad = c == 0xC2 && s[i + 1] < 0xA0 ? 2 : 0;
                        } else {
                                bad = c < 0xA0; /* a lone 8-bit C1 control */
                        }
                }
                if (!bad) {
                        run += len;
                        i += len;
                        continue;
                }
                if (run)
                        sb_addn(sb, (const char *)s + i - run, run);
                run = 0;
                if (bad == 2)
                        sb_addf(sb, "\\u%04x", s[i + 1]);
                else if (c == '\n')
                        sb_add(sb, "\\n");
                else if (c == '\r')
                        sb_add(sb, "\\r");
                else
                        sb_addf(sb, "\\x%02x", c);
                i += len;
        }
        if (run)
                sb_addn(sb, (const char *)s + n - run, run);
        return 0;
}

int esc_needed(const char *str, size_t n, int flags)
{
        const unsigned char *s = (const unsigned char *)str;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = s[i];
                if (c >= 0x20 && c < 0x7f)
                        continue;
                if (c < 0x20) {
                        if (!(c == '\t' || (c == '\n' && (flags & ESC_KEEP_NL))))
                                return 1;
                        continue;
                }
                if (c == 0x7f)
                        return 1;
                size_t need = u8need(c);
                if (need && i + need <= n && u8whole(s + i, need)) {
                        if (c == 0xC2 && s[i + 1] < 0xA0)
                                return 1;
                        i += need - 1;
                } else if (c < 0xA0) {
                        return 1;
                }
        }
        return 0;
}

void esc_append(struct strbuf *sb, const char *s, size_t n, int flags)
{
        esc_run(sb, (const unsigned char *)s, n, flags, 0);
}

/* ---- a stream that escapes what goes through it ---- */

struct escf {
        FILE *to;
        unsigned char pend[4]; /* the start of a UTF-8 sequence the next write completes */
        size_t npend;
        struct strbuf sb, join;
        int failed;
};

/* buf[0..n) after the pending bytes, escaped, to e->to; partial: an incomplete sequence at
 * the end waits for the next write */
static int escf_put(struct escf *e, const char *buf, size_t n, int partial)
{
        const unsigned char *s = (const unsigned char *)buf;
        size_t len = n;
        if (e->npend) {
                sb_reset(&e->join);
                sb_addn(&e->join, (const char *)e->pend, e->npend);
                if (n)
                        sb_addn(&e->join, buf, n);
                s = (const unsigned char *)e->join.buf;
                len = e->join.len;
                e->npend = 0;
        }
        sb_reset(&e->sb);
        size_t left = len ? esc_run(&e->sb, s, len, ESC_KEEP_NL, partial) : 0;
        if (left) {
                memcpy(e->pend, s + len - left, left);
                e->npend = left;
        }
        if (e->sb.len && fwrite(e->sb.buf, 1, e->sb.len, e->to) != e->sb.len) {
                e->failed = errno ? errno : EIO;
                return -1;
        }
        return 0;
}

static ssize_t escf_write(void *p, const char *buf, size_t n)
{
        struct escf *e = p;
        if (e->failed || escf_put(e, buf, n, 1)) {
                errno = e->failed ? e->failed : EIO;
                return -1;
        }
        return (ssize_t)n;
}

static void escf_forget(struct escf *e);

static int escf_close(void *p)
{
        struct escf *e = p;
        escf_forget(e);
        int rc = e->failed || escf_put(e, "", 0, 0) ? -1 : 0;
        if (fflush(e->to) != 0 || ferror(e->to))
                rc = -1;
        sb_free(&e->sb);
        sb_free(&e->join);
        free(e);
        return rc;
}

const char *esc_view(const char *s, struct strbuf *tmp, int flags)
{
        size_t n = strlen(s);
        if (!esc_needed(s, n, flags))
                return s;
        esc_append(tmp, s, n, flags);
        return tmp->buf;
}

/* The escaping streams open now and their cookies (a report has one; the TUI none) */
static struct {
        FILE *f;
        struct escf *e;
} open_esc[4];
static pthread_mutex_t open_mu = PTHREAD_MUTEX_INITIALIZER;

static struct escf *escf_of(FILE *f)
{
        struct escf *e = NULL;
        pthread_mutex_lock(&open_mu);
        for (size_t i = 0; i < sizeof open_esc / sizeof open_esc[0] && !e; i++)
                if (open_esc[i].f == f)
                        e = open_esc[i].e;
        pthread_mutex_unlock(&open_mu);
        return e;
}

static void escf_forget(struct escf *e)
{
        pthread_mutex_lock(&open_mu);
        for (size_t i = 0; i < sizeof open_esc / sizeof open_esc[0]; i++)
                if (open_esc[i].e == e)
                        open_esc[i].f = NULL, open_esc[i].e = NULL;
        pthread_mutex_unlock(&open_mu);
}

FILE *esc_stream(FILE *to)
{
        struct escf *e = xcalloc(1, sizeof *e);
        e->to = to;
        cookie_io_functions_t io = {.write = escf_write, .close = escf_close};
        FILE *f = fopencookie(e, "w", io);
        if (!f) {
                free(e);
                return to;
        }
        setvbuf(f, NULL, _IOFBF, 1 << 16);
        pthread_mutex_lock(&open_mu);
        for (size_t i = 0; i < sizeof open_esc / sizeof open_esc[0]; i++)
                if (!open_esc[i].f) {
                        open_esc[i].f = f;
                        open_esc[i].e = e;
                        break;
                }
        pthread_mutex_unlock(&open_mu);
        return f;
}

int esc_is_stream(FILE *f)
{
        return escf_of(f) != NULL;
}

int esc_put_escaped(FILE *f, const char *buf, size_t n)
{
        struct escf *e = escf_of(f);
        if (!e)
                return n && fwrite(buf, 1, n, f) != n ? -1 : 0;
        /* what f holds goes first, a cut sequence at its end with it: the text before
         * buf ends on a whole character as buf does */
        if (fflush(f) != 0 || e->failed || (e->npend && escf_put(e, "", 0, 0)))
                return -1;
        if (n && fwrite(buf, 1, n, e->to) != n) {
                e->failed = errno ? errno : EIO;
                return -1;
        }
        return 0;
}
