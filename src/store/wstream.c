/* Streamed workloads: per-dispatch tables read once, chunk by chunk, into a temporary file
 * of column blocks (wstream.h). */
#include "wstream.h"

#include "columns.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct spill_table {
        int used;
        struct table head; /* the columns, no rows */
        size_t nrows;
        long long *off;    /* per block: where its columns start */
        size_t *n;         /* per block: its rows */
        size_t nblk, cap;
};

struct wspill {
        FILE *f;
        long long end;
        struct spill_table *t;
        size_t nt;
};

static void head_of(struct table *h, const struct table *t)
{
        table_init(h);
        for (size_t c = 0; c < t->ncols; c++)
                table_add_col(h, t->names[c]);
}

/* the rows of chunk t into resident: the columns it keeps */
static void keep_rows(struct table *res, const int *map, const struct table *t)
{
        for (size_t r = 0; r < t->nrows; r++) {
                size_t rr = table_add_row(res);
                res->line[rr] = t->line ? t->line[r] : 0;
                for (size_t c = 0; c < t->ncols; c++) {
                        if (map[c] < 0)
                                continue;
                        res->num[map[c]][rr] = t->num[c][r];
                        if (t->str[c] && t->str[c][r])
                                table_set_str(res, map[c], rr, t->str[c][r]);
                }
        }
}

int spill_load(struct wspill **sp, size_t ti, const char *path, table_col_fn keep,
               void *keep_ctx, table_col_fn want, void *want_ctx, struct table *resident,
               struct err *err)
{
        table_init(resident);
        table_pool(resident); /* a kernel name once, not once per dispatch */
        struct tstream *ts = table_stream_open(path, want, want_ctx, err);
        if (!ts)
                return ERR_INPUT;
        if (!*sp)
                *sp = xcalloc(1, sizeof **sp);
        struct wspill *s = *sp;
        if (!s->f && !(s->f = tmp_file())) {
                table_stream_close(ts);
                return err_set(err, ERR_SYS, "cannot create a temporary file for '%s'", path);
        }
        if (ti >= s->nt) {
                s->t = xrealloc(s->t, (ti + 1) * sizeof *s->t);
                memset(s->t + s->nt, 0, (ti + 1 - s->nt) * sizeof *s->t);
                s->nt = ti + 1;
        }
        struct spill_table *st = &s->t[ti];
        if (st->used) { /* a table that failed to load before takes this place again */
                table_free(&st->head);
                free(st->off);
                free(st->n);
        }
        memset(st, 0, sizeof *st);
        st->used = 1;
        const struct table *h = table_stream_table(ts);
        head_of(&st->head, h);
        /* the resident columns, in file order */
        int *map = xcalloc(h->ncols + 1, sizeof *map);
        for (size_t c = 0; c < h->ncols; c++)
                map[c] = keep && keep(keep_ctx, h->names[c]) ? table_add_col(resident, h->names[c])
                                                             : -1;
        struct cellcheck *cc = cellcheck_new();
        int rc = 0;
        const struct table *t;
        while ((t = table_stream_next(ts, SPILL_CHUNK, err)) && t->nrows) {
                size_t row0 = table_stream_row0(ts);
                /* checked as a loaded table is (the chunk is the stream's own) */
                cellcheck_chunk(cc, (struct table *)t, path, row0);
                if (keep)
                        keep_rows(resident, map, t);
                xgrow(&st->off, &st->cap, st->nblk + 1, sizeof *st->off);
                st->n = xrealloc(st->n, st->cap * sizeof *st->n);
                st->off[st->nblk] = s->end;
                st->n[st->nblk++] = t->nrows;
                st->nrows += t->nrows;
                size_t bytes = t->nrows * sizeof(double);
                for (size_t c = 0; c < t->ncols && !rc; c++)
                        if (pwrite(fileno(s->f), t->num[c], bytes,
                                   (off_t)(s->end + (long long)(c * bytes))) != (ssize_t)bytes)
                                rc = err_set(err, ERR_SYS,
                                             "cannot write a temporary file for '%s'", path);
                /* and the rows' lines, for messages about them */
                double *ln = xmalloc(bytes ? bytes : 1);
                for (size_t r = 0; r < t->nrows; r++)
                        ln[r] = t->line ? (double)t->line[r] : (double)(row0 + r + 2);
                if (!rc && pwrite(fileno(s->f), ln, bytes,
                                  (off_t)(s->end + (long long)(t->ncols * bytes))) !=
                               (ssize_t)bytes)
                        rc = err_set(err, ERR_SYS, "cannot write a temporary file for '%s'",
                                     path);
                free(ln);
                s->end += (long long)(bytes * (t->ncols + 1));
                if (rc)
                        break;
        }
        if (!t && !rc)
                rc = ERR_INPUT; /* the stream's error */
        free(map);
        if (!rc && keep) {
                resident->dup = h->dup ? xstrdup(h->dup) : NULL;
                cellcheck_report(cc, resident, h->dup, path);
        } else if (!rc) {
                /* no rows kept: the rows' count, and for the check of repeated ids the
                 * Dispatch_ID column and the lines read back for a moment */
                resident->nrows = st->nrows;
                struct table ids;
                table_init(&ids);
                int cid = table_col(h, COL_DISPATCH_ID);
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
                cellcheck_discard(cc);
                table_free(resident);
        }
        table_stream_close(ts);
        return rc;
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
        size_t bytes = *n * sizeof *out;
        /* column c, or c == ncols for the rows' lines */
        off_t off = (off_t)(st->off[k] + (long long)((size_t)c * bytes));
        return pread(fileno(s->f), out, bytes, off) == (ssize_t)bytes ? 0 : -1;
}

void spill_free(struct wspill *s)
{
        if (!s)
                return;
        for (size_t i = 0; i < s->nt; i++) {
                table_free(&s->t[i].head);
                free(s->t[i].off);
                free(s->t[i].n);
        }
        free(s->t);
        if (s->f)
                fclose(s->f);
        free(s);
}
