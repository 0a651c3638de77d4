/* libFuzzer target for the panel loader (src/arch/panels.c, yamldoc.c): the input is one
 * or two panel files, split at a line "---8<---", loaded as a panels directory.
 * Errors must be one line naming the file they come from. */
#include <string.h>

#include "arch/arch.h"
#include "fuzz.h"

int fuzz_yaml_panels(const uint8_t *data, size_t n)
{
        char dbuf[300];
        const char *dir = fuzz_subdir("panels", dbuf, sizeof dbuf);
        size_t rest, first = fuzz_split(data, n, &rest);
        char *a = fuzz_write(dir, "10-a.yaml", data, first);
        char *b = fuzz_write(dir, "20-b.yaml", rest < n ? data + rest : NULL, n - rest);
        struct panel_set ps;
        struct err err = {0};
        warn_quiet = 1;

        if (panels_load(dir, &ps, &err)) {
                FUZZ_CHECK(err.code != 0 && err.msg[0]);
                if (strchr(err.msg, '\n') || !strstr(err.msg, dir))
                        fprintf(stderr, "bad message: %s\n", err.msg);
                FUZZ_CHECK(!strchr(err.msg, '\n'));
                FUZZ_CHECK(strstr(err.msg, dir));
                goto out;
        }
        for (size_t i = 0; i < ps.npanels; i++) {
                const struct panel *p = &ps.panels[i];
                FUZZ_CHECK(p->title && p->file);
                FUZZ_CHECK(i == 0 || ps.panels[i - 1].id < p->id);
                for (size_t j = 0; j < p->ntables; j++) {
                        const struct panel_table *t = &p->tables[j];
                        FUZZ_CHECK(t->id && (t->source || t->ncols));
                        for (size_t k = 0; k < t->ncols; k++)
                                FUZZ_CHECK(t->cols[k].title && t->cols[k].show);
                        for (size_t k = 0; k < t->nrows; k++)
                                FUZZ_CHECK(t->rows[k] != NULL);
                        for (size_t k = 0; k < t->narchs; k++)
                                FUZZ_CHECK(t->archs[k] != NULL);
                }
        }
        panels_free(&ps);
out:
        free(a);
        free(b);
        return 0;
}

#ifndef PRISM_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
        return fuzz_yaml_panels(data, n);
}
#endif
