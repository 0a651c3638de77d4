/* The workload session (src/analyze/session.c) on the recordings bundled with the tree
 * (tests/data/shared): the version rules of panels/versions, one and two workloads opened
 * (architecture, column projection, streaming), the errors of each step, and the
 * architecture --list-metrics lists. Run from the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "analyze/findings.h"
#include "analyze/session.h"
#include "render/render.h"
#include "util/esc.h"
#include "util/task.h"
#include "arch/versions.h"
#include "store/formats.h"
#include "tmpfiles.h"

#define WIDE_30 "tests/data/shared/rocprof-workloads/dispatch_0/MI200"
#define MI300X "tests/data/shared/rocprof-workloads/vcopy/MI300X_A1"

static int setup(void **state)
{
        (void)state;
        setenv("PRISM_DATA_DIR", ".", 1);
        unsetenv("PRISM_STREAM_MB");
        warn_quiet = 1;
        return 0;
}

static void open_or_fail(struct session *s, const char *compat, char *const *paths, size_t n,
                         const struct analysis_opts *sel)
{
        struct err err = {0};
        if (session_data(s, compat, NULL, &err) || session_open(s, paths, n, sel, &err))
                fail_msg("%s", err.msg);
}

/* panels/versions: 3.3 by default, 3.0's and 3.10's rules on request */
static void test_versions(void **state)
{
        (void)state;
        struct session s;
        struct err err = {0};
        assert_int_equal(session_data(&s, NULL, NULL, &err), 0);
        assert_string_equal(s.ver.name, "3.3");
        assert_string_equal(s.norm, "per_kernel");
        assert_string_equal(data_version(), "3.3");
        assert_int_equal(s.ratio_avg, 0);
        assert_int_equal(formats_rules().dispatch_base, 0);
        session_close(&s);

        assert_int_equal(session_data(&s, "3.0", NULL, &err), 0);
        assert_string_equal(s.norm, "per_wave");
        assert_string_equal(data_version(), "3.0");
        session_close(&s);

        /* -n wins over the version's default; 3.10 groups passes and averages ratios anew */
        assert_int_equal(session_data(&s, "3.10", "per_cycle", &err), 0);
        assert_string_equal(s.norm, "per_cycle");
        assert_int_equal(s.ratio_avg, 1);
        assert_int_equal(formats_rules().dispatch_base, 1);
        assert_int_equal(formats_rules().first_times, 1);
        assert_int_equal(formats_rules().new_sysinfo_names, 1);
        session_close(&s);

        /* -n is checked against panels/versions' normalizations before --compat */
        assert_int_not_equal(session_data(&s, "2.9", "per_fortnight", &err), 0);
        assert_string_equal(err.msg, "unknown normalization 'per_fortnight' (per_wave, "
                                     "per_cycle, per_second, per_kernel)");
        session_close(&s);
        assert_int_equal(session_data(&s, NULL, "per_second", &err), 0);
        assert_string_equal(s.norm, "per_second");
        assert_int_equal(s.norms.n, 4);
        session_close(&s);

        assert_int_not_equal(session_data(&s, "2.9", NULL, &err), 0);
        assert_string_equal(err.msg, "unknown --compat version '2.9' (3.0, 3.3, 3.10)");
        session_close(&s);
        session_data(&s, NULL, NULL, &err); /* back to the default for the other tests */
        session_close(&s);
}

