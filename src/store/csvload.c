/* The CSV loader's cells, header names and records as libcsv hands them over (csvload.h):
 * a cell's number or text, duplicate column names made unique, field counts checked against
 * the header, NUL bytes and over-long fields refused. */
#include "csvload.h"

#include "../util/numparse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double table_text_num(const char *s)
{
        double v;
        size_t len = strlen(s);
        if (len && (num_fast(s, len, &v) || parse_double(s, &v) == 0))
                return v;
        return NAN;
}

/* Whether strtod reads no number from s for certain: its first byte a letter that starts
 * none ("inf", "nan" and "0x" do not start so) or '_' (a kernel name, mostly) */
static int surely_text(const char *s)
{
        unsigned char c = (unsigned char)s[0];
        unsigned l = c | 0x20u;
        return c == '_' || (l - 'a' < 26u && l != 'i' && l != 'n');
}

/* One data cell: its number (NaN when empty or text), and its text in text columns. */
void csvload_cell(struct loader *ld, int c, size_t r, const char *s, size_t len)
{
        struct table *t = ld->t;
        double v;
        int text = len && surely_text(s);
        if (len == 0) {
                t->num[c][r] = NAN;
        } else if (!text && (num_fast(s, len, &v) || parse_double(s, &v) == 0) &&
                   (isfinite(v) || t->str[c])) {
                t->num[c][r] = v;
                if (t->str[c])
                        table_set_str(t, c, r, s);
        } else {
                /* text; or "nan", "inf", "1e400": NaN or inf, and its text kept for
                 * messages (workload.c names the damaged cell as written) */
                if (text || parse_double(s, &v) != 0)
                        v = NAN;
                t->num[c][r] = v;
                if (!t->str[c]) {
                        /* first text cell: keep the text of earlier numeric cells too */
                        t->str[c] = xcalloc(t->cap_rows, sizeof(char *));
                        ld->text_cols++;
                        char buf[64];
                        for (size_t i = 0; i < r; i++)
                                if (!isnan(t->num[c][i]))
                                        t->str[c][i] = xstrdup(
                                            table_cell(t, c, i, buf, sizeof buf));
                }
                table_set_str(t, c, r, s);
        }
}

/* The column name for header field ld->field (malloc'd): the text without a UTF-8 byte
 * order mark on the first one; a duplicate keeps its position as "name#N". That name
 * may itself be taken (header "#1,,"), so try "name#N#2", ... until it is unique: two
 * columns under one name made data rows look too long (found by fuzz_csv). */
/* The column's name (a repeated one made unique); *kept: whether want takes it, -1 when
 * the name was changed (want is asked again with the new name) */
static const char *header_name(struct loader *ld, const char *s, int *kept_out, char **owned)
{
        *owned = NULL; /* the name is s itself (past a BOM) unless renamed: then *owned */
        if (ld->field == 0 && !strncmp(s, "\xEF\xBB\xBF", 3))
                s += 3;
        if (ld->field == 0)
                ld->blank_head = !*s;
        const char *name = s;
        /* tell the caller about a repeated column it reads (workload.c warns) */
        int kept = !ld->want || ld->want(ld->want_ctx, s);
        int seen = !smap_add(&ld->seen, name, 1); /* asked once a name; put when new */
        if (!ld->t->dup && kept && seen)
                ld->t->dup = xstrdup(s);
        *kept_out = kept;
        for (int k = 1; seen; k++) {
                *kept_out = -1;
                free(*owned);
                *owned = k == 1 ? xasprintf("%s#%zu", s, ld->field)
                                : xasprintf("%s#%zu#%d", s, ld->field, k);
                name = *owned;
                seen = !smap_add(&ld->seen, name, 1);
        }
        return name;
}

int csvload_long_field(struct loader *ld)
{
        err_set(ld->err, ERR_INPUT, "%s:%zu: a field longer than %d MiB (damaged file?)",
                ld->path, ld->line, FIELD_MAX >> 20);
        ld->failed = 1;
        return 1;
}

/* A NUL byte inside a field: text would be cut there and "5\0junk" read as 5, so the
 * file is refused as not text (found by fuzz_csv). Returns 1 after filling the error. */
static int nul_in_field(struct loader *ld, const void *data, size_t len)
{
        if (len > FIELD_MAX)
                return csvload_long_field(ld);
        if (!ld->nul_seen || !data || !memchr(data, 0, len))
                return 0;
        err_set(ld->err, ERR_INPUT, "%s:%zu: NUL byte in field %zu (not a text file?)", ld->path,
                ld->line, ld->field + 1);
        ld->failed = 1;
        return 1;
}

void csvload_field(void *data, size_t len, void *p)
{
        struct loader *ld = p;
        struct table *t = ld->t;
        if (ld->failed || nul_in_field(ld, data, len))
                return;
        char *s = xstrndup(data ? data : "", len);
        if (ld->field == 0)
                ld->row_line = ld->line;
        if (ld->header) {
                int kept;
                char *owned;
                table_add_col(t, header_name(ld, s, &kept, &owned));
                ld->field++;
                free(owned);
                free(s);
                return;
        }
        if (ld->field >= t->ncols) {
                err_set(ld->err, ERR_INPUT, "%s:%zu: %zu fields, but the header has %zu",
                        ld->path, ld->row_line, ld->field + 1, t->ncols);
                ld->failed = 1;
                free(s);
                return;
        }
        if (ld->field == 0) {
                size_t r = table_add_row(t); /* may move t->line */
                t->line[r] = ld->row_line;
        }
        csvload_cell(ld, (int)ld->field++, t->nrows - 1, s, len);
        free(s);
}

