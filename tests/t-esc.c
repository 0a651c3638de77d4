/* util/esc.c: control characters shown escaped (ESC, OSC, BEL, C1 as UTF-8 and as a lone
 * byte), everything else byte for byte (UTF-8, tabs, newlines in a report); the escaping
 * stream gives the same bytes however its writes are split (a UTF-8 sequence cut between
 * two), and its close fails when the stream under it could not be written (/dev/full). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/esc.h"

static char *esc(const char *s, int flags)
{
        struct strbuf sb = {0};
        esc_append(&sb, s, strlen(s), flags);
        return sb.buf ? sb.buf : xstrdup("");
}

static void test_strings(void **state)
{
        (void)state;
        static const struct {
                const char *in, *out;
                int flags;
        } cases[] = {
            {"plain kernel<int>(float*)", "plain kernel<int>(float*)", 0},
            {"box \xe2\x94\x82 \xc3\xa9 \xf0\x9f\x98\x80", "box \xe2\x94\x82 \xc3\xa9 \xf0\x9f\x98\x80", 0},
            {"a\x1b[2Jb", "a\\x1b[2Jb", 0},
            {"t\x1b]0;title\x07", "t\\x1b]0;title\\x07", 0},
            {"c1 \xc2\x9b" "31m", "c1 \\u009b31m", 0},
            {"nbsp \xc2\xa0 stays", "nbsp \xc2\xa0 stays", 0},
            {"lone \x9b byte", "lone \\x9b byte", 0},
            {"latin1 \xe9 stays", "latin1 \xe9 stays", 0},
            {"del\x7f", "del\\x7f", 0},
            {"tab\tstays", "tab\tstays", 0},
            {"nl\nr\r", "nl\\nr\\r", 0},
            {"nl\nkept", "nl\nkept", ESC_KEEP_NL},
            /* a cut sequence: its lead byte as it is, a 0x80..0x9F byte a lone C1 */
            {"cut \xe2\x94", "cut \xe2\\x94", 0},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                char *o = esc(cases[i].in, cases[i].flags);
                if (strcmp(o, cases[i].out))
                        fail_msg("case %zu: '%s', want '%s'", i, o, cases[i].out);
                assert_int_equal(esc_needed(cases[i].in, strlen(cases[i].in), cases[i].flags),
                                 strcmp(cases[i].in, cases[i].out) != 0);
                free(o);
        }
}

/* one byte that printable ASCII does not cover, at each place in a long printable run (the
 * run is read eight bytes at a time): escaped as it is alone, the run around it kept */
static void test_byte_in_run(void **state)
{
        (void)state;
        static const char bad[] = {'\x00', '\x01', '\t', '\n', '\x1b', '\x1f', '\x7f',
                                   '\x80', '\x9b', '\xc2', '\xe9', '\xff'};
        char run[40];
        for (size_t b = 0; b < sizeof bad; b++)
                for (size_t at = 0; at < 24; at++) {
                        for (size_t i = 0; i < sizeof run; i++)
                                run[i] = (char)(' ' + (i * 7 + b) % 95); /* 0x20..0x7e */
                        run[at] = bad[b];
                        struct strbuf got = {0}, one = {0}, want = {0};
                        esc_append(&got, run, sizeof run, 0);
                        esc_append(&one, run + at, 1, 0);
                        sb_addn(&want, run, at);
                        sb_addn(&want, one.buf, one.len);
                        sb_addn(&want, run + at + 1, sizeof run - at - 1);
                        assert_true(one.len > 1 || bad[b] == '\t' || (unsigned char)bad[b] >= 0xA0);
                        if (got.len != want.len || memcmp(got.buf, want.buf, got.len))
                                fail_msg("byte 0x%02x at %zu", (unsigned char)bad[b], at);
                        sb_free(&got);
                        sb_free(&one);
                        sb_free(&want);
                }
}

/* text through the stream in writes of k bytes = esc_append of it all */
static void test_stream_splits(void **state)
{
        (void)state;
        const char *text = "k \xe2\x94\x82\x1b[1m\xc2\x9b\xc3\xa9\nline 2\x07 \xf0\x9f\x98\x80 end\n";
        size_t n = strlen(text);
        char *want = esc(text, ESC_KEEP_NL);
        for (size_t k = 1; k <= n; k++) {
                char *buf = NULL;
                size_t len = 0;
                FILE *to = open_memstream(&buf, &len);
                assert_non_null(to);
                FILE *f = esc_stream(to);
                assert_true(f != to);
                setvbuf(f, NULL, _IONBF, 0); /* every fwrite reaches the filter as it is */
                for (size_t at = 0; at < n; at += k)
                        assert_int_equal(fwrite(text + at, 1, at + k <= n ? k : n - at, f),
                                         at + k <= n ? k : n - at);
                assert_int_equal(fclose(f), 0);
                fclose(to);
                if (strcmp(buf, want))
                        fail_msg("writes of %zu: '%s', want '%s'", k, buf, want);
                free(buf);
        }
        free(want);
}

