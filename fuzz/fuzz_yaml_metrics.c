/* libFuzzer target for the metric file loader (src/arch/arch.c, yamldoc.c, and the
 * expression parser on every formula): the input is one or two metric files, split at a
 * line "---8<---", loaded as a directory of metric files for every target they serve.
 * Errors must be one line naming the file they come from. */
#include <string.h>

#include "arch/arch.h"
#include "fuzz.h"

static void metrics_fz_name(void *ctx, const char *name, int dollar)
{
        (void)dollar;
        FUZZ_CHECK(name != NULL);
        ++*(size_t *)ctx;
}

/* after a load, every formula of a metric that is not a per-channel template is parsed */
static void metrics_fz_field(const struct metric *m, const struct metric_field *f,
                             size_t *names)
{
        FUZZ_CHECK(m->is_template || !f->src || f->expr);
        if (f->expr)
                expr_names(f->expr, metrics_fz_name, names);
}

static void metrics_fz_check_err(const struct err *err, const char *dir, int names_file)
{
        FUZZ_CHECK(err->code != 0 && err->msg[0]);
        if (strchr(err->msg, '\n'))
                fprintf(stderr, "multi-line message: %s\n", err->msg);
        FUZZ_CHECK(!strchr(err->msg, '\n'));
        if (names_file && !strstr(err->msg, dir))
                fprintf(stderr, "message names no file: %s\n", err->msg);
        FUZZ_CHECK(!names_file || strstr(err->msg, dir));
}

int fuzz_yaml_metrics(const uint8_t *data, size_t n)
{
        char dbuf[300];
        const char *dir = fuzz_subdir("metrics", dbuf, sizeof dbuf);
        size_t rest, first = fuzz_split(data, n, &rest);
        char *a = fuzz_write(dir, "a.yaml", data, first);
        char *b = fuzz_write(dir, "b.yaml", rest < n ? data + rest : NULL, n - rest);
        char **targets = NULL;
        size_t nt = 0;
        struct err err = {0};
        warn_quiet = 1;

        if (arch_list(dir, &targets, &nt, &err)) {
                metrics_fz_check_err(&err, dir, 1);
                goto out;
        }
        for (size_t i = 0; i < nt && i < 4; i++) {
                struct arch ar;
                struct err e2 = {0};
                if (arch_load(dir, targets[i], &ar, &e2)) {
                        metrics_fz_check_err(&e2, dir, 1);
                        continue;
                }
                size_t names = 0;
                for (size_t m = 0; m < ar.nmetrics; m++) {
                        const struct metric *mt = &ar.metrics[m];
                        FUZZ_CHECK(mt->key && mt->name);
                        FUZZ_CHECK(arch_metric(&ar, mt->key) == mt);
                        metrics_fz_field(mt, &mt->expr, &names);
                        metrics_fz_field(mt, &mt->peak, &names);
                        for (size_t j = 0; j < mt->nfields; j++)
                                metrics_fz_field(mt, &mt->fields[j], &names);
                        for (size_t j = 0; j < mt->noverrides; j++)
                                metrics_fz_field(mt, &mt->overrides[j], &names);
                }
                for (size_t j = 0; j < ar.nlimits; j++)
                        FUZZ_CHECK(arch_block_limit(&ar, ar.limits[j].block) != -2);
                for (size_t j = 0; j < ar.ndefaults; j++)
                        (void)arch_default(&ar, ar.defaults[j].name);
                arch_free(&ar);
        }
        /* a target the files do not serve fails with one line (the fuzzer may learn to
         * serve this one) */
        int served = 0;
        for (size_t i = 0; i < nt; i++)
                served |= !strcmp(targets[i], "gfx_not_a_target");
        if (!served) {
                struct arch ar;
                struct err e3 = {0};
                FUZZ_CHECK(arch_load(dir, "gfx_not_a_target", &ar, &e3) != 0);
                metrics_fz_check_err(&e3, dir, 0);
        }
out:
        for (size_t i = 0; i < nt; i++)
                free(targets[i]);
        free(targets);
        free(a);
        free(b);
        return 0;
}

#ifndef PRISM_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
        return fuzz_yaml_metrics(data, n);
}
#endif
