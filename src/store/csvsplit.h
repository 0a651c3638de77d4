/* The common CSV line without libcsv (table.c's fast path): a line of plain and simply
 * quoted fields split in one scan, as libcsv's strict parser would read it. */
#ifndef PRISM_CSVSPLIT_H
#define PRISM_CSVSPLIT_H

#include <stddef.h>
#include <stdint.h>

/* the fields of one line: field i is line[at[i]] ... (len[i] bytes) */
struct csv_line {
        size_t n, cap;
        uint32_t *at, *len;
};

/* Split the line s ... e (e points at its '\n'; a '\r' right before it ends the line too;
 * at most 4 GiB; 15 readable bytes must follow e) into fields as libcsv (CSV_STRICT) reads them: blanks (space, tab) around
 * an unquoted field dropped, a quoted field's text between its quotes, blanks after the
 * closing quote dropped; n = 0 for a blank line. Returns -1, splitting nothing, for a line
 * that only libcsv reads right: a quote inside a field or a doubled one, a quoted field
 * that goes on past the line, a lone '\r', a NUL byte. */
int csv_split(const char *s, const char *e, struct csv_line *l);
void csv_line_free(struct csv_line *l);

#endif
