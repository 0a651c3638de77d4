/* PC sampling on NVIDIA: the target runs once with the collector injected in its PC-sampling
 * mode (PRISM_CUPTI_PCSAMPLING, src/collect/cupti/pcsamp.c: CUPTI's warp-state sampling, no
 * counters), which writes the samples per function and SASS offset with their file:line;
 * here each sampled offset gets its instruction from the cubin's disassembly (nvdisasm, else
 * cuobjdump -sass, where the CUDA toolkit has them), and the result goes into the workload as
 * pc_sampling_summary.csv (docs/FORMATS.md). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../../store/pcsamp.h"
#include "../../../store/table.h"
#include "../../backend.h"
#include "pcs_cupti.h"
#include "../../proc.h"

#define COLLECTOR "libprism-cupti.so"

/* the collector library: the same places backend_cupti.c looks */
static char *collector_path(void)
{
        const char *env = getenv("PRISM_CUPTI_LIB"), *ed = exe_dir();
        char *cand[3] = {0}, *found = NULL, real[PATH_MAX];
        size_t n = 0;
        if (env && *env)
                cand[n++] = xstrdup(env);
        if (ed) {
                cand[n++] = xasprintf("%s/%s", ed, COLLECTOR);
                cand[n++] = xasprintf("%s/../lib/prism/%s", ed, COLLECTOR);
        }
        for (size_t i = 0; i < n; i++) {
                if (!found && is_file(cand[i]) && realpath(cand[i], real))
                        found = xstrdup(real);
                free(cand[i]);
        }
        return found;
}

/* Run argv (env changes env) with its output into logpath; 0, or an error naming what. */
static int run(char *const *argv, char **env, const char *logpath, int timeout_s, const char *what,
               struct err *err)
{
        int efd = -1, status = 0, exec_errno = 0, rc = 0;
        int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return err_set(err, ERR_SYS, "cannot write '%s': %s", logpath, strerror(errno));
        pid_t pid = proc_spawn(argv, fd, env, &efd);
        if (pid < 0)
                rc = err_set(err, ERR_SYS, "%s: cannot start '%s': %s", what, argv[0],
                             strerror(errno));
        else if (proc_wait_exec(pid, efd, timeout_s, &status, &exec_errno))
                rc = err_set(err, ERR_SYS, "%s: ran past --pass-timeout %d s and was ended",
                             what, timeout_s);
        else if (exec_errno)
                rc = err_set(err, ERR_SYS, "%s: cannot run '%s': %s", what, argv[0],
                             strerror(exec_errno));
        else if (!WIFEXITED(status) || WEXITSTATUS(status))
                rc = err_set(err, ERR_SYS, "%s: '%s' failed (status %d; log: %s)", what, argv[0],
                             WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                             logpath);
        close(fd);
        if (efd >= 0)
                close(efd);
        return rc;
}

/* ---- disassembly ---- */

void pcs_sass_parse(struct sass_index *ix, const char *listing)
{
        struct strbuf key = {0};
        char func[1024] = "";
        for (const char *l = listing; l && *l;) {
                const char *e = strchr(l, '\n');
                size_t len = e ? (size_t)(e - l) : strlen(l);
                char *line = xstrndup(l, len);
                l = e ? e + 1 : l + len;
                char *p, *q;
                /* a function starts: cuobjdump's "Function : NAME", nvdisasm's section */
                if ((p = strstr(line, "Function : "))) {
                        snprintf(func, sizeof func, "%s", p + 11);
                        func[strcspn(func, " \t\r")] = 0;
                } else if ((p = strstr(line, ".section")) && (q = strstr(p, ".text."))) {
                        snprintf(func, sizeof func, "%s", q + 6);
                        func[strcspn(func, ",\" \t\r")] = 0;
                } else if ((p = strstr(line, "/*")) && func[0]) {
                        /* an instruction: its offset in a comment, then its text up to
                         * ';' ("@P0 LDG.E R2, desc[UR4][R2.64]") */
                        char *end;
                        unsigned long long off = strtoull(p + 2, &end, 16);
                        if (end != p + 2 && end[0] == '*' && end[1] == '/') {
                                char *t = end + 2;
                                while (*t == ' ' || *t == '\t')
                                        t++;
                                char *semi = strchr(t, ';');
                                if (semi && semi > t) {
                                        while (semi > t && (semi[-1] == ' ' || semi[-1] == '\t'))
                                                semi--;
                                        sb_reset(&key);
                                        sb_addf(&key, "%s\x1f%llu", func, off);
                                        int have;
                                        if (!smap_get(&ix->at, key.buf, &have)) {
                                                xgrow(&ix->text, &ix->cap, ix->n + 1,
                                                      sizeof *ix->text);
                                                ix->text[ix->n] = xstrndup(t, (size_t)(semi - t));
                                                smap_put(&ix->at, key.buf, (int)ix->n++);
                                        }
                                }
                        }
                }
                free(line);
        }
        sb_free(&key);
}

const char *pcs_sass_at(const struct sass_index *ix, const char *func,
                        unsigned long long off)
{
        char key[1100];
        int i;
        snprintf(key, sizeof key, "%s\x1f%llu", func, off);
        return smap_get(&ix->at, key, &i) ? ix->text[i] : NULL;
}

void pcs_sass_free(struct sass_index *ix)
{
        free_all((void *const *)ix->text, ix->n);
        free(ix->text);
        smap_free(&ix->at);
        memset(ix, 0, sizeof *ix);
}

