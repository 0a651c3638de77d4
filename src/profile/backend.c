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
