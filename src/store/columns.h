/* The names of a workload's per-dispatch columns (pmc_perf.csv, the accumulate tables,
 * timestamps.csv), as rocprof-compute writes them, defined once for every module. */
#ifndef PRISM_COLUMNS_H
#define PRISM_COLUMNS_H

#define COL_DISPATCH_ID "Dispatch_ID"
#define COL_KERNEL_NAME "Kernel_Name"
#define COL_GPU_ID "GPU_ID"
#define COL_GRID_SIZE "Grid_Size"
#define COL_WORKGROUP_SIZE "Workgroup_Size"
#define COL_LDS_PER_WORKGROUP "LDS_Per_Workgroup"
#define COL_SCRATCH_PER_WORKITEM "Scratch_Per_Workitem"
#define COL_ARCH_VGPR "Arch_VGPR"
#define COL_ACCUM_VGPR "Accum_VGPR"
#define COL_SGPR "SGPR"
#define COL_WAVE_SIZE "wave_size"
#define COL_START "Start_Timestamp"
#define COL_END "End_Timestamp"
#define COL_CORRELATION_ID "Correlation_ID"
/* rocpd's long layout: a row per dispatch and counter */
#define COL_COUNTER_NAME "Counter_Name"
#define COL_COUNTER_VALUE "Counter_Value"
#define COL_KERNEL_ID "Kernel_ID"
/* added by prism to a pass table: 1 for a dispatch replayed in a run of its own */
#define COL_REPLAYED "Replayed"
/* added by prism to the dispatches of a multi-rank workload */
#define COL_RANK "Rank"
#define COL_NODE "Node"

/* The columns before the counters in pmc_perf.csv, in order: Dispatch_ID ... wave_size
 * (NULL-terminated); the timestamps follow the counters. */
extern const char *const dispatch_info_cols[];

/* The launch configuration of a dispatch: Grid_Size ... SGPR (DISPATCH_LAUNCH_NCOLS names). */
#define DISPATCH_LAUNCH_NCOLS 7
extern const char *const *const dispatch_launch_cols;

/* 1 for Start_Timestamp and End_Timestamp. */
int col_is_timestamp(const char *name);
/* 1 for the columns of dispatch_info_cols. */
int col_is_dispatch_info(const char *name);
/* 1 for a per-dispatch column that is no counter: dispatch_info_cols and the timestamps. */
int col_is_dispatch(const char *name);

#endif
