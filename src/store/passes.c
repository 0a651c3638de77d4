/* rocprof-compute 3.6+'s per-pass layout (docs/FORMATS.md): one results_*.csv file per
 * pass (gzip-compressed, .csv.gz, from 3.9), each in rocpd's long layout, listed by
 * perfmon/<pass>.yaml; and sysinfo.csv's renamed fields. The rows are grouped by rocpd.c. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "bytesrc.h"
#include "formats.h"

static struct pass_rules rules_now;

void formats_rules_set(const struct pass_rules *r)
{
        rules_now = r ? *r : (struct pass_rules){0};
}

struct pass_rules formats_rules(void)
{
        return rules_now;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the part of name between prefix and .csv or .csv.gz, its length, or 0 when name is no
 * such file */
static size_t csv_stem(const char *name, const char *prefix, const char **stem)
{
        size_t l = strlen(name), lp = strlen(prefix);
        if (strncmp(name, prefix, lp))
                return 0;
        size_t end = l >= 7 && !strcmp(name + l - 7, ".csv.gz") ? l - 7
                     : l >= 4 && !strcmp(name + l - 4, ".csv")  ? l - 4
                                                                 : 0;
        if (end <= lp)
                return 0;
        *stem = name + lp;
        return end - lp;
}

/* the pass a results file name is of ("pmc_perf_3" for results_pmc_perf_3.csv[.gz]), its
 * length, or 0 when name is none */
static size_t pass_of(const char *name, const char **pass)
{
        return csv_stem(name, "results_", pass);
}

char **formats_csv_files(const char *dir, const char *prefix, size_t *n)
{
        char **v = NULL;
        size_t cap = 0;
        const char *stem;
        *n = 0;
        DIR *d = opendir(dir);
        struct dirent *de;
        while (d && (de = readdir(d)))
                if (csv_stem(de->d_name, prefix, &stem)) {
                        xgrow(&v, &cap, *n + 1, sizeof *v);
                        v[(*n)++] = xasprintf("%s/%s", dir, de->d_name);
                }
        if (d)
                closedir(d);
        if (*n)
                qsort(v, *n, sizeof *v, cmp_str);
        return v;
}

int passes_list(const char *dir, char ***files, size_t *nfiles, struct err *err)
{
        size_t n;
        char **v = formats_csv_files(dir, "results_", &n);
        int rc = 0;
        *files = NULL;
        *nfiles = 0;
        for (size_t i = 0; !rc && i < n; i++)
                if (!is_file(v[i])) /* a directory or a pipe of that name: its error */
                        rc = err_set(err, ERR_INPUT, "'%s' is not a regular file", v[i]);
        /* in name order, as rocprof-compute's analyze concatenates them (results_pmc_perf_10
         * before results_pmc_perf_2): a counter given by two passes takes the later's */
        for (size_t i = 0; !rc && i + 1 < n; i++) {
                const char *a, *b, *na = strrchr(v[i], '/') + 1, *nb = strrchr(v[i + 1], '/') + 1;
                size_t la = pass_of(na, &a), lb = pass_of(nb, &b);
                if (la == lb && !strncmp(a, b, la))
                        rc = err_set(err, ERR_INPUT,
                                     "%s: pass '%.*s' also in %s (plain and gzip: which one "
                                     "is the pass?)",
                                     v[i + 1], (int)la, a, na);
        }
        if (rc) {
                free_all((void *const *)v, n);
                free(v);
                return rc;
        }
        *files = v;
        *nfiles = n;
        return 0;
}

int passes_check_end(const char *path, struct err *err)
{
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
                return 0; /* the load reports it */
        unsigned char head[2], last = '\n';
        struct stat st;
        int rc = 0;
        if (fstat(fd, &st) == 0 && st.st_size > 2 && pread(fd, head, 2, 0) == 2 &&
            !bsrc_is_gzip(head, 2) && pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
                rc = err_set(err, ERR_INPUT,
                             "%s: the last line has no end: a truncated pass file (every "
                             "line rocprof-compute writes ends)",
                             path);
        close(fd);
        return rc;
}

/* The passes perfmon/ lists (<pass>.yaml files beside the ones of accumulate counters):
 * a results file of a pass it does not list is an error (a file from another profile?);
 * a listed pass without results warns (its counters are n/a). No perfmon/ or no .yaml
 * in it: nothing to check. */
int passes_check_perfmon(const char *dir, char *const *files, size_t n, int warn_lost,
                         struct err *err)
{
        char *pm = xasprintf("%s/perfmon", dir);
        DIR *d = opendir(pm);
        char **listed = NULL;
        size_t nl = 0, cap = 0;
        int rc = 0;
        struct dirent *de;
        while (d && (de = readdir(d))) {
                size_t l = strlen(de->d_name);
                if (l > 5 && !strcmp(de->d_name + l - 5, ".yaml") && de->d_name[0] != '.') {
                        xgrow(&listed, &cap, nl + 1, sizeof *listed);
                        listed[nl++] = xstrndup(de->d_name, l - 5);
                }
        }
        if (d)
                closedir(d);
        char *used = xcalloc(nl ? nl : 1, 1);
        for (size_t i = 0; nl && !rc && i < n; i++) {
                const char *pass, *name = strrchr(files[i], '/') + 1;
                size_t pl = pass_of(name, &pass), k;
                for (k = 0; k < nl && !(strlen(listed[k]) == pl && !strncmp(listed[k], pass, pl));
                     k++)
                        ;
                if (k == nl)
                        rc = err_set(err, ERR_INPUT,
                                     "%s: a pass that perfmon/ does not list (no "
                                     "perfmon/%.*s.yaml): from another profile?",
                                     files[i], (int)pl, pass);
                else
                        used[k] = 1;
        }
        /* a listed pass (pmc_perf_N) whose results are missing: its counters are n/a */
        for (size_t k = 0; warn_lost && !rc && k < nl; k++)
                if (!used[k] && !strncmp(listed[k], "pmc_perf_", 9))
                        warnf("%s/%s.yaml: a pass with no results_%s.csv[.gz]; the metrics that "
                              "use its counters are n/a",
                              pm, listed[k], listed[k]);
        free(used);
        free_all((void *const *)listed, nl);
        free(listed);
        free(pm);
        return rc;
}

/* ---- sysinfo.csv's renamed fields ---- */

/* rocprof-compute 3.8 renamed num_hbm_channels to num_memory_channels and workload_name to
 * workload_path. The fields take the names of the version in force (pass_rules'
 * new_sysinfo_names), where its formulas and its system table read them; one holding both
 * names is of no version: an error. */
int formats_sysinfo_names(struct table *sys, const char *path, struct err *err)
{
        static const char *const pairs[][2] = {{"num_hbm_channels", "num_memory_channels"},
                                               {"workload_name", "workload_path"}};
        int to_new = rules_now.new_sysinfo_names;
        for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
                int a = table_col(sys, pairs[i][0]), b = table_col(sys, pairs[i][1]);
                if (a >= 0 && b >= 0)
                        return err_set(err, ERR_INPUT,
                                       "%s: both '%s' and its later name '%s' (no "
                                       "rocprof-compute version writes both)",
                                       path, pairs[i][0], pairs[i][1]);
                if (to_new && a >= 0)
                        table_rename_col(sys, a, pairs[i][1]);
                else if (!to_new && b >= 0)
                        table_rename_col(sys, b, pairs[i][0]);
        }
        return 0;
}
