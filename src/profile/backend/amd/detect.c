/* AMD GPU detection: KFD topology (plain "key value" property files), the amdgpu DRM
 * info ioctl where a render node opens, and the gpu_model of a gfx target and device id
 * with its facts, from the architecture data (arch_model_find). */
#include "detect.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<libdrm/amdgpu_drm.h>)
#include <libdrm/amdgpu_drm.h>
#define HAVE_AMDGPU_DRM 1
#endif
#endif

#include "../../../arch/arch.h"
#include "../../../store/table.h"

/* A GPU model's facts that neither the KFD topology nor the DRM query report, from the
 * architecture data (the family's models: and model_facts:, metrics/ files).
 * l2_per_xcd: L2 channels per XCD; hbm_channels: 0 means "as many as L2 channels"
 * (rocprof-compute's hbm_bw rule); the def_* fields are used only when planning for a GPU
 * that is not present. */
struct amd_model {
        char model[24];
        int l2_per_xcd, hbm_channels, lds_banks, pipes, wg_max;
        int def_cu, def_se, def_xcd, def_l1, def_l2, def_sclk, def_mclk, def_simd, def_wave;
};

/* a fact as a whole number, 0 when the data gives none */
static int fact(const struct arch *a, const struct arch_model *m, const char *key)
{
        double v = arch_model_fact(a, m, key);
        return v >= 0 && v <= 1e9 ? (int)v : 0;
}

/* The model of gfx target and PCI device id in the data of mdir: 0, or -1 when the data
 * has no such target or no model of it. */
static int model_load(const char *mdir, const char *gfx, unsigned device_id, struct amd_model *m)
{
        struct arch a;
        struct err err = {0};
        int rc = -1;
        if (arch_load(mdir, gfx, &a, &err) == 0) {
                const struct arch_model *am = arch_model_find(&a, device_id);
                if (am) {
                        memset(m, 0, sizeof *m);
                        snprintf(m->model, sizeof m->model, "%s", am->name);
                        m->l2_per_xcd = fact(&a, am, "l2_per_xcd");
                        m->hbm_channels = fact(&a, am, "hbm_channels");
                        m->lds_banks = fact(&a, am, "lds_banks");
                        m->pipes = fact(&a, am, "pipes");
                        m->wg_max = fact(&a, am, "workgroup_max");
                        m->def_cu = fact(&a, am, "cu");
                        m->def_se = fact(&a, am, "se");
                        m->def_xcd = fact(&a, am, "xcd");
                        m->def_l1 = fact(&a, am, "l1");
                        m->def_l2 = fact(&a, am, "l2");
                        m->def_sclk = fact(&a, am, "sclk");
                        m->def_mclk = fact(&a, am, "mclk");
                        m->def_simd = fact(&a, am, "simd_per_cu");
                        m->def_wave = fact(&a, am, "wave_size");
                        rc = 0;
                }
                arch_free(&a);
        }
        return rc;
}

/* model_load from the data directory in force, remembered: a node of eight GPUs loads its
 * architecture once, not once per GPU */
static int model_find(const char *gfx, unsigned device_id, struct amd_model *m)
{
        static struct {
                char mdir[512], gfx[16];
                unsigned device_id;
                int rc;
                struct amd_model m;
        } memo[8];
        static size_t nmemo, next;
        char *mdir = data_path("metrics");
        if (!mdir)
                return -1;
        for (size_t i = 0; i < nmemo; i++)
                if (!strcmp(memo[i].mdir, mdir) && !strcmp(memo[i].gfx, gfx) &&
                    memo[i].device_id == device_id) {
                        free(mdir);
                        *m = memo[i].m;
                        return memo[i].rc;
                }
        int rc = model_load(mdir, gfx, device_id, m);
        if (strlen(mdir) < sizeof memo[0].mdir && strlen(gfx) < sizeof memo[0].gfx) {
                size_t k = nmemo < 8 ? nmemo++ : next++ % 8;
                snprintf(memo[k].mdir, sizeof memo[k].mdir, "%s", mdir);
                snprintf(memo[k].gfx, sizeof memo[k].gfx, "%s", gfx);
                memo[k].device_id = device_id;
                memo[k].rc = rc;
                if (rc)
                        memset(&memo[k].m, 0, sizeof memo[k].m);
                else
                        memo[k].m = *m;
        }
        free(mdir);
        return rc;
}

