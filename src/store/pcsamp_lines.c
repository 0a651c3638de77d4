/* PC samples: building the lines and reasons of a struct pcsamp (pcsamp.h), shared by its
 * readers (pcsamp.c, pcsamp_sdk.c) and the NVIDIA profile side. */
#include "pcsamp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t pcsamp_reason(struct pcsamp *ps, const char *name)
{
        int v;
        if (smap_get(&ps->reason_idx, name, &v))
                return (size_t)v;
        xgrow(&ps->reasons, &ps->capreasons, ps->nreasons + 1, sizeof *ps->reasons);
        ps->reasons[ps->nreasons] = xstrdup(name);
        smap_put(&ps->reason_idx, name, (int)ps->nreasons);
        return ps->nreasons++;
}

struct pcs_line *pcsamp_add(struct pcsamp *ps, const char *kernel, const char *instruction,
                            const char *source)
{
        xgrow(&ps->lines, &ps->cap, ps->nlines + 1, sizeof *ps->lines);
        struct pcs_line *l = &ps->lines[ps->nlines++];
        memset(l, 0, sizeof *l);
        l->kernel = kernel ? xstrdup(kernel) : NULL;
        l->instruction = instruction ? xstrdup(instruction) : NULL;
        l->source = source && *source ? xstrdup(source) : NULL;
        l->pid = l->code_object = -1;
        l->issued = l->stalled = NAN;
        return l;
}

void pcsamp_line_add_reason(struct pcs_line *l, size_t r, double n)
{
        for (size_t i = 0; i < l->nreason; i++)
                if (l->reason[i] == r) {
                        l->rcount[i] += n;
                        return;
                }
        l->reason = xrealloc(l->reason, (l->nreason + 1) * sizeof *l->reason);
        l->rcount = xrealloc(l->rcount, (l->nreason + 1) * sizeof *l->rcount);
        l->reason[l->nreason] = r;
        l->rcount[l->nreason++] = n;
}

void pcsamp_sort_reasons(struct pcs_line *l)
{
        for (size_t i = 1; i < l->nreason; i++) /* insertion sort: a few reasons a line */
                for (size_t j = i; j > 0 && l->rcount[j] > l->rcount[j - 1]; j--) {
                        double c = l->rcount[j];
                        size_t r = l->reason[j];
                        l->rcount[j] = l->rcount[j - 1], l->reason[j] = l->reason[j - 1];
                        l->rcount[j - 1] = c, l->reason[j - 1] = r;
                }
}

long pcsamp_source_line(const char *source, size_t *pathlen)
{
        size_t n = source ? strlen(source) : 0, i = n;
        while (i > 0 && source[i - 1] >= '0' && source[i - 1] <= '9')
                i--;
        if (i == n || i == 0 || source[i - 1] != ':' || n - i > 9) {
                if (pathlen)
                        *pathlen = n;
                return 0;
        }
        if (pathlen)
                *pathlen = i - 1;
        return strtol(source + i, NULL, 10);
}

void pcsamp_free(struct pcsamp *ps)
{
        for (size_t i = 0; i < ps->nlines; i++) {
                struct pcs_line *l = &ps->lines[i];
                FREE_ALL(l->kernel, l->instruction, l->source, l->reason, l->rcount);
        }
        free(ps->lines);
        free_all((void *const *)ps->reasons, ps->nreasons);
        free(ps->reasons);
        smap_free(&ps->reason_idx);
        FREE_ALL(ps->method, ps->file);
        memset(ps, 0, sizeof *ps);
}

