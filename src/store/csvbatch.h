/* A second thread that splits a CSV reader's lines ahead of it (table.c): the lines of a
 * buffer, one after another, split by csv_split and the kept fields' numbers read, while the
 * reader stores the lines before them. The reader takes a line's result only where it would
 * have split that line itself (between records, the same bytes), so a table reads the same
 * with or without it. */
#ifndef PRISM_CSVBATCH_H
#define PRISM_CSVBATCH_H

#include <stddef.h>
#include <stdint.h>

/* what to split: the complete lines buf[from .. to) (to is just past a '\n'; CSV_PAD
 * readable bytes after it), at most max_lines of them; keep[k] is the field the k-th kept
 * value comes from (nkeep of them), nhead the fields a line must have; text[k]: kept value k
 * is wanted as text (its column holds text): always a slow field */
struct csv_job {
        const char *buf;
        size_t from, to, max_lines;
        const size_t *keep;
        const unsigned char *text;
        size_t nkeep, nhead;
};

/* a line split ahead: start (its first byte) and end (its '\n') are offsets into buf; ok:
 * it has nhead fields and vals holds the kept numbers, except the slow fields (text, empty,
 * a number for strtod): nslow triples (k, offset from the line's start, length) */
struct csv_bline {
        uint32_t start, end;
        int ok;
        double *vals; /* the reader may change them (its line's values are its own) */
        const uint32_t *slow;
        size_t nslow;
};

struct csv_batch;
/* the thread, waiting for jobs; NULL when none could be started */
struct csv_batch *csv_batch_new(void);
void csv_batch_start(struct csv_batch *b, const struct csv_job *job);
/* line j of the job (waiting for it): 1 and *out filled, or 0 when the job ended before it */
int csv_batch_line(struct csv_batch *b, size_t j, struct csv_bline *out);
/* the thread leaves the job (after the line it is on) and waits; the job's buffer is free */
void csv_batch_stop(struct csv_batch *b);
void csv_batch_free(struct csv_batch *b);

#endif