int detect_amd_model(const char *gfx, unsigned device_id, char *buf, size_t len)
{
        struct amd_model m;
        if (model_find(gfx, device_id, &m))
                return -1;
        snprintf(buf, len, "%s", m.model);
        return 0;
}

int detect_gfx_name(unsigned v, char *buf, size_t len)
{
        if (!v)
                return -1;
        /* gfx_target_version is major*10000 + minor*100 + stepping; the name spells
         * minor and stepping as one hex digit each (major 9, minor 0, stepping 10 ->
         * "gfx" 9 0 a). */
        unsigned major = v / 10000, minor = (v / 100) % 100, step = v % 100;
        int n = snprintf(buf, len, "gfx%u%x%x", major, minor, step);
        return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

/* ---- "key value" property files ---- */

struct props {
        char **keys;
        long long *vals;
        size_t n, cap;
};

static void props_free(struct props *p)
{
        for (size_t i = 0; i < p->n; i++)
                free(p->keys[i]);
        free(p->keys);
        free(p->vals);
        memset(p, 0, sizeof *p);
}

/* Parse "key value" lines; a line without a numeric value is an error naming it. */
static int props_load(struct props *p, const char *path, struct err *err)
{
        char *text = read_file(path, NULL, err);
        if (!text)
                return err ? err->code : ERR_SYS;
        int rc = 0, lineno = 0;
        char *save = NULL;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                lineno++;
                char key[128];
                int used = 0;
                if (strspn(line, " \t\r") == strlen(line))
                        continue;
                /* values are decimal; unique_id is a full 64-bit unsigned number */
                char *end = NULL;
                long long val = 0;
                if (sscanf(line, "%127s %n", key, &used) == 1 && line[used]) {
                        errno = 0;
                        if (line[used] == '-')
                                val = strtoll(line + used, &end, 10);
                        else
                                val = (long long)strtoull(line + used, &end, 10);
                        if (errno || end == line + used)
                                end = NULL;
                        else
                                end += strspn(end, " \t\r");
                }
                if (!end || *end) {
                        rc = err_set(err, ERR_INPUT, "%s:%d: expected 'key value', got '%s'", path,
                                     lineno, line);
                        break;
                }
                size_t cap = p->cap;
                xgrow(&p->keys, &cap, p->n + 1, sizeof *p->keys);
                xgrow(&p->vals, &p->cap, p->n + 1, sizeof *p->vals);
                p->keys[p->n] = xstrdup(key);
                p->vals[p->n++] = val;
        }
        free(text);
        return rc;
}

static long long prop(const struct props *p, const char *key, long long def)
{
        for (size_t i = 0; i < p->n; i++)
                if (!strcmp(p->keys[i], key))
                        return p->vals[i];
        return def;
}

/* First line of a small text file, trimmed, into buf; 0 if read. */
static int read_line(const char *path, char *buf, size_t len)
{
        FILE *f = fopen(path, "r");
        if (!f)
                return -1;
        char *ok = fgets(buf, (int)len, f);
        fclose(f);
        if (!ok)
                return -1;
        size_t n = strlen(buf);
        while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
                buf[--n] = 0;
        return 0;
}

/* Numbered subdirectories of dir, sorted; returns count (malloc'd array). */
static size_t numbered_dirs(const char *dir, int **out)
{
        *out = NULL;
        DIR *d = opendir(dir);
        if (!d)
                return 0;
        size_t n = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
                char *end;
                long v = strtol(e->d_name, &end, 10);
                if (end == e->d_name || *end || v < 0)
                        continue;
                xgrow(out, &cap, n + 1, sizeof **out);
                (*out)[n++] = (int)v;
        }
        closedir(d);
        for (size_t i = 1; i < n; i++) /* insertion sort: a few dozen entries */
                for (size_t j = i; j > 0 && (*out)[j - 1] > (*out)[j]; j--) {
                        int t = (*out)[j];
                        (*out)[j] = (*out)[j - 1];
                        (*out)[j - 1] = t;
                }
        return n;
}

