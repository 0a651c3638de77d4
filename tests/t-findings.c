/* Findings: every rule of rules/ fires on its `fires:` inputs and stays silent on its
 * `silent:` ones (per leaf family), n/a data gives no finding, the rules read only names
 * that exist, and the engine (inheritance, unless, templates, ceilings, errors) on small
 * rule files of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/findings.h"
#include "tmpfiles.h"

/* the leaf families and a target each serves */
static const char *const fams[][2] = {{"cdna", "gfx90a"}, {"hopper", "sm_90"}};

/* rs evaluated with only these inputs set (every other name n/a) */
static int fired(struct ruleset *rs, struct fvals *fv, const struct rule_case *c,
                 const char *id, double *gain)
{
        for (size_t i = 0; i < fv->n; i++)
                fv->v[i] = NAN;
        for (size_t i = 0; i < c->n; i++)
                fvals_set(fv, c->names[i], c->vals[i]);
        struct finding *f;
        size_t n, skipped;
        struct err err = {0};
        assert_int_equal(findings_eval(rs, fv, NULL, &f, &n, &skipped, &err), 0);
        int hit = 0;
        for (size_t i = 0; i < n; i++)
                if (!strcmp(f[i].rule->id, id)) {
                        hit = 1;
                        if (gain)
                                *gain = f[i].gain;
                        /* a template is filled in completely */
                        assert_null(strchr(f[i].message, '{'));
                        assert_null(strstr(f[i].message, "nan"));
                }
        findings_free(f, n);
        return hit;
}

static void test_every_rule_fires_and_stays_silent(void **state)
{
        (void)state;
        for (size_t k = 0; k < sizeof fams / sizeof *fams; k++) {
                struct ruleset rs;
                struct fvals fv = {0};
                struct err err = {0};
                assert_int_equal(rules_load_family("rules", fams[k][0], &rs, &err), 0);
                assert_int_equal(findings_bind(&rs, &fv, NULL, &err), 0);
                size_t active = 0;
                for (size_t i = 0; i < rs.nrules; i++) {
                        const struct rule *r = &rs.rules[i];
                        if (r->off)
                                continue;
                        active++;
                        if (!r->fires.n || !r->silent.n)
                                fail_msg("%s: rule %s has no fires:/silent: case", fams[k][0],
                                         r->id);
                        double g = NAN;
                        if (!fired(&rs, &fv, &r->fires, r->id, &g))
                                fail_msg("%s: rule %s does not fire on its fires: case",
                                         fams[k][0], r->id);
                        assert_true(g >= 0 && g <= 100);
                        if (fired(&rs, &fv, &r->silent, r->id, NULL))
                                fail_msg("%s: rule %s fires on its silent: case", fams[k][0],
                                         r->id);
                }
                assert_true(active >= 20);
                fvals_free(&fv);
                rules_free(&rs);
        }
}

/* AMD's theoretical occupancy (rules/cdna.yaml) against values worked out by hand: workgroups
 * per CU under each per-CU limit, the waves of the grid, and which limit binds */
