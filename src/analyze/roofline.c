/* The roofline view model: ceilings from roofline.csv, and per top kernel (or dispatch) the
 * arithmetic intensity at each memory level and the achieved FLOP/s. The levels, ceilings,
 * their roofline.csv columns and the FLOP and byte formulas are the family's data (its
 * `roofline:` section and the metrics it names); here they are only read and divided. */
#include "roofline.h"
#include "build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../store/columns.h"

/* rocprof-compute plots the ten longest-running kernels */
#define ROOF_TOP_DEFAULT 10

int roof_level_parse(const struct roof_spec *spec, const char *s)
{
        for (size_t i = 0; i < spec->nlevels; i++)
                if (roof_level_names(&spec->levels[i], s))
                        return (int)i;
        return -1;
}

int roof_levels_mask(const struct roof_spec *spec, char *const *names, size_t n, unsigned *mask,
                     struct err *err)
{
        *mask = 0;
        for (size_t i = 0; i < n; i++) {
                int l = roof_level_parse(spec, names[i]);
                if (l >= 0) {
                        *mask |= 1u << l;
                        continue;
                }
                struct strbuf sb = {0};
                for (size_t k = 0; k < spec->nlevels; k++)
                        sb_addf(&sb, "%s%s", k ? ", " : "", spec->levels[k].name);
                int rc = err_set(err, ERR_USAGE, "unknown memory level '%s' (%s)", names[i],
                                 sb.len ? sb.buf : "the architecture has no roofline");
                sb_free(&sb);
                return rc;
        }
        return 0;
}

double roof_ai(double flops, double bytes)
{
        if (isnan(flops) || isnan(bytes) || !(bytes > 0))
                return NAN;
        return flops / bytes;
}

double roof_gflops(double flops, double ns)
{
        if (isnan(flops) || !(ns > 0))
                return NAN;
        return flops / ns; /* FLOP per ns = GFLOP per s */
}

double roof_attainable(double bw, double peak, double ai)
{
        double m = bw * ai;
        return m < peak ? m : peak;
}

int roof_ceilings_read(const struct table *t, const struct roof_spec *spec, long device,
                       struct roof_ceilings *c, struct err *err)
{
        memset(c, 0, sizeof *c);
        c->device = device;
        for (int i = 0; i < ROOF_MAX_LEVELS; i++)
                c->bw[i] = NAN;
        for (int i = 0; i < ROOF_MAX_CEILINGS; i++)
                c->peak[i] = NAN;
        if (!t || !t->nrows)
                return err_set(err, ERR_INPUT, "roofline.csv has no rows");
        int dcol = table_col(t, "device");
        size_t *rows = xcalloc(t->nrows, sizeof *rows), n = 0;
        for (size_t r = 0; r < t->nrows; r++)
                if (device < 0 || (dcol >= 0 && t->num[dcol][r] == (double)device))
                        rows[n++] = r;
        if (!n) {
                struct strbuf sb = {0};
                for (size_t r = 0; dcol >= 0 && r < t->nrows; r++)
                        sb_addf(&sb, "%s%.0f", r ? ", " : "", t->num[dcol][r]);
                int rc = err_set(err, ERR_USAGE, "--device %ld: roofline.csv has %s%s", device,
                                 sb.len ? "devices " : "no device column", sb.len ? sb.buf : "");
                sb_free(&sb);
                free(rows);
                return rc;
        }
        c->have = 1;
        c->ndevices = n;
        /* the mean over the devices measured (rows with n/a are left out) */
        size_t nl = spec->nlevels;
        for (size_t k = 0; k < nl + spec->nceilings; k++) {
                const char *name = k < nl ? spec->levels[k].column : spec->ceilings[k - nl].column;
                int col = name ? table_col(t, name) : -1;
                double s = 0, v;
                size_t m = 0;
                for (size_t i = 0; col >= 0 && i < n; i++)
                        if (!isnan(v = t->num[col][rows[i]])) {
                                s += v;
                                m++;
                        }
                double mean = m ? s / (double)m : NAN;
                if (k < nl)
                        c->bw[k] = mean;
                else
                        c->peak[k - nl] = mean;
        }
        free(rows);
        return 0;
}