/* one workload: its architecture from its sysinfo, the family's titles, every dispatch */
static void test_open_one(void **state)
{
        (void)state;
        struct session s;
        char *paths[] = {WIDE_30};
        struct analysis_opts sel = {0};
        open_or_fail(&s, NULL, paths, 1, &sel);
        assert_int_equal(s.n, 1);
        assert_string_equal(s.a[0].target, "gfx90a");
        assert_string_equal(s.w[0].arch, "gfx90a");
        assert_string_equal(s.w[0].sysinfo_file, WIDE_30 "/sysinfo.csv");
        assert_true(s.ps.npanels > 10);
        struct workload w;
        struct err err = {0};
        assert_int_equal(workload_open(WIDE_30, &w, &err), 0);
        assert_int_equal(s.w[0].pmc.nrows, w.pmc.nrows);
        assert_null(s.w[0].spill);
        /* the whole selection reads fewer columns than the file has */
        assert_true(s.w[0].pmc.ncols <= w.pmc.ncols);
        size_t all = s.w[0].pmc.ncols;
        session_close(&s);

        /* -b 2: the columns of the speed-of-light table and the built-in ones only */
        const char *blocks[] = {"2"};
        sel.blocks = blocks;
        sel.nblocks = 1;
        open_or_fail(&s, NULL, paths, 1, &sel);
        assert_int_equal(s.w[0].pmc.nrows, w.pmc.nrows);
        assert_true(s.w[0].pmc.ncols < all);
        session_close(&s);
        workload_close(&w);
}

/* two workloads of two architectures */
static void test_open_two(void **state)
{
        (void)state;
        struct session s;
        char *paths[] = {WIDE_30, MI300X};
        struct analysis_opts sel = {0};
        open_or_fail(&s, NULL, paths, 2, &sel);
        assert_int_equal(s.n, 2);
        assert_string_equal(s.a[0].target, "gfx90a");
        assert_string_equal(s.a[1].target, "gfx942");
        assert_true(s.w[1].pmc.nrows > 0);
        session_close(&s);
}

/* streamed from 0 MB on: the same dispatches through the temporary file */
static void test_streamed(void **state)
{
        (void)state;
        struct session s;
        char *paths[] = {WIDE_30};
        struct analysis_opts sel = {0};
        setenv("PRISM_STREAM_MB", "0", 1);
        open_or_fail(&s, NULL, paths, 1, &sel);
        unsetenv("PRISM_STREAM_MB");
        assert_non_null(s.w[0].spill);
        struct workload w;
        struct err err = {0};
        assert_int_equal(workload_open(WIDE_30, &w, &err), 0);
        assert_int_equal(s.w[0].pmc.nrows, w.pmc.nrows);
        workload_close(&w);
        session_close(&s);
}

/* each step's error, and nothing left open after it */
static void test_open_errors(void **state)
{
        (void)state;
        struct session s;
        struct err err = {0};
        struct analysis_opts sel = {0};
        char *d = tmpdir_new("prism-session");
        char *none = xasprintf("%s/none", d);
        char *paths[] = {WIDE_30, none};
        assert_int_equal(session_data(&s, NULL, NULL, &err), 0);
        assert_int_not_equal(session_open(&s, paths, 2, &sel, &err), 0);
        char *want = xasprintf("cannot open workload '%s': not a directory", none);
        assert_string_equal(err.msg, want);
        free(want);
        assert_int_equal(s.n, 1); /* the first is open, closed by session_close */
        session_close(&s);

        char *three[] = {WIDE_30, WIDE_30, WIDE_30};
        assert_int_equal(session_data(&s, NULL, NULL, &err), 0);
        assert_int_not_equal(session_open(&s, three, 3, &sel, &err), 0);
        assert_string_equal(err.msg, "analyze compares at most two workloads");
        assert_int_equal(s.n, 0);
        session_close(&s);

        /* an architecture prism does not know: the error names sysinfo.csv */
        put(d, "sysinfo.csv", "gpu_model,gpu_arch\nMI0,gfx001\n");
        put(d, "pmc_perf.csv", "Dispatch_ID,Kernel_Name\n0,k\n");
        char *bad[] = {d};
        assert_int_equal(session_data(&s, NULL, NULL, &err), 0);
        assert_int_not_equal(session_open(&s, bad, 1, &sel, &err), 0);
        char *sys = xasprintf("%s/sysinfo.csv: ", d);
        assert_memory_equal(err.msg, sys, strlen(sys));
        assert_non_null(strstr(err.msg, "gfx001"));
        assert_int_equal(s.n, 0);
        session_close(&s);
        free(sys);
        free(none);
        char *cmd = xasprintf("rm -rf '%s'", d);
        assert_int_equal(system(cmd), 0);
        free(cmd);
        free(d);
}