static void test_cdna_occupancy_model(void **state)
{
        (void)state;
        struct ruleset rs;
        struct fvals fv = {0};
        struct err err = {0};
        assert_int_equal(rules_load_family("rules", "cdna", &rs, &err), 0);
        assert_int_equal(findings_bind(&rs, &fv, NULL, &err), 0);
        static const char *const in[] = {"$cu_per_gpu", "$simd_per_cu", "$max_waves_per_cu",
                                         "$wave_size", "wave_launch.workgroup_size",
                                         "wave_launch.vgprs", "wave_launch.agprs",
                                         "wave_launch.sgprs", "wave_launch.lds_allocation",
                                         "spi.dispatched_workgroups", "model.vgpr_file",
                                         "model.vgpr_granule", "model.vgpr_unified",
                                         "model.lds_per_cu", "model.lds_granule",
                                         "model.wg_per_cu"};
        static const char *const out[] = {"blocks_per_cu", "occ_theory", "waves", "th_regs",
                                          "th_lds", "th_blocks"};
        static const struct {
                double in[16], out[6];
        } cases[] = {
            /* vcopy on MI100 (gfx908: 10 waves per SIMD, separate 256-register files): 4-wave
             * workgroups fill the 40 wave slots at 10 per CU; 4096 / 1200 = 3.41 waves */
            {{120, 4, 40, 64, 256, 8, 8, 16, 0, 4096, 256, 4, 0, 65536, 512, 16},
             {10, 100, 4096.0 / 1200, 0, 0, 0}},
            /* gfx90a's unified file: 100 + 64 registers -> 168 allocated, 512 / 168 = 3 waves
             * per SIMD, 3 workgroups of 4 waves per CU: 12 of 32 slots; 1040 / 312 waves */
            {{104, 4, 32, 64, 256, 100, 64, 16, 0, 1040, 512, 8, 1, 65536, 512, 16},
             {3, 37.5, 1040.0 / 312, 100, 0, 0}},
            /* LDS: 20000 bytes -> 20480 allocated, 3 one-wave workgroups per 64 KiB CU */
            {{304, 4, 32, 64, 64, 8, 0, 16, 20000, 912, 512, 8, 1, 65536, 512, 16},
             {3, 9.375, 1, 0, 100, 0}},
            /* the 16 workgroups a CU holds: 2-wave workgroups on 40 slots stop at 16 (80%) */
            {{120, 4, 40, 64, 128, 8, 0, 16, 0, 960, 256, 4, 0, 65536, 512, 16},
             {16, 80, 0.5, 0, 0, 100}},
            /* 96 scalar registers: 8 waves per SIMD on gfx908, 32 one-wave workgroups */
            {{120, 4, 40, 64, 64, 8, 0, 96, 0, 7680, 256, 4, 0, 65536, 512, 16},
             {32, 80, 2, 100, 0, 0}},
        };
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
                for (size_t i = 0; i < fv.n; i++)
                        fv.v[i] = NAN;
                for (size_t i = 0; i < sizeof in / sizeof *in; i++)
                        fvals_set(&fv, in[i], cases[c].in[i]);
                struct finding *f;
                size_t n, skipped;
                assert_int_equal(findings_eval(&rs, &fv, NULL, &f, &n, &skipped, &err), 0);
                findings_free(f, n);
                for (size_t i = 0; i < sizeof out / sizeof *out; i++) {
                        int slot = fvals_slot(&fv, out[i]);
                        assert_true(slot >= 0);
                        if (!(fabs(fv.v[slot] - cases[c].out[i]) <= 1e-9))
                                fail_msg("case %zu: %s = %g, by hand %g", c, out[i], fv.v[slot],
                                         cases[c].out[i]);
                }
        }
        /* a grid that cannot fill the GPU is that, never a per-CU limiter: the register
         * limiter's own case, its 64 VGPRs binding (4 workgroups of 4 waves per CU), with 50
         * workgroups on 120 CUs (0.10 waves) */
        static const char *const grid_in[] = {
            "spi.dispatched_workgroups", "$cu_per_gpu", "$simd_per_cu", "$max_waves_per_cu",
            "$wave_size", "wave_launch.agprs", "wave_launch.sgprs", "model.vgpr_file",
            "model.vgpr_granule", "model.vgpr_unified", "model.lds_per_cu", "model.lds_granule",
            "model.wg_per_cu"};
        const double grid_v[][13] = {{50, 120, 4, 40, 64, 0, 16, 256, 4, 0, 65536, 512, 16},
                                     {4800, 120, 4, 40, 64, 0, 16, 256, 4, 0, 65536, 512, 16}};
        const struct rule *reg = NULL;
        for (size_t i = 0; i < rs.nrules; i++)
                if (!strcmp(rs.rules[i].id, "occupancy.registers"))
                        reg = &rs.rules[i];
        assert_non_null(reg);
        for (size_t g = 0; g < 2; g++) {
                size_t n0 = reg->fires.n, nx = sizeof grid_in / sizeof *grid_in;
                char **names = xcalloc(n0 + nx, sizeof *names);
                double *vals = xcalloc(n0 + nx, sizeof *vals);
                memcpy(names, reg->fires.names, n0 * sizeof *names);
                memcpy(vals, reg->fires.vals, n0 * sizeof *vals);
                for (size_t i = 0; i < nx; i++) {
                        names[n0 + i] = (char *)grid_in[i];
                        vals[n0 + i] = grid_v[g][i];
                }
                struct rule_case c = {names, vals, n0 + nx, n0 + nx};
                /* 0.10 waves: the grid; 10 waves (4800 / 480): the registers */
                assert_int_equal(fired(&rs, &fv, &c, "occupancy.registers", NULL), g == 1);
                assert_int_equal(fired(&rs, &fv, &c, "launch.grid_too_small", NULL), g == 0);
                int slot = fvals_slot(&fv, "th_regs");
                assert_true(slot >= 0 && fv.v[slot] == 100);
                free(names);
                free(vals);
        }
        fvals_free(&fv);
        rules_free(&rs);
}