/* KFD cache type bits (kfd_crat.h): data 1, instruction 2. */
enum { KFD_CACHE_DATA = 1, KFD_CACHE_INST = 2 };

static int read_caches(const char *node_dir, struct amd_gpu *g, struct err *err)
{
        char *dir = xasprintf("%s/caches", node_dir);
        int *ids;
        size_t n = numbered_dirs(dir, &ids);
        int rc = 0;
        for (size_t i = 0; i < n && !rc; i++) {
                char *path = xasprintf("%s/%d/properties", dir, ids[i]);
                struct props p = {0};
                rc = props_load(&p, path, err);
                if (!rc) {
                        long long level = prop(&p, "level", 0), size = prop(&p, "size", 0);
                        long long type = prop(&p, "type", KFD_CACHE_DATA);
                        if (level == 1 && (type & KFD_CACHE_DATA) && !(type & KFD_CACHE_INST) &&
                            size > g->l1_kb)
                                g->l1_kb = (int)size;
                        if (level == 2 && size > g->l2_kb)
                                g->l2_kb = (int)size;
                }
                props_free(&p);
                free(path);
        }
        free(ids);
        free(dir);
        return rc;
}

/* KFD heap types 1 and 2 are the GPU's own memory (public and private frame buffer). */
static int read_mem_banks(const char *node_dir, struct amd_gpu *g, struct err *err)
{
        char *dir = xasprintf("%s/mem_banks", node_dir);
        int *ids;
        size_t n = numbered_dirs(dir, &ids);
        int rc = 0, found = 0;
        for (size_t i = 0; i < n && !rc && !found; i++) {
                char *path = xasprintf("%s/%d/properties", dir, ids[i]);
                struct props p = {0};
                rc = props_load(&p, path, err);
                long long heap = prop(&p, "heap_type", 1);
                if (!rc && (heap == 1 || heap == 2 || n == 1)) {
                        found = 1;
                        g->vram_bytes = (unsigned long long)prop(&p, "size_in_bytes", 0);
                        g->mem_bus_width = (int)prop(&p, "width", 0);
                        g->max_mclk = (int)prop(&p, "mem_clk_max", 0);
                }
                props_free(&p);
                free(path);
        }
        free(ids);
        free(dir);
        return rc;
}

static void drm_query(struct amd_gpu *g)
{
#ifdef HAVE_AMDGPU_DRM
        /* A fake sysfs tree describes no real device: never open one for it. */
        if (g->drm_render_minor < 0 || detect_root()[0])
                return;
        char path[64];
        snprintf(path, sizeof path, "/dev/dri/renderD%d", g->drm_render_minor);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return;
        struct drm_amdgpu_info_device dev;
        struct drm_amdgpu_info req;
        memset(&dev, 0, sizeof dev);
        memset(&req, 0, sizeof req);
        req.return_pointer = (unsigned long long)(uintptr_t)&dev;
        req.return_size = sizeof dev;
        req.query = AMDGPU_INFO_DEV_INFO;
        if (ioctl(fd, DRM_IOCTL_AMDGPU_INFO, &req) == 0) {
                /* clocks are in kHz */
                if (dev.max_engine_clock)
                        g->max_sclk = (int)(dev.max_engine_clock / 1000);
                if (dev.max_memory_clock)
                        g->max_mclk = (int)(dev.max_memory_clock / 1000);
                if (dev.cu_active_number)
                        g->cu_per_gpu = (int)dev.cu_active_number;
                if (dev.num_shader_engines && g->num_xcd <= 1)
                        g->se_per_gpu = (int)dev.num_shader_engines;
                if (dev.vram_bit_width)
                        g->mem_bus_width = (int)dev.vram_bit_width;
                if (dev.num_tcc_blocks && g->num_xcd <= 1)
                        g->total_l2_chan = (int)dev.num_tcc_blocks;
        }
        close(fd);
#else
        (void)g;
#endif
}

