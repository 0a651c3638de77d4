/* CSV tables: parse into columns of doubles, keep text where needed. Common lines are split
 * here (csvsplit.c) and their numbers read without strtod where that is exact (numparse.c);
 * libcsv reads the rest (quotes inside fields, fields across lines, damaged bytes), through
 * the loader's callbacks (csvload.c). */
#include "table.h"

#include "bytesrc.h"
#include "csvbatch.h"
#include "csvload.h"
#include "csvsplit.h"
#include "tableio.h"
#include "../util/numparse.h"
#include "../util/task.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A CSV file being read: the parser, the callbacks' state and where reading stopped. */
struct tstream {
        struct csv_parser p;
        int parser_ok;
        struct loader ld;
        void (*field_cb)(void *, size_t, void *);
        int fd, has_fd;
        struct bsrc src; /* the file's bytes, plain or gzip (bytesrc.h) */
        int src_failed;  /* src.msg holds the error */
        size_t got_total; /* bytes read so far */
        char *buf;  /* cap bytes: the file from pos on; off: the first not yet parsed */
        size_t n, off, pos, head_end, cap;
        off_t fsize;
        int eof, drained; /* drained: the file has no more bytes to read */
        size_t row0; /* data rows before the table's first (streaming) */
        struct table t;
        /* the fast path: a line's fields, and the data fields that a projection keeps */
        struct csv_line fl;
        size_t *keep;
        int *kcol;
        size_t nkeep;
        int keep_ready;
        /* the fast path's rows, row by row (stage[j * nkeep + k]: row stage_r0 + j, kept
         * field k) until STAGE of them go to the columns at once: storing a row's cells
         * straight into hundreds of columns misses the cache at every cell */
        double *stage;
        size_t nstage, stage_r0;
        double *srow[64]; /* the staged rows: in stage, or the second thread's (csvbatch) */
        /* the second thread splitting lines ahead (csvbatch.h): bt (NULL: none), whether
         * a job over buf runs (bt_on), the next of its lines this thread takes, which kept
         * values are text for the job, and text_cols when it began */
        struct csv_batch *bt;
        int bt_on, bt_tried;
        size_t bt_next, bt_text_cols;
        unsigned char *ktext;
};

#define STAGE 64

/* bytes read at a time; a line that fits is read without libcsv when it can be */
#define RBUF (1 << 20)
/* with a second thread splitting lines, 4 MiB: its job runs while this thread stores the
 * rows before and writes them on (a job ends with the buffer's lines) */
#define RBUF_BATCH (4 << 20)

int table_csv_libcsv_only;
size_t table_csv_batch_min = 16 << 20;
size_t table_csv_batch_lines = 4096;
size_t table_csv_batch_rows;