/* nothing known: no finding at all, every rule skipped */
static void test_na_data_gives_no_finding(void **state)
{
        (void)state;
        for (size_t k = 0; k < sizeof fams / sizeof *fams; k++) {
                struct ruleset rs;
                struct fvals fv = {0};
                struct err err = {0};
                assert_int_equal(rules_load_family("rules", fams[k][0], &rs, &err), 0);
                assert_int_equal(findings_bind(&rs, &fv, NULL, &err), 0);
                struct finding *f;
                size_t n, skipped, active = 0;
                assert_int_equal(findings_eval(&rs, &fv, NULL, &f, &n, &skipped, &err), 0);
                for (size_t i = 0; i < rs.nrules; i++)
                        active += !rs.rules[i].off;
                assert_int_equal(n, 0);
                assert_int_equal(skipped, active);
                findings_free(f, n);
                /* an infinite bandwidth (a zero duration) is no number either */
                for (size_t i = 0; i < rs.nrules; i++)
                        if (!strcmp(rs.rules[i].id, "mem.hbm_bandwidth")) {
                                struct rule_case c = rs.rules[i].fires;
                                double *v = xcalloc(c.n, sizeof *v);
                                memcpy(v, c.vals, c.n * sizeof *v);
                                v[0] = INFINITY;
                                struct rule_case inf = {c.names, v, c.n, c.n};
                                assert_false(fired(&rs, &fv, &inf, "mem.hbm_bandwidth", NULL));
                                free(v);
                        }
                double u, nu;
                long next;
                assert_int_equal(findings_ceiling(&rs, &fv, &u, &next, &nu), -1);
                fvals_free(&fv);
                rules_free(&rs);
        }
}

struct known {
        const struct ruleset *rs;
        const struct arch *a;
        const char *fam;
        int bad;
};

static void check_name(void *p, const char *name)
{
        struct known *k = p;
        const char *suffix;
        /* the facts a family's models: give (docs/FORMATS.md) */
        static const char *const facts[] = {"l2_per_xcd", "hbm_channels", "lds_banks", "pipes",
                                            "workgroup_max", "l1", "l2", "cu", "se", "xcd",
                                            "simd_per_cu", "wave_size", "sclk", "mclk", NULL};
        if (name[0] == '$' || !strncmp(name, "kernel.", 7) ||
            rules_name_metric(k->a, name, &suffix))
                return;
        for (size_t i = 0; facts[i] && !strncmp(name, "model.", 6); i++)
                if (!strcmp(name + 6, facts[i]))
                        return;
        /* or a fact the family's model_facts: give (the occupancy model's limits) */
        if (!strncmp(name, "model.", 6) && isfinite(arch_model_fact(k->a, NULL, name + 6)))
                return;
        for (size_t i = 0; i < k->rs->nvalues; i++)
                if (!strcmp(k->rs->values[i].name, name))
                        return;
        fprintf(stderr, "%s: rules read '%s': no value and no metric of %s\n", k->fam, name,
                k->a->target);
        k->bad++;
}