static void partition(const struct amd_gpu *g, const char *file, char *buf, size_t len)
{
        snprintf(buf, len, "NA");
        if (g->drm_render_minor < 0)
                return;
        char *path = xasprintf("%s/sys/class/drm/renderD%d/device/%s", detect_root(),
                               g->drm_render_minor, file);
        if (read_line(path, buf, len) || !buf[0])
                snprintf(buf, len, "NA");
        free(path);
}

/* Values from the model table and the rules rocprof-compute uses for derived fields. */
static void complete(struct amd_gpu *g, const struct amd_model *m)
{
        if (m) {
                snprintf(g->model, sizeof g->model, "%s", m->model);
                if (!g->total_l2_chan)
                        g->total_l2_chan = m->l2_per_xcd * (g->num_xcd ? g->num_xcd : 1);
                g->lds_banks_per_cu = m->lds_banks;
                g->pipes_per_gpu = m->pipes;
                if (!g->workgroup_max_size)
                        g->workgroup_max_size = m->wg_max;
                if (!g->l1_kb)
                        g->l1_kb = m->def_l1;
                if (!g->l2_kb)
                        g->l2_kb = m->def_l2;
                g->hbm_channels = m->hbm_channels ? m->hbm_channels : g->total_l2_chan;
                /* memory partitions (NPSn) split the HBM channels */
                int nps = 0;
                if (sscanf(g->memory_partition, "NPS%d", &nps) == 1 && nps > 1 && m->hbm_channels)
                        g->hbm_channels /= nps;
        }
        if (g->cu_per_gpu && g->se_per_gpu) {
                /* one SQC per two CUs of a shader engine, rounded up */
                int cu_per_se = (g->cu_per_gpu + g->se_per_gpu - 1) / g->se_per_gpu;
                g->sqc_per_gpu = ((cu_per_se + 1) / 2) * g->se_per_gpu;
        }
        /* 32 bytes per channel per memory clock, as rocprof-compute reports hbm_bw */
        g->hbm_bw = (double)g->max_mclk * 32.0 * g->hbm_channels / 1000.0;
}

int detect_amd_node(const char *node_dir, int node, struct amd_gpu *g, struct err *err)
{
        char *path = xasprintf("%s/properties", node_dir);
        struct props p = {0};
        int rc = props_load(&p, path, err);
        free(path);
        if (rc)
                goto out;
        memset(g, 0, sizeof *g);
        g->node = node;
        long long simds = prop(&p, "simd_count", 0);
        g->gfx_version = (unsigned)prop(&p, "gfx_target_version", 0);
        if (simds <= 0 || !g->gfx_version) {
                rc = 0; /* a CPU node */
                goto out;
        }
        detect_gfx_name(g->gfx_version, g->gfx, sizeof g->gfx);
        g->vendor_id = (unsigned)prop(&p, "vendor_id", 0);
        g->device_id = (unsigned)prop(&p, "device_id", 0);
        g->simd_per_cu = (int)prop(&p, "simd_per_cu", 0);
        if (g->simd_per_cu > 0)
                g->cu_per_gpu = (int)(simds / g->simd_per_cu);
        long long arrays = prop(&p, "array_count", 0);
        long long per_engine = prop(&p, "simd_arrays_per_engine", 1);
        g->se_per_gpu = (int)(per_engine > 0 ? arrays / per_engine : arrays);
        g->wave_size = (int)prop(&p, "wave_front_size", 64);
        g->max_waves_per_cu = (int)(prop(&p, "max_waves_per_simd", 0) * g->simd_per_cu);
        g->lds_kb = (int)prop(&p, "lds_size_in_kb", 0);
        g->max_sclk = (int)prop(&p, "max_engine_clk_fcompute", 0);
        g->num_xcd = (int)prop(&p, "num_xcc", 1);
        if (g->num_xcd < 1)
                g->num_xcd = 1;
        g->drm_render_minor = (int)prop(&p, "drm_render_minor", -1);
        unsigned long long uid = (unsigned long long)prop(&p, "unique_id", 0);
        if (uid)
                snprintf(g->uuid, sizeof g->uuid, "GPU-%016llx", uid);
        long long loc = prop(&p, "location_id", -1), dom = prop(&p, "domain", 0);
        if (loc >= 0 && dom >= 0)
                snprintf(g->pci_bus, sizeof g->pci_bus, "%04x:%02x:%02x.%x",
                         (unsigned)(dom & 0xffff), (unsigned)((loc >> 8) & 0xff),
                         (unsigned)((loc >> 3) & 0x1f), (unsigned)(loc & 7));
        if ((rc = read_caches(node_dir, g, err)) || (rc = read_mem_banks(node_dir, g, err)))
                goto out;
        partition(g, "current_compute_partition", g->compute_partition,
                  sizeof g->compute_partition);
        partition(g, "current_memory_partition", g->memory_partition, sizeof g->memory_partition);
        if (g->drm_render_minor >= 0) {
                char *vp = xasprintf("%s/sys/class/drm/renderD%d/device/vbios_version",
                                     detect_root(), g->drm_render_minor);
                read_line(vp, g->vbios, sizeof g->vbios);
                free(vp);
        }
        drm_query(g);
        struct amd_model m;
        complete(g, model_find(g->gfx, g->device_id, &m) ? NULL : &m);
        rc = 1;
out:
        props_free(&p);
        return rc;
}

