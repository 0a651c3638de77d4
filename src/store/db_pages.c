/* Reading a table's rows straight from its database file (db_int.h): the table's b-tree
 * walked page by page in rowid order and each row's record decoded, as SQLite's file
 * format documents them (sqlite.org/fileformat.html). Reading a pass this way costs a few
 * nanoseconds a value instead of SQLite's virtual machine and its API calls (about 40).
 * The pages come through SQLite's own file handle (SQLITE_FCNTL_FILE_POINTER) while the
 * caller holds a read transaction on the database, so they are the pages SQLite reads and
 * no writer changes them meanwhile. */
#include "db_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* b-tree levels SQLite follows (its BTCURSOR_MAX_DEPTH), and one more for overflow pages */
#define MAX_DEPTH 21

struct level {
        unsigned char *pg; /* the page */
        size_t hdr;        /* its b-tree header's offset (100 on page 1) */
        unsigned ncells, idx;
        uint32_t right;    /* interior: the right-most child */
};

struct dbpages {
        sqlite3_file *f;
        size_t psize, usable;
        uint32_t npages;
        size_t loads; /* b-tree pages read: a walk reads each once, a damaged one may loop */
        struct level lv[MAX_DEPTH]; /* the last holds overflow pages */
        int depth; /* levels in use; lv[depth - 1] the leaf being read, -1 at the end */
        unsigned char *ov; /* a payload spilling onto overflow pages, assembled */
        size_t capov;
        uint32_t *chain; /* its overflow pages */
        size_t capchain;
        const int *cids; /* the columns wanted (table column numbers) */
        size_t nc;
        int maxcid;
        uint64_t *type; /* per column up to maxcid: serial type, and offset in the record */
        uint32_t *off;
        struct dbp_val *val;
};

