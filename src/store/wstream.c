/* Streamed workloads: per-dispatch tables read once, chunk by chunk, into a temporary file
 * of column blocks (wstream.h). */
#include "wstream.h"
#include "cellcheck.h"

#include "columns.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct spill_table {
        int used;
        struct table head; /* the columns, no rows */
        size_t nrows;
        long long *off;    /* per block and column (ncols + 1 of them, the last the rows'
                            * lines): where its values are */
        unsigned char *kind; /* the same: how they are stored (enum vcode_kind) */
        size_t *n;         /* per block: its rows */
        size_t nblk, cap, capoff;
        FILE *f;           /* the temporary file holding them (the spill's own, or one
                            * spill_adopt brought) */
};

/* A column of a block is coded by vcode.h: doubles, or, where every value is a whole
 * number from 0 to 2^32 - 1 (most counter values), 1, 2 or 4 bytes each: less to write and
 * read back, and the same doubles when read. A block whose values are all the same (bit
 * for bit: a counter of a unit the kernels leave idle stays 0) is that value alone, kept
 * in its offset's place: nothing written, nothing read back. */

struct wspill {
        FILE *f;
        struct spill_table *t;
        size_t nt;
        FILE **adopted;      /* the files of tables spill_adopt brought */
        size_t nadopted;
        struct vappend out;  /* coded columns appended to f */
        struct vcoder vc;    /* spill_put's */
};

#define WBUF (1 << 20)


/* a free place ti in s (grown to hold it) */
static struct spill_table *place(struct wspill *s, size_t ti)
{
        if (ti >= s->nt) {
                s->t = xrealloc(s->t, (ti + 1) * sizeof *s->t);
                memset(s->t + s->nt, 0, (ti + 1 - s->nt) * sizeof *s->t);
                s->nt = ti + 1;
        }
        return &s->t[ti];
}

/* v (n values) appended to the spill as the narrowest kind that holds them exactly (vcode.h);
 * *off and *kind say where and how. */
static int spill_put(struct wspill *s, const double *v, size_t n, long long *off,
                     unsigned char *kind)
{
        uint64_t one;
        /* (doubles for a block over the write buffer: never at SPILL_CHUNK rows) */
        enum vcode_kind k = vcode_kind(&s->vc, v, n, n * sizeof *v <= WBUF, &one);
        *kind = (unsigned char)k;
        if (k == VC_ONE) {
                memcpy(off, &one, sizeof *off);
                return 0;
        }
        return vappend_block(&s->out, &s->vc, k, v, n, off);
}

static void head_of(struct table *h, const struct table *t)
{
        table_init(h);
        for (size_t c = 0; c < t->ncols; c++)
                table_add_col(h, t->names[c]);
}

/* the rows of chunk t into resident: their lines (keep_lines), then each column it keeps
 * (keep_col: column c of t into column rc of resident, from row r0 on) */
static void keep_lines(struct table *res, const struct table *t)
{
        size_t r0 = res->nrows, n = t->nrows;
        table_reserve(res, r0 + n); /* text slots past nrows are NULL */
        for (size_t r = 0; r < n; r++)
                res->line[r0 + r] = t->line ? t->line[r] : 0;
        res->nrows = r0 + n;
}

static void keep_col(struct table *res, size_t r0, int rc, const struct table *t, size_t c)
{
        size_t n = t->nrows;
        memcpy(res->num[rc] + r0, t->num[c], n * sizeof *t->num[c]);
        for (size_t r = 0; t->str[c] && r < n; r++)
                if (t->str[c][r])
                        table_set_str(res, rc, r0 + r, t->str[c][r]);
}

static const struct table *csv_next(void *ctx, size_t max_rows, struct err *err)
{
        return table_stream_next(ctx, max_rows, err);
}

static size_t csv_row0(void *ctx)
{
        return table_stream_row0(ctx);
}

int spill_load(struct wspill **sp, size_t ti, const char *path, table_col_fn keep,
               void *keep_ctx, table_col_fn want, void *want_ctx, struct table *resident,
               struct err *err)
{
        struct tstream *ts = table_stream_open(path, want, want_ctx, err);
        if (!ts) {
                table_init(resident);
                return ERR_INPUT;
        }
        struct spill_src src = {table_stream_table(ts), csv_next, csv_row0, ts, 0};
        int rc = spill_load_src(sp, ti, path, &src, keep, keep_ctx, resident, err);
        table_stream_close(ts);
        return rc;
}