/* a misspelt name would silently never fire: every name must exist */
static void test_rules_read_known_names(void **state)
{
        (void)state;
        for (size_t k = 0; k < sizeof fams / sizeof *fams; k++) {
                struct ruleset rs;
                struct arch a;
                struct err err = {0};
                assert_int_equal(rules_load_family("rules", fams[k][0], &rs, &err), 0);
                assert_int_equal(arch_load("metrics", fams[k][1], &a, &err), 0);
                struct known kn = {&rs, &a, fams[k][0], 0};
                rules_names(&rs, check_name, &kn);
                assert_int_equal(kn.bad, 0);
                /* the loader picks the family from the metric chain */
                struct ruleset rs2;
                assert_int_equal(rules_load("rules", &a, 1, &rs2, &err), 0);
                assert_non_null(strstr(rs2.chain, fams[k][0]));
                assert_non_null(strstr(rs2.chain, "base"));
                /* the unit-test inputs: kept with cases 1 (as the family's load keeps them),
                 * only checked with 0; the rules themselves the same */
                struct ruleset rs0;
                assert_int_equal(rules_load("rules", &a, 0, &rs0, &err), 0);
                assert_int_equal(rs0.nrules, rs2.nrules);
                size_t kept = 0;
                for (size_t i = 0; i < rs2.nrules; i++) {
                        assert_string_equal(rs0.rules[i].id, rs2.rules[i].id);
                        assert_int_equal(rs0.rules[i].fires.n + rs0.rules[i].silent.n, 0);
                        kept += rs2.rules[i].fires.n + rs2.rules[i].silent.n;
                }
                assert_true(kept > 0);
                rules_free(&rs0);
                rules_free(&rs2);
                arch_free(&a);
                rules_free(&rs);
        }
}

/* ---- the engine on rule files of its own ---- */

static void rmdir_all(char *dir, const char *const *names)
{
        for (size_t i = 0; names[i]; i++) {
                char *p = xasprintf("%s/%s", dir, names[i]);
                unlink(p);
                free(p);
        }
        rmdir(dir);
        free(dir);
}

static const char root_yaml[] =
    "family: root\n"
    "values:\n"
    "  u: m.a.pop\n"
    "  twice: u * 2\n"
    "ceilings:\n"
    "  a: {name: unit A, util: m.a.pop, required: true}\n"
    "  b: {name: unit B, util: m.b}\n"
    "rules:\n"
    "  r.one:\n"
    "    title: One\n"
    "    severity: high\n"
    "    model: u\n"
    "    when: u >= 50\n"
    "    gain: u\n"
    "    message: 'u={u:.2f} twice={twice:.0f} {{literal} id={2.1.0:.1f}'\n"
    "    evidence: [m.a]\n"
    "  r.two:\n"
    "    title: Two\n"
    "    severity: low\n"
    "    model: x\n"
    "    when: m.b > 0\n"
    "    gain: 150\n"
    "    message: two\n"
    "    unless: [r.one]\n"
    "  r.three:\n"
    "    title: Three\n"
    "    severity: medium\n"
    "    model: x\n"
    "    when: m.b > 0\n"
    "    gain: -5\n"
    "    message: three\n";

static const char child_yaml[] = "family: child\n"
                                 "inherits: root\n"
                                 "terms:\n"
                                 "  twice: double\n"
                                 "  u: U\n"
                                 "rules:\n"
                                 "  r.one:\n"
                                 "    title: One (child)\n"
                                 "  r.three:\n"
                                 "    off: true\n";

