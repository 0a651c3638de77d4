/* Replay modes with a fake collector backend (no GPU): the mode a profile picks, that
 * kernel replay collects every pass in one run with the values application replay gives,
 * the fallback to application replay for dispatches (or a whole run) kernel replay could not
 * collect, the one-line error for a mode the backend lacks, --ranks, and the progress line
 * (its text at given k/N/elapsed; a non-terminal gets plain lines only). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/backend.h"
#include "profile/profile.h"
#include "profile/progress.h"
#include "profile/runs.h"
#include "store/table.h"
#include "util/util.h"
#include "store/columns.h"

/* ---- the fake backend ---- */

static struct {
        unsigned modes;
        const char *unreplayable; /* kernel whose dispatches kernel replay cannot collect */
        int kernel_fails;         /* a kernel-replay run fails as a whole */
        int all_fail;             /* every run fails (the program does) */
        size_t calls, kernel_calls, filtered_calls;
        long last_filter;         /* the one dispatch of the last filtered call */
        size_t flush_calls;       /* runs asked to flush the caches before each kernel */
        size_t inst_max;          /* the most instrumented counters one run was told of */
        size_t inst_bad;          /* counters told instrumented that are no SASS metric, or
                                     SASS metrics not told so (kernel replay), or any told
                                     (application replay) */
} fk;

static int want_cache; /* the --cache-control of profile() below */

static const char *const kernels[] = {"a(float*)", "b(int)", "a(float*)"};

static int fake_available(void)
{
        return 1;
}

static int fake_detect(struct table *si, struct err *err)
{
        (void)err;
        table_add_row(si);
        table_set_str(si, table_add_col(si, "gpu_arch"), 0, "sm_90");
        table_set_str(si, table_add_col(si, "gpu_model"), 0, "H100");
        table_set_num(si, table_add_col(si, "total_l2_chan"), 0, 80);
        return 0;
}

/* hardware passes: SASS metrics alone need one, hardware counters one per 24 */
static int fake_passes(const char *chip, const char *const *c, size_t n, struct err *err)
{
        (void)chip;
        (void)err;
        size_t hw = 0, sass = 0;
        for (size_t i = 0; i < n; i++)
                strstr(c[i], "sass") ? sass++ : hw++;
        return (int)((hw + 23) / 24 + (sass ? 1 : 0));
}

static double value(const char *counter, long dispatch)
{
        unsigned h = 5381;
        for (const char *s = counter; *s; s++)
                h = h * 33 + (unsigned char)*s;
        return (double)(h % 1000 + 1) * (double)(dispatch + 1);
}

static int fake_run(const struct backend_pass *p, struct table *out, struct err *err)
{
        fk.calls++;
        fk.flush_calls += p->flush_caches != 0;
        int kernel = p->replay == REPLAY_KERNEL;
        if (fk.all_fail)
                return err_set(err, ERR_SYS, "pass %d: target exited with status 3", p->index);
        if (p->ninstrumented > fk.inst_max)
                fk.inst_max = p->ninstrumented;
        for (size_t i = 0; i < p->ncounters; i++) {
                int told = 0;
                for (size_t k = 0; k < p->ninstrumented; k++)
                        told |= !strcmp(p->instrumented[k], p->counters[i]);
                fk.inst_bad += kernel ? told != (strstr(p->counters[i], "__sass_") != NULL) : told;
        }
        for (size_t k = 0; k < p->ninstrumented; k++)
                fk.inst_bad += !strstr(p->instrumented[k], "__sass_");
        if (kernel) {
                fk.kernel_calls++;
                if (fk.kernel_fails)
                        return err_set(err, ERR_SYS, "pass %d: replay impossible", p->index);
        }
        if (p->ndispatches == 1 && p->dispatches) {
                fk.filtered_calls++;
                fk.last_filter = p->dispatches[0];
        }
        for (size_t i = 0; dispatch_info_cols[i]; i++)
                table_add_col(out, dispatch_info_cols[i]);
        for (size_t i = 0; i < p->ncounters; i++)
                if (table_col(out, p->counters[i]) < 0)
                        table_add_col(out, p->counters[i]);
        table_add_col(out, "Start_Timestamp");
        table_add_col(out, "End_Timestamp");
        if (kernel)
                table_add_col(out, "Replayed");
        for (long d = 0; d < 3; d++) {
                int keep = !p->dispatches;
                for (size_t i = 0; p->dispatches && i < p->ndispatches; i++)
                        keep |= p->dispatches[i] == d;
                if (!keep)
                        continue;
                size_t r = table_add_row(out);
                int bad = kernel && fk.unreplayable && !strcmp(kernels[d], fk.unreplayable);
                for (size_t c = 0; c < out->ncols; c++) {
                        const char *nm = out->names[c];
                        double v = value(nm, d);
                        if (!strcmp(nm, "Dispatch_ID"))
                                v = (double)d;
                        else if (!strcmp(nm, "Kernel_Name")) {
                                table_set_str(out, (int)c, r, kernels[d]);
                                continue;
                        } else if (!strcmp(nm, "Start_Timestamp"))
                                v = 1000.0 * (double)(d + 1);
                        else if (!strcmp(nm, "End_Timestamp"))
                                v = 1000.0 * (double)(d + 1) + 500;
                        else if (!strcmp(nm, "Replayed"))
                                v = !bad;
                        else if (bad && strstr(nm, "__"))
                                v = NAN;
                        table_set_num(out, (int)c, r, v);
                }
                if (p->progress)
                        p->progress(p->progress_ctx, d, kernels[d]);
        }
        return 0;
}

