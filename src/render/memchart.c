/* The memory chart: compute unit, L1-level caches, L2, fabric and HBM as boxes, the
 * requests between them as labelled arrows, every number one cell of the memory-chart table.
 * Wide terminals get the hierarchy left to right; narrower ones get it in two bands. */
#include "memchart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "svg.h"

/* ---- the values ---- */

struct mc {
        const struct rtable *t;
        size_t col; /* the value column */
};

/* A label in the words of the workload's architecture family (metrics/<family>.yaml
 * `words:`, keyed by the default text), or the default. */
static const char *W(const struct rtable *t, const char *dflt)
{
        return arch_title(t->arch, dflt, dflt);
}


/* the value of metric key as text: whole numbers without decimals, n/a when missing */
static void val1(const struct mc *m, const char *key, char *buf, size_t len)
{
        size_t kl = strlen(key);
        for (size_t r = 0; r < m->t->nrows; r++) { /* the row "KEY#..." */
                const char *rk = m->t->rkeys[r];
                if (strncmp(rk, key, kl) || rk[kl] != '#')
                        continue;
                double v = m->t->cells[r * m->t->ncols + m->col].v;
                if (isnan(v))
                        break;
                if (isfinite(v) && v == nearbyint(v) && fabs(v) < 1e15)
                        fmt_fixed(v, 0, buf, len);
                else
                        fmt_num(v, buf);
                return;
        }
        snprintf(buf, len, "n/a");
}

/* the value of a chart item's key: one metric, or "KEY1/KEY2" as "v1/v2" */
static void val(const struct mc *m, const char *key, char *buf, size_t len)
{
        const char *sl = strchr(key, '/');
        if (!sl) {
                val1(m, key, buf, len);
                return;
        }
        char k1[128], a[48], b[48];
        snprintf(k1, sizeof k1, "%.*s", (int)(sl - key), key);
        val1(m, k1, a, sizeof a);
        val1(m, sl + 1, b, sizeof b);
        snprintf(buf, len, "%s/%s", a, b);
}

/* the metric keys of a chart (both of "KEY1/KEY2") */
static size_t chart_nkeys(const struct panel_table *pt)
{
        size_t n = 0;
        for (size_t i = 0; i < pt->nchart; i++) {
                const struct chart_part *p = &pt->chart[i];
                const struct chart_item *lists[3] = {p->lines, p->in, p->out};
                size_t counts[3] = {p->nlines, p->nin, p->nout};
                for (int l = 0; l < 3; l++)
                        for (size_t k = 0; k < counts[l]; k++)
                                n += 1 + (strchr(lists[l][k].key, '/') != NULL);
        }
        return n;
}

const struct rtable *memchart_table(const struct analysis *an)
{
        for (size_t i = 0; i < an->ntables; i++) {
                const struct rtable *t = &an->tables[i];
                if (!t->metric_table || !t->pt || !t->pt->nchart)
                        continue;
                /* most of the chart: a -b pick of a few rows is shown as a table only */
                if ((t->nrows + t->nhidden) * 4 >= chart_nkeys(t->pt) * 3)
                        return t;
        }
        return NULL;
}

static size_t value_col(const struct rtable *t)
{
        for (size_t k = 0; k < t->ncols && k < t->pt->ncols; k++)
                if (strcmp(t->pt->cols[k].show, "name") && strcmp(t->pt->cols[k].show, "unit") &&
                    strcmp(t->pt->cols[k].show, "text"))
                        return k;
        return t->ncols > 1 ? 1 : 0;
}

/* ---- boxes and arrows ---- */

#define MAXL 10

struct line {
        const char *label;
        char v[96];
        const char *unit;
};

struct box {
        const char *title;
        struct line l[MAXL];
        int n;
};

enum { TO_CORE = 1, TO_MEM = 2, BOTH = 3 }; /* arrow heads: left/up, right/down, both */

struct arrow {
        const char *label;
        char v[48];
        int dir;
};

#define MAXA 4
#define MAXB 4 /* L1-level caches */

/* an L1-level cache and the arrows on either side of it */
struct band {
        struct box b;
        struct arrow in[MAXA], out[MAXA]; /* from the compute unit; to the L2 */
        int nin, nout;
        const char *stub; /* its name where the arrows to L2 stand alone */
        int y, h;         /* placement */
};