int detect_amd_gpus(struct amd_gpu **gpus, size_t *n, struct err *err)
{
        *gpus = NULL;
        *n = 0;
        char *dir = xasprintf("%s/sys/class/kfd/kfd/topology/nodes", detect_root());
        int *ids;
        size_t nids = numbered_dirs(dir, &ids), cap = 0;
        int rc = 0;
        for (size_t i = 0; i < nids; i++) {
                char *nd = xasprintf("%s/%d", dir, ids[i]);
                struct amd_gpu g;
                int r = detect_amd_node(nd, ids[i], &g, err);
                free(nd);
                if (r < 0) {
                        rc = r;
                        free(*gpus);
                        *gpus = NULL;
                        *n = 0;
                        break;
                }
                if (r == 1) {
                        g.index = (int)*n;
                        xgrow(gpus, &cap, *n + 1, sizeof **gpus);
                        (*gpus)[(*n)++] = g;
                }
        }
        free(ids);
        free(dir);
        return rc;
}

/* the targets whose families list a model, comma-separated, for messages */
static char *known_targets(void)
{
        struct strbuf sb = {0};
        sb_add(&sb, "");
        char *mdir = data_path("metrics"), **t = NULL;
        size_t n = 0;
        struct err err = {0};
        if (mdir && arch_list(mdir, &t, &n, &err) == 0) {
                for (size_t i = 0; i < n; i++) {
                        struct amd_model m;
                        if (!model_find(t[i], 0, &m))
                                sb_addf(&sb, "%s%s", sb.len ? ", " : "", t[i]);
                        free(t[i]);
                }
                free(t);
        }
        free(mdir);
        return sb_detach(&sb);
}

int detect_amd_defaults(const char *gfx, struct amd_gpu *g, struct err *err)
{
        struct amd_model m;
        if (model_find(gfx, 0, &m)) {
                char *known = known_targets();
                int rc = err_set(err, ERR_INPUT,
                                 "unknown AMD target '%s' (known: %s; the models of "
                                 "metrics/ files)",
                                 gfx, *known ? known : "none");
                free(known);
                return rc;
        }
        memset(g, 0, sizeof *g);
        snprintf(g->gfx, sizeof g->gfx, "%s", gfx);
        g->drm_render_minor = -1;
        g->cu_per_gpu = m.def_cu;
        g->se_per_gpu = m.def_se;
        g->simd_per_cu = m.def_simd;
        g->wave_size = m.def_wave;
        g->num_xcd = m.def_xcd;
        g->max_sclk = m.def_sclk;
        g->max_mclk = m.def_mclk;
        snprintf(g->compute_partition, sizeof g->compute_partition, "NA");
        snprintf(g->memory_partition, sizeof g->memory_partition, "NA");
        complete(g, &m);
        return 0;
}

