/* The table of collection backends: AMD (rocprofv3) and NVIDIA (its profiler library). */
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The backends, in the order they are tried when --backend is not given. */
static const struct backend *const backends[] = {&backend_rocprof, &backend_cupti};
#define NBACKENDS (sizeof backends / sizeof backends[0])

const struct backend *backend_find(const char *name)
{
        for (size_t i = 0; i < NBACKENDS; i++)
                if (!strcmp(backends[i]->name, name))
                        return backends[i];
        return NULL;
}

const char *backend_replay_name(int mode)
{
        return mode == REPLAY_KERNEL ? "kernel" : mode == REPLAY_APPLICATION ? "application"
                                                                             : "auto";
}

int backend_replay_mode(const struct backend *b, int want, struct err *err)
{
        unsigned modes = b->replay_modes ? b->replay_modes : REPLAY_APPLICATION;
        if (want == REPLAY_AUTO)
                return modes & REPLAY_KERNEL ? REPLAY_KERNEL : REPLAY_APPLICATION;
        if (modes & (unsigned)want)
                return want;
        err_set(err, ERR_USAGE, "--replay %s: the %s backend supports only %s replay",
                backend_replay_name(want), b->name,
                modes & REPLAY_KERNEL ? "kernel" : "application");
        return -1;
}

const char *backend_cache_name(int mode)
{
        return mode == CACHE_ALL ? "all" : mode == CACHE_NONE ? "none" : "auto";
}

int backend_cache_mode(const struct backend *b, int want, struct err *err)
{
        if (want == CACHE_AUTO)
                return CACHE_NONE;
        if (want == CACHE_ALL && !b->can_flush_caches) {
                err_set(err, ERR_USAGE,
                        "--cache-control all: the %s backend cannot flush the GPU caches "
                        "between kernels (use --cache-control none)",
                        b->name);
                return -1;
        }
        return want;
}

void backend_offline_sysinfo(const char *target, struct table *si)
{
        for (size_t i = 0; i < NBACKENDS; i++)
                if (backends[i]->offline_sysinfo && backends[i]->offline_sysinfo(target, si))
                        return;
        if (!si->nrows)
                table_add_row(si);
        table_set_str(si, table_add_col(si, "gpu_arch"), 0, target);
        table_set_str(si, table_add_col(si, "gpu_model"), 0, target);
}

int backend_count_gpus(void)
{
        for (size_t i = 0; i < NBACKENDS; i++) {
                int n = backends[i]->count_gpus ? backends[i]->count_gpus() : 0;
                if (n > 0)
                        return n;
        }
        return 0;
}

const char *const *backend_device_vars(void)
{
        static const char *vars[16];
        static size_t n;
        if (n)
                return vars;
        for (size_t i = 0; i < NBACKENDS; i++)
                for (const char *const *v = backends[i]->device_vars; v && *v; v++) {
                        size_t k = 0;
                        while (k < n && strcmp(vars[k], *v))
                                k++;
                        if (k == n && n + 1 < sizeof vars / sizeof vars[0])
                                vars[n++] = *v;
                }
        return vars;
}

void backend_bind_device(int index)
{
        char idx[32];
        snprintf(idx, sizeof idx, "%d", index);
        for (size_t i = 0; i < NBACKENDS; i++)
                if (backends[i]->device_vars && backends[i]->device_vars[0])
                        setenv(backends[i]->device_vars[0], idx, 1);
}

const struct backend *backend_pick(const char *name, struct err *err)
{
        if (name) {
                const struct backend *b = backend_find(name);
                if (!b) {
                        struct strbuf known = {0};
                        for (size_t i = 0; i < NBACKENDS; i++)
                                sb_addf(&known, "%s%s", i ? ", " : "", backends[i]->name);
                        err_set(err, ERR_USAGE, "unknown backend '%s' (known: %s)", name,
                                known.buf);
                        sb_free(&known);
                } else if (b->available && !b->available()) {
                        err_set(err, ERR_SYS,
                                "backend '%s' cannot run here (no GPU, or its profiler is "
                                "missing)",
                                name);
                } else {
                        return b;
                }
                return NULL;
        }
        for (size_t i = 0; i < NBACKENDS; i++)
                if (backends[i]->available && backends[i]->available())
                        return backends[i];
        err_set(err, ERR_SYS,
                "no GPU profiler available: AMD needs rocprofv3 on PATH and a GPU in the KFD "
                "topology, NVIDIA needs CUDA with its profiler library (use --dry-run --arch GFX to plan "
                "without a GPU)");
        return NULL;
}

const struct backend *backend_for_passes(const struct backend *be, const char *name,
                                         struct err *err)
{
        if (be && be->num_passes)
                return be;
        if (!be && name) {
                const struct backend *b = backend_find(name);
                if (b && b->num_passes)
                        return b;
        }
        for (size_t i = 0; !be && !name && i < NBACKENDS; i++)
                if (backends[i]->num_passes)
                        return backends[i];
        err_set(err, ERR_INPUT, "this architecture is planned by its profiler's pass count, "
                                "which the %s backend cannot give",
                be ? be->name : name ? name : "chosen");
        return NULL;
}
