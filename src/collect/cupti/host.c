/* The Profiler Host API side of the collector: config images for a metric set, and the
 * exported pass count that prism's planner asks through dlopen (no GPU needed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"

void pc_format_result(char *buf, size_t len, CUptiResult r, const char *what)
{
        const char *s = NULL;
        if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
                s = "unknown CUPTI error";
        if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
                snprintf(buf, len,
                         "%s: %s: this user may not read GPU performance counters (run as root, "
                         "or load the nvidia module with NVreg_RestrictProfilingToAdminUsers=0)",
                         what, s);
        else if (r == CUPTI_ERROR_HARDWARE_BUSY)
                snprintf(buf, len,
                         "%s: %s: the GPU's counters are in use by another process (another "
                         "profiler, or another rank on this GPU not run through one prism "
                         "profile)",
                         what, s);
        else
                snprintf(buf, len, "%s: %s", what, s);
}

void pc_host_free(CUpti_Profiler_Host_Object *host)
{
        if (!host)
                return;
        CUpti_Profiler_Host_Deinitialize_Params p =
            PC_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
        p.pHostObject = host;
        cuptiProfilerHostDeinitialize(&p);
}

static int host_init(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **host,
                     char *errbuf, size_t errlen)
{
        CUpti_Profiler_Host_Initialize_Params p = PC_PARAMS(CUpti_Profiler_Host_Initialize_Params);
        p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        p.pChipName = chip;
        p.pCounterAvailabilityImage = avail;
        CUptiResult r = cuptiProfilerHostInitialize(&p);
        if (r != CUPTI_SUCCESS) {
                char what[128];
                snprintf(what, sizeof what, "cannot open the profiler host for chip '%s'", chip);
                pc_format_result(errbuf, errlen, r, what);
                return -1;
        }
        *host = p.pHostObject;
        return 0;
}

static CUptiResult add_metrics(CUpti_Profiler_Host_Object *host, const char *const *metrics,
                               size_t n)
{
        CUpti_Profiler_Host_ConfigAddMetrics_Params p =
            PC_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
        p.pHostObject = host;
        p.ppMetricNames = (const char **)metrics;
        p.numMetrics = n;
        return cuptiProfilerHostConfigAddMetrics(&p);
}

/* ConfigAddMetrics only says INVALID_PARAMETER for a whole list; name the culprit by
 * adding each metric alone to a throwaway host object. */
static void name_bad_metric(const char *chip, const uint8_t *avail, const char *const *metrics,
                            size_t n, CUptiResult r, char *errbuf, size_t errlen)
{
        for (size_t i = 0; i < n; i++) {
                CUpti_Profiler_Host_Object *h = NULL;
                char tmp[8];
                if (host_init(chip, avail, &h, tmp, sizeof tmp) < 0)
                        break;
                CUptiResult ri = add_metrics(h, &metrics[i], 1);
                pc_host_free(h);
                if (ri != CUPTI_SUCCESS) {
                        snprintf(errbuf, errlen, "unknown metric '%s' for chip '%s'", metrics[i],
                                 chip);
                        return;
                }
        }
        pc_format_result(errbuf, errlen, r, "cannot add the metrics to the profiler config");
}

int pc_host_config(const char *chip, const uint8_t *avail, const char *const *metrics, size_t n,
                   CUpti_Profiler_Host_Object **hostp, uint8_t **config, size_t *config_size,
                   char *errbuf, size_t errlen)
{
        CUpti_Profiler_Host_Object *host = NULL;
        uint8_t *image = NULL;
        CUptiResult r;

        *hostp = NULL;
        *config = NULL;
        *config_size = 0;
        if (host_init(chip, avail, &host, errbuf, errlen) < 0)
                return -1;
        r = add_metrics(host, metrics, n);
        if (r != CUPTI_SUCCESS) {
                name_bad_metric(chip, avail, metrics, n, r, errbuf, errlen);
                goto fail;
        }
        CUpti_Profiler_Host_GetConfigImageSize_Params sp =
            PC_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
        sp.pHostObject = host;
        r = cuptiProfilerHostGetConfigImageSize(&sp);
        if (r != CUPTI_SUCCESS) {
                pc_format_result(errbuf, errlen, r, "cannot size the config image");
                goto fail;
        }
        image = malloc(sp.configImageSize ? sp.configImageSize : 1);
        if (!image) {
                snprintf(errbuf, errlen, "out of memory for a config image");
                goto fail;
        }
        CUpti_Profiler_Host_GetConfigImage_Params ip =
            PC_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
        ip.pHostObject = host;
        ip.configImageSize = sp.configImageSize;
        ip.pConfigImage = image;
        r = cuptiProfilerHostGetConfigImage(&ip);
        if (r != CUPTI_SUCCESS) {
                pc_format_result(errbuf, errlen, r, "cannot build the config image");
                goto fail;
        }
        *hostp = host;
        *config = image;
        *config_size = sp.configImageSize;
        return 0;
fail:
        free(image);
        pc_host_free(host);
        return -1;
}

/* Exported for prism's planner: hardware passes the metric set needs on chip ("GH100").
 * Returns the count (>=1), or -1 with one line in errbuf. Needs libcupti, not a GPU. */
PC_EXPORT int prism_cupti_num_passes(const char *chip, const char *const *metrics, size_t n,
                                     char *errbuf, size_t errlen)
{
        CUpti_Profiler_Host_Object *host = NULL;
        uint8_t *image = NULL;
        size_t size = 0;
        char dummy[8];
        int ret = -1;

        if (!errbuf || errlen == 0) {
                errbuf = dummy;
                errlen = sizeof dummy;
        }
        errbuf[0] = 0;
        if (!chip || !*chip) {
                snprintf(errbuf, errlen, "no chip name given");
                return -1;
        }
        if (n == 0)
                return 0;
        for (size_t i = 0; i < n; i++) {
                if (!metrics[i] || !*metrics[i]) {
                        snprintf(errbuf, errlen, "empty metric name at position %zu", i + 1);
                        return -1;
                }
        }
        if (pc_host_config(chip, NULL, metrics, n, &host, &image, &size, errbuf, errlen) < 0)
                return -1;
        CUpti_Profiler_Host_GetNumOfPasses_Params p =
            PC_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
        p.configImageSize = size;
        p.pConfigImage = image;
        CUptiResult r = cuptiProfilerHostGetNumOfPasses(&p);
        if (r != CUPTI_SUCCESS) {
                pc_format_result(errbuf, errlen, r, "cannot count the passes");
                goto out;
        }
        ret = (int)p.numOfPasses;
out:
        free(image);
        pc_host_free(host);
        return ret;
}
