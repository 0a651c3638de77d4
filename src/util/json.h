/* A small JSON reader (RFC 8259): the whole text parsed once into a tree whose nodes and
 * texts live in an arena, for the JSON files other tools write (rocprofiler-sdk's
 * results.json with its PC samples). */
#ifndef PRISM_JSON_H
#define PRISM_JSON_H

#include <stddef.h>

#include "arena.h"
#include "util.h"

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

struct json {
        enum json_type type;
        int b;                 /* JSON_BOOL */
        double num;            /* JSON_NUM */
        int is_uint;           /* JSON_NUM written as a non-negative integer that fits u */
        unsigned long long u;  /* its exact value */
        const char *str;       /* JSON_STR: the decoded text (UTF-8, NUL-terminated; a
                                * \u0000 in it ends it early) */
        size_t n;              /* JSON_ARR, JSON_OBJ: the items */
        struct json **items;
        const char **keys;     /* JSON_OBJ: items[i]'s key */
        size_t line;           /* where the value starts (1-based), for messages */
};

/* Parse text[0..len) (the file name only for messages) into a tree allocated from a.
 * Malformed JSON, nesting deeper than 256 or trailing text: NULL, err filled with
 * "FILE:LINE: ..." (ERR_INPUT). */
struct json *json_parse(struct arena *a, const char *text, size_t len, const char *file,
                        struct err *err);

/* The value of key in object o (the first, when repeated), or NULL (o NULL or not an
 * object, or no such key). */
const struct json *json_get(const struct json *o, const char *key);
/* The first value named key anywhere under v (depth first, objects' keys in order),
 * or NULL. */
const struct json *json_find(const struct json *v, const char *key);
/* The value at path "a.b.c" of objects from o, or NULL. */
const struct json *json_path(const struct json *o, const char *path);

#endif
