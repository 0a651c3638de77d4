/* libyaml document helpers; one checker formats libyaml's own problem text. */
#include "yamldoc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* A key given twice in one mapping is an error: YAML readers disagree on which one wins,
 * and a metric written twice would otherwise merge silently. */
static int check_unique_keys(struct ydoc *d, struct err *err)
{
        for (yaml_node_t *n = d->doc.nodes.start; n < d->doc.nodes.top; n++) {
                if (n->type != YAML_MAPPING_NODE)
                        continue;
                struct smap seen = {0};
                size_t len = ydoc_len(n);
                int rc = 0;
                for (size_t i = 0; i < len && !rc; i++) {
                        yaml_node_t *k = ydoc_key(d, n, i);
                        const char *s = ydoc_str(k);
                        int first;
                        if (!s)
                                continue;
                        if (smap_get(&seen, s, &first))
                                rc = err_set(err, ERR_INPUT,
                                             "%s:%d:%d: duplicate key '%s' (first at line %d)",
                                             d->file, ydoc_line(k), ydoc_col(k), s, first);
                        else
                                smap_put(&seen, s, ydoc_line(k));
                }
                smap_free(&seen);
                if (rc)
                        return rc;
        }
        return 0;
}

/* Parse what p reads; name is the file named in messages. */
static int parse(struct ydoc *d, yaml_parser_t *p, const char *name, int unique,
                 struct err *err)
{
        int rc = 0;
        if (!yaml_parser_load(p, &d->doc)) {
                rc = err_set(err, ERR_INPUT, "%s:%zu:%zu: %s", name, p->problem_mark.line + 1,
                             p->problem_mark.column + 1,
                             p->problem ? p->problem : "malformed YAML");
        } else {
                d->loaded = 1;
                d->file = xstrdup(name);
                if (unique)
                        rc = check_unique_keys(d, err);
        }
        yaml_parser_delete(p);
        if (rc)
                ydoc_free(d);
        return rc;
}

static int load_text(struct ydoc *d, const char *name, const char *text, size_t len,
                     int unique, struct err *err)
{
        yaml_parser_t p;
        memset(d, 0, sizeof *d);
        if (!yaml_parser_initialize(&p))
                return err_set(err, ERR_SYS, "cannot initialise the YAML parser");
        yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
        return parse(d, &p, name, unique, err);
}

static const struct ypack_doc *pack;
static size_t npack;

void ydoc_use_pack(const struct ypack_doc *docs, size_t n)
{
        pack = docs;
        npack = n;
}

/* The packed document's nodes as libyaml's; their strings and children stay in the pack. */
static int load_packed(struct ydoc *d, const struct ypack_doc *pd, const char *path)
{
        static yaml_char_t tags[][24] = {"", "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq",
                                         "tag:yaml.org,2002:map"};
        /* not zeroed first: every field is set below (of the union, the kind's members) */
        yaml_node_t *nodes = xmalloc((pd->nnodes + 1) * sizeof *nodes);
        for (size_t i = 0; i < pd->nnodes; i++) {
                const struct ypack_node *pn = &pd->nodes[i];
                yaml_node_t *n = &nodes[i];
                n->type = (yaml_node_type_t)pn->type;
                n->tag = tags[pn->type <= YAML_MAPPING_NODE ? pn->type : 0];
                n->start_mark.index = n->end_mark.index = 0;
                n->start_mark.line = n->end_mark.line = pn->line;
                n->start_mark.column = n->end_mark.column = pn->col;
                if (pn->type == YAML_SCALAR_NODE) {
                        n->data.scalar.value = (yaml_char_t *)(pd->strs + pn->at);
                        n->data.scalar.length = pn->n;
                        n->data.scalar.style = (yaml_scalar_style_t)pn->style;
                } else if (pn->type == YAML_SEQUENCE_NODE) {
                        yaml_node_item_t *it = (yaml_node_item_t *)(pd->items + pn->at);
                        n->data.sequence.items.start = it;
                        n->data.sequence.items.end = n->data.sequence.items.top = it + pn->n;
                        n->data.sequence.style = (yaml_sequence_style_t)pn->style;
                } else if (pn->type == YAML_MAPPING_NODE) {
                        yaml_node_pair_t *pr = (yaml_node_pair_t *)(pd->pairs + pn->at);
                        n->data.mapping.pairs.start = pr;
                        n->data.mapping.pairs.end = n->data.mapping.pairs.top = pr + pn->n;
                        n->data.mapping.style = (yaml_mapping_style_t)pn->style;
                }
        }
        d->doc.nodes.start = nodes;
        d->doc.nodes.end = d->doc.nodes.top = nodes + pd->nnodes;
        d->doc.start_implicit = d->doc.end_implicit = 1;
        d->loaded = 2;
        d->file = xstrdup(path);
        return 0;
}

