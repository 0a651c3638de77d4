/* Load the shared panel catalogue: panels/NN-name.yaml, one panel per file. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "chart.h"
#include "versions.h"
#include "yamldoc.h"

static const char *const shows[] = {"name", "unit", "text", "avg", "min", "max", "median",
                                    "std", "sum", "q1", "q3", "peak", "pop", NULL};

static void table_clear(struct panel_table *t);

static int load_table(struct ydoc *y, yaml_node_t *n, struct panel_table *t, const char *file,
                      int partial, struct err *err)
{
        if (n->type != YAML_MAPPING_NODE)
                return err_set(err, ERR_INPUT, "%s:%d:%d: a table must be a mapping", file,
                               ydoc_line(n), ydoc_col(n));
        const char *id = ydoc_str(ydoc_get(y, n, "id"));
        if (!id)
                return err_set(err, ERR_INPUT, "%s:%d:%d: table without 'id'", file,
                               ydoc_line(n), ydoc_col(n));
        t->id = xstrdup(id);
        const char *s;
        if ((s = ydoc_str(ydoc_get(y, n, "title"))) && *s)
                t->title = xstrdup(s);
        if ((s = ydoc_str(ydoc_get(y, n, "source"))) && *s)
                t->source = xstrdup(s);
        if ((s = ydoc_str(ydoc_get(y, n, "repeat"))) && *s)
                t->repeat = xstrdup(s);
        yaml_node_t *archs = ydoc_get(y, n, "archs");
        if (archs && archs->type == YAML_SEQUENCE_NODE) {
                t->narchs = ydoc_len(archs);
                t->archs = xcalloc(t->narchs, sizeof *t->archs);
                for (size_t i = 0; i < t->narchs; i++)
                        t->archs[i] = xstrdup(ydoc_str(ydoc_item(y, archs, i)) ?: "");
        }
        yaml_node_t *cols = ydoc_get(y, n, "columns");
        if (cols && cols->type == YAML_SEQUENCE_NODE) {
                t->ncols = ydoc_len(cols);
                t->cols = xcalloc(t->ncols, sizeof *t->cols);
                for (size_t i = 0; i < t->ncols; i++) {
                        yaml_node_t *c = ydoc_item(y, cols, i);
                        struct panel_col *pc = &t->cols[i];
                        const char *title = ydoc_str(ydoc_get(y, c, "title"));
                        const char *show = ydoc_str(ydoc_get(y, c, "show"));
                        const char *field = ydoc_str(ydoc_get(y, c, "field"));
                        const char *round = ydoc_str(ydoc_get(y, c, "round"));
                        pc->round = -1;
                        if (!title || !show)
                                return err_set(err, ERR_INPUT,
                                               "%s:%d:%d: a column needs 'title' and 'show'",
                                               file, ydoc_line(c), ydoc_col(c));
                        size_t k;
                        for (k = 0; shows[k]; k++)
                                if (!strcmp(shows[k], show))
                                        break;
                        if (!shows[k])
                                return err_set(err, ERR_INPUT,
                                               "%s:%d:%d: unknown column kind '%s'", file,
                                               ydoc_line(c), ydoc_col(c), show);
                        pc->title = xstrdup(title);
                        pc->show = xstrdup(show);
                        pc->field = field && *field ? xstrdup(field) : NULL;
                        if (round) {
                                /* a whole number of decimals: atoi's overflow is undefined
                                 * and pow(10, huge) useless (fuzz_yaml_panels) */
                                char *end;
                                long r = strtol(round, &end, 10);
                                if (end == round || *end || r < 0 || r > 20)
                                        return err_set(err, ERR_INPUT,
                                                       "%s:%d:%d: 'round' must be a whole number "
                                                       "from 0 to 20, not '%s'",
                                                       file, ydoc_line(c), ydoc_col(c), round);
                                pc->round = (int)r;
                        }
                }
        }
        yaml_node_t *rows = ydoc_get(y, n, "rows");
        if (rows && rows->type == YAML_SEQUENCE_NODE) {
                t->nrows = ydoc_len(rows);
                t->rows = xcalloc(t->nrows, sizeof *t->rows);
                for (size_t i = 0; i < t->nrows; i++)
                        t->rows[i] = xstrdup(ydoc_str(ydoc_item(y, rows, i)) ?: "");
        }
        yaml_node_t *chart = ydoc_get(y, n, "chart");
        if (chart && !ydoc_is_null(chart)) {
                int rc = chart_load(y, chart, &t->chart, &t->nchart, file, err);
                if (rc)
                        return rc;
        }
        if (!partial && !t->source && !t->ncols)
                return err_set(err, ERR_INPUT, "%s: table %s has neither columns nor a source",
                               file, t->id);
        return 0;
}

