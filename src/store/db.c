/* The prism SQLite store (docs/STORE.md): write a workload as long tables of raw values
 * per dispatch, counter and pass, with wide views for people; load databases back into
 * struct workload by attaching them read-only and reading through temporary views. */
#include "db.h"
#include "columns.h"
#include "db_int.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The schema, executed once per new database; docs/STORE.md explains every column. The
 * values live in one table per pass, created by write_pass. */
static const char schema_sql[] =
    "PRAGMA application_id = 1886548845;" /* 0x7072736d, "prsm" */
    "PRAGMA user_version = 2;"
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;"
    "CREATE TABLE sysinfo(pos INTEGER PRIMARY KEY, field TEXT NOT NULL UNIQUE, value,"
    " text TEXT);"
    "CREATE TABLE counters(counter_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
    " block TEXT, channel INTEGER);"
    "CREATE TABLE passes(pass_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
    " kind TEXT NOT NULL CHECK (kind IN ('counters', 'accumulate', 'timestamps',"
    " 'roofline')), nrows INTEGER NOT NULL);"
    "CREATE TABLE pass_columns(pass_id INTEGER NOT NULL REFERENCES passes,"
    " pos INTEGER NOT NULL, counter_id INTEGER NOT NULL REFERENCES counters,"
    " tbl TEXT NOT NULL, col TEXT NOT NULL, text INTEGER NOT NULL, num_col TEXT,"
    " PRIMARY KEY (pass_id, pos)) WITHOUT ROWID;"
    "CREATE TABLE kernels(kernel_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
    "CREATE TABLE dispatches(dispatch INTEGER PRIMARY KEY, dispatch_id,"
    " kernel_id INTEGER REFERENCES kernels, gpu_id, grid_size, workgroup_size,"
    " start_ns, end_ns, duration_ns);"
    "CREATE INDEX dispatches_kernel ON dispatches(kernel_id);"
    "CREATE TABLE plan(file TEXT NOT NULL, pos INTEGER NOT NULL, counter TEXT NOT NULL,"
    " PRIMARY KEY (file, pos)) WITHOUT ROWID;"
    "CREATE VIEW kernel_stats AS SELECT k.kernel_id, k.name, count(*) AS dispatches,"
    " sum(d.duration_ns) AS sum_ns, avg(d.duration_ns) AS mean_ns"
    " FROM dispatches d JOIN kernels k USING (kernel_id) GROUP BY k.kernel_id"
    " ORDER BY sum_ns DESC;";

/* Value columns one pass table holds at most: SQLite allows 2000 columns in a table
 * (SQLITE_MAX_COLUMN), and each has the dispatch column too. A pass with more (a GPU of
 * 128 channels: 2,718 counters) continues in <pass>_2, <pass>_3, ... */
#define TABLE_COLS 1999

/* ---- writing ---- */

struct writer {
        sqlite3 *db;
        sqlite3_stmt *counter, *col, *pass;
        struct smap counters; /* column name -> counter_id */
        struct smap tables;   /* table names taken (lower case: SQLite ignores case) */
        int ncounters;
        struct err *err;
};

static int exec(sqlite3 *db, const char *sql, struct err *err)
{
        int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
        return rc == SQLITE_OK ? 0 : db_sq_fail(db, rc, "cannot write the database", err);
}

static int prep(sqlite3 *db, sqlite3_stmt **st, const char *sql, struct err *err)
{
        int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);
        return rc == SQLITE_OK ? 0 : db_sq_fail(db, rc, "cannot prepare a statement", err);
}

static int step_done(sqlite3 *db, sqlite3_stmt *st, struct err *err)
{
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        return rc == SQLITE_DONE ? 0 : db_sq_fail(db, rc, "cannot write the database", err);
}

/* A number as stored: NULL for NaN, an INTEGER for whole numbers that a double holds
 * exactly (compact on disk, read back as the same double), else a REAL (-0.0 stays REAL
 * so that its sign survives). */
