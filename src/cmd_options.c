/* Every command's options, declared once (util/opt.h): the commands parse with these
 * tables and print their --help from them; the build writes the man pages' option sections
 * and the bash and zsh completions from them (src/gen/optdoc.c; make docs). */
#include <stddef.h>
#include <string.h>

#include "cmds.h"

static const struct opt analyze_opts[] = {
    {A_PATH, "path", 'p', "DIR",
     "workload directory, prism database (FILE.db) or multi-rank\n"
     "tree NAME/<node>/rank<N>/ (twice: compare DIR2 against DIR)",
     "a workload: a directory, a prism database\n"
     ".Pq Ar FILE.db\n"
     "or a multi-rank tree\n"
     ".Pa NAME/<node>/rank<N>/ .\n"
     "Given twice, the second is compared against the first.",
     "@files"},
    {A_BLOCK, "block", 'b', "ID...", "panels, tables or metrics to show (0, 2, 16.1, 2.1.3)",
     "show only these panels\n"
     ".Pq Ar 2 ,\n"
     "tables\n"
     ".Pq Ar 16.1\n"
     "or metrics\n"
     ".Pq Ar 2.1.3 .\n"
     "Panel 0 is always shown\n"
     ".Pq Fl b Ar 0 No shows it alone ;\n"
     "a table id of panel 0\n"
     ".Pq Ar 0.3 , the findings\n"
     "shows only the panel 0 tables named.",
     "@ids"},
    {A_KERNEL, "kernel", 'k', "K...",
     "kernels by index in --list-stats, whole name, part of a\n"
     "name or regular expression (what matched is said)",
     "keep the dispatches of these kernels: by index in\n"
     ".Fl -list-stats ,\n"
     "by whole name, else (rocprof-compute 3.6+ workloads) every kernel whose short name in the\n"
     "kernel_symbols files it is, else every kernel whose name contains the text, else every\n"
     "one it matches as an extended regular expression\n"
     ".Pq Xr regex 7 .\n"
     "What a text matched is said on standard error; a text that matches nothing is an error\n"
     "that lists the kernels.",
     NULL},
    {A_DISPATCH, "dispatch", 'd', "N...", "dispatches by Dispatch_ID", "keep these dispatch ids.",
     NULL},
    {A_GPU_ID, "gpu-id", 0, "N", "dispatches of one GPU", "keep the dispatches of one GPU.", NULL},
    {A_RANK, "rank", 0, "N", "dispatches of one MPI rank (multi-rank trees)",
     "keep the dispatches of one MPI rank of a multi-rank tree.", NULL},
    {A_NORM, "normal-unit", 'n', "U",
     "per_wave, per_cycle, per_second, per_kernel (default;\n"
     "per_wave with --compat 3.0)",
     "normalize counts\n"
     ".Cm per_wave ,\n"
     ".Cm per_cycle ,\n"
     ".Cm per_second\n"
     "or\n"
     ".Cm per_kernel\n"
     "(default;\n"
     ".Cm per_wave\n"
     "with\n"
     ".Fl -compat Ar 3.0 ) .",
     "per_wave per_cycle per_second per_kernel"},
    {A_COMPAT, "compat", 0, "V",
     "panels, metrics and defaults of rocprof-compute V (3.0,\n"
     "3.3, 3.10); default 3.3, which prism reproduces exactly",
     "show what rocprof-compute\n"
     ".Ar version\n"
     "shows.\n"
     "By default prism follows rocprof-compute 3.3.0: its panels, table titles, rows and metric\n"
     "ids, and its default normalization\n"
     ".Cm per_kernel .\n"
     ".Fl -compat Ar 3.0\n"
     "reproduces rocprof-compute 3.0's output exactly (its titles and formulas,\n"
     ".Cm per_wave\n"
     "by default; the newest GPUs are unknown to it).\n"
     "The versions are listed in\n"
     ".Pa panels/versions ;\n"
     "the newer ones are overlays of the 3.0 data\n"
     ".Pq Pa metrics/3.3/ , panels/3.3/ , metrics/3.10/ , panels/3.10/ .\n"
     ".Fl -compat Ar 3.10\n"
     "applies what rocprof-compute 3.4 to 3.10 changed, as their changelog and analysis\n"
     "configs state it (ratios averaged as SUM(A) / SUM(B), Percent of Peak, CU Utilization\n"
     "for Active CUs, NOISE_CLAMP, 128-byte roofline lines where 3.7 counts them, timestamps\n"
     "of the first pass,\n"
     "dispatches numbered from 1); no reference output was there to check it against, so 3.3\n"
     "stays the default.\n"
     "Unlike rocprof-compute 3.3.0, which converts every row whose unit contains\n"
     ".Dq ns\n"
     "(such as\n"
     ".Dq Instr per kernel )\n"
     "to the\n"
     ".Fl t\n"
     "unit, prism converts only time rows (7.2 Kernel Time).",
     "3.0 3.3 3.10"},
    {A_TIME, "time-unit", 't', "U",
     "s, ms, us, ns (default) for the top-stats tables and every\n"
     "time row",
     "time unit of the top-stats tables and of every time row of every family (Kernel Time,\n"
     "7.2.0, as rocprof-compute 3.3 does; on NVIDIA GPUs too):\n"
     ".Cm s , ms , us\n"
     "or\n"
     ".Cm ns\n"
     "(default).",
     "s ms us ns"},
    {A_DECIMAL, "decimal", 0, "N", "digits shown after the point (default 2)",
     "digits after the decimal point (default 2).", NULL},
    {A_ALL_ROWS, "all-rows", 0, NULL, "also rows with no counterpart on the workload's GPU",
     "also show the rows an architecture family hides because it has no counterpart for them\n"
     "(NVIDIA: the AMD-only rows of the shared panels; their ids are kept either way).",
     NULL},
    {A_COLS, "cols", 0, "N...", "columns of metric tables to show, by index",
     "columns of the metric tables to show, by index.", NULL},
    {A_INCLUDE_COLS, "include-cols", 0, "C...",
     "more columns for metric tables: Description (what each\n"
     "metric measures)",
     "more columns for the metric tables:\n"
     ".Cm Description ,\n"
     "a line saying what each metric measures (from the metric files'\n"
     ".Sy descriptions ) ,\n"
     "in the report, the\n"
     ".Fl -save-dfs\n"
     "files and the TUI.",
     "Description"},
    {A_MAX_STAT, "max-stat-num", 0, "N", "rows of the top-stats tables (default 10)",
     "rows of the top-stats tables (default 10).", NULL},
    {A_KVERBOSE, "kernel-verbose", 0, "N", "kernel name detail, 5 = full names (default)",
     "kernel name detail from 1 (shortest) to 5 (full, default).", NULL},
    {A_MEM_LEVEL, "mem-level", 0, "L...", "roofline memory levels shown, by name (default all)",
     "the memory levels of the roofline to show, by name (such as\n"
     ".Cm HBM L2\n"
     "or\n"
     ".Cm DRAM ;\n"
     "default: all).",
     "@levels"},
    {A_SORT, "sort", 0, "kernels|dispatches",
     "roofline points per kernel (default) or per dispatch",
     "the roofline's points: one per top kernel (default) or one per dispatch.",
     "kernels dispatches"},
    {A_DEVICE, "device", 0, "N", "roofline ceilings of device N of roofline.csv (default: mean)",
     "the roofline ceilings of device\n"
     ".Ar n\n"
     "of\n"
     ".Pa roofline.csv\n"
     "(default: the mean of all its devices).",
     NULL},
    {A_PLOT_DIR, "plot-dir", 0, "DIR", "write the memory chart and the roofline as SVG into DIR",
     "write the memory chart\n"
     ".Pq Pa memory_chart.svg\n"
     "and the roofline\n"
     ".Pq Pa roofline.svg\n"
     "as SVG pictures into\n"
     ".Ar dir\n"
     "(created if needed).",
     "@dirs"},
    {A_LIST_STATS, "list-stats", 0, NULL, "list the kernels (with their index) and dispatches",
     "list the kernels with their index and the dispatches.", NULL},
    {A_LIST_METRICS, "list-metrics", 0, "[ARCH]",
     "list the panel, table and metric ids of the GPU's family,\n"
     "each with its description (--all-rows: also those it hides)",
     "list every panel, table and metric id with its name, as the architecture's family shows\n"
     "them: rows it hides (no counterpart on that GPU, such as the AMD-only rows on an NVIDIA\n"
     "GPU) are listed only with\n"
     ".Fl -all-rows .",
     "@archs"},
    {A_SAVE_DFS, "save-dfs", 0, "DIR", "write every table as CSV (full precision) into DIR",
     "write every table as a CSV file named\n"
     ".Ar id Ns _ Ns Ar Title.csv\n"
     "with values at full precision.",
     "@dirs"},
    {A_NO_FINDINGS, "no-findings", 0, NULL,
     "leave out the findings (what limits each kernel, 0.3, 0.4)",
     "leave out the findings: table 0.3 (what limits each top kernel, why, and the estimated\n"
     "speedup, from the rules in\n"
     ".Pa rules/ )\n"
     "and table 0.4 (the roofline ceiling that bounds each kernel). Where the workload has PC\n"
     "samples, the findings also name each kernel's hottest source line\n"
     ".Pq Cm pc.hot_line .",
     NULL},
    {A_PC_SORT, "pc-sampling-sorting-type", 0, "TYPE",
     "order of table 21.1, the PC samples: offset (default)\n"
     "or count",
     "the order of table 21.1, the sampled instructions:\n"
     ".Cm offset\n"
     "(by process, code object and offset; the default) or\n"
     ".Cm count\n"
     "(by samples), as rocprof-compute's option of that name.",
     "offset count"},
    {A_WIDTH, "width", 0, "N",
     "columns the tables may use (0: no limit); default: the\n"
     "terminal's width, else $COLUMNS, else 120; no limit\n"
     "with --compat (rocprof-compute's layout)",
     "columns the text tables may use;\n"
     ".Ar 0\n"
     "is no limit.\n"
     "By default: the terminal's width, else\n"
     ".Ev COLUMNS ,\n"
     "else 120 (a pipe or a file).\n"
     "With\n"
     ".Fl -compat\n"
     "the tables keep rocprof-compute's layout (no limit) unless\n"
     ".Fl -width\n"
     "is given.\n"
     "A table wider than its limit gets narrower columns, its long cells (messages, hints, kernel\n"
     "names) wrapped inside them, numbers kept whole; a table that would still not read well (the\n"
     "findings at 80 columns) shows each row as its columns' names beside their values.\n"
     ".Fl -save-dfs\n"
     "files do not depend on it.",
     NULL},
    {A_OUTPUT, "output", 'o', "FILE", "write the report to FILE", "write the report to a file.",
     "@files"},
    {A_TUI, "tui", 0, NULL, "interactive view: panel tree, filters, search (docs/TUI.md)",
     "the interactive view instead of the report: the panel tree, the tables, kernel and dispatch\n"
     "filters, search and the findings\n"
     ".Pq Pa docs/TUI.md .",
     NULL},
    {A_HELP, "help", 'h', NULL, "this text", NULL, NULL},
};

