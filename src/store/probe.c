/* Probe a workload path (probe.h): which store it is and which of its files are there,
 * each file asked about once. */
#include "probe.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "multi.h"

/* the size of the regular file at path, -1 when it is none (absent, a directory, ...) */
static long long regular_size(const char *path, int *there)
{
        struct stat st;
        int ok = stat(path, &st) == 0;
        if (there)
                *there = ok;
        return ok && S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
}

/* What streaming keys on: a pmc_perf.csv there decides (a directory in its place is no
 * big file); else the database, the directory's prism.db or path itself. */
static long long data_bytes(const char *path)
{
        char *pmc = xasprintf("%s/pmc_perf.csv", path);
        int there;
        long long n = regular_size(pmc, &there);
        free(pmc);
        if (there)
                return n;
        char *db = xasprintf("%s/%s", path, DB_DEFAULT_NAME);
        n = regular_size(db, NULL);
        free(db);
        return n >= 0 ? n : regular_size(path, NULL);
}

/* pmc_perf.csv[.gz], or 3.6+'s results files, in any form (formats_detect says more) */
static int pmc_there(const char *dir)
{
        char *pmc = formats_pmc_file(dir);
        int r = !strcmp(pmc, "?") || access(pmc, F_OK) == 0;
        free(pmc);
        /* else any results file, whatever its kind (its load names a bad one) */
        size_t np = 0;
        char **pf = r ? NULL : formats_csv_files(dir, "results_", &np);
        free_all((void *const *)pf, np);
        free(pf);
        return r || np > 0;
}

int store_probe(const char *path, struct store_probe *p, struct err *err)
{
        memset(p, 0, sizeof *p);
        p->path = xstrdup(path);
        p->data_bytes = data_bytes(path);
        /* a directory is never a database (db_is_path's first question) */
        int dir = is_dir(path);
        if (!dir && db_is_path(path)) {
                p->kind = STORE_DB;
                p->db = xstrdup(path);
                return 0;
        }
        p->kind = STORE_DIR;
        if (!dir)
                return err_set(err, ERR_INPUT, "cannot open workload '%s': not a directory", path);
        p->sys = xasprintf("%s/sysinfo.csv", path);
        int sys_there;
        if (regular_size(p->sys, &sys_there) < 0 && !is_file_in(path, "pmc_perf.csv")) {
                if (is_file_in(path, DB_DEFAULT_NAME)) {
                        p->kind = STORE_DB;
                        p->db = xasprintf("%s/%s", path, DB_DEFAULT_NAME);
                        return 0;
                }
                if (multi_is_tree(path)) {
                        p->kind = STORE_RANKS;
                        return 0;
                }
        }
        /* present in any form: a directory or a pipe there is an error naming the file
         * (its load's), not "no such file" */
        if (!sys_there) {
                char *pmc = formats_pmc_file(path);
                int rc = access(pmc, F_OK) == 0
                                 ? err_set(err, ERR_INPUT,
                                           "cannot open workload '%s': no sysinfo.csv", path)
                                 : err_set(err, ERR_INPUT,
                                           "cannot open workload '%s': no pmc_perf.csv or "
                                           "sysinfo.csv found",
                                           path);
                free(pmc);
                return rc;
        }
        p->pmc_there = pmc_there(path);
        return 0;
}

void store_probe_free(struct store_probe *p)
{
        free(p->path);
        free(p->db);
        free(p->sys);
        free_all((void *const *)p->accum, p->naccum);
        free(p->accum);
        csv_texts_free(&p->ct);
        memset(p, 0, sizeof *p);
}