/* 0 when the family hides key's row (no counterpart on its GPUs: no value could ever
 * show there), so that the chart leaves it out rather than print n/a; 1 otherwise (a row
 * that is there but n/a, a counter not collected, still shows n/a) */
static int present1(const struct mc *m, const char *key)
{
        if (!m->t->nhidden)
                return 1;
        size_t kl = strlen(key);
        for (size_t r = 0; r < m->t->nrows; r++)
                if (!strncmp(m->t->rkeys[r], key, kl) && m->t->rkeys[r][kl] == '#')
                        return 1;
        return 0;
}

static int present(const struct mc *m, const char *key)
{
        const char *sl = strchr(key, '/');
        if (!sl)
                return present1(m, key);
        char k1[128];
        snprintf(k1, sizeof k1, "%.*s", (int)(sl - key), key);
        return present1(m, k1) && present1(m, sl + 1);
}

static void add_line(struct box *b, const struct mc *m, const char *label, const char *key,
                     const char *unit)
{
        if (!present(m, key))
                return;
        struct line *l = &b->l[b->n++];
        l->label = W(m->t, label);
        l->unit = unit ? W(m->t, unit) : NULL;
        val(m, key, l->v, sizeof l->v);
}

static void add_arrow(struct arrow *a, int *n, const struct mc *m, const char *label,
                      const char *key, int dir)
{
        if (!present(m, key))
                return;
        a[*n].label = W(m->t, label);
        a[*n].dir = dir;
        val(m, key, a[*n].v, sizeof a[*n].v);
        (*n)++;
}

struct geom {
        int lw, vw, uw; /* widths of label, value and unit columns */
};

static struct geom box_geom(const struct box *b)
{
        struct geom g = {0, 0, 0};
        for (int i = 0; i < b->n; i++) {
                int a = u8_width(b->l[i].label), v = u8_width(b->l[i].v);
                int u = b->l[i].unit ? u8_width(b->l[i].unit) : 0;
                g.lw = a > g.lw ? a : g.lw;
                g.vw = v > g.vw ? v : g.vw;
                g.uw = u > g.uw ? u : g.uw;
        }
        return g;
}

/* inner width of a box's lines ("label value unit") */
static int box_inner(const struct box *b)
{
        struct geom g = box_geom(b);
        int w = g.lw + 1 + g.vw + (g.uw ? 1 + g.uw : 0);
        int tw = b->title ? u8_width(b->title) + 2 : 0;
        return w > tw ? w : tw;
}

static void draw_lines_g(struct canvas *cv, const struct box *b, int x, int y, struct geom g)
{
        for (int i = 0; i < b->n; i++) {
                const struct line *l = &b->l[i];
                canvas_text(cv, x, y + i, l->label, CV_PLAIN);
                int vx = x + g.lw + 1 + g.vw - u8_width(l->v);
                canvas_text(cv, vx, y + i, l->v, CV_VALUE);
                if (l->unit && strcmp(l->v, "n/a"))
                        canvas_text(cv, x + g.lw + 1 + g.vw + 1, y + i, l->unit, CV_DIM);
        }
}

static void draw_lines(struct canvas *cv, const struct box *b, int x, int y)
{
        draw_lines_g(cv, b, x, y, box_geom(b));
}

/* a box of width w (h from its lines unless larger) at (x, y) */
static void draw_box(struct canvas *cv, const struct box *b, int x, int y, int w, int h)
{
        canvas_box(cv, x, y, w, h, b->title);
        draw_lines(cv, b, x + 2, y + 1);
}

static void arrows_geom(const struct arrow *a, int n, int *lw, int *vw)
{
        for (int i = 0; i < n; i++) {
                int l = u8_width(a[i].label), v = u8_width(a[i].v);
                *lw = l > *lw ? l : *lw;
                *vw = v > *vw ? v : *vw;
        }
}

static int arrow_width(int lw, int vw)
{
        return lw + vw + 7; /* "◀─ label value ─▶" */
}