/* ---- reading evaluated counts ---- */

/* 1 if key is one of the metrics spec names */
static int spec_names(const struct roof_spec *spec, const char *key)
{
        int hit = !strcmp(key, spec->total) || !strcmp(key, spec->duration);
        for (size_t i = 0; !hit && i < spec->nlevels; i++)
                hit = !strcmp(key, spec->levels[i].bytes);
        for (size_t i = 0; !hit && i < spec->nceilings; i++)
                hit = !strcmp(key, spec->ceilings[i].ops);
        return hit;
}

/* the counts table of panel p: its metric table listing metrics of the roofline */
static const struct panel_table *counts_pt(const struct arch *a, const struct panel *p)
{
        for (size_t i = 0; i < p->ntables; i++) {
                const struct panel_table *pt = &p->tables[i];
                if (pt->source || !panel_table_for(pt, a->target))
                        continue;
                for (size_t r = 0; r < pt->nrows; r++)
                        if (spec_names(&a->roof, pt->rows[r]) && arch_metric(a, pt->rows[r]))
                                return pt;
        }
        return NULL;
}

/* the Avg cell of metric `key` in the counts table (NaN if the table lacks it) */
static double count_of(const struct rtable *t, const char *key)
{
        size_t col = t->ncols;
        for (size_t k = 0; k < t->ncols && k < t->pt->ncols; k++)
                if (!strcmp(t->pt->cols[k].show, "avg")) {
                        col = k;
                        break;
                }
        if (col == t->ncols)
                return NAN;
        size_t kl = strlen(key);
        for (size_t r = 0; r < t->nrows; r++)
                if (!strncmp(t->rkeys[r], key, kl) && t->rkeys[r][kl] == '#')
                        return t->cells[r * t->ncols + col].v;
        return NAN;
}

static void point_fill(struct roof_point *p, const struct roof_spec *spec, const struct rtable *t,
                       size_t calls, const struct arch *a, const char *time_unit)
{
        p->calls = calls;
        p->flops = count_of(t, spec->total);
        p->duration = count_of(t, spec->duration);
        /* a duration shown in -t's unit ($timeUnit, as every time row): back to ns */
        const struct metric *dm = arch_metric(a, spec->duration);
        if (dm && dm->unit && !strcmp(dm->unit, "$timeUnit"))
                p->duration *= time_div(time_unit ? time_unit : "ns");
        p->perf = roof_gflops(p->flops, p->duration);
        for (size_t l = 0; l < spec->nlevels; l++) {
                p->bytes[l] = count_of(t, spec->levels[l].bytes);
                p->ai[l] = roof_ai(p->flops, p->bytes[l]);
        }
        for (size_t d = 0; d < spec->nceilings; d++)
                p->dtype_perf[d] = roof_gflops(count_of(t, spec->ceilings[d].ops), p->duration);
}

/* The counts table evaluated over rows[0..n): one point's values. */
static int eval_point(const struct build_ctx *bc, const struct panel *p,
                      const struct panel_table *cpt, const size_t *rows, size_t n,
                      struct roof_point *pt, struct err *err)
{
        struct rtable t;
        int rc = eval_table(bc, p, cpt, rows, n, &t, err);
        if (rc)
                return rc;
        point_fill(pt, &bc->a->roof, &t, n, bc->a, bc->o->time_unit);
        rtable_free(&t);
        return 0;
}

/* ---- choosing the points ---- */

struct disp {
        size_t row;
        double dur;
};

static int cmp_disp(const void *x, const void *y)
{
        const struct disp *a = x, *b = y;
        if (a->dur != b->dur)
                return a->dur < b->dur ? 1 : -1;
        return (a->row > b->row) - (a->row < b->row);
}

static const char *cell_text(const struct table *t, const char *col, size_t row, char *buf,
                             size_t len)
{
        int c = table_col(t, col);
        return c >= 0 ? table_cell(t, c, row, buf, len) : "";
}

static void add_point(struct roofline *r, const char *name, double dispatch_id)
{
        r->pts = xrealloc(r->pts, (r->npts + 1) * sizeof *r->pts);
        struct roof_point *p = &r->pts[r->npts++];
        memset(p, 0, sizeof *p);
        p->name = xstrdup(name);
        p->dispatch_id = dispatch_id;
}

