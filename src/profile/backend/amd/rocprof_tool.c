/* Finding rocprofv3 and its output files (rocprof_input.h), for the counter passes
 * (rocprof.c) and the PC-sampling run (pcs_rocprof.c). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rocprof_input.h"

static int cmp_path(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* $PRISM_ROCPROFV3, else rocprofv3 on PATH; malloc'd, NULL if none (rocprof_input.h). */
char *rocprof_tool(void)
{
        const char *env = getenv("PRISM_ROCPROFV3");
        if (env && *env)
                return access(env, X_OK) == 0 ? xstrdup(env) : NULL;
        const char *path = getenv("PATH");
        if (!path)
                path = "/usr/bin:/bin";
        char *copy = xstrdup(path), *save = NULL, *found = NULL;
        for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
                char *p = xasprintf("%s/rocprofv3", *d ? d : ".");
                if (access(p, X_OK) == 0 && is_file(p))
                        found = p;
                else
                        free(p);
        }
        free(copy);
        if (!found && access("/opt/rocm/bin/rocprofv3", X_OK) == 0)
                found = xstrdup("/opt/rocm/bin/rocprofv3");
        return found;
}

void rocprof_find_files(const char *dir, const char *suffix, int depth, char ***out,
                        size_t *n, size_t *cap)
{
        DIR *d = opendir(dir);
        if (!d)
                return;
        struct dirent *e;
        size_t sl = strlen(suffix);
        while ((e = readdir(d))) {
                if (e->d_name[0] == '.')
                        continue;
                char *p = xasprintf("%s/%s", dir, e->d_name);
                size_t l = strlen(e->d_name);
                if (is_dir(p) && depth < 3) {
                        rocprof_find_files(p, suffix, depth + 1, out, n, cap);
                } else if (l >= sl && !strcmp(e->d_name + l - sl, suffix) && is_file(p)) {
                        xgrow(out, cap, *n + 1, sizeof **out);
                        (*out)[(*n)++] = p;
                        p = NULL;
                }
                free(p);
        }
        closedir(d);
        if (depth == 0 && *n > 1)
                qsort(*out, *n, sizeof **out, cmp_path);
}
