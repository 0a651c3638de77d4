/* The workload session (session.h): prism's data in the version in force, the panels and
 * the workloads, each opened once: probe, sysinfo, architecture, dispatches. */
#include "session.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../store/columns.h"
#include "../store/formats.h"
#include "../expr/expr.h"
#include "../store/probe.h"
#include "../util/task.h"
#include "colset.h"
#include "findings.h"
#include "sysinfo.h"

int session_data(struct session *s, const char *compat, const char *norm, struct err *err)
{
        memset(s, 0, sizeof *s);
        s->mdir = data_path("metrics");
        s->pdir = data_path("panels");
        if (!s->mdir || !s->pdir)
                return err_set(err, ERR_INPUT,
                               "cannot find prism's metrics/ and panels/ (set PRISM_DATA_DIR)");
        struct data_version *v;
        size_t nv;
        int rc = data_versions_load(s->pdir, &v, &nv, &s->norms, err);
        if (rc)
                return rc;
        size_t k = data_version_default(v, nv);
        if (norm)
                rc = data_norm_check(&s->norms, norm, err);
        if (compat && !rc) {
                struct strbuf sb = {0};
                for (k = 0; k < nv && strcmp(v[k].name, compat); k++)
                        sb_addf(&sb, "%s%s", k ? ", " : "", v[k].name);
                if (k == nv)
                        rc = err_set(err, ERR_INPUT, "unknown --compat version '%s' (%s)", compat,
                                     sb.len ? sb.buf : "none");
                sb_free(&sb);
        }
        if (!rc) {
                s->ver = v[k];
                /* the default by name: panels/versions is read once */
                data_version_set(compat ? compat : s->ver.is_default ? s->ver.name : NULL);
                /* how that version groups the long layouts' rows (src/store/formats.h) */
                struct pass_rules pr = {.first_times = s->ver.first_times,
                                        .dispatch_base = s->ver.dispatch_base,
                                        .new_sysinfo_names = s->ver.new_sysinfo_names};
                formats_rules_set(&pr);
                s->ratio_avg = s->ver.ratio_avg;
                s->norm = norm ? norm : s->ver.norm;
        }
        free(v);
        return rc;
}

/* On the second thread, while the first reads the workload's architecture: the panels,
 * then (target known) the rules of target's family chain for the findings; the first
 * thread, its architecture read, takes the panels as soon as they are there (panels_wait).
 * Warnings are held in two parts, printed where a one-thread run prints them: the panels'
 * before the architecture's, the rules' after. */
struct panels_job {
        const char *dir, *mdir, *target;
        const struct analysis_opts *sel;
        struct panel_set *ps;
        struct err err;
        struct strbuf rules_warnings;
        /* the panels are loaded (panels_rc their result): the first thread may read them
         * while the rules load */
        pthread_mutex_t mu;
        pthread_cond_t cv;
        int panels_done, panels_rc;
};

static void panels_said(struct panels_job *j, int rc)
{
        pthread_mutex_lock(&j->mu);
        j->panels_rc = rc;
        j->panels_done = 1;
        pthread_cond_signal(&j->cv);
        pthread_mutex_unlock(&j->mu);
}

/* The panels' result once loaded: on the task's thread, waited for; else the whole task is
 * run here first (the second thread had not begun it). */
static int panels_wait(struct task *t, struct panels_job *j)
{
        if (!task_run_here(t)) {
                pthread_mutex_lock(&j->mu);
                while (!j->panels_done)
                        pthread_cond_wait(&j->cv, &j->mu);
                pthread_mutex_unlock(&j->mu);
        }
        return j->panels_rc;
}

static int panels_job(void *p)
{
        struct panels_job *j = p;
        int rc = panels_load(j->dir, j->ps, &j->err);
        panels_said(j, rc);
        if (rc || !j->target)
                return rc;
        struct strbuf *panels_warnings = warn_hold(&j->rules_warnings);
        char *chain = NULL;
        struct err cerr = {0}; /* arch_load reports it */
        if (arch_chain(j->mdir, j->target, &chain, &cerr) == 0)
                findings_preload(chain, j->sel);
        free(chain);
        warn_hold(panels_warnings);
        return 0;
}