/* kernel mode: the selected kernels by total time, each over its selected dispatches */
static int build_kernels(const struct build_ctx *bc, const struct panel *p,
                         const struct panel_table *cpt, size_t top, struct roofline *r,
                         struct err *err)
{
        size_t nk;
        struct kstat *ks = kstats_of(bc->w, bc->o, bc->sel, bc->n, 0, 0, &nk);
        struct smap idx = {0};
        for (size_t k = 0; k < nk && k < top; k++)
                smap_put(&idx, ks[k].name, (int)k);
        /* each selected row's kernel among the top ones (-1: none) */
        int *kof = xcalloc(bc->n + 1, sizeof *kof);
        int kc = table_col(&bc->w->pmc, COL_KERNEL_NAME);
        char **texts = kc >= 0 ? bc->w->pmc.str[kc] : NULL;
        struct kptr bytext = {0}; /* a cell text's kernel, found once */
        for (size_t i = 0; i < bc->n; i++) {
                const char *text = texts ? texts[bc->sel[i]] : NULL;
                if (kptr_get(&bytext, text, &kof[i]))
                        continue;
                char *name = row_kname(bc->w, bc->o, bc->sel[i]);
                if (!smap_get(&idx, name, &kof[i]))
                        kof[i] = -1;
                free(name);
                kptr_put(&bytext, text, kof[i]);
        }
        kptr_free(&bytext);
        /* rows for the largest kernel's dispatches, not for every selected one */
        size_t nt = nk < top ? nk : top, most = 0;
        size_t *cnt = xcalloc(nt + 1, sizeof *cnt);
        for (size_t i = 0; i < bc->n; i++)
                if (kof[i] >= 0 && (size_t)kof[i] < nt && ++cnt[kof[i]] > most)
                        most = cnt[kof[i]];
        free(cnt);
        size_t *rows = xcalloc(most + 1, sizeof *rows);
        int rc = 0;
        for (size_t k = 0; !rc && k < nk && k < top; k++) {
                size_t n = 0;
                for (size_t i = 0; i < bc->n; i++)
                        if (kof[i] == (int)k)
                                rows[n++] = bc->sel[i];
                add_point(r, ks[k].name, NAN);
                rc = eval_point(bc, p, cpt, rows, n, &r->pts[r->npts - 1], err);
        }
        free(rows);
        free(kof);
        smap_free(&idx);
        kstats_free(ks, nk);
        return rc;
}

/* dispatch mode: the longest selected dispatches, one point each (a dispatch id is
 * unique per GPU and rank only: the point covers the rows sharing all three) */
static int build_dispatches(const struct build_ctx *bc, const struct panel *p,
                            const struct panel_table *cpt, size_t top, struct roofline *r,
                            struct err *err)
{
        const struct table *t = &bc->w->pmc;
        int cd = table_col(t, COL_DISPATCH_ID);
        struct disp *d = xcalloc(bc->n + 1, sizeof *d);
        for (size_t i = 0; i < bc->n; i++) {
                d[i].row = bc->sel[i];
                d[i].dur = row_duration(bc->w, bc->sel[i]);
                if (isnan(d[i].dur))
                        d[i].dur = -1;
        }
        qsort(d, bc->n, sizeof *d, cmp_disp);
        size_t *rows = xcalloc(t->nrows + 1, sizeof *rows);
        char buf[64];
        int rc = 0;
        for (size_t i = 0; !rc && i < bc->n && i < top; i++) {
                size_t row = d[i].row;
                long id = cd >= 0 ? (long)t->num[cd][row] : (long)row;
                char gpu[64], rank[64];
                snprintf(gpu, sizeof gpu, "%s", cell_text(t, COL_GPU_ID, row, buf, sizeof buf));
                snprintf(rank, sizeof rank, "%s", cell_text(t, COL_RANK, row, buf, sizeof buf));
                struct analysis_opts po = *bc->o;
                po.include_desc = 0;
                po.dispatches = &id;
                po.ndispatches = 1;
                if (*gpu)
                        po.gpu_id = gpu;
                if (*rank)
                        po.rank = rank;
                size_t n = 0;
                for (size_t k = 0; k < t->nrows; k++)
                        if (row_base_selected(bc->w, &po, k))
                                rows[n++] = k;
                add_point(r, cell_text(t, COL_KERNEL_NAME, row, buf, sizeof buf), (double)id);
                rc = eval_point(bc, p, cpt, rows, n, &r->pts[r->npts - 1], err);
        }
        free(rows);
        free(d);
        return rc;
}

