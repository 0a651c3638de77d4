/* The NVIDIA backend: each pass runs the target once with libprism-cupti.so injected through
 * CUDA_INJECTION64_PATH and reads the CSV it writes; the GPU's properties come from the CUDA
 * driver API. Everything NVIDIA is loaded with dlopen: prism has no link-time CUDA dependency. */
#include "../../backend.h"
#include "clocks_nvml.h"
#include "../../passcache.h"
#include "../../host.h"
#include "../../proc.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../../arch/arch.h"
#include "../../../store/columns.h"

#include "pcs_cupti.h"

#define COLLECTOR "libprism-cupti.so"

/* CUdevice_attribute values from cuda.h (a stable ABI; prism builds without CUDA headers). */
enum {
        ATTR_MAX_THREADS_PER_BLOCK = 1,
        ATTR_WARP_SIZE = 10,
        ATTR_CLOCK_RATE = 13, /* kHz */
        ATTR_MULTIPROCESSOR_COUNT = 16,
        ATTR_MEMORY_CLOCK_RATE = 36,       /* kHz */
        ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37, /* bits */
        ATTR_L2_CACHE_SIZE = 38,           /* bytes */
        ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
        ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
        ATTR_COMPUTE_CAPABILITY_MINOR = 76,
        ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81, /* bytes */
};

/* The few driver entry points prism calls (CUresult is an int enum, CUdevice an int). */
struct cuda {
        int loaded; /* 1 ok, -1 failed */
        char why[256];
        int (*init)(unsigned);
        int (*device_get_count)(int *);
        int (*device_get)(int *, int);
        int (*device_get_name)(char *, int, int);
        int (*device_get_attribute)(int *, int, int);
        int (*device_total_mem)(size_t *, int);
        int (*driver_get_version)(int *);
        int (*get_error_string)(int, const char **);
        int (*pci_bus_id)(char *, int, int);
        int (*device_uuid)(unsigned char *, int); /* cuDeviceGetUuid_v2: 16 bytes */
};
static struct cuda cu;

static int cuda_load(void)
{
        if (cu.loaded)
                return cu.loaded > 0 ? 0 : -1;
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                snprintf(cu.why, sizeof cu.why, "cannot load libcuda.so.1: %s", dlerror());
                cu.loaded = -1;
                return -1;
        }
        struct {
                void *slot;
                const char *name;
        } syms[] = {
            {&cu.init, "cuInit"},
            {&cu.device_get_count, "cuDeviceGetCount"},
            {&cu.device_get, "cuDeviceGet"},
            {&cu.device_get_name, "cuDeviceGetName"},
            {&cu.device_get_attribute, "cuDeviceGetAttribute"},
            {&cu.device_total_mem, "cuDeviceTotalMem_v2"},
            {&cu.driver_get_version, "cuDriverGetVersion"},
            {&cu.get_error_string, "cuGetErrorString"},
            {&cu.pci_bus_id, "cuDeviceGetPCIBusId"},
            {&cu.device_uuid, "cuDeviceGetUuid_v2"},
        };
        for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
                void *p = dlsym(h, syms[i].name);
                if (!p) {
                        snprintf(cu.why, sizeof cu.why, "libcuda.so.1 lacks '%s'", syms[i].name);
                        cu.loaded = -1;
                        return -1;
                }
                memcpy(syms[i].slot, &p, sizeof p);
        }
        cu.loaded = 1;
        return 0;
}

static const char *cu_str(int r)
{
        const char *s = NULL;
        if (cu.get_error_string && cu.get_error_string(r, &s) == 0 && s)
                return s;
        return "unknown CUDA error";
}

static int cupti_available(void)
{
        static int avail = -1;
        int n = 0;
        if (avail < 0)
                avail =
                    cuda_load() == 0 && cu.init(0) == 0 && cu.device_get_count(&n) == 0 && n > 0;
        return avail;
}

/* ---- detect: sysinfo.csv columns ---- */