/* Stream a workload whose per-dispatch data (pmc_perf.csv, or the database) is at least
 * $PRISM_STREAM_MB megabytes (default 32, about 7,000 dispatches of 400 counters): its
 * columns then go to a temporary file and only those of selection and the built-in
 * tables stay in memory. */
static int stream_it(const struct store_probe *p)
{
        const char *v = getenv("PRISM_STREAM_MB");
        double mb = 32;
        if (v && parse_double(v, &mb))
                mb = 32;
        return p->data_bytes >= 0 && (double)p->data_bytes >= mb * 1024 * 1024;
}

/* A workload probed and its sysinfo read: then its architecture, from the gpu_arch there */
static int open_sysinfo(const char *path, struct store_probe *p, struct workload *w,
                        struct err *err)
{
        int rc = store_probe(path, p, err);
        return rc ? rc : store_open_sysinfo(p, w, err);
}

static int load_arch(const struct workload *w, const char *mdir, struct arch *a,
                     struct err *err)
{
        int rc = arch_load(mdir, w->arch, a, err);
        if (rc)
                err_wrap(err, "%s", w->sysinfo_file ? w->sysinfo_file : w->path);
        return rc;
}

/* What the first thread does for the first workload while the second loads the rules:
 * its directory's layout detected (the warnings held) and the columns the selected panels'
 * metrics read. */
struct early {
        int have_cs;
        struct strbuf warnings; /* the detection's, said where the load would say them */
        struct colset cs;
};

/* Detect p's layout (a directory's) now, its warnings held in e. A failure is left to the
 * load, which detects again and says it in its place (what this try read is dropped). */
static void early_detect(struct store_probe *p, const struct workload *w, struct early *e)
{
        if (p->kind != STORE_DIR || !p->pmc_there)
                return;
        struct err derr = {0};
        struct strbuf *outer = warn_hold(&e->warnings);
        int rc = store_detect(p, w, !stream_it(p), &derr);
        warn_hold(outer);
        if (rc) {
                sb_free(&e->warnings);
                csv_texts_free(&p->ct);
        }
}

/* The dispatches of a workload whose sysinfo is in w and architecture in a, reading only
 * the columns the tables sel's -b ids select read (column projection); e: what was done
 * for it already, or NULL. */
static int load_data(struct store_probe *p, const struct panel_set *ps,
                     const struct analysis_opts *sel, struct workload *w, struct arch *a,
                     struct early *e, struct err *err)
{
        struct colset cs;
        if (e && e->have_cs) {
                cs = e->cs;
                e->have_cs = 0;
        } else {
                colset_build(&cs, a, ps, sel);
        }
        colset_add_rules(&cs, a, sel);
        if (e)
                warn_release(&e->warnings); /* the layout's, detected before */
        struct store_cols c = {.want = colset_want, .want_ctx = &cs};
        if (stream_it(p))
                c.keep = colset_always;
        int rc = store_load(p, &c, w, err);
        colset_free(&cs);
        if (!rc) {
                workload_accum_value(w, a->accum_value);
                workload_check_sysinfo(w, a); /* missing or damaged fields warn once */
        }
        return rc;
}