static struct backend fake = {
    .name = "fake",
    .available = fake_available,
    .detect = fake_detect,
    .run_pass = fake_run,
    .num_passes = fake_passes,
};

/* ---- helpers ---- */

static char tmpdir[64];
static char *argv_true[] = {"true", NULL};

static int setup(void **state)
{
        (void)state;
        snprintf(tmpdir, sizeof tmpdir, "/tmp/prism-t-replay.XXXXXX");
        assert_non_null(mkdtemp(tmpdir));
        setenv("PRISM_CACHE_DIR", "none", 1);
        return 0;
}

static int teardown(void **state)
{
        (void)state;
        runs_remove_tree(tmpdir);
        return 0;
}

static int profile(const char *name, int replay, struct profile_result *res, struct table *pmc,
                   struct err *err)
{
        const char *data = getenv("PRISM_DATA_DIR");
        char *mdir = xasprintf("%s/metrics", data && *data ? data : ".");
        char *dir = xasprintf("%s/%s", tmpdir, name);
        struct profile_opts o = {.path = dir, .argv = argv_true, .metrics_dir = mdir,
                                 .replay = replay, .backend_impl = &fake, .force = 1,
                                 .cache_control = want_cache};
        memset(err, 0, sizeof *err);
        int rc = profile_run(&o, res, err);
        if (!rc && pmc) {
                char *csv = xasprintf("%s/pmc_perf.csv", dir);
                table_init(pmc);
                assert_int_equal(table_load_csv(pmc, csv, err), 0);
                free(csv);
        }
        free(mdir);
        free(dir);
        return rc;
}

/* every counter column of a equals b's */
static void same_counters(const struct table *a, const struct table *b)
{
        assert_int_equal(a->nrows, b->nrows);
        size_t n = 0;
        for (size_t c = 0; c < a->ncols; c++) {
                if (!strstr(a->names[c], "__"))
                        continue;
                int bc = table_col(b, a->names[c]);
                assert_true(bc >= 0);
                for (size_t r = 0; r < a->nrows; r++) {
                        if (a->num[c][r] != b->num[bc][r])
                                fail_msg("%s row %zu: %g against %g", a->names[c], r,
                                         a->num[c][r], b->num[bc][r]);
                        n++;
                }
        }
        assert_true(n > 100);
}

/* ---- tests ---- */

