/* The CSV loader: good, odd and malformed inputs as a table of cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/csvsplit.h"
#include "store/table.h"
#include "util/task.h"
#include "util/csvfield.h"
#include "util/numparse.h"

static char *write_tmp(const char *text)
{
        char *path = xstrdup("/tmp/prism-t-table-XXXXXX");
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
        return path;
}

struct good_case {
        const char *csv;
        size_t rows, cols;
        const char *col;  /* a column to check */
        size_t row;
        double num;       /* expected number (NaN: not a number) */
        const char *text; /* expected cell text */
};

static const struct good_case good[] = {
    {"a,b\n1,2\n3,4\n", 2, 2, "b", 1, 4, "4"},
    {"\xEF\xBB\xBF" "a,b\r\n1,2\r\n", 1, 2, "a", 0, 1, "1"},           /* BOM and CRLF */
    {"name,v\n\"x, y\",2.5\n", 1, 2, "name", 0, NAN, "x, y"},          /* quoted comma */
    {"name,v\n\"two\nlines\",1\n", 1, 2, "name", 0, NAN, "two\nlines"}, /* quoted newline */
    {"name,v\n\"say \"\"hi\"\"\",1\n", 1, 2, "name", 0, NAN, "say \"hi\""},
    {"k,v\n12,1\nabc,2\n", 2, 2, "k", 0, 12, "12"},                     /* text after number */
    {"k,v\n1,\n", 1, 2, "v", 0, NAN, ""},                                /* empty cell */
    {"k,v\n1,nan\n2,inf\n", 2, 2, "v", 1, INFINITY, "inf"},
    {"k,v\n1,2\n\n3,4\n", 2, 2, "k", 1, 3, "3"},                         /* blank line */
    {"k,v\n1,1e300\n", 1, 2, "v", 0, 1e300, NULL},
    {"a,b\n", 0, 2, "a", 0, 0, NULL},                                    /* header only */
    {"a,a#2,a\n1,2,3\n", 1, 3, "a#2#2", 0, 3, "3"},                      /* taken alias */
    {"k,v\n1,1e400\n", 1, 2, "v", 0, INFINITY, "1e400"},                 /* text kept */
    /* words: strtod's (inf, nan, hex, blanks first) or text without asking it */
    {"k,v\n1,kernel_a\n2,Infinity\n", 2, 2, "v", 1, INFINITY, "Infinity"},
    {"k,v\n1,_Z3foo\n2,NaN\n", 2, 2, "v", 1, NAN, "NaN"},
    {"k,v\n1,x\n2,0x10\n", 2, 2, "v", 1, 16, "0x10"},
    {"k,v\n1,Z\n2,\" -7\"\n", 2, 2, "v", 1, -7, " -7"},
    {"k,v\n1,nope\n2,ik\n", 2, 2, "v", 1, NAN, "ik"},
    {"k,v\n1,2\n2,_\n", 2, 2, "v", 1, NAN, "_"},
};

static void test_good(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
                const struct good_case *c = &good[i];
                char *p = write_tmp(c->csv);
                struct table t;
                struct err err = {0};
                assert_int_equal(table_load_csv(&t, p, &err), 0);
                assert_int_equal(t.nrows, c->rows);
                assert_int_equal(t.ncols, c->cols);
                int col = table_col(&t, c->col);
                assert_true(col >= 0);
                if (c->rows) {
                        double v = t.num[col][c->row];
                        if (isnan(c->num))
                                assert_true(isnan(v));
                        else
                                assert_true(v == c->num);
                        char buf[64];
                        if (c->text)
                                assert_string_equal(table_cell(&t, col, c->row, buf, sizeof buf),
                                                    c->text);
                }
                table_free(&t);
                unlink(p);
                free(p);
        }
}

struct bad_case {
        const char *csv;
        const char *msg; /* part of the error */
};