/* The roofline of the selected dispatches: ceilings from roofline.csv (none: r->note says
 * so and the tables still come), the top kernels (or dispatches) by total duration. */
static int model_build(const struct build_ctx *bc, const struct panel *p,
                       const struct panel_table *cpt, const struct roof_opts *ro,
                       struct roofline *r, struct err *err)
{
        const struct workload *w = bc->w;
        memset(r, 0, sizeof *r);
        r->spec = &bc->a->roof;
        r->levels = ro->levels ? ro->levels : (1u << r->spec->nlevels) - 1;
        r->by_dispatch = ro->by_dispatch;
        r->c.device = ro->device;
        r->panel = p;
        int rc = 0;
        if (w->has_roofline && w->roofline.nrows) {
                rc = roof_ceilings_read(&w->roofline, r->spec, ro->device, &r->c, err);
                if (rc)
                        return rc;
        } else {
                r->note = xasprintf("%s has no roofline.csv: no ceilings, the roofline plot is "
                                    "skipped (prism roofline -o DIR measures them)",
                                    w->path);
        }
        size_t top = ro->top ? ro->top : ROOF_TOP_DEFAULT;
        rc = ro->by_dispatch ? build_dispatches(bc, p, cpt, top, r, err)
                             : build_kernels(bc, p, cpt, top, r, err);
        if (rc) {
                roofline_free(r);
                return rc;
        }
        return 0;
}

/* ---- tables added to the analysis ---- */

static char *point_label(const struct roof_point *p)
{
        if (isnan(p->dispatch_id))
                return xstrdup(p->name);
        return xasprintf("%s [dispatch %.0f]", p->name, p->dispatch_id);
}

static void add_ceilings(struct analysis *an, const struct roofline *r, const struct panel *p,
                         const struct panel_table *pt)
{
        const char *cols[] = {"Ceiling", "Value", "Unit"};
        const struct roof_spec *s = r->spec;
        struct rtable *t = analysis_add_table(an, p, pt, "index", 3, rtable_titles(cols, 3));
        for (size_t l = 0; l < s->nlevels; l++) {
                const struct roof_level_def *lv = &s->levels[l];
                struct cell *row = rtable_add_row(t, lv->row ? lv->row : lv->column, NULL);
                row[0].text = xasprintf("%s Bandwidth", lv->name);
                row[1].v = r->c.bw[l];
                row[2].text = xstrdup(arch_title(an->arch, "GB/s", "GB/s")); /* the family's words */
        }
        for (size_t d = 0; d < s->nceilings; d++) {
                const struct roof_ceiling_def *cd = &s->ceilings[d];
                if (!cd->column)
                        continue;
                struct cell *row = rtable_add_row(t, cd->row ? cd->row : cd->column, NULL);
                row[0].text = xasprintf("Peak %s", cd->name);
                row[1].v = r->c.peak[d];
                row[2].text = xstrdup(cd->integer ? arch_title(an->arch, "GIOP/s", "GIOP/s")
                                                  : arch_title(an->arch, "GFLOP/s", "GFLOP/s"));
        }
}

