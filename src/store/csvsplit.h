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
 * at most 4 GiB; CSV_PAD readable bytes must follow e) into fields as libcsv (CSV_STRICT) reads them: blanks (space, tab) around
 * an unquoted field dropped, a quoted field's text between its quotes, blanks after the
 * closing quote dropped; n = 0 for a blank line. Returns -1, splitting nothing, for a line
 * that only libcsv reads right: a quote inside a field or a doubled one, a quoted field
 * that goes on past the line, a lone '\r', a NUL byte. */
int csv_split(const char *s, const char *e, struct csv_line *l);
void csv_line_free(struct csv_line *l);

/* bytes csv_split may read past a line's end (its vector loads) */
#define CSV_PAD 32

/* How csv_split scans plain fields: a byte at a time, 16 bytes (SSE2) or 32 (AVX2).
 * csv_split_level(-1) returns the level in use, chosen on the first call: the widest the
 * processor has, or $PRISM_CSV_SIMD ("scalar", "sse2") asking for a narrower one; a level
 * >= 0 sets it (tests compare the levels; the caller knows the processor has it). Call it
 * once before threads split lines. */
enum { CSV_SCAN_SCALAR, CSV_SCAN_SSE2, CSV_SCAN_AVX2 };
int csv_split_level(int want);

#endif
