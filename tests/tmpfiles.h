/* Scratch files for unit tests (t-findings.c, t-formats.c): a fresh directory under /tmp and
 * files written into it. Include after cmocka.h and util/util.h. */
#ifndef PRISM_TESTS_TMPFILES_H
#define PRISM_TESTS_TMPFILES_H

#include <stdio.h>
#include <stdlib.h>

/* A new directory /tmp/PREFIX-XXXXXX (malloc'd path). */
static char *tmpdir_new(const char *prefix)
{
        char *d = xasprintf("/tmp/%s-XXXXXX", prefix);
        assert_non_null(mkdtemp(d));
        return d;
}

/* Write text to dir/name. */
static void put(const char *dir, const char *name, const char *text)
{
        char *p = xasprintf("%s/%s", dir, name);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        free(p);
}

#endif