int spill_load_src(struct wspill **sp, size_t ti, const char *path, struct spill_src *src,
                   table_col_fn keep, void *keep_ctx, struct table *resident, struct err *err)
{
        table_init(resident);
        table_pool(resident); /* a kernel name once, not once per dispatch */
        if (!*sp)
                *sp = xcalloc(1, sizeof **sp);
        struct wspill *s = *sp;
        if (!s->f && !(s->f = tmp_file()))
                return err_set(err, ERR_SYS, "cannot create a temporary file for '%s'", path);
        s->out.f = s->f;
        s->out.cap = WBUF;
        struct spill_table *st = place(s, ti);
        if (st->used) { /* a table that failed to load before takes this place again */
                table_free(&st->head);
                free(st->off);
                free(st->kind);
                free(st->n);
        }
        memset(st, 0, sizeof *st);
        st->used = 1;
        st->f = s->f;
        const struct table *h = src->head;
        head_of(&st->head, h);
        /* the resident columns, in file order */
        int *map = xcalloc(h->ncols + 1, sizeof *map);
        for (size_t c = 0; c < h->ncols; c++)
                map[c] = keep && keep(keep_ctx, h->names[c]) ? table_add_col(resident, h->names[c])
                                                             : -1;
        struct cellcheck *cc = src->checked ? NULL : cellcheck_new();
        int rc = 0;
        const struct table *t;
        while ((t = src->next(src->ctx, SPILL_CHUNK, err)) && t->nrows) {
                size_t row0 = src->row0(src->ctx);
                /* checked as a loaded table is (the chunk is the source's own), each
                 * column just before it is kept and written on (one pass from memory) */
                if (cc)
                        cellcheck_begin(cc, (struct table *)t, path, row0);
                size_t r0 = resident->nrows;
                if (keep)
                        keep_lines(resident, t);
                size_t nc = t->ncols + 1;
                xgrow(&st->n, &st->cap, st->nblk + 1, sizeof *st->n);
                xgrow(&st->off, &st->capoff, (st->nblk + 1) * nc, sizeof *st->off);
                st->kind = xrealloc(st->kind, st->capoff);
                st->n[st->nblk] = t->nrows;
                long long *off = st->off + st->nblk * nc;
                unsigned char *kind = st->kind + st->nblk * nc;
                st->nblk++;
                st->nrows += t->nrows;
                for (size_t c = 0; c < t->ncols && !rc; c++) {
                        if (cc)
                                cellcheck_col(cc, (struct table *)t, c, path, row0);
                        if (keep && map[c] >= 0)
                                keep_col(resident, r0, map[c], t, c);
                        if (spill_put(s, t->num[c], t->nrows, &off[c], &kind[c]))
                                rc = err_set(err, ERR_SYS,
                                             "cannot write a temporary file for '%s'", path);
                }
                /* and the rows' lines, for messages about them */
                double *ln = xmalloc((t->nrows ? t->nrows : 1) * sizeof *ln);
                for (size_t r = 0; r < t->nrows; r++)
                        ln[r] = t->line ? (double)t->line[r] : (double)(row0 + r + 2);
                if (!rc && spill_put(s, ln, t->nrows, &off[t->ncols], &kind[t->ncols]))
                        rc = err_set(err, ERR_SYS, "cannot write a temporary file for '%s'",
                                     path);
                free(ln);
                if (rc)
                        break;
        }
        if (!t && !rc)
                rc = ERR_INPUT; /* the stream's error */
        if (!rc && vappend_flush(&s->out))
                rc = err_set(err, ERR_SYS, "cannot write a temporary file for '%s'", path);
        vappend_free(&s->out); /* (the buffer made again by a table loaded next) */
        free(map);
        if (!rc && !cc) {
                /* values checked before (a database): the rows' count only */
                if (!keep)
                        resident->nrows = st->nrows;
        } else if (!rc && keep) {
                resident->dup = h->dup ? xstrdup(h->dup) : NULL;
                cellcheck_report(cc, resident, h->dup, path);
        } else if (!rc) {
                /* no rows kept: the rows' count, and for the check of repeated ids the
                 * Dispatch_ID column and the lines read back for a moment, unless the ids
                 * rise row by row (as recorded: none repeats; 16 MB not made at 1M rows) */
                resident->nrows = st->nrows;
                struct table ids;
                table_init(&ids);
                int cid = table_col(h, COL_DISPATCH_ID);
                if (cid >= 0) {
                        struct cellcheck_rise rise = {0, 0, 1};
                        double *v = xmalloc(SPILL_CHUNK * sizeof *v);
                        for (size_t k = 0; k < st->nblk && rise.rising; k++) {
                                size_t n = 0;
                                if (!spill_read(s, ti, k, cid, v, &n) && n <= SPILL_CHUNK)
                                        cellcheck_rise(&rise, v, n);
                                else
                                        rise.rising = 0; /* (read whole below) */
                        }
                        free(v);
                        if (rise.rising)
                                cid = -1;
                }
                if (cid >= 0) {
                        int c = table_add_col(&ids, COL_DISPATCH_ID);
                        for (size_t k = 0; k < st->nblk; k++) {
                                size_t n = 0;
                                double *v = xmalloc(SPILL_CHUNK * 2 * sizeof *v);
                                if (spill_read(s, ti, k, cid, v, &n) ||
                                    spill_read(s, ti, k, (int)h->ncols, v + SPILL_CHUNK, &n))
                                        n = 0;
                                for (size_t r = 0; r < n; r++) {
                                        size_t rr = table_add_row(&ids);
                                        ids.num[c][rr] = v[r];
                                        ids.line[rr] = (size_t)v[SPILL_CHUNK + r];
                                }
                                free(v);
                        }
                }
                cellcheck_report(cc, &ids, h->dup, path);
                table_free(&ids);
        } else {
                if (cc)
                        cellcheck_discard(cc);
                table_free(resident);
        }
        return rc;
}