static void bind_num(sqlite3_stmt *st, int i, double v)
{
        if (isnan(v))
                sqlite3_bind_null(st, i);
        else if (fabs(v) < 9007199254740992.0 && v == trunc(v) && !(v == 0 && signbit(v)))
                sqlite3_bind_int64(st, i, (sqlite3_int64)v);
        else
                sqlite3_bind_double(st, i, v);
}

/* Dispatch information columns that rocprof writes beside the counters. */
static int is_info_column(const char *name)
{
        static const char *const raw[] = {
            "queue-id",   "queue-index",    "pid",    "tid",    "sig", "obj", "DispatchNs",
            "CompleteNs", COL_CORRELATION_ID, COL_NODE, COL_RANK, NULL};
        for (size_t i = 0; raw[i]; i++)
                if (!strcmp(raw[i], name))
                        return 1;
        return col_is_dispatch(name);
}

/* A counter's hardware block (the name's prefix, "CACHE" for CACHE_HIT[3]) and channel. */
static void counter_block(const char *name, char *block, size_t len, long *channel)
{
        *block = 0;
        *channel = -1;
        if (is_info_column(name) || !(name[0] >= 'A' && name[0] <= 'Z'))
                return;
        for (const char *p = name; *p; p++)
                if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
                      *p == '[' || *p == ']'))
                        return;
        const char *us = strchr(name, '_');
        if (!us || (size_t)(us - name) >= len)
                return;
        snprintf(block, len, "%.*s", (int)(us - name), name);
        const char *br = strchr(name, '[');
        if (br)
                *channel = strtol(br + 1, NULL, 10);
}

static int counter_id(struct writer *wr, const char *name, int *id)
{
        if (smap_get(&wr->counters, name, id))
                return 0;
        *id = ++wr->ncounters;
        smap_put(&wr->counters, name, *id);
        char block[32];
        long ch;
        counter_block(name, block, sizeof block, &ch);
        sqlite3_bind_int(wr->counter, 1, *id);
        sqlite3_bind_text(wr->counter, 2, name, -1, SQLITE_STATIC);
        if (*block)
                sqlite3_bind_text(wr->counter, 3, block, -1, SQLITE_TRANSIENT);
        if (ch >= 0)
                sqlite3_bind_int64(wr->counter, 4, ch);
        return step_done(wr->db, wr->counter, wr->err);
}

static char *lower(const char *s)
{
        char *l = xstrdup(s);
        for (char *p = l; *p; p++)
                if (*p >= 'A' && *p <= 'Z')
                        *p = (char)(*p - 'A' + 'a');
        return l;
}

/* name, or name#2, name#3, ... : the first not yet in taken (compared without case) */
static char *unique_name(struct smap *taken, const char *name)
{
        char *n = xstrdup(name);
        for (int k = 2;; k++) {
                char *l = lower(n);
                int used = smap_get(taken, l, NULL);
                if (!used)
                        smap_put(taken, l, 1);
                free(l);
                if (!used)
                        return n;
                free(n);
                n = xasprintf("%s#%d", name, k);
        }
}