/* text: the file's bytes already read (len of them), or NULL to open path */
static int stream_open(struct tstream *s, const char *path, const char *text, size_t len,
                       table_col_fn want, void *want_ctx, csv_row_fn row_fn, void *row_ctx,
                       struct err *err)
{
        memset(s, 0, sizeof *s);
        s->ld = (struct loader){.t = &s->t, .path = path, .line = 1, .header = 1, .err = err,
                                .want = want, .want_ctx = want_ctx, .row_fn = row_fn,
                                .row_ctx = row_ctx};
        s->field_cb = row_fn ? csvload_field_rec : want ? csvload_field_cols : csvload_field;
        table_init(&s->t);
        if (csv_init(&s->p, CSV_APPEND_NULL | CSV_STRICT | CSV_STRICT_FINI) != 0)
                return err_set(err, ERR_SYS, "cannot initialise the CSV parser");
        s->parser_ok = 1;
        if (text) { /* as a file read in one piece: the same buffer, nothing more to read */
                s->fsize = (off_t)len;
                s->cap = len + 1 > 4096 ? len + 1 : 4096;
                s->buf = xmalloc(s->cap + CSV_PAD);
                memcpy(s->buf, text, len);
                memset(s->buf + len, 0, CSV_PAD);
                s->n = s->got_total = len;
                s->drained = 1;
                return 0;
        }
        int fd = open_regular_as(path, "CSV file", &s->fsize, err);
        if (fd < 0)
                return ERR_INPUT;
        s->fd = fd;
        s->has_fd = 1;
        if (bsrc_open(&s->src, fd, path) < 0)
                return err_set(err, ERR_INPUT, "%s", s->src.msg);
        if (bsrc_compressed(&s->src))
                s->fsize = 0; /* its size says nothing of the bytes it gives */
        /* RBUF, or the file's size for a smaller one; csv_split reads up to CSV_PAD bytes
         * past a line (zeros past the bytes read) */
        size_t rbuf = s->fsize > 0 && (size_t)s->fsize >= table_csv_batch_min && !row_fn
                          ? RBUF_BATCH : RBUF;
        s->cap = s->fsize > 0 && (size_t)s->fsize < rbuf ? (size_t)s->fsize + 1 : rbuf;
        if (s->cap < 4096)
                s->cap = 4096;
        s->buf = xmalloc(s->cap + CSV_PAD);
        memset(s->buf, 0, CSV_PAD);
        return 0;
}

/* the staged rows into their columns */
static void stage_flush(struct tstream *s)
{
        struct table *t = &s->t;
        size_t n = s->nstage, nk = s->nkeep, r0 = s->stage_r0;
        double *const *row = s->srow;
        /* eight columns at a time: a row's eight values are one cache line */
        size_t k0 = 0;
        for (; k0 + 8 <= nk; k0 += 8) {
                double *d[8];
                for (int i = 0; i < 8; i++)
                        d[i] = t->num[s->kcol[k0 + i]] + r0;
                for (size_t j = 0; j < n; j++) {
                        const double *x = row[j] + k0;
                        d[0][j] = x[0];
                        d[1][j] = x[1];
                        d[2][j] = x[2];
                        d[3][j] = x[3];
                        d[4][j] = x[4];
                        d[5][j] = x[5];
                        d[6][j] = x[6];
                        d[7][j] = x[7];
                }
        }
        for (; k0 < nk; k0++) {
                double *d = t->num[s->kcol[k0]] + r0;
                for (size_t j = 0; j < n; j++)
                        d[j] = row[j][k0];
        }
        s->stage_r0 += n;
        s->nstage = 0;
}

/* A data record split by csv_split: what csvload_field_cols (a projected load) or csvload_field (a
 * load of every column) and csvload_record do field by field, for the kept fields only. */
