/* Result tables (rtable.h). */
#include "rtable.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

void rtable_init(struct rtable *t, const struct panel *p, const struct panel_table *pt,
                 const char *key_title, size_t ncols, char **cols)
{
        memset(t, 0, sizeof *t);
        t->panel = p;
        t->pt = pt;
        t->id = xstrdup(pt->id);
        t->key_title = xstrdup(key_title);
        t->ncols = ncols;
        t->cols = cols;
}

/* key blocks: the first small (most tables have a few rows), each next one twice the
 * last up to KBLK_MAX */
#define KBLK_MIN 256
#define KBLK_MAX 65536

/* a key's text in the table's blocks: a million row numbers cost their bytes, not a
 * malloc'd block each (32 bytes); a table of three rows costs one small block */
static char *key_copy(struct rtable *t, const char *s)
{
        size_t n = strlen(s) + 1;
        if (n > t->kleft) {
                size_t sz = t->kbsz ? t->kbsz * 2 : KBLK_MIN;
                if (sz > KBLK_MAX)
                        sz = KBLK_MAX;
                t->kbsz = sz;
                if (sz < n)
                        sz = n;
                t->kblk = xrealloc(t->kblk, (t->nkblk + 1) * sizeof *t->kblk);
                t->kcur = t->kblk[t->nkblk++] = xmalloc(sz);
                t->kleft = sz;
        }
        char *p = t->kcur;
        memcpy(p, s, n);
        t->kcur += n;
        t->kleft -= n;
        return p;
}

/* room for one more row (keys and cells; rkeys or rocc, whichever the table has) */
static void room(struct rtable *t)
{
        if (t->nrows < t->caprows)
                return;
        /* geometric: a table of a million dispatches is not copied row by row */
        t->caprows = t->caprows ? t->caprows * 2 : 16;
        t->keys = xrealloc(t->keys, t->caprows * sizeof *t->keys);
        if (t->rocc)
                t->rocc = xrealloc(t->rocc, t->caprows * sizeof *t->rocc);
        else
                t->rkeys = xrealloc(t->rkeys, t->caprows * sizeof *t->rkeys);
        t->cells = xrealloc(t->cells, t->caprows * (t->ncols ? t->ncols : 1) * sizeof *t->cells);
}

static struct cell *new_row(struct rtable *t, const char *key)
{
        t->keys[t->nrows] = key_copy(t, key);
        struct cell *row = &t->cells[t->nrows * t->ncols];
        for (size_t i = 0; i < t->ncols; i++) {
                row[i].v = NAN;
                row[i].text = NULL;
        }
        return row;
}

struct cell *rtable_add_row(struct rtable *t, const char *key, const char *rkey)
{
        room(t);
        struct cell *row = new_row(t, key);
        t->rkeys[t->nrows] = rkey ? key_copy(t, rkey) : t->keys[t->nrows];
        t->nrows++;
        return row;
}

struct cell *rtable_add_row_occ(struct rtable *t, const char *key, size_t rkey_col,
                                unsigned occ)
{
        if (!t->rocc && !t->nrows) {
                free(t->rkeys);
                t->rkeys = NULL;
                t->caprows = 16;
                t->rocc = xmalloc(t->caprows * sizeof *t->rocc);
                t->keys = xrealloc(t->keys, t->caprows * sizeof *t->keys);
                t->cells = xrealloc(t->cells,
                                    t->caprows * (t->ncols ? t->ncols : 1) * sizeof *t->cells);
        }
        room(t);
        struct cell *row = new_row(t, key);
        t->rocc[t->nrows] = occ;
        t->rkey_col = rkey_col;
        t->nrows++;
        return row;
}

const char *rtable_rkey(const struct rtable *t, size_t r, struct strbuf *sb)
{
        if (t->rkeys)
                return t->rkeys[r];
        const char *s = t->rkey_col < t->ncols ? t->cells[r * t->ncols + t->rkey_col].text : NULL;
        sb_reset(sb);
        sb_addf(sb, "%s#%u", s ? s : "", t->rocc[r]);
        return sb->buf;
}

void rtable_free(struct rtable *t)
{
        for (size_t k = 0; k < t->ncols; k++)
                free(t->cols[k]);
        free(t->cols);
        for (size_t r = 0; r < t->nrows && !t->pool; r++)
                for (size_t k = 0; k < t->ncols; k++)
                        free(t->cells[r * t->ncols + k].text);
        for (size_t i = 0; i < t->nkblk; i++)
                free(t->kblk[i]);
        free(t->kblk);
        for (size_t i = 0; i < t->npool; i++)
                free(t->pool[i]);
        free(t->pool);
        smap_free(&t->pool_idx);
        free(t->keys);
        free(t->rkeys);
        free(t->rocc);
        free(t->cells);
        free(t->id);
        free(t->key_title);
        memset(t, 0, sizeof *t);
}

char *rtable_pool_text(struct rtable *t, const char *s)
{
        return pool_intern(&t->pool_idx, &t->pool, &t->npool, &t->cappool, s);
}

char **rtable_titles(const char *const *list, size_t n)
{
        char **t = xcalloc(n ? n : 1, sizeof *t);
        for (size_t i = 0; i < n; i++)
                t[i] = xstrdup(list[i]);
        return t;
}
