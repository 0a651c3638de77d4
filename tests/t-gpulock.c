/* The lock protocol of ranks that share a GPU (src/util/gpulock.c, used by the CUPTI
 * collector): forked "ranks" profile kernels one at a time under the per-GPU lock and
 * exchange data with their neighbours between kernels (a ring, so every rank waits on
 * another). Held per kernel, the lock never deadlocks and no two kernels overlap; held
 * across the exchange (a lock around a whole pass), the same ranks deadlock -- the test
 * checks that too, so that it can tell the two apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/gpulock.h"

#define RANKS 4
#define ROUNDS 30

/* One rank: ROUNDS times a "kernel" under the lock (its start and end appended to log),
 * then send a token to the right and wait for the left's. whole: keep the lock across the
 * exchange. Exits 0 when done. */
static void rank_main(int r, const char *lock, const char *log, int (*ring)[2], int whole)
{
        int fd = gpulock_open(lock);
        if (fd < 0)
                _exit(3);
        for (int k = 0; k < ROUNDS; k++) {
                gpulock_take(fd);
                FILE *f = fopen(log, "a");
                fprintf(f, "+%d\n", r);
                fclose(f);
                struct timespec ns = {0, 200000};
                nanosleep(&ns, NULL);
                f = fopen(log, "a");
                fprintf(f, "-%d\n", r);
                fclose(f);
                if (!whole)
                        gpulock_give(fd);
                char tok = (char)k;
                if (write(ring[(r + 1) % RANKS][1], &tok, 1) != 1 || read(ring[r][0], &tok, 1) != 1)
                        _exit(4);
                if (whole)
                        gpulock_give(fd);
        }
        _exit(0);
}

/* Run the ranks; 0 when all finished within secs, 1 when they had to be killed. */
static int run_ranks(const char *lock, const char *log, int whole, int secs)
{
        int ring[RANKS][2];
        pid_t pid[RANKS];
        for (int r = 0; r < RANKS; r++)
                assert_int_equal(pipe(ring[r]), 0);
        for (int r = 0; r < RANKS; r++) {
                pid[r] = fork();
                assert_true(pid[r] >= 0);
                if (pid[r] == 0)
                        rank_main(r, lock, log, ring, whole);
        }
        for (int r = 0; r < RANKS; r++) {
                close(ring[r][0]);
                close(ring[r][1]);
        }
        int killed = 0;
        for (int t = 0; t < secs * 100; t++) {
                int alive = 0;
                for (int r = 0; r < RANKS; r++)
                        alive += pid[r] > 0 && waitpid(pid[r], NULL, WNOHANG) == 0;
                if (!alive)
                        break;
                struct timespec ns = {0, 10000000};
                nanosleep(&ns, NULL);
        }
        for (int r = 0; r < RANKS; r++) {
                int st;
                if (waitpid(pid[r], &st, WNOHANG) == 0) {
                        kill(pid[r], SIGKILL);
                        waitpid(pid[r], &st, 0);
                        killed = 1;
                } else if (!killed) {
                        /* reaped in the loop above: nothing more to learn */
                }
        }
        return killed;
}

static void test_per_kernel_lock(void **state)
{
        (void)state;
        char dir[] = "/tmp/prism-gpulock.XXXXXX";
        assert_non_null(mkdtemp(dir));
        char lock[128], log[128];
        snprintf(lock, sizeof lock, "%s/gpu-0.lock", dir);
        snprintf(log, sizeof log, "%s/log", dir);
        assert_int_equal(run_ranks(lock, log, 0, 20), 0);
        /* kernels never overlap: +r is always followed by -r of the same rank */
        FILE *f = fopen(log, "r");
        assert_non_null(f);
        char a[16], b[16];
        int n = 0;
        while (fgets(a, sizeof a, f)) {
                assert_non_null(fgets(b, sizeof b, f));
                assert_int_equal(a[0], '+');
                assert_int_equal(b[0], '-');
                assert_string_equal(a + 1, b + 1);
                n++;
        }
        fclose(f);
        assert_int_equal(n, RANKS * ROUNDS);
        /* a lock around the whole exchange deadlocks the same ranks */
        unlink(log);
        assert_int_equal(run_ranks(lock, log, 1, 2), 1);
        unlink(log);
        unlink(lock);
        rmdir(dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {cmocka_unit_test(test_per_kernel_lock)};
        return cmocka_run_group_tests(tests, NULL, NULL);
}