void spill_adopt(struct wspill **dst, size_t dti, struct wspill *src, size_t sti)
{
        if (!*dst)
                *dst = xcalloc(1, sizeof **dst);
        struct wspill *d = *dst;
        struct spill_table *from = &src->t[sti], *to = place(d, dti);
        if (to->used) { /* a table that failed to load gives its place */
                table_free(&to->head);
                free(to->off);
                free(to->kind);
                free(to->n);
        }
        *to = *from;
        memset(from, 0, sizeof *from);
        if (src->f) {
                d->adopted = xrealloc(d->adopted, (d->nadopted + 1) * sizeof *d->adopted);
                d->adopted[d->nadopted++] = src->f;
                src->f = NULL;
        }
}

const struct table *spill_head(const struct wspill *s, size_t ti)
{
        return s && ti < s->nt && s->t[ti].used ? &s->t[ti].head : NULL;
}

size_t spill_rows(const struct wspill *s, size_t ti)
{
        return s && ti < s->nt && s->t[ti].used ? s->t[ti].nrows : 0;
}

size_t spill_block_rows(const struct wspill *s, size_t ti, size_t k)
{
        return s && ti < s->nt && s->t[ti].used && k < s->t[ti].nblk ? s->t[ti].n[k] : 0;
}

int spill_read(const struct wspill *s, size_t ti, size_t k, int c, double *out, size_t *n)
{
        const struct spill_table *st = &s->t[ti];
        *n = k < st->nblk ? st->n[k] : 0;
        if (!*n)
                return 0;
        /* column c, or c == ncols for the rows' lines */
        size_t at = k * (st->head.ncols + 1) + (size_t)c;
        enum vcode_kind kd = (enum vcode_kind)st->kind[at];
        size_t m = *n, bytes = vcode_bytes(kd, m);
        if (kd == VC_ONE) {
                uint64_t one;
                memcpy(&one, &st->off[at], sizeof one);
                vcode_get(kd, NULL, one, out, m);
                return 0;
        }
        /* narrow values go to rbuf (the caller's stack: two threads read one spill) and
         * are widened into out; beyond rbuf's room (a block longer than SPILL_CHUNK rows),
         * through a copy; doubles straight into out */
        unsigned char rbuf[SPILL_CHUNK * 4];
        unsigned char *e = kd != VC_F64 && bytes <= sizeof rbuf
                               ? rbuf
                               : (unsigned char *)out + m * sizeof *out - bytes;
        if (pread(fileno(st->f), e, bytes, (off_t)st->off[at]) != (ssize_t)bytes)
                return -1;
        if (e == rbuf)
                vcode_get(kd, rbuf, 0, out, m);
        else if (kd != VC_F64) {
                unsigned char *c = xmalloc(bytes);
                memcpy(c, e, bytes);
                vcode_get(kd, c, 0, out, m);
                free(c);
        }
        return 0;
}

void spill_free(struct wspill *s)
{
        if (!s)
                return;
        for (size_t i = 0; i < s->nt; i++) {
                table_free(&s->t[i].head);
                free(s->t[i].off);
                free(s->t[i].kind);
                free(s->t[i].n);
        }
        free(s->t);
        for (size_t i = 0; i < s->nadopted; i++)
                if (s->adopted[i])
                        fclose(s->adopted[i]);
        free(s->adopted);
        vappend_free(&s->out);
        vcoder_free(&s->vc);
        if (s->f)
                fclose(s->f);
        free(s);
}