/* ---- sysinfo.csv ---- */

void detect_amd_sysinfo(const struct amd_gpu *g, struct table *si)
{
        if (si->nrows == 0)
                table_add_row(si);
        static const char *const workload_cols[] = {"workload_name", "command", "ip_blocks",
                                                    "timestamp", "version"};
        for (size_t i = 0; i < 5; i++)
                if (table_col(si, workload_cols[i]) < 0)
                        sysinfo_set_str(si, workload_cols[i], "");

        char buf[256];
        host_sysinfo(si);
        host_file_value("/sys/module/amdgpu/version", NULL, buf, sizeof buf);
        sysinfo_set_str(si, "amd_gpu_kernel_version", buf);
        host_file_value("/proc/meminfo", "MemTotal", buf, sizeof buf);
        buf[strcspn(buf, " \t")] = 0; /* "527650760 kB" */
        sysinfo_set_str(si, "cpu_memory", buf);
        if (g->vram_bytes)
                sysinfo_set_num(si, "gpu_memory", (double)(g->vram_bytes / 1024));
        else
                sysinfo_set_str(si, "gpu_memory", "");
        host_file_value("/opt/rocm/.info/version", NULL, buf, sizeof buf);
        sysinfo_set_str(si, "rocm_version", buf);
        sysinfo_set_str(si, "vbios", g->vbios);
        sysinfo_set_str(si, "compute_partition",
                        g->compute_partition[0] ? g->compute_partition : "NA");
        sysinfo_set_str(si, "memory_partition",
                        g->memory_partition[0] ? g->memory_partition : "NA");
        sysinfo_set_str(si, "gpu_model", g->model);
        sysinfo_set_str(si, "gpu_arch", g->gfx);
        sysinfo_set_num(si, "gpu_l1", g->l1_kb);
        sysinfo_set_num(si, "gpu_l2", g->l2_kb);
        sysinfo_set_num(si, "cu_per_gpu", g->cu_per_gpu);
        sysinfo_set_num(si, "simd_per_cu", g->simd_per_cu);
        sysinfo_set_num(si, "se_per_gpu", g->se_per_gpu);
        sysinfo_set_num(si, "wave_size", g->wave_size);
        sysinfo_set_num(si, "workgroup_max_size", g->workgroup_max_size);
        sysinfo_set_num(si, "max_waves_per_cu", g->max_waves_per_cu);
        sysinfo_set_num(si, "max_sclk", g->max_sclk);
        sysinfo_set_num(si, "max_mclk", g->max_mclk);
        /* rocprof-compute reports the maximum clocks as the current ones too */
        sysinfo_set_num(si, "cur_sclk", g->max_sclk);
        sysinfo_set_num(si, "cur_mclk", g->max_mclk);
        sysinfo_set_num(si, "total_l2_chan", g->total_l2_chan);
        sysinfo_set_num(si, "lds_banks_per_cu", g->lds_banks_per_cu);
        sysinfo_set_num(si, "sqc_per_gpu", g->sqc_per_gpu);
        sysinfo_set_num(si, "pipes_per_gpu", g->pipes_per_gpu);
        snprintf(buf, sizeof buf, "%.10g", g->hbm_bw);
        sysinfo_set_str(si, "hbm_bw", buf);
        sysinfo_set_num(si, "num_xcd", g->num_xcd ? g->num_xcd : 1);
        /* rocprof-compute 3.3's HBM bandwidth is max_mclk / 1000 * 32 * num_hbm_channels */
        sysinfo_set_num(si, "num_hbm_channels", g->hbm_channels);
        /* which GPU of the node: recorded when the topology says (not for --arch plans) */
        if (g->uuid[0])
                sysinfo_set_str(si, "gpu_uuid", g->uuid);
        if (g->pci_bus[0])
                sysinfo_set_str(si, "gpu_pci_bus", g->pci_bus);
}
