/* -k by name: a kernel's whole name, else every kernel whose short name (3.6+'s
 * kernel_symbols files) it is, else every kernel whose name contains the text, else every
 * one that the text as an extended regular expression matches. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

static void add(const char ***out, size_t *n, const char *name)
{
        for (size_t i = 0; i < *n; i++)
                if ((*out)[i] == name || !strcmp((*out)[i], name))
                        return;
        *out = xrealloc(*out, (*n + 2) * sizeof **out);
        (*out)[(*n)++] = name;
        (*out)[*n] = NULL;
}

/* the kernels of names whose short name in syms is pat (several templates may share one) */
static void match_short(const char *pat, const char *const *names, size_t n,
                        const struct table *syms, const char ***out, size_t *nout)
{
        if (!syms || syms->ncols < 2 || !syms->str[0] || !syms->str[1])
                return;
        for (size_t r = 0; r < syms->nrows; r++)
                if (!strcmp(syms->str[1][r], pat))
                        for (size_t i = 0; i < n; i++)
                                if (!strcmp(names[i], syms->str[0][r]))
                                        add(out, nout, names[i]);
}

int kernels_match(const char *pat, const char *const *names, size_t n,
                  const struct table *syms, const char ***out, size_t *nout, size_t *matched,
                  struct err *err)
{
        size_t before = *nout;
        for (size_t i = 0; i < n; i++)
                if (!strcmp(names[i], pat)) {
                        add(out, nout, names[i]);
                        *matched = 1;
                        return 0; /* a whole name: says nothing */
                }
        const char *how = "have the short name";
        match_short(pat, names, n, syms, out, nout);
        if (*nout == before) {
                how = "contain";
                for (size_t i = 0; i < n; i++)
                        if (strstr(names[i], pat))
                                add(out, nout, names[i]);
        }
        if (*nout == before) {
                regex_t re;
                how = "match";
                if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) == 0) {
                        for (size_t i = 0; i < n; i++)
                                if (regexec(&re, names[i], 0, NULL, 0) == 0)
                                        add(out, nout, names[i]);
                        regfree(&re);
                }
        }
        *matched = *nout - before;
        struct strbuf sb = {0};
        if (!*matched) {
                for (size_t i = 0; i < n && i < 6; i++)
                        sb_addf(&sb, "%s%zu %s", i ? ", " : "", i, names[i]);
                int rc = err_set(err, ERR_INPUT,
                                 "-k '%s': no kernel's name is, contains or matches it "
                                 "(kernels: %s%s; see --list-stats)",
                                 pat, n ? sb.buf : "none", n > 6 ? ", ..." : "");
                sb_free(&sb);
                return rc;
        }
        for (size_t i = before; i < *nout; i++)
                sb_addf(&sb, "%s%s", i > before ? "; " : "", (*out)[i]);
        if (how[0] == 'h')
                notef("-k '%s': the short name of %zu kernel%s: %s", pat, *matched,
                      *matched == 1 ? "" : "s", sb.buf);
        else
                notef("-k '%s': %zu kernel%s %s it: %s", pat, *matched,
                      *matched == 1 ? "'s name" : "s' names",
                      *matched == 1 ? (how[0] == 'c' ? "contains" : "matches") : how, sb.buf);
        sb_free(&sb);
        return 0;
}
