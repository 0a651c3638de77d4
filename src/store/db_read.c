/* Reading the prism SQLite store (docs/STORE.md): databases are attached read-only and
 * read through temporary views into struct workload, never copied. */
#include "columns.h"
#include "db.h"
#include "db_int.h"
#include "db_rd.h"
#include "../util/task.h"

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

/* ---- reading ---- */


/* "file:" URI of a path, opened read-only (percent-encoding what a URI reserves) */
static char *ro_uri(const char *path)
{
        struct strbuf sb = {0};
        sb_add(&sb, "file:");
        for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
                if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || strchr("/-_.~", *p))
                        sb_addc(&sb, (char)*p);
                else
                        sb_addf(&sb, "%%%02X", *p);
        }
        sb_add(&sb, "?mode=ro");
        return sb_detach(&sb);
}

/* Attach every database and define the temporary views that union them. */
static int rd_attach(struct reader *rd)
{
        /* one connection per call, used by one thread: no SQLite mutexes */
        db_sq_setup();
        int rc = sqlite3_open_v2(":memory:", &rd->db,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI |
                                     SQLITE_OPEN_NOMUTEX,
                                 NULL);
        if (rc != SQLITE_OK)
                return err_set(rd->err, ERR_SYS, "cannot start SQLite: %s", sqlite3_errstr(rc));
        if (rd->n > (size_t)sqlite3_limit(rd->db, SQLITE_LIMIT_ATTACHED, -1))
                return err_set(rd->err, ERR_INPUT,
                               "cannot attach %zu databases at once (at most %d)", rd->n,
                               sqlite3_limit(rd->db, SQLITE_LIMIT_ATTACHED, -1));
        for (size_t i = 0; i < rd->n; i++) {
                const char *p = rd->paths[i];
                if (!is_file(p))
                        return err_set(rd->err, ERR_INPUT, "cannot open workload '%s': %s", p,
                                       is_dir(p)            ? "a directory, not a database"
                                       : file_kind(p) < 0 ? "not a regular file"
                                                          : "no such file");
                char *uri = ro_uri(p), *sql = xasprintf("ATTACH ? AS s%zu", i);
                sqlite3_stmt *st = NULL;
                rc = sqlite3_prepare_v2(rd->db, sql, -1, &st, NULL);
                if (rc == SQLITE_OK) {
                        sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
                        rc = sqlite3_step(st);
                        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
                }
                sqlite3_finalize(st);
                free(uri);
                free(sql);
                if (rc != SQLITE_OK)
                        return err_set(rd->err, ERR_INPUT, "cannot open workload '%s': %s", p,
                                       sqlite3_errcode(rd->db) == SQLITE_NOTADB
                                           ? "not an SQLite database"
                                           : sqlite3_errmsg(rd->db));
                /* a prism database of a schema this build reads? */
                sql = xasprintf("SELECT value FROM s%zu.meta WHERE key = 'schema_version'", i);
                rc = sqlite3_prepare_v2(rd->db, sql, -1, &st, NULL);
                free(sql);
                if (rc != SQLITE_OK) {
                        int notdb = sqlite3_errcode(rd->db) == SQLITE_NOTADB;
                        sqlite3_finalize(st);
                        return err_set(rd->err, ERR_INPUT, "cannot open workload '%s': %s", p,
                                       notdb ? "not an SQLite database"
                                             : "not a prism database (no meta table)");
                }
                long ver = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
                sqlite3_finalize(st);
                if (ver < DB_SCHEMA_VERSION)
                        /* version 1 kept a row per cell (docs/STORE.md) */
                        return err_set(rd->err, ERR_INPUT,
                                       "cannot open workload '%s': schema version %ld, this "
                                       "prism reads version %d (import the workload directory "
                                       "again: prism database --import DIR --force)",
                                       p, ver, DB_SCHEMA_VERSION);
                if (ver > DB_SCHEMA_VERSION)
                        return err_set(rd->err, ERR_INPUT,
                                       "cannot open workload '%s': schema version %ld, this "
                                       "prism reads version %d",
                                       p, ver, DB_SCHEMA_VERSION);
        }
        static const char *const views[][2] = {
            {"v_sysinfo", "SELECT %zu AS src, pos, field, value, text FROM s%zu.sysinfo"},
            {"v_passes", "SELECT %zu AS src, pass_id, name, kind, nrows FROM s%zu.passes"},
            {"v_columns", "SELECT %zu AS src, pc.pass_id, pc.pos, c.name, pc.tbl, pc.col, "
                          "pc.text, pc.num_col FROM s%zu.pass_columns pc LEFT JOIN s%zu.counters c "
                          "USING (counter_id)"},
        };
        for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
                struct strbuf sb = {0};
                sb_addf(&sb, "CREATE TEMP VIEW %s AS ", views[v][0]);
                for (size_t i = 0; i < rd->n; i++) {
                        if (i)
                                sb_add(&sb, " UNION ALL ");
                        sb_addf(&sb, views[v][1], i, i, i, i);
                }
                rc = sqlite3_exec(rd->db, sb.buf, NULL, NULL, NULL);
                sb_free(&sb);
                if (rc != SQLITE_OK)
                        return err_set(rd->err, ERR_INPUT, "cannot read '%s': %s", rd->paths[0],
                                       sqlite3_errmsg(rd->db));
        }
        if ((rc = rd_prep(rd, &rd->cols,
                          "SELECT name, tbl, col, text, num_col FROM v_columns WHERE src = ?1 "
                          "AND pass_id = ?2 ORDER BY pos",
                          0)))
                return rc;
        return 0;
}