/* --list-metrics: a target's architecture loaded once, else the workload's */
static void test_list_arch(void **state)
{
        (void)state;
        struct session s;
        struct analysis_opts sel = {0};
        struct err err = {0};
        open_or_fail(&s, NULL, NULL, 0, &sel);
        assert_int_equal(s.n, 0);
        const struct arch *a, *again;
        assert_int_equal(session_list_arch(&s, "gfx942", &a, &err), 0);
        assert_string_equal(a->target, "gfx942");
        assert_int_equal(session_list_arch(&s, "gfx942", &again, &err), 0);
        assert_ptr_equal(a, again);
        session_close(&s);

        open_or_fail(&s, NULL, NULL, 0, &sel);
        assert_int_not_equal(session_list_arch(&s, "gfx001", &a, &err), 0);
        assert_non_null(strstr(err.msg, "gfx001"));
        session_close(&s);

        char *paths[] = {WIDE_30};
        open_or_fail(&s, NULL, paths, 1, &sel);
        assert_int_equal(session_list_arch(&s, NULL, &a, &err), 0);
        assert_ptr_equal(a, &s.a[0]);
        assert_false(s.has_list);
        session_close(&s);
}

/* paths opened (every panel) and analyzed with o (its normalization the session's) */
static void analyze_or_fail(struct session *s, char *const *paths, size_t n,
                            struct analysis_opts *o)
{
        struct analysis_opts sel = {0};
        struct err err = {0};
        open_or_fail(s, NULL, paths, n, &sel);
        *o = (struct analysis_opts){.norm = s->norm, .time_unit = "ns", .kernel_verbose = 5};
        if (session_analyze(s, o, &err))
                fail_msg("%s", err.msg);
        assert_int_equal(s->nan, n);
}

/* each open workload analyzed; a filter that selects nothing names the workload */
static void test_analyze(void **state)
{
        (void)state;
        struct session s;
        char *paths[] = {WIDE_30, MI300X};
        struct analysis_opts sel = {0};
        struct err err = {0};
        struct analysis_opts o;
        analyze_or_fail(&s, paths, 2, &o);
        for (size_t i = 0; i < 2; i++) {
                assert_ptr_equal(s.an[i].arch, &s.a[i]);
                assert_int_equal(s.an[i].nselected, s.w[i].pmc.nrows);
                assert_true(s.an[i].ntables > 10);
        }
        session_close(&s);

        long none[] = {999999};
        o.dispatches = none;
        o.ndispatches = 1;
        open_or_fail(&s, NULL, paths, 1, &sel);
        o.norm = s.norm;
        assert_int_not_equal(session_analyze(&s, &o, &err), 0);
        assert_memory_equal(err.msg, WIDE_30 ": ", strlen(WIDE_30 ": "));
        assert_int_equal(s.nan, 0);
        session_close(&s);
}

/* The analysis' second half rendered ahead on its thread (render_ahead_fn as the
 * analysis' ahead): the hook sees the second half (from: the first table of a panel of
 * its own), the analysis says where that half starts, and render_text with those bytes
 * writes what it writes without them; a hook that renders nothing changes nothing. */
struct ahead_seen {
        int calls;
        size_t from, ntables;
        const int *busy;
        struct render_ahead ra;
};

static void seen_fn(void *ctx, const struct analysis *half, size_t from, const int *busy)
{
        struct ahead_seen *a = ctx;
        a->calls++;
        a->from = from;
        a->ntables = half->ntables;
        a->busy = busy;
        render_ahead_fn(&a->ra, half, from, busy);
}

static char *report(const struct analysis *an, const struct render_opts *ro, size_t *len)
{
        char *buf = NULL;
        FILE *f = open_memstream(&buf, len);
        assert_non_null(f);
        render_text(f, an, ro);
        assert_int_equal(fclose(f), 0);
        return buf;
}