/* csvload_field for a projected load: no copy of the field (libcsv NUL-terminates it), and
 * fields of unwanted columns are skipped without parsing */
void csvload_field_cols(void *data, size_t len, void *p)
{
        struct loader *ld = p;
        struct table *t = ld->t;
        const char *s = data ? data : "";
        if (ld->failed || nul_in_field(ld, data, len))
                return;
        if (ld->field == 0)
                ld->row_line = ld->line;
        if (ld->header) {
                int kept;
                char *owned;
                const char *name = header_name(ld, s, &kept, &owned);
                if (kept < 0)
                        kept = ld->want(ld->want_ctx, name);
                xgrow(&ld->map, &ld->cap_map, ld->field + 1, sizeof *ld->map);
                ld->map[ld->field++] = kept ? table_add_col(t, name) : -1;
                ld->nhead = ld->field;
                free(owned);
                return;
        }
        if (ld->field >= ld->nhead) {
                err_set(ld->err, ERR_INPUT, "%s:%zu: %zu fields, but the header has %zu",
                        ld->path, ld->row_line, ld->field + 1, ld->nhead);
                ld->failed = 1;
                return;
        }
        if (ld->field == 0) {
                /* no NaN fill: a record sets every kept column (a short one fails the load),
                 * and text slots beyond nrows are NULL already (grow_rows) */
                table_reserve(t, t->nrows + 1); /* may move t->line */
                t->line[t->nrows++] = ld->row_line;
        }
        int c = ld->map[ld->field++];
        if (c >= 0)
                csvload_cell(ld, c, t->nrows - 1, s, len);
}

/* csvload_field for csv_stream: keep the field's text until its record ends */
void csvload_field_rec(void *data, size_t len, void *p)
{
        struct loader *ld = p;
        if (ld->failed || nul_in_field(ld, data, len))
                return;
        if (ld->field == 0)
                ld->row_line = ld->line;
        if (!ld->header && ld->field >= ld->nhead) {
                err_set(ld->err, ERR_INPUT, "%s:%zu: %zu fields, but the header has %zu",
                        ld->path, ld->row_line, ld->field + 1, ld->nhead);
                ld->failed = 1;
                return;
        }
        if (ld->field == 0 && ld->header && len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3)) {
                data = (char *)data + 3; /* a UTF-8 byte order mark */
                len -= 3;
        }
        xgrow(&ld->lens, &ld->cap_lens, ld->field + 1, sizeof *ld->lens);
        xgrow(&ld->at, &ld->cap_at, ld->field + 1, sizeof *ld->at);
        if (ld->header && ld->field == 0)
                ld->blank_head = len == 0;
        if (ld->field == 0)
                sb_reset(&ld->text);
        ld->at[ld->field] = ld->text.len;
        sb_addn(&ld->text, data ? data : "", len);
        sb_addc(&ld->text, '\0');
        ld->lens[ld->field++] = len;
}

/* the end of a record in csv_stream: the header sets the field count, a data record must
 * have as many fields; then row_fn sees it */
static void end_record_rec(struct loader *ld)
{
        size_t n = ld->field;
        if (ld->header) {
                ld->nhead = n;
        } else if (n == 0) {
                return; /* a blank line */
        } else if (n < ld->nhead) {
                err_set(ld->err, ERR_INPUT, "%s:%zu: %zu fields, but the header has %zu "
                        "(truncated file?)", ld->path, ld->row_line, n, ld->nhead);
                ld->failed = 1;
        }
        if (!ld->failed && !(ld->header && n == 1 && ld->blank_head)) {
                xgrow(&ld->fields, &ld->cap_fields, n + 1, sizeof *ld->fields);
                for (size_t i = 0; i < n; i++)
                        ld->fields[i] = ld->text.buf + ld->at[i];
                ld->nrec += !ld->header;
                int rc = ld->row_fn(ld->row_ctx, ld->fields, ld->lens, n,
                                    ld->header ? 0 : ld->row_line, ld->err);
                if (rc)
                        ld->failed = 1;
                if (rc > 0)
                        ld->stopped = 1;
        }
}

void csvload_record(int ch, void *p)
{
        struct loader *ld = p;
        (void)ch;
        if (ld->failed)
                return;
        if (ld->row_fn) {
                end_record_rec(ld);
                ld->header = 0;
                ld->field = 0;
                ld->end_line = ld->line;
                return;
        }
        if (ld->header) {
                ld->header = 0;
        } else if (ld->field == 0) {
                /* a blank line: libcsv reports no fields; skip it */
        } else if (ld->field < (ld->want ? ld->nhead : ld->t->ncols)) {
                /* a short row is a truncated or damaged file: never guess the rest */
                err_set(ld->err, ERR_INPUT, "%s:%zu: %zu fields, but the header has %zu "
                        "(truncated file?)", ld->path, ld->row_line, ld->field,
                        ld->want ? ld->nhead : ld->t->ncols);
                ld->failed = 1;
        }
        ld->field = 0;
        ld->end_line = ld->line;
}

/* libcsv's own text for a quoting error ("error parsing data while strict checking
 * enabled") says little to a user */
const char *csvload_problem(struct csv_parser *p)
{
        return csv_error(p) == CSV_EPARSE ? "malformed quoting (a quote inside an unquoted "
                                            "field, or one never closed)"
                                          : csv_strerror(csv_error(p));
}

