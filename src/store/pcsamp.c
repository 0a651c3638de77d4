/* PC samples of a workload: which file holds them, and the summary CSV (read and written).
 * The rocprofiler-sdk JSON is pcsamp_sdk.c, the lines both build pcsamp_lines.c. */
#include "pcsamp.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/arena.h"
#include "../util/csvfield.h"
#include "../util/json.h"
#include "table.h"

/* ---- pc_sampling_summary.csv ---- */

enum { C_PID, C_CO, C_KERNEL, C_OFFSET, C_INSTR, C_SOURCE, C_COUNT, C_ISSUE, C_STALL,
       C_REASON, NCOLS };
static const char *const col_names[NCOLS] = {
    "pid", "code_object_id", "kernel_name", "offset", "instruction", "source",
    "count", "issue_count", "stall_count", "stall_reason"};

struct sum_ctx {
        struct pcsamp *ps;
        const char *path;
        int col[NCOLS]; /* field index of each column, -1 absent */
        int any_issue;
};

/* An integer cell: decimal, or hexadecimal with 0x (rocprof-compute's offsets). */
static int cell_uint(const char *s, size_t len, unsigned long long *out)
{
        char buf[32], *end;
        if (!len || len >= sizeof buf || *s == '-' || *s == '+' || *s == ' ')
                return -1;
        memcpy(buf, s, len);
        buf[len] = 0;
        *out = strtoull(buf, &end, buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X') ? 16 : 10);
        return *end ? -1 : 0;
}

static int cell_num(const char *s, size_t len, double *out)
{
        char buf[64];
        if (len >= sizeof buf)
                return -1;
        memcpy(buf, s, len);
        buf[len] = 0;
        return parse_double(buf, out) || !(*out >= 0) ? -1 : 0;
}

/* stall_reason: a JSON object of reason -> samples ({"WAITCNT": 3}), or empty */
static int parse_reasons(struct sum_ctx *c, struct pcs_line *l, const char *s, size_t len,
                         size_t line, struct err *err)
{
        struct arena a = ARENA_INIT;
        int rc = 0;
        char *where = xasprintf("%s:%zu: stall_reason", c->path, line);
        const struct json *o = json_parse(&a, s, len, where, err);
        if (!o)
                rc = ERR_INPUT;
        else if (o->type != JSON_OBJ)
                rc = err_set(err, ERR_INPUT, "%s: not a JSON object of reason counts", where);
        for (size_t i = 0; !rc && i < o->n; i++) {
                const struct json *v = o->items[i];
                if (v->type != JSON_NUM || !(v->num >= 0))
                        rc = err_set(err, ERR_INPUT, "%s: '%s' is not a sample count", where,
                                     o->keys[i]);
                else
                        pcsamp_line_add_reason(l, pcsamp_reason(c->ps, o->keys[i]), v->num);
        }
        free(where);
        arena_free(&a);
        return rc;
}

#define FIELD(k) (c->col[k] >= 0 ? f[c->col[k]] : "")
#define FLEN(k) (c->col[k] >= 0 ? lens[c->col[k]] : 0)

static int sum_row(void *ctx, char **f, const size_t *lens, size_t n, size_t line,
                   struct err *err)
{
        struct sum_ctx *c = ctx;
        if (line == 0) {
                for (int k = 0; k < NCOLS; k++) {
                        c->col[k] = -1;
                        for (size_t i = 0; i < n; i++)
                                if (!strcmp(f[i], col_names[k]))
                                        c->col[k] = (int)i;
                }
                static const int need[] = {C_KERNEL, C_OFFSET, C_COUNT};
                for (size_t i = 0; i < sizeof need / sizeof *need; i++)
                        if (c->col[need[i]] < 0)
                                return err_set(err, ERR_INPUT,
                                               "%s: not a PC-sampling summary: no '%s' column",
                                               c->path, col_names[need[i]]);
                return 0;
        }
        unsigned long long off, u;
        double cnt;
        if (cell_uint(FIELD(C_OFFSET), FLEN(C_OFFSET), &off))
                return err_set(err, ERR_INPUT, "%s:%zu: offset '%s' is not an instruction offset",
                               c->path, line, FIELD(C_OFFSET));
        if (cell_num(FIELD(C_COUNT), FLEN(C_COUNT), &cnt))
                return err_set(err, ERR_INPUT, "%s:%zu: count '%s' is not a sample count",
                               c->path, line, FIELD(C_COUNT));
        struct pcs_line *l = pcsamp_add(c->ps, FLEN(C_KERNEL) ? FIELD(C_KERNEL) : NULL,
                                        FLEN(C_INSTR) ? FIELD(C_INSTR) : NULL,
                                        FIELD(C_SOURCE));
        l->offset = off;
        l->has_offset = 1;
        l->count = cnt;
        if (FLEN(C_PID)) {
                if (cell_uint(FIELD(C_PID), FLEN(C_PID), &u))
                        return err_set(err, ERR_INPUT, "%s:%zu: pid '%s' is not a process id",
                                       c->path, line, FIELD(C_PID));
                l->pid = (long long)u;
        }
        if (FLEN(C_CO)) {
                if (cell_uint(FIELD(C_CO), FLEN(C_CO), &u))
                        return err_set(err, ERR_INPUT,
                                       "%s:%zu: code_object_id '%s' is not an id", c->path,
                                       line, FIELD(C_CO));
                l->code_object = (long long)u;
        }
        static const int counts[] = {C_ISSUE, C_STALL};
        for (size_t i = 0; i < 2; i++) {
                int k = counts[i];
                double v;
                if (!FLEN(k))
                        continue;
                if (cell_num(FIELD(k), FLEN(k), &v) || v > cnt)
                        return err_set(err, ERR_INPUT, "%s:%zu: %s '%s' is not a count of the "
                                       "line's samples", c->path, line, col_names[k], FIELD(k));
                *(k == C_ISSUE ? &l->issued : &l->stalled) = v;
                c->any_issue = 1;
        }
        if (FLEN(C_REASON)) {
                int rc = parse_reasons(c, l, FIELD(C_REASON), FLEN(C_REASON), line, err);
                if (rc)
                        return rc;
                pcsamp_sort_reasons(l);
        }
        return 0;
}

int pcsamp_read_summary(struct pcsamp *ps, const char *path, struct err *err)
{
        struct sum_ctx c = {.ps = ps, .path = path};
        int rc = csv_stream(path, sum_row, &c, err);
        if (rc)
                return rc;
        if (!ps->method)
                ps->method = xstrdup(c.any_issue ? "stochastic" : "host_trap");
        if (!ps->file)
                ps->file = xstrdup(path);
        return 0;
}

int pcsamp_write_summary(const struct pcsamp *ps, const char *path, struct err *err)
{
        FILE *f = fopen(path, "w");
        if (!f)
                return err_set(err, ERR_SYS, "cannot write '%s': %s", path, strerror(errno));
        for (int k = 0; k < NCOLS; k++)
                fprintf(f, "%s%s", k ? "," : "", col_names[k]);
        fputc('\n', f);
        struct strbuf sb = {0};
        for (size_t i = 0; i < ps->nlines; i++) {
                const struct pcs_line *l = &ps->lines[i];
                if (l->pid >= 0)
                        fprintf(f, "%lld", l->pid);
                fputc(',', f);
                if (l->code_object >= 0)
                        fprintf(f, "%lld", l->code_object);
                fputc(',', f);
                csv_put_field(f, l->kernel ? l->kernel : "", 0);
                fprintf(f, ",%llu,", l->offset);
                csv_put_field(f, l->instruction ? l->instruction : "", 0);
                fputc(',', f);
                csv_put_field(f, l->source ? l->source : "", 0);
                fprintf(f, ",%.17g,", l->count);
                if (!isnan(l->issued))
                        fprintf(f, "%.17g", l->issued);
                fputc(',', f);
                if (!isnan(l->stalled))
                        fprintf(f, "%.17g", l->stalled);
                fputc(',', f);
                sb_reset(&sb);
                for (size_t r = 0; r < l->nreason; r++) {
                        sb_addc(&sb, r ? ',' : '{');
                        sb_addc(&sb, '"');
                        for (const char *q = ps->reasons[l->reason[r]]; *q; q++) {
                                if (*q == '"' || *q == '\\')
                                        sb_addc(&sb, '\\');
                                if ((unsigned char)*q >= 0x20)
                                        sb_addc(&sb, *q);
                        }
                        sb_addf(&sb, "\":%.17g", l->rcount[r]);
                }
                if (l->nreason)
                        sb_addc(&sb, '}');
                csv_put_field(f, sb.buf ? sb.buf : "", 0);
                fputc('\n', f);
        }
        sb_free(&sb);
        if (ferror(f) | fclose(f))
                return err_set(err, ERR_SYS, "cannot write '%s'", path);
        return 0;
}

/* ---- which files ---- */

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "<pid>_ps_file_results.json": the pid, else -1 (not such a name) */
static long long per_process_pid(const char *name)
{
        static const char tail[] = "_ps_file_results.json";
        size_t n = strlen(name), t = sizeof tail - 1, i = 0;
        if (n <= t || strcmp(name + n - t, tail))
                return -1;
        while (i < n - t && name[i] >= '0' && name[i] <= '9')
                i++;
        return i == n - t && i < 19 ? strtoll(name, NULL, 10) : -2;
}

int pcsamp_load(const char *dir, struct pcsamp *ps, struct err *err)
{
        memset(ps, 0, sizeof *ps);
        char *p = xasprintf("%s/pc_sampling_summary.csv", dir);
        int rc = 0;
        if (is_file(p)) {
                rc = pcsamp_read_summary(ps, p, err);
                free(p);
                return rc;
        }
        free(p);
        /* rocprof-compute 3.9+: one results file per process, named by its pid */
        DIR *d = opendir(dir);
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *e;
        while (d && (e = readdir(d)))
                if (per_process_pid(e->d_name) != -1) {
                        xgrow(&names, &cap, n + 1, sizeof *names);
                        names[n++] = xstrdup(e->d_name);
                }
        if (d)
                closedir(d);
        if (n > 1)
                qsort(names, n, sizeof *names, cmp_str);
        for (size_t i = 0; !rc && i < n; i++) {
                p = xasprintf("%s/%s", dir, names[i]);
                long long pid = per_process_pid(names[i]);
                rc = pcsamp_read_sdk_json(ps, p, pid < 0 ? -1 : pid, err);
                free(p);
        }
        free_all((void *const *)names, n);
        free(names);
        if (rc || n)
                return rc;
        /* rocprof-compute 3.3-3.8: one ps_file_results.json */
        p = xasprintf("%s/ps_file_results.json", dir);
        if (is_file(p))
                rc = pcsamp_read_sdk_json(ps, p, -1, err);
        free(p);
        return rc;
}