/* nvdisasm, else cuobjdump, from $CUDA_HOME/bin, PATH or /usr/local/cuda/bin */
static char *cuda_tool(const char *name)
{
        const char *home = getenv("CUDA_HOME"), *path = getenv("PATH");
        char *p;
        if (home && *home) {
                p = xasprintf("%s/bin/%s", home, name);
                if (access(p, X_OK) == 0)
                        return p;
                free(p);
        }
        char *copy = xstrdup(path ? path : ""), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
                p = xasprintf("%s/%s", d, name);
                if (access(p, X_OK) == 0 && is_file(p)) {
                        free(copy);
                        return p;
                }
                free(p);
        }
        free(copy);
        p = xasprintf("/usr/local/cuda/bin/%s", name);
        if (access(p, X_OK) == 0)
                return p;
        free(p);
        return NULL;
}

/* the disassembly of cubin into ix; 0 when a tool gave one */
static int disassemble(const char *cubin, const char *work, struct sass_index *ix)
{
        static const char *const tools[][2] = {{"nvdisasm", "-c"}, {"cuobjdump", "-sass"}};
        for (size_t t = 0; t < 2; t++) {
                char *tool = cuda_tool(tools[t][0]);
                if (!tool)
                        continue;
                char *log = xasprintf("%s/sass.txt", work);
                char *argv[] = {tool, (char *)tools[t][1], (char *)cubin, NULL};
                struct err e = {0};
                int rc = run(argv, NULL, log, 120, tools[t][0], &e);
                char *text = rc ? NULL : read_file(log, NULL, NULL);
                size_t before = ix->n;
                if (text)
                        pcs_sass_parse(ix, text);
                FREE_ALL(text, log, tool);
                if (ix->n > before)
                        return 0;
        }
        return -1;
}

/* period exponent N of 2^N cycles for an interval in cycles (a power of 2), 0: default */
static int period_of(unsigned long interval)
{
        int n = 0;
        while (interval > 1)
                interval >>= 1, n++;
        return n < 5 ? 5 : n > 31 ? 31 : n;
}

/* instruction texts into the lines of ps, from work/pcs.csv.cubin.<id> and the function
 * column of work/pcs.csv (table t, rows aligned with ps's lines) */
static void add_instructions(struct pcsamp *ps, const struct table *t, const char *csv,
                             const char *work)
{
        int cf = table_col(t, "function");
        if (cf < 0 || !t->str[cf])
                return;
        long done[64];
        size_t ndone = 0;
        struct sass_index ix = {0};
        int any = 0, missing = 0;
        for (size_t i = 0; i < ps->nlines && i < t->nrows; i++) {
                struct pcs_line *l = &ps->lines[i];
                if (l->code_object < 0)
                        continue;
                size_t k = 0;
                while (k < ndone && done[k] != l->code_object)
                        k++;
                if (k == ndone && ndone < 64) {
                        done[ndone++] = l->code_object;
                        char *cubin = xasprintf("%s.cubin.%lld", csv, l->code_object);
                        if (is_file(cubin) && disassemble(cubin, work, &ix) == 0)
                                any = 1;
                        else
                                missing = 1;
                        free(cubin);
                }
                const char *s = pcs_sass_at(&ix, t->str[cf][i], l->offset);
                if (s && !l->instruction)
                        l->instruction = xstrdup(s);
        }
        if (missing && !any)
                warnf("no SASS for the PC samples (nvdisasm or cuobjdump not found or failed): "
                      "offsets and source lines only");
        pcs_sass_free(&ix);
}

int cupti_pc_sampling(const struct backend_pcs *p, struct err *err)
{
        char *lib = collector_path();
        if (!lib)
                return err_set(err, ERR_PCS_UNSUPPORTED, "cannot find %s (set PRISM_CUPTI_LIB)",
                               COLLECTOR);
        char *csv = xasprintf("%s/pcs.csv", p->workdir), *log = xasprintf("%s/log.txt", p->workdir);
        char *launches = xasprintf("%s/launches.csv", p->workdir);
        char *errfile = xasprintf("%s.err", csv);
        char *env[8];
        size_t n = 0;
        env[n++] = xasprintf("CUDA_INJECTION64_PATH=%s", lib);
        env[n++] = xasprintf("PRISM_CUPTI_OUT=%s", launches);
        env[n++] = xasprintf("PRISM_CUPTI_PCSAMPLING=%s", csv);
        env[n++] = xstrdup("PRISM_CUPTI_METRICS=");
        if (p->interval)
                env[n++] = xasprintf("PRISM_CUPTI_PC_PERIOD=%d", period_of(p->interval));
        env[n] = NULL;
        struct pcsamp ps = {0};
        struct table t;
        table_init(&t);
        int rc = run(p->argv, env, log, p->timeout_s, "PC sampling run", err);
        if (!rc && !is_file(csv)) {
                /* the collector's own words (CUPTI's error) when it left some */
                char *why = read_file(errfile, NULL, NULL);
                if (why)
                        why[strcspn(why, "\n")] = 0;
                rc = err_set(err, ERR_SYS, "PC sampling run: the collector wrote no samples%s%s",
                             why && *why ? ": " : "", why ? why : "");
                free(why);
        }
        if (!rc)
                rc = pcsamp_read_summary(&ps, csv, err);
        if (!rc)
                rc = table_load_csv(&t, csv, err);
        if (!rc) {
                add_instructions(&ps, &t, csv, p->workdir);
                char *out = xasprintf("%s/pc_sampling_summary.csv", p->outdir);
                rc = pcsamp_write_summary(&ps, out, err);
                free(out);
        }
        table_free(&t);
        pcsamp_free(&ps);
        free_all((void *const *)env, n);
        FREE_ALL(lib, csv, log, launches, errfile);
        return rc;
}
