/* prism profile: parse the options, run the profile driver, report. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "profile/backend.h"
#include "profile/profile.h"

static void usage(FILE *f)
{
        fprintf(f,
                "usage: prism profile -n NAME [-p DIR] [-k KERNEL...] [-d DISPATCH...]\n"
                "                     [-b BLOCK|PANEL-ID...] [--join-type grid|kernel]\n"
                "                     [--no-roof | --roof-only] [--dry-run [--arch GFX]]\n"
                "                     [--backend rocprof|cupti] [--resume] [--force]\n"
                "                     [--pass-timeout S] [--replay kernel|application]\n"
                "                     [--ranks LIST] [--clock-control base|none]\n"
                "                     [--cache-control all|none] [--quiet]\n"
                "                     -- CMD ARGS\n"
                "\n"
                "Collects every counter pass (one run of CMD with kernel replay, else one run per\n"
                "pass) and writes workloads/NAME/<gpu model>/ (or DIR)\n"
                "in rocprof-compute's layout, for 'prism analyze'.\n"
                "\n"
                "  -n, --name NAME        workload name\n"
                "  -p, --path DIR         write the workload into DIR itself\n"
                "  -k, --kernel NAME...   only dispatches of kernels whose names contain NAME\n"
                "  -d, --dispatch N...    only dispatch N (launch order from 0) or N:M (N to M-1)\n"
                "  -b, --block X...       only the metrics of hardware block X (a counter-name\n"
                "                         prefix, as the architecture's block_limits name them)\n"
                "                         or of panel/table X (17, 2.1)\n"
                "  --join-type kernel|grid  match dispatches between passes by kernel name and\n"
                "                         occurrence (default), or also by grid size\n"
                "  --dry-run              print the passes (\"pass N: COUNTER ...\"), write\n"
                "                         perfmon/pmc_perf_N.txt and run nothing\n"
                "  --arch GFX             with --dry-run: plan for GFX without its GPU\n"
                "  --backend NAME         rocprof (AMD, rocprofv3) or cupti (NVIDIA)\n"
                "  --no-roof              do not run the roofline benchmarks afterwards\n"
                "  --roof-only            only run the roofline benchmarks into the workload\n"
                "  --force                replace an existing workload\n"
                "  --resume               finish an interrupted profile, reusing its passes\n"
                "  --pass-timeout S       end a pass that runs longer than S seconds\n"
                "  --replay MODE          kernel: run CMD once and replay each kernel once per\n"
                "                         pass (default where the backend can: cupti);\n"
                "                         application: run CMD once per pass (rocprof)\n"
                "  --ranks LIST           under mpirun/srun: profile only these ranks (0,2,4-7);\n"
                "                         the others run CMD without counters\n"
                "  --clock-control MODE   base: lock the GPU clocks at base while profiling, as\n"
                "                         ncu does (needs the driver's permission); none: leave\n"
                "                         them (default)\n"
                "  --cache-control MODE   all: flush the GPU's L2 before every pass of each\n"
                "                         profiled kernel, as ncu does (cupti; kernel replay\n"
                "                         then restores the kernel's memory before each pass\n"
                "                         itself); none: leave it (default)\n"
                "  -q, --quiet            no progress line\n");
}

struct strlist {
        char **v;
        size_t n, cap;
};

static void sl_add(struct strlist *l, char *s)
{
        xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
        l->v[l->n++] = s;
}

/* a value of a multi-valued option: anything up to the next option or "--" */
static int is_value(const char *s)
{
        return s[0] != '-' || (s[1] >= '0' && s[1] <= '9');
}

static int parse_long(const char *s, long *out)
{
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (!*s || *end || errno || v < 0)
                return -1;
        *out = v;
        return 0;
}

/* "N" or "N:M" (N to M-1) into the dispatch list */
static int add_dispatches(const char *arg, long **v, size_t *n, size_t *cap)
{
        long a, b;
        const char *colon = strchr(arg, ':');
        if (!colon) {
                if (parse_long(arg, &a))
                        return -1;
                b = a + 1;
        } else {
                char *left = xstrndup(arg, (size_t)(colon - arg));
                int bad = parse_long(left, &a) || parse_long(colon + 1, &b) || b <= a ||
                          b - a > 1000000;
                free(left);
                if (bad)
                        return -1;
        }
        for (long d = a; d < b; d++) {
                xgrow(v, cap, *n + 1, sizeof **v);
                (*v)[(*n)++] = d;
        }
        return 0;
}

/* "0,2,4-7" into a rank list */
static int parse_ranks(const char *arg, long **v, size_t *n)
{
        size_t cap = 0;
        char *copy = xstrdup(arg), *save = NULL;
        int bad = !*arg;
        for (char *t = strtok_r(copy, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save)) {
                long a, b;
                char *dash = strchr(t, '-');
                if (dash) {
                        *dash = 0;
                        bad = parse_long(t, &a) || parse_long(dash + 1, &b) || b < a ||
                              b - a > 1000000;
                } else {
                        bad = parse_long(t, &a);
                        b = a;
                }
                for (long r = a; !bad && r <= b; r++) {
                        xgrow(v, &cap, *n + 1, sizeof **v);
                        (*v)[(*n)++] = r;
                }
        }
        free(copy);
        return bad ? -1 : 0;
}

