/* The profile's progress line (see progress.h). */
#include "progress.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define BAR 20

double progress_now(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_duration(char *buf, size_t len, double s)
{
        if (s < 0)
                s = 0;
        if (s < 60) {
                snprintf(buf, len, "%.1f s", s);
                return;
        }
        long t = (long)(s + 0.5);
        if (t < 3600)
                snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
        else
                snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

void progress_format(char *buf, size_t len, const char *label, size_t done, size_t total,
                     int kernel_replay, double elapsed, long dispatch, const char *kernel,
                     int cols)
{
        char el[32], left[32];
        size_t n = 0;
        if (!len)
                return;
        progress_duration(el, sizeof el, elapsed);
        if (kernel_replay) {
                n = (size_t)snprintf(buf, len, "%skernel replay, %zu pass%s per kernel", label,
                                     total, total == 1 ? "" : "es");
                if (dispatch >= 0 && n < len)
                        n += (size_t)snprintf(buf + n, len - n, ": dispatch %ld", dispatch);
                if (n < len)
                        n += (size_t)snprintf(buf + n, len - n, ", %s", el);
        } else {
                size_t running = done < total ? done + 1 : total;
                int fill = total ? (int)(BAR * done / total) : BAR;
                char bar[BAR + 1];
                memset(bar, '#', (size_t)fill);
                memset(bar + fill, '.', (size_t)(BAR - fill));
                bar[BAR] = 0;
                n = (size_t)snprintf(buf, len, "%spass %zu of %zu [%s] %s", label, running, total,
                                     bar, el);
                if (done > 0 && done < total && n < len) {
                        progress_duration(left, sizeof left,
                                          elapsed / (double)done * (double)(total - done));
                        n += (size_t)snprintf(buf + n, len - n, ", about %s left", left);
                }
        }
        if (kernel && *kernel && n < len)
                n += (size_t)snprintf(buf + n, len - n, ": %s", kernel);
        if (cols > 0 && strlen(buf) > (size_t)cols) {
                buf[cols] = 0;
                if (cols > 3)
                        memcpy(buf + cols - 3, "...", 3);
        }
}

static int term_cols(FILE *f)
{
        struct winsize w;
        if (ioctl(fileno(f), TIOCGWINSZ, &w) == 0 && w.ws_col > 10)
                return w.ws_col - 1;
        const char *c = getenv("COLUMNS");
        int v = c ? atoi(c) : 0;
        return v > 10 ? v - 1 : 79;
}

static void draw(struct progress *p)
{
        if (!p->tty)
                return;
        char line[512];
        progress_format(line, sizeof line, p->label, p->done, p->total, p->kernel_replay,
                        progress_now() - p->t0, p->dispatch, p->what, term_cols(p->tty));
        fprintf(p->tty, "\r%s\033[K", line);
        fflush(p->tty);
        p->drawn = 1;
        p->last = progress_now();
}

void progress_init(struct progress *p, FILE *tty, FILE *log, size_t total, int kernel_replay,
                   const char *label)
{
        memset(p, 0, sizeof *p);
        p->tty = tty;
        p->log = tty ? NULL : log;
        p->total = total;
        p->kernel_replay = kernel_replay;
        p->dispatch = -1;
        p->t0 = p->last = progress_now();
        snprintf(p->label, sizeof p->label, "%s", label ? label : "");
}

void progress_start(struct progress *p, const char *line)
{
        p->what[0] = 0;
        p->dispatch = -1;
        if (p->log && line) {
                fprintf(p->log, "%s%s\n", p->label, line);
                fflush(p->log);
        }
        draw(p);
}

void progress_step(struct progress *p)
{
        if (p->done < p->total)
                p->done++;
        draw(p);
}

void progress_kernel(void *ctx, long dispatch, const char *kernel)
{
        struct progress *p = ctx;
        p->dispatch = dispatch;
        snprintf(p->what, sizeof p->what, "%s", kernel ? kernel : "");
        /* at most ten redraws a second */
        if (p->tty && progress_now() - p->last >= 0.1)
                draw(p);
}

void progress_clear(struct progress *p)
{
        if (p->tty && p->drawn) {
                fputs("\r\033[K", p->tty);
                fflush(p->tty);
                p->drawn = 0;
        }
}

void progress_end(struct progress *p)
{
        progress_clear(p);
}
