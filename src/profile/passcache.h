/* A cache of hardware pass counts (backend num_passes): the planner asks hundreds of them
 * (first fit over some 200 metrics), each answer a host object and a config image (5-15
 * ms with NVIDIA's profiler); they depend only on the chip, the metric set and the profiler library. */
#ifndef PRISM_PASSCACHE_H
#define PRISM_PASSCACHE_H

#include <stddef.h>

/* Start the cache for the profiler library at lib (its path, size and mtime are part of
 * every key, so a new library starts afresh). */
void passcache_open(const char *lib);
/* The count for this set (names in this order) on chip, or -1. */
int passcache_get(const char *chip, const char *const *names, size_t n);
void passcache_put(const char *chip, const char *const *names, size_t n, int count);

/* The architecture's recorded pass counts (struct arch pass_counts): data keys and counts;
 * passcache_data_get answers from them before any library is loaded. */
void passcache_data(char *const *keys, const int *counts, size_t n);
int passcache_data_get(const char *chip, const char *const *names, size_t n);
/* The data key of a set: FNV-1a over the chip and the names, 16 hex digits (key holds 17). */
void passcache_data_key(const char *chip, const char *const *names, size_t n, char *key);
/* With $PRISM_PASS_COUNTS_RECORD set, append "  KEY: COUNT" for each set answered (how the
 * pass_counts of metrics/ are made on a machine with the profiler library). */
void passcache_record(const char *chip, const char *const *names, size_t n, int count);

#endif