static void fast_row(struct tstream *s, char *b)
{
        struct loader *ld = &s->ld;
        struct table *t = &s->t;
        int all = s->field_cb == csvload_field;
        size_t nf = s->fl.n, nhead = all ? t->ncols : ld->nhead;
        ld->row_line = ld->line;
        if (nf != nhead) {
                if (nf > nhead)
                        err_set(ld->err, ERR_INPUT, "%s:%zu: %zu fields, but the header has %zu",
                                ld->path, ld->row_line, nhead + 1, nhead);
                else
                        err_set(ld->err, ERR_INPUT, "%s:%zu: %zu fields, but the header has "
                                "%zu (truncated file?)", ld->path, ld->row_line, nf, nhead);
                ld->failed = 1;
                return;
        }
        if (!s->keep_ready) {
                /* the fields kept and their columns (a load of every column: all) */
                s->keep = xmalloc((nhead + 1) * sizeof *s->keep);
                s->kcol = xmalloc((nhead + 1) * sizeof *s->kcol);
                for (size_t i = 0; i < nhead; i++)
                        if (!all ? ld->map[i] >= 0 : 1) {
                                s->kcol[s->nkeep] = all ? (int)i : ld->map[i];
                                s->keep[s->nkeep++] = i;
                        }
                s->stage = xmalloc((STAGE * s->nkeep + 1) * sizeof *s->stage);
                s->keep_ready = 1;
        }
        table_reserve(t, t->nrows + 1);
        size_t r = t->nrows++;
        t->line[r] = ld->row_line;
        if (s->nstage == 0)
                s->stage_r0 = r;
        double *row = s->stage + s->nstage * s->nkeep;
        const uint32_t *at = s->fl.at, *len = s->fl.len;
        for (size_t k = 0; k < s->nkeep; k++) {
                size_t i = s->keep[k];
                char *f = b + at[i];
                int c = s->kcol[k];
                /* digits, digits and ".0" (how rocprof writes some counters), or the rest */
                size_t l = len[i];
                if ((num_digits8(f, l, &row[k]) ||
                     (l > 2 && f[l - 2] == '.' && f[l - 1] == '0' &&
                      num_digits8(f, l - 2, &row[k])) ||
                     num_fast(f, l, &row[k])) &&
                    !t->str[c])
                        continue;
                /* text, an empty cell, or a number for strtod: csvload_cell stores it; where
                 * the column's first text comes, it reads the column's earlier rows, so
                 * they go first (this row's cells so far stay staged) */
                if (s->nstage && !t->str[c] && l) {
                        stage_flush(s);
                        memmove(s->stage, row, k * sizeof *row);
                        row = s->stage;
                        s->stage_r0 = r;
                }
                f[l] = '\0';
                csvload_cell(ld, c, r, f, l);
                row[k] = t->num[c][r];
        }
        s->srow[s->nstage] = row;
        if (++s->nstage == STAGE)
                stage_flush(s);
        ld->end_line = ld->line;
}

/* The line b ... nl ('\n') without libcsv, when libcsv is between records and the line
 * is one csv_split reads; -1 (nothing done) when libcsv must read it. */
static int fast_line(struct tstream *s, char *b, char *nl)
{
        struct loader *ld = &s->ld;
        if (table_csv_libcsv_only || s->p.pstate != 0 || csv_split(b, nl, &s->fl))
                return -1;
        size_t nf = s->fl.n;
        if (nf == 0)
                return 0; /* a blank line: no record */
        if (!ld->header && (s->field_cb == csvload_field_cols || s->field_cb == csvload_field)) {
                fast_row(s, b);
                return 0;
        }
        /* the header, or a load of every column, or csv_stream: field by field, each
         * NUL-terminated in place as libcsv hands them over */
        for (size_t i = 0; i < nf && !ld->failed; i++) {
                b[s->fl.at[i] + s->fl.len[i]] = '\0';
                s->field_cb(b + s->fl.at[i], s->fl.len[i], ld);
        }
        csvload_record('\n', ld);
        return 0;
}

/* Whether the second thread may split this stream's lines: a data row of a table load (not
 * csv_stream) read, a file of table_csv_batch_min bytes or more, two CPUs */
static int batch_usable(struct tstream *s)
{
        struct loader *ld = &s->ld;
        if (!s->keep_ready || ld->header || ld->row_fn || table_csv_libcsv_only ||
            (size_t)s->fsize < table_csv_batch_min)
                return 0;
        if (!s->bt_tried) {
                s->bt_tried = 1;
                csv_split_level(-1); /* chosen here, before the thread splits lines */
                if (task_workers() > 1)
                        s->bt = csv_batch_new();
                s->ktext = xmalloc(s->nkeep + 1);
        }
        return s->bt != NULL;
}

/* The second thread's split of the line at off, starting a job over the buffer's lines
 * where none runs: 1 and *bl filled, 0 when there is none (this thread splits it). */