static uint32_t be32(const unsigned char *p)
{
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* a varint at p (at most end - p bytes); its bytes, 0 when cut */
static size_t varint(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
        uint64_t x = 0;
        for (size_t i = 0; i < 9; i++) {
                if (p + i >= end)
                        return 0;
                if (i == 8) {
                        *v = x << 8 | p[i];
                        return 9;
                }
                x = x << 7 | (p[i] & 0x7f);
                if (!(p[i] & 0x80)) {
                        *v = x;
                        return i + 1;
                }
        }
        return 0;
}

static int read_page(struct dbpages *p, uint32_t pgno, unsigned char *buf)
{
        if (pgno < 1 || pgno > p->npages)
                return -1;
        return p->f->pMethods->xRead(p->f, buf, (int)p->psize,
                                     (sqlite3_int64)(pgno - 1) * (sqlite3_int64)p->psize) ==
                       SQLITE_OK
                   ? 0
                   : -1;
}

/* page pgno as level d: a table b-tree page (interior 5, leaf 13), checked */
static int load_level(struct dbpages *p, int d, uint32_t pgno)
{
        struct level *l = &p->lv[d];
        if (d >= MAX_DEPTH - 1 || ++p->loads > p->npages || read_page(p, pgno, l->pg))
                return -1;
        l->hdr = pgno == 1 ? 100 : 0;
        const unsigned char *h = l->pg + l->hdr;
        if (h[0] != 5 && h[0] != 13)
                return -1;
        l->ncells = (unsigned)h[3] << 8 | h[4];
        l->idx = 0;
        l->right = h[0] == 5 ? be32(h + 8) : 0;
        size_t ptrs = l->hdr + (h[0] == 5 ? 12 : 8);
        /* what SQLite calls corrupt: more cells than a page holds, a page below the root
         * without cells, an interior root without cells */
        if (ptrs + 2 * (size_t)l->ncells > p->usable || l->ncells > (p->usable - 8) / 6 ||
            (l->ncells == 0 && (d > 0 || h[0] == 5)))
                return -1;
        return 0;
}

static int is_leaf(const struct level *l)
{
        return l->pg[l->hdr] == 13;
}

static size_t cell_at(const struct level *l, unsigned i)
{
        const unsigned char *c = l->pg + l->hdr + (is_leaf(l) ? 8 : 12) + 2 * (size_t)i;
        return (size_t)c[0] << 8 | c[1];
}

/* from level d (interior) down to the next leaf with cells; -1 damaged, 0 none left there */
static int descend(struct dbpages *p, int d)
{
        while (!is_leaf(&p->lv[d])) {
                struct level *l = &p->lv[d];
                if (l->idx > l->ncells)
                        return 0;
                uint32_t child;
                if (l->idx < l->ncells) {
                        size_t at = cell_at(l, l->idx);
                        if (at + 4 > p->usable)
                                return -1;
                        child = be32(l->pg + at);
                } else {
                        child = l->right;
                }
                l->idx++;
                if (load_level(p, d + 1, child))
                        return -1;
                d++;
                p->depth = d + 1;
        }
        return 1;
}

/* 1 when the file path + suffix exists (of any kind) */
static int side_file(const char *path, const char *suffix)
{
        char *q = xasprintf("%s%s", path, suffix);
        struct stat sb;
        int there = lstat(q, &sb) == 0;
        free(q);
        return there;
}

/* PRAGMA schema.page_count (-1 when it cannot be read) */
static sqlite3_int64 pager_pages(sqlite3 *db, const char *schema)
{
        char *sql = xasprintf("PRAGMA \"%s\".page_count", schema);
        sqlite3_stmt *st = NULL;
        sqlite3_int64 n = -1;
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
                n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        free(sql);
        return n;
}

struct dbpages *dbp_open(sqlite3 *db, const char *schema, uint32_t root, const int *cids,
                         size_t nc)
{
        sqlite3_file *f = NULL;
        unsigned char h[100];
        sqlite3_int64 size = 0;
        if (sqlite3_file_control(db, schema, SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK || !f ||
            !f->pMethods || f->pMethods->xRead(f, h, 100, 0) != SQLITE_OK ||
            f->pMethods->xFileSize(f, &size) != SQLITE_OK)
                return NULL;
        size_t psize = h[16] << 8 | h[17];
        psize = psize == 1 ? 65536 : psize;
        /* a WAL database (file format 2) has pages in its log; UTF-16 texts; odd sizes */
        if (memcmp(h, "SQLite format 3", 16) || h[18] != 1 || h[19] != 1 || be32(h + 56) != 1 ||
            psize < 512 || (psize & (psize - 1)) || h[20] >= psize - 480 || root < 2)
                return NULL;
        /* a log or a journal beside the file: SQLite may read pages from it (a -wal file
         * is applied even to a database whose header says rollback) or refuse the file
         * (a hot journal it cannot roll back read-only); SQL reads then */
        const char *fn = sqlite3_db_filename(db, schema);
        if (!fn || !*fn || side_file(fn, "-wal") || side_file(fn, "-journal"))
                return NULL;
        /* the pages SQLite counts (the header's count where valid, else the file's) */
        sqlite3_int64 npages = pager_pages(db, schema);
        if (npages <= 0 || npages > size / (sqlite3_int64)psize || npages > UINT32_MAX)
                return NULL;
        struct dbpages *p = xcalloc(1, sizeof *p);
        p->f = f;
        p->psize = psize;
        p->usable = psize - h[20];
        p->npages = (uint32_t)npages;
        p->cids = cids;
        p->nc = nc;
        p->maxcid = -1;
        for (size_t i = 0; i < nc; i++)
                p->maxcid = cids[i] > p->maxcid ? cids[i] : p->maxcid;
        p->type = xmalloc(((size_t)p->maxcid + 1) * sizeof *p->type);
        p->off = xmalloc(((size_t)p->maxcid + 1) * sizeof *p->off);
        p->val = xcalloc(nc ? nc : 1, sizeof *p->val);
        for (int d = 0; d < MAX_DEPTH; d++)
                p->lv[d].pg = xmalloc(psize);
        p->depth = 0;
        /* a table b-tree (not WITHOUT ROWID's index b-tree): else SQL reads it */
        if (load_level(p, 0, root)) {
                dbp_close(p);
                return NULL;
        }
        return p;
}

void dbp_close(struct dbpages *p)
{
        if (!p)
                return;
        for (int d = 0; d < MAX_DEPTH; d++)
                free(p->lv[d].pg);
        free(p->ov);
        free(p->chain);
        free(p->type);
        free(p->off);
        free(p->val);
        free(p);
}

/* the bytes of a serial type's value */
static uint64_t type_len(uint64_t t)
{
        static const unsigned char n[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0};
        return t < 12 ? n[t] : (t - 12) / 2;
}

/* the record rec (n bytes) into p->val */
static int decode(struct dbpages *p, const unsigned char *rec, size_t n)
{
        const unsigned char *end = rec + n;
        uint64_t hs;
        size_t k = varint(rec, end, &hs);
        if (!k || hs > n || hs < k)
                return -1;
        const unsigned char *h = rec + k, *hend = rec + hs;
        uint64_t at = hs;
        int i = 0;
        for (; i <= p->maxcid && h < hend; i++) {
                uint64_t t;
                if (*h < 0x80) {
                        t = *h++;
                } else {
                        size_t m = varint(h, hend, &t);
                        if (!m)
                                return -1;
                        h += m;
                }
                if (t == 10 || t == 11)
                        return -1;
                p->type[i] = t;
                p->off[i] = (uint32_t)at;
                at += type_len(t);
                if (at > n)
                        return -1;
        }
        for (; i <= p->maxcid; i++) /* columns the record does not hold: NULL */
                p->type[i] = 0;
        for (size_t c = 0; c < p->nc; c++) {
                struct dbp_val *v = &p->val[c];
                int cid = p->cids[c];
                uint64_t t = p->type[cid];
                const unsigned char *b = rec + p->off[cid];
                if (t == 0) {
                        v->type = SQLITE_NULL;
                } else if (t <= 6 || t == 8 || t == 9) {
                        int64_t x = 0;
                        if (t <= 6) {
                                size_t len = (size_t)type_len(t);
                                x = (signed char)b[0]; /* sign-extended */
                                for (size_t j = 1; j < len; j++)
                                        x = (int64_t)((uint64_t)x << 8 | b[j]);
                        } else {
                                x = t == 9;
                        }
                        v->type = SQLITE_INTEGER;
                        v->num = (double)x;
                } else if (t == 7) {
                        uint64_t bits = (uint64_t)be32(b) << 32 | be32(b + 4);
                        v->type = SQLITE_FLOAT;
                        memcpy(&v->num, &bits, sizeof v->num);
                } else {
                        v->type = t & 1 ? SQLITE_TEXT : SQLITE_BLOB;
                        v->text = (const char *)b;
                        v->len = (size_t)type_len(t);
                }
        }
        return 0;
}

static int cmp_u32(const void *a, const void *b)
{
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return (x > y) - (x < y);
}

/* 1 when a page number appears twice among v[0..n) (v is sorted) */
static int repeats(uint32_t *v, size_t n)
{
        if (n < 2)
                return 0;
        qsort(v, n, sizeof *v, cmp_u32);
        for (size_t i = 1; i < n; i++)
                if (v[i] == v[i - 1])
                        return 1;
        return 0;
}

/* the leaf cell at of level l: its rowid and record (assembled from overflow pages) */
static int leaf_cell(struct dbpages *p, const struct level *l, size_t at, sqlite3_int64 *rowid)
{
        const unsigned char *pg = l->pg, *end = pg + p->usable;
        uint64_t plen, key;
        size_t k = varint(pg + at, end, &plen), k2;
        if (!k || !(k2 = varint(pg + at + k, end, &key)))
                return -1;
        *rowid = (sqlite3_int64)key;
        const unsigned char *pay = pg + at + k + k2;
        size_t u = p->usable, x = u - 35;
        if (plen <= x) {
                if (pay + plen > end)
                        return -1;
                return decode(p, pay, (size_t)plen);
        }
        /* the part on the page, then a chain of overflow pages of u - 4 bytes each */
        size_t m = (u - 12) * 32 / 255 - 23, local = m + (size_t)((plen - m) % (u - 4));
        if (local > x)
                local = m;
        if (plen > (uint64_t)1 << 31 || pay + local + 4 > end)
                return -1;
        xgrow(&p->ov, &p->capov, (size_t)plen, 1);
        memcpy(p->ov, pay, local);
        uint32_t next = be32(pay + local);
        unsigned char *buf = p->lv[MAX_DEPTH - 1].pg; /* deeper than any table b-tree here */
        size_t nchain = 0;
        for (size_t got = local; got < plen;) {
                if (read_page(p, next, buf))
                        return -1;
                /* a chain that comes back to a page of its own is damaged: no value of it
                 * is trusted (SQL reads the table and decides) */
                xgrow(&p->chain, &p->capchain, nchain + 1, sizeof *p->chain);
                p->chain[nchain++] = next;
                size_t piece = plen - got < u - 4 ? (size_t)(plen - got) : u - 4;
                memcpy(p->ov + got, buf + 4, piece);
                got += piece;
                next = be32(buf);
        }
        if (next != 0 || repeats(p->chain, nchain))
                return -1;
        return decode(p, p->ov, (size_t)plen);
}

int dbp_next(struct dbpages *p, sqlite3_int64 *rowid)
{
        if (p->depth < 0)
                return 0;
        if (p->depth == 0)
                p->depth = 1; /* the root, loaded by dbp_open */
        for (;;) {
                struct level *l = &p->lv[p->depth - 1];
                if (is_leaf(l) && l->idx < l->ncells) {
                        size_t at = cell_at(l, l->idx++);
                        if (at < l->hdr + 8 || at >= p->usable)
                                return -1;
                        return leaf_cell(p, l, at, rowid) ? -1 : 1;
                }
                /* up to the nearest level with children left, then down to a leaf */
                int d = p->depth - (is_leaf(l) ? 2 : 1);
                while (d >= 0 && p->lv[d].idx > p->lv[d].ncells)
                        d--;
                if (d < 0) {
                        p->depth = -1;
                        return 0;
                }
                p->depth = d + 1;
                int r = descend(p, d);
                if (r < 0)
                        return -1;
        }
}

const struct dbp_val *dbp_row(const struct dbpages *p)
{
        return p->val;
}