/* one horizontal arrow filling w cells from x: head, label, value, head */
static void draw_harrow(struct canvas *cv, const struct arrow *a, int x, int y, int w, int lw,
                        int vw)
{
        for (int i = 0; i < w; i++)
                canvas_put(cv, x + i, y, CV_H, CV_PLAIN);
        if (a->dir & TO_CORE)
                canvas_put(cv, x, y, CV_AL, CV_PLAIN);
        if (a->dir & TO_MEM)
                canvas_put(cv, x + w - 1, y, CV_AR, CV_PLAIN);
        int body = lw + 1 + vw + 2, bx = x + 2;
        canvas_put(cv, bx, y, ' ', CV_PLAIN);
        canvas_text(cv, bx + 1, y, a->label, CV_PLAIN);
        for (int i = u8_width(a->label); i < lw + 1; i++)
                canvas_put(cv, bx + 1 + i, y, ' ', CV_PLAIN);
        int vx = bx + 1 + lw + 1 + vw - u8_width(a->v);
        for (int i = bx + 1 + lw + 1; i < vx; i++)
                canvas_put(cv, i, y, ' ', CV_PLAIN);
        canvas_text(cv, vx, y, a->v, CV_VALUE);
        canvas_put(cv, bx + body - 1, y, ' ', CV_PLAIN);
}

/* Arrows between a box whose bottom border is row yb and one whose top border is row yb + 4:
 * one vertical connector after the lower box's title, the requests listed beside it with
 * their direction ("▲ Rd 8": towards the L2 side). */
static int varrows_x(const char *title)
{
        return title ? u8_width(title) + 5 : 3;
}

static int varrows_width(const struct arrow *a, int n, const char *below)
{
        int lw = 0, vw = 0;
        arrows_geom(a, n, &lw, &vw);
        return varrows_x(below) + 2 + 3 + lw + 1 + vw + 2;
}

static void draw_varrows(struct canvas *cv, const struct arrow *a, int n, int x, int yb,
                         const char *below)
{
        int cx = x + varrows_x(below), lw = 0, vw = 0;
        arrows_geom(a, n, &lw, &vw);
        canvas_put(cv, cx, yb, CV_TT, CV_PLAIN);
        for (int j = 1; j < 4; j++)
                canvas_put(cv, cx, yb + j, CV_V, CV_PLAIN);
        canvas_put(cv, cx, yb + 4, CV_BT, CV_PLAIN);
        for (int i = 0; i < n && i < 3; i++) {
                int y = yb + 1 + i, tx = cx + 2;
                if (a[i].dir & TO_CORE)
                        canvas_put(cv, tx, y, CV_AU, CV_PLAIN);
                if (a[i].dir & TO_MEM)
                        canvas_put(cv, tx + (a[i].dir & TO_CORE ? 1 : 0), y, CV_AD, CV_PLAIN);
                canvas_text(cv, tx + 3, y, a[i].label, CV_PLAIN);
                canvas_text(cv, tx + 3 + lw + 1 + vw - u8_width(a[i].v), y, a[i].v, CV_VALUE);
        }
}

/* ---- the chart ---- */


struct chart {
        struct mc m;
        struct box ib, disp, ex; /* compute unit sections */
        struct band band[MAXB];  /* the L1-level caches */
        int nbands;
        struct box l2, fab, hbm;
        struct arrow fab_in[MAXA], hbm_in[MAXA];
        int nfab, nhbm;
};

static int dir_of(const char *d)
{
        return !d ? BOTH : !strcmp(d, "core") ? TO_CORE : !strcmp(d, "memory") ? TO_MEM : BOTH;
}

static void fill_box(struct box *b, const struct mc *m, const struct chart_part *p)
{
        b->title = p->title ? W(m->t, p->title) : NULL;
        for (size_t i = 0; i < p->nlines && b->n < MAXL; i++)
                add_line(b, m, p->lines[i].label, p->lines[i].key, p->lines[i].extra);
}

static void fill_arrows(struct arrow *a, int *n, const struct mc *m, const struct chart_item *it,
                        size_t nit)
{
        for (size_t i = 0; i < nit && *n < MAXA; i++)
                add_arrow(a, n, m, it[i].label, it[i].key, dir_of(it[i].extra));
}

