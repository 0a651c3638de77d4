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

/* The GPU this rank uses, as an index among ngpus: the first device of
 * ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES or GPU_DEVICE_ORDINAL
 * when one is set (sites and srun --gpus-per-task bind ranks so), else local_rank modulo
 * ngpus; -1 when it cannot be told (no GPU, no launcher, devices named by UUID): then the
 * default device. envp as above. */
int launcher_gpu(const struct launcher *l, char *const *envp, int ngpus);

/* A host name as a node name: up to the first '.', characters other than letters, digits,
 * '-' and '_' replaced by '_', "node" when empty. */
void launcher_node_name(const char *host, char *out, size_t len);

#endif
