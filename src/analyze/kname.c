/* Kernel name shortening. The name is split into (identifier, separator) pieces, an
 * identifier being a run of letters, digits, '_', ' ', '(' and ')' and a separator a run of
 * ' ', ',', '*', '<', '>', '(' and ')'; pieces are kept while the template depth ('<' opens,
 * '>' closes) is below the level. A name that yields nothing is kept whole. */
#include "kname.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

static int in_ident(char c)
{
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '_' || c == ' ' || c == '(' || c == ')';
}

static int in_sep(char c)
{
        return c && strchr(" ,*<>()", c) != NULL;
}

static size_t count(const char *s, size_t n, char c)
{
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                k += s[i] == c;
        return k;
}

/* C++ names arrive mangled from some tools: demangle through libstdc++ when it is there */
static char *demangle(const char *name)
{
        typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
        static demangle_fn fn;
        static int tried;
        if (strncmp(name, "_Z", 2))
                return xstrdup(name);
        if (!tried) {
                tried = 1;
                void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
                if (h)
                        *(void **)&fn = dlsym(h, "__cxa_demangle");
        }
        int status = -1;
        char *d = fn ? fn(name, NULL, NULL, &status) : NULL;
        if (d && status == 0) {
                char *r = xstrdup(d);
                free(d);
                return r;
        }
        free(d);
        return xstrdup(name);
}

char *kname_shorten(const char *name, int level)
{
        if (level >= 5)
                return xstrdup(name);
        char *full = demangle(name);
        struct strbuf out = {0};
        size_t n = strlen(full), i = 0;
        long depth = 0;
        while (i < n) {
                /* an identifier run, given back one character at a time until a separator
                 * can follow it */
                size_t maxl = 0;
                while (i + maxl < n && in_ident(full[i + maxl]))
                        maxl++;
                size_t l = maxl;
                while (l > 0 && !in_sep(full[i + l]))
                        l--;
                if (l == 0) {
                        i++;
                        continue;
                }
                const char *id = full + i;
                const char *sep = full + i + l;
                size_t sl = 0;
                while (in_sep(sep[sl]))
                        sl++;
                size_t next = i + l + sl;
                int scoped = !strncmp(full + next, "::", 2);
                if (scoped)
                        next += 2;
                i = next;
                if (l == 5 && !strncmp(id, "clone", 5))
                        continue;
                if (scoped)
                        continue;
                if (depth < level)
                        sb_addn(&out, id, l);
                size_t closes = count(sep, sl, '>');
                if (!closes) {
                        if (depth < level && !(depth == level - 1 && count(sep, sl, '<')))
                                sb_addn(&out, sep, sl);
                        depth += (long)count(sep, sl, '<');
                }
                for (size_t k = 0; closes && k < sl; k++) {
                        if (depth < level) {
                                sb_addn(&out, sep + k, sl - k);
                                depth -= (long)count(sep + k, sl - k, '>');
                                break;
                        }
                        if (sep[k] == '>')
                                depth--;
                }
        }
        /* trailing blanks and separators left by dropped pieces are noise */
        while (out.len && (out.buf[out.len - 1] == ' '))
                out.buf[--out.len] = 0;
        if (!out.len) {
                sb_free(&out);
                return full;
        }
        free(full);
        return sb_detach(&out);
}
