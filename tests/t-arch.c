/* Metric inheritance and the data loaders: fixtures under tests/data/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arch/arch.h"
#include "arch/versions.h"
#include "util/util.h"
#include "tmpfiles.h"

#define DATA "tests/data/"

static const char *field(const struct metric *m, const char *key)
{
        for (size_t i = 0; i < m->nfields; i++)
                if (!strcmp(m->fields[i].key, key))
                        return m->fields[i].src;
        return NULL;
}

/* one row per (target, metric key): what the resolved chain must give */
struct inherit_case {
        const char *target, *key;
        int present;
        const char *name, *expr, *unit;
};

static const struct inherit_case inherit_cases[] = {
    {"gfxT1", "t.a", 1, "Alpha", "SQ_A2 / $denom", "Req $normUnit"}, /* expr only changed */
    {"gfxT1", "t.b", 0, NULL, NULL, NULL},                              /* removed by null */
    {"gfxT1", "t.c", 1, "Gamma", "SQ_C", NULL},
    {"gfxT1", "t.d", 1, "Delta", "SQ_D", NULL},                         /* added */
    {"gfxT2", "t.a", 1, "Alpha Prime", "SQ_A2 / $denom", "Req $normUnit"},
    {"gfxT2", "t.b", 1, "Beta Again", "SQ_B2", NULL},                   /* restored */
    {"gfxT3", "t.d", 1, "Delta", "SQ_D", NULL},
};

static void test_inheritance(void **state)
{
        (void)state;
        for (size_t i = 0; i < sizeof inherit_cases / sizeof *inherit_cases; i++) {
                const struct inherit_case *c = &inherit_cases[i];
                struct arch a;
                struct err err = {0};
                assert_int_equal(arch_load(DATA "metrics-inherit", c->target, &a, &err), 0);
                const struct metric *m = arch_metric(&a, c->key);
                if (!c->present) {
                        assert_null(m);
                } else {
                        assert_non_null(m);
                        assert_string_equal(m->name, c->name);
                        assert_string_equal(m->expr.src, c->expr);
                        assert_non_null(m->expr.expr);
                        if (c->unit)
                                assert_string_equal(m->unit, c->unit);
                        else
                                assert_null(m->unit);
                }
                arch_free(&a);
        }
}

static void test_fields_and_limits(void **state)
{
        (void)state;
        struct arch a;
        struct err err = {0};
        assert_int_equal(arch_load(DATA "metrics-inherit", "gfxT1", &a, &err), 0);
        const struct metric *m = arch_metric(&a, "t.c");
        assert_string_equal(field(m, "x"), "SQ_X");
        assert_null(field(m, "y"));
        assert_string_equal(field(m, "z"), "SQ_Z");
        assert_int_equal(m->noverrides, 1); /* kept from the base */
        assert_int_equal(arch_metric(&a, "t.a")->noverrides, 0); /* override: null drops it */
        assert_int_equal(arch_block_limit(&a, "SQ"), 8);
        assert_int_equal(arch_block_limit(&a, "TCC"), 2); /* child overrides one key */
        assert_int_equal(arch_block_limit(&a, "TD"), -1);
        assert_true(arch_default(&a, "total_l2_chan") == 4);
        assert_true(isnan(arch_default(&a, "nothing")));
        assert_int_equal(a.nbuiltins, 1);
        assert_int_equal(a.nnorms, 2);
        assert_string_equal(a.chain, "child < base");
        /* the peak kept from the base parses too */
        assert_non_null(arch_metric(&a, "t.a")->peak.expr);
        arch_free(&a);
}