static int batch_line(struct tstream *s, size_t off, struct csv_bline *bl)
{
        if (!batch_usable(s))
                return 0;
        for (int fresh = 0; fresh < 2; fresh++) {
                if (!s->bt_on) {
                        if (fresh == 0)
                                continue;
                        const char *last = memrchr(s->buf + off, '\n', s->n - off);
                        if (!last)
                                return 0; /* no whole line left */
                        struct table *t = &s->t;
                        for (size_t k = 0; k < s->nkeep; k++)
                                s->ktext[k] = t->str[s->kcol[k]] != NULL;
                        if (s->nstage)
                                stage_flush(s); /* rows staged in the last job's place */
                        struct csv_job job = {
                            .buf = s->buf, .from = off, .to = (size_t)(last - s->buf) + 1,
                            .max_lines = table_csv_batch_lines, .keep = s->keep,
                            .text = s->ktext, .nkeep = s->nkeep,
                            .nhead = s->field_cb == csvload_field ? t->ncols : s->ld.nhead};
                        csv_batch_start(s->bt, &job);
                        s->bt_on = 1;
                        s->bt_next = 0;
                        s->bt_text_cols = s->ld.text_cols;
                }
                if (csv_batch_line(s->bt, s->bt_next, bl) && bl->start == off) {
                        s->bt_next++;
                        return 1;
                }
                csv_batch_stop(s->bt); /* the job ended (or went astray): a new one here */
                s->bt_on = 0;
        }
        return 0;
}

/* fast_row for a line the second thread split: its numbers as it read them, the slow
 * fields (text, empty, a number for strtod) through csvload_cell, in field order */
static void batch_row(struct tstream *s, char *b, const struct csv_bline *bl)
{
        struct loader *ld = &s->ld;
        struct table *t = &s->t;
        ld->row_line = ld->line;
        table_reserve(t, t->nrows + 1);
        size_t r = t->nrows++;
        t->line[r] = ld->row_line;
        if (s->nstage == 0)
                s->stage_r0 = r;
        double *row = bl->vals; /* staged where it is: kept until the next job */
        for (size_t e = 0; e < bl->nslow; e++) {
                size_t k = bl->slow[3 * e], l = bl->slow[3 * e + 2];
                char *f = b + bl->slow[3 * e + 1];
                int c = s->kcol[k];
                /* as fast_row: a column's first text reads its earlier rows */
                if (s->nstage && !t->str[c] && l) {
                        stage_flush(s);
                        s->stage_r0 = r;
                }
                f[l] = '\0';
                csvload_cell(ld, c, r, f, l);
                row[k] = t->num[c][r];
        }
        s->srow[s->nstage] = row;
        if (++s->nstage == STAGE)
                stage_flush(s);
        ld->end_line = ld->line;
        table_csv_batch_rows++;
}

/* The line b ... nl as fast_line reads it, from the second thread's split where that is
 * what this thread's split would give: between records, as many fields as the header, and
 * no column come to hold text since the job began (its numbers would be wanted as text). */
static int batch_fast_line(struct tstream *s, char *b, char *nl, const struct csv_bline *bl)
{
        if (s->p.pstate != 0 || !bl->ok || s->ld.text_cols != s->bt_text_cols)
                return fast_line(s, b, nl);
        batch_row(s, b, bl);
        return 0;
}

