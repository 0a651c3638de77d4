/* Error reports, aborting allocation, string buffers and the string map. */
#include "util.h"
#include "esc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int warn_quiet;

/* Messages are one line: control characters that reach them from input (a YAML key
 * "m\n2", a kernel name with a newline or an escape sequence) are written as \n, \r,
 * \xHH or \u00HH (esc.h), in place, truncating at size (found by fuzz_yaml_metrics). */
static void one_line(char *s, size_t size)
{
        size_t n = strlen(s);
        if (!esc_needed(s, n, 0))
                return;
        struct strbuf sb = {0};
        esc_append(&sb, s, n, 0);
        snprintf(s, size, "%s", sb.buf);
        sb_free(&sb);
}

int err_set(struct err *err, int code, const char *fmt, ...)
{
        if (err) {
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(err->msg, sizeof err->msg, fmt, ap);
                va_end(ap);
                one_line(err->msg, sizeof err->msg);
                err->code = code;
        }
        return code;
}

int err_wrap(struct err *err, const char *fmt, ...)
{
        if (!err)
                return ERR_INPUT;
        char old[sizeof err->msg];
        memcpy(old, err->msg, sizeof old);
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < sizeof err->msg - 2) {
                size_t used = (size_t)n;
                memcpy(err->msg + used, ": ", 2);
                used += 2;
                size_t room = sizeof err->msg - used - 1;
                size_t ol = strnlen(old, sizeof old);
                if (ol > room)
                        ol = room;
                memcpy(err->msg + used, old, ol);
                err->msg[used + ol] = 0;
        }
        one_line(err->msg, sizeof err->msg);
        return err->code ? err->code : ERR_INPUT;
}

/* where this thread's warnings go while held (src/util/task.h) */
static _Thread_local struct strbuf *warn_sink;

static void vnote(const char *prefix, const char *fmt, va_list ap)
{
        if (warn_quiet)
                return;
        va_list aq;
        va_copy(aq, ap);
        int n = vsnprintf(NULL, 0, fmt, aq);
        va_end(aq);
        size_t size = n > 0 ? (size_t)n * 4 + 1 : 1; /* room for every byte as \xHH */
        char *msg = xmalloc(size);
        vsnprintf(msg, size, fmt, ap);
        one_line(msg, size);
        if (warn_sink)
                sb_addf(warn_sink, "prism: %s%s\n", prefix, msg);
        else
                fprintf(stderr, "prism: %s%s\n", prefix, msg);
        free(msg);
}

void warnf(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vnote("warning: ", fmt, ap);
        va_end(ap);
}

void notef(const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vnote("", fmt, ap);
        va_end(ap);
}

struct strbuf *warn_hold(struct strbuf *sb)
{
        struct strbuf *was = warn_sink;
        warn_sink = sb;
        return was;
}

void warn_emit(struct strbuf *sb)
{
        if (sb->len && warn_sink)
                sb_addn(warn_sink, sb->buf, sb->len);
        else if (sb->len)
                fwrite(sb->buf, 1, sb->len, stderr);
        sb_free(sb);
}

/* eight bytes a step (a byte at a time was most of a lookup), mixed by multiplications */
static uint64_t hash_str(const char *s)
{
        size_t n = strlen(s);
        uint64_t h = 0x9E3779B97F4A7C15ULL ^ n, w;
        for (; n >= 8; s += 8, n -= 8) {
                memcpy(&w, s, 8);
                h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
                h ^= h >> 32;
        }
        /* the last n < 8 bytes as memcpy(&w, s, n) into a zeroed w puts them (on a
         * little-endian machine), read in two overlapping words or three bytes (a memcpy
         * of a variable length was a third of the hash's cost) */
        if (n >= 4) {
                uint32_t lo, hi;
                memcpy(&lo, s, 4);
                memcpy(&hi, s + n - 4, 4);
                w = lo | (uint64_t)hi << (8 * (n - 4));
        } else if (n) {
                const unsigned char *u = (const unsigned char *)s;
                w = u[0] | (uint64_t)u[n / 2] << (8 * (n / 2)) |
                    (uint64_t)u[n - 1] << (8 * (n - 1));
        } else {
                w = 0;
        }
        h = (h ^ w) * 0xC4CEB9FE1A85EC53ULL;
        return h ^ (h >> 29);
}

static void smap_rehash(struct smap *m, size_t ncap)
{
        char **ok = m->keys;
        int *ov = m->vals;
        size_t ocap = m->cap;
        m->keys = xcalloc(ncap, sizeof *m->keys);
        m->vals = xcalloc(ncap, sizeof *m->vals);
        m->cap = ncap;
        for (size_t i = 0; i < ocap; i++) {
                if (!ok[i])
                        continue;
                size_t j = hash_str(ok[i]) & (ncap - 1);
                while (m->keys[j])
                        j = (j + 1) & (ncap - 1);
                m->keys[j] = ok[i];
                m->vals[j] = ov[i];
        }
        free(ok);
        free(ov);
}

void free_all(void *const *p, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(p[i]);
}