static const struct bad_case bad[] = {
    {"", "is empty"},
    {"a,b\n1,2,3\n", ":2: 3 fields, but the header has 2"},
    {"a,b,c\n1,2,3\n4,5\n", ":3: 2 fields, but the header has 3 (truncated"},
    {"a,b\n1,\"unterminated\n", ":2: malformed quoting"},
    {"a,b\n1,x\"y\n", ":2: "},
    {"\xEF\xBB\xBF", "is empty"},                                  /* a byte order mark only */
    {"\n\n\n", "is empty"},
    {"a,b\n\"x\ny\",1\n1,2,3\n", ":4: 3 fields"},                 /* lines, not records */
    {"a,b\n\n\n1,2,3\n", ":4: 3 fields"},                          /* blank lines count */
    {"a,b\n1,2\n\"open,3\n", ":3: malformed quoting"},            /* where the record began */
};

static void test_bad(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                char *p = write_tmp(bad[i].csv);
                struct table t;
                struct err err = {0};
                assert_int_not_equal(table_load_csv(&t, p, &err), 0);
                if (!strstr(err.msg, bad[i].msg))
                        fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].msg);
                assert_non_null(strstr(err.msg, p)); /* names the file */
                unlink(p);
                free(p);
        }
        struct table t;
        struct err err = {0};
        assert_int_not_equal(table_load_csv(&t, "/nonexistent/x.csv", &err), 0);
        assert_non_null(strstr(err.msg, "cannot open '/nonexistent/x.csv'"));
        assert_int_not_equal(table_load_csv(&t, "/tmp", &err), 0);
        assert_non_null(strstr(err.msg, "is a directory"));
}

static void test_write_roundtrip(void **state)
{
        (void)state;
        struct table t, u;
        struct err err = {0};
        table_init(&t);
        int a = table_add_col(&t, "name"), b = table_add_col(&t, "value");
        assert_int_equal(table_add_col(&t, "name"), a);
        size_t r = table_add_row(&t);
        table_set_str(&t, a, r, "a, \"quoted\"\nname");
        table_set_num(&t, b, r, 0.1);
        r = table_add_row(&t);
        table_set_str(&t, a, r, "plain");
        char *p = xstrdup("/tmp/prism-t-table-out-XXXXXX");
        close(mkstemp(p));
        assert_int_equal(table_write_csv(&t, p, &err), 0);
        assert_int_equal(table_load_csv(&u, p, &err), 0);
        assert_int_equal(u.nrows, 2);
        char buf[64];
        assert_string_equal(table_cell(&u, 0, 0, buf, sizeof buf), "a, \"quoted\"\nname");
        assert_true(u.num[1][0] == 0.1);
        assert_true(isnan(u.num[1][1]));
        table_free(&u);
        /* table_save_csv leaves a file with the same text alone, replaces another */
        struct stat s0, s1;
        assert_int_equal(stat(p, &s0), 0);
        assert_int_equal(table_save_csv(&t, p, &err), 0);
        assert_int_equal(stat(p, &s1), 0);
        assert_true(s0.st_ino == s1.st_ino);
        table_set_num(&t, b, r, 2.5);
        assert_int_equal(table_save_csv(&t, p, &err), 0);
        assert_int_equal(stat(p, &s1), 0);
        assert_true(s0.st_ino != s1.st_ino);
        assert_int_equal(table_load_csv(&u, p, &err), 0);
        assert_true(u.num[1][1] == 2.5);
        table_free(&t);
        table_free(&u);
        unlink(p);
        free(p);
}

/* a table of n rows (more than one 64 KiB flush and many 16 KiB compare blocks) written,
 * saved again unchanged (left alone), and saved over files that differ from its text only
 * in the last byte, by one byte more or less (each replaced, then read back whole) */