static void test_errors(void **state)
{
        (void)state;
        struct arch a;
        struct err err = {0};
        assert_int_not_equal(arch_load(DATA "metrics-inherit", "gfx1234", &a, &err), 0);
        assert_non_null(strstr(err.msg, "unknown architecture 'gfx1234'"));
        assert_non_null(strstr(err.msg, "gfxT1, ") || strstr(err.msg, "gfxT1)"));
        assert_int_not_equal(arch_load(DATA "bad-metrics", "gfxBad", &a, &err), 0);
        assert_non_null(strstr(err.msg, "bad-metrics/bad.yaml:6:"));
        assert_non_null(strstr(err.msg, "t.x"));
        assert_int_not_equal(arch_load(DATA "loop-metrics", "gfxLoop", &a, &err), 0);
        assert_non_null(strstr(err.msg, "circular"));
        assert_int_not_equal(arch_load(DATA "orphan-metrics", "gfxO", &a, &err), 0);
        assert_non_null(strstr(err.msg, "inherits unknown family 'nowhere'"));
        assert_int_not_equal(arch_load(DATA "no-such-dir", "gfxT1", &a, &err), 0);
        assert_non_null(strstr(err.msg, "cannot open metrics directory"));
        assert_int_not_equal(arch_load(DATA "bad-models", "gfxBM", &a, &err), 0);
        assert_non_null(strstr(err.msg, "bad-models/bad.yaml:4:"));
        assert_non_null(strstr(err.msg, "model fact 'cu' must be a number"));
}

/* models: by device id, else the target's model without one; facts over model_facts */
static void test_models(void **state)
{
        (void)state;
        struct arch a;
        struct err err = {0};
        assert_int_equal(arch_load(DATA "models/metrics", "gfxM", &a, &err), 0);
        assert_int_equal(a.nmodels, 2);
        const struct arch_model *m = arch_model_find(&a, 0x1234);
        assert_non_null(m);
        assert_string_equal(m->name, "M_ONE");
        assert_true(arch_model_fact(&a, m, "cu") == 20);
        assert_true(arch_model_fact(&a, m, "mclk") == 500);
        m = arch_model_find(&a, 0);
        assert_string_equal(m->name, "M_ANY");
        assert_true(arch_model_fact(&a, m, "mclk") == 800);
        assert_true(isnan(arch_model_fact(&a, m, "nothing")));
        arch_free(&a);
}

/* same_as: a metric shows another's formula under its own name, resolved per architecture */
static void test_same_as(void **state)
{
        (void)state;
        struct arch a;
        struct err err = {0};
        assert_int_equal(arch_load(DATA "metrics-ref", "gfxR1", &a, &err), 0);
        const char *follow[] = {"r.ref", "r.chain"};
        for (size_t i = 0; i < 2; i++) {
                const struct metric *m = arch_metric(&a, follow[i]);
                assert_non_null(m);
                assert_string_equal(m->expr.src, "SQ_A2 / $denom"); /* the child's source */
                assert_non_null(m->expr.expr);
                assert_string_equal(m->table, "SQ_LEVEL");
                assert_null(m->unit); /* only the formula is shared */
        }
        assert_string_equal(arch_metric(&a, "r.ref")->name, "Shown Elsewhere");
        const struct metric *own = arch_metric(&a, "r.own");
        assert_string_equal(own->expr.src, "SQ_OWN");
        assert_null(own->same_as);
        assert_null(own->table);
        arch_free(&a);

        assert_int_not_equal(arch_load(DATA "ref-missing", "gfxRM", &a, &err), 0);
        assert_non_null(strstr(err.msg, "ref-missing/base.yaml:8:14:"));
        assert_non_null(strstr(err.msg, "'same_as: r.nowhere', which this architecture lacks"));
        assert_int_not_equal(arch_load(DATA "ref-circle", "gfxRC", &a, &err), 0);
        assert_non_null(strstr(err.msg, "in a circle"));
        /* a key twice in one mapping is an error, not a silent merge */
        assert_int_not_equal(arch_load(DATA "dup-key", "gfxDK", &a, &err), 0);
        assert_non_null(
            strstr(err.msg, "dup-key/base.yaml:9:3: duplicate key 'r.a' (first at line 5)"));
}

static void test_list(void **state)
{
        (void)state;
        char **t;
        size_t n;
        struct err err = {0};
        assert_int_equal(arch_list(DATA "metrics-inherit", &t, &n, &err), 0);
        assert_int_equal(n, 3);
        assert_string_equal(t[0], "gfxT1");
        assert_string_equal(t[2], "gfxT3");
        for (size_t i = 0; i < n; i++)
                free(t[i]);
        free(t);
}

