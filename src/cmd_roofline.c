/* prism roofline: run the vendor's micro-benchmark binary (roofline/) and write the empirical
 * ceilings it prints to DIR/roofline.csv, atomically (a temporary file, then rename). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch/arch.h"
#include "cmds.h"
#include "util/util.h"

#ifndef PRISM_PREFIX
#define PRISM_PREFIX "/usr/local"
#endif

/* The benchmark binaries, one per vendor, tried in this order; a binary that finds no GPU of
 * its vendor exits 2 and the next is tried. */
static const char *const bench_names[] = {"prism-roofline-cuda", "prism-roofline-hip"};
#define NBENCH (sizeof bench_names / sizeof bench_names[0])

/* The first column of a benchmark's header (rocprof-compute's layout: a row per device). */
static const char csv_head[] = "device,";


/* Candidate paths of benchmark binaries that exist, in search order (caller frees). */
static int find_benches(char **out, int max)
{
        int n = 0;
        const char *env = getenv("PRISM_ROOFLINE_BIN");
        if (env && *env) {
                if (access(env, X_OK) == 0 && n < max)
                        out[n++] = xstrdup(env);
                return n; /* an explicit choice: no fallback to other binaries */
        }
        const char *ed = exe_dir();
        for (size_t i = 0; i < NBENCH; i++) {
                char *cand[3] = {
                    ed ? xasprintf("%s/%s", ed, bench_names[i]) : NULL,
                    ed ? xasprintf("%s/../lib/prism/%s", ed, bench_names[i]) : NULL,
                    xasprintf("%s/lib/prism/%s", PRISM_PREFIX, bench_names[i]),
                };
                int found = 0;
                for (int k = 0; k < 3; k++) {
                        if (cand[k] && !found && is_file(cand[k]) && access(cand[k], X_OK) == 0 &&
                            n < max) {
                                out[n++] = cand[k];
                                found = 1;
                        } else {
                                free(cand[k]);
                        }
                }
        }
        return n;
}

/* Run path with args, collect its stdout in *csv (stderr passes through: the detail table).
 * Returns the exit status (0..255), or a negative code with err filled. */
static int run_bench(const char *path, int device, int quick, char **csv, struct err *err)
{
        int fd[2] = {-1, -1};
        struct strbuf sb = {0};
        int rc = ERR_SYS;
        if (pipe(fd) < 0) {
                err_set(err, ERR_SYS, "cannot create a pipe: %s", strerror(errno));
                goto out;
        }
        char dev[16];
        snprintf(dev, sizeof dev, "%d", device);
        /* --quiet-absent: exit 2 without a message when no GPU of its vendor is present, so
         * that trying the next vendor's binary prints nothing */
        char *argv[6] = {(char *)path, "--device", dev, "--quiet-absent", NULL, NULL};
        if (quick)
                argv[4] = "--quick";
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
                err_set(err, ERR_SYS, "cannot start '%s': %s", path, strerror(errno));
                goto out;
        }
        if (pid == 0) {
                dup2(fd[1], STDOUT_FILENO);
                close(fd[0]);
                close(fd[1]);
                execv(path, argv);
                fprintf(stderr, "prism: cannot run '%s': %s\n", path, strerror(errno));
                _exit(127);
        }
        close(fd[1]);
        fd[1] = -1;
        char buf[4096];
        ssize_t k;
        while ((k = read(fd[0], buf, sizeof buf)) != 0) {
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                sb_addn(&sb, buf, (size_t)k);
        }
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (WIFSIGNALED(status)) {
                err_set(err, ERR_SYS, "'%s' was killed by signal %d", path, WTERMSIG(status));
                goto out;
        }
        rc = WEXITSTATUS(status);
        *csv = sb_detach(&sb);
out:
        if (fd[0] >= 0)
                close(fd[0]);
        if (fd[1] >= 0)
                close(fd[1]);
        sb_free(&sb);
        return rc;
}

/* 1 if the header line of csv names every column that some family's roofline reads (the
 * `roofline:` sections of the metric files, which `prism analyze` takes its ceilings from), 0
 * if none; an error (negative, err filled) when the families cannot be read. */
static int header_serves_a_family(const char *csv, struct err *err)
{
        size_t hl = strcspn(csv, "\r\n");
        char *head = xasprintf(",%.*s,", (int)hl, csv);
        char *mdir = data_path("metrics"), **targets = NULL;
        size_t nt = 0;
        int fits = 0;
        if (!mdir) {
                fits = err_set(err, ERR_INPUT, "cannot find prism's metrics/ (set PRISM_DATA_DIR)");
                goto out;
        }
        if (arch_list(mdir, &targets, &nt, err)) {
                fits = -1;
                goto out;
        }
        for (size_t t = 0; t < nt && !fits; t++) {
                struct arch a;
                if (arch_load(mdir, targets[t], &a, err)) {
                        fits = -1;
                        break;
                }
                const struct roof_spec *rs = &a.roof;
                fits = rs->file != NULL;
                for (size_t k = 0; fits && k < rs->nlevels + rs->nceilings; k++) {
                        const char *col = k < rs->nlevels ? rs->levels[k].column
                                                          : rs->ceilings[k - rs->nlevels].column;
                        char *want = col ? xasprintf(",%s,", col) : NULL;
                        fits = !want || strstr(head, want) != NULL;
                        free(want);
                }
                arch_free(&a);
        }
out:
        free_all((void *const *)targets, nt);
        FREE_ALL(targets, mdir, head);
        return fits;
}