int ypack_stat_record(const struct stat *st, long long now_s, long long now_ns,
                      struct ypack_stat *out)
{
        memset(out, 0, sizeof *out);
        long long newest_s = st->st_mtim.tv_sec, newest_ns = st->st_mtim.tv_nsec;
        if (st->st_ctim.tv_sec > newest_s ||
            (st->st_ctim.tv_sec == newest_s && st->st_ctim.tv_nsec > newest_ns)) {
                newest_s = st->st_ctim.tv_sec;
                newest_ns = st->st_ctim.tv_nsec;
        }
        /* newest + YPACK_SETTLE_S <= now, and a real inode */
        newest_s += YPACK_SETTLE_S;
        if (!st->st_ino || !S_ISREG(st->st_mode) || newest_s > now_s ||
            (newest_s == now_s && newest_ns > now_ns))
                return 0;
        out->dev = (unsigned long long)st->st_dev;
        out->ino = (unsigned long long)st->st_ino;
        out->size = (unsigned long long)st->st_size;
        out->mtime_s = st->st_mtim.tv_sec;
        out->mtime_ns = st->st_mtim.tv_nsec;
        out->ctime_s = st->st_ctim.tv_sec;
        out->ctime_ns = st->st_ctim.tv_nsec;
        return 1;
}

/* The packed document recorded with exactly this stat, or NULL. */
static const struct ypack_doc *pack_by_stat(const struct stat *st)
{
        for (size_t i = 0; i < npack; i++) {
                const struct ypack_stat *r = &pack[i].st;
                if (r->ino && r->ino == (unsigned long long)st->st_ino &&
                    r->dev == (unsigned long long)st->st_dev &&
                    r->size == (unsigned long long)st->st_size && r->size == pack[i].len &&
                    r->mtime_s == st->st_mtim.tv_sec && r->mtime_ns == st->st_mtim.tv_nsec &&
                    r->ctime_s == st->st_ctim.tv_sec && r->ctime_ns == st->st_ctim.tv_nsec)
                        return &pack[i];
        }
        return NULL;
}

int ysrc_open(struct ysrc *s, const char *path, struct err *err)
{
        memset(s, 0, sizeof *s);
        struct stat st;
        if (npack && stat(path, &st) == 0 && (s->pack = pack_by_stat(&st))) {
                s->text = s->pack->text;
                s->len = s->pack->len;
                return 0;
        }
        if (!(s->owned = read_file(path, &s->len, err)))
                return ERR_INPUT;
        s->text = s->owned;
        for (size_t i = 0; i < npack && !s->pack; i++)
                if (pack[i].len == s->len && !memcmp(pack[i].text, s->text, s->len))
                        s->pack = &pack[i];
        return 0;
}

void ysrc_free(struct ysrc *s)
{
        free(s->owned);
        memset(s, 0, sizeof *s);
}

int ydoc_load_src(struct ydoc *d, const char *path, const struct ysrc *s, struct err *err)
{
        memset(d, 0, sizeof *d);
        if (s->pack)
                return load_packed(d, s->pack, path);
        return load_text(d, path, s->text, s->len, 1, err);
}

static const char *const head_metrics[] = {"family", "inherits", "archs", "description", NULL};
static const char *const head_rules[] = {"family", "inherits", "description", NULL};
const char *const *const ydoc_head_keys[YDOC_HEADS] = {head_metrics, head_rules};

int ydoc_load_head(struct ydoc *d, const char *path, const struct ysrc *s, int head,
                   struct err *err)
{
        if (s->pack && s->pack->head[head]) {
                memset(d, 0, sizeof *d);
                return load_packed(d, s->pack->head[head], path);
        }
        return ydoc_load_mem(d, path, s->text, ydoc_prefix_len(s->text, s->len,
                                                              ydoc_head_keys[head]), err);
}

