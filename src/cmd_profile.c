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
        const char *interval_arg = NULL;

        const struct cmd_spec *spec = cmd_spec("profile");
        for (i = 1; i < argc; i++) {
                const char *a = argv[i];
                const char *next = i + 1 < argc ? argv[i + 1] : NULL;
                if (!strcmp(a, "--")) {
                        target = argv + i + 1;
                        break;
                }
                const struct opt *op = opt_find(spec, a);
                if (!op) {
                        fprintf(stderr, "prism: unknown option '%s' (see 'prism profile --help')\n",
                                a);
                        goto out;
                }
                int takes = opt_takes(op);
                if (takes == 2) { /* one or more values, up to the next option or "--" */
                        int k = op->id == P_KERNEL, d = op->id == P_DISPATCH;
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
                        continue;
                }
                if (takes) {
                        if (!next) {
                                ret = failf("option '%s' needs a value", a);
                                goto out;
                        }
                        i++;
                }
                switch (op->id) {
                case P_HELP:
                        opt_help(stdout, spec);
                        ret = 0;
                        goto out;
                case P_DRY_RUN:
                        o.dry_run = 1;
                        break;
                case P_NO_ROOF:
                        o.no_roof = 1;
                        break;
                case P_ROOF_ONLY:
                        roof_only = 1;
                        break;
                case P_FORCE:
                        o.force = 1;
                        break;
                case P_RESUME:
                        o.resume = 1;
                        break;
                case P_QUIET:
                        quiet = 1;
                        break;
                case P_NO_PCS:
                        o.pc_sampling = PCS_OFF;
                        break;
                case P_PC_METHOD:
                        if (strcmp(next, "stochastic") && strcmp(next, "host_trap")) {
                                ret = failf("bad --pc-sampling-method '%s' (want stochastic or "
                                            "host_trap)",
                                            next);
                                goto out;
                        }
                        o.pc_method = next;
                        break;
                case P_PC_INTERVAL: {
                        long v;
                        if (parse_long(next, &v) || v < 1) {
                                ret = failf("bad --pc-sampling-interval '%s' (want a positive "
                                            "number)",
                                            next);
                                goto out;
                        }
                        o.pc_interval = (unsigned long)v;
                        interval_arg = next;
                        break;
                }
                case P_NAME:
                        o.name = next;
                        break;
                case P_PATH:
                        o.path = next;
                        break;
                case P_ARCH:
                        o.arch = next;
                        break;
                case P_BACKEND:
                        o.backend = next;
                        break;
                case P_REPLAY:
                        if (strcmp(next, "kernel") && strcmp(next, "application")) {
                                ret = failf("bad --replay '%s' (want kernel or application)",
                                            next);
                                goto out;
                        }
                        o.replay = !strcmp(next, "kernel") ? REPLAY_KERNEL : REPLAY_APPLICATION;
                        break;
                case P_CLOCK:
                        if (strcmp(next, "base") && strcmp(next, "none")) {
                                ret = failf("bad --clock-control '%s' (want base or none)", next);
                                goto out;
                        }
                        o.clock_control = !strcmp(next, "base") ? CLOCK_BASE : CLOCK_NONE;
                        break;
                case P_CACHE:
                        if (strcmp(next, "all") && strcmp(next, "none")) {
                                ret = failf("bad --cache-control '%s' (want all or none)", next);
                                goto out;
                        }
                        o.cache_control = !strcmp(next, "all") ? CACHE_ALL : CACHE_NONE;
                        break;
                case P_RANKS:
                        if (parse_ranks(next, &ranks, &nranks)) {
                                ret = failf("bad --ranks '%s' (want a list such as 0,2,4-7)",
                                            next);
                                goto out;
                        }
                        break;
                case P_JOIN:
                        if (strcmp(next, "grid") && strcmp(next, "kernel")) {
                                ret = failf("bad --join-type '%s' (want grid or kernel)", next);
                                goto out;
                        }
                        o.join_grid = !strcmp(next, "grid");
                        break;
                case P_PASS_TIMEOUT: {
                        long t;
                        if (parse_long(next, &t) || t == 0 || t > INT_MAX) {
                                ret = failf("bad --pass-timeout '%s' (want seconds)", next);
                                goto out;
                        }
                        o.pass_timeout = (int)t;
                        break;
                }
                }
        }

        if (o.pc_interval && (o.pc_interval & (o.pc_interval - 1)) &&
            !(o.pc_method && !strcmp(o.pc_method, "host_trap"))) {
                ret = failf("bad --pc-sampling-interval '%s' (cycles: a power of 2; only "
                            "host_trap takes other values)",
                            interval_arg);
                goto out;
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
        /* stdout and stderr may be one file (> plan.txt 2>&1): whole lines, in order */
        setvbuf(stdout, NULL, _IOLBF, 0);
        if (profile_run(&o, &res, &err)) {
                ret = cmd_fail(err.msg);
                goto out;
        }
        fflush(stdout); /* the plan before the summary */
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
                       : res.replay == REPLAY_KERNEL ? "flushed before each kernel's first pass"
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
