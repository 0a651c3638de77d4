/* The subcommands: each parses its own options and returns the process exit status
 * (0 ok, 1 comparison/check found differences, 2 bad input or usage). */
#ifndef PRISM_CMDS_H
#define PRISM_CMDS_H

int cmd_analyze(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_roofline(int argc, char **argv);
int cmd_database(int argc, char **argv);
int cmd_check_data(int argc, char **argv);

/* The options of each command (src/cmd_options.c, util/opt.h): their ids. */
#include "util/opt.h"
enum {
        A_PATH,
        A_BLOCK,
        A_KERNEL,
        A_DISPATCH,
        A_GPU_ID,
        A_RANK,
        A_NORM,
        A_COMPAT,
        A_TIME,
        A_DECIMAL,
        A_ALL_ROWS,
        A_COLS,
        A_INCLUDE_COLS,
        A_MAX_STAT,
        A_KVERBOSE,
        A_MEM_LEVEL,
        A_SORT,
        A_DEVICE,
        A_PLOT_DIR,
        A_LIST_STATS,
        A_LIST_METRICS,
        A_SAVE_DFS,
        A_NO_FINDINGS,
        A_PC_SORT,
        A_WIDTH,
        A_OUTPUT,
        A_TUI,
        A_HELP
};
enum {
        P_NAME,
        P_PATH,
        P_KERNEL,
        P_DISPATCH,
        P_BLOCK,
        P_JOIN,
        P_DRY_RUN,
        P_ARCH,
        P_BACKEND,
        P_NO_ROOF,
        P_ROOF_ONLY,
        P_FORCE,
        P_RESUME,
        P_PASS_TIMEOUT,
        P_REPLAY,
        P_RANKS,
        P_CLOCK,
        P_CACHE,
        P_NO_PCS,
        P_PC_METHOD,
        P_PC_INTERVAL,
        P_QUIET,
        P_HELP
};
enum { R_DEVICE, R_OUTPUT, R_QUICK, R_HELP };
enum { D_IMPORT, D_DB, D_FORCE, D_INFO, D_HELP };
enum { C_HELP };

/* Print "prism: message" for a failed command and return 2. */
int cmd_fail(const char *msg);

#endif
