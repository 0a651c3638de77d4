/* A family's own vocabulary in its metric file: `titles:` (panel and table titles by id),
 * `words:` (chart and system-info labels by their default text) and `hide_empty_rows:`. */
#include "words.h"

#include <stdlib.h>
#include <string.h>

void arch_merge_words(struct arch *a, struct ydoc *y, yaml_node_t *root)
{
        yaml_node_t *sec;
        /* titles (by panel or table id) and words (by the default text) share one list */
        for (int tw = 0; tw < 2; tw++) {
                if (!(sec = ydoc_get(y, root, tw ? "words" : "titles")))
                        continue;
                for (size_t i = 0; i < ydoc_len(sec); i++) {
                        const char *k = ydoc_str(ydoc_key(y, sec, i));
                        const char *v = ydoc_str(ydoc_val(y, sec, i));
                        if (!k || !v)
                                continue;
                        size_t j = 0;
                        while (j < a->ntitles && strcmp(a->title_ids[j], k))
                                j++;
                        if (j == a->ntitles) {
                                a->title_ids =
                                    xrealloc(a->title_ids, (j + 1) * sizeof *a->title_ids);
                                a->titles = xrealloc(a->titles, (j + 1) * sizeof *a->titles);
                                a->title_ids[j] = xstrdup(k);
                                a->titles[j] = NULL;
                                a->ntitles++;
                        }
                        free(a->titles[j]);
                        a->titles[j] = xstrdup(v);
                }
        }
        if ((sec = ydoc_get(y, root, "hide_empty_rows"))) {
                const char *v = ydoc_str(sec);
                a->hide_empty_rows = v && !strcmp(v, "true");
        }
}

const char *arch_title(const struct arch *a, const char *id, const char *dflt)
{
        for (size_t i = 0; a && id && i < a->ntitles; i++)
                if (!strcmp(a->title_ids[i], id))
                        return a->titles[i];
        return dflt;
}

void arch_free_words(struct arch *a)
{
        for (size_t i = 0; i < a->ntitles; i++) {
                free(a->title_ids[i]);
                free(a->titles[i]);
        }
        free(a->title_ids);
        free(a->titles);
}
