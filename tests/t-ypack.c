/* The data files' documents packed at build time (src/gen/ypack.c): every shipped data file
 * is found in the pack and its packed document is libyaml's parse node for node; an edited
 * file is parsed, not taken from the pack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arch/yamldoc.h"
#include "util/util.h"

#include "tmpfiles.h"

/* The same tree: kinds, styles, positions, texts, children in order. */
static void same_node(struct ydoc *a, yaml_node_t *x, struct ydoc *b, yaml_node_t *y)
{
        assert_non_null(x);
        assert_non_null(y);
        assert_int_equal(x->type, y->type);
        assert_int_equal(ydoc_line(x), ydoc_line(y));
        assert_int_equal(ydoc_col(x), ydoc_col(y));
        assert_int_equal(ydoc_is_null(x), ydoc_is_null(y));
        assert_int_equal(ydoc_len(x), ydoc_len(y));
        if (x->type == YAML_SCALAR_NODE) {
                assert_int_equal(x->data.scalar.style, y->data.scalar.style);
                assert_int_equal(x->data.scalar.length, y->data.scalar.length);
                assert_memory_equal(x->data.scalar.value, y->data.scalar.value,
                                    x->data.scalar.length + 1);
        }
        for (size_t i = 0; i < ydoc_len(x); i++) {
                if (x->type == YAML_SEQUENCE_NODE) {
                        same_node(a, ydoc_item(a, x, i), b, ydoc_item(b, y, i));
                } else {
                        same_node(a, ydoc_key(a, x, i), b, ydoc_key(b, y, i));
                        same_node(a, ydoc_val(a, x, i), b, ydoc_val(b, y, i));
                }
        }
}

static void test_shipped_files_packed(void **state)
{
        (void)state;
        glob_t g;
        const char *pats[] = {"metrics/*.yaml", "metrics/*/*.yaml", "panels/*.yaml",
                              "panels/*/*.yaml", "rules/*.yaml"};
        for (size_t p = 0; p < sizeof pats / sizeof *pats; p++)
                assert_int_equal(glob(pats[p], p ? GLOB_APPEND : 0, NULL, &g), 0);
        assert_true(g.gl_pathc > 40);
        assert_int_equal(g.gl_pathc, ypack_ndocs);
        for (size_t i = 0; i < g.gl_pathc; i++) {
                struct ydoc parsed, packed;
                struct err err = {0};
                ydoc_use_pack(NULL, 0);
                assert_int_equal(ydoc_load(&parsed, g.gl_pathv[i], &err), 0);
                assert_int_equal(parsed.loaded, 1);
                ydoc_use_pack(ypack_docs, ypack_ndocs);
                assert_int_equal(ydoc_load(&packed, g.gl_pathv[i], &err), 0);
                assert_int_equal(packed.loaded, 2); /* a rebuilt pack holds every data file */
                assert_string_equal(packed.file, g.gl_pathv[i]);
                assert_int_equal(packed.doc.nodes.top - packed.doc.nodes.start,
                                 parsed.doc.nodes.top - parsed.doc.nodes.start);
                same_node(&parsed, ydoc_root(&parsed), &packed, ydoc_root(&packed));
                ydoc_free(&parsed);
                ydoc_free(&packed);
        }
        globfree(&g);
}

/* A data file with a changed value, and one with a duplicate key, as the user may edit
 * them: parsed (the new value, the error), never the pack's document. */
static void test_edited_file_parsed(void **state)
{
        (void)state;
        ydoc_use_pack(ypack_docs, ypack_ndocs);
        size_t len;
        struct err err = {0};
        char *text = read_file("rules/base.yaml", &len, &err);
        assert_non_null(text);
        char *dir = tmpdir_new("prism-ypack");
        char *path = xasprintf("%s/base.yaml", dir);
        struct ydoc y;
        put(dir, "base.yaml", text);
        assert_int_equal(ydoc_load(&y, path, &err), 0);
        assert_int_equal(y.loaded, 2);
        ydoc_free(&y);
        /* the same length, one byte changed: the first key's first letter */
        char *k = text;
        while (*k == '#' || *k == '\n')
                k = strchr(k, '\n') + 1;
        char old = *k;
        *k = old == 'x' ? 'y' : 'x';
        put(dir, "base.yaml", text);
        assert_int_equal(ydoc_load(&y, path, &err), 0);
        assert_int_equal(y.loaded, 1);
        const char *key = ydoc_str(ydoc_key(&y, ydoc_root(&y), 0));
        assert_non_null(key);
        assert_int_equal(key[0], *k);
        ydoc_free(&y);
        *k = old;
        char *dup = xasprintf("%s\nversion: 1\nversion: 2\n", text);
        put(dir, "base.yaml", dup);
        assert_int_not_equal(ydoc_load(&y, path, &err), 0);
        assert_non_null(strstr(err.msg, "duplicate key 'version'"));
        unlink(path);
        rmdir(dir);
        free(dup);
        free(path);
        free(dir);
        free(text);
}

