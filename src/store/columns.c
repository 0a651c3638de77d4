/* The per-dispatch column lists of columns.h. */
#include "columns.h"

#include <string.h>

const char *const dispatch_info_cols[] = {
    COL_DISPATCH_ID,
    COL_KERNEL_NAME,
    COL_GPU_ID,
    COL_GRID_SIZE,
    COL_WORKGROUP_SIZE,
    COL_LDS_PER_WORKGROUP,
    COL_SCRATCH_PER_WORKITEM,
    COL_ARCH_VGPR,
    COL_ACCUM_VGPR,
    COL_SGPR,
    COL_WAVE_SIZE,
    NULL,
};

/* Grid_Size ... SGPR: a run of dispatch_info_cols */
const char *const *const dispatch_launch_cols = dispatch_info_cols + 3;

/* (the first bytes compared before the rest: a header asks about each of its hundreds of
 * counter columns) */
int col_is_timestamp(const char *name)
{
        return (name[0] == COL_START[0] && !strcmp(name, COL_START)) ||
               (name[0] == COL_END[0] && !strcmp(name, COL_END));
}

int col_is_dispatch_info(const char *name)
{
        for (size_t i = 0; dispatch_info_cols[i]; i++)
                if (dispatch_info_cols[i][0] == name[0] && !strcmp(dispatch_info_cols[i], name))
                        return 1;
        return 0;
}

int col_is_dispatch(const char *name)
{
        return col_is_dispatch_info(name) || col_is_timestamp(name);
}
