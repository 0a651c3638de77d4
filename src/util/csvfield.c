/* One CSV field, quoted where a reader needs it (csvfield.h). */
#include "csvfield.h"

#include <string.h>

void csv_put_field(FILE *f, const char *s, int only)
{
        if (only && !*s) {
                fputs("\"\"", f);
                return;
        }
        size_t l = strlen(s);
        int blank_end = l && (strchr(" \t", s[0]) || strchr(" \t", s[l - 1]));
        if (!strpbrk(s, ",\"\n\r") && !blank_end) {
                fputs(s, f);
                return;
        }
        fputc('"', f);
        for (; *s; s++) {
                if (*s == '"')
                        fputc('"', f);
                fputc(*s, f);
        }
        fputc('"', f);
}