char *pool_intern(struct smap *idx, char ***pool, size_t *n, size_t *cap, const char *s)
{
        int i;
        if (!smap_get(idx, s, &i)) {
                xgrow(pool, cap, *n + 1, sizeof **pool);
                (*pool)[*n] = xstrdup(s);
                i = (int)(*n)++;
                smap_put(idx, s, i);
        }
        return (*pool)[i];
}

/* key copied into the map's blocks (4 KiB, or one as long as the key) */
static char *smap_copy(struct smap *m, const char *key)
{
        size_t n = strlen(key) + 1, link = sizeof(char *);
        if (!m->blk || m->blk_used + n > m->blk_cap) {
                size_t cap = link + (n > 4096 ? n : 4096);
                char *b = xmalloc(cap);
                memcpy(b, &m->blk, link);
                m->blk = b;
                m->blk_used = link;
                m->blk_cap = cap;
        }
        char *k = m->blk + m->blk_used;
        memcpy(k, key, n);
        m->blk_used += n;
        return k;
}

const char *smap_add(struct smap *m, const char *key, int val)
{
        if ((m->len + 1) * 2 > m->cap)
                smap_rehash(m, m->cap ? m->cap * 2 : 64);
        size_t j = hash_str(key) & (m->cap - 1);
        while (m->keys[j]) {
                if (!strcmp(m->keys[j], key))
                        return NULL;
                j = (j + 1) & (m->cap - 1);
        }
        m->keys[j] = smap_copy(m, key);
        m->vals[j] = val;
        m->len++;
        return m->keys[j];
}

void smap_reserve(struct smap *m, size_t n)
{
        size_t cap = m->cap ? m->cap : 64;
        while ((n + 1) * 2 > cap)
                cap *= 2;
        if (cap > m->cap)
                smap_rehash(m, cap);
}

const char *smap_put(struct smap *m, const char *key, int val)
{
        if ((m->len + 1) * 2 > m->cap)
                smap_rehash(m, m->cap ? m->cap * 2 : 64);
        size_t j = hash_str(key) & (m->cap - 1);
        while (m->keys[j]) {
                if (!strcmp(m->keys[j], key)) {
                        m->vals[j] = val;
                        return m->keys[j];
                }
                j = (j + 1) & (m->cap - 1);
        }
        m->keys[j] = smap_copy(m, key);
        m->vals[j] = val;
        m->len++;
        return m->keys[j];
}

int smap_get(const struct smap *m, const char *key, int *val)
{
        if (!m->cap)
                return 0;
        size_t j = hash_str(key) & (m->cap - 1);
        while (m->keys[j]) {
                if (!strcmp(m->keys[j], key)) {
                        if (val)
                                *val = m->vals[j];
                        return 1;
                }
                j = (j + 1) & (m->cap - 1);
        }
        return 0;
}

void smap_free(struct smap *m)
{
        while (m->blk) {
                char *prev;
                memcpy(&prev, m->blk, sizeof prev);
                free(m->blk);
                m->blk = prev;
        }
        free(m->keys);
        free(m->vals);
        memset(m, 0, sizeof *m);
}

int parse_double(const char *s, double *out)
{
        while (*s == ' ' || *s == '\t')
                s++;
        if (!*s)
                return -1;
        char *end;
        errno = 0;
        /* a plain decimal (most data values) without strtod: the text up to its trailing
         * blanks, when num_fast is certain of strtod's double for it */
        size_t len = strlen(s);
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' ||
                       s[len - 1] == '\n'))
                len--;
        if (num_fast(s, len, out))
                return 0;
        double v = strtod(s, &end);
        if (end == s)
                return -1;
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
                end++;
        if (*end)
                return -1;
        *out = v;
        return 0;
}

