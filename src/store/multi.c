/* Multi-rank trees: find NAME/<node>/rank<N>/ workloads, load each (databases attached
 * together and read through views) and concatenate them with Rank and Node columns. */
#include "multi.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "db.h"

/* "rank<N>" -> N, or -1 */
static long rank_of(const char *name)
{
        if (strncmp(name, "rank", 4) || !name[4])
                return -1;
        char *end;
        long v = strtol(name + 4, &end, 10);
        return *end || v < 0 || name[4] == '-' || name[4] == '+' ? -1 : v;
}

static char **list_dir(const char *dir, size_t *n, int dirs_only)
{
        DIR *d = opendir(dir);
        char **v = NULL;
        size_t cap = 0;
        struct dirent *de;
        *n = 0;
        while (d && (de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                char *p = xasprintf("%s/%s", dir, de->d_name);
                int ok = dirs_only ? is_dir(p) : 1;
                free(p);
                if (!ok)
                        continue;
                xgrow(&v, &cap, *n + 1, sizeof *v);
                v[(*n)++] = xstrdup(de->d_name);
        }
        if (d)
                closedir(d);
        return v;
}

static void free_list(char **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

static int is_workload_dir(const char *dir)
{
        return is_file_in(dir, "pmc_perf.csv") || is_file_in(dir, "sysinfo.csv");
}

int multi_is_tree(const char *root)
{
        size_t nn, nr;
        char **nodes = list_dir(root, &nn, 1);
        int found = 0;
        for (size_t i = 0; i < nn && !found; i++) {
                char *nd = xasprintf("%s/%s", root, nodes[i]);
                char **ranks = list_dir(nd, &nr, 1);
                for (size_t j = 0; j < nr && !found; j++)
                        found = rank_of(ranks[j]) >= 0;
                free_list(ranks, nr);
                free(nd);
        }
        free_list(nodes, nn);
        return found;
}

static void add_entry(struct rank_tree *t, size_t *cap, const char *path, const char *node,
                      long rank, int is_db)
{
        xgrow(&t->v, cap, t->n + 1, sizeof *t->v);
        t->v[t->n++] = (struct rank_entry){xstrdup(path), xstrdup(node), rank, is_db};
}

static int db_name(const char *name)
{
        size_t l = strlen(name);
        return l > 3 && !strcmp(name + l - 3, ".db");
}

/* the workloads of one rank directory: itself, its prism.db, or its sub-directories and
 * .db files (one per GPU model) */
static void scan_rank(struct rank_tree *t, size_t *cap, const char *rdir, const char *node,
                      long rank)
{
        if (is_workload_dir(rdir)) {
                add_entry(t, cap, rdir, node, rank, 0);
                return;
        }
        if (is_file_in(rdir, DB_DEFAULT_NAME)) {
                char *p = xasprintf("%s/%s", rdir, DB_DEFAULT_NAME);
                add_entry(t, cap, p, node, rank, 1);
                free(p);
                return;
        }
        size_t n;
        char **sub = list_dir(rdir, &n, 0);
        for (size_t i = 0; i < n; i++) {
                char *p = xasprintf("%s/%s", rdir, sub[i]);
                if (is_dir(p) && is_workload_dir(p)) {
                        add_entry(t, cap, p, node, rank, 0);
                } else if (is_dir(p) && is_file_in(p, DB_DEFAULT_NAME)) {
                        char *q = xasprintf("%s/%s", p, DB_DEFAULT_NAME);
                        add_entry(t, cap, q, node, rank, 1);
                        free(q);
                } else if (is_file(p) && db_name(sub[i])) {
                        add_entry(t, cap, p, node, rank, 1);
                }
                free(p);
        }
        free_list(sub, n);
}

static int cmp_entry(const void *a, const void *b)
{
        const struct rank_entry *x = a, *y = b;
        if (x->rank != y->rank)
                return x->rank < y->rank ? -1 : 1;
        return strcmp(x->path, y->path);
}

int multi_scan(const char *root, struct rank_tree *t, struct err *err)
{
        size_t nn, nr, cap = 0;
        int rc = 0;
        char **nodes = list_dir(root, &nn, 1);
        memset(t, 0, sizeof *t);
        for (size_t i = 0; i < nn; i++) {
                char *nd = xasprintf("%s/%s", root, nodes[i]);
                char **ranks = list_dir(nd, &nr, 1);
                for (size_t j = 0; j < nr; j++) {
                        long r = rank_of(ranks[j]);
                        if (r < 0)
                                continue;
                        char *rd = xasprintf("%s/%s", nd, ranks[j]);
                        scan_rank(t, &cap, rd, nodes[i], r);
                        free(rd);
                }
                free_list(ranks, nr);
                free(nd);
        }
        free_list(nodes, nn);
        if (t->n)
                qsort(t->v, t->n, sizeof *t->v, cmp_entry);
        for (size_t i = 1; i < t->n && !rc; i++)
                if (t->v[i].rank == t->v[i - 1].rank && strcmp(t->v[i].node, t->v[i - 1].node))
                        rc = err_set(err, ERR_INPUT,
                                     "'%s': rank %ld was recorded on two nodes ('%s' and '%s')",
                                     root, t->v[i].rank, t->v[i - 1].node, t->v[i].node);
        if (rc)
                multi_free(t);
        return rc;
}

void multi_free(struct rank_tree *t)
{
        for (size_t i = 0; i < t->n; i++) {
                free(t->v[i].path);
                free(t->v[i].node);
        }
        free(t->v);
        memset(t, 0, sizeof *t);
}

/* ---- concatenation ---- */

/* make column c of t a text column, giving earlier numeric cells their text (as the CSV
 * loader does when a column's first text cell arrives) */
static void ensure_text(struct table *t, int c, size_t upto)
{
        if (t->str[c])
                return;
        t->str[c] = xcalloc(t->cap_rows ? t->cap_rows : 1, sizeof(char *));
        char buf[64];
        for (size_t r = 0; r < upto; r++)
                if (!isnan(t->num[c][r]))
                        t->str[c][r] = xstrdup(table_cell(t, c, r, buf, sizeof buf));
}

/* append up to max rows of src to dst, columns by name */
static void append_rows(struct table *dst, const struct table *src, size_t max)
{
        size_t base = dst->nrows, n = src->nrows < max ? src->nrows : max;
        for (size_t r = 0; r < n; r++)
                table_add_row(dst);
        char buf[64];
        for (size_t c = 0; c < src->ncols; c++) {
                int d = table_add_col(dst, src->names[c]);
                if (src->str[c])
                        ensure_text(dst, d, base);
                for (size_t r = 0; r < n; r++) {
                        dst->num[d][base + r] = src->num[c][r];
                        const char *s = src->str[c] ? src->str[c][r] : NULL;
                        if (!s && dst->str[d] && !isnan(src->num[c][r]))
                                s = table_cell(src, (int)c, r, buf, sizeof buf);
                        if (s)
                                table_set_str(dst, d, base + r, s);
                }
        }
}

static void pad_rows(struct table *t, size_t nrows)
{
        while (t->nrows < nrows)
                table_add_row(t);
}

void multi_append(struct workload *dst, const struct workload *src, long rank, const char *node)
{
        size_t base = dst->pmc.nrows;
        if (!dst->arch) {
                dst->arch = xstrdup(src->arch);
                dst->model = xstrdup(src->model ? src->model : "");
                append_rows(&dst->sysinfo, &src->sysinfo, src->sysinfo.nrows);
                if (src->has_roofline) {
                        append_rows(&dst->roofline, &src->roofline, src->roofline.nrows);
                        dst->has_roofline = 1;
                }
        } else if (!dst->has_roofline && src->has_roofline) {
                append_rows(&dst->roofline, &src->roofline, src->roofline.nrows);
                dst->has_roofline = 1;
        }
        append_rows(&dst->pmc, &src->pmc, src->pmc.nrows);
        /* the rank's kernel short names (3.6+), for -k: repeats of other ranks' are harmless */
        if (src->ksyms.nrows)
                append_rows(&dst->ksyms, &src->ksyms, src->ksyms.nrows);
        /* the rank's GPU, from its own sysinfo */
        int rc_rank = table_add_col(&dst->ranks, COL_RANK);
        int rc_node = table_add_col(&dst->ranks, COL_NODE);
        size_t rr = table_add_row(&dst->ranks);
        dst->ranks.num[rc_rank][rr] = (double)rank;
        table_set_str(&dst->ranks, rc_node, rr, node);
        static const char *const ident[] = {"gpu_uuid", "gpu_pci_bus", "gpu_choice"};
        for (size_t i = 0; i < sizeof ident / sizeof *ident; i++) {
                int sc = table_col(&src->sysinfo, ident[i]);
                int dc = table_add_col(&dst->ranks, ident[i]);
                char buf[64];
                const char *v = sc >= 0 && src->sysinfo.nrows
                                    ? table_cell(&src->sysinfo, sc, 0, buf, sizeof buf)
                                    : "";
                table_set_str(&dst->ranks, dc, rr, v);
        }
        int cr = table_add_col(&dst->pmc, COL_RANK), cn = table_add_col(&dst->pmc, COL_NODE);
        for (size_t r = base; r < dst->pmc.nrows; r++) {
                dst->pmc.num[cr][r] = (double)rank;
                table_set_str(&dst->pmc, cn, r, node);
        }
        /* accumulate tables: aligned with pmc by row, so pad and truncate to match */
        for (size_t i = 0; i < src->nacc; i++) {
                size_t k;
                for (k = 0; k < dst->nacc && strcmp(dst->acc_names[k], src->acc_names[i]); k++)
                        ;
                if (k == dst->nacc) {
                        dst->acc = xrealloc(dst->acc, (k + 1) * sizeof *dst->acc);
                        dst->acc_names = xrealloc(dst->acc_names, (k + 1) * sizeof *dst->acc_names);
                        table_init(&dst->acc[k]);
                        dst->acc_names[k] = xstrdup(src->acc_names[i]);
                        dst->nacc++;
                }
                pad_rows(&dst->acc[k], base);
                append_rows(&dst->acc[k], &src->acc[i], src->pmc.nrows);
        }
        for (size_t k = 0; k < dst->nacc; k++)
                pad_rows(&dst->acc[k], dst->pmc.nrows);
}

/* the accumulate tables sorted by name, as a directory lists them */
static void finish(struct workload *w, const char *root)
{
        for (size_t i = 1; i < w->nacc; i++)
                for (size_t j = i; j > 0 && strcmp(w->acc_names[j - 1], w->acc_names[j]) > 0; j--) {
                        struct table t = w->acc[j];
                        char *n = w->acc_names[j];
                        w->acc[j] = w->acc[j - 1];
                        w->acc_names[j] = w->acc_names[j - 1];
                        w->acc[j - 1] = t;
                        w->acc_names[j - 1] = n;
                }
        free(w->path);
        w->path = xstrdup(root);
}

static int add_one(struct workload *w, struct workload *one, const struct rank_entry *e,
                   struct err *err)
{
        if (w->arch && strcmp(w->arch, one->arch))
                return err_set(err, ERR_INPUT,
                               "'%s' was recorded on %s, but the lower ranks on %s: a tree must "
                               "hold one architecture",
                               e->path, one->arch, w->arch);
        multi_append(w, one, e->rank, e->node);
        return 0;
}

int multi_open(const char *root, table_col_fn want, void *ctx, multi_open_fn open_one,
               struct workload *w, struct err *err)
{
        struct rank_tree t;
        int rc = multi_scan(root, &t, err), all_db = 1;
        memset(w, 0, sizeof *w);
        w->path = xstrdup(root);
        if (rc)
                goto out;
        if (!t.n) {
                rc = err_set(err, ERR_INPUT,
                             "cannot open workload '%s': no rank<N> directory "
                             "holds a workload",
                             root);
                goto out;
        }
        for (size_t i = 0; i < t.n; i++)
                all_db &= t.v[i].is_db;
        size_t batch = all_db ? db_attach_limit() : 1;
        for (size_t i = 0; i < t.n && !rc; i += batch) {
                size_t n = t.n - i < batch ? t.n - i : batch;
                struct workload *ws = xcalloc(n, sizeof *ws);
                if (all_db) {
                        const char **paths = xcalloc(n, sizeof *paths);
                        for (size_t j = 0; j < n; j++)
                                paths[j] = t.v[i + j].path;
                        rc = db_open_many(paths, n, want, ctx, ws, err);
                        free(paths);
                } else {
                        rc = open_one(t.v[i].path, want, ctx, &ws[0], err);
                }
                if (!rc) {
                        /* loaded: every ws[j] is open until closed here */
                        for (size_t j = 0; j < n; j++) {
                                if (!rc)
                                        rc = add_one(w, &ws[j], &t.v[i + j], err);
                                workload_close(&ws[j]);
                        }
                }
                free(ws);
        }
        if (!rc)
                finish(w, root);
out:
        multi_free(&t);
        if (rc)
                workload_close(w);
        return rc;
}

int multi_arch(const char *root, multi_arch_fn arch_one, char **arch, struct err *err)
{
        struct rank_tree t;
        int rc = multi_scan(root, &t, err);
        *arch = NULL;
        if (rc)
                return rc;
        if (!t.n)
                rc = err_set(err, ERR_INPUT,
                             "cannot open workload '%s': no rank<N> directory "
                             "holds a workload",
                             root);
        else
                rc = arch_one(t.v[0].path, arch, err);
        multi_free(&t);
        return rc;
}
