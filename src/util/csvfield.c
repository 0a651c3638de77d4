/* One CSV field, quoted where a reader needs it (csvfield.h). */
#include "csvfield.h"

#include <string.h>

/* 0: s goes as it is; 1: quoted; 2: "" (empty and alone on its line) */
static int how(const char *s, size_t l, int only)
{
        if (only && !l)
                return 2;
        int blank_end = l && (s[0] == ' ' || s[0] == '\t' || s[l - 1] == ' ' || s[l - 1] == '\t');
        return blank_end || strpbrk(s, ",\"\n\r");
}

void csv_put_field(FILE *f, const char *s, int only)
{
        char buf[256];
        size_t l = strlen(s);
        if (2 * l + 3 <= sizeof buf) {
                fwrite(buf, 1, csv_field(buf, s, l, only), f);
                return;
        }
        if (!how(s, l, only)) {
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

size_t csv_field(char *out, const char *s, size_t l, int only)
{
        int h = how(s, l, only);
        if (!h) {
                memcpy(out, s, l);
                return l;
        }
        char *o = out;
        *o++ = '"';
        for (size_t i = 0; i < l; i++) {
                if (s[i] == '"')
                        *o++ = '"';
                *o++ = s[i];
        }
        *o++ = '"';
        return (size_t)(o - out);
}
