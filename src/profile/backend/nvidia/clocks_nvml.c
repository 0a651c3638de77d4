/* --clock-control on NVIDIA: lock the GPU's SM clock at its base (TDP) clock, what Nsight
 * Compute's "--clock-control base" does (measured on the H100: ncu runs kernels at 1.60 GHz
 * SM, 2.62 GHz DRAM, against 1.98 GHz SM unlocked), through NVML loaded with dlopen, and
 * unlock it afterwards; the memory clock stays (ncu leaves it too). The driver allows it to root (or with
 * the permission nvidia-smi grants); when it refuses, the profile runs at the GPU's own
 * clocks and says so. */
#include "clocks_nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* nvml.h values (a stable ABI; prism builds without NVML headers) */
enum { NVML_OK = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_ID_APP_CLOCK_DEFAULT = 2 };
/* nvmlClockLimitId_t: "the base (TDP) clock" for nvmlDeviceSetGpuLockedClocks */
#define NVML_CLOCK_LIMIT_ID_TDP 0xffffff01u

static struct {
        int loaded;
        void *dev;
        int locked_sm;
        int (*init)(void);
        int (*by_bus)(const char *, void **);
        int (*by_index)(unsigned, void **);
        int (*get_clock)(void *, int, int, unsigned *);
        int (*clock_info)(void *, int, unsigned *);
        int (*lock_gpu)(void *, unsigned, unsigned);
        int (*reset_gpu)(void *);
        const char *(*str)(int);
} nv;

static int nvml_load(char *why, size_t len)
{
        if (nv.loaded)
                return nv.loaded > 0 ? 0 : -1;
        nv.loaded = -1;
        void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                snprintf(why, len, "cannot load libnvidia-ml.so.1");
                return -1;
        }
        struct {
                void *slot;
                const char *name;
        } syms[] = {
            {&nv.init, "nvmlInit_v2"},
            {&nv.by_bus, "nvmlDeviceGetHandleByPciBusId_v2"},
            {&nv.by_index, "nvmlDeviceGetHandleByIndex_v2"},
            {&nv.get_clock, "nvmlDeviceGetClock"},
            {&nv.clock_info, "nvmlDeviceGetClockInfo"},
            {&nv.lock_gpu, "nvmlDeviceSetGpuLockedClocks"},
            {&nv.reset_gpu, "nvmlDeviceResetGpuLockedClocks"},
            {&nv.str, "nvmlErrorString"},
        };
        for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
                void *p = dlsym(h, syms[i].name);
                if (!p) {
                        snprintf(why, len, "libnvidia-ml.so.1 lacks %s", syms[i].name);
                        return -1;
                }
                memcpy(syms[i].slot, &p, sizeof p);
        }
        if (nv.init() != NVML_OK) {
                snprintf(why, len, "cannot initialise NVML");
                return -1;
        }
        nv.loaded = 1;
        return 0;
}

int clocks_nvml_set(int mode, const char *bus_id, int index, struct clock_state *cs)
{
        memset(cs, 0, sizeof *cs);
        cs->mode = mode;
        char why[160] = "";
        if (nvml_load(why, sizeof why) < 0) {
                snprintf(cs->desc, sizeof cs->desc, "%s", why);
                return mode == CLOCK_BASE ? -1 : 0;
        }
        int r = bus_id && *bus_id ? nv.by_bus(bus_id, &nv.dev) : -1;
        if (r != NVML_OK && index >= 0)
                r = nv.by_index((unsigned)index, &nv.dev);
        if (r != NVML_OK) {
                snprintf(cs->desc, sizeof cs->desc, "NVML cannot find the GPU (%s)",
                         bus_id ? bus_id : "?");
                return mode == CLOCK_BASE ? -1 : 0;
        }
        unsigned sm = 0, mem = 0;
        nv.get_clock(nv.dev, NVML_CLOCK_SM, NVML_CLOCK_ID_APP_CLOCK_DEFAULT, &sm);
        nv.get_clock(nv.dev, NVML_CLOCK_MEM, NVML_CLOCK_ID_APP_CLOCK_DEFAULT, &mem);
        cs->base_sm = sm;
        cs->base_mem = mem;
        if (mode != CLOCK_BASE) {
                snprintf(cs->desc, sizeof cs->desc,
                         "none (the GPU's own clocks; up to %u MHz SM, %u MHz memory)", sm, mem);
                return 0;
        }
        r = nv.lock_gpu(nv.dev, NVML_CLOCK_LIMIT_ID_TDP, NVML_CLOCK_LIMIT_ID_TDP);
        if (r != NVML_OK) {
                snprintf(cs->desc, sizeof cs->desc,
                         "the driver refused to lock the SM clock at base (%s)", nv.str(r));
                return -1;
        }
        nv.locked_sm = 1;
        cs->locked = 1;
        snprintf(cs->desc, sizeof cs->desc,
                 "base (SM clock locked at the base (TDP) clock, memory at its own %u MHz; each "
                 "dispatch's smsp__cycles_elapsed.avg.per_second says the SM clock)",
                 mem);
        return 0;
}

void clocks_nvml_reset(void)
{
        if (nv.locked_sm)
                nv.reset_gpu(nv.dev);
        nv.locked_sm = 0;
}
