/* The AMD backend: each pass runs the target under rocprofv3 (ROCm >= 6.2) with that
 * pass's counters and reads its counter_collection.csv (one row per dispatch and counter);
 * the GPU comes from the KFD topology (src/profile/detect_amd.c). Per-channel counters
 * (TCC_HIT[3]) and accumulate counters are defined for rocprofv3 in a counters file (-E,
 * rocprof_input.c). */
#include "../../backend.h"
#include "../../launcher.h"
#include "../../proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "detect.h"
#include "../../plan.h"
#include "rocprof_input.h"
#include "../../../store/columns.h"

/* The GPU of the last detection: per-channel definitions need its XCD layout. */
static struct amd_gpu gpu;
static int have_gpu;


/* HIP and the ROCm runtime choose the GPU by these, in this order (HIP also honours
 * CUDA_VISIBLE_DEVICES); prism binds a GPU it chose through the first. */
static const char *const rocprof_device_vars[] = {"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                                                  "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
                                                  NULL};

static int rocprof_count_gpus(void)
{
        struct amd_gpu *gpus = NULL;
        size_t n = 0;
        int r = detect_amd_gpus(&gpus, &n, NULL) == 0 ? (int)n : 0;
        free(gpus);
        return r;
}

static int load_gpu(struct err *err)
{
        struct amd_gpu *gpus = NULL;
        size_t n = 0;
        int rc = detect_amd_gpus(&gpus, &n, err);
        if (rc)
                return rc;
        struct launcher l;
        struct gpu_choice ch;
        launcher_detect(&l, NULL);
        launcher_gpu_choice(&l, NULL, (int)n, rocprof_device_vars, &ch);
        int want = ch.index < 0 ? 0 : ch.index;
        if (n == 0)
                rc = err_set(err, ERR_SYS,
                             "no AMD GPU in the KFD topology '%s/sys/class/kfd/kfd/topology'",
                             detect_root());
        else if (ch.missing)
                rc = err_set(err, ERR_INPUT, "%s", ch.why);
        else {
                gpu = gpus[want];
                have_gpu = 1;
        }
        free(gpus);
        return rc;
}

static int rocprof_available(void)
{
        char *p = rocprof_tool();
        if (!p)
                return 0;
        free(p);
        struct amd_gpu *gpus = NULL;
        size_t n = 0;
        int ok = detect_amd_gpus(&gpus, &n, NULL) == 0 && n > 0;
        free(gpus);
        return ok;
}

static int rocprof_detect(struct table *si, struct err *err)
{
        int rc = load_gpu(err);
        if (rc)
                return rc;
        detect_amd_sysinfo(&gpu, si);
        return 0;
}

/* ---- the pass's input files ---- */

static int write_text(const char *path, const char *text, struct err *err)
{
        FILE *f = fopen(path, "w");
        if (!f)
                return err_set(err, ERR_SYS, "cannot write '%s': %s", path, strerror(errno));
        fputs(text, f);
        if (fclose(f) != 0)
                return err_set(err, ERR_SYS, "cannot write '%s': %s", path, strerror(errno));
        return 0;
}

/* The counters file format: rocprofiler-sdk of ROCm 7 reads "counters-schema-version: 1"
 * (a list of counters with definitions per architecture); ROCm 6 reads one mapping per
 * counter (NAME: {architectures: {GFX: {expression: ...}}, description: ...}).
 * $PRISM_ROCPROF_SCHEMA (0 or 1) overrides what /opt/rocm/.info/version suggests. */
static int schema_v1(void)
{
        const char *env = getenv("PRISM_ROCPROF_SCHEMA");
        if (env && *env)
                return atoi(env) >= 1;
        char *path = xasprintf("%s/opt/rocm/.info/version", detect_root());
        char *text = read_file(path, NULL, NULL);
        free(path);
        int major = text ? atoi(text) : 0;
        free(text);
        return major >= 7;
}