/* The model from the marketing name: drop the vendor and brand words, keep the first word,
 * cut at '-' ("NVIDIA A100-SXM4-80GB" -> "A100"); a letters-only word such as "RTX" keeps
 * the next one ("NVIDIA GeForce RTX 4090" -> "RTX 4090"). */
static void model_from_name(const char *name, char *out, size_t len)
{
        static const char *const skip[] = {"NVIDIA", "GeForce", "Tesla", "Quadro"};
        char copy[256], *save = NULL, *tok;
        snprintf(copy, sizeof copy, "%s", name);
        out[0] = 0;
        for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
                int skipped = 0;
                for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
                        skipped |= strcmp(tok, skip[i]) == 0;
                if (!skipped)
                        break;
        }
        if (!tok) {
                snprintf(out, len, "%s", name);
                return;
        }
        tok[strcspn(tok, "-")] = 0;
        int letters = 1;
        for (const char *p = tok; *p; p++)
                letters &= (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z');
        char *next = letters ? strtok_r(NULL, " ", &save) : NULL;
        if (next) {
                next[strcspn(next, "-")] = 0;
                snprintf(out, len, "%s %s", tok, next);
        } else {
                snprintf(out, len, "%s", tok);
        }
}

/* The facts of the GPU that the driver does not report, from its family's data
 * (`model_facts:` of metrics/ for the target chip): NaN each where the data has none. */
struct sm_facts {
        double simd_per_cu, cu_per_se, lds_banks, xcd, l2_chan_bus_bits;
};

static void sm_facts_load(const char *target, struct sm_facts *f)
{
        f->simd_per_cu = f->cu_per_se = f->lds_banks = f->xcd = f->l2_chan_bus_bits = NAN;
        char *mdir = data_path("metrics");
        struct arch a;
        struct err e = {0};
        if (mdir && arch_load(mdir, target, &a, &e) == 0) {
                f->simd_per_cu = arch_model_fact(&a, NULL, "simd_per_cu");
                f->cu_per_se = arch_model_fact(&a, NULL, "cu_per_se");
                f->lds_banks = arch_model_fact(&a, NULL, "lds_banks");
                f->xcd = arch_model_fact(&a, NULL, "xcd");
                f->l2_chan_bus_bits = arch_model_fact(&a, NULL, "l2_chan_bus_bits");
                arch_free(&a);
        }
        free(mdir);
}

