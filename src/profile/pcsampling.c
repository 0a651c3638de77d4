/* The PC-sampling run of a profile: after the counter passes, the target runs once more
 * under the backend's PC sampling (a run of its own: sampling perturbs no counter), and
 * the samples land in the workload directory next to pmc_perf.csv (src/store/pcsamp.h reads
 * them, panel 21 shows them). Whether it runs: --no-pc-sampling never; else when the
 * backend samples by default (NVIDIA) or -b names panel 21 or one of its tables (AMD, as
 * rocprof-compute does). */
#include <stdlib.h>
#include <string.h>

#include "../store/pcsamp.h"
#include "backend.h"
#include "profile.h"
#include "runs.h"

static int panel21_selected(const struct profile_opts *o)
{
        for (size_t i = 0; i < o->nblocks; i++)
                if (!strcmp(o->blocks[i], "21") || !strncmp(o->blocks[i], "21.", 3))
                        return 1;
        return 0;
}

void profile_pc_sampling(const struct profile_opts *o, const struct backend *be,
                         const char *dir, const char *scratch, struct profile_result *res)
{
        if (o->pc_sampling == PCS_OFF || o->dry_run)
                return;
        int wanted = panel21_selected(o) || be->pc_sampling_default;
        if (!wanted)
                return;
        if (!be->pc_sampling) {
                if (panel21_selected(o))
                        warnf("the %s backend cannot sample PCs: panel 21 stays empty", be->name);
                return;
        }
        struct err err = {0};
        char *work = xasprintf("%s/pc_sampling", scratch);
        int rc = make_dir(work, &err);
        struct backend_pcs p = {.argv = o->argv, .workdir = work, .outdir = dir,
                                .method = o->pc_method, .interval = o->pc_interval,
                                .timeout_s = o->pass_timeout};
        if (!rc) {
                if (o->log)
                        fprintf(o->log, "PC sampling run\n");
                rc = be->pc_sampling(&p, &err);
                if (rc != ERR_PCS_UNSUPPORTED) {
                        res->pc_sampled = 1;
                        res->runs++;
                }
        }
        if (!rc) {
                /* what was written must read back: a bad file is said now, not at analyze */
                struct pcsamp ps;
                if (pcsamp_load(dir, &ps, &err))
                        rc = -1;
                else
                        res->pc_samples = ps.nlines;
                pcsamp_free(&ps);
        }
        if (rc == ERR_PCS_UNSUPPORTED)
                warnf("no PC sampling: %s; the counters are complete", err.msg);
        else if (rc)
                warnf("PC sampling failed: %s; the counters are complete (--no-pc-sampling "
                      "skips it)", err.msg);
        else if (!res->pc_samples)
                warnf("PC sampling collected no sample (kernels too short for the interval?)");
        runs_remove_tree(work);
        free(work);
}
