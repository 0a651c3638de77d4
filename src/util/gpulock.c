/* The per-GPU lock (see gpulock.h). */
#include "gpulock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>

static double now(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int gpulock_open(const char *path)
{
        return open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
}

double gpulock_take(int fd)
{
        double t0 = now();
        while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
                ;
        return now() - t0;
}

void gpulock_give(int fd)
{
        flock(fd, LOCK_UN);
}