/* the chart's parts from its table's `chart:` (panels/) */
static void chart_fill(struct chart *c, const struct rtable *t)
{
        memset(c, 0, sizeof *c);
        c->m.t = t;
        c->m.col = value_col(t);
        const struct mc *m = &c->m;
        for (size_t i = 0; i < t->pt->nchart; i++) {
                const struct chart_part *p = &t->pt->chart[i];
                if (!strcmp(p->role, "buffer")) {
                        fill_box(&c->ib, m, p);
                } else if (!strcmp(p->role, "dispatch")) {
                        fill_box(&c->disp, m, p);
                } else if (!strcmp(p->role, "exec")) {
                        fill_box(&c->ex, m, p);
                } else if (!strcmp(p->role, "cache") && c->nbands < MAXB) {
                        struct band *b = &c->band[c->nbands++];
                        fill_box(&b->b, m, p);
                        b->stub = p->stub ? W(t, p->stub) : b->b.title ? b->b.title : "";
                        fill_arrows(b->in, &b->nin, m, p->in, p->nin);
                        fill_arrows(b->out, &b->nout, m, p->out, p->nout);
                        if (!b->b.n && !b->nin && !b->nout) /* nothing of it on this GPU */
                                c->nbands--;
                } else if (!strcmp(p->role, "l2")) {
                        fill_box(&c->l2, m, p);
                } else if (!strcmp(p->role, "fabric")) {
                        fill_box(&c->fab, m, p);
                        fill_arrows(c->fab_in, &c->nfab, m, p->in, p->nin);
                } else if (!strcmp(p->role, "memory")) {
                        fill_box(&c->hbm, m, p);
                        fill_arrows(c->hbm_in, &c->nhbm, m, p->in, p->nin);
                }
        }
}

/* the compute unit: one box in three sections (dispatch counts two per line) */
static int cu_inner(const struct chart *c)
{
        int w = box_inner(&c->ib), e = box_inner(&c->ex);
        w = e > w ? e : w;
        struct geom g = box_geom(&c->disp);
        int d = 2 * (g.lw + 1 + g.vw) + 3;
        return d > w ? d : w;
}

/* borders, the buffer's lines, a rule, the dispatch's lines two by two, a rule, the
 * execution's lines */
static int cu_height(const struct chart *c)
{
        return 1 + c->ib.n + 1 + (c->disp.n + 1) / 2 + 1 + c->ex.n + 1;
}

static void draw_cu(struct canvas *cv, const struct chart *c, int x, int y, int w, int h)
{
        canvas_box(cv, x, y, w, h, c->ib.title);
        draw_lines(cv, &c->ib, x + 2, y + 1);
        int yd = y + 1 + c->ib.n, ye = yd + 1 + (c->disp.n + 1) / 2;
        canvas_rule(cv, x, yd, w, c->disp.title);
        /* dispatch: two columns of "LABEL value" */
        struct geom g = box_geom(&c->disp);
        for (int i = 0; i < c->disp.n; i++) {
                const struct line *l = &c->disp.l[i];
                int cx = x + 2 + (i % 2) * (g.lw + 1 + g.vw + 3), cy = yd + 1 + i / 2;
                canvas_text(cv, cx, cy, l->label, CV_PLAIN);
                canvas_text(cv, cx + g.lw + 1 + g.vw - u8_width(l->v), cy, l->v, CV_VALUE);
        }
        canvas_rule(cv, x, ye, w, c->ex.title);
        draw_lines(cv, &c->ex, x + 2, ye + 1);
}

struct layout {
        int wcu, wa1, la1, va1, wl1, wa2, la2, va2, wl2, wa3, la3, va3, wfab;
        int front_h;     /* height of the L1 column */
        struct geom gl1; /* one alignment for all L1-level boxes */
};

