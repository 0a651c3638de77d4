/* A workload once open (workload.h): its tables and sysinfo fields, the accumulate
 * column's alias, and workload_close. Apart from the opener (workload.c), so that the
 * stores the opener reads (db_read.c, multi.c) can use an open workload without calling
 * back into the opener. */
#include "workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "wstream.h"

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
        table_free(&w->ranks);
        table_free(&w->ksyms);
        spill_free(w->spill);
        free(w->path);
        free(w->arch);
        free(w->model);
        free(w->sysinfo_file);
        memset(w, 0, sizeof *w);
}

void workload_accum_value(struct workload *w, const char *name)
{
        for (size_t i = 0; name && i < w->nacc; i++)
                formats_accum_alias(&w->acc[i], w->acc_names[i], name);
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
        static _Thread_local char buf[64]; /* a number's text: one per thread */
        int c = table_col(&w->sysinfo, field);
        if (c < 0 || w->sysinfo.nrows < 1)
                return NULL;
        return table_cell(&w->sysinfo, c, 0, buf, sizeof buf);
}