/* Read on until the table holds max_rows rows (at a record's end) or the file ends. */
static int stream_read1(struct tstream *s, size_t max_rows, struct err *err)
{
        struct loader *ld = &s->ld;
        struct table *t = &s->t;
        const char *path = ld->path;
        while (!s->eof && !ld->failed) {
                char *buf = s->buf;
                size_t off = s->off, n = s->n;
                /* the line's end: where the second thread found it, else looked for */
                struct csv_bline bl;
                int split = off < n && batch_line(s, off, &bl);
                char *nl = split    ? buf + bl.end
                           : off < n ? memchr(buf + off, '\n', n - off)
                                     : NULL;
                if (!nl && !s->drained && n - off < s->cap) {
                        /* the line goes on past the bytes read: keep it, read more (the
                         * second thread done with the buffer first) */
                        if (s->bt_on) {
                                csv_batch_stop(s->bt);
                                s->bt_on = 0;
                        }
                        memmove(buf, buf + off, n - off);
                        s->pos += off;
                        s->n = n - off;
                        s->off = 0;
                        size_t want = s->cap - s->n;
                        ssize_t r;
                        r = bsrc_read(&s->src, buf + s->n, want);
                        if (r < 0)
                                s->src_failed = 1;
                        size_t got = r > 0 ? (size_t)r : 0;
                        s->n += got;
                        s->got_total += got;
                        memset(buf + s->n, 0, CSV_PAD);
                        /* the end: nothing more, or fewer bytes than asked that complete
                         * the size fstat gave (a short read for another reason reads on) */
                        s->drained = got == 0 || (got < want && s->fsize > 0 &&
                                                  s->got_total == (size_t)s->fsize);
                        continue;
                }
                if (off >= n) {
                        s->eof = 1;
                        break;
                }
                /* line by line, so that the callbacks know the physical line: records
                 * (a quoted field may hold newlines) and blank lines do not count them */
                size_t seg = nl ? (size_t)(nl - buf) + 1 - off : n - off;
                if (!nl || (split ? batch_fast_line(s, buf + off, nl, &bl)
                                  : fast_line(s, buf + off, nl)) < 0) {
                        if (s->nstage)
                                stage_flush(s); /* libcsv stores into the columns */
                        /* libcsv: a field that goes on past the buffer, the last line
                         * without '\n', and whatever csv_split leaves; 64 KiB at a time,
                         * so that its field buffer grows by what it holds (below) */
                        for (size_t done = 0; done < seg;) {
                                const char *pc = buf + off + done;
                                size_t piece = seg - done < 65536 ? seg - done : 65536;
                                /* a field holding a NUL ends in this piece or a later one */
                                ld->nul_seen = ld->nul_seen || memchr(pc, 0, piece);
                                /* libcsv grows a field's buffer by its block size at a time:
                                 * make that the buffer's size so far, so a long field grows
                                 * geometrically (a fixed 128 bytes copies quadratically) */
                                size_t bsz = csv_get_buffer_size(&s->p);
                                if (bsz > 2 * (size_t)FIELD_MAX) /* the field is over it */
                                        csvload_long_field(ld);
                                if (ld->failed)
                                        break; /* an error, or csv_stream's reader stops */
                                csv_set_blk_size(&s->p, bsz > 128 ? bsz : 128);
                                if (csv_parse(&s->p, pc, piece, s->field_cb, csvload_record, ld) !=
                                    piece)
                                        return err_set(err, ERR_INPUT, "%s:%zu: %s", path,
                                                       ld->line, csvload_problem(&s->p));
                                done += piece;
                        }
                }
                if (nl && ld->line == 1)
                        s->head_end = s->pos + off + seg;
                /* once the first data line is read, size the columns for the rows the
                 * file holds at that length: no copying as 100k-row columns grow
                 * (capacity never touched costs no memory) */
                if (max_rows == (size_t)-1 && !ld->row_fn && nl && ld->line == 2 &&
                    s->pos + off + seg > s->head_end && s->fsize > 0) {
                        size_t est = ((size_t)s->fsize - s->head_end) /
                                         (s->pos + off + seg - s->head_end) + 16;
                        if (est > 1024 && est < ((size_t)1 << 24))
                                table_reserve(t, est);
                }
                if (nl)
                        ld->line++;
                s->off = off + seg;
                if (nl && ld->field == 0 && !ld->failed && t->nrows >= max_rows)
                        return 0; /* a record ended here: the chunk is full (a record that
                                   * failed is no row of it: its error comes now) */
        }
        if (s->src_failed)
                return err_set(err, ERR_INPUT, "%s", s->src.msg);
        if (ld->failed)
                return ld->stopped ? 0 : ERR_INPUT;
        if (s->eof == 1) {
                s->eof = 2;
                if (csv_fini(&s->p, s->field_cb, csvload_record, ld) != 0 && !ld->failed)
                        /* an unterminated quote: name the line where its record started
                         * (the one after the last record when it has no complete field) */
                        return err_set(err, ERR_INPUT, "%s:%zu: %s (truncated file?)", path,
                                       ld->field ? ld->row_line : ld->end_line + 1,
                                       csvload_problem(&s->p));
                if (ld->failed)
                        return ERR_INPUT;
        }
        return 0;
}