/* Write text to dir/roofline.csv through a temporary file in the same directory. */
static int write_atomic(const char *dir, const char *text, struct err *err)
{
        char *path = xasprintf("%s/roofline.csv", dir);
        char *tmp = xasprintf("%s/.roofline.csv.%ld.tmp", dir, (long)getpid());
        int rc = 0;
        FILE *f = fopen(tmp, "w");
        if (!f) {
                rc = err_set(err, ERR_SYS, "cannot write '%s': %s", tmp, strerror(errno));
                goto out;
        }
        size_t len = strlen(text);
        int bad = fwrite(text, 1, len, f) != len;
        bad |= fflush(f) != 0;
        bad |= fsync(fileno(f)) != 0;
        bad |= fclose(f) != 0;
        if (bad) {
                rc = err_set(err, ERR_SYS, "cannot write '%s': %s", tmp, strerror(errno));
                unlink(tmp);
                goto out;
        }
        if (rename(tmp, path) < 0) {
                rc = err_set(err, ERR_SYS, "cannot rename '%s' to '%s': %s", tmp, path,
                             strerror(errno));
                unlink(tmp);
                goto out;
        }
        printf("wrote %s\n", path);
out:
        free(path);
        free(tmp);
        return rc;
}

int cmd_roofline(int argc, char **argv)
{
        int device = 0, quick = 0;
        const char *dir = ".";
        const struct cmd_spec *spec = cmd_spec("roofline");
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];
                const struct opt *op = opt_find(spec, a);
                if (!op) {
                        fprintf(stderr, "prism: unknown option '%s' (see 'prism roofline "
                                        "--help')\n",
                                a);
                        return 2;
                }
                if (op->id == R_HELP) {
                        opt_help(stdout, spec);
                        return 0;
                } else if (op->id == R_QUICK) {
                        quick = 1;
                        continue;
                }
                if (i + 1 >= argc) {
                        fprintf(stderr, "prism: option '%s' needs a value\n", a);
                        return 2;
                }
                const char *v = argv[++i];
                if (op->id == R_OUTPUT) {
                        dir = v;
                        continue;
                }
                char *end;
                long d = strtol(v, &end, 10);
                if (!*v || *end || d < 0 || d > INT_MAX) {
                        fprintf(stderr, "prism: bad device number '%s'\n", v);
                        return 2;
                }
                device = (int)d;
        }

        struct err err = {0};
        char *benches[8];
        int nb = find_benches(benches, 8);
        if (nb == 0)
                return cmd_fail("no roofline benchmark found: build prism-roofline-cuda (nvcc) "
                                "or prism-roofline-hip (hipcc) with make, or set "
                                "PRISM_ROOFLINE_BIN");
        char *csv = NULL;
        int status = 2, ret = 2;
        const char *used = NULL;
        for (int i = 0; i < nb && status == 2; i++) {
                free(csv);
                csv = NULL;
                status = run_bench(benches[i], device, quick, &csv, &err);
                used = benches[i];
                if (status < 0)
                        break;
        }
        if (status < 0) {
                ret = cmd_fail(err.msg);
                goto out;
        }
        if (status == 2) {
                ret = cmd_fail(nb > 1 ? "no GPU found by any roofline benchmark"
                                      : "no GPU found by the roofline benchmark");
                goto out;
        }
        if (status != 0) {
                char *m =
                    xasprintf("roofline benchmark '%s' failed (exit status %d)", used, status);
                ret = cmd_fail(m);
                free(m);
                goto out;
        }
        if (!csv || strncmp(csv, csv_head, sizeof csv_head - 1) != 0 || !strchr(csv, '\n')) {
                char *m = xasprintf("roofline benchmark '%s' printed no roofline.csv header", used);
                ret = cmd_fail(m);
                free(m);
                goto out;
        }
        int fits = header_serves_a_family(csv, &err);
        if (fits <= 0) {
                char *m = fits < 0 ? xstrdup(err.msg)
                                   : xasprintf("roofline benchmark '%s' printed a roofline.csv "
                                               "header without the columns of any family's "
                                               "roofline (metrics/*.yaml roofline:)",
                                               used);
                ret = cmd_fail(m);
                free(m);
                goto out;
        }
        if (make_dir(dir, &err) < 0 || write_atomic(dir, csv, &err) < 0) {
                ret = cmd_fail(err.msg);
                goto out;
        }
        ret = 0;
out:
        free(csv);
        for (int i = 0; i < nb; i++)
                free(benches[i]);
        return ret;
}
