/* Writing one CSV field so that a CSV reader (libcsv, table_load_csv) reads the same text
 * back. A leaf file: the NVIDIA collector library links it too. */
#ifndef PRISM_CSVFIELD_H
#define PRISM_CSVFIELD_H

#include <stdio.h>

/* Write s as a CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line
 * break, or starts or ends with a blank (which libcsv would trim). only: the field is alone
 * on its line, where an empty field is written "" (an empty line is a blank line that
 * readers skip). */
void csv_put_field(FILE *f, const char *s, int only);
/* The same into out, which holds at least 2 * l + 2 bytes (s: l bytes, NUL-terminated);
 * returns the bytes written (no NUL). */
size_t csv_field(char *out, const char *s, size_t l, int only);

#endif