/* plot points: one column per level shown */
static void add_points(struct analysis *an, const struct roofline *r, const struct panel *p,
                       const struct panel_table *pt)
{
        const struct roof_spec *s = r->spec;
        const char *cols[3 + ROOF_MAX_LEVELS];
        char *owned[ROOF_MAX_LEVELS] = {0};
        size_t nc = 0;
        cols[nc++] = COL_KERNEL_NAME;
        cols[nc++] = "Dispatches";
        for (size_t l = 0; l < s->nlevels; l++)
                if (r->levels & (1u << l))
                        cols[nc++] = owned[l] = xasprintf("AI %s (FLOP/B)", s->levels[l].name);
        char *perf = xasprintf("Performance (%s)", arch_title(an->arch, "GFLOP/s", "GFLOP/s"));
        cols[nc++] = perf;
        struct rtable *t = analysis_add_table(an, p, pt, "index", nc, rtable_titles(cols, nc));
        free(perf);
        for (size_t l = 0; l < s->nlevels; l++)
                free(owned[l]);
        for (size_t i = 0; i < r->npts; i++) {
                const struct roof_point *pp = &r->pts[i];
                char key[32];
                snprintf(key, sizeof key, "%zu", i);
                struct cell *row = rtable_add_row(t, key, NULL);
                size_t c = 0;
                row[c++].text = point_label(pp);
                row[c++].v = (double)pp->calls;
                for (size_t l = 0; l < s->nlevels; l++)
                        if (r->levels & (1u << l))
                                row[c++].v = pp->ai[l];
                row[c++].v = pp->perf;
        }
}

/* achieved rate per data type */
static void add_dtypes(struct analysis *an, const struct roofline *r, const struct panel *p,
                       const struct panel_table *pt)
{
        const struct roof_spec *s = r->spec;
        const char *cols[1 + ROOF_MAX_CEILINGS];
        char *owned[ROOF_MAX_CEILINGS];
        size_t nc = 0;
        cols[nc++] = COL_KERNEL_NAME;
        for (size_t d = 0; d < s->nceilings; d++)
                cols[nc++] = owned[d] = s->ceilings[d].integer
                                            ? xasprintf("%s (%s)", s->ceilings[d].name,
                                                        arch_title(an->arch, "GIOP/s", "GIOP/s"))
                                            : xstrdup(s->ceilings[d].name);
        struct rtable *t = analysis_add_table(an, p, pt, "index", nc, rtable_titles(cols, nc));
        for (size_t d = 0; d < s->nceilings; d++)
                free(owned[d]);
        for (size_t i = 0; i < r->npts; i++) {
                const struct roof_point *pp = &r->pts[i];
                char key[32];
                snprintf(key, sizeof key, "%zu", i);
                struct cell *row = rtable_add_row(t, key, NULL);
                row[0].text = point_label(pp);
                for (size_t d = 0; d < s->nceilings; d++)
                        row[1 + d].v = pp->dtype_perf[d];
        }
}

int roofline_build_table(const struct build_ctx *bc, const struct panel *p,
                         const struct panel_table *pt, struct err *err)
{
        if (!bc->o->roof)
                return 0;
        struct analysis *an = bc->an;
        if (!an->roof) {
                /* the model once, for the first of the roofline's tables; the error names the
                 * chain's base file, where a family's roofline usually is */
                const struct arch *a = bc->a;
                if (!a->roof.file)
                        return err_set(err, ERR_INPUT,
                                       "%s: family %s has no 'roofline:' section (the levels "
                                       "and ceilings of panel %d)",
                                       a->nfiles ? a->files[0] : "metrics", a->chain, p->id);
                const struct panel_table *cpt = counts_pt(a, p);
                if (!cpt)
                        return 0; /* the architecture has no roofline counts */
                struct roofline *r = xcalloc(1, sizeof *r);
                int rc = model_build(bc, p, cpt, bc->o->roof, r, err);
                if (rc) {
                        free(r);
                        return rc;
                }
                an->roof = r;
        }
        struct roofline *r = an->roof;
        if (!strcmp(pt->source, "roofline_ceilings")) {
                if (r->c.have)
                        add_ceilings(an, r, p, pt);
        } else if (!strcmp(pt->source, "roofline_points")) {
                add_points(an, r, p, pt);
                free(r->points_id);
                r->points_id = xstrdup(pt->id);
        } else {
                add_dtypes(an, r, p, pt);
        }
        return 0;
}

void roofline_free(struct roofline *r)
{
        for (size_t i = 0; i < r->npts; i++)
                free(r->pts[i].name);
        free(r->pts);
        free(r->note);
        free(r->points_id);
        memset(r, 0, sizeof *r);
}
