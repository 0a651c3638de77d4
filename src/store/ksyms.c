/* rocprof-compute 3.6+'s kernel_symbols_*.csv[.gz] files (docs/FORMATS.md, "The per-pass
 * layout"): each pass's Kernel_Name,Kernel_Short_Name pairs, read into one table of the
 * workload. Plain or gzip by their first bytes (csv_stream reads through bytesrc.c). */
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "formats.h"

#define COL_SHORT_NAME "Kernel_Short_Name"

struct kread {
        const char *path;    /* the file being read */
        int cfull, cshort;   /* its columns (-1: not yet seen) */
        struct table *out;   /* Kernel_Name, Kernel_Short_Name */
        struct smap *seen;   /* a full name -> its row in out */
        const char ***from;  /* from[row]: the file that gave out's row (files' own) */
        size_t *nfrom, *capfrom;
};

static int row_of(void *vctx, char **f, const size_t *lens, size_t n, size_t line,
                  struct err *err)
{
        struct kread *k = vctx;
        if (!line) { /* the header */
                for (size_t i = 0; i < n; i++) {
                        if (!strcmp(f[i], COL_KERNEL_NAME))
                                k->cfull = (int)i;
                        else if (!strcmp(f[i], COL_SHORT_NAME))
                                k->cshort = (int)i;
                }
                if (k->cfull < 0 || k->cshort < 0)
                        return err_set(err, ERR_INPUT,
                                       "%s: no %s and %s columns (3.6+'s kernel symbols files "
                                       "have both)",
                                       k->path, COL_KERNEL_NAME, COL_SHORT_NAME);
                return 0;
        }
        const char *full = f[k->cfull], *shrt = f[k->cshort];
        /* a row that lacks either name says nothing (3.10's analyze drops it too) */
        if (!lens[k->cfull] || !lens[k->cshort])
                return 0;
        int r;
        if (smap_get(k->seen, full, &r)) {
                const char *had = k->out->str[1][r];
                if (strcmp(had, shrt))
                        return err_set(err, ERR_INPUT,
                                       "%s:%zu: kernel '%.80s' has the short name '%.60s' here "
                                       "and '%.60s' in %s (symbols of two recordings?)",
                                       k->path, line, full, shrt, had, (*k->from)[r]);
                return 0; /* the same pair again (every pass writes it) */
        }
        size_t row = table_add_row(k->out);
        table_set_str(k->out, 0, row, full);
        table_set_str(k->out, 1, row, shrt);
        smap_put(k->seen, full, (int)row);
        xgrow(k->from, k->capfrom, *k->nfrom + 1, sizeof **k->from);
        (*k->from)[(*k->nfrom)++] = k->path;
        return 0;
}

int ksyms_load(const char *dir, struct table *out, struct err *err)
{
        const char **from = NULL;
        size_t n, nfrom = 0, capfrom = 0;
        char **files = formats_csv_files(dir, "kernel_symbols_", &n);
        struct smap seen = {0};
        int rc = 0;
        table_init(out);
        table_add_col(out, COL_KERNEL_NAME);
        table_add_col(out, COL_SHORT_NAME);
        for (size_t i = 0; !rc && i < n; i++) {
                struct stat st;
                if (stat(files[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
                        /* a symbols extract that failed leaves an empty file (3.10's analyze
                         * skips it): the kernels keep their full names */
                        warnf("%s: empty; no short names from it", files[i]);
                        continue;
                }
                struct kread k = {.path = files[i], .cfull = -1, .cshort = -1, .out = out,
                                  .seen = &seen, .from = &from, .nfrom = &nfrom,
                                  .capfrom = &capfrom};
                if (!(rc = passes_check_end(files[i], err)))
                        rc = csv_stream(files[i], row_of, &k, err);
        }
        smap_free(&seen);
        free(from);
        free_all((void *const *)files, n);
        free(files);
        if (rc)
                table_free(out);
        return rc;
}
