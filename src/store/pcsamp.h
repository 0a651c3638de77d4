/* PC samples of a workload: where inside each kernel the sampled waves (warps) were, per
 * instruction, with the samples that issued and those that stalled, by stall reason.
 * Read from rocprof-compute's PC-sampling files (rocprofiler-sdk's results JSON, one per
 * process from 3.9) or from pc_sampling_summary.csv (rocprof-compute 3.9+'s analysis
 * export, which is also the file prism writes for NVIDIA: docs/FORMATS.md). */
#ifndef PRISM_PCSAMP_H
#define PRISM_PCSAMP_H

#include <stddef.h>
#include <stdio.h>

#include "../util/util.h"

/* One sampled instruction of one kernel (of one code object of one process). */
struct pcs_line {
        char *kernel;          /* the kernel's name; NULL when no kernel claims the PC */
        long long pid;         /* -1 unknown */
        long long code_object; /* code object id (AMD) or cubin CRC (NVIDIA); -1 unknown */
        unsigned long long offset; /* instruction offset (in the code object / function) */
        int has_offset;        /* 0: grouped by source line only (3.3's CSV) */
        char *instruction;     /* disassembly, or NULL */
        char *source;          /* "path:line" as the tool wrote it, or NULL */
        double count;          /* samples */
        double issued, stalled; /* NaN where the method does not tell (host trap) */
        size_t *reason;        /* nreasons entries of the pcsamp's reason list: stalled */
        double *rcount;        /* samples per reason, in descending count order */
        size_t nreason;
};

struct pcsamp {
        char *method;          /* "stochastic", "host_trap" (AMD), "warp_state" (NVIDIA) */
        char *file;            /* the file read (the first, for one per process) */
        struct pcs_line *lines;
        size_t nlines, cap;
        char **reasons;        /* stall reason names */
        size_t nreasons, capreasons;
        struct smap reason_idx;
};

/* Read the PC samples of the workload directory dir into ps. None there: 0 with
 * ps->nlines 0 and ps->file NULL. A malformed file: a one-line error naming it (ERR_INPUT). */
int pcsamp_load(const char *dir, struct pcsamp *ps, struct err *err);
void pcsamp_free(struct pcsamp *ps);

/* Read one file: pc_sampling_summary.csv, or a rocprofiler-sdk results JSON (pid: the
 * process, -1 unknown), appending to ps. */
int pcsamp_read_summary(struct pcsamp *ps, const char *path, struct err *err);
int pcsamp_read_sdk_json(struct pcsamp *ps, const char *path, long long pid, struct err *err);

/* Write ps as pc_sampling_summary.csv (rocprof-compute's column names). */
int pcsamp_write_summary(const struct pcsamp *ps, const char *path, struct err *err);

/* Building: the index of reason name (added when new); a new line (zeroed, counts 0,
 * issued/stalled NaN, pid/code object -1). Texts are copied. */
size_t pcsamp_reason(struct pcsamp *ps, const char *name);
struct pcs_line *pcsamp_add(struct pcsamp *ps, const char *kernel, const char *instruction,
                            const char *source);
/* Add n samples of reason r to line l (kept in descending order by pcsamp_sort_reasons). */
void pcsamp_line_add_reason(struct pcs_line *l, size_t r, double n);
void pcsamp_sort_reasons(struct pcs_line *l);

/* The line number of a "path:line" source text (0 when it has none), and the length of
 * its path part. */
long pcsamp_source_line(const char *source, size_t *pathlen);

#endif
