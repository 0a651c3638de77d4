/* The bytes of a data file as its readers see them: a plain file as it is, a gzip file
 * (rocprof-compute 3.9+ writes its large CSV files as NAME.csv.gz) decompressed. Which of
 * the two is decided by the file's first bytes, never by its name. The CSV tokenizer
 * (table.c) reads through this layer and knows nothing of compression. */
#ifndef PRISM_BYTESRC_H
#define PRISM_BYTESRC_H

#include <stddef.h>
#include <sys/types.h>

struct bsrc_z; /* zlib's state, when the file is gzip */

struct bsrc {
        int fd;
        const char *path;
        struct bsrc_z *z; /* NULL: plain bytes */
        unsigned char head[2];
        size_t nhead, ahead; /* plain: bytes of head[] not yet handed out (from ahead) */
        int done;
        char msg[256]; /* after a read of -1: the one-line error, naming the file */
};

/* Start reading the open descriptor fd (of path, kept for messages; neither is owned:
 * the caller closes fd). Reads the first bytes to tell gzip from plain: 0, or -1 with msg
 * set (a read error). */
int bsrc_open(struct bsrc *b, int fd, const char *path);
/* Up to n bytes into buf: their count, 0 at the end, -1 with msg set: a read error, or
 * gzip data that is damaged ("'F': damaged gzip data: ...") or ends before its stream does
 * ("'F': truncated gzip data"). */
ssize_t bsrc_read(struct bsrc *b, void *buf, size_t n);
/* Non-zero when the file is gzip (its size says nothing of the bytes it gives). */
int bsrc_compressed(const struct bsrc *b);
void bsrc_close(struct bsrc *b);

/* Non-zero when the n bytes at p start a gzip file (magic 1f 8b). */
int bsrc_is_gzip(const void *p, size_t n);

#endif