static void rd_close(struct reader *rd)
{
        sqlite3_finalize(rd->cols);
        sqlite3_close(rd->db);
}


/* The columns c0..c1 of cols, all in table cols[c0].tbl, into t: one query over the
 * table's rows, only the columns kept. */
static int rd_part(struct reader *rd, size_t src, struct rcol *cols, size_t c0, size_t c1,
                   struct table *t)
{
        char *sql = part_sql(src, cols, c0, c1, 0);
        sqlite3_stmt *st = NULL;
        int rc = rd_prep(rd, &st, sql, src), s;
        free(sql);
        if (rc)
                return rc;
        /* rows 0 .. nrows - 1, each once, in order: anything else is no pass prism reads */
        size_t r = 0;
        while ((s = sqlite3_step(st)) == SQLITE_ROW) {
                if (r >= t->nrows || !rd_row_num(st, r))
                        break;
                part_cells(st, cols, c0, c1, t, r++);
        }
        rc = s == SQLITE_DONE && r == t->nrows ? 0
             : s == SQLITE_DONE || s == SQLITE_ROW
                 ? rd_row_fail(rd, src, cols[c0].tbl, r, t->nrows)
                 : rd_step_fail(rd, src, s);
        sqlite3_finalize(st);
        return rc;
}

/* one pass as a table: its columns in recorded order, those want accepts */
static int rd_pass(struct reader *rd, size_t src, long pass_id, size_t nrows, table_col_fn want,
                   void *ctx, struct table *t)
{
        struct rcol *cols = NULL;
        size_t n = 0;
        table_init(t);
        int rc = rd_cols(rd, src, pass_id, want, ctx, &cols, &n);
        for (size_t r = 0; r < nrows && !rc; r++) {
                size_t rr = table_add_row(t);
                t->line[rr] = r + 2; /* the line it has in its CSV file */
        }
        if (!rc)
                rcols_table(cols, n, t);
        /* a query per table: the kept columns of a pass in one table come in one read */
        for (size_t i = 0; i < n && !rc;) {
                size_t j = i + 1;
                while (j < n && !strcmp(cols[j].tbl, cols[i].tbl))
                        j++;
                rc = rd_part(rd, src, cols, i, j, t);
                i = j;
        }
        rcols_free(cols, n);
        if (rc)
                table_free(t);
        return rc;
}

