/* The option tables' lookups and --help text (opt.h). */
#include "opt.h"

#include <string.h>

const struct opt *opt_find(const struct cmd_spec *c, const char *arg)
{
        if (!arg || arg[0] != '-')
                return NULL;
        for (size_t i = 0; i < c->nopts; i++) {
                const struct opt *o = &c->opts[i];
                if (arg[1] == '-' ? !strcmp(arg + 2, o->lng)
                                  : o->shrt && arg[1] == o->shrt && !arg[2])
                        return o;
        }
        return NULL;
}

int opt_takes(const struct opt *o)
{
        if (!o->arg)
                return 0;
        if (o->arg[0] == '[')
                return 3;
        size_t n = strlen(o->arg);
        return n > 3 && !strcmp(o->arg + n - 3, "...") ? 2 : 1;
}

const char *opt_names(const struct opt *o, char *buf)
{
        if (o->shrt)
                snprintf(buf, 64, "-%c, --%s", o->shrt, o->lng);
        else
                snprintf(buf, 64, "--%s", o->lng);
        return buf;
}

void opt_help(FILE *f, const struct cmd_spec *c)
{
        enum { COL = 26 }; /* where the texts start */
        fputs(c->usage, f);
        fputc('\n', f);
        for (size_t i = 0; i < c->nopts; i++) {
                const struct opt *o = &c->opts[i];
                char head[128];
                int n = snprintf(head, sizeof head, "  %s%s--%s%s%s", o->shrt ? "-" : "    ",
                                 o->shrt ? (char[]){o->shrt, ',', ' ', 0} : "", o->lng,
                                 o->arg ? " " : "", o->arg ? o->arg : "");
                fputs(head, f);
                const char *h = o->help;
                if (n + 2 > COL) { /* a long head: the text on the next line */
                        fputc('\n', f);
                        n = 0;
                }
                for (int k = n; k < COL; k++)
                        fputc(' ', f);
                for (; *h; h++) {
                        fputc(*h, f);
                        if (*h == '\n')
                                for (int k = 0; k < COL; k++)
                                        fputc(' ', f);
                }
                fputc('\n', f);
        }
        if (c->after) {
                fputc('\n', f);
                fputs(c->after, f);
        }
}
