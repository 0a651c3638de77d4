/* Questions to a loaded architecture (arch.h): a metric by key, a default value, a
 * normalization's formula, a block's counter limit. Apart from arch.c, the loader, so that what the loader calls (roofspec.c's
 * checks) can ask them without calling back into the loader. */
#include "arch.h"

#include <math.h>
#include <string.h>

const struct metric *arch_metric(const struct arch *a, const char *key)
{
        int idx;
        if (!smap_get(&a->index, key, &idx) || idx < 0)
                return NULL;
        return &a->metrics[idx];
}

double arch_default(const struct arch *a, const char *field)
{
        double v;
        for (size_t i = 0; i < a->ndefaults; i++)
                if (!strcmp(a->defaults[i].name, field) && !parse_double(a->defaults[i].src, &v))
                        return v;
        return NAN;
}

struct expr *arch_norm(const struct arch *a, const char *name)
{
        for (size_t i = 0; i < a->nnorms; i++)
                if (!strcmp(a->norms[i].name, name))
                        return a->norms[i].expr;
        return NULL;
}

int arch_block_limit(const struct arch *a, const char *block)
{
        for (size_t i = 0; i < a->nlimits; i++)
                if (!strcmp(a->limits[i].block, block))
                        return a->limits[i].limit;
        return -1;
}