static int cupti_detect(struct table *si, struct err *err)
{
        int r, dev, n = 0;
        char name[256], buf[512];

        if (cuda_load() < 0)
                return err_set(err, ERR_SYS, "%s", cu.why);
        if ((r = cu.init(0)) != 0)
                return err_set(err, ERR_SYS, "cannot initialize CUDA: %s", cu_str(r));
        if ((r = cu.device_get_count(&n)) != 0 || n < 1)
                return err_set(err, ERR_SYS, "no CUDA device found%s%s", r ? ": " : "",
                               r ? cu_str(r) : "");
        /* The device the target sees first (CUDA_VISIBLE_DEVICES applies to both). */
        if ((r = cu.device_get(&dev, 0)) != 0 ||
            (r = cu.device_get_name(name, sizeof name, dev)) != 0)
                return err_set(err, ERR_SYS, "cannot query CUDA device 0: %s", cu_str(r));
        int a[ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR + 1];
        static const int wanted[] = {
            ATTR_MAX_THREADS_PER_BLOCK,
            ATTR_WARP_SIZE,
            ATTR_CLOCK_RATE,
            ATTR_MULTIPROCESSOR_COUNT,
            ATTR_MEMORY_CLOCK_RATE,
            ATTR_GLOBAL_MEMORY_BUS_WIDTH,
            ATTR_L2_CACHE_SIZE,
            ATTR_MAX_THREADS_PER_MULTIPROCESSOR,
            ATTR_COMPUTE_CAPABILITY_MAJOR,
            ATTR_COMPUTE_CAPABILITY_MINOR,
            ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
        };
        for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
                int k = wanted[i];
                if ((r = cu.device_get_attribute(&a[k], k, dev)) != 0)
                        return err_set(err, ERR_SYS, "cannot read attribute %d of '%s': %s", k,
                                       name, cu_str(r));
        }
        size_t total_mem = 0;
        cu.device_total_mem(&total_mem, dev);
        int drv = 0;
        cu.driver_get_version(&drv);

        table_add_row(si);
        /* host */
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(buf, sizeof buf, "%a %d %b %Y %I:%M:%S %p (%Z)", &tm);
        sysinfo_set_str(si, "timestamp", buf);
        host_sysinfo(si);
        host_file_value("/proc/meminfo", "MemTotal", buf, sizeof buf);
        sysinfo_set_num(si, "cpu_memory", atof(buf)); /* kB, as rocprof-compute */
        sysinfo_set_num(si, "gpu_memory", (double)(total_mem / 1024));
        snprintf(buf, sizeof buf, "%d.%d", drv / 1000, drv % 1000 / 10);
        sysinfo_set_str(si, "cuda_version", buf); /* the driver's CUDA version */
        sysinfo_set_str(si, "vbios", "");
        sysinfo_set_str(si, "compute_partition", "NA");
        sysinfo_set_str(si, "memory_partition", "NA");

        /* GPU */
        model_from_name(name, buf, sizeof buf);
        sysinfo_set_str(si, "gpu_model", buf);
        sysinfo_set_str(si, "gpu_name", name);
        snprintf(buf, sizeof buf, "sm_%d%d", a[ATTR_COMPUTE_CAPABILITY_MAJOR],
                 a[ATTR_COMPUTE_CAPABILITY_MINOR]);
        sysinfo_set_str(si, "gpu_arch", buf);
        struct sm_facts f;
        sm_facts_load(buf, &f);
        sysinfo_set_num(si, "gpu_l1",
                        NAN); /* L1 and shared memory are one carve-out: no fixed size */
        sysinfo_set_num(si, "gpu_l2", a[ATTR_L2_CACHE_SIZE] / 1024.0);
        int sms = a[ATTR_MULTIPROCESSOR_COUNT];
        sysinfo_set_num(si, "cu_per_gpu", sms);
        sysinfo_set_num(si, "simd_per_cu", f.simd_per_cu);
        /* the driver API exposes no GPC count */
        sysinfo_set_num(si, "se_per_gpu", ceil(sms / f.cu_per_se));
        sysinfo_set_num(si, "wave_size", a[ATTR_WARP_SIZE]);
        sysinfo_set_num(si, "workgroup_max_size", a[ATTR_MAX_THREADS_PER_BLOCK]);
        sysinfo_set_num(si, "max_waves_per_cu",
                        a[ATTR_MAX_THREADS_PER_MULTIPROCESSOR] /
                            (a[ATTR_WARP_SIZE] ? a[ATTR_WARP_SIZE] : 32));
        double sclk = a[ATTR_CLOCK_RATE] / 1000.0, mclk = a[ATTR_MEMORY_CLOCK_RATE] / 1000.0;
        sysinfo_set_num(si, "max_sclk", sclk);
        sysinfo_set_num(si, "max_mclk", mclk);
        sysinfo_set_num(si, "cur_sclk", sclk);
        sysinfo_set_num(si, "cur_mclk", mclk);
        int bus = a[ATTR_GLOBAL_MEMORY_BUS_WIDTH];
        sysinfo_set_num(si, "total_l2_chan", floor(bus / f.l2_chan_bus_bits));
        sysinfo_set_num(si, "lds_banks_per_cu", f.lds_banks);
        sysinfo_set_num(si, "lds_per_cu", a[ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR] / 1024.0);
        /* Double data rate: MHz * 2 transfers * bus bytes, in GB/s (rocprof-compute's unit). */
        sysinfo_set_num(si, "hbm_bw", mclk * 2.0 * (bus / 8.0) / 1000.0);
        sysinfo_set_num(si, "num_xcd", f.xcd);
        /* which GPU: its UUID as nvidia-smi writes it and its PCI address */
        unsigned char u[16];
        if (cu.device_uuid(u, dev) == 0) {
                snprintf(buf, sizeof buf,
                         "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
                         "%02x%02x%02x%02x%02x%02x",
                         u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
                         u[11], u[12], u[13], u[14], u[15]);
                sysinfo_set_str(si, "gpu_uuid", buf);
        }
        if (cu.pci_bus_id(buf, 64, dev) == 0) {
                for (char *q = buf; *q; q++) /* lower case, as lspci writes it */
                        *q = (char)tolower((unsigned char)*q);
                sysinfo_set_str(si, "gpu_pci_bus", buf);
        }
        return 0;
}

