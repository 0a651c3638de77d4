/* Allocation that cannot fail usefully (util.h: xmalloc ... xgrow, aborting on exhaustion)
 * and the growing string buffer (struct strbuf): the bottom of util/, which everything
 * else, the messages and their escaping (esc.c) included, builds on. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void oom(void)
{
        fputs("prism: out of memory\n", stderr);
        abort();
}

void *xmalloc(size_t n)
{
        void *p = malloc(n ? n : 1);
        if (!p)
                oom();
        return p;
}

void *xcalloc(size_t n, size_t size)
{
        void *p = calloc(n ? n : 1, size ? size : 1);
        if (!p)
                oom();
        return p;
}

void *xrealloc(void *p, size_t n)
{
        p = realloc(p, n ? n : 1);
        if (!p)
                oom();
        return p;
}

char *xstrdup(const char *s)
{
        return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
        char *p = xmalloc(n + 1);
        memcpy(p, s, n);
        p[n] = 0;
        return p;
}

char *xasprintf(const char *fmt, ...)
{
        va_list ap;
        char *p;
        va_start(ap, fmt);
        if (vasprintf(&p, fmt, ap) < 0)
                oom();
        va_end(ap);
        return p;
}

void xgrow(void *arrp, size_t *cap, size_t need, size_t elem)
{
        void **arr = arrp;
        if (need <= *cap)
                return;
        size_t n = *cap ? *cap : 8;
        while (n < need)
                n *= 2;
        *arr = xrealloc(*arr, n * elem);
        *cap = n;
}

void sb_addn(struct strbuf *sb, const char *s, size_t n)
{
        xgrow(&sb->buf, &sb->cap, sb->len + n + 1, 1);
        memcpy(sb->buf + sb->len, s, n);
        sb->len += n;
        sb->buf[sb->len] = 0;
}

void sb_add(struct strbuf *sb, const char *s)
{
        sb_addn(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
        sb_addn(sb, &c, 1);
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        xgrow(&sb->buf, &sb->cap, sb->len + (size_t)n + 1, 1);
        va_start(ap, fmt);
        vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
        sb->len += (size_t)n;
}

void sb_reset(struct strbuf *sb)
{
        sb->len = 0;
        if (sb->buf)
                sb->buf[0] = 0;
}

void sb_free(struct strbuf *sb)
{
        free(sb->buf);
        sb->buf = NULL;
        sb->len = sb->cap = 0;
}

char *sb_detach(struct strbuf *sb)
{
        char *p = sb->buf ? sb->buf : xstrdup("");
        sb->buf = NULL;
        sb->len = sb->cap = 0;
        return p;
}