static void test_save_large(void **state)
{
        (void)state;
        struct table t, u;
        struct err err = {0};
        const size_t n = 9000;
        table_init(&t);
        int a = table_add_col(&t, "key"), b = table_add_col(&t, " v, \"x\" ");
        for (size_t i = 0; i < n; i++) {
                size_t r = table_add_row(&t);
                char k[32];
                snprintf(k, sizeof k, i % 7 ? "k%zu" : "k \"%zu\", q", i);
                table_set_str(&t, a, r, k);
                table_set_num(&t, b, r, (double)i / 7);
        }
        char *p = xstrdup("/tmp/prism-t-table-big-XXXXXX");
        close(mkstemp(p));
        assert_int_equal(table_write_csv(&t, p, &err), 0);
        size_t len;
        char *want = read_file(p, &len, &err);
        assert_non_null(want);
        assert_true(len > 3 * 65536);
        struct stat s0, s1;
        assert_int_equal(stat(p, &s0), 0);
        assert_int_equal(table_save_csv(&t, p, &err), 0);
        assert_int_equal(stat(p, &s1), 0);
        assert_true(s0.st_ino == s1.st_ino);
        for (int k = 0; k < 3; k++) {
                FILE *f = fopen(p, "wb");
                assert_non_null(f);
                if (k == 0) { /* the same size, the last byte changed */
                        fwrite(want, 1, len - 1, f);
                        fputc('X', f);
                } else { /* one byte more, or one less */
                        fwrite(want, 1, k == 1 ? len : len - 1, f);
                        if (k == 1)
                                fputc('\n', f);
                }
                fclose(f);
                assert_int_equal(stat(p, &s0), 0);
                assert_int_equal(table_save_csv(&t, p, &err), 0);
                assert_int_equal(stat(p, &s1), 0);
                assert_true(s0.st_ino != s1.st_ino);
                size_t l2;
                char *got = read_file(p, &l2, &err);
                assert_non_null(got);
                assert_int_equal(l2, len);
                assert_memory_equal(got, want, len);
                free(got);
        }
        assert_int_equal(table_load_csv(&u, p, &err), 0);
        assert_int_equal(u.nrows, n);
        char buf[64];
        assert_string_equal(table_cell(&u, 0, 7, buf, sizeof buf), "k \"7\", q");
        assert_string_equal(u.names[1], " v, \"x\" ");
        table_free(&u);
        table_free(&t);
        free(want);
        unlink(p);
        free(p);
}

/* csv_field (into memory) and csv_put_field (to a stream, long fields included) write the
 * same, quoting what a reader would misread */
static void test_csv_field(void **state)
{
        (void)state;
        static const char *const in[] = {"plain", "", "a,b", "say \"hi\"", "two\nlines", "cr\r",
                                         " lead", "trail\t", "\tboth ", "1.5e-07", "-0.0"};
        static const char *const out[] = {"plain", "", "\"a,b\"", "\"say \"\"hi\"\"\"",
                                          "\"two\nlines\"", "\"cr\r\"", "\" lead\"",
                                          "\"trail\t\"", "\"\tboth \"", "1.5e-07", "-0.0"};
        char buf[1200], big[520];
        for (size_t i = 0; i < sizeof in / sizeof *in; i++)
                for (int only = 0; only < 2; only++) {
                        size_t l = csv_field(buf, in[i], strlen(in[i]), only);
                        buf[l] = 0;
                        assert_string_equal(buf, only && !*in[i] ? "\"\"" : out[i]);
                        char *m = NULL;
                        size_t ml = 0;
                        FILE *f = open_memstream(&m, &ml);
                        csv_put_field(f, in[i], only);
                        fclose(f);
                        assert_string_equal(m, buf);
                        free(m);
                }
        /* a field too long for csv_put_field's buffer: quotes doubled all the same */
        for (size_t i = 0; i < sizeof big - 1; i++)
                big[i] = i % 50 == 3 ? '"' : 'a';
        big[sizeof big - 1] = 0;
        size_t l = csv_field(buf, big, strlen(big), 0);
        buf[l] = 0;
        assert_int_equal(l, strlen(big) + 2 + (sizeof big - 1 + 46) / 50);
        char *m = NULL;
        size_t ml = 0;
        FILE *f = open_memstream(&m, &ml);
        csv_put_field(f, big, 0);
        fclose(f);
        assert_string_equal(m, buf);
        free(m);
}

/* ---- the fast path (csvsplit.c, numparse.c) against libcsv and strtod ---- */

static unsigned long long rng = 88172645463325252ULL;
static unsigned rnd(unsigned n)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return (unsigned)(rng % n);
}

/* num_fast agrees with strtod bit for bit wherever it answers, and answers for the common
 * counter values */
static void check_num(const char *s, size_t *fast)
{
        double v, w;
        size_t len = strlen(s);
        char *end;
        w = strtod(s, &end);
        if (!num_fast(s, len, &v))
                return;
        ++*fast;
        if (end != s + len || memcmp(&v, &w, sizeof v))
                fail_msg("num_fast('%s') = %.17g, strtod: %.17g (read %zu of %zu)", s, v, w,
                         (size_t)(end - s), len);
}