/* ---- running the target ---- */

/* The last non-empty line of the log, for error messages. */
static char *log_tail(const char *path)
{
        char *text = read_file(path, NULL, NULL);
        if (!text)
                return xstrdup("");
        size_t n = strlen(text);
        while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
                text[--n] = 0;
        const char *last = strrchr(text, '\n');
        last = last ? last + 1 : text;
        size_t len = strlen(last);
        char *line = xstrndup(last, len > 300 ? 300 : len);
        free(text);
        return line;
}

static int run_rocprof(const struct backend_pass *p, char **argv, const char *logpath,
                       const char *tool, struct err *err)
{
        int efd = -1, status = 0, rc = 0;
        int logfd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (logfd < 0)
                return err_set(err, ERR_SYS, "cannot write '%s': %s", logpath, strerror(errno));
        pid_t pid = proc_spawn(argv, logfd, NULL, &efd);
        if (pid < 0) {
                rc = err_set(err, ERR_SYS, "pass %d: cannot start '%s': %s", p->index, tool,
                             strerror(errno));
                goto out;
        }
        int exec_errno;
        int timed_out = proc_wait_exec(pid, efd, p->timeout_s, &status, &exec_errno);
        if (exec_errno) {
                rc = err_set(err, ERR_SYS, "pass %d: cannot run '%s': %s", p->index, tool,
                             strerror(exec_errno));
        } else if (timed_out) {
                rc = err_set(err, ERR_SYS,
                             "pass %d: the target ran past --pass-timeout %d s and was ended "
                             "(log: %s)",
                             p->index, p->timeout_s, logpath);
        } else if (WIFSIGNALED(status)) {
                rc = err_set(err, ERR_SYS, "pass %d: rocprofv3 was killed by signal %d (%s) (log: %s)",
                             p->index, WTERMSIG(status), strsignal(WTERMSIG(status)), logpath);
        } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
                char *tail = log_tail(logpath);
                rc = err_set(err, ERR_SYS, "pass %d: rocprofv3 exited with status %d: %s (log: %s)",
                             p->index, WEXITSTATUS(status), tail[0] ? tail : "no output",
                             logpath);
                free(tail);
        }
out:
        close(logfd);
        if (efd >= 0)
                close(efd);
        return rc;
}

/* ---- reading counter_collection.csv ---- */

/* The trailing number of an agent id ("2" or "Agent 2"), -1 if none. */
static long agent_number(const struct table *t, int col, size_t r)
{
        char buf[64];
        const char *s = col >= 0 ? table_cell(t, col, r, buf, sizeof buf) : "";
        size_t n = strlen(s);
        while (n && (s[n - 1] < '0' || s[n - 1] > '9'))
                n--;
        size_t b = n;
        while (b && s[b - 1] >= '0' && s[b - 1] <= '9')
                b--;
        return b < n ? atol(s + b) : -1;
}

/* GPU ordinal and wave size per agent, from the agent_info.csv beside a counter file. */
struct agents {
        long node[64];
        int gpu_id[64], wave[64];
        size_t n;
};

static void load_agents(const char *counter_file, struct agents *a)
{
        memset(a, 0, sizeof *a);
        const char *suffix = "counter_collection.csv";
        size_t l = strlen(counter_file), sl = strlen(suffix);
        if (l < sl)
                return;
        char *path = xasprintf("%.*sagent_info.csv", (int)(l - sl), counter_file);
        struct table t;
        table_init(&t);
        if (is_file(path) && table_load_csv(&t, path, NULL) == 0) {
                int cn = table_col(&t, "Node_Id"), ct = table_col(&t, "Agent_Type");
                int cw = table_col(&t, "Wave_Front_Size");
                int gpus = 0;
                char buf[64];
                for (size_t r = 0; r < t.nrows && a->n < 64; r++) {
                        const char *type = ct >= 0 ? table_cell(&t, ct, r, buf, sizeof buf) : "";
                        if (strcmp(type, "GPU"))
                                continue;
                        a->node[a->n] = agent_number(&t, cn, r);
                        a->gpu_id[a->n] = gpus++;
                        a->wave[a->n] = cw >= 0 && !isnan(t.num[cw][r]) ? (int)t.num[cw][r] : 0;
                        a->n++;
                }
        }
        table_free(&t);
        free(path);
}