/* ---- the collector library ---- */

/* $PRISM_CUPTI_LIB, then beside the prism binary (build tree), then <exe>/../lib/prism
 * (installed). Returns a malloc'd absolute path or NULL with err filled. */
static char *find_collector(struct err *err)
{
        const char *env = getenv("PRISM_CUPTI_LIB");
        const char *ed = exe_dir();
        char *cand[4] = {0};
        size_t n = 0;
        char *found = NULL;

        if (env && *env)
                cand[n++] = xstrdup(env);
        if (ed) {
                cand[n++] = xasprintf("%s/%s", ed, COLLECTOR);
                cand[n++] = xasprintf("%s/../lib/prism/%s", ed, COLLECTOR);
        }
#ifdef PRISM_LIBDIR
        cand[n++] = xasprintf("%s/%s", PRISM_LIBDIR, COLLECTOR);
#endif
        for (size_t i = 0; i < n && !found; i++) {
                char real[PATH_MAX];
                if (is_file(cand[i]) && realpath(cand[i], real))
                        found = xstrdup(real);
        }
        if (!found)
                err_set(err, ERR_SYS,
                        "cannot find %s next to prism or in its lib/prism directory (set "
                        "PRISM_CUPTI_LIB)",
                        COLLECTOR);
        for (size_t i = 0; i < n; i++)
                free(cand[i]);
        return found;
}

static int cupti_num_passes_uncached(const char *chip, const char *const *counters, size_t n,
                                     struct err *err);

/* Pass counts are asked hundreds of times while planning: kept in passcache.c. */
static int cupti_num_passes(const char *chip, const char *const *counters, size_t n,
                            struct err *err)
{
        static int opened;
        /* the architecture's recorded counts first: no library, no CUPTI */
        int r = passcache_data_get(chip, counters, n);
        if (r > 0) {
                passcache_record(chip, counters, n, r);
                return r;
        }
        if (!opened) {
                /* the cache is keyed by the collector library: find it, load it on a miss */
                char *path = find_collector(err);
                if (!path)
                        return ERR_SYS;
                passcache_open(path);
                free(path);
                opened = 1;
        }
        r = passcache_get(chip, counters, n);
        if (r <= 0) {
                r = cupti_num_passes_uncached(chip, counters, n, err);
                if (r > 0)
                        passcache_put(chip, counters, n, r);
        }
        passcache_record(chip, counters, n, r);
        return r;
}

static int cupti_num_passes_uncached(const char *chip, const char *const *counters, size_t n,
                                     struct err *err)
{
        static void *handle;
        static int (*fn)(const char *, const char *const *, size_t, char *, size_t);
        char msg[512];

        if (!fn) {
                char *path = find_collector(err);
                if (!path)
                        return ERR_SYS;
                /* Kept open: CUPTI does not expect to be unloaded. */
                handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
                if (!handle) {
                        err_set(err, ERR_SYS, "cannot load '%s': %s", path, dlerror());
                        free(path);
                        return ERR_SYS;
                }
                *(void **)(&fn) = dlsym(handle, "prism_cupti_num_passes");
                if (!fn) {
                        err_set(err, ERR_SYS, "'%s' lacks prism_cupti_num_passes", path);
                        free(path);
                        return ERR_SYS;
                }
                free(path);
        }
        int r = fn(chip, counters, n, msg, sizeof msg);
        if (r < 0)
                return err_set(err, ERR_INPUT, "%s", msg);
        return r;
}