static int load_panel(const char *path, struct panel *p, struct err *err)
{
        struct ydoc y;
        int rc = ydoc_load(&y, path, err);
        if (rc)
                return rc;
        p->file = xstrdup(path);
        yaml_node_t *root = ydoc_root(&y);
        const char *id = ydoc_str(ydoc_get(&y, root, "id"));
        const char *title = ydoc_str(ydoc_get(&y, root, "title"));
        yaml_node_t *tables = ydoc_get(&y, root, "tables");
        double d;
        if (!id || parse_double(id, &d) || !title || !tables ||
            tables->type != YAML_SEQUENCE_NODE) {
                rc = err_set(err, ERR_INPUT, "%s: a panel needs 'id', 'title' and 'tables'",
                             path);
                goto out;
        }
        /* (int) of a double out of range is undefined (fuzz_yaml_panels) */
        if (!(d >= 0 && d <= 9999) || d != (int)d) {
                rc = err_set(err, ERR_INPUT, "%s: panel id '%s' is not a whole number from 0 "
                             "to 9999", path, id);
                goto out;
        }
        p->id = (int)d;
        p->title = xstrdup(title);
        p->ntables = ydoc_len(tables);
        p->tables = xcalloc(p->ntables, sizeof *p->tables);
        for (size_t i = 0; i < p->ntables; i++)
                if ((rc = load_table(&y, ydoc_item(&y, tables, i), &p->tables[i], path, 0, err)))
                        goto out;
out:
        ydoc_free(&y);
        return rc;
}

static int cmp_panel(const void *a, const void *b)
{
        const struct panel *x = a, *y = b;
        return (x->id > y->id) - (x->id < y->id);
}

/* "18.10" after "18.9": compare table ids part by part, as numbers */
static int cmp_tid(const void *a, const void *b)
{
        return strverscmp(((const struct panel_table *)a)->id, ((const struct panel_table *)b)->id);
}

/* What the built-in sources' tables are, for the renderers (struct table_props). */
static void table_props(struct panel_table *t)
{
        static const struct {
                const char *source;
                struct table_props props;
        } props[] = {
            {"top_kernels", {.stat_rows = 1, .ranked = 1, .name_width = 40, .name_lines = 3}},
            {"dispatch_list", {.stat_rows = 1, .name_width = 80, .name_lines = 4}},
            {"sysinfo", {.fields = 1}},
            {"findings", {.findings = 1}},
        };
        memset(&t->props, 0, sizeof t->props);
        for (size_t i = 0; t->source && i < sizeof props / sizeof props[0]; i++)
                if (!strcmp(t->source, props[i].source))
                        t->props = props[i].props;
}

/* the index of row key in t, or -1 */
static long row_index(const struct panel_table *t, const char *key)
{
        for (size_t i = 0; i < t->nrows; i++)
                if (!strcmp(t->rows[i], key))
                        return (long)i;
        return -1;
}

/* An overlay's `rows:` as a mapping edits the base table's rows instead of restating them:
 * `after: {KEY: [rows]}` and `before: {KEY: [rows]}` insert rows next to a row of the
 * table, `drop: [KEY, ...]` removes rows, in the order the mapping gives them. A KEY the
 * table lacks is an error naming the file and line. */