static int kept(const struct backend_pass *p, const char *kernel, long index)
{
        if (p->kernels && p->nkernels) {
                size_t i = 0;
                while (i < p->nkernels && !strstr(kernel, p->kernels[i]))
                        i++;
                if (i == p->nkernels)
                        return 0;
        }
        if (p->dispatches && p->ndispatches) {
                size_t i = 0;
                while (i < p->ndispatches && p->dispatches[i] != index)
                        i++;
                if (i == p->ndispatches)
                        return 0;
        }
        return 1;
}

struct disp {
        double id;
        size_t first; /* first row */
};

static int cmp_disp(const void *a, const void *b)
{
        const struct disp *x = a, *y = b;
        if (x->id != y->id)
                return x->id < y->id ? -1 : 1;
        return x->first < y->first ? -1 : x->first > y->first;
}

/* Add the dispatches of one counter_collection.csv to out. *next: the global dispatch
 * number (launch order over all files) of the file's first dispatch. */
static int read_counters(const struct backend_pass *p, const char *file, struct table *out,
                         long *next, char **accum_names, struct err *err)
{
        struct table t;
        table_init(&t);
        int rc = table_load_csv(&t, file, err);
        if (rc) {
                table_free(&t);
                return err_wrap(err, "pass %d", p->index);
        }
        static const char *const need[] = {"Dispatch_Id", COL_KERNEL_NAME, COL_COUNTER_NAME,
                                           COL_COUNTER_VALUE};
        for (size_t i = 0; i < 4; i++)
                if (table_col(&t, need[i]) < 0) {
                        rc = err_set(err, ERR_INPUT, "pass %d: '%s' has no column '%s'",
                                     p->index, file, need[i]);
                        table_free(&t);
                        return rc;
                }
        struct agents ag;
        load_agents(file, &ag);
        int cid = table_col(&t, "Dispatch_Id"), ck = table_col(&t, COL_KERNEL_NAME);
        int cname = table_col(&t, COL_COUNTER_NAME), cval = table_col(&t, COL_COUNTER_VALUE);
        int cagent = table_col(&t, "Agent_Id");

        /* dispatches of this file in id order, each with its first row */
        struct disp *d = xmalloc((t.nrows ? t.nrows : 1) * sizeof *d);
        size_t nd = 0;
        struct smap seen = {0};
        char buf[64];
        int *row_disp = xmalloc((t.nrows ? t.nrows : 1) * sizeof *row_disp);
        for (size_t r = 0; r < t.nrows; r++) {
                const char *id = table_cell(&t, cid, r, buf, sizeof buf);
                int k;
                if (!smap_get(&seen, id, &k)) {
                        k = (int)nd;
                        smap_put(&seen, id, k);
                        d[nd].id = t.num[cid][r];
                        d[nd].first = r;
                        nd++;
                }
                row_disp[r] = k;
        }
        size_t *order_of = xmalloc((nd ? nd : 1) * sizeof *order_of);
        struct disp *sorted = xmalloc((nd ? nd : 1) * sizeof *sorted);
        memcpy(sorted, d, nd * sizeof *d);
        if (nd > 1)
                qsort(sorted, nd, sizeof *sorted, cmp_disp);
        for (size_t i = 0; i < nd; i++)
                order_of[row_disp[sorted[i].first]] = i;

        /* one output row per kept dispatch */
        long *out_row = xmalloc((nd ? nd : 1) * sizeof *out_row);
        static const struct {
                const char *out, *in;
        } info[] = {
                {COL_GRID_SIZE, "Grid_Size"},
                {COL_WORKGROUP_SIZE, "Workgroup_Size"},
                {COL_LDS_PER_WORKGROUP, "LDS_Block_Size"},
                {COL_SCRATCH_PER_WORKITEM, "Scratch_Size"},
                {COL_ARCH_VGPR, "VGPR_Count"},
                {COL_ACCUM_VGPR, "Accum_VGPR_Count"},
                {COL_SGPR, "SGPR_Count"},
                {COL_START, "Start_Timestamp"},
                {COL_END, "End_Timestamp"},
        };
        for (size_t i = 0; i < nd; i++) {
                size_t r = sorted[i].first;
                long index = *next + (long)i;
                const char *kernel = table_cell(&t, ck, r, buf, sizeof buf);
                out_row[i] = -1;
                if (!kept(p, kernel, index))
                        continue;
                size_t o = table_add_row(out);
                out_row[i] = (long)o;
                table_set_num(out, table_col(out, COL_DISPATCH_ID), o, (double)index);
                table_set_str(out, table_col(out, COL_KERNEL_NAME), o, kernel);
                long agent = agent_number(&t, cagent, r);
                double gpu_id = agent, wave = have_gpu ? gpu.wave_size : 64;
                for (size_t a = 0; a < ag.n; a++)
                        if (ag.node[a] == agent) {
                                gpu_id = ag.gpu_id[a];
                                if (ag.wave[a])
                                        wave = ag.wave[a];
                        }
                table_set_num(out, table_col(out, COL_GPU_ID), o, gpu_id);
                table_set_num(out, table_col(out, COL_WAVE_SIZE), o, wave);
                for (size_t k = 0; k < sizeof info / sizeof info[0]; k++) {
                        int c = table_col(&t, info[k].in);
                        /* rocprofv3 reports no accumulation VGPRs before ROCm 6.4: 0 */
                        double v = c >= 0 ? t.num[c][r] : 0;
                        table_set_num(out, table_col(out, info[k].out), o, v);
                }
        }
        /* counter values; instances are already summed by rocprofv3 */
        for (size_t r = 0; r < t.nrows; r++) {
                long o = out_row[order_of[row_disp[r]]];
                if (o < 0)
                        continue;
                const char *name = table_cell(&t, cname, r, buf, sizeof buf);
                for (size_t i = 0; i < p->ncounters; i++)
                        if (accum_names[i] && !strcmp(accum_names[i], name))
                                name = p->counters[i];
                int c = table_col(out, name);
                if (c < 0)
                        continue; /* not asked for */
                double v = t.num[cval][r];
                double prev = out->num[c][o];
                table_set_num(out, c, (size_t)o, isnan(prev) ? v : prev + v);
        }
        *next += (long)nd;
        free(out_row);
        free(order_of);
        free(sorted);
        free(row_disp);
        free(d);
        smap_free(&seen);
        table_free(&t);
        return 0;
}