/* text with its first key's first letter replaced by c (the same length) */
static char *variant(const char *text, char c)
{
        char *v = xstrdup(text), *k = v;
        while (*k == '#' || *k == '\n')
                k = strchr(k, '\n') + 1;
        *k = c;
        return v;
}

static char first_key(struct ydoc *y)
{
        const char *key = ydoc_str(ydoc_key(y, ydoc_root(y), 0));
        assert_non_null(key);
        return key[0];
}

/* A packed file whose stat was recorded is taken without reading it while stat shows the
 * recorded device, inode, size, mtime and ctime; a write of the same size, with a new mtime
 * or with the old mtime set back by hand (the ctime moves), is read and parsed. The recorded
 * stat is made here, of a scratch file, so that the file may hold another text than the
 * packed one: a document from the pack then proves the file was not read. */
static void test_stat_trusted_and_edits_seen(void **state)
{
        (void)state;
        const struct ypack_doc *base = NULL;
        for (size_t i = 0; i < ypack_ndocs && !base; i++)
                if (strstr(ypack_docs[i].text, "family: base") && ypack_docs[i].len > 1000)
                        base = &ypack_docs[i];
        assert_non_null(base);
        char *dir = tmpdir_new("prism-ystat");
        char *path = xasprintf("%s/base.yaml", dir);
        const char *k0 = base->text;
        while (*k0 == '#' || *k0 == '\n')
                k0 = strchr(k0, '\n') + 1;
        char orig = *k0, lb = orig == 'x' ? 'v' : 'x', lc = orig == 'y' ? 'w' : 'y';
        char *b = variant(base->text, lb), *c = variant(base->text, lc);
        put(dir, "base.yaml", b);
        struct stat st, st2;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal((size_t)st.st_size, base->len);
        struct ypack_doc doc = *base;
        /* the build's rule: a file changed less than YPACK_SETTLE_S before it is not recorded */
        assert_int_equal(ypack_stat_record(&st, st.st_ctim.tv_sec + 1, 0, &doc.st), 0);
        assert_int_equal(doc.st.ino, 0);
        assert_int_equal(ypack_stat_record(&st, st.st_ctim.tv_sec + YPACK_SETTLE_S,
                                           st.st_ctim.tv_nsec, &doc.st), 1);
        assert_int_equal(doc.st.ino, (unsigned long long)st.st_ino);
        ydoc_use_pack(&doc, 1);
        struct err err = {0};
        struct ydoc y;
        /* stat as recorded: the packed document, although the file holds b */
        assert_int_equal(ydoc_load(&y, path, &err), 0);
        assert_int_equal(y.loaded, 2);
        assert_int_equal(first_key(&y), orig);
        ydoc_free(&y);
        /* the same size, a new mtime: read and parsed */
        struct timespec pause = {0, 30 * 1000 * 1000}; /* past the timestamp tick */
        nanosleep(&pause, NULL);
        put(dir, "base.yaml", c);
        struct timespec later[2] = {{0, UTIME_OMIT}, {st.st_mtim.tv_sec + 10, st.st_mtim.tv_nsec}};
        assert_int_equal(utimensat(AT_FDCWD, path, later, 0), 0);
        assert_int_equal(stat(path, &st2), 0);
        assert_int_equal(st2.st_ino, st.st_ino);
        assert_int_equal(st2.st_size, st.st_size);
        assert_int_equal(ydoc_load(&y, path, &err), 0);
        assert_int_equal(y.loaded, 1);
        assert_int_equal(first_key(&y), lc);
        ydoc_free(&y);
        /* b again, with the recorded mtime set back by hand: only the ctime differs */
        nanosleep(&pause, NULL);
        put(dir, "base.yaml", b);
        struct timespec back[2] = {{0, UTIME_OMIT}, st.st_mtim};
        assert_int_equal(utimensat(AT_FDCWD, path, back, 0), 0);
        assert_int_equal(stat(path, &st2), 0);
        assert_int_equal(st2.st_ino, st.st_ino);
        assert_int_equal(st2.st_size, st.st_size);
        assert_int_equal(st2.st_mtim.tv_sec, st.st_mtim.tv_sec);
        assert_int_equal(st2.st_mtim.tv_nsec, st.st_mtim.tv_nsec);
        assert_true(st2.st_ctim.tv_sec != st.st_ctim.tv_sec ||
                    st2.st_ctim.tv_nsec != st.st_ctim.tv_nsec);
        assert_int_equal(ydoc_load(&y, path, &err), 0);
        assert_int_equal(y.loaded, 1);
        assert_int_equal(first_key(&y), lb);
        ydoc_free(&y);
        /* the packed text itself in a file with another stat: read, compared, the pack's */
        put(dir, "base.yaml", base->text);
        assert_int_equal(ydoc_load(&y, path, &err), 0);
        assert_int_equal(y.loaded, 2);
        ydoc_free(&y);
        ydoc_use_pack(ypack_docs, ypack_ndocs);
        unlink(path);
        rmdir(dir);
        free(b);
        free(c);
        free(path);
        free(dir);
}