/* the shipped data: every architecture loads and the panels refer to known metrics */
static void test_shipped_data(void **state)
{
        (void)state;
        char **t;
        size_t n;
        struct err err = {0};
        struct panel_set ps;
        assert_int_equal(panels_load("panels", &ps, &err), 0);
        assert_true(ps.npanels >= 17);
        assert_int_equal(arch_list("metrics", &t, &n, &err), 0);
        assert_true(n >= 5);
        for (size_t i = 0; i < n; i++) {
                struct arch a;
                assert_int_equal(arch_load("metrics", t[i], &a, &err), 0);
                assert_true(a.nmetrics > 100);
                /* ip_blocks: the AMD families record rocprof-compute's blocks, NVIDIA none */
                assert_true(a.chip ? a.nip_blocks == 0 : a.nip_blocks == 10);
                if (!a.chip)
                        assert_string_equal(a.ip_blocks[0], "SQ");
                /* every AMD target has a GPU model (profile's detection reads it) */
                assert_true(a.chip ? a.nmodels == 0 : arch_model_find(&a, 0) != NULL);
                arch_free(&a);
                free(t[i]);
        }
        free(t);
        /* the memory chart is the data of table 3.1: ten parts, four of them caches */
        const struct panel_table *mc = NULL;
        for (size_t i = 0; i < ps.npanels; i++)
                for (size_t j = 0; j < ps.panels[i].ntables; j++)
                        if (!strcmp(ps.panels[i].tables[j].id, "3.1"))
                                mc = &ps.panels[i].tables[j];
        assert_non_null(mc);
        assert_int_equal(mc->nchart, 10);
        size_t caches = 0;
        for (size_t i = 0; i < mc->nchart; i++)
                caches += !strcmp(mc->chart[i].role, "cache");
        assert_int_equal(caches, 4);
        assert_string_equal(mc->chart[0].role, "buffer");
        assert_string_equal(mc->chart[0].lines[1].extra, "cycles");
        /* panels are sorted by id and table ids start with their panel's id */
        for (size_t i = 0; i < ps.npanels; i++) {
                if (i)
                        assert_true(ps.panels[i - 1].id < ps.panels[i].id);
                for (size_t j = 0; j < ps.panels[i].ntables; j++)
                        assert_int_equal(atoi(ps.panels[i].tables[j].id), ps.panels[i].id);
        }
        panels_free(&ps);
}

/* `counters:`: the shipped families' entries as the sources give them (the metric files'
 * comments), a child's entry replacing or (null) dropping its parent's; a malformed entry
 * is an error naming its line */
static void test_counters(void **state)
{
        (void)state;
        struct arch a;
        struct err err = {0};
        const struct counter_def *d;
        assert_int_equal(arch_load("metrics", "gfx908", &a, &err), 0);
        d = arch_counter_def(a.counter_defs, a.ncounter_defs, "TCC_EA0_RDREQ");
        assert_non_null(d);
        assert_int_equal(d->kind, COUNTER_ALIAS);
        assert_string_equal(d->same_as, "TCC_EA_RDREQ");
        arch_free(&a);
        assert_int_equal(arch_load("metrics", "gfx941", &a, &err), 0);
        d = arch_counter_def(a.counter_defs, a.ncounter_defs, "SQ_VMEM_TA_CMD_FIFO_FULL");
        assert_non_null(d);
        assert_int_equal(d->kind, COUNTER_ABSENT);
        arch_free(&a);
        assert_int_equal(arch_load("metrics", "gfx942", &a, &err), 0); /* replaces cdna3's */
        d = arch_counter_def(a.counter_defs, a.ncounter_defs, "SQ_VMEM_TA_CMD_FIFO_FULL");
        assert_non_null(d);
        assert_int_equal(d->kind, COUNTER_EVENT);
        assert_string_equal(d->block, "SQ");
        assert_int_equal(d->event, 139);
        arch_free(&a);
        assert_int_equal(arch_load("metrics", "gfx950", &a, &err), 0); /* null drops gfx942's */
        assert_null(arch_counter_def(a.counter_defs, a.ncounter_defs, "SQ_VMEM_TA_CMD_FIFO_FULL"));
        arch_free(&a);
        assert_int_not_equal(arch_load(DATA "bad-counters", "gfxB", &a, &err), 0);
        assert_non_null(strstr(err.msg, "bad-counters/b.yaml:6:"));
        assert_non_null(strstr(err.msg, "SQ_X"));
}

