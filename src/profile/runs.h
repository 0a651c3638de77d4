/* Running the passes of a plan: by application replay (the program once per pass) or by
 * kernel replay (the program once, each kernel replayed once per pass), with a fallback to
 * application replay for what kernel replay could not collect, --resume reuse of finished
 * passes, and the progress line. */
#ifndef PRISM_RUNS_H
#define PRISM_RUNS_H

#include <stddef.h>

#include "../store/table.h"
#include "../util/util.h"
#include "backend.h"
#include "plan.h"
#include "profile.h"
#include "progress.h"

struct runs {
        const struct profile_opts *o;
        const struct backend *be;
        const struct plan *plan;
        int nchan;
        const char *scratch; /* DIR/.prism-passes: pass_N/ (result.csv, counters.txt) */
        int mode;            /* REPLAY_KERNEL or REPLAY_APPLICATION */
        int cache;           /* CACHE_ALL or CACHE_NONE */
        struct progress *pg;
        int parallel;        /* one rank of several: no fallback to application replay (the
                                ranks would run the program different numbers of times) */
        size_t runs;         /* out: runs of the program made */
        int fell_back;       /* out: 1 whole kernel replay failed, 2 some dispatches */
};

/* Fill tables[0 .. plan->npasses) (initialised here; the caller frees every one, also on
 * failure) with each pass's table in the backend's per-pass layout. */
int runs_collect(struct runs *r, struct table *tables, struct err *err);

/* Run the target times times without counters (a rank left out by --ranks keeps the job
 * running: its peers run the program as often). */
int runs_plain(char *const *argv, int timeout_s, size_t times, struct err *err);

/* Remove a scratch directory prism made (files and subdirectories). */
void runs_remove_tree(const char *dir);

#endif
