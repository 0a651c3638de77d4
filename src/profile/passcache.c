/* The pass-count cache (see passcache.h): in memory, and in $PRISM_CACHE_DIR (default
 * $XDG_CACHE_HOME/prism or ~/.cache/prism)/passes, one "KEY COUNT" line each, KEY a 64-bit
 * FNV-1a hash of the library's identity, the chip and the names. PRISM_CACHE_DIR=none
 * keeps it in memory only. */
#include "passcache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/util.h"

static struct {
        struct smap data; /* recorded counts: data key -> count */
        int loaded;
        struct smap mem;
        FILE *f;
        uint64_t lib;
} pc;

static uint64_t fnv(uint64_t h, const char *s)
{
        for (; *s; s++)
                h = (h ^ (unsigned char)*s) * 1099511628211ULL;
        return (h ^ 0xff) * 1099511628211ULL;
}

void passcache_open(const char *lib)
{
        if (pc.loaded)
                return;
        pc.loaded = 1;
        struct stat st;
        char id[600];
        int ok = stat(lib, &st) == 0;
        snprintf(id, sizeof id, "%.500s %lld %lld", lib, ok ? (long long)st.st_size : 0LL,
                 ok ? (long long)st.st_mtime : 0LL);
        pc.lib = fnv(14695981039346656037ULL, id);
        const char *dir = getenv("PRISM_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
                   *home = getenv("HOME");
        char *d = dir && *dir ? xstrdup(dir)
                  : xdg && *xdg ? xasprintf("%s/prism", xdg)
                  : home && *home ? xasprintf("%s/.cache/prism", home)
                                  : NULL;
        if (!d || !strcmp(d, "none")) {
                free(d);
                return;
        }
        struct err ignore = {0};
        char *path = xasprintf("%s/passes", d);
        char *text = make_dir(d, &ignore) == 0 ? read_file(path, NULL, NULL) : NULL;
        for (char *line = text, *nl; line && *line; line = nl + 1) {
                nl = strchr(line, '\n');
                if (nl)
                        *nl = 0;
                char key[40];
                int count;
                if (sscanf(line, "%39s %d", key, &count) == 2 && count > 0)
                        smap_put(&pc.mem, key, count);
                if (!nl)
                        break;
        }
        free(text);
        pc.f = fopen(path, "a");
        free(path);
        free(d);
}

#define FNV_BASIS 14695981039346656037ULL

static uint64_t hash_set(uint64_t h, const char *chip, const char *const *names, size_t n)
{
        h = fnv(h, chip);
        for (size_t i = 0; i < n; i++)
                h = fnv(h, names[i]);
        return h;
}

void passcache_data_key(const char *chip, const char *const *names, size_t n, char *key)
{
        snprintf(key, 17, "%016llx", (unsigned long long)hash_set(FNV_BASIS, chip, names, n));
}

void passcache_data(char *const *keys, const int *counts, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (counts[i] > 0)
                        smap_put(&pc.data, keys[i], counts[i]);
}

int passcache_data_get(const char *chip, const char *const *names, size_t n)
{
        char key[17];
        int v;
        if (!pc.data.len)
                return -1;
        passcache_data_key(chip, names, n, key);
        return smap_get(&pc.data, key, &v) ? v : -1;
}

void passcache_record(const char *chip, const char *const *names, size_t n, int count)
{
        static FILE *f;
        static int tried;
        if (!tried) {
                tried = 1;
                const char *p = getenv("PRISM_PASS_COUNTS_RECORD");
                if (p && *p)
                        f = fopen(p, "a");
        }
        if (!f || count <= 0)
                return;
        char key[17];
        passcache_data_key(chip, names, n, key);
        fprintf(f, "  %s: %d\n", key, count);
        fflush(f);
}

static void key_of(const char *chip, const char *const *names, size_t n, char *key, size_t len)
{
        uint64_t h = hash_set(pc.lib, chip, names, n);
        snprintf(key, len, "%016llx", (unsigned long long)h);
}

int passcache_get(const char *chip, const char *const *names, size_t n)
{
        char key[40];
        int v;
        if (!pc.loaded)
                return -1;
        key_of(chip, names, n, key, sizeof key);
        return smap_get(&pc.mem, key, &v) ? v : -1;
}

void passcache_put(const char *chip, const char *const *names, size_t n, int count)
{
        char key[40];
        if (!pc.loaded || count <= 0)
                return;
        key_of(chip, names, n, key, sizeof key);
        smap_put(&pc.mem, key, count);
        if (pc.f) {
                fprintf(pc.f, "%s %d\n", key, count);
                fflush(pc.f);
        }
}
