/* prism database: import workload directories (or every rank of a multi-rank tree) into
 * the SQLite store, and show what a database holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "cmds.h"
#include "store/db.h"
#include "store/multi.h"


/* The name the workload's architecture reads accumulated values under (arch.h), malloc'd;
 * NULL where its architecture is not known (the values stay as recorded). */
static char *accum_value_of(const char *dir)
{
        char *arch = NULL, *mdir = data_path("metrics"), *v = NULL;
        struct err err = {0};
        struct arch a;
        if (mdir && workload_arch(dir, &arch, &err) == 0 && arch_load(mdir, arch, &a, &err) == 0) {
                v = a.accum_value ? xstrdup(a.accum_value) : NULL;
                arch_free(&a);
        }
        free(arch);
        free(mdir);
        return v;
}

static int import_one(const char *dir, const char *db, int force)
{
        struct err err = {0};
        size_t nd = 0, nc = 0;
        char *path = db ? xstrdup(db) : xasprintf("%s/%s", dir, DB_DEFAULT_NAME);
        char *acc = accum_value_of(dir);
        int rc = db_import_dir(dir, path, acc, NULL, 0, force, &nd, &nc, &err);
        free(acc);
        if (rc)
                fprintf(stderr, "prism: %s\n", err.msg);
        else
                printf("imported '%s' into '%s': %zu dispatch%s, %zu columns\n", dir, path, nd,
                       nd == 1 ? "" : "es", nc);
        free(path);
        return rc ? 2 : 0;
}

static int import_tree(const char *root, int force)
{
        struct err err = {0};
        struct rank_tree t;
        int rc = 0;
        if (multi_scan(root, &t, &err))
                return cmd_fail(err.msg);
        for (size_t i = 0; i < t.n && !rc; i++) {
                if (t.v[i].is_db) {
                        printf("rank %ld: '%s' is a database already\n", t.v[i].rank, t.v[i].path);
                        continue;
                }
                char rank[32];
                snprintf(rank, sizeof rank, "%ld", t.v[i].rank);
                struct db_meta_kv kv[] = {{"rank", rank}, {"node", t.v[i].node}};
                char *path = xasprintf("%s/%s", t.v[i].path, DB_DEFAULT_NAME);
                size_t nd = 0, nc = 0;
                char *acc = accum_value_of(t.v[i].path);
                int irc = db_import_dir(t.v[i].path, path, acc, kv, 2, force, &nd, &nc, &err);
                free(acc);
                if (irc) {
                        fprintf(stderr, "prism: %s\n", err.msg);
                        rc = 2;
                } else {
                        printf("rank %ld: imported '%s' into '%s': %zu dispatch%s\n", t.v[i].rank,
                               t.v[i].path, path, nd, nd == 1 ? "" : "es");
                }
                free(path);
        }
        multi_free(&t);
        return rc;
}

static int info(const char *path)
{
        static const char *const keys[] = {
            "schema_version", "prism_version", "created", "source", "gpu_arch",
            "gpu_model",      "dispatches",    "rank",    "node",   NULL};
        struct err err = {0};
        char *v = db_read_meta(path, "schema_version", &err);
        if (!v)
                return cmd_fail(err.msg);
        free(v);
        for (size_t i = 0; keys[i]; i++) {
                struct err e2 = {0};
                if ((v = db_read_meta(path, keys[i], &e2)))
                        printf("%-15s %s\n", keys[i], v);
                free(v);
        }
        return 0;
}

int cmd_database(int argc, char **argv)
{
        const char *dir = NULL, *db = NULL, *info_path = NULL;
        int force = 0;
        const struct cmd_spec *spec = cmd_spec("database");
        for (int i = 1; i < argc; i++) {
                const char *o = argv[i];
                const struct opt *op = opt_find(spec, o);
                if (!op) {
                        fprintf(stderr,
                                "prism: unknown option '%s' (see 'prism database --help')\n", o);
                        return 2;
                }
                if (op->id == D_HELP) {
                        opt_help(stdout, spec);
                        return 0;
                } else if (op->id == D_FORCE) {
                        force = 1;
                        continue;
                }
                if (i + 1 >= argc) {
                        fprintf(stderr, "prism: option '%s' needs a value\n", o);
                        return 2;
                }
                const char **dst = op->id == D_IMPORT ? &dir : op->id == D_DB ? &db : &info_path;
                *dst = argv[++i];
        }
        if (info_path && !dir && !db)
                return info(info_path);
        if (!dir || info_path)
                return cmd_fail("database needs --import DIR (or --info FILE)");
        if (!is_dir(dir)) {
                fprintf(stderr, "prism: cannot import '%s': not a directory\n", dir);
                return 2;
        }
        char *sys = xasprintf("%s/sysinfo.csv", dir), *pmc = xasprintf("%s/pmc_perf.csv", dir);
        int plain = is_file(sys) || is_file(pmc);
        free(sys);
        free(pmc);
        if (!plain && multi_is_tree(dir)) {
                if (db) {
                        fprintf(stderr,
                                "prism: '%s' is a multi-rank tree: each rank gets its "
                                "own %s, so --db does not apply\n",
                                dir, DB_DEFAULT_NAME);
                        return 2;
                }
                return import_tree(dir, force);
        }
        return import_one(dir, db, force);
}
