/* The roofline view model: ceilings from roofline.csv, and per top kernel (or dispatch) the
 * arithmetic intensity at each memory level and the achieved FLOP/s. The FLOP and byte
 * formulas are data (metric keys roof.* in metrics/); here they are only divided. */
#include "roofline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../store/columns.h"

/* The roofline.csv columns are rocprof-compute's (prism's benchmarks write the same). */
const struct roof_level_def roof_levels[ROOF_NLEVELS] = {
    [ROOF_HBM] = {"HBM", "roof.hbm_bytes", "HBMBw"},
    [ROOF_L2] = {"L2", "roof.l2_bytes", "L2Bw"},
    [ROOF_L1] = {"vL1D", "roof.l1_bytes", "L1Bw"},
    [ROOF_LDS] = {"LDS", "roof.lds_bytes", "LDSBw"},
};

const struct roof_dtype_def roof_dtypes[ROOF_NDTYPES] = {
    [ROOF_VALU_F16] = {"VALU FP16", "roof.valu_flops_f16", NULL, 0, 0, "VALU", "FP16"},
    [ROOF_VALU_F32] = {"VALU FP32", "roof.valu_flops_f32", "FP32Flops", 0, 0, "VALU", "FP32"},
    [ROOF_VALU_F64] = {"VALU FP64", "roof.valu_flops_f64", "FP64Flops", 0, 0, "VALU", "FP64"},
    [ROOF_MFMA_F16] = {"MFMA FP16", "roof.mfma_flops_f16", "MFMAF16Flops", 0, 1, "MFMA", "FP16"},
    [ROOF_MFMA_BF16] = {"MFMA BF16", "roof.mfma_flops_bf16", "MFMABF16Flops", 0, 1, "MFMA", "BF16"},
    [ROOF_MFMA_F32] = {"MFMA FP32", "roof.mfma_flops_f32", "MFMAF32Flops", 0, 1, "MFMA", "FP32"},
    [ROOF_MFMA_F64] = {"MFMA FP64", "roof.mfma_flops_f64", "MFMAF64Flops", 0, 1, "MFMA", "FP64"},
    [ROOF_MFMA_I8] = {"MFMA I8", "roof.mfma_iops_i8", "MFMAI8Ops", 1, 1, "MFMA", "I8"},
};

/* rocprof-compute plots the ten longest-running kernels */
#define ROOF_TOP_DEFAULT 10