static int stream_read(struct tstream *s, size_t max_rows, struct err *err)
{
        int rc = stream_read1(s, max_rows, err);
        if (s->nstage)
                stage_flush(s);
        return rc;
}

static void stream_close(struct tstream *s)
{
        csv_batch_free(s->bt);
        free(s->ktext);
        if (s->has_fd) {
                bsrc_close(&s->src);
                close(s->fd);
        }
        if (s->parser_ok)
                csv_free(&s->p);
        free(s->buf);
        csv_line_free(&s->fl);
        free(s->keep);
        free(s->kcol);
        free(s->stage);
        free(s->ld.map);
        sb_free(&s->ld.text);
        free(s->ld.fields);
        free(s->ld.lens);
        free(s->ld.at);
        smap_free(&s->ld.seen);
}

int table_load_any(struct table *t, const char *path, const struct csv_text *text,
                   table_col_fn want, void *want_ctx, csv_row_fn row_fn, void *row_ctx,
                   struct err *err)
{
        struct tstream s;
        int rc = stream_open(&s, path, text ? text->buf : NULL, text ? text->len : 0, want,
                             want_ctx, row_fn, row_ctx, err);
        if (!rc)
                rc = stream_read(&s, (size_t)-1, err);
        if (!rc && !s.ld.stopped) {
                size_t nhead = want || row_fn ? s.ld.nhead : s.t.ncols;
                if (nhead == 0 || (nhead == 1 && s.ld.blank_head &&
                                   (row_fn ? s.ld.nrec : s.t.nrows) == 0))
                        rc = err_set(err, ERR_INPUT, "'%s' is empty", path);
        }
        stream_close(&s);
        if (rc || row_fn)
                table_free(&s.t);
        *t = s.t;
        return rc;
}

struct tstream *table_stream_open(const char *path, table_col_fn want, void *ctx,
                                  struct err *err)
{
        struct tstream *s = xmalloc(sizeof *s);
        /* the header, and no row yet */
        int rc = stream_open(s, path, NULL, 0, want, ctx, NULL, NULL, err);
        while (!rc && s->ld.header && !s->eof)
                rc = stream_read(s, 0, err);
        if (!rc && (want ? s->ld.nhead : s->t.ncols) == 0)
                rc = err_set(err, ERR_INPUT, "'%s' is empty", path);
        if (rc) {
                table_stream_close(s);
                return NULL;
        }
        return s;
}

const struct table *table_stream_next(struct tstream *s, size_t max_rows, struct err *err)
{
        struct table *t = &s->t;
        /* the previous chunk's rows go; the columns and their capacity stay */
        s->row0 += t->nrows;
        table_clear_rows(t);
        if (stream_read(s, max_rows ? max_rows : 1, err))
                return NULL;
        /* a file of blank lines or a byte order mark: empty, as table_load_csv says */
        size_t nhead = s->ld.want ? s->ld.nhead : t->ncols;
        if (s->eof == 2 && s->row0 + t->nrows == 0 && nhead == 1 && s->ld.blank_head) {
                err_set(err, ERR_INPUT, "'%s' is empty", s->ld.path);
                return NULL;
        }
        return t;
}

size_t table_stream_row0(const struct tstream *s)
{
        return s->row0;
}

const struct table *table_stream_table(const struct tstream *s)
{
        return &s->t;
}

void table_stream_close(struct tstream *s)
{
        if (!s)
                return;
        stream_close(s);
        table_free(&s->t);
        free(s);
}