static const struct opt profile_opts[] = {
    {P_NAME, "name", 'n', "NAME", "workload name",
     "the workload's name: it goes to\n"
     ".Pa workloads/ Ns Ar name Ns / Ns Ar model Ns / .",
     NULL},
    {P_PATH, "path", 'p', "DIR", "write the workload into DIR itself", NULL, "@dirs"},
    {P_KERNEL, "kernel", 'k', "NAME...", "only dispatches of kernels whose names contain NAME",
     NULL, NULL},
    {P_DISPATCH, "dispatch", 'd', "N...", "only dispatch N (launch order from 0) or N:M (N to M-1)",
     NULL, NULL},
    {P_BLOCK, "block", 'b', "X...",
     "only the metrics of hardware block X (a counter-name\n"
     "prefix, as the architecture's block_limits name them)\n"
     "or of panel/table X (17, 2.1)",
     NULL, NULL},
    {P_JOIN, "join-type", 0, "kernel|grid",
     "match dispatches between passes by kernel name and\n"
     "occurrence (default), or also by grid size",
     NULL, "kernel grid"},
    {P_DRY_RUN, "dry-run", 0, NULL,
     "print the passes (\"pass N: COUNTER ...\") on standard output\n"
     "and a summary on standard error, write perfmon/pmc_perf_N.txt\n"
     "and run nothing",
     "print one line per pass and write the pass files, running nothing; with\n"
     ".Fl -arch\n"
     "plan for an architecture this machine does not have.\n"
     "On AMD it then prints the number of application runs and the lower bound no plan can go\n"
     "below, with its reason: per hardware block, its counters (and twice its accumulate\n"
     "counters) over the counters one run can collect, and the number of accumulate counters\n"
     "(one run each); then the counters the formulas read that this architecture does not have\n"
     "(not planned; their metrics are n/a) and those it collects once under two names (see\n"
     ".Sy counters\n"
     "in the metric files).\n"
     "The counters of a ratio (a hit rate's hits and misses: for each division of a formula, the\n"
     "counters of one block on both sides) share a run wherever the block limits allow.",
     NULL},
    {P_ARCH, "arch", 0, "GFX", "with --dry-run: plan for GFX without its GPU",
     "with\n"
     ".Fl -dry-run :\n"
     "plan for the architecture\n"
     ".Ar gfx\n"
     "(a name\n" ".Fl -list-metrics\n" "takes) without its GPU; the options its backend cannot honour are\n"
     "errors as on the GPU.",
     "@archs"},
    {P_BACKEND, "backend", 0, "NAME", "rocprof (AMD, rocprofv3) or cupti (NVIDIA)", NULL,
     "rocprof cupti"},
    {P_NO_ROOF, "no-roof", 0, NULL, "do not run the roofline benchmarks afterwards", NULL, NULL},
    {P_ROOF_ONLY, "roof-only", 0, NULL, "only run the roofline benchmarks into the workload", NULL,
     NULL},
    {P_FORCE, "force", 0, NULL, "replace an existing workload", "overwrite an existing workload.",
     NULL},
    {P_RESUME, "resume", 0, NULL, "finish an interrupted profile, reusing its passes",
     "continue an interrupted profile from its first missing pass.", NULL},
    {P_PASS_TIMEOUT, "pass-timeout", 0, "S", "end a pass that runs longer than S seconds",
     "stop a pass whose target runs longer than\n"
     ".Ar s\n"
     "seconds.",
     NULL},
    {P_REPLAY, "replay", 0, "MODE",
     "kernel: run CMD once and replay each kernel once per\n"
     "pass (default where the backend can: cupti);\n"
     "application: run CMD once per pass (rocprof)",
     "how the passes are collected (Nsight Compute's words).\n"
     ".Cm kernel\n"
     "runs\n"
     ".Ar command\n"
     "once and replays each kernel once per hardware pass, device memory saved and restored in\n"
     "between (the default where the backend supports it: cupti).\n"
     ".Cm application\n"
     "runs\n"
     ".Ar command\n"
     "once per pass (the only mode of rocprof, whose command line has no kernel replay; asking it\n"
     "for kernel replay is an error). Dispatches that kernel replay cannot collect, or a run that\n"
     "fails as a whole, are collected by application replay instead, with one warning.\n"
     "Instruction counts are the same in both modes; cache and DRAM traffic of kernels whose data\n"
     "stays in the caches differ, because replaying a kernel changes what the caches hold.",
     "kernel application"},
    {P_RANKS, "ranks", 0, "LIST",
     "under mpirun/srun: profile only these ranks (0,2,4-7);\n"
     "the others run CMD without counters",
     "under\n"
     ".Xr mpirun 1\n"
     "or\n"
     ".Xr srun 1 ,\n"
     "profile only these ranks (such as\n"
     ".Ql 0,2,4-7 ) ;\n"
     "the others run\n"
     ".Ar command\n"
     "as often as the profiled ranks do, without counters, so that the job completes.",
     NULL},
    {P_CLOCK, "clock-control", 0, "MODE",
     "base: lock the GPU clocks at base while profiling, as\n"
     "ncu does (needs the driver's permission); none: leave\n"
     "them (default)",
     ".Cm base\n"
     "locks the GPU's SM and memory clocks at their base while profiling, as\n"
     ".Xr ncu 1\n"
     "does by default (through the driver's management library; it needs root or the driver's\n" "permission, and without it\n"
     "prism warns and profiles at the GPU's own clocks).\n"
     ".Cm none\n"
     "(the default) leaves the clocks alone. The choice and the clocks are written to\n"
     "sysinfo.csv (clock_control); every dispatch records its SM and DRAM clock.",
     "base none"},
    {P_CACHE, "cache-control", 0, "MODE",
     "all: flush the GPU's L2 before each profiled kernel,\n"
     "as ncu does (cupti; in kernel replay the profiler's\n"
     "later passes of a kernel are not flushed); none:\n"
     "leave it (default)",
     ".Cm all\n"
     "flushes the GPU's L2 cache before each profiled kernel, as\n"
     ".Xr ncu 1\n"
     "does by default, so that a kernel's cache and memory counters do not depend on what ran\n"
     "before it (the previous kernel, another rank on the same GPU, or the replay mode): the\n"
     "collector writes a buffer of four times the L2's size and discards it from the L2, in a\n"
     "context of its own that the profiler does not count, and waits for it. In kernel replay\n" "this\n"
     "precedes the kernel's first pass only: the profiler restores device memory before each\n" "later\n"
     "pass, which leaves the restored data in the L2, to be written back during the pass (on\n"
     "the GPU measured a DRAM-bound kernel's later passes ran 2\\(en3 % longer than flushed\n" "ones);\n"
     ".Fl -replay Cm application\n"
     "flushes before every pass, as\n"
     ".Xr ncu 1\n"
     "does. (Experimental: with PRISM_CUPTI_CHECKPOINT=1 in the environment, kernel replay is\n"
     "done by the collector, which restores the kernel's memory and flushes the L2 before every\n"
     "pass, so that cache and DRAM counters start as ncu's do; the metrics that need patched\n"
     "kernel code are left empty there (they read 0 in a kernel the collector launches). With 2\n"
     "they are collected by the profiler's own replay of the program's launch instead; that\n"
     "crashed the program on the GPU measured, see bench/replay-h100.md.) cupti only.\n"
     ".Cm none\n"
     "(the default) leaves the caches as the program left them (with rocprof\n"
     ".Cm all\n"
     "is an error). The choice is written to sysinfo.csv (cache_control).",
     "all none"},
    {P_NO_PCS, "no-pc-sampling", 0, NULL,
     "skip the PC-sampling run (NVIDIA samples by default;\n"
     "AMD only when -b names panel 21, as rocprof-compute)",
     "skip the PC-sampling run. After the counter passes, prism runs the command once more\n"
     "sampling where the waves (warps) are, per instruction, with the reason each stalled\n"
     "sample was not issued; the samples go into the workload and\n"
     ".Nm prism Cm analyze\n"
     "shows them as panel 21 (the hot instructions and source lines). A run of its own, so\n"
     "that no counter is disturbed. With cupti (the profiler's warp-state sampling, mapped to\n"
     "file:line when the binary has line information) it is made by default; with rocprof\n"
     "(rocprofv3's PC sampling, ROCm 6.4 or later, a beta that AMD says may hang the GPU)\n"
     "only when\n"
     ".Fl b\n"
     "names panel 21, as rocprof-compute does. A rocprofv3 without PC sampling, or a failing\n"
     "sampling run, gives a warning: the counters are kept.",
     NULL},
    {P_PC_METHOD, "pc-sampling-method", 0, "M",
     "stochastic (default; with stall reasons) or host_trap (AMD)",
     ".Cm stochastic\n"
     "(hardware sampling with stall reasons; the default) or\n"
     ".Cm host_trap\n"
     "(AMD: no stall reasons).",
     "stochastic host_trap"},
    {P_PC_INTERVAL, "pc-sampling-interval", 0, "N",
     "cycles between samples, a power of 2 (stochastic,\n"
     "NVIDIA: 32 to 2^31), or microseconds (host_trap);\n"
     "default: 1048576 on AMD, the profiler's on NVIDIA",
     "cycles between samples, a power of 2 (stochastic; NVIDIA: 32 to 2^31), or microseconds\n"
     "(host_trap). Default: 1048576 on AMD, as rocprof-compute; the profiler's own choice on\n"
     "NVIDIA.",
     NULL},
    {P_QUIET, "quiet", 'q', NULL, "no progress line",
     "no progress. Otherwise, on a terminal, one line on standard error updates in place: pass\n"
     ".Ar k\n"
     "of\n"
     ".Ar N ,\n"
     "a bar, the elapsed time and an estimate of the time left (in kernel replay: the kernel "
     "being\n"
     "replayed); elsewhere plain lines, one per pass, on standard output.",
     NULL},
    {P_HELP, "help", 'h', NULL, "this text", NULL, NULL},
};

