/* prism analyze: parse options, open the workloads (analyze/session.h), call the analysis
 * and the renderers. */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/ioctl.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/analysis.h"
#include "util/esc.h"
#include "util/heap.h"
#include "analyze/findings.h"
#include "analyze/roofline.h"
#include "analyze/session.h"
#include "arch/arch.h"
#include "cmds.h"
#include "render/listing.h"
#include "render/render.h"
#include "tui/tui.h"
#include "util/task.h"

struct list {
        char **v;
        size_t n, cap;
};

static void list_add(struct list *l, char *s)
{
        xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
        l->v[l->n++] = s;
}

/* values after an option, up to the next option */
static int take_values(int argc, char **argv, int *i, struct list *l)
{
        int got = 0;
        while (*i + 1 < argc && argv[*i + 1][0] != '-') {
                list_add(l, argv[++*i]);
                got++;
        }
        return got;
}

static int parse_long(const char *s, long *out)
{
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (!*s || *end || errno)
                return -1;
        *out = v;
        return 0;
}

static int fail(const char *fmt, const char *arg)
{
        fprintf(stderr, "prism: ");
        fprintf(stderr, fmt, arg);
        fputc('\n', stderr);
        return 2;
}

struct analyze_args {
        struct list paths, blocks, kernels, dispatches, cols;
        int include_desc;       /* --include-cols Description */
        const char *rank; /* --rank */
        const char *gpu_id, *norm, *time_unit, *save_dfs, *output, *list_arch, *sort;
        int decimal, list_stats, list_metrics, kernel_verbose;
        int tui;                /* --tui: the interactive view */
        int no_findings;        /* --no-findings */
        int pc_by_count;        /* --pc-sampling-sorting-type count */
        int all_rows;           /* --all-rows: rows the family hides too */
        struct list mem_levels; /* --mem-level */
        const char *plot_dir;   /* --plot-dir */
        const char *compat;     /* --compat VERSION */
        long device;            /* --device, -1: mean of all */
        long max_stat_num;
        long width;             /* --width, -1: not given */
};