static int edit_rows(struct ydoc *y, yaml_node_t *map, struct panel_table *b, const char *file,
                     struct err *err)
{
        for (size_t i = 0; i < ydoc_len(map); i++) {
                const char *op = ydoc_str(ydoc_key(y, map, i));
                yaml_node_t *v = ydoc_val(y, map, i);
                int drop = op && !strcmp(op, "drop"), after = op && !strcmp(op, "after");
                if (!drop && !after && !(op && !strcmp(op, "before")))
                        return err_set(err, ERR_INPUT,
                                       "%s:%d:%d: 'rows' edits are drop, before and after, not "
                                       "'%s'",
                                       file, ydoc_line(v), ydoc_col(v), op ? op : "");
                if (v->type != (drop ? YAML_SEQUENCE_NODE : YAML_MAPPING_NODE))
                        return err_set(err, ERR_INPUT, "%s:%d:%d: rows '%s' must be a %s", file,
                                       ydoc_line(v), ydoc_col(v), op,
                                       drop ? "list of rows" : "mapping of a row to a list");
                for (size_t k = 0; k < ydoc_len(v); k++) {
                        yaml_node_t *kn = drop ? ydoc_item(y, v, k) : ydoc_key(y, v, k);
                        yaml_node_t *add = drop ? NULL : ydoc_val(y, v, k);
                        const char *key = ydoc_str(kn);
                        long at = key ? row_index(b, key) : -1;
                        if (at < 0)
                                return err_set(err, ERR_INPUT,
                                               "%s:%d:%d: rows %s '%s': table %s has no such row",
                                               file, ydoc_line(kn), ydoc_col(kn), op,
                                               key ? key : "", b->id);
                        if (drop) {
                                free(b->rows[at]);
                                memmove(&b->rows[at], &b->rows[at + 1],
                                        (b->nrows - (size_t)at - 1) * sizeof *b->rows);
                                b->nrows--;
                                continue;
                        }
                        if (add->type != YAML_SEQUENCE_NODE)
                                return err_set(err, ERR_INPUT,
                                               "%s:%d:%d: rows %s '%s' must give a list", file,
                                               ydoc_line(add), ydoc_col(add), op, key);
                        size_t na = ydoc_len(add), pos = (size_t)at + (after ? 1 : 0);
                        b->rows = xrealloc(b->rows, (b->nrows + na) * sizeof *b->rows);
                        memmove(&b->rows[pos + na], &b->rows[pos],
                                (b->nrows - pos) * sizeof *b->rows);
                        for (size_t r = 0; r < na; r++)
                                b->rows[pos + r] = xstrdup(ydoc_str(ydoc_item(y, add, r)) ?: "");
                        b->nrows += na;
                }
        }
        return 0;
}

/* One overlay panel file: `id` names the panel (a new id adds a panel, which then needs a
 * title); each table entry replaces, by id, the keys it gives (title, columns, rows,
 * repeat, source, archs) of the base table (rows as a mapping edit the base's: edit_rows),
 * adds a table with a new id, or with `remove: true` drops one. */
