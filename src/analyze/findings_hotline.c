/* The findings' hot-line citation (issue 35): where a workload has PC samples, each kernel
 * of the findings table gets one more row, pc.hot_line, naming the source line (else the
 * instruction) that holds most of its stalled samples, and why they stalled: "73% of stall
 * samples at kernel.cu:42, long scoreboard". A workload without samples gets no such row,
 * so its findings are unchanged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "findings.h"
#include "hotspots.h"

/* "long_scoreboard" -> "long scoreboard", "WAITCNT" -> "waitcnt" */
static char *reason_words(const char *r)
{
        char *s = xstrdup(r);
        for (char *p = s; *p; p++)
                *p = *p == '_' ? ' ' : (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
        return s;
}

char *findings_hot_line_text(const struct hotspot *h)
{
        const char *src = h->source ? strrchr(h->source, '/') : NULL;
        src = src ? src + 1 : h->source;
        char *where = src ? xstrdup(src)
                          : xasprintf("offset 0x%llx%s%s%s", h->offset, h->instruction ? " (" : "",
                                      h->instruction ? h->instruction : "",
                                      h->instruction ? ")" : "");
        char *out;
        if (h->kstalled > 0 && h->stalled > 0) {
                char *why = h->reason ? reason_words(h->reason) : NULL;
                out = xasprintf("%.0f%% of stall samples at %s%s%s", 100 * h->stalled / h->kstalled,
                                where, why ? ", " : "", why ? why : "");
                free(why);
        } else {
                out = xasprintf("%.0f%% of samples at %s", 100 * h->count / h->kcount, where);
        }
        free(where);
        return out;
}

/* the group of kernel k with the most stalled samples (else the most samples) */
static const struct hotspot *hottest(const struct hotspot *h, size_t n)
{
        const struct hotspot *best = NULL;
        for (size_t i = 0; i < n; i++) {
                double v = h[i].stalled > 0 ? h[i].stalled : 0, b = best && best->stalled > 0 ? best->stalled : 0;
                if (!best || v > b || (v == b && h[i].count > best->count))
                        best = &h[i];
        }
        return best;
}

void findings_hot_line(struct rtable *ft, struct analysis *an, const struct workload *w,
                       const char *kernel)
{
        int rc;
        struct err e = {0};
        const struct pcsamp *ps = analysis_pcsamp(an, w, &rc, &e);
        if (!ps) /* none, or unreadable: panel 21 says why */
                return;
        struct hotspot *h;
        size_t n = hotspots(ps, &kernel, 1, 1, &h);
        const struct hotspot *x = n ? hottest(h, n) : NULL;
        if (x && x->count > 0) {
                char key[32];
                snprintf(key, sizeof key, "%zu", ft->nrows);
                char *rkey = xasprintf("%s#pc.hot_line", kernel);
                struct cell *row = rtable_add_row(ft, key, rkey);
                free(rkey);
                row[0].text = xstrdup(kernel);
                row[1].text = xstrdup("pc.hot_line");
                row[2].text = xstrdup("Hottest source line (PC sampling)");
                row[3].text = xstrdup("info");
                row[5].text = findings_hot_line_text(x);
                row[6].text = xstrdup("21.3");
                row[7].text = xstrdup("prism analyze --tui: the source view (s) shows the line "
                                      "among its neighbours");
        }
        free(h);
}
