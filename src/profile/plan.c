/* Pass planning, the request and the output: formulas -> the names they read and the
 * divisions they make (plan_int.h); a plan -> the names each run collects and the perfmon
 * files. The packing itself is in plan_pack.c (AMD) and plan_groups.c (NVIDIA). */
#include "plan_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../expr/expr.h"

const char *const plan_dispatch_cols[] = {
        "Dispatch_ID", "Kernel_Name", "GPU_ID", "Grid_Size", "Workgroup_Size",
        "LDS_Per_Workgroup", "Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR",
        "wave_size", NULL,
};

int plan_is_dispatch_col(const char *name)
{
        for (size_t i = 0; plan_dispatch_cols[i]; i++)
                if (!strcmp(plan_dispatch_cols[i], name))
                        return 1;
        return !strcmp(name, "Start_Timestamp") || !strcmp(name, "End_Timestamp");
}


void plan_req_init(struct plan_req *r, const struct block_limit *limits, size_t nlimits)
{
        memset(r, 0, sizeof *r);
        r->limits = xcalloc(nlimits ? nlimits : 1, sizeof *r->limits);
        for (size_t i = 0; i < nlimits; i++) {
                r->limits[i].block = xstrdup(limits[i].block);
                r->limits[i].limit = limits[i].limit;
        }
        r->nlimits = nlimits;
}


void plan_req_accum_value(struct plan_req *r, const char *name)
{
        free(r->accum_value);
        r->accum_value = name && *name ? xstrdup(name) : NULL;
}

static void names_free(char **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

static void defs_free(struct counter_def *d, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(d[i].name);
                free(d[i].same_as);
                free(d[i].block);
        }
        free(d);
}

struct counter_def *plan_defs_copy(const struct counter_def *defs, size_t n)
{
        struct counter_def *d = xcalloc(n ? n : 1, sizeof *d);
        for (size_t i = 0; i < n; i++) {
                d[i] = defs[i];
                d[i].name = xstrdup(defs[i].name);
                d[i].same_as = defs[i].same_as ? xstrdup(defs[i].same_as) : NULL;
                d[i].block = defs[i].block ? xstrdup(defs[i].block) : NULL;
        }
        return d;
}

void plan_req_counters(struct plan_req *r, const struct counter_def *defs, size_t n)
{
        defs_free(r->defs, r->ndefs);
        r->defs = plan_defs_copy(defs, n);
        r->ndefs = n;
}

void plan_req_free(struct plan_req *r)
{
        for (size_t i = 0; i < r->nlimits; i++)
                free(r->limits[i].block);
        free(r->limits);
        for (size_t i = 0; i < r->nsrcs; i++) {
                struct plan_src *s = &r->srcs[i];
                names_free(s->names, s->nnames);
                for (size_t d = 0; d < s->ndivs; d++)
                        for (int side = 0; side < 2; side++)
                                names_free(s->divs[d].names[side], s->divs[d].n[side]);
                free(s->divs);
                free(s->name);
                free(s->table);
        }
        free(r->srcs);
        free(r->accum_value);
        defs_free(r->defs, r->ndefs);
        memset(r, 0, sizeof *r);
}

static struct plan_src *add_src(struct plan_req *r, enum src_kind kind, const char *name,
                                const char *table)
{
        xgrow(&r->srcs, &r->cap_srcs, r->nsrcs + 1, sizeof *r->srcs);
        struct plan_src *s = &r->srcs[r->nsrcs++];
        memset(s, 0, sizeof *s);
        s->kind = kind;
        s->name = name ? xstrdup(name) : NULL;
        s->table = table ? xstrdup(table) : NULL;
        return s;
}

static void name_add(char ***v, size_t *n, size_t *cap, const char *name, int dollar)
{
        xgrow(v, cap, *n + 1, sizeof **v);
        (*v)[(*n)++] = dollar ? xasprintf("$%s", name) : xstrdup(name);
}

static void collect_name(void *ctx, const char *name, int dollar)
{
        struct plan_src *s = ctx;
        name_add(&s->names, &s->nnames, &s->cap, name, dollar);
}