/* A panel overlay's rows as edits of the base table's: after, before and drop in the order
 * given, and a row the table lacks is a one-line error naming the file and line. */
static const char *rows_of(const struct panel_set *ps, const char *id, char *buf, size_t len)
{
        buf[0] = 0;
        for (size_t i = 0; i < ps->npanels; i++)
                for (size_t j = 0; j < ps->panels[i].ntables; j++)
                        if (!strcmp(ps->panels[i].tables[j].id, id))
                                for (size_t r = 0; r < ps->panels[i].tables[j].nrows; r++)
                                        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
                                                 r ? " " : "", ps->panels[i].tables[j].rows[r]);
        return buf;
}

static void test_overlay_row_edits(void **state)
{
        (void)state;
        static const struct {
                const char *rows; /* the overlay's rows: */
                const char *want; /* the rows, or the error's start */
        } cases[] = {
            {"  rows:\n    after: {a: [x, y], c: [z]}\n", "a x y b c z"},
            {"  rows:\n    before: {a: [x]}\n    drop: [b]\n", "x a c"},
            {"  rows:\n    drop: [a, c]\n    after: {b: [w]}\n", "b w"},
            {"  rows: [q]\n", "q"}, /* a list still replaces */
            {"  rows:\n    after: {nope: [x]}\n", "ERR:ov/9.9/01.yaml:5:"},
            {"  rows:\n    drop: [nope]\n", "ERR:ov/9.9/01.yaml:5:"},
            {"  rows:\n    insert: {a: [x]}\n", "ERR:ov/9.9/01.yaml:5:"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                char *d = tmpdir_new("prism-ov");
                char *ov = xasprintf("%s/ov", d), *v = xasprintf("%s/ov/9.9", d);
                assert_int_equal(mkdir(ov, 0755), 0);
                assert_int_equal(mkdir(v, 0755), 0);
                put(ov, "versions", "3.0 per_wave\n9.9 per_wave\n");
                put(ov, "01.yaml", "id: 1\ntitle: One\ntables:\n- id: '1.1'\n  columns:\n"
                                   "  - {title: Metric, show: name}\n  rows: [a, b, c]\n");
                char *text = xasprintf("id: 1\ntables:\n- id: '1.1'\n%s", cases[i].rows);
                put(v, "01.yaml", text);
                struct panel_set ps;
                struct err err = {0};
                char buf[256];
                data_version_set("9.9");
                int rc = panels_load(ov, &ps, &err);
                data_version_set(NULL);
                if (!strncmp(cases[i].want, "ERR:", 4)) {
                        assert_int_not_equal(rc, 0);
                        const char *at = strstr(err.msg, "ov/9.9/01.yaml");
                        assert_non_null(at);
                        if (strncmp(at, cases[i].want + 4, strlen(cases[i].want + 4)))
                                fail_msg("case %zu: %s", i, err.msg);
                } else {
                        assert_int_equal(rc, 0);
                        assert_string_equal(rows_of(&ps, "1.1", buf, sizeof buf), cases[i].want);
                        panels_free(&ps);
                }
                char *cmd = xasprintf("rm -rf '%s'", d);
                assert_int_equal(system(cmd), 0);
                free(cmd);
                free(text);
                free(ov);
                free(v);
                free(d);
        }
}

/* panels/versions: the normalizations line and each version's rules; each bad file is
 * one error naming it (and the line) */
static void test_versions_file(void **state)
{
        (void)state;
        static const struct {
                const char *text, *want; /* want: "" ok, else the error after "DIR/versions" */
        } cases[] = {
            {"normalizations per_a per_b\n1.0 per_a\n2.0 per_b default avg=ratio\n", ""},
            {"1.0 per_a\n", ": no 'normalizations NAME...' line"},
            {"normalizations per_a\n1.0 per_b\n", ":1: version 1.0's normalization 'per_b' is not "
                                                   "on this normalizations line"},
            {"normalizations per_a\nnormalizations per_b\n1.0 per_a\n",
             ":2: a second normalizations line"},
            {"normalizations\n1.0 per_a\n", ":1: expected 'normalizations NAME...'"},
            {"normalizations per_a per_a\n1.0 per_a\n",
             ":1: normalization 'per_a': too many, too long or given twice"},
            {"normalizations per_a\n", ": no versions"},
        };
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                char *d = tmpdir_new("prism-versions");
                put(d, "versions", cases[i].text);
                struct data_version *v = NULL;
                size_t n = 0;
                struct data_norms dn = {0};
                struct err err = {0};
                int rc = data_versions_load(d, &v, &n, &dn, &err);
                if (!*cases[i].want) {
                        assert_int_equal(rc, 0);
                        assert_int_equal(dn.n, 2);
                        assert_string_equal(dn.names[0], "per_a");
                        assert_string_equal(dn.names[1], "per_b");
                        assert_int_equal(n, 2);
                        assert_int_equal(data_version_default(v, n), 1);
                        assert_string_equal(v[1].norm, "per_b");
                        assert_int_equal(v[1].ratio_avg, 1);
                        assert_int_equal(data_norm_find(&dn, "per_b"), 1);
                        assert_int_equal(data_norm_find(&dn, "per_c"), -1);
                        assert_int_equal(data_norm_check(&dn, "per_a", &err), 0);
                        assert_int_not_equal(data_norm_check(&dn, "per_c", &err), 0);
                        assert_string_equal(err.msg, "unknown normalization 'per_c' (per_a, per_b)");
                        free(v);
                } else {
                        assert_int_not_equal(rc, 0);
                        char *want = xasprintf("%s/versions%s", d, cases[i].want);
                        if (strcmp(err.msg, want))
                                fail_msg("case %zu: '%s', want '%s'", i, err.msg, want);
                        free(want);
                }
                char *cmd = xasprintf("rm -rf '%s'", d);
                assert_int_equal(system(cmd), 0);
                free(cmd);
                free(d);
        }
        /* no file at all: an error naming it */
        struct data_version *v;
        size_t n;
        struct err err = {0};
        assert_int_not_equal(data_versions_load("/nonexistent", &v, &n, NULL, &err), 0);
        assert_string_equal(err.msg, "cannot open '/nonexistent/versions': No such file or "
                                     "directory");
}