static void test_stream_full(void **state)
{
        (void)state;
        FILE *to = fopen("/dev/full", "w");
        if (!to)
                skip();
        FILE *f = esc_stream(to);
        for (int i = 0; i < 20000; i++)
                fputs("a line of the report\n", f);
        assert_int_not_equal(fclose(f), 0);
        fclose(to);
}

/* The rules written out plainly, a character at a time (esc.h), to hold the escaping's
 * fast paths (eight ASCII bytes, sixteen kept bytes, box drawing) against */
static void reference(struct strbuf *sb, const unsigned char *s, size_t n, int flags)
{
        for (size_t i = 0; i < n;) {
                unsigned char c = s[i];
                if ((c >= 0x20 && c < 0x7f) || c == '\t' || (c == '\n' && (flags & ESC_KEEP_NL))) {
                        sb_addc(sb, (char)c);
                        i++;
                        continue;
                }
                if (c < 0x20 || c == 0x7f) {
                        if (c == '\n')
                                sb_add(sb, "\\n");
                        else if (c == '\r')
                                sb_add(sb, "\\r");
                        else
                                sb_addf(sb, "\\x%02x", c);
                        i++;
                        continue;
                }
                size_t need = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                              : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
                int whole = need && i + need <= n;
                for (size_t k = 1; whole && k < need; k++)
                        whole = (s[i + k] & 0xC0) == 0x80;
                if (whole && c == 0xC2 && s[i + 1] < 0xA0) {
                        sb_addf(sb, "\\u%04x", s[i + 1]);
                        i += 2;
                } else if (whole) {
                        sb_addn(sb, (const char *)s + i, need);
                        i += need;
                } else if (c < 0xA0) {
                        sb_addf(sb, "\\x%02x", c);
                        i++;
                } else {
                        sb_addc(sb, (char)c);
                        i++;
                }
        }
}

/* random texts, mostly what a report holds (ASCII, box drawing, newlines) with controls,
 * cut and stray UTF-8 bytes and C1 controls put in at every distance from a 16-byte
 * block's edge: the same bytes as the plain rules give, with and without kept newlines */
static void test_random_vs_reference(void **state)
{
        (void)state;
        static const char *const pieces[] = {
            "a",  "Kernel", " ",  "\xe2\x94\x80", "\xe2\x95\x90", "\xe2\x94\x82", "\n", "\t",
            "\x1b", "\x7f", "\xc2\x9b", "\xc2\xa0", "\x9b", "\xe2", "\x94", "\xe9", "\xf0\x9f\x98\x80",
            "\xed\xa0\x80", "\r", "\xff", "0123456789abcdef"};
        const size_t np = sizeof pieces / sizeof pieces[0];
        unsigned x = 12345;
        for (int round = 0; round < 4000; round++) {
                struct strbuf in = {0}, got = {0}, want = {0};
                size_t len = (size_t)(round % 97) + 1;
                while (in.len < len) {
                        x = x * 1103515245u + 12345u;
                        unsigned r = (x >> 16) % 100;
                        /* three in four pieces ASCII or box drawing */
                        size_t k = r < 40 ? 0 : r < 55 ? 3 : r < 65 ? 4 : r < 75 ? 20 : (x >> 8) % np;
                        sb_add(&in, pieces[k]);
                }
                int flags = round & 1 ? ESC_KEEP_NL : 0;
                esc_append(&got, in.buf, in.len, flags);
                reference(&want, (const unsigned char *)in.buf, in.len, flags);
                if (got.len != want.len || memcmp(got.buf, want.buf, got.len))
                        fail_msg("round %d: %zu bytes escaped differently", round, in.len);
                assert_int_equal(esc_needed(in.buf, in.len, flags),
                                 want.len != in.len || memcmp(want.buf, in.buf, in.len) != 0);
                sb_free(&in);
                sb_free(&got);
                sb_free(&want);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_strings),
            cmocka_unit_test(test_byte_in_run),
            cmocka_unit_test(test_random_vs_reference),
            cmocka_unit_test(test_stream_splits),
            cmocka_unit_test(test_stream_full),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