static int apply_overlay(struct panel_set *ps, const char *path, size_t *cap, struct err *err)
{
        struct ydoc y;
        int rc = ydoc_load(&y, path, err);
        if (rc)
                return rc;
        yaml_node_t *root = ydoc_root(&y);
        const char *id = ydoc_str(ydoc_get(&y, root, "id"));
        const char *title = ydoc_str(ydoc_get(&y, root, "title"));
        yaml_node_t *tables = ydoc_get(&y, root, "tables");
        double d;
        if (!id || parse_double(id, &d) || !(d >= 0 && d <= 9999) || d != (int)d ||
            (tables && tables->type != YAML_SEQUENCE_NODE)) {
                rc = err_set(err, ERR_INPUT, "%s: a panel overlay needs a whole-number 'id' and "
                             "a list of 'tables'", path);
                goto out;
        }
        struct panel *p = NULL;
        for (size_t i = 0; i < ps->npanels; i++)
                if (ps->panels[i].id == (int)d)
                        p = &ps->panels[i];
        if (!p) {
                if (!title) {
                        rc = err_set(err, ERR_INPUT, "%s: new panel %d needs a 'title'", path,
                                     (int)d);
                        goto out;
                }
                xgrow(&ps->panels, cap, ps->npanels + 1, sizeof *ps->panels);
                p = &ps->panels[ps->npanels++];
                memset(p, 0, sizeof *p);
                p->id = (int)d;
                p->file = xstrdup(path);
        }
        if (title) {
                free(p->title);
                p->title = xstrdup(title);
        }
        for (size_t i = 0; tables && i < ydoc_len(tables); i++) {
                yaml_node_t *n = ydoc_item(&y, tables, i);
                const char *tid = ydoc_str(ydoc_get(&y, n, "id"));
                const char *rm = ydoc_str(ydoc_get(&y, n, "remove"));
                if (!tid) {
                        rc = err_set(err, ERR_INPUT, "%s:%d:%d: table without 'id'", path,
                                     ydoc_line(n), ydoc_col(n));
                        goto out;
                }
                size_t j;
                for (j = 0; j < p->ntables; j++)
                        if (!strcmp(p->tables[j].id, tid))
                                break;
                if (rm && !strcmp(rm, "true")) {
                        if (j < p->ntables) {
                                table_clear(&p->tables[j]);
                                memmove(&p->tables[j], &p->tables[j + 1],
                                        (p->ntables - j - 1) * sizeof *p->tables);
                                p->ntables--;
                        }
                        continue;
                }
                struct panel_table t = {0};
                /* an entry for an existing table gives only what changes */
                if ((rc = load_table(&y, n, &t, path, j < p->ntables, err))) {
                        table_clear(&t);
                        goto out;
                }
                if (j == p->ntables) {
                        p->tables = xrealloc(p->tables, (p->ntables + 1) * sizeof *p->tables);
                        p->tables[p->ntables++] = t;
                        continue;
                }
                struct panel_table *b = &p->tables[j];
#define TAKE(key, f, nf) do { if (ydoc_get(&y, n, key)) { struct panel_table tmp = {0}; \
                tmp.f = b->f; tmp.nf = b->nf; b->f = t.f; b->nf = t.nf; t.f = tmp.f; t.nf = tmp.nf; } } while (0)
                TAKE("columns", cols, ncols);
                yaml_node_t *rn = ydoc_get(&y, n, "rows");
                if (rn && rn->type == YAML_MAPPING_NODE) {
                        if ((rc = edit_rows(&y, rn, b, path, err))) {
                                table_clear(&t);
                                goto out;
                        }
                } else {
                        TAKE("rows", rows, nrows);
                }
                TAKE("archs", archs, narchs);
                TAKE("chart", chart, nchart);
#undef TAKE
                char **strs[] = {&b->title, &b->repeat, &b->source};
                char **news[] = {&t.title, &t.repeat, &t.source};
                const char *keys[] = {"title", "repeat", "source"};
                for (int k = 0; k < 3; k++)
                        if (ydoc_get(&y, n, keys[k])) {
                                char *x = *strs[k];
                                *strs[k] = *news[k];
                                *news[k] = x;
                        }
                table_clear(&t);
        }
        if (p->ntables > 1)
                qsort(p->tables, p->ntables, sizeof *p->tables, cmp_tid);
out:
        ydoc_free(&y);
        return rc;
}

