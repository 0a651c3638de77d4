/* The table of collection backends: AMD (rocprofv3) and NVIDIA (CUPTI). */
#include "backend.h"

#include <string.h>

static const struct backend *const backends[] = {&backend_rocprof, &backend_cupti};

const struct backend *backend_find(const char *name)
{
        for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
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
        for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
                if (backends[i]->offline_sysinfo && backends[i]->offline_sysinfo(target, si))
                        return;
        if (!si->nrows)
                table_add_row(si);
        table_set_str(si, table_add_col(si, "gpu_arch"), 0, target);
        table_set_str(si, table_add_col(si, "gpu_model"), 0, target);
}