int ydoc_load(struct ydoc *d, const char *path, struct err *err)
{
        memset(d, 0, sizeof *d);
        if (npack) {
                /* the packed document of the same file or text, or libyaml's parse */
                struct ysrc s;
                if (!ysrc_open(&s, path, NULL)) {
                        int rc = ydoc_load_src(d, path, &s, err);
                        ysrc_free(&s);
                        return rc;
                }
                /* unreadable: the message of libyaml's own reading below */
        }
        yaml_parser_t p;
        FILE *f = fopen_regular(path, err);
        if (!f)
                return ERR_INPUT;
        if (!yaml_parser_initialize(&p)) {
                fclose(f);
                return err_set(err, ERR_SYS, "cannot initialise the YAML parser");
        }
        yaml_parser_set_input_file(&p, f);
        int rc = parse(d, &p, path, 1, err);
        fclose(f);
        return rc;
}

int ydoc_load_mem(struct ydoc *d, const char *name, const char *text, size_t len,
                  struct err *err)
{
        return load_text(d, name, text, len, 0, err);
}

void ydoc_free(struct ydoc *d)
{
        if (d->loaded == 1)
                yaml_document_delete(&d->doc);
        else if (d->loaded == 2)
                free(d->doc.nodes.start);
        free(d->file);
        memset(d, 0, sizeof *d);
}

yaml_node_t *ydoc_root(struct ydoc *d)
{
        return d->loaded ? yaml_document_get_root_node(&d->doc) : NULL;
}

const char *ydoc_str(yaml_node_t *n)
{
        if (!n || n->type != YAML_SCALAR_NODE)
                return NULL;
        return (const char *)n->data.scalar.value;
}

int ydoc_is_null(yaml_node_t *n)
{
        if (!n)
                return 1;
        if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
                return 0;
        const char *s = ydoc_str(n);
        return !*s || !strcmp(s, "null") || !strcmp(s, "~") || !strcmp(s, "Null") ||
               !strcmp(s, "NULL");
}

size_t ydoc_len(yaml_node_t *n)
{
        if (!n)
                return 0;
        if (n->type == YAML_MAPPING_NODE)
                return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
        if (n->type == YAML_SEQUENCE_NODE)
                return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
        return 0;
}

/* The accessors check the node's kind and the index: ydoc_len counts a sequence's items
 * too, and reading them as a mapping's pairs ran past the array (fuzz_yaml_metrics). */
yaml_node_t *ydoc_item(struct ydoc *d, yaml_node_t *seq, size_t i)
{
        if (!seq || seq->type != YAML_SEQUENCE_NODE || i >= ydoc_len(seq))
                return NULL;
        return yaml_document_get_node(&d->doc, seq->data.sequence.items.start[i]);
}

yaml_node_t *ydoc_key(struct ydoc *d, yaml_node_t *map, size_t i)
{
        if (!map || map->type != YAML_MAPPING_NODE || i >= ydoc_len(map))
                return NULL;
        return yaml_document_get_node(&d->doc, map->data.mapping.pairs.start[i].key);
}

yaml_node_t *ydoc_val(struct ydoc *d, yaml_node_t *map, size_t i)
{
        if (!map || map->type != YAML_MAPPING_NODE || i >= ydoc_len(map))
                return NULL;
        return yaml_document_get_node(&d->doc, map->data.mapping.pairs.start[i].value);
}

yaml_node_t *ydoc_get(struct ydoc *d, yaml_node_t *map, const char *key)
{
        if (!map || map->type != YAML_MAPPING_NODE)
                return NULL;
        size_t n = ydoc_len(map);
        for (size_t i = 0; i < n; i++) {
                const char *k = ydoc_str(ydoc_key(d, map, i));
                if (k && !strcmp(k, key))
                        return ydoc_val(d, map, i);
        }
        return NULL;
}

int ydoc_line(yaml_node_t *n)
{
        return n ? (int)n->start_mark.line + 1 : 0;
}

int ydoc_col(yaml_node_t *n)
{
        return n ? (int)n->start_mark.column + 1 : 0;
}

size_t ydoc_prefix_len(const char *text, size_t len, const char *const *keys)
{
        size_t i = 0;
        while (i < len) {
                char c = text[i];
                /* top-level keys start a line; indented text, comments, blank lines and
                 * document markers do not */
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
                        int known = 0;
                        for (size_t k = 0; keys[k] && !known; k++) {
                                size_t l = strlen(keys[k]);
                                known = !strncmp(text + i, keys[k], l) && text[i + l] == ':';
                        }
                        if (!known)
                                return i;
                }
                const char *nl = memchr(text + i, '\n', len - i);
                i = nl ? (size_t)(nl - text) + 1 : len;
        }
        return len;
}
