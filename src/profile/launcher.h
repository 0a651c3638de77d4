/* MPI and Slurm launchers: which rank this process is, on which node, and where its
 * output goes, read from the environment that mpirun (Open MPI, MPICH/Intel MPI, MVAPICH,
 * PMIx) or srun gives each task. `mpirun -n 4 prism profile -n NAME -- ./app` then writes
 * workloads/NAME/<node>/rank<N>/<gpu model>/ per rank, and analyze reads the tree. */
#ifndef PRISM_LAUNCHER_H
#define PRISM_LAUNCHER_H

#include <stddef.h>

struct launcher {
        const char *kind; /* "openmpi", "pmix", "mvapich", "mpich", "cray-pals", "slurm";
                             NULL when no launcher started this process */
        long rank;        /* -1 when unknown */
        long size;        /* ranks in the job, -1 when unknown */
        long local_rank;  /* rank among this node's ranks, -1 when unknown */
        char node[256];   /* this node's name, safe as a directory name */
};

/* Fill l from envp (NULL-terminated "NAME=value" strings; NULL: the process environment).
 * Variables of an MPI launcher win over Slurm's (an mpirun inside an allocation keeps the
 * allocation's SLURM_PROCID); Slurm counts only inside an srun step (SLURM_STEP_ID), so a
 * plain command in a batch script is no rank. The node is SLURMD_NODENAME, else the short
 * host name. */
void launcher_detect(struct launcher *l, char *const *envp);

/* 1 if the process is one rank of several (a launcher with size > 1, or rank > 0):
 * then each rank needs its own output directory. */
int launcher_is_parallel(const struct launcher *l);

/* The directory a rank writes under: base itself for a single process, else
 * base/<node>/rank<N> (malloc'd). The profile driver gives its workload base
 * (workloads/NAME, or -p DIR) and appends <gpu model> to the result as before. */
char *launcher_rank_dir(const char *base, const struct launcher *l);

/* How a rank's GPU was chosen (launcher_gpu_choice). */
struct gpu_choice {
        int index;        /* the GPU among the node's, -1 when it cannot be told (no GPU,
                             a device named by UUID): then the runtime's default */
        const char *var;  /* the device variable that bound it (backend.h), NULL */
        int missing;      /* 1: the variable names a GPU the node does not have */
        int assign;       /* 1: the rule chose index, the caller binds it for the target
                             (backend_bind_device) */
        char why[160];    /* "GPU 1 of 2 (local rank 3, round-robin)",
                             "GPU 0 (<variable>=0)" */
};

/* The one rule for choosing the GPU of this process, among ngpus GPUs on the node: a GPU
 * already bound by the launcher or the user through one of the device variables visible
 * (NULL-terminated: the backends' device_vars, backend_device_vars; the first device of the
 * first one set) is kept; else a rank takes local_rank modulo ngpus (round-robin, so that
 * more ranks than GPUs share them); else (one process, or the local rank unknown) GPU 0.
 * A bound index >= ngpus (when ngpus > 0) returns -1 with why naming it. envp: NULL for
 * the process environment. Returns 0. */
int launcher_gpu_choice(const struct launcher *l, char *const *envp, int ngpus,
                        const char *const *visible, struct gpu_choice *c);

/* Ranks that may share a GPU take turns on its counters, one kernel at a time: the
 * collector holds a lock file per GPU while it profiles one kernel (see
 * src/collect/cupti/share.c). Its path: TMPDIR (or /tmp) /prism-gpu-<index on the node>.lock,
 * or the binding variable's value, made safe, when the GPU is named by UUID. Returns 1 and
 * fills buf, 0 when the GPU is unknown. */
int launcher_gpu_lock_path(const struct gpu_choice *c, const char *tmpdir, char *buf,
                           size_t len);

/* May other ranks of this node use c's GPU? Not when the rule itself spread them (assign)
 * and the node's ranks (launcher_local_size) are no more than its GPUs: each then has a GPU
 * of its own and needs no lock. Otherwise (a binding variable, an unknown count): yes. */
int launcher_may_share(const struct gpu_choice *c, char *const *envp, int ngpus);

/* Ranks on this node as the launcher says (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS,
 * SLURM_NTASKS_PER_NODE), -1 when unknown. */
long launcher_local_size(char *const *envp);

/* A host name as a node name: up to the first '.', characters other than letters, digits,
 * '-' and '_' replaced by '_', "node" when empty. */
void launcher_node_name(const char *host, char *out, size_t len);

#endif