static void test_engine(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-rules");
        put(d, "root.yaml", root_yaml);
        put(d, "child.yaml", child_yaml);
        struct ruleset rs;
        struct err err = {0};
        assert_int_equal(rules_load_family(d, "child", &rs, &err), 0);
        assert_string_equal(rs.chain, "child < root");
        assert_int_equal(rs.nrules, 3);
        assert_string_equal(rs.rules[0].title, "One (child)"); /* field by field */
        assert_string_equal(rs.rules[0].model, "U"); /* terms apply to the texts */
        assert_string_equal(rs.rules[0].severity, "high");
        assert_true(rs.rules[2].off);

        /* template ids map to keys through the panels' ids */
        struct idmap ids = {0};
        smap_put(&ids.by_id, "2.1.0", 0);
        smap_put(&ids.by_key, "m.a", 0);
        char *id0 = xstrdup("2.1.0"), *key0 = xstrdup("m.a");
        ids.ids = &id0;
        ids.keys = &key0;
        ids.n = 1;
        struct fvals fv = {0};
        assert_int_equal(findings_bind(&rs, &fv, &ids, &err), 0);
        fvals_set(&fv, "m.a", 1234.5);
        fvals_set(&fv, "m.a.pop", 60);
        fvals_set(&fv, "m.b", 3);
        struct finding *f;
        size_t n, skipped;
        assert_int_equal(findings_eval(&rs, &fv, &ids, &f, &n, &skipped, &err), 0);
        /* r.two is silenced by r.one, r.three is off */
        assert_int_equal(n, 1);
        assert_string_equal(f[0].rule->id, "r.one");
        assert_float_equal(f[0].gain, 60, 1e-9);
        /* terms: whole words, placeholders untouched */
        assert_string_equal(f[0].message, "U=60.00 double=120 {literal} id=1234.5");
        assert_string_equal(f[0].evidence, "2.1.0");
        findings_free(f, n);

        /* r.one silent: r.two fires, its gain clamped to 100 */
        fvals_set(&fv, "m.a.pop", 10);
        assert_int_equal(findings_eval(&rs, &fv, &ids, &f, &n, &skipped, &err), 0);
        assert_int_equal(n, 1);
        assert_string_equal(f[0].rule->id, "r.two");
        assert_float_equal(f[0].gain, 100, 1e-9);
        findings_free(f, n);

        /* ceilings: the busiest bounds; a required one n/a: no classification */
        double u, nu;
        long next;
        fvals_set(&fv, "m.b", 30);
        assert_int_equal(findings_ceiling(&rs, &fv, &u, &next, &nu), 1);
        assert_float_equal(u, 30, 1e-9);
        assert_int_equal(next, 0);
        assert_float_equal(nu, 10, 1e-9);
        fvals_set(&fv, "m.a.pop", NAN);
        assert_int_equal(findings_ceiling(&rs, &fv, &u, &next, &nu), -1);

        fvals_free(&fv);
        smap_free(&ids.by_id);
        smap_free(&ids.by_key);
        free(id0);
        free(key0);
        rules_free(&rs);
        const char *const names[] = {"root.yaml", "child.yaml", NULL};
        rmdir_all(d, names);
}

/* causes before the symptoms they explain, whatever the speedups; speedup: (and the older
 * gain:) give the estimate */
static const char causes_yaml[] =
    "family: c\n"
    "rules:\n"
    "  symptom:\n"
    "    {title: S, severity: high, model: m, when: 1, speedup: 90, message: s}\n"
    "  other:\n"
    "    {title: O, severity: low, model: m, when: 1, speedup: 50, message: o}\n"
    "  cause:\n"
    "    {title: C, severity: medium, model: m, when: x > 0, gain: 40, message: c,\n"
    "     explains: [symptom]}\n"
    "  root:\n"
    "    {title: R, severity: medium, model: m, when: y > 0, speedup: 10, message: r,\n"
    "     explains: [cause]}\n";

static void test_causes_first(void **state)
{
        (void)state;
        char *d = tmpdir_new("prism-rules");
        put(d, "c.yaml", causes_yaml);
        struct ruleset rs;
        struct err err = {0};
        assert_int_equal(rules_load_family(d, "c", &rs, &err), 0);
        struct fvals fv = {0};
        assert_int_equal(findings_bind(&rs, &fv, NULL, &err), 0);
        struct finding *f;
        size_t n, skipped;
        static const struct {
                double x, y;
                const char *order;
        } cases[] = {
            {0, 0, "symptom other"},            /* no cause fired: by speedup */
            {1, 0, "other cause symptom"},      /* the cause moves ahead of its symptom only */
            {1, 1, "other root cause symptom"}, /* a chain: root, then cause, then symptom */
        };
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
                fvals_set(&fv, "x", cases[c].x);
                fvals_set(&fv, "y", cases[c].y);
                assert_int_equal(findings_eval(&rs, &fv, NULL, &f, &n, &skipped, &err), 0);
                struct strbuf sb = {0};
                sb_add(&sb, "");
                for (size_t i = 0; i < n; i++)
                        sb_addf(&sb, "%s%s", i ? " " : "", f[i].rule->id);
                assert_string_equal(sb.buf, cases[c].order);
                sb_free(&sb);
                for (size_t i = 0; i < n; i++)
                        if (!strcmp(f[i].rule->id, "cause"))
                                assert_float_equal(f[i].gain, 40, 1e-9); /* gain: = speedup: */
                findings_free(f, n);
        }
        fvals_free(&fv);
        rules_free(&rs);
        const char *const names[] = {"c.yaml", NULL};
        rmdir_all(d, names);
}

