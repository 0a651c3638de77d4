/* Launcher detection as a table of environments: which rank, how many, which node, where
 * the output goes and which GPU, for Open MPI, PMIx, MPICH/Intel MPI, MVAPICH, Cray PALS,
 * srun, and the traps (a batch script, mpirun inside an allocation). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/backend.h"
#include "profile/launcher.h"
#include "util/util.h"

struct env_case {
        const char *env[10]; /* NAME=value, NULL-terminated */
        const char *kind;    /* NULL: no launcher */
        long rank, size, local;
        const char *dir;     /* launcher_rank_dir("w/NAME", ...); NULL: not checked */
        int gpu;             /* launcher_gpu_choice(..., 4 GPUs) */
};

static const struct env_case cases[] = {
    /* nothing: a single process, the plain layout */
    {{NULL}, NULL, -1, -1, -1, "w/NAME", 0},
    /* Open MPI mpirun */
    {{"OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_LOCAL_RANK=1",
      "SLURMD_NODENAME=gpu-07", NULL},
     "openmpi", 3, 4, 1, "w/NAME/gpu-07/rank3", 1},
    /* Open MPI inside a Slurm allocation: mpirun's variables win over SLURM_PROCID */
    {{"SLURM_PROCID=0", "SLURM_STEP_ID=0", "SLURM_NTASKS=1", "OMPI_COMM_WORLD_RANK=5",
      "OMPI_COMM_WORLD_SIZE=8", "OMPI_COMM_WORLD_LOCAL_RANK=5", "SLURMD_NODENAME=n1", NULL},
     "openmpi", 5, 8, 5, "w/NAME/n1/rank5", 1},
    /* PMIx (Open MPI 5 prterun, srun --mpi=pmix): size from Slurm */
    {{"PMIX_RANK=2", "SLURM_STEP_NUM_TASKS=16", "SLURM_LOCALID=2", "SLURMD_NODENAME=x", NULL},
     "pmix", 2, 16, 2, "w/NAME/x/rank2", 2},
    /* MPICH Hydra / Intel MPI */
    {{"PMI_RANK=7", "PMI_SIZE=12", "MPI_LOCALRANKID=3", "SLURMD_NODENAME=b.example.org",
      NULL},
     "mpich", 7, 12, 3, "w/NAME/b/rank7", 3},
    /* MVAPICH2 */
    {{"MV2_COMM_WORLD_RANK=1", "MV2_COMM_WORLD_SIZE=2", "MV2_COMM_WORLD_LOCAL_RANK=0",
      "SLURMD_NODENAME=m", NULL},
     "mvapich", 1, 2, 0, "w/NAME/m/rank1", 0},
    /* HPE Cray PALS (aprun/mpiexec on EX) */
    {{"PALS_RANKID=9", "PALS_LOCAL_RANKID=1", "PMI_SIZE=32", "SLURMD_NODENAME=c", NULL},
     "cray-pals", 9, 32, 1, "w/NAME/c/rank9", 1},
    /* srun: inside a step */
    {{"SLURM_PROCID=6", "SLURM_STEP_ID=0", "SLURM_STEP_NUM_TASKS=8", "SLURM_NTASKS=8",
      "SLURM_LOCALID=2", "SLURMD_NODENAME=node[3]", NULL},
     "slurm", 6, 8, 2, "w/NAME/node_3_/rank6", 2},
    /* a batch script (no step): not a rank, whatever SLURM_PROCID says */
    {{"SLURM_PROCID=0", "SLURM_NTASKS=4", "SLURM_JOB_ID=77", NULL},
     NULL, -1, -1, -1, "w/NAME", 0},
    /* srun -n 1: a launcher, but one process: the plain layout */
    {{"SLURM_PROCID=0", "SLURM_STEP_ID=3", "SLURM_STEP_NUM_TASKS=1", "SLURM_LOCALID=0",
      "SLURMD_NODENAME=s", NULL},
     "slurm", 0, 1, 0, "w/NAME", 0},
    /* a binding set by the site: its first device, not the local rank */
    {{"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_LOCAL_RANK=1",
      "ROCR_VISIBLE_DEVICES=3,2", "SLURMD_NODENAME=v", NULL},
     "openmpi", 1, 2, 1, "w/NAME/v/rank1", 3},
    /* devices named by UUID: the runtime picks; prism cannot tell */
    {{"PMI_RANK=1", "PMI_SIZE=2", "MPI_LOCALRANKID=1", "CUDA_VISIBLE_DEVICES=GPU-5e1c",
      "SLURMD_NODENAME=u", NULL},
     "mpich", 1, 2, 1, "w/NAME/u/rank1", -1},
    /* garbage numbers are not ranks */
    {{"OMPI_COMM_WORLD_RANK=x1", "PMI_RANK=-2", NULL}, NULL, -1, -1, -1, "w/NAME", 0},
    /* local rank beyond the GPUs wraps around */
    {{"OMPI_COMM_WORLD_RANK=6", "OMPI_COMM_WORLD_SIZE=8", "OMPI_COMM_WORLD_LOCAL_RANK=6",
      "SLURMD_NODENAME=w", NULL},
     "openmpi", 6, 8, 6, "w/NAME/w/rank6", 2},
};

