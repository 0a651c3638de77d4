/* Plain or gzip bytes of a data file (bytesrc.h): gzip through zlib's inflate, one member
 * after another (gzip allows several in one file), with every damage an error. */
#include "bytesrc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../util/util.h"

#define ZIN (1 << 16)

struct bsrc_z {
        z_stream s;
        unsigned char in[ZIN];
        int in_eof;     /* the file has no more bytes */
        int member_end; /* the last member ended (Z_STREAM_END) */
};

int bsrc_is_gzip(const void *p, size_t n)
{
        const unsigned char *c = p;
        return n >= 2 && c[0] == 0x1f && c[1] == 0x8b;
}

static ssize_t raw_read(int fd, void *buf, size_t n)
{
        ssize_t r;
        do
                r = read(fd, buf, n);
        while (r < 0 && errno == EINTR);
        return r;
}

static int fail_read(struct bsrc *b)
{
        snprintf(b->msg, sizeof b->msg, "cannot read '%s': %s", b->path, strerror(errno));
        return -1;
}

int bsrc_open(struct bsrc *b, int fd, const char *path)
{
        memset(b, 0, sizeof *b);
        b->fd = fd;
        b->path = path;
        /* the magic: up to two bytes (a short read of a regular file is its end) */
        while (b->nhead < 2) {
                ssize_t r = raw_read(fd, b->head + b->nhead, 2 - b->nhead);
                if (r < 0)
                        return fail_read(b);
                if (r == 0)
                        break;
                b->nhead += (size_t)r;
        }
        if (!bsrc_is_gzip(b->head, b->nhead))
                return 0;
        b->z = xcalloc(1, sizeof *b->z);
        /* 16 + MAX_WBITS: a gzip wrapper, nothing else */
        if (inflateInit2(&b->z->s, 16 + MAX_WBITS) != Z_OK) {
                free(b->z);
                b->z = NULL;
                snprintf(b->msg, sizeof b->msg, "'%s': cannot start gzip decompression",
                         path);
                return -1;
        }
        memcpy(b->z->in, b->head, 2);
        b->z->s.next_in = b->z->in;
        b->z->s.avail_in = 2;
        b->nhead = 0;
        return 0;
}

int bsrc_compressed(const struct bsrc *b)
{
        return b->z != NULL;
}

/* more compressed input: 1 got some, 0 at the file's end, -1 an error */
static int fill(struct bsrc *b)
{
        struct bsrc_z *z = b->z;
        if (z->in_eof)
                return 0;
        if (z->s.avail_in)
                memmove(z->in, z->s.next_in, z->s.avail_in);
        ssize_t r = raw_read(b->fd, z->in + z->s.avail_in, ZIN - z->s.avail_in);
        if (r < 0)
                return fail_read(b);
        z->s.next_in = z->in;
        z->s.avail_in += (uInt)r;
        if (r == 0)
                z->in_eof = 1;
        return r > 0;
}

static ssize_t gz_read(struct bsrc *b, void *buf, size_t n)
{
        struct bsrc_z *z = b->z;
        if (n > (1u << 30))
                n = 1u << 30;
        z->s.next_out = buf;
        z->s.avail_out = (uInt)n;
        while (z->s.avail_out == n) {
                if (z->member_end) {
                        /* after a member: more input must be another member */
                        if (!z->s.avail_in && fill(b) < 0)
                                return -1;
                        if (!z->s.avail_in && z->in_eof) {
                                b->done = 1;
                                return 0;
                        }
                        if (z->s.avail_in < 2 && !z->in_eof && fill(b) < 0)
                                return -1;
                        if (!bsrc_is_gzip(z->s.next_in, z->s.avail_in)) {
                                snprintf(b->msg, sizeof b->msg,
                                         "'%s': damaged gzip data: bytes after the end of the "
                                         "compressed stream",
                                         b->path);
                                return -1;
                        }
                        inflateReset(&z->s);
                        z->member_end = 0;
                }
                if (!z->s.avail_in) {
                        int f = fill(b);
                        if (f < 0)
                                return -1;
                        if (f == 0) {
                                snprintf(b->msg, sizeof b->msg,
                                         "'%s': truncated gzip data (the compressed stream "
                                         "ends early)",
                                         b->path);
                                return -1;
                        }
                }
                int rc = inflate(&z->s, Z_NO_FLUSH);
                if (rc == Z_STREAM_END) {
                        z->member_end = 1;
                } else if (rc == Z_BUF_ERROR) {
                        /* no progress possible without input: read more (above) */
                        if (z->s.avail_in) {
                                snprintf(b->msg, sizeof b->msg, "'%s': damaged gzip data",
                                         b->path);
                                return -1;
                        }
                } else if (rc != Z_OK) {
                        snprintf(b->msg, sizeof b->msg, "'%s': damaged gzip data: %s", b->path,
                                 z->s.msg ? z->s.msg : "inflate failed");
                        return -1;
                }
        }
        return (ssize_t)(n - z->s.avail_out);
}

ssize_t bsrc_read(struct bsrc *b, void *buf, size_t n)
{
        if (b->done || n == 0)
                return 0;
        if (b->z)
                return gz_read(b, buf, n);
        if (b->ahead < b->nhead) { /* the bytes read to look for the magic */
                size_t k = b->nhead - b->ahead < n ? b->nhead - b->ahead : n;
                memcpy(buf, b->head + b->ahead, k);
                b->ahead += k;
                return (ssize_t)k;
        }
        ssize_t r = raw_read(b->fd, buf, n);
        if (r < 0)
                return fail_read(b);
        return r;
}

void bsrc_close(struct bsrc *b)
{
        if (b->z) {
                inflateEnd(&b->z->s);
                free(b->z);
                b->z = NULL;
        }
}
