/* The collector's state (pc, pc_cu), its messages (pc_error, pc_warn, pc_debug, pc_check)
 * and the driver entry points it resolves (pc_cuda_load): what every part of the collector
 * uses, apart from the entry (inject.c), so that no part calls back into it. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>

#include "collector.h"

#define MAX_ERR_LINES 20

struct pc_state pc;
struct pc_cuda pc_cu;
char *pc_err_path;
static int err_lines;

static void vreport(const char *kind, const char *fmt, va_list ap)
{
        char line[1024];
        vsnprintf(line, sizeof line, fmt, ap);
        fprintf(stderr, "prism-cupti: %s%s\n", kind, line);
        if (kind[0] || !pc_err_path || err_lines >= MAX_ERR_LINES)
                return;
        err_lines++;
        FILE *f = fopen(pc_err_path, "a");
        if (f) {
                fprintf(f, "prism-cupti: %s\n", line);
                fclose(f);
        }
}

void pc_error(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vreport("", fmt, ap);
        va_end(ap);
}

void pc_warn(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vreport("warning: ", fmt, ap);
        va_end(ap);
}

void pc_debug(const char *fmt, ...)
{
        if (!pc.debug)
                return;
        va_list ap;
        va_start(ap, fmt);
        vreport("debug: ", fmt, ap);
        va_end(ap);
}

int pc_check(CUptiResult r, const char *what)
{
        if (r == CUPTI_SUCCESS)
                return 0;
        char buf[512];
        pc_format_result(buf, sizeof buf, r, what);
        pc_error("%s", buf);
        return -1;
}

/* cuda.h maps some names to versioned symbols (cuCtxPushCurrent -> cuCtxPushCurrent_v2):
 * stringify after macro expansion to look up what the header means. */
#define SYM_(x) #x
#define SYM(x) SYM_(x)
#define LOAD(h, field, name) (*(void **)(&pc_cu.field) = dlsym(h, SYM(name)))

int pc_cuda_load(void)
{
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (!h)
                h = dlopen("libcuda.so.1", RTLD_NOW);
        if (!h)
                return -1;
        LOAD(h, ctx_synchronize, cuCtxSynchronize);
        LOAD(h, ctx_push, cuCtxPushCurrent);
        LOAD(h, ctx_pop, cuCtxPopCurrent);
        LOAD(h, ctx_get_device, cuCtxGetDevice);
        LOAD(h, func_get_attribute, cuFuncGetAttribute);
        LOAD(h, kernel_get_attribute, cuKernelGetAttribute);
        /* by their versioned names: cuda.h maps cuCtxCreate to a later signature */
        *(void **)(&pc_cu.ctx_create) = dlsym(h, "cuCtxCreate_v2");
        *(void **)(&pc_cu.mem_alloc) = dlsym(h, "cuMemAlloc_v2");
        LOAD(h, module_load_data, cuModuleLoadData);
        LOAD(h, module_get_function, cuModuleGetFunction);
        *(void **)(&pc_cu.launch) = dlsym(h, "cuLaunchKernel");
        LOAD(h, device_attribute, cuDeviceGetAttribute);
        LOAD(h, ctx_get_limit, cuCtxGetLimit);
        LOAD(h, max_cluster_size, cuOccupancyMaxPotentialClusterSize);
        return 0;
}

/* Itanium C++ names are demangled with the target's own libstdc++ when there is one. */
char *pc_demangle(const char *s)
{
        static char *(*fn)(const char *, char *, size_t *, int *);
        static int tried;
        if (!tried) {
                tried = 1;
                *(void **)(&fn) = dlsym(RTLD_DEFAULT, "__cxa_demangle");
                if (!fn) {
                        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
                        if (h)
                                *(void **)(&fn) = dlsym(h, "__cxa_demangle");
                }
        }
        if (fn && s[0] == '_' && s[1] == 'Z') {
                int status = -1;
                char *d = fn(s, NULL, NULL, &status);
                if (d && status == 0)
                        return d;
                free(d);
        }
        return strdup(s);
}