static void test_render_ahead(void **state)
{
        (void)state;
        if (task_workers() < 2) { /* one CPU: no second thread */
                skip();
                return;
        }
        setenv("PRISM_RENDER_AHEAD", "1", 1); /* all of the half, whatever the first does */
        struct session s;
        char *paths[] = {WIDE_30};
        struct analysis_opts sel = {0};
        struct err err = {0};
        open_or_fail(&s, NULL, paths, 1, &sel);
        struct render_opts ro = {.decimal = 2, .max_stat_num = 10, .norm = s.norm,
                                 .table_width = 160, .width = 120};
        struct ahead_seen seen = {.ra = {.o = &ro, .escaped = 0}};
        struct analysis_ahead ah = {seen_fn, &seen};
        struct analysis_opts o = {.norm = s.norm, .time_unit = "ns", .kernel_verbose = 5,
                                  .threads = 2, .ahead = &ah};
        if (session_analyze(&s, &o, &err))
                fail_msg("%s", err.msg);
        const struct analysis *an = &s.an[0];
        assert_int_equal(seen.calls, 1);
        assert_non_null(seen.busy);
        assert_true(an->second_at > 0);
        assert_int_equal(an->second_at + seen.ntables, an->ntables);
        /* from: past the tables of a panel the split cut, each of them that panel's */
        assert_true(seen.from < seen.ntables);
        for (size_t i = 0; i < seen.from; i++)
                assert_ptr_equal(an->tables[an->second_at + i].panel,
                                 an->tables[an->second_at - 1].panel);
        assert_ptr_not_equal(an->tables[an->second_at + seen.from].panel,
                             an->tables[an->second_at + seen.from - 1].panel);
        assert_true(seen.ra.ok);
        assert_int_equal(seen.ra.from, seen.from);
        assert_int_equal(seen.ra.to, seen.ntables);
        ro.roof = an->roof;
        size_t la, lb;
        char *plain = report(an, &ro, &la);
        ro.ahead = &seen.ra;
        char *ahead = report(an, &ro, &lb);
        assert_true(la > 10000);
        assert_int_equal(la, lb);
        assert_memory_equal(plain, ahead, la);
        /* rendered ahead up to a table inside a panel (as when the first thread finishes
         * meanwhile): the rest of that panel follows without its heading, the same bytes */
        const struct rtable *ht = an->tables + an->second_at;
        size_t cut = 0;
        for (size_t i = seen.from + 1; i < seen.ntables && !cut; i++)
                if (ht[i].panel == ht[i - 1].panel)
                        cut = i;
        assert_true(cut > seen.from);
        struct analysis view = {.tables = (struct rtable *)ht, .ntables = cut};
        struct render_ahead part = {.o = &ro, .escaped = 0};
        render_ahead_fn(&part, &view, seen.from, NULL);
        assert_true(part.ok);
        assert_int_equal(part.to, cut);
        ro.ahead = &part;
        size_t lc;
        char *cutr = report(an, &ro, &lc);
        assert_int_equal(la, lc);
        assert_memory_equal(plain, cutr, la);
        free(cutr);
        free(part.buf);
        ro.ahead = &seen.ra;
        /* the bytes were taken: a wrong one in them shows */
        seen.ra.buf[seen.ra.len / 2] ^= 1;
        free(ahead);
        ahead = report(an, &ro, &lb);
        assert_int_equal(la, lb);
        assert_true(memcmp(plain, ahead, la) != 0);
        free(plain);
        free(ahead);
        free(seen.ra.buf);
        session_close(&s);

        /* MI300X's split cuts its last panel with tables (3.3's 18): nothing to render
         * ahead (then not ok), and the report is the same with that result given */
        paths[0] = MI300X;
        open_or_fail(&s, NULL, paths, 1, &sel);
        memset(&seen, 0, sizeof seen);
        seen.ra.o = &ro;
        ro.norm = s.norm;
        ro.roof = NULL;
        ro.ahead = NULL;
        o.norm = s.norm;
        if (session_analyze(&s, &o, &err))
                fail_msg("%s", err.msg);
        an = &s.an[0];
        assert_int_equal(seen.calls, 1);
        assert_true(an->second_at > 0);
        assert_true(seen.from <= seen.ntables);
        assert_int_equal(seen.ra.ok, seen.from < seen.ntables);
        ro.roof = an->roof;
        plain = report(an, &ro, &la);
        ro.ahead = &seen.ra;
        ahead = report(an, &ro, &lb);
        assert_int_equal(la, lb);
        assert_memory_equal(plain, ahead, la);
        free(plain);
        free(ahead);
        free(seen.ra.buf);
        session_close(&s);
        unsetenv("PRISM_RENDER_AHEAD");
}

