/* libFuzzer target for the database reader (src/store/db_*.c): the input is a database
 * file (seeds: small prism databases of 512-byte pages, rows on overflow pages). It is
 * read three ways: in memory through SQL, streamed with the pass tables' pages decoded
 * directly (db_pages.c), streamed through SQL (PRISM_DB_SQL). They must agree: all fail
 * (an error naming the file), or all hold the same passes, rows and values bit for bit
 * (docs/STORE.md, "One truth"). */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "store/db.h"
#include "store/workload.h"
#include "store/wstream.h"

static int db_keep(void *ctx, const char *name)
{
        (void)ctx;
        return !strcmp(name, "Kernel_Name") || !strcmp(name, "Dispatch_ID");
}

static int db_same_num(double x, double y)
{
        return isnan(x) ? isnan(y) : !memcmp(&x, &y, sizeof x);
}

/* the spill's table ti holds ref's values */
static void db_same_spill(const struct workload *ws, size_t ti, const struct table *ref)
{
        const struct table *h = spill_head(ws->spill, ti);
        FUZZ_CHECK(h != NULL);
        FUZZ_CHECK(h->ncols == ref->ncols);
        FUZZ_CHECK(spill_rows(ws->spill, ti) == ref->nrows);
        double *v = xmalloc(SPILL_CHUNK * sizeof *v);
        for (size_t c = 0; c < h->ncols; c++) {
                FUZZ_CHECK(!strcmp(h->names[c], ref->names[c]));
                size_t r0 = 0, n = 0;
                for (size_t k = 0; spill_block_rows(ws->spill, ti, k); k++, r0 += n) {
                        FUZZ_CHECK(spill_read(ws->spill, ti, k, (int)c, v, &n) == 0);
                        for (size_t j = 0; j < n; j++)
                                FUZZ_CHECK(db_same_num(ref->num[c][r0 + j], v[j]));
                }
                FUZZ_CHECK(r0 == ref->nrows);
        }
        free(v);
}

/* streamed ws = in memory ref */
static void db_same(const struct workload *ref, const struct workload *ws)
{
        db_same_spill(ws, 0, &ref->pmc);
        FUZZ_CHECK(ws->pmc.nrows == ref->pmc.nrows);
        for (size_t c = 0; c < ws->pmc.ncols; c++) {
                int rc = table_col(&ref->pmc, ws->pmc.names[c]);
                FUZZ_CHECK(rc >= 0);
                for (size_t r = 0; r < ref->pmc.nrows; r++) {
                        FUZZ_CHECK(db_same_num(ref->pmc.num[rc][r], ws->pmc.num[c][r]));
                        const char *s = ref->pmc.str[rc] ? ref->pmc.str[rc][r] : NULL;
                        const char *t = ws->pmc.str[c] ? ws->pmc.str[c][r] : NULL;
                        FUZZ_CHECK((s != NULL) == (t != NULL));
                        FUZZ_CHECK(!s || !strcmp(s, t));
                }
        }
        FUZZ_CHECK(ws->nacc == ref->nacc);
        for (size_t i = 0; i < ref->nacc; i++) {
                FUZZ_CHECK(!strcmp(ws->acc_names[i], ref->acc_names[i]));
                FUZZ_CHECK(ws->acc[i].nrows == ref->acc[i].nrows);
                db_same_spill(ws, 1 + i, &ref->acc[i]);
        }
        FUZZ_CHECK(ws->has_roofline == ref->has_roofline);
}

int fuzz_db(const uint8_t *data, size_t n)
{
        char sub[300];
        const char *dir = fuzz_subdir("db", sub, sizeof sub);
        char *path = fuzz_write(dir, "in.db", data, n);
        /* nothing left beside it by an earlier input */
        free(fuzz_write(dir, "in.db-wal", NULL, 0));
        free(fuzz_write(dir, "in.db-journal", NULL, 0));
        free(fuzz_write(dir, "in.db-shm", NULL, 0));
        warn_quiet = 1;
        struct workload ref, w1, w2;
        struct err e0 = {0}, e1 = {0}, e2 = {0};
        int r0 = db_open_workload(path, NULL, NULL, &ref, &e0);
        unsetenv("PRISM_DB_SQL");
        int r1 = db_open_streamed(path, db_keep, NULL, NULL, NULL, &w1, &e1);
        setenv("PRISM_DB_SQL", "1", 1);
        int r2 = db_open_streamed(path, db_keep, NULL, NULL, NULL, &w2, &e2);
        unsetenv("PRISM_DB_SQL");
        /* errors name the file */
        FUZZ_CHECK(!r0 || strstr(e0.msg, path));
        FUZZ_CHECK(!r1 || strstr(e1.msg, path));
        FUZZ_CHECK(!r2 || strstr(e2.msg, path));
        /* in memory a workload opens that streaming refuses only for want of a kept
         * column: none here (every pass column is read both ways) */
        FUZZ_CHECK((r0 == 0) == (r1 == 0));
        FUZZ_CHECK((r1 == 0) == (r2 == 0));
        if (!r0 && !r1 && !r2) {
                db_same(&ref, &w1);
                db_same(&ref, &w2);
        }
        if (!r0)
                workload_close(&ref);
        if (!r1)
                workload_close(&w1);
        if (!r2)
                workload_close(&w2);
        free(path);
        return 0;
}

#ifndef PRISM_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
        return fuzz_db(data, n);
}
#endif
