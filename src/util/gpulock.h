/* The per-GPU lock of processes that share a GPU's counters (MPI ranks on one GPU): a
 * lock file taken with flock, held only while one kernel is profiled. Used by the NVIDIA
 * collector (src/collect/cupti/share.c); plain POSIX, so that tests can drive it. */
#ifndef PRISM_GPULOCK_H
#define PRISM_GPULOCK_H

/* Open (creating) the lock file; -1 with errno on failure. */
int gpulock_open(const char *path);
/* Take the lock, waiting as long as another process holds it; returns the seconds
 * waited. */
double gpulock_take(int fd);
void gpulock_give(int fd);

#endif
