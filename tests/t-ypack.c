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

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_shipped_files_packed),
            cmocka_unit_test(test_edited_file_parsed),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