int open_regular_as(const char *path, const char *kind, off_t *size, struct err *err)
{
        /* O_NONBLOCK: opening a FIFO without a writer returns at once (then refused) */
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
                err_set(err, ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
                return -1;
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
                err_set(err, ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
                if (kind)
                        err_set(err, ERR_INPUT, "'%s' is a directory, expected a %s", path, kind);
                else
                        err_set(err, ERR_INPUT, "cannot open '%s': a directory, not a file", path);
        } else if (!S_ISREG(st.st_mode)) {
                if (kind)
                        err_set(err, ERR_INPUT, "'%s' is not a regular file", path);
                else
                        err_set(err, ERR_INPUT,
                                "cannot open '%s': not a regular file (a FIFO, a device or a "
                                "socket)",
                                path);
        } else {
                int fl = fcntl(fd, F_GETFL);
                if (fl >= 0)
                        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
                if (size)
                        *size = st.st_size;
                return fd;
        }
        close(fd);
        return -1;
}

int open_regular(const char *path, struct err *err)
{
        return open_regular_as(path, NULL, NULL, err);
}

FILE *fopen_regular(const char *path, struct err *err)
{
        int fd = open_regular(path, err);
        if (fd < 0)
                return NULL;
        FILE *f = fdopen(fd, "rb");
        if (!f) {
                err_set(err, ERR_SYS, "cannot open '%s': %s", path, strerror(errno));
                close(fd);
        }
        return f;
}

int file_kind(const char *path)
{
        struct stat st;
        if (stat(path, &st) != 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
        return S_ISREG(st.st_mode) ? 1 : -1;
}

char *read_file(const char *path, size_t *len, struct err *err)
{
        int fd = open_regular(path, err);
        if (fd < 0)
                return NULL;
        /* one buffer of the file's size and one read where the size is known: a read that
         * gives fewer bytes than asked and completes the size fstat gave is the end (a
         * short read for another reason, a signal, reads on); anything else to its end */
        struct stat st;
        int reg = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
        size_t cap = reg ? (size_t)st.st_size + 1 : 65536, n = 0;
        char *buf = xmalloc(cap + 1);
        int bad = 0;
        for (;;) {
                if (n == cap) {
                        cap *= 2;
                        buf = xrealloc(buf, cap + 1);
                }
                ssize_t r = read(fd, buf + n, cap - n);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0) {
                        bad = 1;
                        break;
                }
                n += (size_t)r;
                if (r == 0 || (reg && n < cap && n == (size_t)st.st_size))
                        break;
        }
        close(fd);
        if (bad) {
                free(buf);
                err_set(err, ERR_INPUT, "cannot read '%s'", path);
                return NULL;
        }
        buf[n] = 0;
        if (len)
                *len = n;
        return buf;
}

int make_dir(const char *dir, struct err *err)
{
        /* create missing parents first, like mkdir -p */
        char *parent = xstrdup(dir);
        char *slash = strrchr(parent, '/');
        while (slash && slash > parent && slash[1] == 0) {
                *slash = 0;
                slash = strrchr(parent, '/');
        }
        if (slash && slash > parent) {
                *slash = 0;
                if (!is_dir(parent) && make_dir(parent, err)) {
                        free(parent);
                        return ERR_SYS;
                }
        }
        free(parent);
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                return err_set(err, ERR_SYS, "cannot create '%s': %s", dir, strerror(errno));
        if (!is_dir(dir))
                return err_set(err, ERR_INPUT, "'%s' exists and is not a directory", dir);
        return 0;
}

int is_dir(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int is_file(const char *path)
{
        struct stat st;
        return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int is_file_in(const char *dir, const char *name)
{
        char *p = xasprintf("%s/%s", dir, name);
        int r = is_file(p);
        free(p);
        return r;
}

static char exe_dir_buf[PATH_MAX];

static void exe_dir_find(void)
{
        char *dir = exe_dir_buf;
        ssize_t n = readlink("/proc/self/exe", dir, sizeof exe_dir_buf - 1);
        if (n <= 0) {
                dir[0] = 0;
        } else {
                dir[n] = 0;
                char *slash = strrchr(dir, '/');
                if (slash)
                        *slash = 0;
        }
}

const char *exe_dir(void)
{
        /* found once per process, also when two threads ask first at once */
        static pthread_once_t once = PTHREAD_ONCE_INIT;
        pthread_once(&once, exe_dir_find);
        return exe_dir_buf[0] ? exe_dir_buf : NULL;
}

char *data_path(const char *name)
{
        const char *ed = exe_dir();
        if (ed) {
                /* build tree: the binary sits at the repository root */
                char *p = xasprintf("%s/%s", ed, name);
                if (is_dir(p))
                        return p;
                free(p);
                p = xasprintf("%s/../share/prism/%s", ed, name);
                if (is_dir(p))
                        return p;
                free(p);
        }
        const char *env = getenv("PRISM_DATA_DIR");
        if (env && *env) {
                char *p = xasprintf("%s/%s", env, name);
                if (is_dir(p))
                        return p;
                free(p);
        }
        return NULL;
}

FILE *tmp_file(void)
{
        const char *dir = getenv("TMPDIR");
        char *path = xasprintf("%s/prism-XXXXXX", dir && *dir ? dir : "/tmp");
        int fd = mkstemp(path);
        FILE *f = NULL;
        if (fd >= 0) {
                unlink(path); /* gone when closed, or when the process ends */
                f = fdopen(fd, "w+b");
                if (!f)
                        close(fd);
        }
        free(path);
        return f;
}

size_t long_text(char *buf, long n)
{
        char num[24];
        size_t k = sizeof num;
        unsigned long u = n < 0 ? 0UL - (unsigned long)n : (unsigned long)n;
        do
                num[--k] = (char)('0' + u % 10);
        while ((u /= 10));
        if (n < 0)
                num[--k] = '-';
        memcpy(buf, num + k, sizeof num - k);
        buf[sizeof num - k] = 0;
        return sizeof num - k;
}

void key_num(char *buf, size_t size, const char *s, char sep, long n)
{
        char num[24];
        size_t nl = long_text(num, n), room = size ? size - 1 : 0;
        size_t o = strnlen(s, room); /* s, sep and the number, cut at size - 1 bytes */
        memcpy(buf, s, o);
        if (o < room)
                buf[o++] = sep;
        if (nl > room - o)
                nl = room - o;
        memcpy(buf + o, num, nl);
        buf[o + nl] = 0;
}
