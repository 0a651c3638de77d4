/* cupti-passes: how many hardware passes CUPTI needs for a metric set, and what each metric
 * and each group of metrics adds to it. A measuring tool for the NVIDIA plan (bench/), not
 * part of prism: it asks libprism-cupti.so's exported pass count (the Profiler Host API; no
 * kernel runs, no GPU needed beyond CUPTI itself).
 *
 *   cupti-passes LIB CHIP FILE [MAXSECONDS]
 *
 * FILE: one metric per line; "[name]" starts a group; '#' lines are comments.
 * Prints: the total; each group alone and the total without it; each metric alone and the
 * total without it; then a greedy walk that drops, step by step, the metric whose removal
 * saves the most passes, until MAXSECONDS (default 120) have passed. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*passes_fn)(const char *, const char *const *, size_t, char *, size_t);

static passes_fn fn;
static const char *chip;

struct metric {
        char *name;
        int group;
        int on;
        int alone;
};

static struct metric *ms;
static size_t nm;
static char **groups;
static size_t ng;

static int count_if(int (*keep)(size_t, const void *), const void *arg)
{
        const char **list = malloc((nm + 1) * sizeof *list);
        size_t k = 0;
        for (size_t i = 0; i < nm; i++)
                if (keep(i, arg))
                        list[k++] = ms[i].name;
        char err[512] = "";
        int r = k ? fn(chip, list, k, err, sizeof err) : 0;
        if (r < 0)
                fprintf(stderr, "cupti-passes: %s\n", err);
        free(list);
        return r;
}

static int keep_on(size_t i, const void *a)
{
        (void)a;
        return ms[i].on;
}
static int keep_group(size_t i, const void *a)
{
        return ms[i].on && ms[i].group == *(const int *)a;
}
static int keep_not_group(size_t i, const void *a)
{
        return ms[i].on && ms[i].group != *(const int *)a;
}
static int keep_one(size_t i, const void *a)
{
        return i == *(const size_t *)a;
}
static int keep_all_but(size_t i, const void *a)
{
        return ms[i].on && i != *(const size_t *)a;
}

static double now(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
        if (argc < 4) {
                fprintf(stderr, "usage: cupti-passes LIB CHIP FILE [MAXSECONDS]\n");
                return 2;
        }
        void *h = dlopen(argv[1], RTLD_NOW);
        if (!h) {
                fprintf(stderr, "cupti-passes: %s\n", dlerror());
                return 2;
        }
        *(void **)(&fn) = dlsym(h, "prism_cupti_num_passes");
        if (!fn) {
                fprintf(stderr, "cupti-passes: no prism_cupti_num_passes in %s\n", argv[1]);
                return 2;
        }
        chip = argv[2];
        double budget = argc > 4 ? atof(argv[4]) : 120;
        FILE *f = fopen(argv[3], "r");
        if (!f) {
                perror(argv[3]);
                return 2;
        }
        char line[512];
        int cur = -1;
        while (fgets(line, sizeof line, f)) {
                line[strcspn(line, "\r\n")] = 0;
                if (!line[0] || line[0] == '#')
                        continue;
                if (line[0] == '[') {
                        line[strcspn(line, "]")] = 0;
                        groups = realloc(groups, (ng + 1) * sizeof *groups);
                        groups[ng] = strdup(line + 1);
                        cur = (int)ng++;
                        continue;
                }
                ms = realloc(ms, (nm + 1) * sizeof *ms);
                ms[nm].name = strdup(line);
                ms[nm].group = cur;
                ms[nm].on = 1;
                nm++;
        }
        fclose(f);

        double t0 = now();
        int total = count_if(keep_on, NULL);
        printf("total %d metrics %zu (%.3f s per count)\n", total, nm, now() - t0);
        for (size_t g = 0; g < ng; g++) {
                int gi = (int)g;
                printf("group %-24s alone %3d  total without %3d\n", groups[g],
                       count_if(keep_group, &gi), count_if(keep_not_group, &gi));
        }
        for (size_t i = 0; i < nm; i++) {
                ms[i].alone = count_if(keep_one, &i);
                printf("metric %-80s alone %3d  total without %3d\n", ms[i].name, ms[i].alone,
                       count_if(keep_all_but, &i));
        }
        fflush(stdout);

        double start = now();
        int cur_total = total;
        while (now() - start < budget && cur_total > 1) {
                size_t best = (size_t)-1;
                int best_total = cur_total + 1;
                for (size_t i = 0; i < nm; i++) {
                        if (!ms[i].on)
                                continue;
                        int t = count_if(keep_all_but, &i);
                        if (t >= 0 && (t < best_total || (t == best_total && best != (size_t)-1 &&
                                                           ms[i].alone > ms[best].alone))) {
                                best_total = t;
                                best = i;
                        }
                }
                if (best == (size_t)-1)
                        break;
                ms[best].on = 0;
                cur_total = best_total;
                printf("drop %-80s -> %d\n", ms[best].name, cur_total);
                fflush(stdout);
        }
        return 0;
}
