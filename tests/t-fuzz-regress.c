/* Every input the fuzzers ever crashed on (fuzz/regress/<target>/) and every seed
 * (fuzz/corpus/<target>/), fed through the fuzz targets' own entry points, linked
 * normally (no libFuzzer): a finding that comes back aborts this test. Under `make asan`
 * the sanitizers watch it too. Run from the repository root (as tests/run-all.sh does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRISM_FUZZ_NO_ENTRY
#include "../fuzz/fuzz_csv.c"
#include "../fuzz/fuzz_db.c"
#include "../fuzz/fuzz_expr.c"
#include "../fuzz/fuzz_pcsamp.c"
#include "../fuzz/fuzz_yaml_metrics.c"
#include "../fuzz/fuzz_yaml_panels.c"

struct target {
        const char *name;
        int (*fn)(const uint8_t *, size_t);
};

static const struct target targets[] = {
    {"csv", fuzz_csv},
    {"expr", fuzz_expr},
    {"yaml_metrics", fuzz_yaml_metrics},
    {"yaml_panels", fuzz_yaml_panels},
    {"db", fuzz_db},
    {"pcsamp", fuzz_pcsamp},
};

static int cmp_name(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Feed every regular file of dir to fn; returns how many there were. */
static size_t feed_dir(const char *dir, int (*fn)(const uint8_t *, size_t))
{
        DIR *d = opendir(dir);
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        if (!d)
                return 0;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                xgrow(&names, &cap, n + 1, sizeof *names);
                names[n++] = xasprintf("%s/%s", dir, de->d_name);
        }
        closedir(d);
        if (n)
                qsort(names, n, sizeof *names, cmp_name);
        size_t fed = 0;
        for (size_t i = 0; i < n; i++) {
                struct err err = {0};
                size_t len = 0;
                char *data = is_file(names[i]) ? read_file(names[i], &len, &err) : NULL;
                if (data) {
                        fn((const uint8_t *)data, len);
                        fed++;
                }
                free(data);
                free(names[i]);
        }
        free(names);
        return fed;
}

static void test_target(void **state)
{
        const struct target *t = *state;
        char *regress = xasprintf("fuzz/regress/%s", t->name);
        char *corpus = xasprintf("fuzz/corpus/%s", t->name);
        if (!is_dir(corpus)) {
                free(regress);
                free(corpus);
                skip(); /* not run from the repository root */
        }
        size_t n = feed_dir(regress, t->fn) + feed_dir(corpus, t->fn);
        print_message("fuzz_%s: %zu inputs\n", t->name, n);
        assert_true(n > 0);
        free(regress);
        free(corpus);
}

static int setup(void **state)
{
        (void)state;
        warn_quiet = 1;
        return 0;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            {"fuzz_csv", test_target, NULL, NULL, (void *)&targets[0]},
            {"fuzz_expr", test_target, NULL, NULL, (void *)&targets[1]},
            {"fuzz_yaml_metrics", test_target, NULL, NULL, (void *)&targets[2]},
            {"fuzz_yaml_panels", test_target, NULL, NULL, (void *)&targets[3]},
            {"fuzz_db", test_target, NULL, NULL, (void *)&targets[4]},
            {"fuzz_pcsamp", test_target, NULL, NULL, (void *)&targets[5]},
        };
        return cmocka_run_group_tests(tests, setup, NULL);
}
