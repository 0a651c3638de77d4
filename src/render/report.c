/* The text report in parts on two threads: the tables after a split rendered into memory
 * on the other thread while this one writes those before it (render_text), and the tables
 * of the analysis' second half rendered on the thread that built them while the first
 * half is still being built (render_ahead). Either way the bytes are those one thread
 * writes, in the same order; each part is escaped on its own thread as the report's stream
 * escapes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memchart.h"
#include "render.h"
#include "text_int.h"
#include "../util/esc.h"
#include "../util/task.h"

/* a stream that appends to a strbuf (open_memstream zero-fills what it grows by and
 * copies: a tenth of the second part's time) */
static ssize_t sb_write(void *c, const char *buf, size_t n)
{
        sb_addn(c, buf, n);
        return (ssize_t)n;
}

/* Tables [from, to) of an into *buf (escaped when escape), a table at a time while *go is
 * nonzero (NULL: all of them at once); *end: the first table not rendered. 0 when the
 * stream could not be made or written (nothing kept). */
static int render_mem(const struct analysis *an, const struct render_opts *o, size_t from,
                      size_t to, int escape, const int *go, char **buf, size_t *len,
                      size_t *end)
{
        struct strbuf raw = {0};
        cookie_io_functions_t io = {.write = sb_write};
        FILE *m = fopencookie(&raw, "w", io);
        if (!m)
                return 0;
        setvbuf(m, NULL, _IOFBF, 1 << 16);
        size_t i = from;
        if (!go) {
                render_range(m, an, o, from, to);
                i = to;
        }
        while (i < to && __atomic_load_n(go, __ATOMIC_ACQUIRE)) {
                render_range(m, an, o, i, i + 1);
                i++;
        }
        if (fclose(m) != 0) {
                sb_free(&raw);
                return 0;
        }
        *end = i;
        if (!escape) {
                *len = raw.len;
                *buf = sb_detach(&raw);
                return 1;
        }
        struct strbuf sb = {0};
        esc_append(&sb, raw.buf ? raw.buf : "", raw.len, ESC_KEEP_NL);
        *buf = sb.buf;
        *len = sb.len;
        sb_free(&raw);
        return 1;
}

/* The report's last part, rendered on the other thread into memory */
struct part {
        const struct analysis *an;
        const struct render_opts *o;
        size_t from, to;
        int escape; /* the report's stream escapes: the part is escaped here */
        char *buf;
        size_t len;
        int ok;
};

static int part_job(void *p)
{
        struct part *pt = p;
        size_t end;
        pt->ok = render_mem(pt->an, pt->o, pt->from, pt->to, pt->escape, NULL, &pt->buf,
                            &pt->len, &end);
        return 0;
}

/* Where tables [from, to) split in two parts of about the same time: the first table of a
 * panel after from, or `to` when a split does not pay (a few small tables). A table's time
 * is about 45 cells' fixed, one a cell and a fifth of one a byte of its texts; a figure
 * after a panel (memory chart, roofline plot) about 900 cells' (phase clocks over every
 * table of four recordings, one thread: 3.7 us + 0.082 us a cell + 0.017 us a text byte, a
 * figure 60-78 us). This thread's part is `share` of the work: about a third of a whole
 * report (35%), as it also writes through the escaping stream and writes the other part;
 * 45% of the tables before a part rendered ahead (phase clocks: the two parts then end
 * together; the tables after it are few). */
static size_t split_at(const struct analysis *an, const struct render_opts *o, size_t from,
                       size_t to, double share)
{
        double *w = xmalloc((to > from ? to - from : 1) * sizeof *w), total = 0;
        for (size_t i = from; i < to; i++) {
                const struct rtable *t = &an->tables[i];
                size_t bytes = 0, cells = t->nrows * t->ncols;
                for (size_t c = 0; c < cells; c++)
                        bytes += t->cells[c].text ? strlen(t->cells[c].text) : 0;
                double wi = 45.0 + (double)(t->nrows + 1) * (double)(t->ncols + 1) +
                            0.2 * (double)bytes;
                if (i + 1 == an->ntables || an->tables[i + 1].panel != t->panel)
                        wi += 900.0 * render_figures_count(an, t->panel, o);
                w[i - from] = wi;
                total += wi;
        }
        size_t best = to;
        double acc = 0, gap = total;
        for (size_t i = from; i < to; i++) {
                if (i > from && an->tables[i].panel != an->tables[i - 1].panel) {
                        double d = fabs(share * total - acc);
                        if (d < gap) {
                                gap = d;
                                best = i;
                        }
                }
                acc += w[i - from];
        }
        free(w);
        return total >= 2000 ? best : to;
}

/* bytes of a part, as the stream f takes them (escaped already when f escapes) */
static void put_part(FILE *f, const char *buf, size_t len, int escaped)
{
        if (escaped)
                esc_put_escaped(f, buf, len); /* a failure: f's close says so */
        else
                fwrite(buf, 1, len, f);
}

/* Tables [from, to) of an (from may continue a panel): those from a split on
 * rendered on the other thread while this one writes the ones before (split_at's share
 * on this one). */
static void render_span(FILE *f, const struct analysis *an, const struct render_opts *o,
                        size_t from, size_t to, double share)
{
        size_t k = task_workers() > 1 ? split_at(an, o, from, to, share) : to;
        if (k >= to) {
                render_range(f, an, o, from, to);
                return;
        }
        struct part pt = {.an = an, .o = o, .from = k, .to = to, .escape = esc_is_stream(f)};
        struct task t;
        task_start(&t, part_job, &pt);
        render_range(f, an, o, from, k);
        task_join(&t);
        task_warnings(&t);
        if (pt.ok)
                put_part(f, pt.buf, pt.len, pt.escape);
        else
                render_range(f, an, o, k, to);
        free(pt.buf);
}

void render_text(FILE *f, const struct analysis *an, const struct render_opts *o)
{
        const struct render_ahead *ra = o->ahead;
        size_t a = 0, b = 0; /* the tables rendered ahead, as an's */
        if (ra && ra->ok && an->second_at && ra->to <= an->ntables - an->second_at &&
            ra->escaped == esc_is_stream(f)) {
                a = an->second_at + ra->from;
                b = an->second_at + ra->to;
        }
        if (a == b) {
                render_span(f, an, o, 0, an->ntables, 0.35);
                return;
        }
        /* before them (on both threads), them, and after them */
        render_span(f, an, o, 0, a, 0.45);
        put_part(f, ra->buf, ra->len, ra->escaped);
        render_span(f, an, o, b, an->ntables, 0.35);
}

void render_ahead_fn(void *ctx, const struct analysis *half, size_t from, const int *busy)
{
        struct render_ahead *ra = ctx;
        /* $PRISM_RENDER_AHEAD: 1 renders the whole half ahead, 0 nothing (tests) */
        const char *e = getenv("PRISM_RENDER_AHEAD");
        if (e && !strcmp(e, "0"))
                return;
        if (e && !strcmp(e, "1"))
                busy = NULL;
        /* the report's options; no figure (a half with one is not rendered ahead) */
        struct render_opts o = *ra->o;
        o.ahead = NULL;
        o.roof = NULL;
        size_t end = from;
        free(ra->buf);
        ra->buf = NULL;
        ra->ok = from < half->ntables && !half->roof && !memchart_table(half) &&
                 render_mem(half, &o, from, half->ntables, ra->escaped, busy, &ra->buf,
                            &ra->len, &end) &&
                 end > from;
        ra->from = from;
        ra->to = end;
}