static const struct opt roofline_opts[] = {
    {R_DEVICE, "device", 0, "N", "GPU to measure (default 0)", "the GPU to measure (default 0).",
     NULL},
    {R_OUTPUT, "output", 'o', "DIR", "output directory, created if missing (default .)",
     "where to write\n"
     ".Pa roofline.csv\n"
     "(default: the current directory).",
     "@dirs"},
    {R_QUICK, "quick", 0, NULL, "fewer and shorter repetitions (a few seconds)",
     "fewer repetitions.", NULL},
    {R_HELP, "help", 'h', NULL, "this text", NULL, NULL},
};

static const struct opt database_opts[] = {
    {D_IMPORT, "import", 0, "DIR",
     "a workload directory (with pmc_perf.csv and sysinfo.csv), or a\n"
     "multi-rank tree NAME/<node>/rank<N>/ (each rank gets its own database)",
     NULL, "@dirs"},
    {D_DB, "db", 0, "FILE", "the database to write (default: DIR/prism.db)", NULL, "@files"},
    {D_FORCE, "force", 0, NULL, "replace an existing database", NULL, NULL},
    {D_INFO, "info", 0, "FILE", "print the database's metadata and sizes", NULL, "@files"},
    {D_HELP, "help", 'h', NULL, "this text", NULL, NULL},
};

