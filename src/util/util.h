/* Small shared helpers: error reports, allocation that aborts on failure,
 * a growable string buffer and a string-keyed hash map. */
#ifndef PRISM_UTIL_H
#define PRISM_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* PRISM_SANITIZED: 1 in a build whose allocator and threads a sanitizer watches (ASan,
 * TSan): what such a build must still do (free all it allocated) or must not (shape the
 * heap: util/heap.c) */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PRISM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PRISM_SANITIZED 1
#endif
#endif
#ifndef PRISM_SANITIZED
#define PRISM_SANITIZED 0
#endif

/* An error report filled below the command layer; only main/cmd_* print it.
 * Functions return 0 on success or a negative code and fill *err. */
struct err {
        int code;       /* 0: none; ERR_INPUT for bad input, ERR_SYS for system errors */
        char msg[1024]; /* one line, lowercase, no trailing period */
};

enum { ERR_OK = 0, ERR_INPUT = -2, ERR_SYS = -3, ERR_USAGE = -4 };

/* Fill err (if non-NULL) and return code. */
int err_set(struct err *err, int code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Prefix an existing message: "prefix: old message". */
int err_wrap(struct err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print a one-line warning "prism: warning: ..." to stderr (never for errors). */
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same for a note that is no warning: "prism: ..." (what a forgiving option matched). */
void notef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Set to 1 to silence warnings (tests). */
extern int warn_quiet;
struct strbuf;
/* warnings of this thread into sb instead of stderr (NULL: stderr); returns where they went
 * before, to put back (see task.h) */
struct strbuf *warn_hold(struct strbuf *sb);
/* sb's held warnings where this thread's go now (held, or stderr); sb freed */
void warn_emit(struct strbuf *sb);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *arr (of *cap elements of size elem) so that it holds at least need. */
void xgrow(void *arrp, size_t *cap, size_t need, size_t elem);

struct strbuf {
        char *buf; /* always NUL-terminated once anything was added */
        size_t len, cap;
};
void sb_add(struct strbuf *sb, const char *s);
void sb_addn(struct strbuf *sb, const char *s, size_t n);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_addc(struct strbuf *sb, char c);
void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);
/* Hand over the buffer (caller frees); sb is empty afterwards. Never NULL. */
char *sb_detach(struct strbuf *sb);

/* Open-addressing hash map from strings to ints (slots, indices).
 * Keys are copied, into blocks the map owns (not one allocation a key). */
struct smap {
        char **keys;
        int *vals;
        size_t cap, len;
        char *blk;               /* the newest block: a link to the one before, then keys */
        size_t blk_used, blk_cap;
};
/* Put key with val (replacing its value when there); returns the map's copy of key. */
const char *smap_put(struct smap *m, const char *key, int val);
/* Put key with val unless it is there (then nothing changes): the map's copy of key when
 * added, NULL when it was there. */
const char *smap_add(struct smap *m, const char *key, int val);
/* Room for n keys without growing again. */
void smap_reserve(struct smap *m, size_t n);
/* Returns 1 and sets *val when found, else 0. */
int smap_get(const struct smap *m, const char *key, int *val);
void smap_free(struct smap *m);

/* free() each of the n pointers of p; FREE_ALL(a, b, ...) frees a, b, ... */
void free_all(void *const *p, size_t n);
#define FREE_ALL(...)                                                                          \
        free_all((void *const[]){__VA_ARGS__},                                                 \
                 sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

/* A pool of texts kept once: the copy of s in pool[0..*n) (added when new; idx maps each
 * text to its index). */
char *pool_intern(struct smap *idx, char ***pool, size_t *n, size_t *cap, const char *s);

/* Parse a whole string as a double; returns 0 on success. Accepts leading/trailing blanks,
 * "nan", "inf". Empty string fails. */
int parse_double(const char *s, double *out);
/* The decimal number s[0 .. len) (no blanks, not NUL-terminated) when it is one whose
 * double is certain without strtod (numparse.c): returns 1 and sets *out to exactly what
 * strtod gives; 0 for every other text (strtod's to read). */
int num_fast(const char *s, size_t len, double *out);

/* n in decimal into buf (24 bytes), as "%ld" prints it; returns its length */
size_t long_text(char *buf, long n);
/* snprintf(buf, size, "%s%c%ld", s, sep, n) without printf (ids of rows: "2.1.3") */
void key_num(char *buf, size_t size, const char *s, char sep, long n);

/* Read a whole file into memory (NUL-terminated). Returns NULL and fills err. */
char *read_file(const char *path, size_t *len, struct err *err);
/* A temporary file in $TMPDIR (else /tmp), already unlinked: it goes when closed. NULL
 * when none can be made. */
FILE *tmp_file(void);

/* mkdir -p: creates missing parents; an existing directory is fine, an existing file
 * is an error. */
int make_dir(const char *dir, struct err *err);

/* 1 if path is a directory / regular file. */
int is_dir(const char *path);
int is_file(const char *path);
/* 1 if dir/name is a regular file */
int is_file_in(const char *dir, const char *name);
/* 1: path is a regular file, 0: nothing is there, -1: something else is (a directory, a
 * FIFO, a device, a socket), which no input of prism may be */
int file_kind(const char *path);
/* path opened for reading if it is a regular file, else -1 with err set to one line naming
 * it ("is a directory", "is not a regular file"); never blocks on a FIFO. fopen_regular:
 * the same as a stream (mode "rb"). */
int open_regular(const char *path, struct err *err);
FILE *fopen_regular(const char *path, struct err *err);
/* open_regular for an input of a named kind ("CSV file"), its size in *size (may be NULL);
 * its messages name the kind: "'F' is a directory, expected a KIND", "'F' is not a regular
 * file" */
int open_regular_as(const char *path, const char *kind, off_t *size, struct err *err);

/* Directory holding the running executable (for data lookup), or NULL. Found once per
 * process; safe from several threads. */
const char *exe_dir(void);

/* Find a data directory ("metrics", "panels") for prism: <exe_dir>/name (build tree), then
 * <exe_dir>/../share/prism/name (installed), then $PRISM_DATA_DIR/name (a fallback, as
 * prism(1) says). Returns a malloc'd path or NULL. */
char *data_path(const char *name);

#endif