static int same_num(double a, double b)
{
        return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

/* A column of a pass table: a counter's numbers, or its text (text columns), with the
 * numbers beside them where the text does not read as the number the workload holds. */
struct pcol {
        size_t src;       /* the column of t */
        int text;         /* the cells are text */
        char *name;       /* the SQL column */
        char *num_name;   /* the numbers' SQL column, or NULL */
};

static int text_needs_nums(const struct table *t, size_t c)
{
        for (size_t r = 0; r < t->nrows; r++) {
                const char *s = t->str[c][r];
                if (!same_num(t->num[c][r], s ? table_text_num(s) : NAN))
                        return 1;
        }
        return 0;
}

/* One pass: a row in passes, its columns in pass_columns, and its values in a table of
 * its own (a row per dispatch, a column per counter, as the CSV has them), split where
 * it has more columns than a table can. */
static int write_pass(struct writer *wr, int pass_id, const char *name, const char *kind,
                      const struct table *t)
{
        int rc;
        sqlite3_bind_int(wr->pass, 1, pass_id);
        sqlite3_bind_text(wr->pass, 2, name, -1, SQLITE_STATIC);
        sqlite3_bind_text(wr->pass, 3, kind, -1, SQLITE_STATIC);
        sqlite3_bind_int64(wr->pass, 4, (sqlite3_int64)t->nrows);
        if ((rc = step_done(wr->db, wr->pass, wr->err)))
                return rc;
        /* the SQL columns, in parts of TABLE_COLS */
        struct pcol *pc = xcalloc(t->ncols + 1, sizeof *pc);
        size_t nparts = 0, *part_start = xcalloc(t->ncols + 2, sizeof *part_start);
        size_t used = TABLE_COLS; /* columns in the current part */
        struct smap names = {0};
        char **tbl = xcalloc(t->ncols + 2, sizeof *tbl);
        for (size_t c = 0; c < t->ncols; c++) {
                pc[c].src = c;
                pc[c].text = t->str[c] != NULL;
                int nums = pc[c].text && text_needs_nums(t, c);
                if (used + 1 + (size_t)nums > TABLE_COLS) {
                        part_start[nparts] = c;
                        tbl[nparts] = nparts ? xasprintf("%s_%zu", name, nparts + 1)
                                             : xstrdup(name);
                        char *u = unique_name(&wr->tables, tbl[nparts]);
                        free(tbl[nparts]);
                        tbl[nparts++] = u;
                        smap_free(&names);
                        memset(&names, 0, sizeof names);
                        char *d = unique_name(&names, "dispatch");
                        free(d);
                        used = 0;
                }
                pc[c].name = unique_name(&names, t->names[c]);
                if (nums) {
                        char *nn = xasprintf("%s#num", t->names[c]);
                        pc[c].num_name = unique_name(&names, nn);
                        free(nn);
                }
                used += 1 + (size_t)nums;
        }
        part_start[nparts] = t->ncols;
        smap_free(&names);
        if (nparts == 0) { /* no columns: still a table of the rows */
                tbl[0] = unique_name(&wr->tables, name);
                nparts = 1;
        }
        for (size_t p = 0; p < nparts && !rc; p++) {
                size_t c0 = part_start[p], c1 = p + 1 < nparts ? part_start[p + 1] : t->ncols;
                if (t->ncols == 0)
                        c0 = c1 = 0;
                struct strbuf sb = {0}, ins = {0};
                sb_add(&sb, "CREATE TABLE ");
                db_sql_ident(&sb, tbl[p]);
                sb_add(&sb, "(dispatch INTEGER PRIMARY KEY");
                sb_add(&ins, "INSERT INTO ");
                db_sql_ident(&ins, tbl[p]);
                sb_add(&ins, " VALUES (?");
                int nparam = 1;
                for (size_t c = c0; c < c1; c++) {
                        sb_add(&sb, ", ");
                        db_sql_ident(&sb, pc[c].name);
                        sb_add(&ins, ", ?");
                        nparam++;
                        if (pc[c].num_name) {
                                sb_add(&sb, ", ");
                                db_sql_ident(&sb, pc[c].num_name);
                                sb_add(&ins, ", ?");
                                nparam++;
                        }
                        int cid;
                        if ((rc = counter_id(wr, t->names[c], &cid)))
                                break;
                        sqlite3_bind_int(wr->col, 1, pass_id);
                        sqlite3_bind_int64(wr->col, 2, (sqlite3_int64)c);
                        sqlite3_bind_int(wr->col, 3, cid);
                        sqlite3_bind_text(wr->col, 4, tbl[p], -1, SQLITE_STATIC);
                        sqlite3_bind_text(wr->col, 5, pc[c].name, -1, SQLITE_STATIC);
                        sqlite3_bind_int(wr->col, 6, pc[c].text);
                        if (pc[c].num_name)
                                sqlite3_bind_text(wr->col, 7, pc[c].num_name, -1, SQLITE_STATIC);
                        if ((rc = step_done(wr->db, wr->col, wr->err)))
                                break;
                }
                sb_add(&sb, ")");
                sb_add(&ins, ")");
                sqlite3_stmt *st = NULL;
                if (!rc && !(rc = exec(wr->db, sb.buf, wr->err)))
                        rc = prep(wr->db, &st, ins.buf, wr->err);
                /* a row per dispatch, every parameter bound each time */
                for (size_t r = 0; r < t->nrows && !rc; r++) {
                        int k = 1;
                        sqlite3_bind_int64(st, k++, (sqlite3_int64)r);
                        for (size_t c = c0; c < c1; c++) {
                                if (pc[c].text) {
                                        const char *v = t->str[c][r];
                                        if (v)
                                                sqlite3_bind_text(st, k++, v, -1, SQLITE_STATIC);
                                        else
                                                sqlite3_bind_null(st, k++);
                                        if (pc[c].num_name)
                                                bind_num(st, k++, t->num[c][r]);
                                } else {
                                        bind_num(st, k++, t->num[c][r]);
                                }
                        }
                        int src = sqlite3_step(st);
                        sqlite3_reset(st);
                        if (src != SQLITE_DONE)
                                rc = db_sq_fail(wr->db, src, "cannot write the database", wr->err);
                }
                sqlite3_finalize(st);
                sb_free(&sb);
                sb_free(&ins);
        }
        for (size_t c = 0; c < t->ncols; c++) {
                free(pc[c].name);
                free(pc[c].num_name);
        }
        for (size_t p = 0; p < nparts; p++)
                free(tbl[p]);
        free(tbl);
        free(pc);
        free(part_start);
        return rc;
}

/* kernels and dispatches: a convenience index over the pmc_perf pass */
static int write_dispatches(struct writer *wr, const struct table *t)
{
        sqlite3_stmt *k = NULL, *d = NULL;
        struct smap kid = {0};
        int rc, nk = 0;
        int ck = table_col(t, COL_KERNEL_NAME), cd = table_col(t, COL_DISPATCH_ID),
            cg = table_col(t, COL_GPU_ID), cgr = table_col(t, COL_GRID_SIZE),
            cw = table_col(t, COL_WORKGROUP_SIZE), cs = table_col(t, COL_START),
            ce = table_col(t, COL_END);
        if ((rc = prep(wr->db, &k, "INSERT INTO kernels VALUES (?, ?)", wr->err)) ||
            (rc = prep(wr->db, &d, "INSERT INTO dispatches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       wr->err)))
                goto out;
        for (size_t r = 0; r < t->nrows; r++) {
                char buf[64];
                const char *name = ck >= 0 ? table_cell(t, ck, r, buf, sizeof buf) : "";
                int id;
                if (!smap_get(&kid, name, &id)) {
                        id = nk++;
                        smap_put(&kid, name, id);
                        sqlite3_bind_int(k, 1, id);
                        sqlite3_bind_text(k, 2, name, -1, SQLITE_TRANSIENT);
                        if ((rc = step_done(wr->db, k, wr->err)))
                                goto out;
                }
                double s = cs >= 0 ? t->num[cs][r] : NAN, e = ce >= 0 ? t->num[ce][r] : NAN;
                sqlite3_bind_int64(d, 1, (sqlite3_int64)r);
                bind_num(d, 2, cd >= 0 ? t->num[cd][r] : NAN);
                sqlite3_bind_int(d, 3, id);
                bind_num(d, 4, cg >= 0 ? t->num[cg][r] : NAN);
                bind_num(d, 5, cgr >= 0 ? t->num[cgr][r] : NAN);
                bind_num(d, 6, cw >= 0 ? t->num[cw][r] : NAN);
                bind_num(d, 7, s);
                bind_num(d, 8, e);
                bind_num(d, 9, e - s);
                if ((rc = step_done(wr->db, d, wr->err)))
                        goto out;
        }
out:
        sqlite3_finalize(k);
        sqlite3_finalize(d);
        smap_free(&kid);
        return rc;
}

static int write_sysinfo(struct writer *wr, const struct table *t)
{
        sqlite3_stmt *st = NULL;
        int rc = prep(wr->db, &st, "INSERT INTO sysinfo VALUES (?, ?, ?, ?)", wr->err);
        for (size_t c = 0; !rc && c < t->ncols; c++) {
                sqlite3_bind_int64(st, 1, (sqlite3_int64)c);
                sqlite3_bind_text(st, 2, t->names[c], -1, SQLITE_STATIC);
                bind_num(st, 3, t->nrows ? t->num[c][0] : NAN);
                if (t->nrows && t->str[c] && t->str[c][0])
                        sqlite3_bind_text(st, 4, t->str[c][0], -1, SQLITE_STATIC);
                rc = step_done(wr->db, st, wr->err);
        }
        sqlite3_finalize(st);
        return rc;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A pass plan file (perfmon/NAME.txt) is a few "pmc:" lines of at most a few dozen
 * counters: one larger than PLAN_MAX_BYTES, or with a line longer than PLAN_MAX_LINE, is
 * left out of the recorded plan with a warning (a 50 MB line was 10 million rows). */
#define PLAN_MAX_BYTES (1 << 20)
#define PLAN_MAX_LINE 65536

static size_t longest_line(const char *text)
{
        size_t best = 0;
        for (const char *p = text; *p;) {
                const char *nl = strchr(p, '\n');
                size_t l = nl ? (size_t)(nl - p) : strlen(p);
                best = l > best ? l : best;
                p += l + (nl != NULL);
        }
        return best;
}

/* perfmon/NAME.txt: the counters each planned pass collected ("pmc: A B C" lines) */
static int write_plan(struct writer *wr, const char *dir)
{
        char *pdir = xasprintf("%s/perfmon", dir);
        DIR *d = opendir(pdir);
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        sqlite3_stmt *st = NULL;
        int rc = 0;
        while (d && (de = readdir(d))) {
                size_t l = strlen(de->d_name);
                if (l > 4 && !strcmp(de->d_name + l - 4, ".txt")) {
                        xgrow(&names, &cap, n + 1, sizeof *names);
                        names[n++] = xstrndup(de->d_name, l - 4);
                }
        }
        if (d)
                closedir(d);
        if (n)
                qsort(names, n, sizeof *names, cmp_str);
        if (n && (rc = prep(wr->db, &st, "INSERT OR IGNORE INTO plan VALUES (?, ?, ?)", wr->err)))
                goto out;
        for (size_t i = 0; i < n && !rc; i++) {
                char *path = xasprintf("%s/%s.txt", pdir, names[i]);
                struct err e2 = {0};
                size_t len = 0;
                char *text = read_file(path, &len, &e2);
                if (text && (len > PLAN_MAX_BYTES || longest_line(text) > PLAN_MAX_LINE)) {
                        err_set(&e2, ERR_INPUT,
                                "%s: %s than a pass plan holds (at most %zu bytes, lines of %zu)",
                                path, len > PLAN_MAX_BYTES ? "larger" : "a line longer",
                                (size_t)PLAN_MAX_BYTES, (size_t)PLAN_MAX_LINE);
                        free(text);
                        text = NULL;
                }
                free(path);
                if (!text) {
                        warnf("%s; the plan is incomplete", e2.msg);
                        continue;
                }
                long pos = 0;
                for (char *line = strtok(text, "\n"); line && !rc; line = strtok(NULL, "\n")) {
                        if (strncmp(line, "pmc:", 4))
                                continue;
                        char *save = NULL;
                        for (char *tok = strtok_r(line + 4, " \t\r", &save); tok && !rc;
                             tok = strtok_r(NULL, " \t\r", &save)) {
                                sqlite3_bind_text(st, 1, names[i], -1, SQLITE_STATIC);
                                sqlite3_bind_int64(st, 2, pos++);
                                sqlite3_bind_text(st, 3, tok, -1, SQLITE_STATIC);
                                rc = step_done(wr->db, st, wr->err);
                        }
                }
                free(text);
        }
out:
        sqlite3_finalize(st);
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        free(pdir);
        return rc;
}

static int put_meta(struct writer *wr, sqlite3_stmt *st, const char *k, const char *v)
{
        sqlite3_bind_text(st, 1, k, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, v ? v : "", -1, SQLITE_STATIC);
        return step_done(wr->db, st, wr->err);
}

static int write_meta(struct writer *wr, const struct workload *w, const char *src_dir,
                      const struct db_meta_kv *extra, size_t nextra)
{
        sqlite3_stmt *st = NULL;
        char ver[16], now[32], nd[32];
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
        snprintf(ver, sizeof ver, "%d", DB_SCHEMA_VERSION);
        snprintf(nd, sizeof nd, "%zu", w->pmc.nrows);
        int rc = prep(wr->db, &st, "INSERT OR REPLACE INTO meta VALUES (?, ?)", wr->err);
        if (!rc)
                rc = put_meta(wr, st, "schema_version", ver);
        if (!rc)
                rc = put_meta(wr, st, "prism_version", PRISM_VERSION);
        if (!rc)
                rc = put_meta(wr, st, "created", now);
        if (!rc)
                rc = put_meta(wr, st, "source", src_dir ? src_dir : w->path);
        if (!rc)
                rc = put_meta(wr, st, "gpu_arch", w->arch);
        if (!rc)
                rc = put_meta(wr, st, "gpu_model", w->model);
        if (!rc)
                rc = put_meta(wr, st, "dispatches", nd);
        for (size_t i = 0; i < nextra && !rc; i++)
                rc = put_meta(wr, st, extra[i].key, extra[i].value);
        sqlite3_finalize(st);
        return rc;
}

static int write_all(struct writer *wr, const struct workload *w, const char *src_dir,
                     const struct db_meta_kv *extra, size_t nextra)
{
        int rc, pass_id = 0;
        struct table ts;
        table_init(&ts);
        if ((rc = exec(wr->db, schema_sql, wr->err)) || (rc = exec(wr->db, "BEGIN", wr->err)))
                return rc;
        static const char *const fixed[] = {"meta",    "sysinfo", "counters", "passes",
                                            "pass_columns", "kernels", "dispatches", "plan",
                                            "kernel_stats", "wide_sysinfo", NULL};
        for (size_t i = 0; fixed[i]; i++)
                smap_put(&wr->tables, fixed[i], 1);
        if ((rc =
                 prep(wr->db, &wr->counter, "INSERT INTO counters VALUES (?, ?, ?, ?)", wr->err)) ||
            (rc = prep(wr->db, &wr->col,
                       "INSERT INTO pass_columns VALUES (?, ?, ?, ?, ?, ?, ?)", wr->err)) ||
            (rc = prep(wr->db, &wr->pass, "INSERT INTO passes VALUES (?, ?, ?, ?)", wr->err)))
                return rc;
        if ((rc = write_meta(wr, w, src_dir, extra, nextra)) ||
            (rc = write_sysinfo(wr, &w->sysinfo)) ||
            (rc = write_pass(wr, pass_id++, "pmc_perf", "counters", &w->pmc)) ||
            (rc = write_dispatches(wr, &w->pmc)))
                goto out;
        for (size_t i = 0; i < w->nacc; i++)
                if ((rc = write_pass(wr, pass_id++, w->acc_names[i], "accumulate", &w->acc[i])))
                        goto out;
        if (w->has_roofline &&
            (rc = write_pass(wr, pass_id++, "roofline", "roofline", &w->roofline)))
                goto out;
        if (src_dir) {
                char *f = xasprintf("%s/timestamps.csv", src_dir);
                struct err e2 = {0};
                if (file_kind(f) && table_load_csv(&ts, f, &e2))
                        warnf("%s; the database has no timestamps pass", e2.msg);
                free(f);
                if (ts.ncols && (rc = write_pass(wr, pass_id++, "timestamps", "timestamps", &ts)))
                        goto out;
                if ((rc = write_plan(wr, src_dir)))
                        goto out;
        }
        {
                struct strbuf sb = {0};
                sb_add(&sb, "CREATE VIEW wide_sysinfo AS SELECT ");
                for (size_t c = 0; c < w->sysinfo.ncols && c < TABLE_COLS; c++) {
                        sb_addf(&sb,
                                "%s(SELECT coalesce(text, value) FROM sysinfo WHERE pos = %zu) AS ",
                                c ? ", " : "", c);
                        db_sql_ident(&sb, w->sysinfo.names[c]);
                }
                if (!w->sysinfo.ncols)
                        sb_add(&sb, "NULL AS none");
                rc = exec(wr->db, sb.buf, wr->err);
                sb_free(&sb);
                if (rc)
                        goto out;
        }
        rc = exec(wr->db, "COMMIT", wr->err);
out:
        table_free(&ts);
        return rc;
}

int db_write(const char *path, const struct workload *w, const char *src_dir,
             const struct db_meta_kv *extra, size_t nextra, int replace, struct err *err)
{
        struct writer wr = {.err = err};
        char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
        int rc = 0, src;
        if (!replace && (is_file(path) || is_dir(path))) {
                rc = err_set(err, ERR_INPUT, "'%s' exists (use --force to replace it)", path);
                goto out;
        }
        if (file_kind(path) < 0 && !is_dir(path)) { /* a FIFO, a device: never replaced */
                rc = err_set(err, ERR_INPUT, "'%s' exists and is not a regular file", path);
                goto out;
        }
        unlink(tmp);
        db_sq_setup();
        src = sqlite3_open_v2(
            tmp, &wr.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
        if (src != SQLITE_OK) {
                rc = err_set(err, ERR_SYS, "cannot create '%s': %s", tmp,
                             wr.db ? sqlite3_errmsg(wr.db) : sqlite3_errstr(src));
                goto out;
        }
        /* a fresh file renamed into place at the end: no journal needed */
        if ((rc = exec(wr.db,
                       "PRAGMA page_size = 65536; PRAGMA journal_mode = OFF; "
                       "PRAGMA synchronous = OFF; PRAGMA cache_size = -65536;",
                       err)))
                goto out;
        if ((rc = write_all(&wr, w, src_dir, extra, nextra))) {
                err_wrap(err, "%s", path);
                goto out;
        }
out:
        sqlite3_finalize(wr.counter);
        sqlite3_finalize(wr.col);
        sqlite3_finalize(wr.pass);
        smap_free(&wr.counters);
        smap_free(&wr.tables);
        if (wr.db && sqlite3_close(wr.db) != SQLITE_OK && !rc)
                rc = err_set(err, ERR_SYS, "cannot write '%s'", tmp);
        if (!rc && rename(tmp, path) != 0)
                rc = err_set(err, ERR_SYS, "cannot rename '%s' to '%s': %s", tmp, path,
                             strerror(errno));
        if (rc)
                unlink(tmp);
        free(tmp);
        return rc;
}

int db_import_dir(const char *dir, const char *path, const char *accum_value,
                  const struct db_meta_kv *extra, size_t nextra, int replace,
                  size_t *ndispatches, size_t *ncols, struct err *err)
{
        struct workload w;
        int rc = workload_open(dir, &w, err);
        if (rc)
                return rc;
        workload_accum_value(&w, accum_value);
        rc = db_write(path, &w, dir, extra, nextra, replace, err);
        if (!rc && ndispatches)
                *ndispatches = w.pmc.nrows;
        if (!rc && ncols)
                *ncols = w.pmc.ncols;
        workload_close(&w);
        return rc;
}