/* the text of the findings tables of an */
static char *findings_text(const struct analysis *an)
{
        struct strbuf sb = {0};
        for (size_t i = 0; i < an->ntables; i++) {
                const struct rtable *t = &an->tables[i];
                if (!t->pt->source || !findings_is_source(t->pt->source))
                        continue;
                for (size_t c = 0; c < t->nrows * t->ncols; c++)
                        sb_addf(&sb, "%s|%.17g\n", t->cells[c].text ? t->cells[c].text : "",
                                t->cells[c].v);
        }
        return sb_detach(&sb);
}

/* The rules a findings table was made with are kept bound for the next analysis of the same
 * rules, which binds them again: one workload analysed twice in one session gives the
 * same findings both times. */
static void test_findings_rules_kept(void **state)
{
        (void)state;
        struct session s;
        char *paths[] = {WIDE_30, WIDE_30};
        struct analysis_opts o;
        analyze_or_fail(&s, paths, 2, &o);
        char *first = findings_text(&s.an[0]), *second = findings_text(&s.an[1]);
        assert_true(strlen(first) > 100);
        assert_string_equal(first, second);
        free(first);
        free(second);
        session_close(&s);
}

/* --rank needs a multi-rank tree: the session says whether the first workload is one */
static void test_multi_rank(void **state)
{
        (void)state;
        struct session s;
        struct analysis_opts sel = {0};
        char *one[] = {WIDE_30};
        open_or_fail(&s, NULL, one, 1, &sel);
        assert_false(session_multi_rank(&s));
        session_close(&s);
        char *d = tmpdir_new("prism-session");
        char *cmd = xasprintf("mkdir -p '%s/n1' && cp -r " WIDE_30 " '%s/n1/rank0' && "
                              "cp -r " WIDE_30 " '%s/n1/rank1'", d, d, d);
        assert_int_equal(system(cmd), 0);
        free(cmd);
        char *tree[] = {d};
        open_or_fail(&s, NULL, tree, 1, &sel);
        assert_true(session_multi_rank(&s));
        struct workload w;
        struct err err = {0};
        assert_int_equal(workload_open(WIDE_30, &w, &err), 0);
        assert_int_equal(s.w[0].pmc.nrows, 2 * w.pmc.nrows); /* both ranks' dispatches */
        workload_close(&w);
        session_close(&s);
        open_or_fail(&s, NULL, NULL, 0, &sel);
        assert_false(session_multi_rank(&s)); /* no workload */
        session_close(&s);
        cmd = xasprintf("rm -rf '%s'", d);
        assert_int_equal(system(cmd), 0);
        free(cmd);
        free(d);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_versions),   cmocka_unit_test(test_open_one),
            cmocka_unit_test(test_open_two),   cmocka_unit_test(test_streamed),
            cmocka_unit_test(test_open_errors), cmocka_unit_test(test_list_arch),
            cmocka_unit_test(test_analyze),    cmocka_unit_test(test_multi_rank),
            cmocka_unit_test(test_render_ahead), cmocka_unit_test(test_findings_rules_kept)};
        return cmocka_run_group_tests(tests, setup, NULL);
}