static void measure(struct chart *c, struct layout *L)
{
        memset(L, 0, sizeof *L);
        L->wcu = cu_inner(c) + 4;
        for (int i = 0; i < c->nbands; i++) {
                struct band *b = &c->band[i];
                arrows_geom(b->in, b->nin, &L->la1, &L->va1);
                arrows_geom(b->out, b->nout, &L->la2, &L->va2);
                struct geom g = box_geom(&b->b);
                L->gl1.lw = g.lw > L->gl1.lw ? g.lw : L->gl1.lw;
                L->gl1.vw = g.vw > L->gl1.vw ? g.vw : L->gl1.vw;
                L->gl1.uw = g.uw > L->gl1.uw ? g.uw : L->gl1.uw;
                int tw = u8_width(b->b.title) + 6;
                L->wl1 = tw > L->wl1 ? tw : L->wl1;
                int n = b->b.n > b->nin ? b->b.n : b->nin;
                n = b->nout > n ? b->nout : n;
                b->h = n + 2;
        }
        int gw = L->gl1.lw + 1 + L->gl1.vw + (L->gl1.uw ? 1 + L->gl1.uw : 0) + 4;
        L->wl1 = gw > L->wl1 ? gw : L->wl1;
        L->wa1 = arrow_width(L->la1, L->va1);
        L->wa2 = arrow_width(L->la2, L->va2);
        arrows_geom(c->fab_in, c->nfab, &L->la3, &L->va3);
        L->wa3 = arrow_width(L->la3, L->va3);
        int y = 0;
        for (int i = 0; i < c->nbands; i++) {
                c->band[i].y = y;
                y += c->band[i].h + 1;
        }
        L->front_h = y - 1;
        L->wl2 = box_inner(&c->l2) + 4;
        int fw = box_inner(&c->fab) + 4, vw = varrows_width(c->hbm_in, c->nhbm, c->hbm.title);
        L->wfab = fw > vw ? fw : vw;
}

/* L2 at (x, y) spanning h rows, then the fabric and HBM (right of it when right_fab) */
static void draw_back(struct canvas *cv, const struct chart *c, const struct layout *L, int x,
                      int y, int h, int right_fab)
{
        draw_box(cv, &c->l2, x, y, L->wl2, h);
        int fx, fy, fw = L->wfab;
        if (right_fab) {
                int ax = x + L->wl2;
                for (int i = 0; i < c->nfab; i++)
                        draw_harrow(cv, &c->fab_in[i], ax, y + 1 + i, L->wa3, L->la3, L->va3);
                fx = ax + L->wa3;
                fy = y;
        } else {
                int need = varrows_width(c->fab_in, c->nfab, c->fab.title);
                fw = need > fw ? need : fw;
                fx = x;
                fy = y + h - 1 + 4;
                if (fw < L->wl2)
                        fw = L->wl2;
        }
        int fh = c->fab.n + 2;
        draw_box(cv, &c->fab, fx, fy, fw, fh);
        if (!right_fab)
                draw_varrows(cv, c->fab_in, c->nfab, x, y + h - 1, c->fab.title);
        /* the bottom border of L2 may have been redrawn by the fabric box: fix the joints */
        int hy = fy + fh - 1 + 4;
        canvas_box(cv, fx, hy, fw, 3, c->hbm.title);
        draw_varrows(cv, c->hbm_in, c->nhbm, fx, fy + fh - 1, c->hbm.title);
}