static void test_num_fast(void **state)
{
        (void)state;
        static const char *const edge[] = {
            "0", "-0", "+0", "-0.0", "0.0", "00012", "1.", ".5", "-.5", "1e22", "1e23", "1e-22",
            "1e-23", "9007199254740992", "9007199254740993", "9007199254740991.5",
            "1234567890123456789", "12345678901234567890", "0.1", "0.3", "1.7976931348623157e308",
            "4.9e-324", "2.2250738585072014e-308", "1e400", "1e-400", "0e999999999", "123e-2",
            "1E5", "1e+5", "1e-0", "7e", "7e+", ".", "-", "+", "e5", "", "nan", "NaN", "inf",
            "-inf", "infinity", " 1", "1 ", "0x10", "1.5.5", "--1", "1e5.5", "0.000000000000000000001"};
        size_t fast = 0, n = 0;
        for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
                check_num(edge[i], &fast);
        /* the texts that must be left to strtod */
        double v;
        static const char *const slow[] = {"nan", "inf", "0x10", " 1", "1 ", "7e", "", ".",
                                           "9007199254740993", "1e23", "12345678901234567890"};
        for (size_t i = 0; i < sizeof slow / sizeof *slow; i++)
                assert_int_equal(num_fast(slow[i], strlen(slow[i]), &v), 0);
        assert_int_equal(num_fast("-0", 2, &v), 1);
        assert_true(v == 0 && signbit(v));
        /* generated: sign, digits (leading zeros too), fraction, exponent */
        char buf[96];
        for (int k = 0; k < 400000; k++, n++) {
                size_t o = 0;
                unsigned sg = rnd(4);
                if (sg == 1)
                        buf[o++] = '-';
                else if (sg == 2 && rnd(4) == 0)
                        buf[o++] = '+';
                unsigned ni = rnd(5) ? rnd(12) : rnd(24);
                if (rnd(5) == 0)
                        buf[o++] = '0';
                for (unsigned i = 0; i < ni; i++)
                        buf[o++] = (char)('0' + (i == 0 && rnd(3) ? 1 + rnd(9) : rnd(10)));
                if (rnd(3) == 0) {
                        buf[o++] = '.';
                        unsigned nf = rnd(4) ? rnd(8) : rnd(24);
                        for (unsigned i = 0; i < nf; i++)
                                buf[o++] = (char)('0' + rnd(10));
                }
                if (rnd(5) == 0) {
                        buf[o++] = rnd(2) ? 'e' : 'E';
                        unsigned es = rnd(3);
                        if (es)
                                buf[o++] = es == 1 ? '-' : '+';
                        unsigned ne = rnd(8) ? 1 + rnd(2) : rnd(4);
                        for (unsigned i = 0; i < ne; i++)
                                buf[o++] = (char)('0' + rnd(10));
                }
                buf[o] = '\0';
                check_num(buf, &fast);
        }
        /* most generated texts are plain decimals the fast path reads */
        assert_true(fast > n / 2);
        /* num_digits8: 1 to 8 digits (leading zeros too) as strtod reads them, nothing else */
        for (int k = 0; k < 200000; k++) {
                char d[16] = {0};
                size_t len = 1 + rnd(8);
                for (size_t i = 0; i < len; i++)
                        d[i] = (char)('0' + rnd(10));
                if (rnd(20) == 0)
                        d[rnd((unsigned)len)] = "x.-e /:"[rnd(7)];
                double w = strtod(d, NULL), v;
                int ok = strspn(d, "0123456789") == len;
                assert_int_equal(num_digits8(d, len, &v), ok);
                if (ok && memcmp(&v, &w, sizeof v))
                        fail_msg("num_digits8('%s') = %.17g, strtod: %.17g", d, v, w);
        }
        assert_int_equal(num_digits8("123456789", 9, &v), 0); /* nine digits: not its case */
        /* one byte (its own path): every byte value, a digit read as strtod reads it */
        for (int c = 0; c < 256; c++) {
                char d[16] = {(char)c, '7', '7', '7', '7', '7', '7', '7'};
                int ok = c >= '0' && c <= '9';
                v = -1;
                assert_int_equal(num_digits8(d, 1, &v), ok);
                if (ok && (v != (double)(c - '0') || signbit(v)))
                        fail_msg("num_digits8('%c') = %.17g", c, v);
        }
}