int session_open(struct session *s, char *const *paths, size_t n,
                 const struct analysis_opts *sel, struct err *err)
{
        struct store_probe p[2];
        struct panels_job pj = {.dir = s->pdir, .mdir = s->mdir, .sel = sel, .ps = &s->ps,
                                .mu = PTHREAD_MUTEX_INITIALIZER,
                                .cv = PTHREAD_COND_INITIALIZER};
        struct early e = {0};
        struct task pt;
        struct strbuf held = {0};
        int rc = 0, sys = 0, arch = 0; /* w[0] has its sysinfo, a[0] is loaded */
        if (n > 2)
                return err_set(err, ERR_USAGE, "analyze compares at most two workloads");
        memset(p, 0, sizeof p);
        /* the first workload's sysinfo and architecture while the panels load */
        struct strbuf *outer = warn_hold(&held);
        if (n)
                sys = !(rc = open_sysinfo(paths[0], &p[0], &s->w[0], err));
        pj.target = sys ? s->w[0].arch : NULL;
        task_start(&pt, panels_job, &pj);
        if (sys)
                arch = !(rc = load_arch(&s->w[0], s->mdir, &s->a[0], err));
        warn_hold(outer);
        /* while the rules load: the first workload's layout, and its columns once the
         * panels are there */
        if (arch) {
                early_detect(&p[0], &s->w[0], &e);
                if (!panels_wait(&pt, &pj)) {
                        colset_build(&e.cs, &s->a[0], &s->ps, sel);
                        e.have_cs = 1;
                }
        }
        int prc = task_join(&pt);
        task_warnings(&pt);
        if (prc) {
                sb_free(&held);
                sb_free(&pj.rules_warnings);
                sb_free(&e.warnings);
                *err = pj.err;
                rc = prc;
                goto out;
        }
        warn_release(&held);
        warn_release(&pj.rules_warnings);
        for (size_t i = 0; i < n && !rc; i++) {
                if (i) {
                        if ((rc = open_sysinfo(paths[i], &p[i], &s->w[i], err)))
                                break;
                        sys = 1;
                        if ((rc = load_arch(&s->w[i], s->mdir, &s->a[i], err)))
                                break;
                        arch = 1;
                }
                sys = 0; /* store_load closes w on error */
                if ((rc = load_data(&p[i], &s->ps, sel, &s->w[i], &s->a[i], i ? NULL : &e,
                                    err)))
                        break;
                arch = 0;
                s->n++;
        }
        if (!rc && n)
                panels_use_titles(&s->ps, &s->a[0]);
out:
        if (e.have_cs)
                colset_free(&e.cs);
        sb_free(&e.warnings);
        /* what a failed step left half open: workload s->n */
        if (sys)
                workload_close(&s->w[s->n]);
        if (arch)
                arch_free(&s->a[s->n]);
        for (size_t i = 0; i < n; i++)
                store_probe_free(&p[i]);
        return rc;
}

int session_list_arch(struct session *s, const char *target, const struct arch **a,
                      struct err *err)
{
        if (!target) {
                *a = &s->a[0];
                return 0;
        }
        if (!s->has_list) {
                int rc = arch_load(s->mdir, target, &s->list, err);
                if (rc)
                        return rc;
                s->has_list = 1;
                if (!s->n)
                        panels_use_titles(&s->ps, &s->list); /* the family's titles */
        }
        *a = &s->list;
        return 0;
}

int session_multi_rank(const struct session *s)
{
        return s->n && table_col(&s->w[0].pmc, COL_RANK) >= 0;
}

int session_analyze(struct session *s, const struct analysis_opts *o, struct err *err)
{
        for (; s->nan < s->n; s->nan++)
                if (analysis_run(&s->w[s->nan], &s->a[s->nan], &s->ps, o, &s->an[s->nan], err))
                        return err_wrap(err, "%s", s->w[s->nan].path);
        const struct analysis *an = &s->an[0];
        if (s->n && an->nmissing) {
                struct strbuf sb = {0};
                for (size_t i = 0; i < an->nmissing && i < 5; i++)
                        sb_addf(&sb, "%s%s", i ? ", " : "", an->missing[i]);
                warnf("%s: %zu counter%s not collected (%s%s); the metrics that need them are "
                      "n/a",
                      s->w[0].path, an->nmissing, an->nmissing == 1 ? " was" : "s were", sb.buf,
                      an->nmissing > 5 ? ", ..." : "");
                sb_free(&sb);
        }
        /* NOISE_CLAMP's corrections (3.10's L2 metrics), as rocprof-compute says */
        size_t nclamp;
        double worst;
        expr_noise_stats(&nclamp, &worst, 1);
        if (nclamp)
                warnf("%s: counter variance corrected: %zu value%s of a difference of counters "
                      "read in different passes clamped from below 0 to 0 (at most %.1f%% of its "
                      "reference)",
                      s->w[0].path, nclamp, nclamp == 1 ? "" : "s", 100 * worst);
        return 0;
}

void session_close(struct session *s)
{
        for (size_t i = 0; i < s->nan; i++)
                analysis_free(&s->an[i]);
        for (size_t i = 0; i < s->n; i++) {
                workload_close(&s->w[i]);
                arch_free(&s->a[i]);
        }
        if (s->has_list)
                arch_free(&s->list);
        panels_free(&s->ps);
        free(s->mdir);
        free(s->pdir);
        memset(s, 0, sizeof *s);
}