void memchart_draw(struct canvas *cv, const struct rtable *t, int width)
{
        struct chart c;
        struct layout L;
        chart_fill(&c, t);
        measure(&c, &L);
        if (width <= 0)
                width = 120;
        int front_w = L.wcu + L.wa1 + L.wl1;
        int wide_w = front_w + L.wa2 + L.wl2;
        int wide = wide_w <= width;
        /* tall: narrower than the compute unit and its caches side by side, the caches go
         * below the compute unit, their arrows from its name */
        int tall = !wide && front_w > width, sw = 5;
        int right_fab = (wide ? wide_w : sw + L.wa2 + L.wl2) + L.wa3 + L.wfab <= width;
        int h = L.front_h > cu_height(&c) ? L.front_h : cu_height(&c);
        canvas_init(cv, wide_w + L.wa3 + L.wfab + 8, 3 * h + 40);

        /* front: compute unit, arrows, L1-level caches */
        int y0 = 0, x1 = L.wcu + L.wa1;
        if (tall) {
                draw_cu(cv, &c, 0, 0, L.wcu, cu_height(&c));
                y0 = cu_height(&c) + 1;
                x1 = sw + L.wa1;
                canvas_text(cv, 0, y0 + 1, W(t, "CU"), CV_TITLE);
        } else {
                draw_cu(cv, &c, 0, 0, L.wcu, h);
        }
        for (int i = 0; i < c.nbands; i++) {
                const struct band *b = &c.band[i];
                canvas_box(cv, x1, y0 + b->y, L.wl1, b->h, b->b.title);
                draw_lines_g(cv, &b->b, x1 + 2, y0 + b->y + 1, L.gl1);
                for (int k = 0; k < b->nin; k++)
                        draw_harrow(cv, &b->in[k], tall ? sw : L.wcu, y0 + b->y + 1 + k, L.wa1,
                                    L.la1, L.va1);
        }
        if (wide) {
                int x2 = x1 + L.wl1;
                for (int i = 0; i < c.nbands; i++) {
                        const struct band *b = &c.band[i];
                        for (int k = 0; k < b->nout; k++)
                                draw_harrow(cv, &b->out[k], x2, b->y + 1 + k, L.wa2, L.la2, L.va2);
                }
                draw_back(cv, &c, &L, x2 + L.wa2, 0, h, right_fab);
                return;
        }
        /* narrow: the arrows into L2 start from the names of the caches drawn above */
        int y = (tall ? y0 + L.front_h : h) + 1, ay = y + 1;
        for (int i = 0; i < c.nbands; i++) {
                const struct band *b = &c.band[i];
                if (!b->nout)
                        continue;
                canvas_text(cv, 0, ay, b->stub, CV_TITLE);
                for (int k = 0; k < b->nout; k++)
                        draw_harrow(cv, &b->out[k], sw, ay + k, L.wa2, L.la2, L.va2);
                ay += b->nout + 1;
        }
        int lh = ay - y;
        if (lh < c.l2.n + 2)
                lh = c.l2.n + 2;
        draw_back(cv, &c, &L, sw + L.wa2, y, lh, right_fab);
}

/* A normalization's name as words ("per_cycle" -> "per cycle"): the default text, which the
 * family's words may replace (W); NULL when none is given. */
static const char *norm_text(const struct rtable *t, const char *norm, char *buf, size_t len)
{
        if (!norm)
                return NULL;
        snprintf(buf, len, "%s", norm);
        for (char *p = buf; *p; p++)
                if (*p == '_')
                        *p = ' ';
        return W(t, buf);
}

void memchart_text(FILE *f, const struct rtable *t, const char *norm, int width)
{
        struct canvas cv;
        char nb[64];
        const char *n = norm_text(t, norm, nb, sizeof nb);
        memchart_draw(&cv, t, width);
        fprintf(f, "Memory chart (table %s; %s%slatencies in cycles)\n", t->id, n ? n : "",
                n ? ", " : "");
        canvas_print(&cv, f);
        canvas_free(&cv);
}

int memchart_svg(const char *path, const struct rtable *t, const char *norm, struct err *err)
{
        struct canvas cv;
        memchart_draw(&cv, t, 120);
        /* the canvas used: last non-blank column and row */
        int w = 0, h = 0;
        for (int y = 0; y < cv.h; y++)
                for (int x = 0; x < cv.w; x++)
                        if (canvas_get(&cv, x, y) != ' ') {
                                w = x + 1 > w ? x + 1 : w;
                                h = y + 1;
                        }
        const double cw = 8.4, ch = 17, pad = 16;
        struct strbuf sb = {0};
        svg_begin(&sb, w * cw + 2 * pad, h * ch + 2 * pad + 28, 14);
        char cap[160], nb[64];
        const char *n = norm_text(t, norm, nb, sizeof nb);
        snprintf(cap, sizeof cap, "Memory chart: requests and instructions%s%s, latencies in cycles",
                 n ? " " : "", n ? n : "");
        svg_text(&sb, pad, pad + 14, "start", "font-weight=\"bold\"", cap);
        canvas_svg(&cv, &sb, pad, pad + 28, cw, ch);
        svg_end(&sb);
        int rc = svg_write(path, &sb, err);
        sb_free(&sb);
        canvas_free(&cv);
        return rc;
}
