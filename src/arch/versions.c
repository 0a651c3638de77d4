/* Which rocprof-compute version's data is in force, and where its overlays are. */
#include "versions.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *cur;
/* the default version (panels/versions' mark), looked up once where no version is set */
static char dflt[16];
static int dflt_read;

static const char *in_force(void);

void data_version_set(const char *version)
{
        free(cur);
        cur = version ? xstrdup(version) : NULL;
        if (!cur)
                in_force(); /* the default, read now: before any thread asks */
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

/* the version whose overlays apply: the one set, else the default one */
static const char *in_force(void)
{
        if (cur)
                return cur;
        if (!dflt_read) {
                dflt_read = 1;
                char *pdir = data_path("panels");
                struct data_version *v;
                size_t n;
                struct err e = {0};
                if (pdir && !data_versions_load(pdir, &v, &n, NULL, &e)) {
                        size_t k = data_version_default(v, n);
                        /* the newest unmarked: every overlay, as without the file */
                        if (v[k].is_default)
                                snprintf(dflt, sizeof dflt, "%s", v[k].name);
                        free(v);
                }
                free(pdir);
        }
        return dflt[0] ? dflt : NULL;
}

static int is_overlay(const char *name)
{
        const char *v = in_force();
        return is_version(name) && !(v && strverscmp(name, v) > 0);
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

/* the names after `normalizations` on line ln of path */
static int norms_parse(char *rest, struct data_norms *dn, const char *path, int ln,
                       struct err *err)
{
        char *save = NULL;
        if (dn->n)
                return err_set(err, ERR_INPUT, "%s:%d: a second normalizations line", path, ln);
        for (char *t = strtok_r(rest, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
                if (dn->n == DATA_MAX_NORMS || strlen(t) >= sizeof dn->names[0] ||
                    data_norm_find(dn, t) >= 0)
                        return err_set(err, ERR_INPUT,
                                       "%s:%d: normalization '%.40s': too many, too long or "
                                       "given twice",
                                       path, ln, t);
                strcpy(dn->names[dn->n++], t);
        }
        if (!dn->n)
                return err_set(err, ERR_INPUT, "%s:%d: expected 'normalizations NAME...'", path,
                               ln);
        return 0;
}

size_t data_version_default(const struct data_version *v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (v[i].is_default)
                        return i;
        return n - 1;
}

int data_versions_load(const char *pdir, struct data_version **v, size_t *n,
                       struct data_norms *norms, struct err *err)
{
        char *path = xasprintf("%s/versions", pdir);
        FILE *f = fopen(path, "r");
        struct data_version *out = NULL;
        size_t no = 0, cap = 0;
        int rc = 0;
        struct data_norms dn = {0};
        int norms_line = 0;
        if (!f) {
                rc = err_set(err, ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
                goto done;
        }
        char line[256];
        int ln = 0;
        while (fgets(line, sizeof line, f)) {
                ln++;
                char a[64], b[64];
                int used = 0;
                char *hash = strchr(line, '#');
                if (hash)
                        *hash = 0; /* a comment after the fields */
                if (strspn(line, " \t\r\n") == strlen(line))
                        continue;
                if (sscanf(line, "%63s%n", a, &used) == 1 && !strcmp(a, "normalizations")) {
                        if ((rc = norms_parse(line + used, &dn, path, ln, err)))
                                break;
                        norms_line = ln;
                        continue;
                }
                if (sscanf(line, "%63s %63s%n", a, b, &used) != 2 || !is_version(a) ||
                    strlen(a) >= sizeof out->name || strlen(b) >= sizeof out->norm) {
                        rc = err_set(err, ERR_INPUT, "%s:%d: expected 'VERSION NORMALIZATION'",
                                     path, ln);
                        break;
                }
                xgrow(&out, &cap, no + 1, sizeof *out);
                struct data_version *dv = &out[no];
                if (no) /* the rules of the version before, unless this one says */
                        *dv = out[no - 1];
                else
                        memset(dv, 0, sizeof *dv);
                dv->is_default = 0;
                strcpy(dv->name, a);
                strcpy(dv->norm, b);
                no++;
                char *save = NULL;
                for (char *t = strtok_r(line + used, " \t\r\n", &save); t && !rc;
                     t = strtok_r(NULL, " \t\r\n", &save)) {
                        int ndef = 0;
                        for (size_t i = 0; i + 1 < no; i++)
                                ndef += out[i].is_default;
                        if (!strcmp(t, "default") && !ndef)
                                dv->is_default = 1;
                        else if (!strcmp(t, "default"))
                                rc = err_set(err, ERR_INPUT, "%s:%d: a second default version",
                                             path, ln);
                        else if (!strcmp(t, "timestamps=median") || !strcmp(t, "timestamps=first"))
                                dv->first_times = !strcmp(t, "timestamps=first");
                        else if (!strcmp(t, "sysinfo_names=old") || !strcmp(t, "sysinfo_names=new"))
                                dv->new_sysinfo_names = !strcmp(t, "sysinfo_names=new");
                        else if (!strcmp(t, "avg=mean") || !strcmp(t, "avg=ratio"))
                                dv->ratio_avg = !strcmp(t, "avg=ratio");
                        else if (!strncmp(t, "dispatch_base=", 14) && strlen(t) == 15 &&
                                 (t[14] == '0' || t[14] == '1'))
                                dv->dispatch_base = t[14] - '0';
                        else
                                rc = err_set(err, ERR_INPUT,
                                             "%s:%d: unknown '%.40s' (default, "
                                             "timestamps=median|first, dispatch_base=0|1, "
                                             "sysinfo_names=old|new, avg=mean|ratio)",
                                             path, ln, t);
                }
                if (rc)
                        break;
        }
        fclose(f);
        if (!rc && !no)
                rc = err_set(err, ERR_INPUT, "%s: no versions", path);
        if (!rc && !norms_line)
                rc = err_set(err, ERR_INPUT, "%s: no 'normalizations NAME...' line", path);
        /* each version's default is one of them */
        for (size_t i = 0; i < no && !rc; i++)
                if (data_norm_find(&dn, out[i].norm) < 0)
                        rc = err_set(err, ERR_INPUT,
                                     "%s:%d: version %s's normalization '%s' is not on "
                                     "this normalizations line",
                                     path, norms_line, out[i].name, out[i].norm);
done:
        free(path);
        if (rc) {
                free(out);
                return rc;
        }
        *v = out;
        *n = no;
        if (norms)
                *norms = dn;
        return 0;
}

int data_norm_find(const struct data_norms *dn, const char *name)
{
        for (size_t i = 0; i < dn->n; i++)
                if (!strcmp(dn->names[i], name))
                        return (int)i;
        return -1;
}

int data_norm_check(const struct data_norms *dn, const char *name, struct err *err)
{
        if (data_norm_find(dn, name) >= 0)
                return 0;
        struct strbuf sb = {0};
        for (size_t i = 0; i < dn->n; i++)
                sb_addf(&sb, "%s%s", i ? ", " : "", dn->names[i]);
        int rc = err_set(err, ERR_USAGE, "unknown normalization '%s' (%s)", name,
                         sb.buf ? sb.buf : "");
        sb_free(&sb);
        return rc;
}
