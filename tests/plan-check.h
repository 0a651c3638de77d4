/* Checks shared by the planner tests (t-plan.c, t-plan-archs.c): a plan's shape under the
 * block limits, where counters are collected and where pmc_perf.csv takes them from. */
#ifndef PRISM_TESTS_PLAN_CHECK_H
#define PRISM_TESTS_PLAN_CHECK_H

/* ---- checking a plan ---- */

static int pass_of(const struct plan *p, const char *counter, int accum)
{
        int found = -1;
        for (size_t i = 0; i < p->npasses; i++) {
                if (!!p->passes[i].accum != accum)
                        continue;
                for (size_t k = 0; k < p->passes[i].n; k++)
                        if (!strcmp(p->counters[p->passes[i].counters[k]].name, counter)) {
                                if (found >= 0)
                                        fail_msg("'%s' planned in passes %d and %zu", counter,
                                                 found, i);
                                found = (int)i;
                        }
        }
        return found;
}

static int limit_of(const struct block_limit *lim, size_t n, const char *block)
{
        for (size_t i = 0; i < n; i++)
                if (!strcmp(lim[i].block, block))
                        return lim[i].limit;
        fail_msg("no limit for block '%s'", block);
        return 0;
}

/* No pass over a limit (an accumulate pass's value takes one more slot of its counter's
 * block); accumulate passes last, each starting with its own accumulate counter, which no
 * other pass holds; every counter of a pass counts against a block of the limits; each
 * counter is home (pmc_perf.csv takes it from there) in at most one pass. */
static void check_shape(const struct plan *p, const struct block_limit *lim, size_t nlim)
{
        size_t first_accum = p->npasses - p->naccum;
        for (size_t i = 0; i < p->npasses; i++) {
                const struct plan_pass *ps = &p->passes[i];
                assert_int_equal(!!ps->accum, i >= first_accum);
                assert_non_null(ps->home);
                for (size_t b = 0; b < nlim; b++) {
                        int cnt = 0;
                        for (size_t k = 0; k < ps->n; k++)
                                cnt += !strcmp(p->counters[ps->counters[k]].block, lim[b].block);
                        if (ps->accum && !strcmp(p->counters[ps->counters[0]].block, lim[b].block))
                                cnt++; /* the accumulated value */
                        if (cnt > lim[b].limit)
                                fail_msg("pass %zu has %d %s counters, limit %d", i, cnt,
                                         lim[b].block, lim[b].limit);
                }
                for (size_t k = 0; k < ps->n; k++) {
                        limit_of(lim, nlim, p->counters[ps->counters[k]].block);
                        for (size_t j = 0; j < i; j++)
                                for (size_t m = 0; m < p->passes[j].n; m++)
                                        if (ps->home[k] && p->passes[j].home[m] &&
                                            p->passes[j].counters[m] == ps->counters[k])
                                                fail_msg("%s home in passes %zu and %zu",
                                                         p->counters[ps->counters[k]].name, j, i);
                }
                if (!ps->accum)
                        continue;
                assert_string_equal(p->counters[ps->counters[0]].name, ps->accum);
                assert_false(ps->home[0]);
                for (size_t j = 0; j < p->npasses; j++) {
                        if (j == i)
                                continue;
                        for (size_t k = 0; k < p->passes[j].n; k++)
                                if (!strcmp(p->counters[p->passes[j].counters[k]].name,
                                            ps->accum))
                                        fail_msg("accumulate counter %s also in pass %zu",
                                                 ps->accum, j);
                }
        }
}

/* The pass pmc_perf.csv takes a counter from, -1 if none. */
static int home_of(const struct plan *p, const char *counter)
{
        for (size_t i = 0; i < p->npasses; i++)
                for (size_t k = 0; k < p->passes[i].n; k++)
                        if (p->passes[i].home[k] &&
                            !strcmp(p->counters[p->passes[i].counters[k]].name, counter))
                                return (int)i;
        return -1;
}

static char *plan_text(const struct plan *p)
{
        struct strbuf sb = {0};
        sb_add(&sb, "");
        for (size_t i = 0; i < p->npasses; i++) {
                char *l = plan_pass_line(p, i);
                sb_addf(&sb, "pass %zu: %s\n", i, l);
                free(l);
        }
        return sb_detach(&sb);
}

#endif