/* the shipped data: every family has a formula for each normalization of panels/versions */
static void test_shipped_norms(void **state)
{
        (void)state;
        struct data_version *v;
        size_t n;
        struct data_norms dn;
        struct err err = {0};
        assert_int_equal(data_versions_load("panels", &v, &n, &dn, &err), 0);
        free(v);
        assert_true(dn.n >= 1);
        char **targets;
        size_t nt;
        assert_int_equal(arch_list("metrics", &targets, &nt, &err), 0);
        for (size_t t = 0; t < nt; t++) {
                struct arch a;
                if (arch_load("metrics", targets[t], &a, &err))
                        fail_msg("%s", err.msg);
                assert_int_equal(a.nnorms, dn.n);
                for (size_t i = 0; i < a.nnorms; i++)
                        assert_true(data_norm_find(&dn, a.norms[i].name) >= 0);
                arch_free(&a);
                free(targets[t]);
        }
        free(targets);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_inheritance), cmocka_unit_test(test_fields_and_limits),
            cmocka_unit_test(test_errors), cmocka_unit_test(test_models),      cmocka_unit_test(test_same_as),
            cmocka_unit_test(test_list),        cmocka_unit_test(test_shipped_data), cmocka_unit_test(test_overlay_row_edits),
            cmocka_unit_test(test_counters), cmocka_unit_test(test_versions_file),
            cmocka_unit_test(test_shipped_norms),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