static int parse_args(int argc, char **argv, struct analyze_args *a)
{
        memset(a, 0, sizeof *a);
        a->time_unit = "ns";
        a->decimal = 2;
        a->max_stat_num = 10;
        a->device = -1;
        a->kernel_verbose = 5;
        a->width = -1;
        const struct cmd_spec *spec = cmd_spec("analyze");
        for (int i = 1; i < argc; i++) {
                const char *o = argv[i];
                const char *val = i + 1 < argc ? argv[i + 1] : NULL;
                const struct opt *op = opt_find(spec, o);
                if (!op)
                        return fail("unknown option '%s' (see 'prism analyze --help')", o);
                if (opt_takes(op) == 1) { /* one value */
                        if (!val)
                                return fail("option '%s' needs a value", o);
                        i++;
                }
                switch (op->id) {
                case A_HELP:
                        opt_help(stdout, spec);
                        return 1;
                case A_PATH:
                        list_add(&a->paths, argv[i]);
                        break;
                case A_BLOCK:
                        if (!take_values(argc, argv, &i, &a->blocks))
                                return fail("option '%s' needs at least one id", o);
                        break;
                case A_KERNEL:
                        if (!take_values(argc, argv, &i, &a->kernels))
                                return fail("option '%s' needs at least one kernel", o);
                        break;
                case A_DISPATCH:
                        if (!take_values(argc, argv, &i, &a->dispatches))
                                return fail("option '%s' needs at least one dispatch id", o);
                        break;
                case A_COLS:
                        if (!take_values(argc, argv, &i, &a->cols))
                                return fail("option '%s' needs at least one column index", o);
                        break;
                case A_INCLUDE_COLS: {
                        struct list l = {0};
                        if (!take_values(argc, argv, &i, &l)) {
                                free(l.v);
                                return fail("option '%s' needs at least one column", o);
                        }
                        for (size_t k = 0; k < l.n; k++)
                                if (strcasecmp(l.v[k], "Description")) {
                                        int rc = fail("--include-cols: unknown column '%s' "
                                                      "(Description)",
                                                      l.v[k]);
                                        free(l.v);
                                        return rc;
                                }
                        a->include_desc = 1;
                        free(l.v);
                        break;
                }
                case A_RANK: {
                        long v;
                        if (parse_long(argv[i], &v) || v < 0)
                                return fail("--rank needs a rank number, not '%s'", argv[i]);
                        a->rank = argv[i];
                        break;
                }
                case A_GPU_ID:
                        a->gpu_id = argv[i];
                        break;
                case A_COMPAT:
                        a->compat = argv[i];
                        break;
                case A_NORM:
                        a->norm = argv[i];
                        break;
                case A_TIME:
                        a->time_unit = argv[i];
                        break;
                case A_DECIMAL: {
                        long v;
                        if (parse_long(argv[i], &v) || v < 0 || v > 15)
                                return fail("--decimal needs a number from 0 to 15, not '%s'",
                                            argv[i]);
                        a->decimal = (int)v;
                        break;
                }
                case A_MAX_STAT:
                        if (parse_long(argv[i], &a->max_stat_num) || a->max_stat_num < 0)
                                return fail("--max-stat-num needs a count, not '%s'", argv[i]);
                        break;
                case A_KVERBOSE: {
                        long v;
                        if (parse_long(argv[i], &v) || v < 0)
                                return fail("--kernel-verbose needs a level, not '%s'", argv[i]);
                        a->kernel_verbose = (int)v;
                        break;
                }
                case A_SORT:
                        a->sort = argv[i];
                        if (strcmp(a->sort, "kernels") && strcmp(a->sort, "dispatches"))
                                return fail("--sort takes 'kernels' or 'dispatches', not '%s'",
                                            a->sort);
                        break;
                case A_MEM_LEVEL:
                        /* names of the workload's roofline levels: checked once it is open */
                        if (!take_values(argc, argv, &i, &a->mem_levels))
                                return fail("option '%s' needs at least one level", o);
                        break;
                case A_DEVICE:
                        if (parse_long(argv[i], &a->device) || a->device < 0)
                                return fail("--device needs a device number, not '%s'", argv[i]);
                        break;
                case A_WIDTH:
                        if (parse_long(argv[i], &a->width) || a->width < 0)
                                return fail("--width needs a number of columns, not '%s'",
                                            argv[i]);
                        break;
                case A_PLOT_DIR:
                        a->plot_dir = argv[i];
                        break;
                case A_NO_FINDINGS:
                        a->no_findings = 1;
                        break;
                case A_PC_SORT:
                        if (strcmp(argv[i], "offset") && strcmp(argv[i], "count"))
                                return fail("--pc-sampling-sorting-type is offset or count, not "
                                            "'%s'",
                                            argv[i]);
                        a->pc_by_count = !strcmp(argv[i], "count");
                        break;
                case A_TUI:
                        a->tui = 1;
                        break;
                case A_ALL_ROWS:
                        a->all_rows = 1;
                        break;
                case A_LIST_STATS:
                        a->list_stats = 1;
                        break;
                case A_LIST_METRICS:
                        a->list_metrics = 1;
                        if (val && val[0] != '-')
                                a->list_arch = argv[++i];
                        break;
                case A_SAVE_DFS:
                        a->save_dfs = argv[i];
                        break;
                case A_OUTPUT:
                        a->output = argv[i];
                        break;
                }
        }
        /* -n: the session checks it against panels/versions' normalizations */
        if (strcmp(a->time_unit, "s") && strcmp(a->time_unit, "ms") &&
            strcmp(a->time_unit, "us") && strcmp(a->time_unit, "ns"))
                return fail("unknown time unit '%s' (s, ms, us, ns)", a->time_unit);
        if (!a->paths.n && !(a->list_metrics && a->list_arch))
                return fail("%s", "analyze needs a workload: -p DIR");
        if (a->paths.n > 2)
                return fail("%s", "analyze compares at most two workloads");
        return 0;
}

static void free_args(struct analyze_args *a)
{
        free(a->paths.v);
        free(a->blocks.v);
        free(a->kernels.v);
        free(a->dispatches.v);
        free(a->cols.v);
        free(a->mem_levels.v);
}

/* The terminal's columns: of out when it is one, else $COLUMNS; 0 when neither says */
static int terminal_width(FILE *out)
{
        const char *c = getenv("COLUMNS");
        long v = 0;
        struct winsize ws;
        if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col)
                return ws.ws_col;
        if (c && parse_long(c, &v) == 0 && v > 0 && v < 100000)
                return (int)v;
        return 0;
}

/* Columns the tables may use (0: no limit): --width, else none with --compat (the layout
 * of rocprof-compute's report), else the terminal's, else 120 (pipes and files) */
static int table_width(const struct analyze_args *args, FILE *out)
{
        if (args->width >= 0)
                return args->width > 100000 ? 100000 : (int)args->width;
        if (args->compat)
                return 0;
        int v = terminal_width(out);
        return v ? v : 120;
}

/* Columns the figures may use: the tables', else the terminal's, else 120 (at most 160). */
static int figure_width(const struct render_opts *ro, FILE *out)
{
        int v = ro->table_width ? ro->table_width : terminal_width(out);
        if (!v)
                v = 120;
        return v > 160 ? 160 : v;
}

/* Analysis allocates and frees a column of n doubles for every formula it evaluates. glibc
 * hands such blocks back to the kernel and maps them again, which zeroes every page anew
 * (a tenth of a 100k-dispatch run): keep freed memory in the heap instead. */