/* ---- run_pass ---- */

static int name_matches(const char *name, const struct backend_pass *p)
{
        if (!p->kernels || p->nkernels == 0)
                return 1;
        for (size_t i = 0; i < p->nkernels; i++)
                if (strstr(name, p->kernels[i]))
                        return 1;
        return 0;
}

static int dispatch_kept(double id, const struct backend_pass *p)
{
        if (!p->dispatches || p->ndispatches == 0)
                return 1;
        for (size_t i = 0; i < p->ndispatches; i++)
                if ((double)p->dispatches[i] == id)
                        return 1;
        return 0;
}

/* Keep the rows the pass's kernel and dispatch filters select (ids stay the launch order). */
static void filter_rows(const struct backend_pass *p, struct table *t)
{
        if ((!p->kernels || !p->nkernels) && (!p->dispatches || !p->ndispatches))
                return;
        int cn = table_col(t, COL_KERNEL_NAME), ci = table_col(t, COL_DISPATCH_ID);
        struct table keep;
        table_init(&keep);
        for (size_t c = 0; c < t->ncols; c++)
                table_add_col(&keep, t->names[c]);
        for (size_t r = 0; r < t->nrows; r++) {
                const char *name = cn >= 0 && t->str[cn] && t->str[cn][r] ? t->str[cn][r] : "";
                if (!name_matches(name, p) || (ci >= 0 && !dispatch_kept(t->num[ci][r], p)))
                        continue;
                size_t row = table_add_row(&keep);
                for (size_t c = 0; c < t->ncols; c++) {
                        if (t->str[c] && t->str[c][r])
                                table_set_str(&keep, (int)c, row, t->str[c][r]);
                        table_set_num(&keep, (int)c, row, t->num[c][r]);
                }
        }
        table_free(t);
        *t = keep;
}

/* The clock of each dispatch (ncu's SM Frequency and DRAM Frequency), collected with the
 * first pass (or with everything in kernel replay). */
static const char *const clock_metrics[] = {"smsp__cycles_elapsed.avg.per_second",
                                            "dram__cycles_elapsed.avg.per_second"};

/* The metrics for PRISM_CUPTI_METRICS: the pass's counters (each once; in kernel replay the
 * per-pass metrics recur in every group), then the clocks. */
static void metric_list(const struct backend_pass *p, struct strbuf *sb)
{
        struct smap seen = {0};
        sb_add(sb, "");
        size_t n = 0;
        int clocks = p->replay == REPLAY_KERNEL || p->index == 0;
        size_t nclk = clocks ? sizeof clock_metrics / sizeof clock_metrics[0] : 0;
        for (size_t i = 0; i < p->ncounters + nclk; i++) {
                const char *m = i < p->ncounters ? p->counters[i] : clock_metrics[i - p->ncounters];
                int dummy;
                if (smap_get(&seen, m, &dummy))
                        continue;
                smap_put(&seen, m, 1);
                sb_addf(sb, "%s%s", n++ ? "," : "", m);
        }
        smap_free(&seen);
}

struct progress_pipe {
        int fd;
        const struct backend_pass *p;
        char buf[4096];
        size_t len;
};

/* Read the collector's "dispatch<TAB>kernel" lines; report the last one. */
static void read_progress(void *ctx)
{
        struct progress_pipe *pp = ctx;
        ssize_t got;
        long last = -1;
        char name[300] = "";
        while ((got = read(pp->fd, pp->buf + pp->len, sizeof pp->buf - 1 - pp->len)) > 0) {
                pp->len += (size_t)got;
                pp->buf[pp->len] = 0;
                char *line = pp->buf, *nl;
                while ((nl = strchr(line, '\n'))) {
                        *nl = 0;
                        char *tab = strchr(line, '\t');
                        if (tab) {
                                last = strtol(line, NULL, 10);
                                snprintf(name, sizeof name, "%s", tab + 1);
                        }
                        line = nl + 1;
                }
                pp->len = strlen(line);
                memmove(pp->buf, line, pp->len);
                if (pp->len == sizeof pp->buf - 1)
                        pp->len = 0; /* a line longer than the buffer: dropped */
        }
        if (last >= 0 && pp->p->progress)
                pp->p->progress(pp->p->progress_ctx, last, name);
}