int panels_load(const char *dir, struct panel_set *ps, struct err *err)
{
        memset(ps, 0, sizeof *ps);
        /* one listing: the panel files (in the directory's order) and the version
         * overlays in force, oldest first */
        char **files, **ov = NULL;
        size_t nfiles, nov = 0;
        if (data_dir_list(dir, &files, &nfiles, &ov, &nov))
                return err_set(err, ERR_INPUT, "cannot open panels directory '%s'", dir);
        struct dirent *de;
        size_t cap = 0;
        int rc = 0;
        for (size_t i = 0; i < nfiles; i++) {
                if (!rc) {
                        xgrow(&ps->panels, &cap, ps->npanels + 1, sizeof *ps->panels);
                        struct panel *p = &ps->panels[ps->npanels++];
                        memset(p, 0, sizeof *p);
                        char *path = xasprintf("%s/%s", dir, files[i]);
                        rc = load_panel(path, p, err);
                        free(path);
                }
                free(files[i]);
        }
        free(files);
        for (size_t o = 0; o < nov; o++) {
                DIR *od = rc ? NULL : opendir(ov[o]);
                char **names = NULL;
                size_t nn = 0, ncap = 0;
                while (od && (de = readdir(od))) {
                        size_t l = strlen(de->d_name);
                        if (l > 5 && !strcmp(de->d_name + l - 5, ".yaml")) {
                                xgrow(&names, &ncap, nn + 1, sizeof *names);
                                names[nn++] = xasprintf("%s/%s", ov[o], de->d_name);
                        }
                }
                if (od)
                        closedir(od);
                for (size_t i = 0; i < nn; i++) {
                        if (!rc)
                                rc = apply_overlay(ps, names[i], &cap, err);
                        free(names[i]);
                }
                free(names);
                free(ov[o]);
        }
        free(ov);
        if (rc) {
                panels_free(ps);
                return rc;
        }
        qsort(ps->panels, ps->npanels, sizeof *ps->panels, cmp_panel);
        for (size_t i = 0; i < ps->npanels; i++)
                for (size_t j = 0; j < ps->panels[i].ntables; j++)
                        table_props(&ps->panels[i].tables[j]);
        for (size_t i = 1; i < ps->npanels; i++)
                if (ps->panels[i].id == ps->panels[i - 1].id) {
                        rc = err_set(err, ERR_INPUT, "%s: panel id %d also used by %s",
                                     ps->panels[i].file, ps->panels[i].id,
                                     ps->panels[i - 1].file);
                        panels_free(ps);
                        return rc;
                }
        return 0;
}

static void table_clear(struct panel_table *t)
{
        free(t->id);
        free(t->title);
        free(t->source);
        free(t->repeat);
        for (size_t i = 0; i < t->narchs; i++)
                free(t->archs[i]);
        free(t->archs);
        for (size_t i = 0; i < t->ncols; i++) {
                free(t->cols[i].title);
                free(t->cols[i].show);
                free(t->cols[i].field);
        }
        free(t->cols);
        for (size_t i = 0; i < t->nrows; i++)
                free(t->rows[i]);
        free(t->rows);
        chart_free(t->chart, t->nchart);
}

void panels_free(struct panel_set *ps)
{
        for (size_t i = 0; i < ps->npanels; i++) {
                struct panel *p = &ps->panels[i];
                for (size_t j = 0; j < p->ntables; j++)
                        table_clear(&p->tables[j]);
                free(p->tables);
                free(p->title);
                free(p->file);
        }
        free(ps->panels);
        memset(ps, 0, sizeof *ps);
}

int panel_table_for(const struct panel_table *pt, const char *target)
{
        if (!pt->narchs)
                return 1;
        for (size_t i = 0; i < pt->narchs; i++)
                if (!strcmp(pt->archs[i], target))
                        return 1;
        return 0;
}

void panels_use_titles(struct panel_set *ps, const struct arch *a)
{
        for (size_t i = 0; i < ps->npanels; i++) {
                struct panel *p = &ps->panels[i];
                char pid[16];
                snprintf(pid, sizeof pid, "%d", p->id);
                const char *t = arch_title(a, pid, NULL);
                if (t && p->title != t) {
                        free(p->title);
                        p->title = xstrdup(t);
                }
                for (size_t k = 0; k < p->ntables; k++) {
                        struct panel_table *pt = &p->tables[k];
                        t = arch_title(a, pt->id, NULL);
                        if (t && pt->title) {
                                free(pt->title);
                                pt->title = xstrdup(t);
                        }
                }
        }
}