static void test_detect(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                const struct env_case *c = &cases[i];
                struct launcher l;
                launcher_detect(&l, (char *const *)c->env);
                if ((c->kind == NULL) != (l.kind == NULL) ||
                    (c->kind && strcmp(c->kind, l.kind)))
                        fail_msg("case %zu: kind %s, want %s", i, l.kind ? l.kind : "none",
                                 c->kind ? c->kind : "none");
                if (l.rank != c->rank || l.size != c->size || l.local_rank != c->local)
                        fail_msg("case %zu: rank %ld/%ld local %ld", i, l.rank, l.size,
                                 l.local_rank);
                char *d = launcher_rank_dir("w/NAME", &l);
                if (c->dir && strcmp(d, c->dir))
                        fail_msg("case %zu: dir %s, want %s", i, d, c->dir);
                free(d);
                struct gpu_choice gc;
                launcher_gpu_choice(&l, (char *const *)c->env, 4, backend_device_vars(), &gc);
                int g = gc.index;
                if (g != c->gpu)
                        fail_msg("case %zu: gpu %d, want %d", i, g, c->gpu);
                assert_true(l.node[0] != 0);
        }
}

static void test_node_names(void **state)
{
        (void)state;
        static const char *const names[][2] = {
            {"gpu01", "gpu01"},     {"gpu01.cluster.org", "gpu01"}, {"a b/c", "a_b_c"},
            {"", "node"},           {".hidden", "node"},             {"n-1_x", "n-1_x"},
        };
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
                char out[64];
                launcher_node_name(names[i][0], out, sizeof out);
                assert_string_equal(out, names[i][1]);
        }
        char tiny[4];
        launcher_node_name("abcdefgh", tiny, sizeof tiny);
        assert_string_equal(tiny, "abc");
        /* without SLURMD_NODENAME the host name is used, never an empty name */
        struct launcher l;
        const char *env[] = {"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", NULL};
        launcher_detect(&l, (char *const *)env);
        assert_true(l.node[0] && !strchr(l.node, '.') && !strchr(l.node, '/'));
        struct gpu_choice gc;
        launcher_gpu_choice(&l, (char *const *)env, 0, backend_device_vars(), &gc);
        assert_int_equal(gc.index, -1); /* no GPU */
        assert_int_equal(gc.assign, 0);
}

/* More ranks than GPUs: round-robin, and the rule says so; a bound GPU is kept and named;
 * a bound GPU the node lacks is an error naming the variable, the GPU and the count. */
static void test_gpu_choice(void **state)
{
        (void)state;
        struct launcher l;
        struct gpu_choice gc;
        for (int r = 0; r < 4; r++) {
                char rank[40], local[48];
                snprintf(rank, sizeof rank, "OMPI_COMM_WORLD_RANK=%d", r);
                snprintf(local, sizeof local, "OMPI_COMM_WORLD_LOCAL_RANK=%d", r);
                const char *env[] = {rank, "OMPI_COMM_WORLD_SIZE=4", local, NULL};
                launcher_detect(&l, (char *const *)env);
                launcher_gpu_choice(&l, (char *const *)env, 1, backend_device_vars(), &gc);
                assert_int_equal(gc.index, 0);
                assert_int_equal(gc.assign, 1);
                assert_null(gc.var);
                assert_non_null(strstr(gc.why, "round-robin"));
                launcher_gpu_choice(&l, (char *const *)env, 2, backend_device_vars(), &gc);
                assert_int_equal(gc.index, r % 2);
                assert_int_equal(launcher_local_size((char *const *)env), -1);
                /* the node's rank count unknown: the GPU may be shared */
                assert_int_equal(launcher_may_share(&gc, (char *const *)env, 2), 1);
        }
        /* 2 ranks on 2 GPUs spread by the rule: each alone; 4 ranks on 2: shared */
        for (int n = 2; n <= 4; n += 2) {
                char size[48];
                snprintf(size, sizeof size, "OMPI_COMM_WORLD_LOCAL_SIZE=%d", n);
                const char *env[] = {"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=4",
                                     "OMPI_COMM_WORLD_LOCAL_RANK=1", size, NULL};
                launcher_detect(&l, (char *const *)env);
                launcher_gpu_choice(&l, (char *const *)env, 2, backend_device_vars(), &gc);
                assert_int_equal(gc.index, 1);
                assert_int_equal(launcher_may_share(&gc, (char *const *)env, 2), n > 2);
        }
        const char *bound[] = {"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2",
                               "OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2",
                               "CUDA_VISIBLE_DEVICES=0", NULL};
        launcher_detect(&l, (char *const *)bound);
        launcher_gpu_choice(&l, (char *const *)bound, 1, backend_device_vars(), &gc);
        assert_int_equal(gc.index, 0);
        assert_int_equal(gc.assign, 0);
        assert_string_equal(gc.var, "CUDA_VISIBLE_DEVICES");
        assert_string_equal(gc.why, "GPU 0 (CUDA_VISIBLE_DEVICES=0)");
        assert_int_equal(launcher_local_size((char *const *)bound), 2);
        /* bound by a variable: other ranks may name the same GPU */
        assert_int_equal(launcher_may_share(&gc, (char *const *)bound, 1), 1);
        const char *missing[] = {"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2",
                                 "CUDA_VISIBLE_DEVICES=1", NULL};
        launcher_detect(&l, (char *const *)missing);
        launcher_gpu_choice(&l, (char *const *)missing, 1, backend_device_vars(), &gc);
        assert_int_equal(gc.index, -1);
        assert_int_equal(gc.missing, 1);
        assert_string_equal(gc.why, "CUDA_VISIBLE_DEVICES=1 names GPU 1, but this node has 1 GPU");
}

int main(void)
{
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_detect),
                                           cmocka_unit_test(test_node_names),
                                           cmocka_unit_test(test_gpu_choice)};
        return cmocka_run_group_tests(tests, NULL, NULL);
}
