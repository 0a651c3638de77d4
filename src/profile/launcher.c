/* Rank, node and GPU of this process from the launcher's environment (mpirun, srun). */
#include "launcher.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/util.h"

extern char **environ;

/* What each launcher exports to its tasks, in order of precedence. Sources: Open MPI's
 * mpirun(1) "environment variables"; PMIx standard (PMIX_RANK); MPICH Hydra and Intel MPI
 * (PMI_RANK, PMI_SIZE, MPI_LOCALRANKID); MVAPICH2 user guide (MV2_COMM_WORLD_*); HPE Cray
 * PALS (PALS_RANKID, PALS_LOCAL_RANKID); Slurm srun(1) "OUTPUT ENVIRONMENT VARIABLES". */
static const struct {
        const char *kind, *rank, *size, *local;
        const char *needs; /* must also be set (Slurm: inside an srun step) */
} launchers[] = {
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", NULL},
    {"pmix", "PMIX_RANK", NULL, NULL, NULL},
    {"mvapich", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK", NULL},
    {"mpich", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", NULL},
    {"cray-pals", "PALS_RANKID", NULL, "PALS_LOCAL_RANKID", NULL},
    {"slurm", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID", "SLURM_STEP_ID"},
};

/* sizes and local ranks a launcher may leave to others (srun under any MPI) */
static const char *const size_fallback[] = {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "PMI_SIZE",
                                            NULL};
static const char *const local_fallback[] = {"SLURM_LOCALID", "MPI_LOCALRANKID",
                                             "PALS_LOCAL_RANKID", NULL};

static const char *env_get(char *const *envp, const char *name)
{
        size_t l = strlen(name);
        if (!envp)
                envp = environ;
        for (; envp && *envp; envp++)
                if (!strncmp(*envp, name, l) && (*envp)[l] == '=')
                        return *envp + l + 1;
        return NULL;
}

/* a non-negative integer variable, or -1 */
static long env_long(char *const *envp, const char *name)
{
        const char *s = name ? env_get(envp, name) : NULL;
        if (!s || !*s)
                return -1;
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        return *end || errno || v < 0 ? -1 : v;
}

void launcher_node_name(const char *host, char *out, size_t len)
{
        size_t n = 0;
        if (!len)
                return;
        for (const char *p = host ? host : ""; *p && *p != '.' && n + 1 < len; p++) {
                char c = *p;
                int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '-' || c == '_';
                out[n++] = ok ? c : '_';
        }
        out[n] = 0;
        if (!n)
                snprintf(out, len, "node");
}

void launcher_detect(struct launcher *l, char *const *envp)
{
        memset(l, 0, sizeof *l);
        l->rank = l->size = l->local_rank = -1;
        for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
                long r = env_long(envp, launchers[i].rank);
                if (r < 0 || (launchers[i].needs && !env_get(envp, launchers[i].needs)))
                        continue;
                l->kind = launchers[i].kind;
                l->rank = r;
                l->size = env_long(envp, launchers[i].size);
                l->local_rank = env_long(envp, launchers[i].local);
                break;
        }
        if (l->kind) {
                for (size_t i = 0; size_fallback[i] && l->size < 0; i++)
                        l->size = env_long(envp, size_fallback[i]);
                for (size_t i = 0; local_fallback[i] && l->local_rank < 0; i++)
                        l->local_rank = env_long(envp, local_fallback[i]);
        }
        const char *node = env_get(envp, "SLURMD_NODENAME");
        char host[256] = "";
        if (!node || !*node) {
                if (gethostname(host, sizeof host - 1) != 0)
                        host[0] = 0;
                node = host;
        }
        launcher_node_name(node, l->node, sizeof l->node);
}

int launcher_is_parallel(const struct launcher *l)
{
        return l->kind && (l->size > 1 || l->rank > 0);
}

char *launcher_rank_dir(const char *base, const struct launcher *l)
{
        if (!launcher_is_parallel(l))
                return xstrdup(base);
        return xasprintf("%s/%s/rank%ld", base, l->node, l->rank);
}

int launcher_gpu_choice(const struct launcher *l, char *const *envp, int ngpus,
                        const char *const *visible, struct gpu_choice *c)
{
        memset(c, 0, sizeof *c);
        for (size_t i = 0; visible && visible[i]; i++) {
                const char *s = env_get(envp, visible[i]);
                if (!s || !*s)
                        continue;
                c->var = visible[i];
                char *end;
                long v = strtol(s, &end, 10);
                if (end == s || (*end && *end != ',') || v < 0) {
                        /* a UUID or an empty set: the runtime knows, we do not */
                        c->index = -1;
                        snprintf(c->why, sizeof c->why, "the GPU %s=%.60s names", visible[i], s);
                } else if (ngpus > 0 && v >= ngpus) {
                        c->index = -1;
                        c->missing = 1;
                        snprintf(c->why, sizeof c->why,
                                 "%s=%.40s names GPU %ld, but this node has %d GPU%s", visible[i],
                                 s, v, ngpus, ngpus == 1 ? "" : "s");
                } else {
                        c->index = (int)v;
                        snprintf(c->why, sizeof c->why, "GPU %ld (%s=%.40s)", v, visible[i], s);
                }
                return 0;
        }
        if (launcher_is_parallel(l) && l->local_rank >= 0 && ngpus > 0) {
                c->index = (int)(l->local_rank % ngpus);
                c->assign = 1;
                snprintf(c->why, sizeof c->why, "GPU %d of %d (local rank %ld, round-robin)",
                         c->index, ngpus, l->local_rank);
                return 0;
        }
        c->index = ngpus > 0 ? 0 : -1;
        snprintf(c->why, sizeof c->why, ngpus > 0 ? "GPU 0 (the default device)"
                                                  : "the default device");
        return 0;
}

int launcher_gpu_lock_path(const struct gpu_choice *c, const char *tmpdir, char *buf,
                           size_t len)
{
        char name[96];
        if (c->index >= 0) {
                snprintf(name, sizeof name, "%d", c->index);
        } else {
                const char *v = c->var ? getenv(c->var) : NULL;
                if (!v || !*v)
                        return 0;
                size_t k = 0;
                for (const char *p = v; *p && *p != ',' && k + 1 < sizeof name; p++)
                        name[k++] = (isalnum((unsigned char)*p) || *p == '-') ? *p : '_';
                name[k] = 0;
        }
        snprintf(buf, len, "%s/prism-gpu-%s.lock", tmpdir && *tmpdir ? tmpdir : "/tmp", name);
        return 1;
}

int launcher_may_share(const struct gpu_choice *c, char *const *envp, int ngpus)
{
        long local = launcher_local_size(envp);
        return !(c->assign && c->index >= 0 && ngpus > 0 && local > 0 && local <= ngpus);
}

long launcher_local_size(char *const *envp)
{
        static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                                           "MV2_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE",
                                           NULL};
        for (size_t i = 0; vars[i]; i++) {
                long v = env_long(envp, vars[i]);
                if (v > 0)
                        return v;
        }
        return -1;
}
