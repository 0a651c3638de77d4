/* A driver of backend_cupti alone, for tests/gpu/run-cupti-check.sh on a machine with an
 * NVIDIA GPU (it links src/profile/backend/nvidia/cupti.c, table.c and util.c only).
 *   t-backend-cupti available
 *   t-backend-cupti detect                      sysinfo row as CSV on stdout
 *   t-backend-cupti passes CHIP M1,M2,...       hardware passes for the set
 *   t-backend-cupti run WORKDIR M1,M2,... [-t SECONDS] [-k KERNEL] [-d ID] [-i PASS]
 *                   [-o FILE] -- CMD ARGS...       the rows as CSV to FILE (default stdout)
 * Exit status 0 on success, 1 with "error: MESSAGE" on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/backend.h"

static FILE *out;

static void print_table(const struct table *t)
{
        char buf[64];
        FILE *o = out ? out : stdout;
        for (size_t c = 0; c < t->ncols; c++)
                fprintf(o, "%s%s", c ? "," : "", t->names[c]);
        fprintf(o, "\n");
        for (size_t r = 0; r < t->nrows; r++) {
                for (size_t c = 0; c < t->ncols; c++) {
                        const char *s = table_cell(t, (int)c, r, buf, sizeof buf);
                        fputs(c ? "," : "", o);
                        if (strpbrk(s, ",\"")) {
                                fputc('"', o);
                                for (; *s; s++) {
                                        if (*s == '"')
                                                fputc('"', o);
                                        fputc(*s, o);
                                }
                                fputc('"', o);
                        } else {
                                fputs(s, o);
                        }
                }
                fputc('\n', o);
        }
}

/* Split "a,b,c" in place into a NULL-terminated array. */
static const char **split(char *s, size_t *n)
{
        const char **v = xcalloc(strlen(s) + 2, sizeof *v);
        *n = 0;
        for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ","))
                v[(*n)++] = tok;
        return v;
}

int main(int argc, char **argv)
{
        struct err err = {0};
        struct table t;
        const struct backend *b = &backend_cupti;
        int rc = 1;

        table_init(&t);
        if (argc >= 2 && strcmp(argv[1], "available") == 0) {
                printf("%d\n", b->available());
                return 0;
        }
        if (argc >= 2 && strcmp(argv[1], "detect") == 0) {
                if (b->detect(&t, &err) == 0) {
                        print_table(&t);
                        rc = 0;
                }
        } else if (argc == 4 && strcmp(argv[1], "passes") == 0) {
                size_t n;
                const char **m = split(argv[3], &n);
                int p = b->num_passes(argv[2], m, n, &err);
                if (p >= 0) {
                        printf("%d\n", p);
                        rc = 0;
                }
                free(m);
        } else if (argc >= 6 && strcmp(argv[1], "run") == 0) {
                struct backend_pass p = {0};
                const char *kernels[8];
                long ids[64];
                int i = 4;
                p.workdir = argv[2];
                p.counters = split(argv[3], &p.ncounters);
                p.kernels = kernels;
                p.dispatches = ids;
                for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
                        if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
                                p.timeout_s = atoi(argv[++i]);
                        else if (strcmp(argv[i], "-k") == 0 && i + 1 < argc && p.nkernels < 8)
                                kernels[p.nkernels++] = argv[++i];
                        else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc && p.ndispatches < 64)
                                ids[p.ndispatches++] = atol(argv[++i]);
                        else if (strcmp(argv[i], "-i") == 0 && i + 1 < argc)
                                p.index = atoi(argv[++i]);
                        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc &&
                                 !(out = fopen(argv[++i], "w"))) {
                                perror(argv[i]);
                                return 1;
                        }
                }
                if (i + 1 >= argc) {
                        fprintf(stderr, "error: no command after --\n");
                        return 1;
                }
                p.argv = argv + i + 1;
                if (b->run_pass(&p, &t, &err) == 0) {
                        print_table(&t);
                        rc = 0;
                }
                free((void *)p.counters);
        } else {
                fprintf(stderr,
                        "usage: t-backend-cupti available|detect|passes CHIP M,..|"
                        "run DIR M,.. [-t S] [-k K] [-d ID] [-i PASS] [-o FILE] -- CMD...\n");
                return 2;
        }
        if (rc)
                fprintf(stderr, "error: %s\n", err.msg);
        table_free(&t);
        if (out)
                fclose(out);
        return rc;
}