/* The collector's settings, as proc_spawn's env list (set the named, remove the rest);
 * the strings go in *keep, freed by the caller. */
static void collector_env(const struct backend_pass *p, const char *lib, const char *metrics,
                          const char *csv, int progfd, char **env, char **keep)
{
        size_t n = 0;
        env[n++] = keep[0] =
            progfd >= 0 ? xasprintf("PRISM_CUPTI_PROGRESS_FD=%d", progfd) : NULL;
        if (!env[0])
                env[0] = (char *)"PRISM_CUPTI_PROGRESS_FD";
        env[n++] = (char *)(p->replay == REPLAY_KERNEL ? "PRISM_CUPTI_REPLAY=kernel"
                                                       : "PRISM_CUPTI_REPLAY");
        env[n++] = (char *)(p->flush_caches ? "PRISM_CUPTI_FLUSH=1" : "PRISM_CUPTI_FLUSH");
        env[n++] = keep[1] = xasprintf("CUDA_INJECTION64_PATH=%s", lib);
        env[n++] = keep[2] = xasprintf("PRISM_CUPTI_METRICS=%s", metrics);
        env[n++] = keep[3] = xasprintf("PRISM_CUPTI_OUT=%s", csv);
        /* the metrics the collector's own replay (kernel replay with the caches flushed)
         * leaves to CUPTI's */
        struct strbuf inst = {0};
        for (size_t i = 0; p->replay == REPLAY_KERNEL && i < p->ninstrumented; i++)
                sb_addf(&inst, "%s%s", i ? "," : "", p->instrumented[i]);
        env[n++] = keep[4] = inst.len ? xasprintf("PRISM_CUPTI_INSTRUMENTED=%s", inst.buf) : NULL;
        if (!keep[4])
                env[n - 1] = (char *)"PRISM_CUPTI_INSTRUMENTED";
        sb_free(&inst);
        env[n] = NULL;
}