/* a file of len bytes (NUL bytes too) */
static char *write_bytes(const char *text, size_t len)
{
        char *path = xstrdup("/tmp/prism-t-table-XXXXXX");
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, len), (ssize_t)len);
        close(fd);
        return path;
}

static int want_odd(void *ctx, const char *name)
{
        (void)ctx;
        return strlen(name) & 1;
}

static int count_rec(void *p, char **f, const size_t *lens, size_t n, size_t line,
                     struct err *err)
{
        (void)err;
        struct strbuf *sb = p;
        char num[32];
        snprintf(num, sizeof num, "%zu:", line);
        sb_add(sb, num);
        for (size_t i = 0; i < n; i++) {
                sb_addn(sb, f[i], lens[i]);
                sb_addc(sb, '|');
        }
        sb_addc(sb, '\n');
        return 0;
}

/* everything a load gives, as text: the error, or columns, rows, lines and cells */
static void dump_load(const char *path, int mode, struct strbuf *out)
{
        struct table t;
        struct err err = {0};
        int rc;
        struct csv_texts ct = {0};
        if (mode >= 4) /* 4, 5: modes 1 and 2 over the bytes read once (csv_texts) */
                csv_texts_read(&ct, path);
        if (mode == 2 || mode == 5) {
                rc = mode == 5 ? csv_stream_in(path, &ct, count_rec, out, &err)
                               : csv_stream(path, count_rec, out, &err);
        } else if (mode == 3) {
                /* streamed in chunks of 3 rows */
                struct tstream *ts = table_stream_open(path, want_odd, NULL, &err);
                rc = ts ? 0 : -1;
                const struct table *c;
                while (ts && (c = table_stream_next(ts, 3, &err)) && c->nrows) {
                        char buf[64];
                        for (size_t r = 0; r < c->nrows; r++)
                                for (size_t k = 0; k < c->ncols; k++) {
                                        sb_add(out, table_cell(c, (int)k, r, buf, sizeof buf));
                                        sb_addc(out, '|');
                                }
                        sb_addc(out, '\n');
                }
                if (ts && !c)
                        rc = -1;
                table_stream_close(ts);
        } else {
                rc = mode == 4 ? table_load_csv_in(&t, path, &ct, want_odd, NULL, &err)
                     : mode    ? table_load_csv_cols(&t, path, want_odd, NULL, &err)
                               : table_load_csv(&t, path, &err);
                if (!rc) {
                        char buf[64], num[64];
                        for (size_t c = 0; c < t.ncols; c++) {
                                sb_add(out, t.names[c]);
                                sb_addc(out, '|');
                        }
                        for (size_t r = 0; r < t.nrows; r++) {
                                snprintf(num, sizeof num, "\n%zu:", t.line[r]);
                                sb_add(out, num);
                                for (size_t c = 0; c < t.ncols; c++) {
                                        double v = t.num[c][r];
                                        snprintf(num, sizeof num, "%a/", v);
                                        sb_add(out, isnan(v) ? "nan/" : num);
                                        sb_add(out, table_cell(&t, (int)c, r, buf, sizeof buf));
                                        sb_addc(out, '|');
                                }
                        }
                        table_free(&t);
                }
        }
        if (rc) {
                sb_add(out, "ERROR ");
                sb_add(out, err.msg);
        }
        csv_texts_free(&ct);
}

/* the fast path's variants: the scan (csv_split_level), and whether a second thread
 * splits the lines ahead (every file, a few lines a job, so that jobs end inside files) */
static int variant_level(int v)
{
        static int best = -1; /* the processor's (the level in use before any test set it) */
        if (best < 0)
                best = csv_split_level(-1);
        int lv = v % 3;
        return lv > best ? best : lv;
}

static void set_variant(int v)
{
        csv_split_level(variant_level(v));
        table_csv_batch_min = v >= 3 ? 0 : (size_t)16 << 20;
        table_csv_batch_lines = v == 3 ? 1 : v == 4 ? 3 : 4096;
}

