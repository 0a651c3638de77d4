/* Workload directories on disk: create, check for an earlier profile, write the files. */
#include "workload_write.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "columns.h"

int wl_exists(const char *dir)
{
        static const char *const files[] = {"pmc_perf.csv", "sysinfo.csv",
                                            "perfmon/pmc_perf_0.txt"};
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
                char *p = xasprintf("%s/%s", dir, files[i]);
                int yes = is_file(p);
                free(p);
                if (yes)
                        return 1;
        }
        return 0;
}


/* timestamps.csv and pmc_dispatch_info.csv: the dispatch columns of pmc_perf.csv */
/* the columns of pmc named in cols, then in more (NULL-terminated lists; more may be NULL) */
static void subset(const struct table *pmc, const char *const *cols, const char *const *more,
                   struct table *t)
{
        table_init(t);
        for (size_t i = 0; cols[i]; i++)
                if (table_col(pmc, cols[i]) >= 0)
                        table_add_col(t, cols[i]);
        for (size_t i = 0; more && more[i]; i++)
                if (table_col(pmc, more[i]) >= 0)
                        table_add_col(t, more[i]);
        for (size_t r = 0; r < pmc->nrows; r++)
                table_add_row(t);
        for (size_t c = 0; c < t->ncols; c++) {
                int sc = table_col(pmc, t->names[c]);
                for (size_t r = 0; r < pmc->nrows; r++) {
                        if (pmc->str[sc] && pmc->str[sc][r])
                                table_set_str(t, (int)c, r, pmc->str[sc][r]);
                        else
                                table_set_num(t, (int)c, r, pmc->num[sc][r]);
                }
        }
}

static int write_one(const char *dir, const char *name, const struct table *t, struct err *err)
{
        char *path = xasprintf("%s/%s", dir, name);
        int rc = table_write_csv(t, path, err);
        free(path);
        return rc;
}

int wl_write(const char *dir, const struct wl_out *w, struct err *err)
{
        static const char *const ts_more[] = {COL_START, COL_END, NULL};
        static const char *const info_cols[] = {COL_DISPATCH_ID, COL_KERNEL_NAME, COL_GPU_ID, NULL};
        struct table ts, info;
        int rc = write_one(dir, "sysinfo.csv", w->sysinfo, err);
        for (size_t i = 0; i < w->naccum && !rc; i++) {
                char *name = xasprintf("%s.csv", w->accum[i].name);
                rc = write_one(dir, name, w->accum[i].table, err);
                free(name);
        }
        if (rc)
                return rc;
        subset(w->pmc, dispatch_info_cols, ts_more, &ts);
        subset(w->pmc, info_cols, NULL, &info);
        rc = write_one(dir, "timestamps.csv", &ts, err);
        if (!rc)
                rc = write_one(dir, "pmc_dispatch_info.csv", &info, err);
        if (!rc)
                rc = write_one(dir, "pmc_perf.csv", w->pmc, err);
        table_free(&ts);
        table_free(&info);
        return rc;
}

/* An accumulate pass file is named after the counter it starts with (perfmon/X.txt,
 * "pmc: X ..."), and its table is X.csv: remove both. Returns 1 if it was one. */
static int remove_accum_pass(const char *dir, const char *perfmon, const char *fname)
{
        size_t l = strlen(fname);
        if (l <= 4 || strcmp(fname + l - 4, ".txt"))
                return 0;
        char *path = xasprintf("%s/%s", perfmon, fname);
        char *text = read_file(path, NULL, NULL);
        char *head = xasprintf("pmc: %.*s", (int)(l - 4), fname);
        size_t hl = strlen(head);
        int is_accum = text && !strncmp(text, head, hl) && (text[hl] == ' ' || text[hl] == '\n');
        if (is_accum) {
                char *csv = xasprintf("%s/%.*s.csv", dir, (int)(l - 4), fname);
                unlink(csv);
                free(csv);
                unlink(path);
        }
        free(head);
        free(text);
        free(path);
        return is_accum;
}

void wl_clear_plan(const char *dir)
{
        char *pm = xasprintf("%s/perfmon", dir);
        DIR *d = opendir(pm);
        if (d) {
                struct dirent *e;
                while ((e = readdir(d))) {
                        size_t l = strlen(e->d_name);
                        if (!strncmp(e->d_name, "pmc_perf_", 9) && l > 4 &&
                            !strcmp(e->d_name + l - 4, ".txt")) {
                                char *p = xasprintf("%s/%s", pm, e->d_name);
                                unlink(p);
                                free(p);
                        } else {
                                remove_accum_pass(dir, pm, e->d_name);
                        }
                }
                closedir(d);
        }
        free(pm);
}