static void collect_div(void *ctx, int k, int side, const char *name, int dollar)
{
        struct plan_src *s = ctx;
        if ((size_t)k >= s->ndivs) {
                s->divs = xrealloc(s->divs, ((size_t)k + 1) * sizeof *s->divs);
                memset(s->divs + s->ndivs, 0, ((size_t)k + 1 - s->ndivs) * sizeof *s->divs);
                s->ndivs = (size_t)k + 1;
        }
        struct plan_div *d = &s->divs[k];
        name_add(&d->names[side], &d->n[side], &d->cap[side], name, dollar);
}

static void src_fill(struct plan_src *s, const struct expr *e)
{
        expr_names(e, collect_name, s);
        expr_div_names(e, collect_div, s);
        s->aggregate = expr_has_aggregate(e);
}

static int add_formula(struct plan_req *r, enum src_kind kind, const char *name,
                       const char *src, const struct expr_loc *loc, const char *table,
                       struct err *err)
{
        struct expr *e = expr_parse(src, loc, name, err);
        if (!e)
                return err && err->code ? err->code : ERR_INPUT;
        src_fill(add_src(r, kind, name, table), e);
        expr_free(e);
        return 0;
}

int plan_req_formula(struct plan_req *r, const char *src, const struct expr_loc *loc,
                     const char *table, struct err *err)
{
        return add_formula(r, SRC_FORMULA, NULL, src, loc, table, err);
}

void plan_req_expr(struct plan_req *r, const struct expr *e, const char *table)
{
        src_fill(add_src(r, SRC_FORMULA, NULL, table), e);
}

int plan_req_builtin(struct plan_req *r, const char *name, const char *src,
                     const struct expr_loc *loc, struct err *err)
{
        return add_formula(r, SRC_BUILTIN, name, src, loc, NULL, err);
}

int plan_req_norm(struct plan_req *r, const char *src, const struct expr_loc *loc,
                  struct err *err)
{
        return add_formula(r, SRC_NORM, NULL, src, loc, NULL, err);
}

/* ---- names -> hardware counters ---- */

static int block_index(const struct block_limit *limits, size_t nlimits, const char *block)
{
        for (size_t i = 0; i < nlimits; i++)
                if (!strcmp(limits[i].block, block))
                        return (int)i;
        /* a sub-block (SQC) counts against the longest block name that prefixes it (SQ) */
        int best = -1;
        size_t bestlen = 0;
        for (size_t i = 0; i < nlimits; i++) {
                size_t l = strlen(limits[i].block);
                if (l > bestlen && !strncmp(limits[i].block, block, l)) {
                        best = (int)i;
                        bestlen = l;
                }
        }
        return best;
}

int plan_classify(const struct block_limit *limits, size_t nlimits, const char *name,
                  char **slot, const char **block, unsigned *forms)
{
        *slot = NULL;
        *block = NULL;
        *forms = 0;
        if (!isupper((unsigned char)name[0]) ||
            plan_is_dispatch_col(name))
                return 1;
        size_t len = strcspn(name, "[");
        unsigned form = PLAN_FORM_PLAIN;
        if (name[len] == '[') {
                form = PLAN_FORM_CHANNELS;
        } else if (len > 4 && !strcmp(name + len - 4, "_sum")) {
                form = PLAN_FORM_SUM;
                len -= 4;
        }
        /* a hardware counter is spelt in upper case; Grid_Size, End_Timestamp are columns */
        for (size_t i = 0; i < len; i++)
                if (!isupper((unsigned char)name[i]) && !isdigit((unsigned char)name[i]) &&
                    name[i] != '_')
                        return 1;
        *slot = xstrndup(name, len);
        *forms = form;
        size_t bl = strcspn(*slot, "_");
        char *b = xstrndup(*slot, bl);
        int bi = block_index(limits, nlimits, b);
        free(b);
        if (bi < 0 || limits[bi].limit <= 0) {
                *block = NULL;
                return -1;
        }
        *block = limits[bi].block;
        return 0;
}

void plan_counter_clear(struct plan_counter *c)
{
        free(c->name);
        free(c->block);
        names_free(c->aka, c->naka);
        free(c->aka_forms);
        memset(c, 0, sizeof *c);
}

size_t plan_sorted_add(char ***v, size_t *n, size_t *cap, const char *name, int *added)
{
        size_t lo = 0, hi = *n;
        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                int c = strcmp((*v)[mid], name);
                if (!c) {
                        *added = 0;
                        return mid;
                }
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        xgrow(v, cap, *n + 1, sizeof **v);
        memmove(*v + lo + 1, *v + lo, (*n - lo) * sizeof **v);
        (*v)[lo] = xstrdup(name);
        (*n)++;
        *added = 1;
        return lo;
}