static void same_both_ways(const char *text, size_t len, size_t *fails)
{
        char *p = write_bytes(text, len);
        static int variant;
        for (int mode = 0; mode < 4; mode++) {
                struct strbuf a = {0}, b = {0};
                table_csv_libcsv_only = 0;
                /* each file with one variant, in turn (all of them over the 3,000 files) */
                set_variant(variant++ % 6);
                dump_load(p, mode, &a);
                set_variant(2);
                table_csv_libcsv_only = 1;
                dump_load(p, mode, &b);
                table_csv_libcsv_only = 0;
                if (strcmp(a.buf ? a.buf : "", b.buf ? b.buf : "") && ++*fails <= 3 &&
                    getenv("T_TABLE_KEEP")) {
                        char *k = xasprintf("%s/fail-%zu.csv", getenv("T_TABLE_KEEP"), *fails);
                        FILE *f = fopen(k, "wb");
                        if (f) { fwrite(text, 1, len, f); fclose(f); }
                        free(k);
                }
                if (strcmp(a.buf ? a.buf : "", b.buf ? b.buf : "") && *fails <= 3)
                        print_error("mode %d, input '%.*s':\nfast:   %s\nlibcsv: %s\n", mode,
                                    (int)(len < 300 ? len : 300), text, a.buf, b.buf);
                sb_free(&a);
                sb_free(&b);
        }
        /* the bytes read once give what reading the file gives */
        for (int mode = 1; mode <= 2; mode++) {
                struct strbuf a = {0}, b = {0};
                dump_load(p, mode, &a);
                dump_load(p, mode + 3, &b);
                if (strcmp(a.buf ? a.buf : "", b.buf ? b.buf : "") && ++*fails <= 3)
                        print_error("mode %d from csv_texts, input '%.*s':\nfile:  %s\ntexts: %s\n",
                                    mode, (int)(len < 300 ? len : 300), text, a.buf, b.buf);
                sb_free(&a);
                sb_free(&b);
        }
        unlink(p);
        free(p);
}

/* csv_texts: a small regular file is read once (a change on disk after that is not seen
 * by its load); a missing file, a directory, a pipe, a file over CSV_TEXT_MAX and one that
 * gives a read error are not kept, and their loads read the file with its errors */
static void test_csv_texts(void **state)
{
        (void)state;
        char *p = write_tmp("a,bb\n1,2\n");
        struct csv_texts ct = {0};
        csv_texts_read(&ct, p);
        assert_non_null(csv_texts_get(&ct, p));
        assert_null(csv_texts_get(NULL, p));
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fputs("a,bb\n7,8\n9,9\n", f);
        fclose(f);
        struct table t;
        struct err err = {0};
        assert_int_equal(table_load_csv_in(&t, p, &ct, NULL, NULL, &err), 0);
        assert_int_equal(t.nrows, 1);
        assert_true(t.num[0][0] == 1);
        table_free(&t);
        assert_int_equal(table_load_csv_in(&t, p, NULL, NULL, NULL, &err), 0);
        assert_int_equal(t.nrows, 2); /* no texts: the file as it is now */
        table_free(&t);
        csv_texts_free(&ct);
        /* not kept: missing, a directory, a pipe, too large */
        char *dir = xstrdup("/tmp/prism-t-table-dXXXXXX");
        assert_non_null(mkdtemp(dir));
        char *fifo = xasprintf("%s/pipe.csv", dir), *big = xasprintf("%s/big.csv", dir);
        assert_int_equal(mkfifo(fifo, 0600), 0);
        f = fopen(big, "w");
        assert_non_null(f);
        fputs("a\n", f);
        for (size_t n = 2; n <= CSV_TEXT_MAX; n += 8)
                fputs("1234567\n", f);
        fclose(f);
        /* /proc/self/mem: a regular file of size 0 whose read fails */
        const char *paths[] = {"/nonexistent/x.csv", dir, fifo, big, "/proc/self/mem"};
        for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
                csv_texts_read(&ct, paths[i]);
                assert_null(csv_texts_get(&ct, paths[i]));
                struct err e1 = {0}, e2 = {0};
                int r1 = table_load_csv_in(&t, paths[i], &ct, NULL, NULL, &e1);
                if (!r1)
                        table_free(&t);
                int r2 = table_load_csv_cols(&t, paths[i], NULL, NULL, &e2);
                if (!r2)
                        table_free(&t);
                assert_int_equal(r1, r2);
                assert_string_equal(e1.msg, e2.msg);
        }
        assert_int_equal(ct.n, 0);
        unlink(fifo);
        unlink(big);
        rmdir(dir);
        unlink(p);
        free(fifo);
        free(big);
        free(dir);
        free(p);
}

