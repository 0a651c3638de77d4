/* A thin layer over libyaml's document API: load a file, walk mappings and sequences,
 * and report positions as file:line:col. */
#ifndef PRISM_YAMLDOC_H
#define PRISM_YAMLDOC_H

#include <yaml.h>

#include "../util/util.h"

struct ydoc {
        yaml_document_t doc;
        char *file;
        int loaded; /* 1: libyaml's document, 2: a packed one (only its node array is ours) */
};

/* A document parsed at build time (src/gen/ypack.c writes them for metrics/, panels/ and
 * rules/): the file's whole text, and its nodes, their strings and children. */
struct ypack_node {
        unsigned char type, style; /* yaml_node_type_t, the scalar's or collection's style */
        unsigned line, col;        /* 0-based, as libyaml marks them */
        unsigned at, n;            /* scalar: offset in strs, length; sequence: first of items,
                                      count; mapping: first of pairs, count */
};
/* The file a document was packed from as stat(2) saw it at build time; ino 0: not recorded
 * (then the file's bytes are always compared). */
struct ypack_stat {
        unsigned long long dev, ino, size;
        long long mtime_s, mtime_ns, ctime_s, ctime_ns;
};
/* The header kinds a data file is scanned for (ydoc_load_head): a metric file's (family,
 * inherits, archs, description) and a rules file's (family, inherits, description). */
enum { YDOC_HEAD_METRICS, YDOC_HEAD_RULES, YDOC_HEADS };
extern const char *const *const ydoc_head_keys[YDOC_HEADS];
struct ypack_doc {
        const char *text;
        size_t len, nnodes;
        const struct ypack_node *nodes;
        const char *strs;
        const yaml_node_item_t *items;
        const yaml_node_pair_t *pairs;
        struct ypack_stat st;
        /* the text's header of each kind (the text before its first top-level key not of
         * that kind, ydoc_prefix_len) as ydoc_load_mem parses it; NULL: not packed */
        const struct ypack_doc *head[YDOC_HEADS];
};
/* Documents ydoc_load takes instead of parsing a file whose text is one of theirs (any other
 * text, e.g. an edited data file, is parsed as before). Call it before any thread starts. */
void ydoc_use_pack(const struct ypack_doc *docs, size_t n);
/* The data files as built (build/gen/ydata.c, in libprism.a). */
extern const struct ypack_doc ypack_docs[];
extern const size_t ypack_ndocs;

/* A packed file is known unchanged, and is not read, when stat(2) gives the recorded device,
 * inode, size, mtime and ctime to the nanosecond; otherwise it is read and its bytes are
 * compared with the packed text. The build records a file's stat only when its mtime and
 * ctime are at least YPACK_SETTLE_S seconds older than the build's start: a write in the same
 * timestamp tick as the recorded one could not move them ("racy" timestamps). A write,
 * chmod, rename onto the path, or an mtime set back by hand (touch -d) sets the ctime to the
 * current time, which no user can set, so any change after the build is seen. docs/FORMATS.md
 * ("Data files and the binary") has the rule. Fills *out and returns 1 when st may be
 * recorded at a build that started at now (seconds, nanoseconds), else 0. */
#define YPACK_SETTLE_S 2
struct stat;
int ypack_stat_record(const struct stat *st, long long now_s, long long now_ns,
                      struct ypack_stat *out);

/* A data file's text for one load: the packed text itself where the file is that one (by
 * stat, or read and compared), else the file's bytes. Every field is read-only to callers. */
struct ysrc {
        const char *text; /* NUL-terminated */
        size_t len;
        char *owned;                   /* the bytes read from the file, or NULL */
        const struct ypack_doc *pack;  /* the packed document of this text, or NULL */
};
/* Open path's text (at most one read of the file); an unreadable file: err, nonzero. Safe
 * from several threads (nothing shared is written). */
int ysrc_open(struct ysrc *s, const char *path, struct err *err);
void ysrc_free(struct ysrc *s);
/* ydoc_load of a text ysrc_open gave: the packed document, or libyaml's parse of the text
 * with ydoc_load's checks; path is the file named in messages. */
int ydoc_load_src(struct ydoc *d, const char *path, const struct ysrc *s, struct err *err);
/* The header of kind `head` (YDOC_HEAD_*) of a text ysrc_open gave: ydoc_load_mem of its
 * ydoc_prefix_len, or the same document packed at build time. */
int ydoc_load_head(struct ydoc *d, const char *path, const struct ysrc *s, int head,
                   struct err *err);

/* Load the first document of a file. An empty file gives an empty root (NULL). */
int ydoc_load(struct ydoc *d, const char *path, struct err *err);
/* The same from text in memory; name is the file named in messages. */
int ydoc_load_mem(struct ydoc *d, const char *name, const char *text, size_t len,
                  struct err *err);
void ydoc_free(struct ydoc *d);
/* The length of text before its first top-level key that is not one of keys (NULL-ended):
 * the header of a file, to parse alone. */
size_t ydoc_prefix_len(const char *text, size_t len, const char *const *keys);

yaml_node_t *ydoc_root(struct ydoc *d);
/* Value for key in a mapping node, or NULL. */
yaml_node_t *ydoc_get(struct ydoc *d, yaml_node_t *map, const char *key);
/* The scalar's text, or NULL if the node is not a scalar. */
const char *ydoc_str(yaml_node_t *n);
/* 1 if n is a scalar meaning null ("null", "~" or empty, plain style). */
int ydoc_is_null(yaml_node_t *n);
/* Number of pairs/items and access to them; NULL for another kind of node or an index
 * past the end. */
size_t ydoc_len(yaml_node_t *n);
yaml_node_t *ydoc_item(struct ydoc *d, yaml_node_t *seq, size_t i);
yaml_node_t *ydoc_key(struct ydoc *d, yaml_node_t *map, size_t i);
yaml_node_t *ydoc_val(struct ydoc *d, yaml_node_t *map, size_t i);
/* 1-based line and column of a node. */
int ydoc_line(yaml_node_t *n);
int ydoc_col(yaml_node_t *n);

#endif