static int rd_sysinfo(struct reader *rd, size_t src, struct table *t)
{
        sqlite3_stmt *st = NULL;
        int rc = rd_prep(rd, &st,
                         "SELECT field, value, text FROM v_sysinfo WHERE src = ? "
                         "ORDER BY pos",
                         src);
        table_init(t);
        if (rc)
                return rc;
        table_add_row(t);
        sqlite3_bind_int64(st, 1, (sqlite3_int64)src);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                const char *field = db_col_text(st, 0);
                if (!field || table_col(t, field) >= 0) {
                        rc = err_set(rd->err, ERR_INPUT,
                                     field ? "cannot read '%s': sysinfo field '%.100s' twice"
                                           : "cannot read '%s': a sysinfo value has no field name",
                                     rd->paths[src], field);
                        sqlite3_finalize(st);
                        return rc;
                }
                int c = table_add_col(t, field);
                t->num[c][0] = db_col_num(st, 1);
                const char *s = db_col_text(st, 2);
                if (s)
                        table_set_str(t, c, 0, s);
        }
        rc = rc == SQLITE_DONE ? 0 : rd_step_fail(rd, src, rc);
        sqlite3_finalize(st);
        return rc;
}

/* A streamed pass's check (rd_rows: SQLite's quick_check of its tables and their row
 * counts, a walk of every page) on a second connection and thread while this one reads
 * the pass, from PASS_CHECK_ROWS rows and two CPUs on. The pass is read as if its recorded
 * count held (nothing is allocated for it up front when streamed), its warnings held; a
 * failed check then wins over whatever the reading found (the one-thread order: the check
 * first), and its warnings go. */
#define PASS_CHECK_ROWS 8192

struct pass_check {
        struct reader rd; /* the second connection (rd.db NULL: not opened) */
        struct err err;
        int tried;
        size_t src, nrows;
        long id;
        const char *name;
        sqlite3_int64 stored;
        struct task task;
};

static int pass_check_run(void *p)
{
        struct pass_check *pc = p;
        return rd_rows(&pc->rd, pc->src, pc->id, pc->name, pc->stored, &pc->nrows);
}