static void test_kernel_default_same_values(void **state)
{
        (void)state;
        struct profile_result rk, ra;
        struct table tk, ta;
        struct err err;
        memset(&fk, 0, sizeof fk);
        fk.modes = fake.replay_modes = REPLAY_APPLICATION | REPLAY_KERNEL;
        assert_int_equal(profile("k", REPLAY_AUTO, &rk, &tk, &err), 0);
        assert_int_equal(rk.replay, REPLAY_KERNEL);
        assert_int_equal(rk.runs, 1);
        assert_int_equal(fk.calls, 1);
        assert_int_equal(fk.kernel_calls, 1);
        assert_true(rk.passes > 3);
        assert_int_equal(rk.fell_back, 0);
        assert_int_equal(tk.nrows, 3);
        assert_true(table_col(&tk, "Replayed") < 0);
        /* the SASS metrics of the plan are named to the backend (its own replay leaves them
         * to the profiler's), and only they */
        assert_true(fk.inst_max > 3);
        assert_int_equal(fk.inst_bad, 0);
        memset(&fk, 0, sizeof fk);
        assert_int_equal(profile("a", REPLAY_APPLICATION, &ra, &ta, &err), 0);
        assert_int_equal(ra.replay, REPLAY_APPLICATION);
        assert_int_equal(ra.runs, ra.passes);
        assert_int_equal(fk.kernel_calls, 0);
        assert_int_equal(fk.inst_max, 0);
        assert_int_equal(fk.inst_bad, 0);
        same_counters(&ta, &tk);
        table_free(&tk);
        table_free(&ta);
        profile_result_free(&rk);
        profile_result_free(&ra);
}

static void test_unsupported_mode(void **state)
{
        (void)state;
        struct profile_result r;
        struct err err;
        memset(&fk, 0, sizeof fk);
        fake.replay_modes = 0; /* application replay only, as rocprof */
        assert_int_equal(profile("u", REPLAY_KERNEL, &r, NULL, &err), ERR_USAGE);
        assert_string_equal(err.msg, "--replay kernel: the fake backend supports only "
                                     "application replay");
        assert_null(strchr(err.msg, '\n'));
        assert_int_equal(fk.calls, 0);
        /* auto picks application replay there */
        assert_int_equal(profile("u2", REPLAY_AUTO, &r, NULL, &err), 0);
        assert_int_equal(r.replay, REPLAY_APPLICATION);
        assert_int_equal(fk.kernel_calls, 0);
        profile_result_free(&r);
        fake.replay_modes = REPLAY_APPLICATION | REPLAY_KERNEL;
}

/* the sysinfo.csv value of column col in workload name */
static char *sysinfo_value(const char *name, const char *col)
{
        char *path = xasprintf("%s/%s/sysinfo.csv", tmpdir, name);
        struct table si;
        struct err err = {0};
        table_init(&si);
        assert_int_equal(table_load_csv(&si, path, &err), 0);
        int c = table_col(&si, col);
        assert_true(c >= 0);
        char buf[64];
        char *v = xstrdup(table_cell(&si, c, 0, buf, sizeof buf));
        table_free(&si);
        free(path);
        return v;
}