static int read_outputs(const struct backend_pass *p, const char *outdir, struct table *out,
                        struct err *err)
{
        table_init(out);
        for (size_t i = 0; dispatch_info_cols[i]; i++)
                table_add_col(out, dispatch_info_cols[i]);
        table_add_col(out, COL_START);
        table_add_col(out, COL_END);
        char **accum_names = xcalloc(p->ncounters ? p->ncounters : 1, sizeof *accum_names);
        for (size_t i = 0; i < p->ncounters; i++) {
                table_add_col(out, p->counters[i]);
                if (p->accum_value && !strcmp(p->counters[i], p->accum_value))
                        accum_names[i] = rocprof_name(p, i);
        }
        char **files = NULL;
        size_t nfiles = 0, cap = 0;
        rocprof_find_files(outdir, "counter_collection.csv", 0, &files, &nfiles, &cap);
        long next = 0;
        int rc = 0;
        for (size_t f = 0; f < nfiles && !rc; f++)
                rc = read_counters(p, files[f], out, &next, accum_names, err);
        /* a counter rocprofv3 never reported means the pass did not measure what we asked */
        for (size_t i = 0; i < p->ncounters && !rc && out->nrows; i++) {
                int c = table_col(out, p->counters[i]);
                size_t r = 0;
                while (r < out->nrows && isnan(out->num[c][r]))
                        r++;
                if (r == out->nrows)
                        rc = err_set(err, ERR_SYS, "pass %d: rocprofv3 reported no value of '%s'",
                                     p->index, p->counters[i]);
        }
        for (size_t i = 0; i < nfiles; i++)
                free(files[i]);
        free(files);
        for (size_t i = 0; i < p->ncounters; i++)
                free(accum_names[i]);
        free(accum_names);
        if (rc)
                table_free(out);
        return rc;
}