/* 1: pc's check started (*nrows its recorded count); 0: none (rd_rows is left to run) */
static int pass_check_start(struct reader *rd, struct pass_check *pc, size_t src, long id,
                            const char *name, sqlite3_int64 stored, size_t *nrows)
{
        if (stored < PASS_CHECK_ROWS || task_workers() < 2)
                return 0;
        if (!pc->tried) {
                pc->tried = 1;
                pc->rd = (struct reader){.paths = rd->paths, .n = rd->n, .err = &pc->err};
                if (rd_attach(&pc->rd) ||
                    sqlite3_exec(pc->rd.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
                        rd_close(&pc->rd);
                        pc->rd.db = NULL;
                }
        }
        if (!pc->rd.db)
                return 0;
        pc->src = src, pc->id = id, pc->name = name, pc->stored = stored;
        task_start(&pc->task, pass_check_run, pc);
        *nrows = (size_t)stored;
        return 1;
}

/* the pass read (its result rc, its warnings in held): the check's error where it failed,
 * else rc and the warnings printed */
static int pass_check_end(struct reader *rd, struct pass_check *pc, int rc,
                          struct strbuf *held)
{
        int crc = task_join(&pc->task);
        task_warnings(&pc->task);
        if (crc) {
                *rd->err = pc->err;
                sb_free(held);
                return crc;
        }
        warn_release(held);
        return rc;
}

static void pass_check_close(struct pass_check *pc)
{
        if (pc->rd.db) {
                sqlite3_exec(pc->rd.db, "COMMIT", NULL, NULL, NULL);
                rd_close(&pc->rd);
        }
}

static int rd_workload(struct reader *rd, size_t src, table_col_fn want, void *ctx,
                       const struct dbstreaming *ds, struct workload *w)
{
        const char *path = rd->paths[src];
        sqlite3_stmt *st = NULL;
        int rc, s, have_pmc = 0, checking = 0;
        struct pass_check pc = {0};
        memset(w, 0, sizeof *w);
        w->path = xstrdup(path);
        struct dbstreaming ds1;
        if (ds) { /* into this workload's spill */
                ds1 = *ds;
                ds1.spill = &w->spill;
                ds = &ds1;
        }
        if ((rc = rd_sysinfo(rd, src, &w->sysinfo)))
                goto out;
        const char *arch = workload_sys_str(w, "gpu_arch");
        if (!arch || !*arch) {
                rc = err_set(rd->err, ERR_INPUT, "%s: no gpu_arch in its sysinfo", path);
                goto out;
        }
        w->arch = xstrdup(arch);
        const char *model = workload_sys_str(w, "gpu_model");
        w->model = xstrdup(model ? model : "");
        if ((rc = rd_prep(rd, &st,
                          "SELECT pass_id, name, kind, nrows FROM v_passes WHERE "
                          "src = ? ORDER BY name",
                          src)))
                goto out;
        sqlite3_bind_int64(st, 1, (sqlite3_int64)src);
        w->acc = xcalloc(1, sizeof *w->acc);
        w->acc_names = xcalloc(1, sizeof *w->acc_names);
        while ((s = sqlite3_step(st)) == SQLITE_ROW) {
                long id = sqlite3_column_int(st, 0);
                const char *name = db_col_text(st, 1), *kind = db_col_text(st, 2);
                size_t nrows = 0;
                if (!name || !kind || sqlite3_column_type(st, 3) != SQLITE_INTEGER) {
                        rc = err_set(rd->err, ERR_INPUT,
                                     "cannot read '%s': a pass without its %s", path,
                                     !name ? "name" : !kind ? "kind" : "row count");
                        goto out;
                }
                /* the recorded count checked against the tables before anything is
                 * allocated for it */
                int spilled = ds && ((!strcmp(kind, "counters") && !have_pmc) ||
                                     !strcmp(kind, "accumulate"));
                struct strbuf held = {0}, *outer = NULL;
                checking = spilled && pass_check_start(rd, &pc, src, id, name,
                                                       sqlite3_column_int64(st, 3), &nrows);
                if (checking)
                        outer = warn_hold(&held);
                else if ((!strcmp(kind, "counters") && !have_pmc) ||
                         !strcmp(kind, "accumulate") ||
                         (!strcmp(kind, "roofline") && !w->has_roofline))
                        if ((rc = rd_rows(rd, src, id, name, sqlite3_column_int64(st, 3),
                                          &nrows)))
                                goto out;
                if (!strcmp(kind, "counters") && !have_pmc) {
                        rc = ds ? rd_pass_spill(rd, src, id, name, nrows, want, ctx, ds,
                                                ds->keep, 0, &w->pmc)
                                : rd_pass(rd, src, id, nrows, want, ctx, &w->pmc);
                        if (checking) {
                                warn_hold(outer);
                                checking = 0;
                                rc = pass_check_end(rd, &pc, rc, &held);
                        }
                        if (rc)
                                goto out;
                        if (!ds)
                                db_check_cells(&w->pmc, path, name);
                        have_pmc = 1;
                } else if (!strcmp(kind, "accumulate")) {
                        w->acc = xrealloc(w->acc, (w->nacc + 1) * sizeof *w->acc);
                        w->acc_names = xrealloc(w->acc_names, (w->nacc + 1) * sizeof *w->acc_names);
                        /* streamed: nothing of an accumulate pass stays but its rows' count */
                        rc = ds ? rd_pass_spill(rd, src, id, name, nrows, want, ctx, ds, NULL,
                                                1 + w->nacc, &w->acc[w->nacc])
                                : rd_pass(rd, src, id, nrows, want, ctx, &w->acc[w->nacc]);
                        if (checking) {
                                warn_hold(outer);
                                checking = 0;
                                rc = pass_check_end(rd, &pc, rc, &held);
                        }
                        if (rc)
                                goto out;
                        if (!ds)
                                db_check_cells(&w->acc[w->nacc], path, name);
                        w->acc_names[w->nacc++] = xstrdup(name);
                } else if (!strcmp(kind, "roofline") && !w->has_roofline) {
                        if ((rc = rd_pass(rd, src, id, nrows, NULL, NULL, &w->roofline)))
                                goto out;
                        w->has_roofline = 1;
                }
        }
        if (s != SQLITE_DONE) {
                rc = rd_step_fail(rd, src, s);
                goto out;
        }
        if (!have_pmc || w->pmc.nrows == 0) {
                rc = err_set(rd->err, ERR_INPUT, "%s: no dispatches recorded", path);
                goto out;
        }
        if (table_col(&w->pmc, COL_KERNEL_NAME) < 0) {
                rc = err_set(rd->err, ERR_INPUT, "%s: no Kernel_Name column", path);
                goto out;
        }
        for (size_t i = 0; i < w->nacc; i++)
                if (w->acc[i].nrows != w->pmc.nrows)
                        warnf("%s: %s has %zu rows but pmc_perf has %zu; rows are matched by "
                              "position",
                              path, w->acc_names[i], w->acc[i].nrows, w->pmc.nrows);
out:
        sqlite3_finalize(st);
        pass_check_close(&pc);
        if (rc)
                workload_close(w);
        return rc;
}

int db_open_many(const char *const *paths, size_t n, table_col_fn want, void *ctx,
                 struct workload *out, struct err *err)
{
        struct reader rd = {.paths = paths, .n = n, .err = err};
        size_t done = 0;
        int rc = rd_attach(&rd);
        for (; !rc && done < n; done++)
                rc = rd_workload(&rd, done, want, ctx, NULL, &out[done]);
        if (rc)
                for (size_t i = 0; i + 1 < done; i++)
                        workload_close(&out[i]);
        rd_close(&rd);
        return rc;
}

int db_open_workload(const char *path, table_col_fn want, void *ctx, struct workload *w,
                     struct err *err)
{
        return db_open_many(&path, 1, want, ctx, w, err);
}

int db_open_streamed(const char *path, table_col_fn keep, void *keep_ctx, table_col_fn want,
                     void *want_ctx, struct workload *w, struct err *err)
{
        struct reader rd = {.paths = &path, .n = 1, .err = err};
        struct dbstreaming ds = {keep, keep_ctx, NULL};
        /* one read transaction: the file's pages read directly (db_pages.c) are those of
         * the database SQLite reads, unchanged while it lasts */
        int rc = rd_attach(&rd);
        if (!rc && sqlite3_exec(rd.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
                rc = err_set(err, ERR_INPUT, "cannot read '%s': %s", path, sqlite3_errmsg(rd.db));
        if (!rc) {
                rc = rd_workload(&rd, 0, want, want_ctx, &ds, w);
                sqlite3_exec(rd.db, "COMMIT", NULL, NULL, NULL);
        }
        rd_close(&rd);
        return rc;
}

int db_read_arch(const char *path, char **arch, struct err *err)
{
        struct reader rd = {.paths = &path, .n = 1, .err = err};
        struct workload w = {0};
        int rc = rd_attach(&rd);
        *arch = NULL;
        if (!rc && !(rc = rd_sysinfo(&rd, 0, &w.sysinfo))) {
                const char *a = workload_sys_str(&w, "gpu_arch");
                if (a && *a)
                        *arch = xstrdup(a);
                else
                        rc = err_set(err, ERR_INPUT, "%s: no gpu_arch in its sysinfo", path);
        }
        table_free(&w.sysinfo);
        rd_close(&rd);
        return rc;
}

char *db_read_meta(const char *path, const char *key, struct err *err)
{
        struct reader rd = {.paths = &path, .n = 1, .err = err};
        sqlite3_stmt *st = NULL;
        char *v = NULL;
        if (!rd_attach(&rd) && !rd_prep(&rd, &st, "SELECT value FROM s0.meta WHERE key = ?", 0)) {
                sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
                if (sqlite3_step(st) == SQLITE_ROW && db_col_text(st, 0))
                        v = xstrdup(db_col_text(st, 0));
                else
                        err_set(err, ERR_INPUT, "%s: no meta entry '%s'", path, key);
        }
        sqlite3_finalize(st);
        rd_close(&rd);
        return v;
}
