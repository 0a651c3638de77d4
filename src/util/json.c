/* A recursive-descent JSON reader into an arena tree (json.h). Recursion is bounded by
 * MAX_DEPTH, so hostile nesting gives an error, not a stack overflow. */
#include "json.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 256

struct jp {
        const char *s, *end, *file;
        size_t line;
        struct arena *a;
        struct err *err;
        struct strbuf sb; /* a string being decoded */
};

static int fail(struct jp *p, const char *what)
{
        if (p->s >= p->end)
                return err_set(p->err, ERR_INPUT, "%s:%zu: %s (the file ends early)", p->file,
                               p->line, what);
        return err_set(p->err, ERR_INPUT, "%s:%zu: %s", p->file, p->line, what);
}

static void skip_ws(struct jp *p)
{
        while (p->s < p->end) {
                char c = *p->s;
                if (c == '\n')
                        p->line++;
                else if (c != ' ' && c != '\t' && c != '\r')
                        return;
                p->s++;
        }
}

static int hex4(const char *s, unsigned *out)
{
        unsigned v = 0;
        for (int i = 0; i < 4; i++) {
                char c = s[i];
                v <<= 4;
                if (c >= '0' && c <= '9')
                        v |= (unsigned)(c - '0');
                else if (c >= 'a' && c <= 'f')
                        v |= (unsigned)(c - 'a' + 10);
                else if (c >= 'A' && c <= 'F')
                        v |= (unsigned)(c - 'A' + 10);
                else
                        return -1;
        }
        *out = v;
        return 0;
}