static void test_cache_control(void **state)
{
        (void)state;
        struct profile_result r;
        struct err err;
        fake.replay_modes = REPLAY_APPLICATION | REPLAY_KERNEL;
        /* a backend that can flush: flushed when asked, in both replay modes */
        fake.can_flush_caches = 1;
        memset(&fk, 0, sizeof fk);
        want_cache = CACHE_ALL;
        assert_int_equal(profile("c1", REPLAY_AUTO, &r, NULL, &err), 0);
        assert_int_equal(r.cache, CACHE_ALL);
        assert_true(fk.calls > 0);
        assert_int_equal(fk.flush_calls, fk.calls);
        char *v = sysinfo_value("c1", "cache_control");
        assert_string_equal(v, "all");
        free(v);
        profile_result_free(&r);
        memset(&fk, 0, sizeof fk);
        assert_int_equal(profile("c2", REPLAY_APPLICATION, &r, NULL, &err), 0);
        assert_true(fk.calls > 1);
        assert_int_equal(fk.flush_calls, fk.calls);
        profile_result_free(&r);
        /* none, and the default: no run is asked to flush */
        memset(&fk, 0, sizeof fk);
        want_cache = CACHE_AUTO;
        assert_int_equal(profile("c0", REPLAY_AUTO, &r, NULL, &err), 0);
        assert_int_equal(r.cache, CACHE_NONE);
        assert_int_equal(fk.flush_calls, 0);
        profile_result_free(&r);
        memset(&fk, 0, sizeof fk);
        want_cache = CACHE_NONE;
        assert_int_equal(profile("c3", REPLAY_AUTO, &r, NULL, &err), 0);
        assert_int_equal(r.cache, CACHE_NONE);
        assert_int_equal(fk.flush_calls, 0);
        v = sysinfo_value("c3", "cache_control");
        assert_string_equal(v, "none");
        free(v);
        profile_result_free(&r);
        /* a backend that cannot: none by default, all is a one-line usage error */
        fake.can_flush_caches = 0;
        memset(&fk, 0, sizeof fk);
        want_cache = CACHE_AUTO;
        assert_int_equal(profile("c4", REPLAY_AUTO, &r, NULL, &err), 0);
        assert_int_equal(r.cache, CACHE_NONE);
        assert_int_equal(fk.flush_calls, 0);
        profile_result_free(&r);
        want_cache = CACHE_ALL;
        memset(&fk, 0, sizeof fk);
        assert_int_equal(profile("c5", REPLAY_AUTO, &r, NULL, &err), ERR_USAGE);
        assert_string_equal(err.msg, "--cache-control all: the fake backend cannot flush the "
                                     "GPU caches between kernels (use --cache-control none)");
        assert_int_equal(fk.calls, 0);
        want_cache = CACHE_AUTO;
}

static void test_fallback_some(void **state)
{
        (void)state;
        struct profile_result r, ra;
        struct table t, ta;
        struct err err;
        memset(&fk, 0, sizeof fk);
        fake.replay_modes = REPLAY_APPLICATION | REPLAY_KERNEL;
        fk.unreplayable = "b(int)";
        assert_int_equal(profile("f", REPLAY_KERNEL, &r, &t, &err), 0);
        assert_int_equal(r.fell_back, 2);
        assert_int_equal(r.runs, 1 + r.passes);
        assert_int_equal(fk.kernel_calls, 1);
        assert_int_equal(fk.filtered_calls, r.passes); /* each pass: dispatch 1 alone */
        assert_int_equal(fk.last_filter, 1);
        fk.unreplayable = NULL;
        assert_int_equal(profile("fa", REPLAY_APPLICATION, &ra, &ta, &err), 0);
        same_counters(&ta, &t);
        table_free(&t);
        table_free(&ta);
        profile_result_free(&r);
        profile_result_free(&ra);
}

static void test_fallback_all(void **state)
{
        (void)state;
        struct profile_result r;
        struct table t;
        struct err err;
        memset(&fk, 0, sizeof fk);
        fk.kernel_fails = 1;
        assert_int_equal(profile("x", REPLAY_KERNEL, &r, &t, &err), 0);
        assert_int_equal(r.fell_back, 1);
        assert_int_equal(r.runs, 1 + r.passes);
        assert_int_equal(fk.kernel_calls, 1);
        assert_int_equal(t.nrows, 3);
        assert_true(!isnan(t.num[table_col(&t, "gpu__time_duration.sum")][1]));
        table_free(&t);
        profile_result_free(&r);
}

