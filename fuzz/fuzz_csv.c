/* libFuzzer target for the CSV loader (src/store/table.c): the input is one CSV file.
 * Beyond "no crash, no leak", it checks that the projected loader agrees with the full
 * one, that errors name the file, that a loaded table written back reads the same, and
 * that the fast path (csvsplit.c, numparse.c) reads it as libcsv alone does. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "store/formats.h"
#include "store/table.h"

static int csv_all(void *ctx, const char *name)
{
        (void)ctx;
        (void)name;
        return 1;
}

/* keep the columns whose name has an odd length: a mix that depends on the input */
static int csv_odd(void *ctx, const char *name)
{
        (void)ctx;
        return strlen(name) & 1;
}

static int csv_same_num(double a, double b)
{
        return (isnan(a) && isnan(b)) || a == b;
}

/* Column c of t and column d of u hold the same cells (numbers and text). */
static void csv_same_col(const struct table *t, int c, const struct table *u, int d)
{
        char b1[64], b2[64];
        FUZZ_CHECK(t->nrows == u->nrows);
        for (size_t r = 0; r < t->nrows; r++) {
                FUZZ_CHECK(csv_same_num(t->num[c][r], u->num[d][r]));
                FUZZ_CHECK(!strcmp(table_cell(t, c, r, b1, sizeof b1),
                                   table_cell(u, d, r, b2, sizeof b2)));
        }
}

static void csv_check_table(const struct table *t)
{
        char buf[64];
        FUZZ_CHECK(t->nrows <= t->cap_rows || t->nrows == 0);
        for (size_t c = 0; c < t->ncols; c++) {
                FUZZ_CHECK(t->names[c] != NULL);
                /* names are unique: the index finds every column at its own position */
                FUZZ_CHECK(table_col(t, t->names[c]) == (int)c);
                for (size_t r = 0; r < t->nrows; r++)
                        FUZZ_CHECK(table_cell(t, (int)c, r, buf, sizeof buf) != NULL);
        }
}

static int csv_count(void *p, char **f, const size_t *lens, size_t n, size_t line,
                     struct err *err)
{
        (void)f, (void)lens, (void)n, (void)err;
        *(size_t *)p += line > 0;
        return 0;
}

/* csv_stream agrees with the loader (the same file good or bad, the same error, a record per
 * row), and rocpd's grouping of the file either fails with one line naming it or gives a
 * sound table of at most as many dispatches as rows */
static void csv_check_stream(const char *path, int rc, const struct err *e1, size_t nrows)
{
        size_t nrec = 0;
        struct err e = {0};
        int rs = csv_stream(path, csv_count, &nrec, &e);
        FUZZ_CHECK((rs == 0) == (rc == 0));
        if (rc) {
                FUZZ_CHECK(!strcmp(e.msg, e1->msg));
                return;
        }
        FUZZ_CHECK(nrec == nrows);
        struct table g;
        struct err e2 = {0};
        if (rocpd_load(path, NULL, NULL, &g, &e2)) {
                FUZZ_CHECK(e2.msg[0] && strstr(e2.msg, path) && !strchr(e2.msg, '\n'));
                return;
        }
        csv_check_table(&g);
        FUZZ_CHECK(g.nrows <= nrows);
        table_free(&g);
}

int fuzz_csv(const uint8_t *data, size_t n)
{
        const char *dir = fuzz_dir();
        char *path = fuzz_write(dir, "in.csv", data, n);
        char *out = xasprintf("%s/out.csv", dir);
        struct table t, p, q, back;
        struct err e1 = {0}, e2 = {0}, e3 = {0}, e4 = {0};
        warn_quiet = 1;

        int rc = table_load_csv(&t, path, &e1);
        int rp = table_load_csv_cols(&p, path, csv_all, NULL, &e2);
        int rq = table_load_csv_cols(&q, path, csv_odd, NULL, &e3);
        /* the fast path reads the file as libcsv alone does: the same error or cells */
        {
                struct table l;
                struct err el = {0};
                table_csv_libcsv_only = 1;
                int rl = table_load_csv_cols(&l, path, csv_odd, NULL, &el);
                table_csv_libcsv_only = 0;
                FUZZ_CHECK(rl == rq);
                if (rl)
                        FUZZ_CHECK(!strcmp(el.msg, e3.msg));
                else {
                        FUZZ_CHECK(l.ncols == q.ncols && l.nrows == q.nrows);
                        for (size_t c = 0; c < l.ncols; c++) {
                                FUZZ_CHECK(!strcmp(l.names[c], q.names[c]));
                                csv_same_col(&l, (int)c, &q, (int)c);
                        }
                        for (size_t r = 0; r < l.nrows; r++)
                                FUZZ_CHECK(l.line[r] == q.line[r]);
                        table_free(&l);
                }
        }
        /* the same file is good or bad whatever columns one keeps */
        FUZZ_CHECK((rc == 0) == (rp == 0));
        FUZZ_CHECK((rc == 0) == (rq == 0));
        csv_check_stream(path, rc, &e1, rc ? 0 : t.nrows);
        if (rc) {
                /* a one-line error that names the file */
                FUZZ_CHECK(e1.msg[0] && strstr(e1.msg, path) && !strchr(e1.msg, '\n'));
                FUZZ_CHECK(!strcmp(e1.msg, e2.msg));
                goto out;
        }
        csv_check_table(&t);
        csv_check_table(&p);
        csv_check_table(&q);
        FUZZ_CHECK(t.ncols >= 1);
        FUZZ_CHECK(p.ncols == t.ncols && p.nrows == t.nrows);
        for (size_t c = 0; c < t.ncols; c++) {
                FUZZ_CHECK(!strcmp(t.names[c], p.names[c]));
                csv_same_col(&t, (int)c, &p, (int)c);
        }
        FUZZ_CHECK(q.nrows == t.nrows);
        for (size_t c = 0; c < q.ncols; c++) {
                int tc = table_col(&t, q.names[c]);
                FUZZ_CHECK(tc >= 0);
                csv_same_col(&t, tc, &q, (int)c);
        }
        /* written back and read again: the same shape and the same cells */
        if (table_write_csv(&t, out, &e4) == 0) {
                int rb = table_load_csv(&back, out, &e4);
                if (rb)
                        fprintf(stderr, "re-read: %s\n", e4.msg);
                FUZZ_CHECK(rb == 0);
                FUZZ_CHECK(back.ncols == t.ncols && back.nrows == t.nrows);
                for (size_t c = 0; c < t.ncols; c++)
                        csv_same_col(&t, (int)c, &back, (int)c);
                table_free(&back);
        }
        table_free(&t);
        table_free(&p);
        table_free(&q);
out:
        unlink(out);
        free(out);
        free(path);
        return 0;
}

#ifndef PRISM_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
        return fuzz_csv(data, n);
}
#endif