void plan_aka_add(struct plan_counter *c, const char *name, unsigned forms)
{
        size_t cap = c->naka, capf = c->naka;
        int added;
        size_t at = plan_sorted_add(&c->aka, &c->naka, &cap, name, &added);
        if (added) {
                xgrow(&c->aka_forms, &capf, c->naka, sizeof *c->aka_forms);
                memmove(c->aka_forms + at + 1, c->aka_forms + at,
                        (c->naka - 1 - at) * sizeof *c->aka_forms);
                c->aka_forms[at] = 0;
        }
        c->aka_forms[at] |= forms;
}

int plan_resolve(const struct plan_req *r, const char *name, char **slot, const char **block,
                 unsigned *forms, char **alias)
{
        *alias = NULL;
        int k = plan_classify(r->limits, r->nlimits, name, slot, block, forms);
        if (k == 1)
                return 1;
        const struct counter_def *d = arch_counter_def(r->defs, r->ndefs, *slot);
        if (d && d->kind == COUNTER_ABSENT)
                return 2;
        if (d && d->kind == COUNTER_ALIAS) {
                char *hw;
                unsigned f;
                *alias = *slot;
                k = plan_classify(r->limits, r->nlimits, d->same_as, &hw, block, &f);
                *slot = hw ? hw : xstrdup(d->same_as);
                if (k == 1)
                        k = -1;
        }
        return k;
}

const struct plan_src *plan_find_builtin(const struct plan_req *r, const char *name)
{
        for (size_t i = 0; i < r->nsrcs; i++)
                if (r->srcs[i].kind == SRC_BUILTIN && !strcmp(r->srcs[i].name, name))
                        return &r->srcs[i];
        return NULL;
}

void plan_free(struct plan *p)
{
        for (size_t i = 0; i < p->ncounters; i++)
                plan_counter_clear(&p->counters[i]);
        free(p->counters);
        names_free(p->absent, p->nabsent);
        defs_free(p->defs, p->ndefs);
        if (p->passes)
                for (size_t i = 0; i < p->npasses; i++) {
                        free(p->passes[i].counters);
                        free(p->passes[i].accum);
                        free(p->passes[i].home);
                }
        free(p->passes);
        for (size_t b = 0; b < p->nblocks; b++)
                free((char *)p->blocks[b].block);
        free(p->blocks);
        free(p->accum_value);
        memset(p, 0, sizeof *p);
}

/* ---- output ---- */

static void names_add(char ***v, size_t *n, size_t *cap, char *s)
{
        xgrow(v, cap, *n + 1, sizeof **v);
        (*v)[(*n)++] = s;
}

static char **pass_names(const struct plan *p, size_t i, int nchan, int home_only, size_t *n)
{
        char **v = NULL;
        size_t cap = 0;
        *n = 0;
        const struct plan_pass *ps = &p->passes[i];
        for (size_t k = 0; k < ps->n; k++) {
                const struct plan_counter *c = &p->counters[ps->counters[k]];
                if (home_only && ps->home && !ps->home[k])
                        continue;
                if (ps->accum && !strcmp(c->name, ps->accum)) {
                        names_add(&v, n, &cap, xstrdup(c->name));
                        if (p->accum_value)
                                names_add(&v, n, &cap, xstrdup(p->accum_value));
                        continue;
                }
                for (size_t a = 0; a <= c->naka; a++) {
                        const char *nm = a ? c->aka[a - 1] : c->name;
                        unsigned forms = a ? c->aka_forms[a - 1] : c->forms;
                        if (forms & PLAN_FORM_PLAIN)
                                names_add(&v, n, &cap, xstrdup(nm));
                        if (forms & PLAN_FORM_SUM)
                                names_add(&v, n, &cap, xasprintf("%s_sum", nm));
                        if (forms & PLAN_FORM_CHANNELS)
                                for (int ch = 0; ch < nchan; ch++)
                                        names_add(&v, n, &cap, xasprintf("%s[%d]", nm, ch));
                }
        }
        return v;
}