static void test_ranks(void **state)
{
        (void)state;
        struct profile_result r;
        struct err err;
        memset(&fk, 0, sizeof fk);
        setenv("OMPI_COMM_WORLD_RANK", "1", 1);
        setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
        setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
        setenv("PRISM_CUPTI_LOCK", "/dev/null", 1);
        const char *data = getenv("PRISM_DATA_DIR");
        char *mdir = xasprintf("%s/metrics", data && *data ? data : ".");
        char *dir = xasprintf("%s/ranks", tmpdir);
        long only0[] = {0};
        struct profile_opts o = {.path = dir, .argv = argv_true, .metrics_dir = mdir,
                                 .backend_impl = &fake, .ranks = only0, .nranks = 1};
        assert_int_equal(profile_run(&o, &r, &err), 0);
        assert_int_equal(r.skipped, 1);
        assert_int_equal(r.runs, 1); /* kernel replay: the profiled ranks run once */
        assert_int_equal(fk.calls, 0);
        assert_false(is_dir(dir));
        profile_result_free(&r);
        /* rank 1 listed: profiled, and a failure names the rank and its GPU */
        long only1[] = {1};
        o.ranks = only1;
        fk.all_fail = 1;
        assert_int_not_equal(profile_run(&o, &r, &err), 0);
        print_message("%s\n", err.msg);
        assert_non_null(strstr(err.msg, "rank 1, "));
        assert_non_null(strstr(err.msg, "target exited with status 3"));
        assert_non_null(strstr(err.msg, "no fallback"));
        assert_null(strchr(err.msg, '\n'));
        fk.all_fail = 0;
        fake.replay_modes = REPLAY_APPLICATION | REPLAY_KERNEL;
        unsetenv("OMPI_COMM_WORLD_RANK");
        unsetenv("OMPI_COMM_WORLD_SIZE");
        unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
        unsetenv("PRISM_CUPTI_LOCK");
        free(mdir);
        free(dir);
}

static void test_progress_text(void **state)
{
        (void)state;
        char buf[256];
        progress_format(buf, sizeof buf, "", 3, 14, 0, 4.1, -1, NULL, 0);
        assert_string_equal(buf, "pass 4 of 14 [####................] 4.1 s, about 15.0 s left");
        progress_format(buf, sizeof buf, "rank 1, GPU 0: ", 0, 14, 0, 0.2, -1, NULL, 0);
        assert_string_equal(buf, "rank 1, GPU 0: pass 1 of 14 [....................] 0.2 s");
        progress_format(buf, sizeof buf, "", 7, 8, 0, 70, -1, NULL, 0);
        assert_string_equal(buf, "pass 8 of 8 [#################...] 1:10, about 10.0 s left");
        progress_format(buf, sizeof buf, "", 0, 16, 1, 2.5, 37, "vec_copy(float*)", 0);
        assert_string_equal(buf,
                            "kernel replay, 16 passes per kernel: dispatch 37, 2.5 s: vec_copy(float*)");
        progress_format(buf, sizeof buf, "", 0, 16, 1, 2.5, 37, "vec_copy(float*)", 20);
        assert_string_equal(buf, "kernel replay, 16...");
        progress_duration(buf, sizeof buf, 3725);
        assert_string_equal(buf, "1:02:05");
}

static void test_progress_streams(void **state)
{
        (void)state;
        char *tb = NULL, *lb = NULL;
        size_t tl = 0, ll = 0;
        FILE *tty = open_memstream(&tb, &tl), *log = open_memstream(&lb, &ll);
        struct progress p;
        /* a terminal: the line redrawn in place, nothing in the log */
        progress_init(&p, tty, log, 2, 0, "");
        progress_start(&p, "pass 0 (1 of 2): 5 counters");
        progress_step(&p);
        progress_end(&p);
        fflush(tty);
        fflush(log);
        assert_non_null(strstr(tb, "\r"));
        assert_non_null(strstr(tb, "\033[K"));
        assert_non_null(strstr(tb, "pass 2 of 2"));
        assert_int_equal(ll, 0);
        /* no terminal: plain lines, no carriage return or escape */
        progress_init(&p, NULL, log, 2, 0, "");
        progress_start(&p, "pass 0 (1 of 2): 5 counters");
        progress_kernel(&p, 3, "k");
        progress_step(&p);
        progress_start(&p, "pass 1 (2 of 2): 4 counters");
        progress_end(&p);
        fflush(log);
        assert_string_equal(lb, "pass 0 (1 of 2): 5 counters\npass 1 (2 of 2): 4 counters\n");
        fclose(tty);
        fclose(log);
        free(tb);
        free(lb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_kernel_default_same_values),
            cmocka_unit_test(test_unsupported_mode),
            cmocka_unit_test(test_cache_control),
            cmocka_unit_test(test_fallback_some),
            cmocka_unit_test(test_fallback_all),
            cmocka_unit_test(test_ranks),
            cmocka_unit_test(test_progress_text),
            cmocka_unit_test(test_progress_streams),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