/* bad rule files: one-line errors naming the file or the rule */
static void test_errors(void **state)
{
        (void)state;
        static const struct {
                const char *text, *want;
        } bad[] = {
            {"family: x\nrules:\n  r:\n    title: t\n    colour: red\n", "unknown key 'colour'"},
            {"family: x\nrules:\n  r:\n    title: t\n    severity: high\n    model: m\n"
             "    when: 1\n    gain: 1\n",
             "has no 'message'"},
            {"family: x\nrules:\n  r:\n    title: t\n    severity: huge\n    model: m\n"
             "    when: 1\n    gain: 1\n    message: m\n",
             "severity must be"},
            {"family: x\nrules:\n  r:\n    title: t\n    when: (1 +\n", "x.yaml:5"},
            {"family: x\ninherits: x\n", "loops"},
            {"family: x\ninherits: nothere\n", "unknown rules family 'nothere'"},
            {"family: x\nrules:\n  r:\n    title: t\n    severity: low\n    model: m\n"
             "    when: 1\n    gain: 1\n    message: m\n    unless: [zz]\n",
             "unless names no rule 'zz'"},
            {"family: x\nrules:\n  r:\n    title: t\n    severity: low\n    model: m\n"
             "    when: 1\n    speedup: 1\n    message: m\n    explains: [yy]\n",
             "explains names no rule 'yy'"},
            {"family: x\nrules:\n  r:\n    title: t\n    severity: high\n    model: m\n"
             "    when: 1\n    message: m\n",
             "has no 'speedup'"},
            {"family: x\nrules:\n  r:\n    fires: {a: one}\n", "values must be numbers"},
            {"family: x\nrules:\n  r:\n    silent: [1]\n", "must be a mapping of numbers"},
            {"family: x\nc: &c {a: 1, b: x}\nrules:\n  r:\n    fires: {<<: *c, d: 2}\n",
             "values must be numbers"},
            {"family: x\nrules: [1, 2]\n", "'rules' must be a mapping"},
        };
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                char *d = tmpdir_new("prism-rules");
                put(d, "x.yaml", bad[i].text);
                struct ruleset rs;
                struct err err = {0};
                assert_int_not_equal(rules_load_family(d, "x", &rs, &err), 0);
                if (!strstr(err.msg, bad[i].want))
                        fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].want);
                assert_null(strchr(err.msg, '\n'));
                /* the same error where the unit-test inputs are only checked (analyze) */
                struct arch a = {.chain = "x"};
                struct err err0 = {0};
                assert_int_not_equal(rules_load(d, &a, 0, &rs, &err0), 0);
                assert_string_equal(err0.msg, err.msg);
                const char *const names[] = {"x.yaml", NULL};
                rmdir_all(d, names);
        }
        struct ruleset rs;
        struct err err = {0};
        assert_int_not_equal(rules_load_family("rules", "nosuchfamily", &rs, &err), 0);
        assert_int_not_equal(rules_load_family("/nonexistent/rules", "base", &rs, &err), 0);
}

int main(void)
{
        warn_quiet = 1;
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_every_rule_fires_and_stays_silent),
            cmocka_unit_test(test_na_data_gives_no_finding),
            cmocka_unit_test(test_cdna_occupancy_model),
            cmocka_unit_test(test_rules_read_known_names),
            cmocka_unit_test(test_causes_first),
            cmocka_unit_test(test_engine),
            cmocka_unit_test(test_errors),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