static const struct opt check_data_opts[] = {
    {C_HELP, "help", 'h', NULL, "this text", NULL, NULL},
};

const struct cmd_spec cmd_specs[] = {
    {"analyze", "usage: prism analyze -p DIR [-p DIR2] [options]\n", NULL, analyze_opts,
     sizeof analyze_opts / sizeof *analyze_opts},
    {"profile",
     "usage: prism profile -n NAME [-p DIR] [options] -- CMD ARGS\n"
     "\n"
     "Collects every counter pass (one run of CMD with kernel replay, else one run per\n"
     "pass) and writes workloads/NAME/<gpu model>/ (or DIR)\n"
     "in rocprof-compute's layout, for 'prism analyze'.\n",
     NULL, profile_opts, sizeof profile_opts / sizeof *profile_opts},
    {"roofline",
     "usage: prism roofline [--device N] [-o DIR] [--quick]\n"
     "\n"
     "Measure the empirical roofline ceilings of a GPU (HBM, L2, L1 and shared\n"
     "memory bandwidth; vector and matrix FLOP/s) and write DIR/roofline.csv.\n",
     "Low/High columns: the 95% confidence interval of the mean over repeated\n"
     "timed runs (mean +- t * sd / sqrt(n)). The benchmark binary is looked for\n"
     "next to prism, in its ../lib/prism, in /usr/local/lib/prism, or named\n"
     "by $PRISM_ROOFLINE_BIN.\n",
     roofline_opts, sizeof roofline_opts / sizeof *roofline_opts},
    {"database",
     "usage: prism database --import DIR [--db FILE] [--force]\n"
     "       prism database --info FILE\n",
     "analyze reads a database like a directory: prism analyze -p FILE\n", database_opts,
     sizeof database_opts / sizeof *database_opts},
    {"check-data",
     "usage: prism check-data\n"
     "\n"
     "Loads metrics/ and panels/ for every architecture and reports formula and reference "
     "errors.\n",
     NULL, check_data_opts, sizeof check_data_opts / sizeof *check_data_opts},
    {NULL, NULL, NULL, NULL, 0},
};

const struct cmd_spec *cmd_spec(const char *name)
{
        for (const struct cmd_spec *c = cmd_specs; c->name; c++)
                if (!strcmp(c->name, name))
                        return c;
        return NULL;
}