int roof_level_parse(const char *s)
{
        for (int i = 0; i < ROOF_NLEVELS; i++)
                if (!strcasecmp(s, roof_levels[i].name))
                        return i;
        if (!strcasecmp(s, "L1")) /* rocprof-compute's own name for vL1D in its tables */
                return ROOF_L1;
        return -1;
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

int roof_ceilings_read(const struct table *t, long device, struct roof_ceilings *c, struct err *err)
{
        memset(c, 0, sizeof *c);
        c->device = device;
        for (int i = 0; i < ROOF_NLEVELS; i++)
                c->bw[i] = NAN;
        for (int i = 0; i < ROOF_NDTYPES; i++)
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
        for (int k = 0; k < ROOF_NLEVELS + ROOF_NDTYPES; k++) {
                const char *name = k < ROOF_NLEVELS ? roof_levels[k].bw_col
                                                    : roof_dtypes[k - ROOF_NLEVELS].peak_col;
                int col = name ? table_col(t, name) : -1;
                double s = 0, v;
                size_t m = 0;
                for (size_t i = 0; col >= 0 && i < n; i++)
                        if (!isnan(v = t->num[col][rows[i]])) {
                                s += v;
                                m++;
                        }
                double mean = m ? s / (double)m : NAN;
                if (k < ROOF_NLEVELS)
                        c->bw[k] = mean;
                else
                        c->peak[k - ROOF_NLEVELS] = mean;
        }
        free(rows);
        return 0;
}

/* ---- reading evaluated counts ---- */

static int is_counts_table(const struct rtable *t)
{
        if (!t->metric_table)
                return 0;
        for (size_t r = 0; r < t->nrows; r++)
                if (!strncmp(t->rkeys[r], "roof.", 5))
                        return 1;
        return 0;
}

const struct rtable *roofline_counts_table(const struct analysis *an)
{
        for (size_t i = 0; i < an->ntables; i++)
                if (is_counts_table(&an->tables[i]))
                        return &an->tables[i];
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

static void point_fill(struct roof_point *p, const struct rtable *t, size_t calls)
{
        p->calls = calls;
        p->flops = count_of(t, ROOF_TOTAL_KEY);
        p->duration = count_of(t, ROOF_DURATION_KEY);
        p->perf = roof_gflops(p->flops, p->duration);
        for (int l = 0; l < ROOF_NLEVELS; l++) {
                p->bytes[l] = count_of(t, roof_levels[l].bytes_key);
                p->ai[l] = roof_ai(p->flops, p->bytes[l]);
        }
        for (int d = 0; d < ROOF_NDTYPES; d++)
                p->dtype_perf[d] = roof_gflops(count_of(t, roof_dtypes[d].flops_key), p->duration);
}

/* Evaluate the counts table over the dispatches o selects; fills p. */
static int eval_point(const struct workload *w, const struct arch *a, const struct panel_set *ps,
                      const struct analysis_opts *o, const char *counts_id, struct roof_point *p,
                      struct err *err)
{
        struct analysis sub;
        struct analysis_opts so = *o;
        const char *blocks[1] = {counts_id};
        so.blocks = blocks;
        so.nblocks = 1;
        int rc = analysis_run(w, a, ps, &so, &sub, err);
        if (rc)
                return rc;
        const struct rtable *t = roofline_counts_table(&sub);
        if (t)
                point_fill(p, t, sub.nselected);
        analysis_free(&sub);
        return t ? 0 : err_set(err, ERR_INPUT, "table %s lost its roofline rows", counts_id);
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

/* The names the user's -k selects (indices resolved against the top-kernel list). */
static int selected_names(const struct workload *w, const struct analysis_opts *o, char ***names,
                          size_t *n, struct err *err)
{
        char **top = NULL;
        size_t ntop = 0;
        analysis_top_kernels(w, o, &top, &ntop);
        *names = xcalloc(o->nkernels + o->nkernel_names + 1, sizeof **names);
        *n = 0;
        int rc = 0;
        for (size_t i = 0; i < o->nkernels && !rc; i++) {
                if (o->kernels[i] < 0 || (size_t)o->kernels[i] >= ntop)
                        rc = err_set(err, ERR_INPUT, "kernel index %ld is out of range",
                                     o->kernels[i]);
                else
                        (*names)[(*n)++] = xstrdup(top[o->kernels[i]]);
        }
        for (size_t i = 0; i < o->nkernel_names; i++)
                (*names)[(*n)++] = xstrdup(o->kernel_names[i]);
        for (size_t i = 0; i < ntop; i++)
                free(top[i]);
        free(top);
        return rc;
}

static int name_in(const char *s, char **names, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (!strcmp(s, names[i]))
                        return 1;
        return 0;
}

static void add_point(struct roofline *r, const char *name, double dispatch_id)
{
        r->pts = xrealloc(r->pts, (r->npts + 1) * sizeof *r->pts);
        struct roof_point *p = &r->pts[r->npts++];
        memset(p, 0, sizeof *p);
        p->name = xstrdup(name);
        p->dispatch_id = dispatch_id;
}

/* kernel mode: the top kernels by total time, each over its selected dispatches */
static int build_kernels(const struct workload *w, const struct arch *a, const struct panel_set *ps,
                         const struct analysis_opts *o, const char *counts_id, size_t top,
                         struct roofline *r, struct err *err)
{
        char **sel = NULL, **names = NULL;
        size_t nsel = 0, nnames = 0;
        struct analysis_opts ko = *o;
        ko.sort_by_kernel = 0; /* by total duration, longest first */
        int rc = selected_names(w, o, &sel, &nsel, err);
        if (!rc)
                analysis_top_kernels(w, &ko, &names, &nnames);
        for (size_t i = 0; !rc && i < nnames && r->npts < top; i++) {
                if (nsel && !name_in(names[i], sel, nsel))
                        continue;
                const char *one[1] = {names[i]};
                struct analysis_opts po = ko;
                po.kernels = NULL;
                po.nkernels = 0;
                po.kernel_names = one;
                po.nkernel_names = 1;
                add_point(r, names[i], NAN);
                rc = eval_point(w, a, ps, &po, counts_id, &r->pts[r->npts - 1], err);
        }
        for (size_t i = 0; i < nsel; i++)
                free(sel[i]);
        free(sel);
        for (size_t i = 0; i < nnames; i++)
                free(names[i]);
        free(names);
        return rc;
}

/* dispatch mode: the longest selected dispatches, one point each */
static int build_dispatches(const struct workload *w, const struct arch *a,
                            const struct panel_set *ps, const struct analysis_opts *o,
                            const char *counts_id, size_t top, struct roofline *r, struct err *err)
{
        const struct table *t = &w->pmc;
        char **sel = NULL;
        size_t nsel = 0;
        int rc = selected_names(w, o, &sel, &nsel, err);
        int cs = table_col(t, COL_START), ce = table_col(t, COL_END);
        int cd = table_col(t, COL_DISPATCH_ID);
        struct disp *d = xcalloc(t->nrows + 1, sizeof *d);
        size_t n = 0;
        char buf[64];
        for (size_t row = 0; !rc && row < t->nrows; row++) {
                /* the same filters as the analysis: GPU, dispatch ids, kernels */
                if (o->gpu_id && strcmp(cell_text(t, COL_GPU_ID, row, buf, sizeof buf), o->gpu_id))
                        continue;
                if (o->rank && strcmp(cell_text(t, COL_RANK, row, buf, sizeof buf), o->rank))
                        continue;
                double id = cd >= 0 ? t->num[cd][row] : (double)row;
                if (o->ndispatches) {
                        size_t k;
                        for (k = 0; k < o->ndispatches && (double)o->dispatches[k] != id; k++)
                                ;
                        if (k == o->ndispatches)
                                continue;
                }
                if (nsel &&
                    !name_in(cell_text(t, COL_KERNEL_NAME, row, buf, sizeof buf), sel, nsel))
                        continue;
                d[n].row = row;
                d[n].dur = cs >= 0 && ce >= 0 ? t->num[ce][row] - t->num[cs][row] : NAN;
                if (isnan(d[n].dur))
                        d[n].dur = -1;
                n++;
        }
        qsort(d, n, sizeof *d, cmp_disp);
        for (size_t i = 0; !rc && i < n && i < top; i++) {
                size_t row = d[i].row;
                long id = cd >= 0 ? (long)t->num[cd][row] : (long)row;
                char gpu[64], rank[64];
                snprintf(gpu, sizeof gpu, "%s", cell_text(t, COL_GPU_ID, row, buf, sizeof buf));
                snprintf(rank, sizeof rank, "%s", cell_text(t, COL_RANK, row, buf, sizeof buf));
                struct analysis_opts po = *o;
                po.kernels = NULL;
                po.nkernels = 0;
                po.kernel_names = NULL;
                po.nkernel_names = 0;
                po.dispatches = &id;
                po.ndispatches = 1;
                /* a dispatch id is unique per GPU (and rank) only */
                if (*gpu)
                        po.gpu_id = gpu;
                if (*rank)
                        po.rank = rank;
                add_point(r, cell_text(t, COL_KERNEL_NAME, row, buf, sizeof buf), (double)id);
                rc = eval_point(w, a, ps, &po, counts_id, &r->pts[r->npts - 1], err);
        }
        free(d);
        for (size_t i = 0; i < nsel; i++)
                free(sel[i]);
        free(sel);
        return rc;
}

int roofline_build(const struct workload *w, const struct arch *a, const struct panel_set *ps,
                   const struct analysis_opts *o, const struct analysis *an,
                   const struct roof_opts *ro, struct roofline *r, struct err *err)
{
        memset(r, 0, sizeof *r);
        r->levels = ro->levels ? ro->levels : (1u << ROOF_NLEVELS) - 1;
        r->by_dispatch = ro->by_dispatch;
        r->c.device = ro->device;
        const struct rtable *counts = roofline_counts_table(an);
        if (!counts)
                return err_set(err, ERR_INPUT, "the analysis shows no roofline counts");
        r->panel = counts->panel;
        int rc = 0;
        if (w->has_roofline && w->roofline.nrows) {
                rc = roof_ceilings_read(&w->roofline, ro->device, &r->c, err);
                if (rc)
                        return rc;
        } else {
                r->note = xasprintf("%s has no roofline.csv: no ceilings, the roofline plot is "
                                    "skipped (prism roofline -o DIR measures them)",
                                    w->path);
        }
        size_t top = ro->top ? ro->top : ROOF_TOP_DEFAULT;
        char *id = xstrdup(counts->id);
        rc = ro->by_dispatch ? build_dispatches(w, a, ps, o, id, top, r, err)
                             : build_kernels(w, a, ps, o, id, top, r, err);
        free(id);
        if (rc) {
                roofline_free(r);
                return rc;
        }
        /* the labels in the family's words */
        for (int l = 0; l < ROOF_NLEVELS; l++)
                r->level_name[l] = xstrdup(arch_title(a, roof_levels[l].name, roof_levels[l].name));
        for (int d = 0; d < ROOF_NDTYPES; d++) {
                const struct roof_dtype_def *dt = &roof_dtypes[d];
                if (!r->unit_name[dt->matrix])
                        r->unit_name[dt->matrix] = xstrdup(arch_title(a, dt->unit, dt->unit));
                r->dtype_name[d] = xasprintf("%s %s", r->unit_name[dt->matrix], dt->dtype);
        }
        return 0;
}

/* ---- tables added to the analysis ---- */

static char **dup_list(const char *const *v, size_t n)
{
        char **t = xcalloc(n ? n : 1, sizeof *t);
        for (size_t i = 0; i < n; i++)
                t[i] = xstrdup(v[i]);
        return t;
}

/* the id following the panel's last declared table ("4.2" -> 4.3 + k) */
static char *next_id(const struct panel *p, int k)
{
        long last = 0;
        for (size_t i = 0; i < p->ntables; i++) {
                const char *dot = strrchr(p->tables[i].id, '.');
                long v = dot ? strtol(dot + 1, NULL, 10) : 0;
                if (v > last)
                        last = v;
        }
        return xasprintf("%d.%ld", p->id, last + 1 + k);
}

static struct panel_table *new_pt(struct roofline *r, const char *id, const char *title,
                                  const char *source)
{
        r->pts_tables = xrealloc(r->pts_tables, (r->npts_tables + 1) * sizeof *r->pts_tables);
        struct panel_table *pt = &r->pts_tables[r->npts_tables++];
        memset(pt, 0, sizeof *pt);
        pt->id = xstrdup(id);
        pt->title = xstrdup(title);
        pt->source = xstrdup(source);
        return pt;
}

static char *point_label(const struct roof_point *p)
{
        if (isnan(p->dispatch_id))
                return xstrdup(p->name);
        return xasprintf("%s [dispatch %.0f]", p->name, p->dispatch_id);
}

void roofline_attach(struct analysis *an, struct roofline *r)
{
        size_t at = 0;
        for (size_t i = 0; i < an->ntables; i++)
                if (an->tables[i].panel == r->panel)
                        at = i + 1;
        /* descriptors first: new_pt moves the array, so pointers are taken afterwards */
        char *ids[3];
        for (int k = 0; k < 3; k++)
                ids[k] = next_id(r->panel, k);
        if (r->c.have)
                new_pt(r, ids[0], "Roofline Ceilings", "roofline_ceilings");
        new_pt(r, ids[1], "Roofline Plot Points", "roofline_points");
        new_pt(r, ids[2], "Achieved GFLOP/s per Data Type", "roofline_dtypes");
        size_t k = 0;
        struct rtable *t;
        if (r->c.have) {
                const char *cols[] = {"Ceiling", "Value", "Unit"};
                t = analysis_insert_table(an, at++, r->panel, &r->pts_tables[k++], "index", 3,
                                          dup_list(cols, 3));
                for (int l = 0; l < ROOF_NLEVELS; l++) {
                        struct cell *row = rtable_add_row(
                            t, arch_title(an->arch, roof_levels[l].bw_col, roof_levels[l].bw_col),
                            NULL);
                        row[0].text = xasprintf("%s Bandwidth", r->level_name[l]);
                        row[1].v = r->c.bw[l];
                        row[2].text = xstrdup("GB/s");
                }
                for (int d = 0; d < ROOF_NDTYPES; d++) {
                        if (!roof_dtypes[d].peak_col)
                                continue;
                        struct cell *row = rtable_add_row(
                            t,
                            arch_title(an->arch, roof_dtypes[d].peak_col, roof_dtypes[d].peak_col),
                            NULL);
                        row[0].text = xasprintf("Peak %s", r->dtype_name[d]);
                        row[1].v = r->c.peak[d];
                        row[2].text = xstrdup(roof_dtypes[d].integer ? "GIOP/s" : "GFLOP/s");
                }
        }
        /* plot points: one column per level shown */
        {
                const char *cols[4 + ROOF_NLEVELS];
                char *owned[ROOF_NLEVELS] = {0};
                size_t nc = 0;
                cols[nc++] = COL_KERNEL_NAME;
                cols[nc++] = "Dispatches";
                for (int l = 0; l < ROOF_NLEVELS; l++)
                        if (r->levels & (1u << l))
                                cols[nc++] = owned[l] =
                                    xasprintf("AI %s (FLOP/B)", r->level_name[l]);
                cols[nc++] = "Performance (GFLOP/s)";
                t = analysis_insert_table(an, at++, r->panel, &r->pts_tables[k++], "index", nc,
                                          dup_list(cols, nc));
                for (int l = 0; l < ROOF_NLEVELS; l++)
                        free(owned[l]);
                for (size_t i = 0; i < r->npts; i++) {
                        const struct roof_point *p = &r->pts[i];
                        char key[32];
                        snprintf(key, sizeof key, "%zu", i);
                        struct cell *row = rtable_add_row(t, key, NULL);
                        size_t c = 0;
                        row[c++].text = point_label(p);
                        row[c++].v = (double)p->calls;
                        for (int l = 0; l < ROOF_NLEVELS; l++)
                                if (r->levels & (1u << l))
                                        row[c++].v = p->ai[l];
                        row[c++].v = p->perf;
                }
        }
        /* achieved rate per data type */
        {
                const char *cols[2 + ROOF_NDTYPES];
                size_t nc = 0;
                cols[nc++] = COL_KERNEL_NAME;
                char *owned[ROOF_NDTYPES];
                for (int d = 0; d < ROOF_NDTYPES; d++)
                        cols[nc++] = owned[d] = roof_dtypes[d].integer
                                                    ? xasprintf("%s (GIOP/s)", r->dtype_name[d])
                                                    : xstrdup(r->dtype_name[d]);
                t = analysis_insert_table(an, at++, r->panel, &r->pts_tables[k++], "index", nc,
                                          dup_list(cols, nc));
                for (int d = 0; d < ROOF_NDTYPES; d++)
                        free(owned[d]);
                for (size_t i = 0; i < r->npts; i++) {
                        const struct roof_point *p = &r->pts[i];
                        char key[32];
                        snprintf(key, sizeof key, "%zu", i);
                        struct cell *row = rtable_add_row(t, key, NULL);
                        row[0].text = point_label(p);
                        for (int d = 0; d < ROOF_NDTYPES; d++)
                                row[1 + d].v = p->dtype_perf[d];
                }
        }
        for (int i = 0; i < 3; i++)
                free(ids[i]);
}

void roofline_free(struct roofline *r)
{
        for (size_t i = 0; i < r->npts; i++)
                free(r->pts[i].name);
        free(r->pts);
        free(r->note);
        for (size_t i = 0; i < r->npts_tables; i++) {
                free(r->pts_tables[i].id);
                free(r->pts_tables[i].title);
                free(r->pts_tables[i].source);
        }
        free(r->pts_tables);
        for (int l = 0; l < ROOF_NLEVELS; l++)
                free(r->level_name[l]);
        for (int d = 0; d < ROOF_NDTYPES; d++)
                free(r->dtype_name[d]);
        free(r->unit_name[0]);
        free(r->unit_name[1]);
        memset(r, 0, sizeof *r);
}
