/* Ranks that share a GPU (PRISM_CUPTI_LOCK names a lock file per GPU, the same for every
 * process on the node that uses that GPU): the counters of a GPU serve one process at a
 * time, so each takes the lock only while one kernel is profiled -- from its launch to the
 * decoding of its range -- and gives it back before the program goes on. A program whose
 * processes wait on each other between kernels (MPI) cannot deadlock on it: no process
 * waits for anything while it holds the lock but its own kernel. And the timing report. */
#include <stdio.h>
#include <time.h>

#include "../../util/gpulock.h"
#include "collector.h"

static int held;

double pc_now(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void pc_gpu_lock(void)
{
        if (pc.lock_fd < 0 || held)
                return;
        pc.t.lock_wait += gpulock_take(pc.lock_fd);
        held = 1;
        pc.t.nlock++;
}

void pc_gpu_unlock(void)
{
        if (pc.lock_fd < 0 || !held)
                return;
        gpulock_give(pc.lock_fd);
        held = 0;
}

int pc_gpu_locked(void)
{
        return held;
}

void pc_timing_report(void)
{
        if (!pc.timing)
                return;
        const struct pc_timing *t = &pc.t;
        fprintf(stderr,
                "prism-cupti: timing: to first launch %.3f s, profiler init %.3f, counter "
                "availability %.3f, config image %.3f, enable %.3f, arm %.3f (image %.3f, "
                "SetConfig %.3f, Start %.3f), launch calls %.3f "
                "(%zu), decode %.3f (%zu), disable %.3f, lock wait %.3f (%zu), cache flush %.3f "
                "(%zu), csv %.3f\n",
                t->first > 0 ? t->first - t->injected : 0.0, t->init, t->avail, t->config,
                t->enable, t->arm, t->arm_image, t->arm_config, t->arm_start, t->launches, t->nlaunch, t->flush, t->nflush, t->disable,
                t->lock_wait, t->nlock, t->cache_flush, t->nflushcache, t->csv);
        if (pc.user_replay)
                fprintf(stderr,
                        "prism-cupti: timing: own replay: %zu passes, replayed launches %.3f s, "
                        "save %.3f, restore %.3f; %zu launches left to CUPTI's replay, %zu "
                        "instrumented sessions, %zu profiler restarts\n",
                        t->npasses, t->replay, t->save, t->restore, t->nfallback, t->ninst,
                        t->nrestart);
}
