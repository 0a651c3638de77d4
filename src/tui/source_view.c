/* The TUI's source view ('s', or Enter on a pc.hot_line finding): a kernel's source file
 * with a bar of PC samples on each line, its share of the kernel's samples and its top stall
 * reason, scrolled to the hottest line; where the file cannot be read (profiled elsewhere,
 * or no line information), the kernel's sampled instructions by offset instead.
 * Drawn by the text view (TM_TEXT). The lines come from tui_source_lines, which reads no
 * terminal: tests call it directly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analyze/build.h"
#include "../analyze/hotspots.h"
#include "tui.h"

#define BAR 20

static void bar(char *out, double v, double max)
{
        int n = max > 0 ? (int)lround(BAR * v / max) : 0;
        if (v > 0 && n == 0)
                n = 1;
        for (int i = 0; i < BAR; i++)
                out[i] = i < n ? '#' : '.';
        out[BAR] = 0;
}

/* the source file: its recorded path, else its name beside the workload or here */
static char *read_source(const char *path, const char *wdir)
{
        char *text = read_file(path, NULL, NULL);
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        for (int i = 0; !text && i < 2; i++) {
                char *p = i == 0 && wdir ? xasprintf("%s/%s", wdir, base) : xstrdup(base);
                text = read_file(p, NULL, NULL);
                free(p);
        }
        return text;
}

static void add(char ***lines, size_t *n, size_t *cap, char *s)
{
        xgrow(lines, cap, *n + 1, sizeof **lines);
        (*lines)[(*n)++] = s;
}

static char *reason_cell(const struct hotspot *h)
{
        if (!h || !h->reason)
                return xstrdup("");
        return xasprintf("%s %.0f%%", h->reason, h->stalled > 0 ? 100 * h->rcount / h->stalled : 0);
}

int tui_source_lines(const struct pcsamp *ps, const char *kernel, const char *wdir,
                     char ***lines, size_t *n, size_t *focus, char **title)
{
        struct hotspot *h;
        size_t nh = hotspots(ps, &kernel, 1, 1, &h), cap = 0;
        *lines = NULL, *n = 0, *focus = 0, *title = NULL;
        if (!nh) {
                free(h);
                return ERR_INPUT;
        }
        size_t plen;
        long hot = h[0].source ? pcsamp_source_line(h[0].source, &plen) : 0;
        char *path = hot ? xstrndup(h[0].source, plen) : NULL;
        char *text = path ? read_source(path, wdir) : NULL;
        char b[BAR + 1];
        if (text) {
                /* the file, each line with the samples of the groups at that line */
                *title = xasprintf("Source: %s  %s  (%.0f samples)", kernel, path, h[0].kcount);
                add(lines, n, &cap, xasprintf("%5s %-*s %6s %-22s  %s", "line", BAR, "samples",
                                              "pct", "top stall reason", "source"));
                long ln = 1;
                for (char *s = text, *e; s && *s; s = e ? e + 1 : NULL, ln++) {
                        e = strchr(s, '\n');
                        if (e)
                                *e = 0;
                        const struct hotspot *x = NULL;
                        for (size_t i = 0; i < nh && !x; i++) {
                                size_t pl;
                                if (h[i].source && pcsamp_source_line(h[i].source, &pl) == ln &&
                                    pl == plen && !strncmp(h[i].source, path, plen))
                                        x = &h[i];
                        }
                        char *why = reason_cell(x);
                        bar(b, x ? x->count : 0, h[0].count);
                        char pct[16] = "";
                        if (x)
                                snprintf(pct, sizeof pct, "%5.1f%%", 100 * x->count / x->kcount);
                        add(lines, n, &cap, xasprintf("%5ld %s %6s %-22s  %s", ln, b, pct, why, s));
                        free(why);
                        if (ln == hot)
                                *focus = *n - 1;
                }
        } else {
                /* the sampled instructions by offset */
                struct hotspot *ins;
                size_t ni = hotspots(ps, &kernel, 1, 0, &ins);
                *title = xasprintf("Instructions: %s  (%.0f samples; %s)", kernel, h[0].kcount,
                                   path ? "source file not found" : "no line information");
                add(lines, n, &cap, xasprintf("%8s %-*s %6s %-22s  %-40s %s", "offset", BAR,
                                              "samples", "pct", "top stall reason",
                                              "instruction", "source"));
                /* by offset: a selection sort on the few hundred sampled offsets */
                for (size_t i = 0; i < ni; i++)
                        for (size_t j = i + 1; j < ni; j++)
                                if (ins[j].offset < ins[i].offset) {
                                        struct hotspot t = ins[i];
                                        ins[i] = ins[j], ins[j] = t;
                                }
                double max = 0;
                for (size_t i = 0; i < ni; i++)
                        max = ins[i].count > max ? ins[i].count : max;
                for (size_t i = 0; i < ni; i++) {
                        char *why = reason_cell(&ins[i]), *src = hotspot_short_source(ins[i].source);
                        bar(b, ins[i].count, max);
                        add(lines, n, &cap,
                            xasprintf("%8llx %s %5.1f%% %-22s  %-40s %s", ins[i].offset, b,
                                      100 * ins[i].count / ins[i].kcount, why,
                                      ins[i].instruction ? ins[i].instruction : "", src));
                        if (ins[i].count == max && !*focus)
                                *focus = *n - 1;
                        FREE_ALL(why, src);
                }
                free(ins);
        }
        FREE_ALL(text, path, h);
        return 0;
}

int tui_source_open(struct tui_model *m, const char *kernel)
{
        int rc;
        struct err err = {0};
        const struct pcsamp *ps = analysis_pcsamp(&m->an[0], m->in.w[0], &rc, &err);
        if (!ps) {
                snprintf(m->msg, sizeof m->msg, "%.200s",
                         rc ? err.msg : "no PC samples in this workload (profile with PC sampling)");
                m->msg_err = 1;
                return ERR_INPUT;
        }
        /* the kernel asked for, else the first selected kernel with samples, else the one
         * with the most samples */
        struct hotspot *h = NULL;
        if (!kernel) {
                for (size_t k = 0; k < m->nkernels && !kernel; k++) {
                        if (!m->ksel[k])
                                continue;
                        size_t nh = hotspots(ps, (const char *const *)&m->kernels[k], 1, 1, &h);
                        if (nh)
                                kernel = m->kernels[k];
                        free(h);
                }
                if (!kernel && hotspots(ps, NULL, 0, 1, &h))
                        kernel = h[0].kernel;
        }
        char **lines, *title;
        size_t n, focus;
        const char *wdir = m->in.w[0]->path;
        rc = kernel ? tui_source_lines(ps, kernel, wdir, &lines, &n, &focus, &title) : ERR_INPUT;
        free(h);
        if (rc) {
                snprintf(m->msg, sizeof m->msg, "no PC samples for this kernel");
                m->msg_err = 1;
                return rc;
        }
        for (size_t i = 0; i < m->ntext; i++)
                free(m->text[i]);
        free(m->text);
        free(m->text_title);
        m->text = lines;
        m->ntext = n;
        m->text_title = title;
        m->mode = TM_TEXT;
        m->text_hoff = 0;
        m->text_voff = focus > 5 ? focus - 5 : 0;
        return 0;
}
