/* Which rocprof-compute version's data is in force, and where its overlays are. */
#include "versions.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *cur;

void data_version_set(const char *version)
{
        free(cur);
        cur = version ? xstrdup(version) : NULL;
}

const char *data_version(void)
{
        return cur;
}

static int is_version(const char *s)
{
        if (!(*s >= '0' && *s <= '9'))
                return 0;
        for (; *s; s++)
                if (!((*s >= '0' && *s <= '9') || *s == '.'))
                        return 0;
        return 1;
}

static int cmp_ver(const void *a, const void *b)
{
        return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* the overlay names collected (nn of them) as sorted paths under dir */
static void overlay_paths(const char *dir, char **names, size_t nn, char ***paths, size_t *n)
{
        if (nn)
                qsort(names, nn, sizeof *names, cmp_ver);
        for (size_t i = 0; i < nn; i++) {
                char *p = xasprintf("%s/%s", dir, names[i]);
                free(names[i]);
                names[i] = p;
        }
        *paths = names;
        *n = nn;
}

static int is_overlay(const char *name)
{
        return is_version(name) && !(cur && strverscmp(name, cur) > 0);
}

int data_dir_list(const char *dir, char ***yaml, size_t *nyaml, char ***paths, size_t *n)
{
        DIR *d = opendir(dir);
        if (!d)
                return -1;
        char **names = NULL, **ys = NULL;
        size_t nn = 0, cap = 0, ny = 0, ycap = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                size_t l = strlen(de->d_name);
                if (l > 5 && !strcmp(de->d_name + l - 5, ".yaml")) {
                        xgrow(&ys, &ycap, ny + 1, sizeof *ys);
                        ys[ny++] = xstrdup(de->d_name);
                }
                if (is_overlay(de->d_name)) {
                        xgrow(&names, &cap, nn + 1, sizeof *names);
                        names[nn++] = xstrdup(de->d_name);
                }
        }
        closedir(d);
        *yaml = ys;
        *nyaml = ny;
        overlay_paths(dir, names, nn, paths, n);
        return 0;
}

int data_versions_load(const char *pdir, struct data_version **v, size_t *n, struct err *err)
{
        char *path = xasprintf("%s/versions", pdir);
        FILE *f = fopen(path, "r");
        struct data_version *out = NULL;
        size_t no = 0, cap = 0;
        int rc = 0;
        if (!f) {
                out = xcalloc(1, sizeof *out);
                strcpy(out->norm, "per_wave");
                no = 1;
                goto done;
        }
        char line[256];
        int ln = 0;
        while (fgets(line, sizeof line, f)) {
                ln++;
                char a[64], b[64];
                if (line[0] == '#' || strspn(line, " \t\r\n") == strlen(line))
                        continue;
                if (sscanf(line, "%63s %63s", a, b) != 2 || !is_version(a) ||
                    strlen(a) >= sizeof out->name || strlen(b) >= sizeof out->norm) {
                        rc = err_set(err, ERR_INPUT, "%s:%d: expected 'VERSION NORMALIZATION'",
                                     path, ln);
                        break;
                }
                xgrow(&out, &cap, no + 1, sizeof *out);
                strcpy(out[no].name, a);
                strcpy(out[no].norm, b);
                no++;
        }
        fclose(f);
        if (!rc && !no)
                rc = err_set(err, ERR_INPUT, "%s: no versions", path);
done:
        free(path);
        if (rc) {
                free(out);
                return rc;
        }
        *v = out;
        *n = no;
        return 0;
}