/* Every packed file's headers (ydoc_load_head, both kinds) are packed, and each is the
 * document ydoc_load_mem parses from the text's prefix, node for node; a text that is not
 * packed has its header parsed. */
static void test_heads_packed(void **state)
{
        (void)state;
        ydoc_use_pack(ypack_docs, ypack_ndocs);
        assert_true(ypack_ndocs > 40);
        for (size_t i = 0; i < ypack_ndocs; i++) {
                const struct ypack_doc *pd = &ypack_docs[i];
                struct ysrc src = {.text = pd->text, .len = pd->len, .pack = pd};
                for (int h = 0; h < YDOC_HEADS; h++) {
                        struct ydoc parsed, packed;
                        struct err err = {0};
                        assert_non_null(pd->head[h]);
                        size_t pl = ydoc_prefix_len(pd->text, pd->len, ydoc_head_keys[h]);
                        assert_int_equal(ydoc_load_mem(&parsed, "x.yaml", pd->text, pl, &err), 0);
                        assert_int_equal(ydoc_load_head(&packed, "x.yaml", &src, h, &err), 0);
                        assert_int_equal(packed.loaded, 2);
                        assert_string_equal(packed.file, "x.yaml");
                        assert_int_equal(packed.doc.nodes.top - packed.doc.nodes.start,
                                         parsed.doc.nodes.top - parsed.doc.nodes.start);
                        if (ydoc_root(&parsed))
                                same_node(&parsed, ydoc_root(&parsed), &packed,
                                          ydoc_root(&packed));
                        else
                                assert_null(ydoc_root(&packed));
                        ydoc_free(&parsed);
                        ydoc_free(&packed);
                }
        }
        /* not packed: parsed from the text */
        static const char text[] = "family: x\ninherits: base\nmetrics:\n  a: 1\n";
        struct ysrc src = {.text = text, .len = sizeof text - 1};
        struct ydoc y;
        struct err err = {0};
        assert_int_equal(ydoc_load_head(&y, "x.yaml", &src, YDOC_HEAD_RULES, &err), 0);
        assert_int_equal(y.loaded, 1);
        assert_string_equal(ydoc_str(ydoc_get(&y, ydoc_root(&y), "inherits")), "base");
        assert_null(ydoc_get(&y, ydoc_root(&y), "metrics")); /* past the header */
        ydoc_free(&y);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_shipped_files_packed),
            cmocka_unit_test(test_edited_file_parsed),
            cmocka_unit_test(test_stat_trusted_and_edits_seen),
            cmocka_unit_test(test_heads_packed),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
