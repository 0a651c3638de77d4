/* A field of 1 to 8 digits (most counter values) as a double, eight bytes at once (SWAR):
 * 1 and *out set (exactly strtod's value), else 0. Reads 8 bytes from f whatever len is (f
 * must have that many readable bytes). Inline: the CSV reader calls it for every cell. */
#ifndef PRISM_NUMPARSE_H
#define PRISM_NUMPARSE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline int num_digits8(const char *f, size_t len, double *out)
{
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
        return 0;
#endif
        if (len - 1 >= 8)
                return 0;
        uint64_t v;
        if (len == 1) { /* "0" alone is four cells in ten of a counter file: no SWAR */
                v = (uint64_t)(unsigned char)f[0] - '0';
                if (v >= 10)
                        return 0;
                v |= UINT64_C(0x4330000000000000);
                double d;
                memcpy(&d, &v, sizeof d);
                *out = d - 4503599627370496.0;
                return 1;
        }
        memcpy(&v, f, 8);
        unsigned sh = (unsigned)(8 - len) * 8;
        /* the field's bytes to the top (little-endian: the first digit lowest), '0's below */
        v = sh ? (v << sh) | (UINT64_C(0x3030303030303030) >> (64 - sh)) : v;
        /* every byte a digit ('0' to '9': high nibble 3, low nibble + 6 still below 16) */
        if (((v & UINT64_C(0xF0F0F0F0F0F0F0F0)) |
             (((v + UINT64_C(0x0606060606060606)) & UINT64_C(0xF0F0F0F0F0F0F0F0)) >> 4)) !=
            UINT64_C(0x3333333333333333))
                return 0;
        /* pairs, quads, then all eight digits (the first one is the most significant) */
        v = ((v & UINT64_C(0x0F0F0F0F0F0F0F0F)) * 2561) >> 8;
        v = ((v & UINT64_C(0x00FF00FF00FF00FF)) * 6553601) >> 16;
        v = ((v & UINT64_C(0x0000FFFF0000FFFF)) * UINT64_C(42949672960001)) >> 32;
        /* as a double without cvtsi2sd (whose dependence on its register's old value
         * chains every conversion to the one before): v < 2^27 under the exponent bits
         * of 2^52 is 2^52 + v exactly */
        v |= UINT64_C(0x4330000000000000);
        double d;
        memcpy(&d, &v, sizeof d);
        *out = d - 4503599627370496.0;
        return 1;
}

#endif
