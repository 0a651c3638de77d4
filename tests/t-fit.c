/* render_grid_fit and render_grid_w (src/render/fit.c): a table wider than its limit comes
 * out no wider, its cells' words all there in order, numbers unbroken, UTF-8 counted by
 * characters; a table that fits is left alone; too narrow to read, rows are stacked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"

static size_t chars(const char *s, size_t n)
{
        size_t w = 0;
        for (size_t i = 0; i < n; i++)
                w += ((unsigned char)s[i] & 0xC0) != 0x80;
        return w;
}

/* the widest line of text, in characters */
static size_t widest(const char *text)
{
        size_t most = 0;
        for (const char *p = text; *p;) {
                const char *e = strchr(p, '\n');
                size_t n = e ? (size_t)(e - p) : strlen(p), w = chars(p, n);
                most = w > most ? w : most;
                p += n + (e != NULL);
        }
        return most;
}

static char *render(char **cells, size_t nrows, size_t ncols, const char *align, size_t width)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        render_grid_w(f, cells, nrows, ncols, align, width);
        fclose(f);
        return buf;
}

/* the words of s with the cell borders and line breaks taken out, joined by one space */
static char *words(const char *s)
{
        struct strbuf sb = {0};
        const char *p = s;
        while (*p) {
                while (*p && (*p == ' ' || *p == '\n'))
                        p++;
                size_t n = strcspn(p, " \n");
                if (n)
                        sb_addf(&sb, "%s%.*s", sb.len ? " " : "", (int)n, p);
                p += n;
        }
        return sb_detach(&sb);
}

static void test_wraps_to_width(void **state)
{
        (void)state;
        char *cells[] = {"",
                         "Kernel_Name",
                         "Gain",
                         "Message",
                         "0",
                         "triad(float*, float const*, float const*, float, unsigned long)",
                         "81.61",
                         "DRAM traffic runs at 82% of the HBM peak (1850 GB/s read, 886 GB/s "
                         "write) — l’écriture compte"};
        for (size_t w = 60; w <= 120; w += 20) {
                char *t = render(cells, 2, 4, "rlrl", w);
                assert_true(widest(t) <= w);
                assert_non_null(strstr(t, "81.61")); /* the number whole */
                free(t);
                char **fit = render_grid_fit(cells, 2, 4, "rlrl", w);
                assert_non_null(fit);
                for (size_t i = 0; i < 8; i++) { /* every word there, in order */
                        char *a = words(cells[i]), *b = words(fit[i]);
                        assert_string_equal(a, b);
                        free(a);
                        free(b);
                        free(fit[i]);
                }
                free(fit);
        }
}

static void test_fits_untouched(void **state)
{
        (void)state;
        char *cells[] = {"", "A", "0", "short"};
        assert_null(render_grid_fit(cells, 2, 2, "rl", 80));
        assert_null(render_grid_fit(cells, 2, 2, "rl", 0)); /* no limit */
        char *a = render(cells, 2, 2, "rl", 80), *b = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&b, &len);
        render_grid(f, cells, 2, 2, "rl");
        fclose(f);
        assert_string_equal(a, b);
        free(a);
        free(b);
}

static void test_stacks_when_narrow(void **state)
{
        (void)state;
        /* nine columns of text in 60 columns: one record a row, Field and Value */
        char *cells[18] = {""};
        char buf[18][64];
        for (int i = 1; i < 9; i++) {
                snprintf(buf[i], sizeof buf[i], "Column %d", i);
                cells[i] = buf[i];
                snprintf(buf[9 + i], sizeof buf[9 + i],
                         "a rather long text of column %d that needs room", i);
                cells[9 + i] = buf[9 + i];
        }
        cells[9] = "0";
        char *t = render(cells, 2, 9, "rllllllll", 60);
        assert_true(widest(t) <= 60);
        assert_non_null(strstr(t, "Field"));
        assert_non_null(strstr(t, "Column 8"));
        assert_non_null(strstr(t, "column 8"));
        assert_non_null(strstr(t, "Value"));
        free(t);
}

int main(void)
{
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_wraps_to_width),
                                           cmocka_unit_test(test_fits_untouched),
                                           cmocka_unit_test(test_stacks_when_narrow)};
        return cmocka_run_group_tests(tests, NULL, NULL);
}