char **plan_pass_names(const struct plan *p, size_t i, int nchan, size_t *n)
{
        return pass_names(p, i, nchan, 0, n);
}

char **plan_pass_home_names(const struct plan *p, size_t i, int nchan, size_t *n)
{
        return pass_names(p, i, nchan, 1, n);
}

void plan_names_free(char **names, size_t n)
{
        names_free(names, n);
}

char *plan_pass_line(const struct plan *p, size_t i)
{
        struct strbuf sb = {0};
        const struct plan_pass *ps = &p->passes[i];
        for (size_t k = 0; k < ps->n; k++) {
                const char *c = p->counters[ps->counters[k]].name;
                sb_addf(&sb, "%s%s", k ? " " : "", c);
                if (ps->accum && !strcmp(c, ps->accum) && p->accum_value)
                        sb_addf(&sb, " %s", p->accum_value);
        }
        return sb_detach(&sb);
}

int plan_write_perfmon(const struct plan *p, const char *dir, int nchan, struct err *err)
{
        int rc = 0;
        for (size_t i = 0; i < p->npasses && !rc; i++) {
                size_t n;
                char **names = plan_pass_names(p, i, nchan, &n);
                char *path = p->passes[i].accum
                                     ? xasprintf("%s/%s.txt", dir, p->passes[i].accum)
                                     : xasprintf("%s/pmc_perf_%zu.txt", dir, i);
                char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
                FILE *f = fopen(tmp, "w");
                if (!f) {
                        rc = err_set(err, ERR_SYS, "cannot write '%s': %s", tmp,
                                     strerror(errno));
                } else {
                        fputs("pmc:", f);
                        for (size_t k = 0; k < n; k++)
                                fprintf(f, " %s", names[k]);
                        fputc('\n', f);
                        if (fclose(f) != 0)
                                rc = err_set(err, ERR_SYS, "cannot write '%s': %s", tmp,
                                             strerror(errno));
                        else if (rename(tmp, path) != 0)
                                rc = err_set(err, ERR_SYS, "cannot rename '%s' to '%s': %s",
                                             tmp, path, strerror(errno));
                        if (rc)
                                unlink(tmp);
                }
                free(tmp);
                free(path);
                plan_names_free(names, n);
        }
        return rc;
}

void plan_print_bound(const struct plan *p, FILE *f)
{
        fprintf(f, "%zu application runs (%zu accumulating); no plan can have fewer than %zu:\n",
                p->npasses, p->naccum, p->lower_bound);
        for (size_t b = 0; b < p->nblocks; b++) {
                const struct plan_block *pb = &p->blocks[b];
                if (!pb->counters && !pb->accum)
                        continue;
                fprintf(f, "  %-5s %3zu counters", pb->block, pb->counters);
                if (pb->accum)
                        fprintf(f, " + 2 x %zu accumulate = %zu slots", pb->accum,
                                pb->counters + 2 * pb->accum);
                fprintf(f, ", %d per run: %zu run%s%s\n", pb->limit, pb->bound,
                        pb->bound == 1 ? "" : "s",
                        pb->bound == p->lower_bound ? " (the bound)" : "");
        }
        if (p->naccum)
                fprintf(f, "  %zu accumulate counters, one run each: %zu runs%s\n", p->naccum,
                        p->naccum, p->naccum == p->lower_bound ? " (the bound)" : "");
        if (p->nabsent) {
                fprintf(f, "  not on this architecture (not planned; their metrics n/a):");
                for (size_t i = 0; i < p->nabsent; i++)
                        fprintf(f, " %s", p->absent[i]);
                fputc('\n', f);
        }
        size_t naka = 0;
        for (size_t i = 0; i < p->ncounters; i++)
                naka += p->counters[i].naka;
        if (naka) {
                fprintf(f, "  read under two names (one counter each):");
                for (size_t i = 0; i < p->ncounters; i++)
                        for (size_t k = 0; k < p->counters[i].naka; k++)
                                fprintf(f, " %s=%s", p->counters[i].aka[k], p->counters[i].name);
                fputc('\n', f);
        }
}

/* ---- for plan_groups.c (NVIDIA), which packs by the profiler's own pass count ---- */

const char *const *plan_req_src_names(const struct plan_req *r, size_t i, size_t *n)
{
        *n = r->srcs[i].nnames;
        return (const char *const *)r->srcs[i].names;
}