static int cupti_run_pass(const struct backend_pass *p, struct table *out, struct err *err)
{
        int num = p->index, /* 0-based, as perfmon/pmc_perf_N.txt and the AMD backend */
            ret = 0, efd = -1, prog[2] = {-1, -1}, status = 0;
        char *lib = NULL, *csv = NULL, *errpath = NULL, *errtext = NULL;
        struct strbuf metrics = {0};

        if (!p->argv || !p->argv[0])
                return err_set(err, ERR_USAGE, "pass %d: no target command", num);
        if (!(lib = find_collector(err))) {
                ret = err_wrap(err, "pass %d", num);
                goto out;
        }
        csv = xasprintf("%s/pass.csv", p->workdir);
        errpath = xasprintf("%s.err", csv);
        unlink(csv);
        unlink(errpath);
        metric_list(p, &metrics);
        /* the collector's progress: the write end stays open in the target, never blocks */
        if (p->progress && pipe(prog) == 0) {
                fcntl(prog[0], F_SETFD, FD_CLOEXEC);
                fcntl(prog[0], F_SETFL, O_NONBLOCK);
                fcntl(prog[1], F_SETFL, O_NONBLOCK);
        }
        char *env[8], *keep[5];
        collector_env(p, lib, metrics.buf, csv, prog[1], env, keep);
        pid_t pid = proc_spawn(p->argv, -1, env, &efd);
        free_all((void *const *)keep, 5);
        if (pid < 0) {
                ret = err_set(err, ERR_SYS, "pass %d: cannot start '%s': %s", num, p->argv[0],
                              strerror(errno));
                goto out;
        }
        if (prog[1] >= 0) {
                close(prog[1]);
                prog[1] = -1;
        }
        int exec_errno;
        struct progress_pipe pp = {.fd = prog[0], .p = p};
        int timed_out = proc_wait_exec_tick(pid, efd, p->timeout_s, &status, &exec_errno,
                                            prog[0] >= 0 ? read_progress : NULL, &pp);
        if (exec_errno) {
                ret = err_set(err, ERR_INPUT, "pass %d: cannot run '%s': %s", num, p->argv[0],
                              strerror(exec_errno));
                goto out;
        }
        if (timed_out) {
                ret = err_set(err, ERR_SYS, "pass %d: target timed out after %d s and was killed",
                              num, p->timeout_s);
                goto out;
        }
        /* A collector error explains a failed target best; report it first. */
        if (is_file(errpath) && (errtext = read_file(errpath, NULL, NULL)) && errtext[0]) {
                errtext[strcspn(errtext, "\n")] = 0;
                ret = err_set(err, ERR_SYS, "pass %d: %s", num, errtext);
                goto out;
        }
        if (WIFSIGNALED(status)) {
                ret = err_set(err, ERR_SYS, "pass %d: target killed by signal %d (%s)", num,
                              WTERMSIG(status), strsignal(WTERMSIG(status)));
                goto out;
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
                ret = err_set(err, ERR_SYS, "pass %d: target exited with status %d", num,
                              WEXITSTATUS(status));
                goto out;
        }
        if (!is_file(csv)) {
                ret = err_set(err, ERR_SYS,
                              "pass %d: the collector wrote no '%s' (does the target use CUDA?)",
                              num, csv);
                goto out;
        }
        if ((ret = table_load_csv(out, csv, err)) < 0) {
                err_wrap(err, "pass %d", num);
                goto out;
        }
        for (size_t i = 0; i < p->ncounters; i++) {
                if (table_col(out, p->counters[i]) < 0) {
                        ret = err_set(err, ERR_SYS, "pass %d: '%s' has no column '%s'", num, csv,
                                      p->counters[i]);
                        goto out;
                }
        }
        filter_rows(p, out);
out:
        for (int k = 0; k < 2; k++)
                if (prog[k] >= 0)
                        close(prog[k]);
        if (efd >= 0)
                close(efd);
        free(lib);
        free(csv);
        free(errpath);
        free(errtext);
        sb_free(&metrics);
        return ret;
}

static int cupti_clocks(int mode, struct clock_state *cs)
{
        char bus[64] = "";
        int dev;
        if (cuda_load() == 0 && cu.init(0) == 0 && cu.device_get(&dev, 0) == 0)
                cu.pci_bus_id(bus, sizeof bus, dev);
        return clocks_nvml_set(mode, bus, -1, cs);
}

/* The CUDA runtime and driver choose the GPU by this one. */
static const char *const cupti_device_vars[] = {"CUDA_VISIBLE_DEVICES", NULL};

/* The GPUs the NVIDIA driver lists (no CUDA initialised). */
static int cupti_count_gpus(void)
{
        int n = 0;
        DIR *d = opendir("/proc/driver/nvidia/gpus");
        if (d) {
                struct dirent *e;
                while ((e = readdir(d)))
                        n += e->d_name[0] != '.';
                closedir(d);
        }
        return n;
}

const struct backend backend_cupti = {
    .name = "cupti",
    .available = cupti_available,
    .detect = cupti_detect,
    .run_pass = cupti_run_pass,
    .num_passes = cupti_num_passes,
    .replay_modes = REPLAY_APPLICATION | REPLAY_KERNEL,
    .clocks = cupti_clocks,
    .clocks_reset = clocks_nvml_reset,
    .can_flush_caches = 1,
    .pc_sampling = cupti_pc_sampling, /* pcs_cupti.c */
    .pc_sampling_default = 1,
    .device_vars = cupti_device_vars,
    .count_gpus = cupti_count_gpus,
};
