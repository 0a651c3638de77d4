/* The profile's progress line: on a terminal, one line on stderr updated in place (pass k
 * of N, a bar, elapsed time, an estimate of the time left from the runs so far, and in
 * kernel replay the kernel being replayed); elsewhere plain lines, one per pass. */
#ifndef PRISM_PROGRESS_H
#define PRISM_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

struct progress {
        FILE *tty;         /* the terminal the line is redrawn on, or NULL */
        FILE *log;         /* plain lines when there is no terminal, or NULL */
        size_t total;      /* passes */
        size_t done;       /* passes finished */
        int kernel_replay; /* one run collects every pass */
        double t0, last;   /* start, last redraw (s, monotonic) */
        char label[96];    /* "rank 1, GPU 0: " or "" */
        char what[160];    /* the kernel being replayed, or "" */
        long dispatch;     /* its dispatch number, -1 none */
        int drawn;         /* a line is on the terminal */
};

/* Seconds on the monotonic clock. */
double progress_now(void);

/* "12.3 s" under a minute, "4:05" under an hour, else "1:02:03". */
void progress_duration(char *buf, size_t len, double s);

/* The line for: done of total passes finished after elapsed seconds, kernel (may be NULL
 * or "") being replayed as dispatch (-1: none), cut to cols characters (0: no limit).
 * Application replay: "pass 3 of 14 [####......] 4.1 s, about 15.2 s left"; kernel
 * replay (total passes in one run): "kernel replay, 14 passes per kernel: dispatch 37,
 * 4.1 s: NAME". */
void progress_format(char *buf, size_t len, const char *label, size_t done, size_t total,
                     int kernel_replay, double elapsed, long dispatch, const char *kernel,
                     int cols);

/* tty: the terminal (NULL when stderr is none), log: where plain lines go (NULL: none). */
void progress_init(struct progress *p, FILE *tty, FILE *log, size_t total, int kernel_replay,
                   const char *label);
/* A pass (or, in kernel replay, the single run) starts; line is the plain-line text. */
void progress_start(struct progress *p, const char *line);
/* A pass finished. */
void progress_step(struct progress *p);
/* Kernel replay: the collector replays dispatch (a backend_progress_fn). */
void progress_kernel(void *p, long dispatch, const char *kernel);
/* A message that must not be drawn over (a warning): clears the line first. */
void progress_clear(struct progress *p);
/* Done: clear the line. */
void progress_end(struct progress *p);

#endif