static int rocprof_run_pass(const struct backend_pass *p, struct table *out, struct err *err)
{
        table_init(out);
        if (!p->argv || !p->argv[0])
                return err_set(err, ERR_USAGE, "pass %d: no target command", p->index);
        char *tool = rocprof_tool();
        if (!tool)
                return err_set(err, ERR_SYS,
                               "rocprofv3 not found: install ROCm >= 6.2, put rocprofv3 on PATH "
                               "or set PRISM_ROCPROFV3");
        int rc = have_gpu ? 0 : load_gpu(err);
        char *input = xasprintf("%s/pass.txt", p->workdir);
        char *extra = xasprintf("%s/counters.yaml", p->workdir);
        char *outdir = xasprintf("%s/out", p->workdir);
        char *logpath = xasprintf("%s/log.txt", p->workdir);
        char **argv = NULL;
        if (rc)
                goto out;
        char *text = rocprof_pass_text(p);
        rc = write_text(input, text, err);
        free(text);
        if (rc)
                goto out;
        struct rocprof_gpu g = {gpu.gfx, gpu.num_xcd, gpu.total_l2_chan, schema_v1()};
        char *defs = rocprof_pass_yaml(p, &g);
        int need_extra = defs != NULL;
        if (defs) {
                rc = write_text(extra, defs, err);
                free(defs);
                if (rc)
                        goto out;
        }

        size_t nt = 0;
        while (p->argv[nt])
                nt++;
        argv = xcalloc(nt + 12, sizeof *argv);
        size_t a = 0;
        argv[a++] = tool;
        argv[a++] = "--kernel-trace";
        argv[a++] = "--output-format";
        argv[a++] = "csv";
        argv[a++] = "-i";
        argv[a++] = input;
        argv[a++] = "-d";
        argv[a++] = outdir;
        if (need_extra) {
                argv[a++] = "-E";
                argv[a++] = extra;
        }
        argv[a++] = "--";
        for (size_t i = 0; i < nt; i++)
                argv[a++] = p->argv[i];
        argv[a] = NULL;
        if ((rc = run_rocprof(p, argv, logpath, tool, err)))
                goto out;
        rc = read_outputs(p, outdir, out, err);
out:
        free(argv);
        free(input);
        free(extra);
        free(outdir);
        free(logpath);
        free(tool);
        return rc;
}

/* the model table's defaults for a known AMD target */
static int rocprof_offline_sysinfo(const char *target, struct table *si)
{
        struct amd_gpu g;
        if (detect_amd_defaults(target, &g, NULL))
                return 0;
        detect_amd_sysinfo(&g, si);
        return 1;
}

const struct backend backend_rocprof = {
    .name = "rocprof",
    .available = rocprof_available,
    .detect = rocprof_detect,
    .offline_sysinfo = rocprof_offline_sysinfo,
    .run_pass = rocprof_run_pass,
    .num_passes = NULL,
    .pc_sampling = rocprof_pc_sampling, /* pcs_rocprof.c */
    .device_vars = rocprof_device_vars,
    .count_gpus = rocprof_count_gpus,
};