static void put_utf8(struct strbuf *sb, unsigned cp)
{
        char b[4];
        size_t n;
        if (cp < 0x80) {
                b[0] = (char)cp, n = 1;
        } else if (cp < 0x800) {
                b[0] = (char)(0xc0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
        } else if (cp < 0x10000) {
                b[0] = (char)(0xe0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
                b[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
        } else {
                b[0] = (char)(0xf0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
                b[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), b[3] = (char)(0x80 | (cp & 0x3f));
                n = 4;
        }
        sb_addn(sb, b, n);
}

/* A string at p->s (its opening quote); the decoded copy in the arena. */
static const char *parse_string(struct jp *p)
{
        p->s++;
        sb_reset(&p->sb);
        sb_addn(&p->sb, "", 0);
        for (;;) {
                const char *q = p->s;
                while (q < p->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
                        q++;
                sb_addn(&p->sb, p->s, (size_t)(q - p->s));
                p->s = q;
                if (p->s >= p->end) {
                        fail(p, "unterminated string");
                        return NULL;
                }
                char c = *p->s;
                if (c == '"') {
                        p->s++;
                        return arena_strndup(p->a, p->sb.buf, p->sb.len);
                }
                if (c != '\\') {
                        fail(p, "control character in a string");
                        return NULL;
                }
                if (p->end - p->s < 2) {
                        fail(p, "unterminated string");
                        return NULL;
                }
                char e = p->s[1];
                p->s += 2;
                const char *simple = strchr("\"\\/bfnrt", e);
                if (e && simple) {
                        static const char out[] = "\"\\/\b\f\n\r\t";
                        sb_addc(&p->sb, out[simple - "\"\\/bfnrt"]);
                        continue;
                }
                unsigned cp, lo;
                if (e != 'u' || p->end - p->s < 4 || hex4(p->s, &cp)) {
                        fail(p, "bad escape in a string");
                        return NULL;
                }
                p->s += 4;
                if (cp >= 0xd800 && cp < 0xdc00) { /* a surrogate pair */
                        if (p->end - p->s < 6 || p->s[0] != '\\' || p->s[1] != 'u' ||
                            hex4(p->s + 2, &lo) || lo < 0xdc00 || lo > 0xdfff) {
                                fail(p, "unpaired surrogate in a string");
                                return NULL;
                        }
                        p->s += 6;
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp < 0xe000) {
                        fail(p, "unpaired surrogate in a string");
                        return NULL;
                }
                put_utf8(&p->sb, cp);
        }
}

static int parse_number(struct jp *p, struct json *v)
{
        const char *q = p->s, *e = p->end;
        if (q < e && *q == '-')
                q++;
        if (q >= e || *q < '0' || *q > '9')
                return fail(p, "bad value");
        if (*q == '0')
                q++;
        else
                while (q < e && *q >= '0' && *q <= '9')
                        q++;
        int integer = 1;
        if (q < e && *q == '.') {
                integer = 0, q++;
                if (q >= e || *q < '0' || *q > '9')
                        return fail(p, "bad number");
                while (q < e && *q >= '0' && *q <= '9')
                        q++;
        }
        if (q < e && (*q == 'e' || *q == 'E')) {
                integer = 0, q++;
                if (q < e && (*q == '+' || *q == '-'))
                        q++;
                if (q >= e || *q < '0' || *q > '9')
                        return fail(p, "bad number");
                while (q < e && *q >= '0' && *q <= '9')
                        q++;
        }
        char buf[64];
        size_t n = (size_t)(q - p->s);
        if (n >= sizeof buf) { /* a long number: only its double matters */
                char *t = xstrndup(p->s, n);
                v->num = strtod(t, NULL);
                free(t);
        } else {
                memcpy(buf, p->s, n);
                buf[n] = 0;
                v->num = strtod(buf, NULL);
                if (integer && buf[0] != '-' && n <= 20) {
                        char *end;
                        v->u = strtoull(buf, &end, 10);
                        v->is_uint = !(v->u == ~0ULL && strcmp(buf, "18446744073709551615"));
                }
        }
        v->type = JSON_NUM;
        p->s = q;
        return 0;
}

static int parse_value(struct jp *p, struct json *v, int depth);

/* The items of an array or object at p->s (its opening bracket). */
static int parse_list(struct jp *p, struct json *v, int depth, int obj)
{
        struct json **items = NULL;
        const char **keys = NULL;
        size_t n = 0, cap = 0, kcap = 0;
        char close = obj ? '}' : ']';
        int rc = 0;
        p->s++;
        skip_ws(p);
        if (p->s < p->end && *p->s == close) {
                p->s++;
                goto out;
        }
        for (;;) {
                const char *key = NULL;
                skip_ws(p);
                if (obj) {
                        if (p->s >= p->end || *p->s != '"') {
                                rc = fail(p, "expected a key in an object");
                                goto out;
                        }
                        if (!(key = parse_string(p))) {
                                rc = ERR_INPUT;
                                goto out;
                        }
                        skip_ws(p);
                        if (p->s >= p->end || *p->s != ':') {
                                rc = fail(p, "expected ':' after a key");
                                goto out;
                        }
                        p->s++;
                }
                struct json *it = arena_zalloc(p->a, sizeof *it);
                if ((rc = parse_value(p, it, depth + 1)))
                        goto out;
                xgrow(&items, &cap, n + 1, sizeof *items);
                if (obj) {
                        xgrow(&keys, &kcap, n + 1, sizeof *keys);
                        keys[n] = key;
                }
                items[n++] = it;
                skip_ws(p);
                if (p->s < p->end && *p->s == ',') {
                        p->s++;
                        continue;
                }
                if (p->s < p->end && *p->s == close) {
                        p->s++;
                        break;
                }
                rc = fail(p, obj ? "expected ',' or '}' in an object"
                                 : "expected ',' or ']' in an array");
                goto out;
        }
out:
        if (!rc) {
                v->type = obj ? JSON_OBJ : JSON_ARR;
                v->n = n;
                if (n) {
                        v->items = arena_alloc(p->a, n * sizeof *items);
                        memcpy(v->items, items, n * sizeof *items);
                        if (obj) {
                                v->keys = arena_alloc(p->a, n * sizeof *keys);
                                memcpy(v->keys, keys, n * sizeof *keys);
                        }
                }
        }
        free(items);
        free(keys);
        return rc;
}

static int word(struct jp *p, const char *w)
{
        size_t n = strlen(w);
        if ((size_t)(p->end - p->s) < n || memcmp(p->s, w, n))
                return 0;
        p->s += n;
        return 1;
}

static int parse_value(struct jp *p, struct json *v, int depth)
{
        if (depth > MAX_DEPTH)
                return fail(p, "nested too deep");
        skip_ws(p);
        v->line = p->line;
        if (p->s >= p->end)
                return fail(p, "expected a value");
        switch (*p->s) {
        case '{':
                return parse_list(p, v, depth, 1);
        case '[':
                return parse_list(p, v, depth, 0);
        case '"':
                v->type = JSON_STR;
                return (v->str = parse_string(p)) ? 0 : ERR_INPUT;
        case 't':
        case 'f':
                v->type = JSON_BOOL;
                v->b = *p->s == 't';
                return word(p, v->b ? "true" : "false") ? 0 : fail(p, "bad value");
        case 'n':
                v->type = JSON_NULL;
                return word(p, "null") ? 0 : fail(p, "bad value");
        default:
                return parse_number(p, v);
        }
}

struct json *json_parse(struct arena *a, const char *text, size_t len, const char *file,
                        struct err *err)
{
        struct jp p = {.s = text, .end = text + len, .file = file, .line = 1, .a = a, .err = err};
        struct json *v = arena_zalloc(a, sizeof *v);
        if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) /* a UTF-8 byte order mark */
                p.s += 3;
        int rc = parse_value(&p, v, 0);
        if (!rc) {
                skip_ws(&p);
                if (p.s < p.end)
                        rc = fail(&p, "text after the JSON value");
        }
        sb_free(&p.sb);
        return rc ? NULL : v;
}

const struct json *json_get(const struct json *o, const char *key)
{
        if (!o || o->type != JSON_OBJ)
                return NULL;
        for (size_t i = 0; i < o->n; i++)
                if (!strcmp(o->keys[i], key))
                        return o->items[i];
        return NULL;
}

const struct json *json_find(const struct json *v, const char *key)
{
        if (!v || (v->type != JSON_OBJ && v->type != JSON_ARR))
                return NULL;
        for (size_t i = 0; i < v->n; i++) {
                if (v->type == JSON_OBJ && !strcmp(v->keys[i], key))
                        return v->items[i];
                const struct json *f = json_find(v->items[i], key);
                if (f)
                        return f;
        }
        return NULL;
}

const struct json *json_path(const struct json *o, const char *path)
{
        char key[128];
        while (o && *path) {
                size_t n = strcspn(path, ".");
                if (n >= sizeof key)
                        return NULL;
                memcpy(key, path, n);
                key[n] = 0;
                o = json_get(o, key);
                path += n + (path[n] == '.');
        }
        return o;
}