static int failf(const char *fmt, const char *arg)
{
        fprintf(stderr, "prism: ");
        fprintf(stderr, fmt, arg);
        fputc('\n', stderr);
        return 2;
}

int cmd_profile(int argc, char **argv)
{
        struct profile_opts o = {0};
        struct strlist kernels = {0}, blocks = {0};
        long *disp = NULL, *ranks = NULL;
        size_t ndisp = 0, cap_disp = 0, nranks = 0;
        int quiet = 0;
        int roof_only = 0, ret = 2, i;
        char **target = NULL;

        for (i = 1; i < argc; i++) {
                const char *a = argv[i];
                const char *next = i + 1 < argc ? argv[i + 1] : NULL;
                if (!strcmp(a, "--")) {
                        target = argv + i + 1;
                        break;
                } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
                        usage(stdout);
                        ret = 0;
                        goto out;
                } else if (!strcmp(a, "--dry-run")) {
                        o.dry_run = 1;
                } else if (!strcmp(a, "--no-roof")) {
                        o.no_roof = 1;
                } else if (!strcmp(a, "--roof-only")) {
                        roof_only = 1;
                } else if (!strcmp(a, "--force")) {
                        o.force = 1;
                } else if (!strcmp(a, "--resume")) {
                        o.resume = 1;
                } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
                        quiet = 1;
                } else if (!strcmp(a, "-k") || !strcmp(a, "--kernel") || !strcmp(a, "-b") ||
                           !strcmp(a, "--block") || !strcmp(a, "-d") ||
                           !strcmp(a, "--dispatch")) {
                        int k = a[1] == 'k' || !strcmp(a, "--kernel");
                        int d = a[1] == 'd' || !strcmp(a, "--dispatch");
                        if (!next || !is_value(next)) {
                                ret = failf("option '%s' needs a value", a);
                                goto out;
                        }
                        while (i + 1 < argc && is_value(argv[i + 1])) {
                                char *v = argv[++i];
                                if (d && add_dispatches(v, &disp, &ndisp, &cap_disp)) {
                                        ret = failf("bad dispatch '%s' (want N or N:M)", v);
                                        goto out;
                                }
                                if (!d)
                                        sl_add(k ? &kernels : &blocks, v);
                        }
                } else if (!strcmp(a, "-n") || !strcmp(a, "--name") || !strcmp(a, "-p") ||
                           !strcmp(a, "--path") || !strcmp(a, "--join-type") ||
                           !strcmp(a, "--arch") || !strcmp(a, "--backend") ||
                           !strcmp(a, "--pass-timeout") || !strcmp(a, "--replay") ||
                           !strcmp(a, "--ranks") || !strcmp(a, "--clock-control") ||
                           !strcmp(a, "--cache-control")) {
                        if (!next) {
                                ret = failf("option '%s' needs a value", a);
                                goto out;
                        }
                        i++;
                        if (!strcmp(a, "-n") || !strcmp(a, "--name")) {
                                o.name = next;
                        } else if (!strcmp(a, "-p") || !strcmp(a, "--path")) {
                                o.path = next;
                        } else if (!strcmp(a, "--arch")) {
                                o.arch = next;
                        } else if (!strcmp(a, "--backend")) {
                                o.backend = next;
                        } else if (!strcmp(a, "--replay")) {
                                if (strcmp(next, "kernel") && strcmp(next, "application")) {
                                        ret = failf("bad --replay '%s' (want kernel or "
                                                    "application)",
                                                    next);
                                        goto out;
                                }
                                o.replay = !strcmp(next, "kernel") ? REPLAY_KERNEL
                                                                   : REPLAY_APPLICATION;
                        } else if (!strcmp(a, "--clock-control")) {
                                if (strcmp(next, "base") && strcmp(next, "none")) {
                                        ret = failf("bad --clock-control '%s' (want base or none)",
                                                    next);
                                        goto out;
                                }
                                o.clock_control = !strcmp(next, "base") ? CLOCK_BASE : CLOCK_NONE;
                        } else if (!strcmp(a, "--cache-control")) {
                                if (strcmp(next, "all") && strcmp(next, "none")) {
                                        ret = failf("bad --cache-control '%s' (want all or none)",
                                                    next);
                                        goto out;
                                }
                                o.cache_control = !strcmp(next, "all") ? CACHE_ALL : CACHE_NONE;
                        } else if (!strcmp(a, "--ranks")) {
                                if (parse_ranks(next, &ranks, &nranks)) {
                                        ret = failf("bad --ranks '%s' (want a list such as "
                                                    "0,2,4-7)",
                                                    next);
                                        goto out;
                                }
                        } else if (!strcmp(a, "--join-type")) {
                                if (strcmp(next, "grid") && strcmp(next, "kernel")) {
                                        ret = failf("bad --join-type '%s' (want grid or kernel)",
                                                    next);
                                        goto out;
                                }
                                o.join_grid = !strcmp(next, "grid");
                        } else {
                                long t;
                                if (parse_long(next, &t) || t == 0 || t > INT_MAX) {
                                        ret = failf("bad --pass-timeout '%s' (want seconds)",
                                                    next);
                                        goto out;
                                }
                                o.pass_timeout = (int)t;
                        }
                } else {
                        fprintf(stderr, "prism: unknown option '%s' (see 'prism profile --help')\n",
                                a);
                        goto out;
                }
        }

        if (!o.name && !o.path) {
                ret = cmd_fail("missing -n NAME (or -p DIR)");
                goto out;
        }
        if (o.name && (!*o.name || strchr(o.name, '/') || !strcmp(o.name, "..") ||
                       !strcmp(o.name, "."))) {
                ret = failf("bad workload name '%s'", o.name);
                goto out;
        }
        if (o.arch && !o.dry_run) {
                ret = cmd_fail("--arch plans for a GPU that is not here: use it with --dry-run");
                goto out;
        }
        if (roof_only && (o.no_roof || o.dry_run)) {
                ret = cmd_fail("--roof-only cannot go with --no-roof or --dry-run");
                goto out;
        }
        if (o.resume && o.dry_run) {
                ret = cmd_fail("--resume cannot go with --dry-run");
                goto out;
        }
        if (!o.dry_run && !roof_only && (!target || !target[0])) {
                ret = cmd_fail("no application to profile: give it after '--'");
                goto out;
        }
        o.argv = target;
        o.kernels = kernels.v;
        o.nkernels = kernels.n;
        o.blocks = blocks.v;
        o.nblocks = blocks.n;
        o.dispatches = disp;
        o.ndispatches = ndisp;
        o.out = stdout;
        o.ranks = ranks;
        o.nranks = nranks;
        /* the progress line: in place on a terminal stderr, else plain lines on stdout
         * (stderr then carries only the error line) */
        o.log = quiet ? NULL : stdout;
        o.tty = !quiet && isatty(STDERR_FILENO) ? stderr : NULL;

        struct err err = {0};
        struct profile_result res;
        o.roof_only = roof_only;
        if (profile_run(&o, &res, &err)) {
                ret = cmd_fail(err.msg);
                goto out;
        }
        if (o.dry_run && !roof_only && res.grouped) {
                fprintf(stderr,
                        "%zu passes for %s (the profiler counts %zu hardware passes for all the "
                        "metrics at once): kernel replay, the default, runs the program once "
                        "and replays each kernel once per hardware pass; application replay "
                        "runs it %zu times (%zu of %zu ratios spread over runs); plan in "
                        "%s/perfmon\n",
                        res.passes, res.target, res.lower_bound, res.passes, res.ratios_split,
                        res.ratios, res.dir);
        } else if (o.dry_run && !roof_only) {
                fprintf(stderr,
                        "%zu passes (%zu counter + %zu accumulate; lower bound %zu; %zu of %zu "
                        "ratios spread over runs) for %s; plan in %s/perfmon\n",
                        res.passes, res.passes - res.accum_passes, res.accum_passes,
                        res.lower_bound, res.ratios_split, res.ratios, res.target, res.dir);
        } else if (res.skipped) {
                ret = 0;
                goto done;
        } else if (!roof_only) {
                printf("wrote %s: %zu dispatches, %zu passes (%zu counter + %zu accumulate) "
                       "in %zu run%s (%s replay%s; caches %s)\n",
                       res.dir, res.dispatches, res.passes, res.passes - res.accum_passes,
                       res.accum_passes, res.runs, res.runs == 1 ? "" : "s",
                       res.replay == REPLAY_KERNEL ? "kernel" : "application",
                       res.fell_back ? ", partly application" : "",
                       res.cache != CACHE_ALL         ? "not flushed"
                       : res.replay == REPLAY_KERNEL ? "flushed before every pass"
                                                     : "flushed before each kernel");
                if (res.clocks[0])
                        printf("clocks: %s\n", res.clocks);
        }
        ret = 0;
        /* the empirical peaks, measured once per workload as rocprof-compute does */
        char *roof = xasprintf("%s/roofline.csv", res.dir);
        if ((roof_only || (!o.dry_run && !o.no_roof)) && !is_file(roof)) {
                char *rargv[] = {"roofline", "-o", res.dir, NULL};
                if (cmd_roofline(3, rargv) != 0) {
                        if (roof_only)
                                ret = 2; /* cmd_roofline said why */
                        else
                                fprintf(stderr,
                                        "prism: warning: the workload has no roofline.csv; run "
                                        "'prism roofline -o %s' on this machine later\n",
                                        res.dir);
                }
        }
        free(roof);
done:
        profile_result_free(&res);
out:
        free(ranks);
        free(kernels.v);
        free(blocks.v);
        free(disp);
        return ret;
}