/* generated files of plain, quoted, blank-padded, damaged fields and odd line ends read
 * the same with the fast path as through libcsv alone: cells, lines, errors */
static void test_fast_same_as_libcsv(void **state)
{
        (void)state;
        static const char *const frag[] = {
            "1", "-2.5", "", " 3 ", "\t4", "\"q\"", "\"a,b\"", "\"x\"\"y\"", "\"two\nlines\"",
            "abc", "1e400", "nan", "\"q\"  ", "x\"y", "7", "0.25", "1e5", "\"\"", "  ", "\"open",
            "\"a\"b", "12345678901234567890", "0x1f", "00123", "99999999", "123456789", "4096",
            "1:2", "12/4", "0", "131072.0", "7.0", "123456789.0", "00.0", ".0", "5.00", "\xEF\xBB\xBF" "5", "\"c\r\"", "8"};
        static const char *const ends[] = {"\n", "\n", "\n", "\r\n", "\r", ""};
        size_t fails = 0;
        struct strbuf sb = {0};
        for (int k = 0; k < 3000; k++) {
                sb_reset(&sb);
                unsigned ncol = 1 + rnd(4), nrow = rnd(6);
                if (rnd(10) == 0)
                        sb_add(&sb, "\xEF\xBB\xBF");
                for (unsigned c = 0; c < ncol; c++) {
                        static const char *const names[] = {"a", "bb", "ccc", "a", "\"h\"", " e "};
                        sb_add(&sb, c ? "," : "");
                        sb_add(&sb, names[rnd(6)]);
                }
                sb_add(&sb, "\n");
                for (unsigned r = 0; r < nrow; r++) {
                        unsigned n = rnd(8) ? ncol : rnd(ncol + 2);
                        for (unsigned c = 0; c < n; c++) {
                                sb_add(&sb, c ? "," : "");
                                sb_add(&sb, frag[rnd(8) ? rnd(8) : rnd(sizeof frag / sizeof *frag)]);
                        }
                        sb_add(&sb, ends[r + 1 == nrow ? rnd(6) : rnd(5)]);
                        if (rnd(15) == 0)
                                sb_add(&sb, rnd(2) ? "\n" : " \t\r\n");
                }
                size_t len = sb.len;
                if (rnd(30) == 0 && len > 2)
                        sb.buf[rnd((unsigned)len)] = '\0'; /* a NUL byte */
                same_both_ways(sb.buf, len, &fails);
        }
        /* longer files for the second thread (it splits from the second data row on), as
         * counters are written: a quoted text column, numbers of every kind in the others,
         * now and then an odd field (a text in a number column, a damaged line) */
        static const char *const nums[] = {"1", "-2.5", "7", "0.25", "131072.0", "123456789",
                                           "12345678901234567890", "", "1e5", "00.0", "4096",
                                           "99999999", "0", "5.00", "7.0"};
        for (int k = 0; k < 600; k++) {
                sb_reset(&sb);
                unsigned ncol = 2 + rnd(40), nrow = 20 + rnd(40), odd = 1 + rnd(3);
                for (unsigned c = 0; c < ncol; c++)
                        sb_addf(&sb, "%sc%u", c ? "," : "", c);
                sb_add(&sb, "\n");
                for (unsigned r = 0; r < nrow; r++) {
                        unsigned n = rnd(60) ? ncol : rnd(ncol + 2);
                        for (unsigned c = 0; c < n; c++) {
                                sb_add(&sb, c ? "," : "");
                                if (c == 0)
                                        sb_addf(&sb, "\"kernel(%u, int) [clone]\"", rnd(3));
                                else if (rnd(200) < odd)
                                        sb_add(&sb, frag[rnd(sizeof frag / sizeof *frag)]);
                                else
                                        sb_add(&sb, nums[rnd(sizeof nums / sizeof *nums)]);
                        }
                        sb_add(&sb, ends[r + 1 == nrow ? rnd(6) : rnd(5)]);
                }
                same_both_ways(sb.buf, sb.len, &fails);
        }
        /* lines across the reader's buffer (1 MiB) and a line longer than it */
        sb_reset(&sb);
        sb_add(&sb, "a,bb,ccc\n");
        for (int r = 0; r < 60000; r++) {
                char row[96];
                snprintf(row, sizeof row, "%d,\"k %d\",%d.%d%s", r, r % 7, r * 3, r % 10,
                         r % 5000 == 0 ? "\r\n" : "\n");
                sb_add(&sb, row);
        }
        /* every variant on the long file (its lines across the buffer, jobs of 1 and 3 lines
         * ending inside it, a CRLF now and then) */
        for (int v = 0; v < 6; v++)
                same_both_ways(sb.buf, sb.len, &fails);
        sb_reset(&sb);
        sb_add(&sb, "a,bb\n1,\"");
        for (int r = 0; r < 300000; r++)
                sb_add(&sb, "word, ");
        sb_add(&sb, "\"\n2,3\n");
        same_both_ways(sb.buf, sb.len, &fails);
        sb_free(&sb);
        assert_int_equal(fails, 0);
        /* the second thread split lines (where the process may use two CPUs) */
        if (task_workers() > 1)
                assert_true(table_csv_batch_rows > 1000);
        set_variant(5);
        table_csv_batch_min = (size_t)16 << 20;
}

