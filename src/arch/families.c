/* Find the metric files of a directory and of its version overlays, and list the targets
 * they serve. */
#include "families.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "versions.h"
#include "yamldoc.h"

void family_files_free(struct family_file *ff, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(ff[i].path);
                free(ff[i].family);
                free(ff[i].inherits);
                for (size_t j = 0; j < ff[i].narchs; j++)
                        free(ff[i].archs[j]);
                free(ff[i].archs);
                for (size_t j = 0; j < ff[i].nover; j++) {
                        free(ff[i].over[j]);
                        ysrc_free(&ff[i].over_src[j]);
                }
                free(ff[i].over);
                free(ff[i].over_src);
                ysrc_free(&ff[i].src);
        }
        free(ff);
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted .yaml file names in dir; -1 if dir cannot be opened. */
static int yaml_names(const char *dir, char ***out, size_t *nout)
{
        DIR *d = opendir(dir);
        if (!d)
                return -1;
        char **names = NULL;
        size_t nn = 0, cap = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                size_t l = strlen(de->d_name);
                if (l > 5 && !strcmp(de->d_name + l - 5, ".yaml")) {
                        xgrow(&names, &cap, nn + 1, sizeof *names);
                        names[nn++] = xstrdup(de->d_name);
                }
        }
        closedir(d);
        if (nn) /* qsort(NULL, 0) is undefined (UBSan; fuzz_yaml_metrics) */
                qsort(names, nn, sizeof *names, cmp_str);
        *out = names;
        *nout = nn;
        return 0;
}

/* Read one metric file's header into ff (path already set); its text stays in ff->src. */
static int read_header(struct family_file *ff, struct err *err)
{
        struct ydoc y;
        int rc;
        if ((rc = ysrc_open(&ff->src, ff->path, err)))
                return rc;
        /* a family's files are found by their headers: a few lines per file are parsed
         * (or taken parsed from the binary), not every formula of every family */
        rc = ydoc_load_head(&y, ff->path, &ff->src, YDOC_HEAD_METRICS, err);
        if (rc)
                return rc;
        yaml_node_t *root = ydoc_root(&y);
        const char *fam = ydoc_str(ydoc_get(&y, root, "family"));
        const char *inh = ydoc_str(ydoc_get(&y, root, "inherits"));
        yaml_node_t *archs = ydoc_get(&y, root, "archs");
        if (!root || root->type != YAML_MAPPING_NODE || !fam) {
                rc = err_set(err, ERR_INPUT, "%s: not a metric file (no 'family:')", ff->path);
                ydoc_free(&y);
                return rc;
        }
        ff->family = xstrdup(fam);
        ff->inherits = inh && *inh ? xstrdup(inh) : NULL;
        if (archs && archs->type == YAML_SEQUENCE_NODE) {
                ff->narchs = ydoc_len(archs);
                ff->archs = xcalloc(ff->narchs, sizeof(char *));
                for (size_t j = 0; j < ff->narchs; j++) {
                        const char *s = ydoc_str(ydoc_item(&y, archs, j));
                        ff->archs[j] = xstrdup(s ? s : "");
                }
        }
        ydoc_free(&y);
        return 0;
}

/* Read the headers of every .yaml file in dir, then of the version overlays in force
 * (dir/<version>/): a file there naming a family of dir overlays it, any other is a
 * family of its own (one that exists from that version on). */
int scan_families(const char *dir, struct family_file **out, size_t *nout,
                         struct err *err)
{
        char **names, **ov = NULL;
        size_t nn, nov = 0;
        /* one listing: the files and the overlay directories */
        if (data_dir_list(dir, &names, &nn, &ov, &nov))
                return err_set(err, ERR_INPUT, "cannot open metrics directory '%s'", dir);
        if (nn) /* qsort(NULL, 0) is undefined */
                qsort(names, nn, sizeof *names, cmp_str);
        struct family_file *ff = xcalloc(nn ? nn : 1, sizeof *ff);
        size_t nf = 0, cap = nn ? nn : 1;
        int rc = 0;
        for (size_t i = 0; i < nn && !rc; i++) {
                ff[nf].path = xasprintf("%s/%s", dir, names[i]);
                rc = read_header(&ff[nf++], err);
        }
        for (size_t i = 0; i < nn; i++)
                free(names[i]);
        free(names);
        for (size_t o = 0; o < nov; o++) {
                if (!rc && !yaml_names(ov[o], &names, &nn)) {
                        for (size_t i = 0; i < nn; i++) {
                                struct family_file t = {0};
                                t.path = xasprintf("%s/%s", ov[o], names[i]);
                                if (!rc && !(rc = read_header(&t, err))) {
                                        size_t j;
                                        for (j = 0; j < nf; j++)
                                                if (!strcmp(ff[j].family, t.family))
                                                        break;
                                        if (j < nf) {
                                                ff[j].over = xrealloc(ff[j].over, (ff[j].nover + 1) *
                                                                      sizeof *ff[j].over);
                                                ff[j].over_src = xrealloc(
                                                    ff[j].over_src,
                                                    (ff[j].nover + 1) * sizeof *ff[j].over_src);
                                                ff[j].over_src[ff[j].nover] = t.src;
                                                memset(&t.src, 0, sizeof t.src);
                                                ff[j].over[ff[j].nover++] = t.path;
                                                t.path = NULL;
                                        } else {
                                                xgrow(&ff, &cap, nf + 1, sizeof *ff);
                                                ff[nf++] = t;
                                                memset(&t, 0, sizeof t);
                                        }
                                }
                                struct family_file *tp = xcalloc(1, sizeof *tp);
                                *tp = t;
                                family_files_free(tp, 1);
                                free(names[i]);
                        }
                        free(names);
                }
                free(ov[o]);
        }
        free(ov);
        if (rc) {
                family_files_free(ff, nf);
                return rc;
        }
        *out = ff;
        *nout = nf;
        return 0;
}

int arch_list(const char *dir, char ***targets, size_t *n, struct err *err)
{
        struct family_file *ff;
        size_t nf;
        int rc = scan_families(dir, &ff, &nf, err);
        if (rc)
                return rc;
        char **t = NULL;
        size_t nt = 0, cap = 0;
        for (size_t i = 0; i < nf; i++)
                for (size_t j = 0; j < ff[i].narchs; j++) {
                        xgrow(&t, &cap, nt + 1, sizeof *t);
                        t[nt++] = xstrdup(ff[i].archs[j]);
                }
        if (nt) /* no targets: t is NULL, and qsort(NULL, 0) is undefined (fuzz_yaml_metrics) */
                qsort(t, nt, sizeof *t, cmp_str);
        family_files_free(ff, nf);
        *targets = t;
        *n = nt;
        return 0;
}
