/* Shared by the libFuzzer targets and tests/t-fuzz-regress.c: a scratch directory for
 * loaders that read files, and FUZZ_CHECK for invariants (a failed one aborts, which
 * libFuzzer reports as a crash and the regression test as a failure).
 *
 * Every fuzz_*.c file defines one entry `int fuzz_<name>(const uint8_t *, size_t)` and,
 * unless PRISM_FUZZ_NO_ENTRY is defined, LLVMFuzzerTestOneInput calling it. Its static
 * names carry the target's prefix so that the regression test can include all of them. */
#ifndef PRISM_FUZZ_H
#define PRISM_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

#define FUZZ_CHECK(cond)                                                                     \
        do {                                                                                 \
                if (!(cond)) {                                                               \
                        fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, \
                                #cond);                                                      \
                        abort();                                                             \
                }                                                                            \
        } while (0)

/* One scratch directory per process (tmpfs when there is one), removed at exit. */
static char fuzz_dir_path[256];

static void fuzz_dir_cleanup(void)
{
        char cmd[300];
        if (!fuzz_dir_path[0])
                return;
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir_path);
        if (system(cmd) != 0)
                fprintf(stderr, "fuzz: cannot remove %s\n", fuzz_dir_path);
}

static inline const char *fuzz_dir(void)
{
        if (fuzz_dir_path[0])
                return fuzz_dir_path;
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/prism-fuzz-XXXXXX", base);
        if (!mkdtemp(fuzz_dir_path)) {
                perror("fuzz: mkdtemp");
                abort();
        }
        atexit(fuzz_dir_cleanup);
        return fuzz_dir_path;
}

/* A directory of its own under fuzz_dir() for one target (the regression test runs every
 * target in one process, and the loaders read whole directories). */
static inline const char *fuzz_subdir(const char *name, char *buf, size_t size)
{
        snprintf(buf, size, "%s/%s", fuzz_dir(), name);
        if (access(buf, F_OK) != 0 && mkdir(buf, 0700) != 0) {
                perror(buf);
                abort();
        }
        return buf;
}

/* Write (or with data NULL, remove) dir/name; returns the malloc'd path. */
static inline char *fuzz_write(const char *dir, const char *name, const void *data, size_t n)
{
        char *path = xasprintf("%s/%s", dir, name);
        if (!data) {
                unlink(path);
                return path;
        }
        FILE *f = fopen(path, "wb");
        if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
                perror(path);
                abort();
        }
        return path;
}

/* Split data at the first line "---8<---\n" (the separator itself dropped): the
 * targets that read two files take the part before it and the part after it. */
static inline size_t fuzz_split(const uint8_t *data, size_t n, size_t *rest)
{
        static const char sep[] = "\n---8<---\n";
        const size_t l = sizeof sep - 1;
        for (size_t i = 0; i + l <= n; i++)
                if (!memcmp(data + i, sep, l)) {
                        *rest = i + l;
                        return i + 1;
                }
        *rest = n;
        return n;
}

int fuzz_csv(const uint8_t *data, size_t n);
int fuzz_pcsamp(const uint8_t *data, size_t n);
int fuzz_yaml_metrics(const uint8_t *data, size_t n);
int fuzz_yaml_panels(const uint8_t *data, size_t n);
int fuzz_expr(const uint8_t *data, size_t n);
int fuzz_db(const uint8_t *data, size_t n);

#endif