static void tune_malloc(void)
{
#ifdef __GLIBC__
        mallopt(M_MMAP_THRESHOLD, 64 << 20);
        mallopt(M_TRIM_THRESHOLD, 256 << 20);
        /* a second thread's heap grows by mprotect in steps of what each allocation
         * needs: about a hundred calls in a one-workload analysis. 4 MiB more a step
         * (address space: a page costs memory only when written) */
        mallopt(M_TOP_PAD, 4 << 20);
#endif
        /* the main heap's next megabytes in 2 MiB pages (util/heap.h; the task threads
         * ask for theirs as they start, util/task.c) */
        heap_main_prepare((size_t)6 << 20);
}

/* Whether the session is freed piece by piece before the process ends: builds that look
 * for leaks and misuse (sanitizers) do, so that session_close stays checked; otherwise the
 * process's end gives it all back at once (freeing took about 0.15 ms of a 5 ms
 * one-workload run) and a copy of the session stays reachable from here, so that a leak
 * checker run on such a build (valgrind) sees memory still in use, not lost. */
static struct session *volatile left_at_exit; /* (volatile: the store is kept) */

int cmd_analyze(int argc, char **argv)
{
        struct analyze_args args;
        int prc = parse_args(argc, argv, &args);
        if (prc) {
                free_args(&args);
                return prc == 1 ? 0 : prc;
        }
        struct err err = {0};
        struct session s;
        tune_malloc();
        struct workload *w = s.w;
        struct arch *a = s.a;
        struct analysis *an = s.an;
        long *kernels = NULL, *dispatches = NULL, *cols = NULL;
        const char **knames = NULL;
        FILE *out = stdout, *raw = stdout;
        int rc = 2;

        if (session_data(&s, args.compat, args.norm, &err))
                goto fail;
        /* the TUI changes the selection later: it gets every panel's columns */
        struct analysis_opts sel = {.blocks = (const char *const *)args.blocks.v,
                                    .nblocks = args.tui ? 0 : args.blocks.n,
                                    .no_findings = args.no_findings};
        if (session_open(&s, args.paths.v, args.paths.n, &sel, &err))
                goto fail;
        size_t nopen = s.n;
        if (args.rank && nopen && !session_multi_rank(&s)) {
                err_set(&err, ERR_USAGE, "--rank: '%s' is not a multi-rank workload", w[0].path);
                goto fail;
        }
        if (args.list_metrics) {
                const struct arch *la;
                if (session_list_arch(&s, args.list_arch, &la, &err))
                        goto fail;
                list_metrics(stdout, la, &s.ps, args.list_arch ? NULL : &w[0], args.all_rows);
                rc = 0;
                goto done;
        }

        struct analysis_opts o = {.norm = s.norm,
                                  .time_unit = args.time_unit,
                                  .blocks = (const char *const *)args.blocks.v,
                                  .nblocks = args.blocks.n,
                                  .gpu_id = args.gpu_id,
                                  .rank = args.rank,
                                  /* --sort is the roofline's (kernels or dispatches) */
                                  .kernel_verbose = args.kernel_verbose,
                                  .no_findings = args.no_findings,
                                  .pc_by_count = args.pc_by_count,
                                  .all_rows = args.all_rows,
                                  .ratio_avg = s.ratio_avg,
                                  .include_desc = args.include_desc,
                                  .threads = task_workers()};
        kernels = xcalloc(args.kernels.n + 1, sizeof *kernels);
        knames = xcalloc(args.kernels.n + 1, sizeof *knames);
        for (size_t i = 0; i < args.kernels.n; i++) {
                long v;
                if (parse_long(args.kernels.v[i], &v) == 0)
                        kernels[o.nkernels++] = v;
                else
                        knames[o.nkernel_names++] = args.kernels.v[i];
        }
        o.kernels = kernels;
        o.kernel_names = knames;
        dispatches = xcalloc(args.dispatches.n + 1, sizeof *dispatches);
        for (size_t i = 0; i < args.dispatches.n; i++)
                if (parse_long(args.dispatches.v[i], &dispatches[o.ndispatches++])) {
                        err_set(&err, ERR_USAGE, "-d takes dispatch ids, not '%s'",
                                args.dispatches.v[i]);
                        goto fail;
                }
        o.dispatches = dispatches;
        cols = xcalloc(args.cols.n + 1, sizeof *cols);
        for (size_t i = 0; i < args.cols.n; i++)
                if (parse_long(args.cols.v[i], &cols[i])) {
                        err_set(&err, ERR_USAGE, "--cols takes column indices, not '%s'",
                                args.cols.v[i]);
                        goto fail;
                }
        if (args.output && !(out = fopen(args.output, "w"))) {
                err_set(&err, ERR_SYS, "cannot write '%s': %s", args.output, strerror(errno));
                out = stdout;
                goto fail;
        }
        /* the report as a person sees it: control characters from the data escaped */
        raw = out;
        out = esc_stream(raw);
        if (args.list_stats) {
                list_stats(out, &w[0], &o, table_width(&args, raw));
                rc = 0;
                goto done;
        }
        /* the roofline's tables and plot: a single workload's report (or view) */
        struct roof_opts rop = {.device = args.device,
                                .by_dispatch = args.sort && !strcmp(args.sort, "dispatches")};
        if (roof_levels_mask(&a[0].roof, args.mem_levels.v, args.mem_levels.n, &rop.levels,
                             &err))
                goto fail;
        if (nopen == 1)
                o.roof = &rop;
        struct render_opts ro = {.decimal = args.decimal,
                                 .cols = cols,
                                 .ncols = args.cols.n,
                                 .max_stat_num = args.max_stat_num,
                                 .table_width = table_width(&args, raw)};
        /* one workload's report: the figures' options (width: the terminal's), and its
         * second half's tables rendered on the analysis' second thread while the first
         * builds the first half (render_ahead_fn, which copies ro as it starts) */
        struct render_ahead ra = {.o = &ro, .escaped = esc_is_stream(out)};
        struct analysis_ahead ah = {render_ahead_fn, &ra};
        if (nopen != 2 && !args.tui) { /* (the report's branch below) */
                ro.norm = s.norm;
                ro.width = figure_width(&ro, raw);
                o.ahead = &ah;
        }
        if (session_analyze(&s, &o, &err)) {
                free(ra.buf);
                goto fail;
        }
        if (args.tui) { /* the interactive view instead of the report */
                struct tui_input ti = {.w = {&w[0], &w[1]}, .a = {&a[0], &a[1]}, .nw = nopen,
                                       .ps = &s.ps, .opts = &o, .ro = &ro};
                int trc = tui_run(&ti, &err);
                if (trc < 0)
                        goto fail;
                rc = trc == TUI_INTERRUPTED ? 130 : 0;
                goto done;
        }
        if (nopen == 2) {
                if (strcmp(w[0].arch, w[1].arch))
                        warnf("comparing %s (%s) with %s (%s): only the metrics both "
                              "architectures have are compared",
                              w[0].path, w[0].arch, w[1].path, w[1].arch);
                if (args.plot_dir)
                        warnf("--plot-dir draws one workload's figures: not when comparing two");
                findings_compare(&an[0], &an[1]); /* appeared, disappeared, changed gain */
                render_compare(out, &an[0], &an[1], &ro);
                if (args.save_dfs &&
                    render_save_dfs_compare(args.save_dfs, &an[0], &an[1], &err))
                        goto fail;
        } else {
                /* the roofline is plotted after its panel */
                ro.roof = an[0].roof;
                ro.ahead = &ra;
                /* the report (on both threads, render_text), then the CSV files (on both) */
                render_text(out, &an[0], &ro);
                free(ra.buf);
                ra.buf = NULL;
                struct dfs_job *dj = args.save_dfs ? render_save_dfs_start(args.save_dfs, &an[0])
                                                   : NULL;
                int prc = args.plot_dir ? render_plots_svg(args.plot_dir, &an[0], &ro, stderr,
                                                           &err)
                                        : 0;
                int drc = dj ? render_save_dfs_wait(dj, prc ? NULL : &err) : 0;
                if (prc || drc)
                        goto fail;
        }
        rc = 0;
        goto done;
fail:
        /* what the report holds so far first, so that the message follows it where both
         * go to one file or terminal (not a buffer's size into it) */
        fflush(out);
        if (out != raw)
                fflush(raw);
        fprintf(stderr, "prism: %s\n", err.msg);
        rc = 2;
done:
        /* a report that could not be written all is an error (a full disk, /dev/full) */
        if (out != raw && fclose(out) != 0 && !rc) {
                fprintf(stderr, "prism: cannot write %s%s%s: %s\n", args.output ? "'" : "",
                        args.output ? args.output : "the report to standard output",
                        args.output ? "'" : "", strerror(errno ? errno : EIO));
                rc = 2;
        }
        if (raw != stdout && fclose(raw) != 0 && !rc) {
                fprintf(stderr, "prism: cannot write '%s': %s\n", args.output,
                        strerror(errno ? errno : EIO));
                rc = 2;
        }
        if (PRISM_SANITIZED || rc) {
                session_close(&s);
        } else {
                struct session *keep = xmalloc(sizeof s);
                *keep = s;
                left_at_exit = keep;
        }
        free(kernels);
        free(knames);
        free(dispatches);
        free(cols);
        free_args(&args);
        return rc;
}
