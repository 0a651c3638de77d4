/* PC sampling on AMD through rocprofv3 (ROCm >= 6.4, rocprofiler-sdk's PC-sampling beta):
 *   rocprofv3 --pc-sampling-beta-enabled --pc-sampling-method stochastic|host_trap
 *             --pc-sampling-unit cycles|time --pc-sampling-interval N --kernel-trace
 *             --output-format json -d OUT -o %pid%_ps_file -- CMD
 * the options rocprof-compute passes (its pc_sampling_prof); each process writes
 * OUT/<pid>_ps_file_results.json, the name rocprof-compute 3.9+ gives them, copied into the
 * workload. A rocprofv3 whose --help lists no --pc-sampling-method (ROCm before 6.4) has
 * none: ERR_PCS_UNSUPPORTED. Defaults as rocprof-compute's: stochastic, 1048576. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../proc.h"
#include "rocprof_input.h"

#define DEFAULT_INTERVAL 1048576UL

/* Run argv with output to logpath; 0, or an error naming what. */
static int run_logged(char **argv, const char *logpath, int timeout_s, const char *what,
                      struct err *err)
{
        int efd = -1, status = 0, exec_errno = 0, rc = 0;
        int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return err_set(err, ERR_SYS, "cannot write '%s': %s", logpath, strerror(errno));
        pid_t pid = proc_spawn(argv, fd, NULL, &efd);
        if (pid < 0) {
                rc = err_set(err, ERR_SYS, "%s: cannot start '%s': %s", what, argv[0],
                             strerror(errno));
        } else if (proc_wait_exec(pid, efd, timeout_s, &status, &exec_errno)) {
                rc = err_set(err, ERR_SYS, "%s: ran past --pass-timeout %d s and was ended "
                             "(log: %s)", what, timeout_s, logpath);
        } else if (exec_errno) {
                rc = err_set(err, ERR_SYS, "%s: cannot run '%s': %s", what, argv[0],
                             strerror(exec_errno));
        } else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
                rc = err_set(err, ERR_SYS, "%s: rocprofv3 failed (status %d; log: %s)", what,
                             WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                             logpath);
        }
        close(fd);
        if (efd >= 0)
                close(efd);
        return rc;
}

/* 1 if this rocprofv3 has PC sampling (its --help names the option) */
static int has_pc_sampling(char *tool, const char *work, struct err *err)
{
        char *log = xasprintf("%s/help.txt", work);
        char *argv[] = {tool, "--help", NULL};
        int ok = 0;
        if (!run_logged(argv, log, 60, "rocprofv3 --help", err)) {
                char *text = read_file(log, NULL, NULL);
                ok = text && strstr(text, "--pc-sampling-method") != NULL;
                free(text);
        }
        free(log);
        return ok;
}

static int copy_file(const char *from, const char *to, struct err *err)
{
        size_t len;
        char *data = read_file(from, &len, err);
        if (!data)
                return ERR_SYS;
        FILE *f = fopen(to, "wb");
        int rc = 0;
        if (!f || fwrite(data, 1, len, f) != len)
                rc = err_set(err, ERR_SYS, "cannot write '%s': %s", to, strerror(errno));
        if (f && fclose(f) && !rc)
                rc = err_set(err, ERR_SYS, "cannot write '%s'", to);
        free(data);
        return rc;
}

int rocprof_pc_sampling(const struct backend_pcs *p, struct err *err)
{
        const char *method = p->method ? p->method : "stochastic";
        unsigned long interval = p->interval ? p->interval : DEFAULT_INTERVAL;
        int host = !strcmp(method, "host_trap");
        if (!host && strcmp(method, "stochastic"))
                return err_set(err, ERR_USAGE, "bad PC-sampling method '%s' (want stochastic or "
                               "host_trap)", method);
        if (!host && (interval & (interval - 1)))
                return err_set(err, ERR_USAGE, "stochastic PC sampling needs an interval that is "
                               "a power of 2 (cycles), not %lu", interval);
        char *tool = rocprof_tool();
        if (!tool)
                return err_set(err, ERR_PCS_UNSUPPORTED, "rocprofv3 not found");
        int rc = 0;
        struct err e2 = {0};
        if (!has_pc_sampling(tool, p->workdir, &e2)) {
                free(tool);
                return err_set(err, ERR_PCS_UNSUPPORTED, "%s",
                               e2.code ? e2.msg
                                       : "this rocprofv3 has no --pc-sampling-method (ROCm 6.4 "
                                         "or later has)");
        }
        char *out = xasprintf("%s/out", p->workdir), *log = xasprintf("%s/log.txt", p->workdir);
        char ival[32];
        snprintf(ival, sizeof ival, "%lu", interval);
        size_t nt = 0;
        while (p->argv && p->argv[nt])
                nt++;
        char **argv = xcalloc(nt + 20, sizeof *argv);
        size_t a = 0;
        const char *fixed[] = {"--pc-sampling-beta-enabled", "--pc-sampling-method", method,
                               "--pc-sampling-unit", host ? "time" : "cycles",
                               "--pc-sampling-interval", ival, "--kernel-trace",
                               "--output-format", "json", "-d", out, "-o", "%pid%_ps_file", "--"};
        argv[a++] = tool;
        for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
                argv[a++] = (char *)fixed[i];
        for (size_t i = 0; i < nt; i++)
                argv[a++] = p->argv[i];
        rc = run_logged(argv, log, p->timeout_s, "PC sampling run", err);
        char **files = NULL;
        size_t n = 0, cap = 0;
        if (!rc)
                rocprof_find_files(out, "_ps_file_results.json", 0, &files, &n, &cap);
        if (!rc && !n)
                rc = err_set(err, ERR_SYS, "PC sampling run: rocprofv3 wrote no "
                             "*_ps_file_results.json (log: %s)", log);
        for (size_t i = 0; !rc && i < n; i++) {
                const char *base = strrchr(files[i], '/') + 1;
                char *to = xasprintf("%s/%s", p->outdir, base);
                rc = copy_file(files[i], to, err);
                free(to);
        }
        free_all((void *const *)files, n);
        free(files);
        FREE_ALL(argv, out, log, tool);
        return rc;
}