/* csv_split at each scan level: the same fields as the byte loop, on lines of plain, blank,
 * quoted and damaged fields of every length around the vector widths */
static void test_split_levels(void **state)
{
        (void)state;
        static const char *const frag[] = {"1", "", " 3 ", "\t4", "\"q\"", "\"a,b\"",
                                           "abcdefghijklmnopqrstuvwxyz0123456789", "x\"y",
                                           "\"x\"\"y\"", "12345678901234567", "\r", "7 ",
                                           "\"open", "0.25"};
        struct strbuf sb = {0};
        struct csv_line ref = {0}, got = {0};
        int best = variant_level(2); /* the processor's widest */
        size_t lines = 0, split = 0;
        for (int k = 0; k < 20000; k++) {
                sb_reset(&sb);
                unsigned n = rnd(40);
                for (unsigned c = 0; c < n; c++) {
                        sb_add(&sb, c ? "," : "");
                        sb_add(&sb, frag[rnd(5) ? rnd(4) : rnd(sizeof frag / sizeof *frag)]);
                }
                if (rnd(20) == 0)
                        sb_addc(&sb, '\r');
                sb_addc(&sb, '\n');
                size_t len = sb.len;
                for (int i = 0; i < CSV_PAD; i++)
                        sb_addc(&sb, rnd(3) ? ',' : 'x'); /* what follows the line */
                if (rnd(40) == 0 && len > 1)
                        sb.buf[rnd((unsigned)len - 1)] = '\0';
                csv_split_level(CSV_SCAN_SCALAR);
                int r0 = csv_split(sb.buf, sb.buf + len - 1, &ref);
                lines++;
                split += r0 == 0;
                for (int lv = CSV_SCAN_SSE2; lv <= best; lv++) {
                        csv_split_level(lv);
                        int r1 = csv_split(sb.buf, sb.buf + len - 1, &got);
                        assert_int_equal(r0, r1);
                        if (r0)
                                continue;
                        assert_int_equal(ref.n, got.n);
                        assert_memory_equal(ref.at, got.at, ref.n * sizeof *ref.at);
                        assert_memory_equal(ref.len, got.len, ref.n * sizeof *ref.len);
                }
        }
        csv_split_level(best);
        /* both kinds of line were tried: split ones and ones left to libcsv */
        assert_true(split > lines / 4 && split < lines);
        csv_line_free(&ref);
        csv_line_free(&got);
        sb_free(&sb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_good), cmocka_unit_test(test_bad),
                                           cmocka_unit_test(test_write_roundtrip),
            cmocka_unit_test(test_save_large),
            cmocka_unit_test(test_csv_field),
                                           cmocka_unit_test(test_num_fast),
                                           cmocka_unit_test(test_fast_same_as_libcsv),
                                           cmocka_unit_test(test_split_levels),
                                           cmocka_unit_test(test_csv_texts)};
        return cmocka_run_group_tests(tests, NULL, NULL);
}
