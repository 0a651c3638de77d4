/* Open a rocprof-compute workload directory: sysinfo.csv, pmc_perf.csv, the accumulate
 * tables SQ*.csv (aligned with pmc_perf by row), and roofline.csv when present. */
#include "workload.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int workload_open(const char *path, struct workload *w, struct err *err)
{
        int rc = 0;
        char *f = NULL;
        memset(w, 0, sizeof *w);
        w->path = xstrdup(path);
        if (!is_dir(path)) {
                rc = err_set(err, ERR_INPUT, "cannot open workload '%s': not a directory", path);
                goto out;
        }
        f = xasprintf("%s/sysinfo.csv", path);
        char *pmc = xasprintf("%s/pmc_perf.csv", path);
        int have_sys = is_file(f), have_pmc = is_file(pmc);
        free(pmc);
        if (!have_sys && !have_pmc) {
                rc = err_set(err, ERR_INPUT,
                             "cannot open workload '%s': no pmc_perf.csv or sysinfo.csv found",
                             path);
                goto out;
        }
        if (!have_sys) {
                rc = err_set(err, ERR_INPUT, "cannot open workload '%s': no sysinfo.csv", path);
                goto out;
        }
        if ((rc = table_load_csv(&w->sysinfo, f, err)))
                goto out;
        if (w->sysinfo.nrows < 1) {
                rc = err_set(err, ERR_INPUT, "%s: no data row", f);
                goto out;
        }
        const char *arch = workload_sys_str(w, "gpu_arch");
        if (!arch || !*arch) {
                rc = err_set(err, ERR_INPUT, "%s: no gpu_arch field", f);
                goto out;
        }
        w->arch = xstrdup(arch);
        const char *model = workload_sys_str(w, "gpu_model");
        w->model = xstrdup(model ? model : "");
        free(f);
        f = xasprintf("%s/pmc_perf.csv", path);
        if (!have_pmc) {
                rc = err_set(err, ERR_INPUT, "cannot open workload '%s': no pmc_perf.csv", path);
                goto out;
        }
        if ((rc = table_load_csv(&w->pmc, f, err)))
                goto out;
        if (w->pmc.nrows == 0) {
                rc = err_set(err, ERR_INPUT, "%s: no dispatches recorded", f);
                goto out;
        }
        if (table_col(&w->pmc, "Kernel_Name") < 0) {
                rc = err_set(err, ERR_INPUT, "%s: no Kernel_Name column", f);
                goto out;
        }
        /* accumulate tables */
        DIR *d = opendir(path);
        char **names = NULL;
        size_t nn = 0, cap = 0;
        struct dirent *de;
        while (d && (de = readdir(d))) {
                size_t l = strlen(de->d_name);
                if (l > 6 && !strncmp(de->d_name, "SQ", 2) && !strcmp(de->d_name + l - 4, ".csv")) {
                        xgrow(&names, &cap, nn + 1, sizeof *names);
                        names[nn++] = xstrndup(de->d_name, l - 4);
                }
        }
        if (d)
                closedir(d);
        qsort(names, nn, sizeof *names, cmp_str);
        w->acc = xcalloc(nn ? nn : 1, sizeof *w->acc);
        w->acc_names = xcalloc(nn ? nn : 1, sizeof *w->acc_names);
        for (size_t i = 0; i < nn; i++) {
                char *p = xasprintf("%s/%s.csv", path, names[i]);
                struct err e2 = {0};
                if (table_load_csv(&w->acc[w->nacc], p, &e2)) {
                        warnf("%s; metrics that need it are n/a", e2.msg);
                        free(names[i]);
                } else {
                        if (w->acc[w->nacc].nrows != w->pmc.nrows)
                                warnf("%s: %zu rows but pmc_perf.csv has %zu; rows are matched "
                                      "by position",
                                      p, w->acc[w->nacc].nrows, w->pmc.nrows);
                        w->acc_names[w->nacc++] = names[i];
                }
                free(p);
        }
        free(names);
        free(f);
        f = xasprintf("%s/roofline.csv", path);
        if (is_file(f)) {
                struct err e2 = {0};
                if (table_load_csv(&w->roofline, f, &e2))
                        warnf("%s; the roofline is not shown", e2.msg);
                else
                        w->has_roofline = 1;
        }
out:
        free(f);
        if (rc)
                workload_close(w);
        return rc;
}

void workload_close(struct workload *w)
{
        table_free(&w->sysinfo);
        table_free(&w->pmc);
        for (size_t i = 0; i < w->nacc; i++) {
                table_free(&w->acc[i]);
                free(w->acc_names[i]);
        }
        free(w->acc);
        free(w->acc_names);
        table_free(&w->roofline);
        free(w->path);
        free(w->arch);
        free(w->model);
        memset(w, 0, sizeof *w);
}

const struct table *workload_table(const struct workload *w, const char *name)
{
        if (!name || !strcmp(name, "pmc_perf"))
                return &w->pmc;
        for (size_t i = 0; i < w->nacc; i++)
                if (!strcmp(w->acc_names[i], name))
                        return &w->acc[i];
        return NULL;
}

double workload_sys_num(const struct workload *w, const char *field)
{
        int c = table_col(&w->sysinfo, field);
        if (c < 0 || w->sysinfo.nrows < 1)
                return NAN;
        return w->sysinfo.num[c][0];
}

const char *workload_sys_str(const struct workload *w, const char *field)
{
        static char buf[64];
        int c = table_col(&w->sysinfo, field);
        if (c < 0 || w->sysinfo.nrows < 1)
                return NULL;
        return table_cell(&w->sysinfo, c, 0, buf, sizeof buf);
}
