/*
 * cli/csv.h - a buffered RFC 4180 CSV writer with fast integer formatting.
 *
 * Fields are separated by ',' and rows end in "\n" (what Unix tools expect;
 * RFC 4180 readers accept it). A text field is quoted when it holds ',', '"',
 * CR or LF, with '"' doubled.
 */
#ifndef LATREC_CLI_CSV_H
#define LATREC_CLI_CSV_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "read/outfile.h"

typedef struct latrec_csv {
    FILE  *f;
    char  *buf;
    size_t len, cap;
    int    first;   /* next field is the first of its row */
    int    error;   /* a write failed (errno kept in err_no) */
    int    err_no;
    latrec_outfile *out; /* written aside, renamed at close (or by set) */
    latrec_outset *set;  /* NULL, or where close hands the finished file */
    int    fd;      /* out's, written with write(2) */
    unsigned align; /* > 0: whole blocks of align bytes go out with O_DIRECT */
    int    grown;   /* the large buffer was tried (csv.c) */
    struct csv_io *io; /* its blocks' writer thread, or NULL (csv.c) */
    uint64_t written; /* bytes written to fd */
} latrec_csv;

/* Open path for writing: it is written to a temporary name and renamed
 * over path at close (or, with a set, when the set is placed), never
 * following a symbolic link or replacing a file latrec did not write
 * (read/outfile.h). Returns 0, or -1 with errno and err: one line naming
 * the file (or its directory's marker) and the reason. */
int  latrec_csv_open(latrec_csv *c, const char *path, latrec_outset *set, char *err, size_t errlen);
void latrec_csv_str(latrec_csv *c, const char *s);   /* text, quoted as needed */
void latrec_csv_u64(latrec_csv *c, uint64_t v);
void latrec_csv_i64(latrec_csv *c, int64_t v);
void latrec_csv_hex(latrec_csv *c, uint64_t v);      /* 0x%X */
/* A duration in ns printed in us with three fractional digits (-1.234). */
void latrec_csv_us(latrec_csv *c, int64_t ns);
void latrec_csv_double(latrec_csv *c, double v, int decimals);
void latrec_csv_empty(latrec_csv *c);                /* an empty field */
void latrec_csv_end(latrec_csv *c);                  /* end the row */
/* The text field latrec_csv_str() would write for s (quoted as needed),
 * NUL-terminated into out. Returns its length, or 0 when it needs cap bytes
 * or more (an empty s is also 0 bytes). */
size_t latrec_csv_field(const char *s, char *out, size_t cap);

/* A whole row at once, for the writers of millions of rows: at the start of
 * a row, latrec_csv_reserve() returns room for n bytes (n < 32 KiB), the
 * caller formats the row there, '\n' included, with the latrec_fmt_*
 * functions below and memcpy, and latrec_csv_commit() takes the bytes up
 * to end. */
void latrec_csv_flush(latrec_csv *c);     /* the buffer out now, all of it */
void latrec_csv_make_room(latrec_csv *c); /* what fills whole blocks out (leaves < 64 KiB) */
static inline char *latrec_csv_reserve(latrec_csv *c, size_t n)
{
    if (__builtin_expect(c->len + n > c->cap, 0)) latrec_csv_make_room(c);
    return c->buf + c->len;
}
static inline void latrec_csv_commit(latrec_csv *c, char *end) { c->len = (size_t)(end - c->buf); }

/* Decimal formatting without a division or a branch per digit: numbers
 * are cut into chunks of 8 digits, each made in one 64-bit word (split 4 |
 * 4 by multiplying with a reciprocal, each half's 4 digits from a table of
 * 10^4 words: on convert's 16 x 2^14 records 244.7 -> 216.5 M
 * instructions, against splitting on down to 1 | 1 by reciprocals) and
 * stored with one 8-byte store, its leading zeros shifted out. Each returns the end of what it wrote (no
 * NUL) and may store up to 8 bytes past that end (24 bytes from out at
 * most for any number). */
static const char latrec_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* The 4 decimal digits of each n < 10^4 as bytes 0-9 (not yet ASCII), the
 * most significant in the lowest byte (csv.c fills it before main). */
extern uint32_t latrec_digits4[10000];

/* The 8 decimal digits of v < 10^8 as bytes 0-9 (not yet ASCII), the most
 * significant in the lowest byte (the first in memory): its two halves of
 * 4 digits from the table. */
static inline __attribute__((always_inline)) uint64_t latrec_digits8(uint32_t v)
{
    const uint32_t q = (uint32_t)((uint64_t)v * 109951163u >> 40); /* v / 10^4 for v < 10^8 */
    return latrec_digits4[q] | (uint64_t)latrec_digits4[v - q * 10000u] << 32;
}
#define LATREC_ASCII8 0x3030303030303030ull

static inline __attribute__((always_inline)) void latrec_store8(char *p, uint64_t w) { memcpy(p, &w, 8); }

/* Exactly 8 digits of v < 10^8 (leading zeros kept). */
static inline __attribute__((always_inline)) void latrec_fmt8(char *p, uint32_t v)
{
    latrec_store8(p, latrec_digits8(v) | LATREC_ASCII8);
}

/* v < 10^8 without leading zeros (0 is "0"). Below 100 (cpus, stage
 * ids, small payloads) two bytes from the pair table, the first skipped
 * below 10. */
static inline __attribute__((always_inline)) char *latrec_fmt_small(char *out, uint32_t v)
{
    if (v < 100) {
        memcpy(out, latrec_digit_pairs + 2 * v + (v < 10), 2);
        return out + 2 - (v < 10);
    }
    const uint64_t d = latrec_digits8(v);
    const unsigned lz = (unsigned)__builtin_ctzll(d | 1ull << 56) >> 3; /* leading zero digits, at most 7 */
    latrec_store8(out, (d | LATREC_ASCII8) >> (8 * lz));
    return out + 8 - lz;
}

static inline __attribute__((always_inline)) char *latrec_fmt_u64(char *out, uint64_t v)
{
    if (v < 100000000u) return latrec_fmt_small(out, (uint32_t)v);
    if (v < 10000000000000000ull) {
        char *p = latrec_fmt_small(out, (uint32_t)(v / 100000000u));
        latrec_fmt8(p, (uint32_t)(v % 100000000u));
        return p + 8;
    }
    const uint64_t top = v / 100000000u;
    char *p = latrec_fmt_small(out, (uint32_t)(top / 100000000u)); /* < 1845 */
    latrec_fmt8(p, (uint32_t)(top % 100000000u));
    latrec_fmt8(p + 8, (uint32_t)(v % 100000000u));
    return p + 16;
}

/* Numbers that mostly share their digits above the last 8 with the one
 * before (stamps in ns: the same for 0.1 s), those digits formatted once:
 * latrec_fmt_u64 that stores up to 16 bytes from out. Start with
 * LATREC_FMT_HI_INIT. */
typedef struct latrec_fmt_hi {
    uint64_t base; /* v / 10^8 * 10^8 of the last v >= 10^8 */
    size_t   n;    /* the digits of base / 10^8 in s */
    char     s[24];
} latrec_fmt_hi;
/* A base no v < 10^8 is within 10^8 above (v - base wraps past 10^8), and
 * whose digits are right for the v that are. */
#define LATREC_FMT_HI_INIT { 18446744073600000000ull, 12, "184467440736" }
#define LATREC_FMT_HI_TOP 184467440737ull /* 2^64 / 10^8: a base there would wrap */

/* A v whose leading digits are not base's (or v < 10^8). */
static inline char *latrec_fmt_hi_miss(char *out, uint64_t v, latrec_fmt_hi *h)
{
    if (v < 100000000u) return latrec_fmt_small(out, (uint32_t)v);
    const uint64_t hi = v / 100000000u;
    if (hi == LATREC_FMT_HI_TOP) { /* not cached */
        memcpy(out, "184467440737", 12);
        latrec_fmt8(out + 12, (uint32_t)(v - LATREC_FMT_HI_TOP * 100000000u));
        return out + 20;
    }
    h->base = hi * 100000000u;
    h->n = (size_t)(latrec_fmt_u64(h->s, hi) - h->s);
    memcpy(out, h->s, 16);
    latrec_fmt8(out + h->n, (uint32_t)(v - h->base));
    return out + h->n + 8;
}

static inline __attribute__((always_inline)) char *latrec_fmt_u64_hi(char *out, uint64_t v, latrec_fmt_hi *h)
{
    const uint64_t lo = v - h->base; /* wraps when v < base: a miss too */
    if (__builtin_expect(lo >= 100000000u, 0)) return latrec_fmt_hi_miss(out, v, h);
    memcpy(out, h->s, 16);
    latrec_fmt8(out + h->n, (uint32_t)lo);
    return out + h->n + 8;
}

/* A duration in ns as us with three fractional digits (-1.234). Below
 * 10^8 ns (every hop of a run but the slowest) one 8-digit word: the
 * integer part's leading zeros shifted out (one digit kept), the '.'
 * stored over where the fraction began, then the fraction's 3 digits. */
static inline __attribute__((always_inline)) char *latrec_fmt_us(char *p, int64_t ns)
{
    const uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0) *p++ = '-';
    if (__builtin_expect(a < 100000000u, 1)) {
        const uint64_t w = latrec_digits8((uint32_t)a) | LATREC_ASCII8;
        const uint64_t d = w ^ LATREC_ASCII8;
        const unsigned lz = (unsigned)__builtin_ctzll(d | 1ull << 32) >> 3; /* at most 4: "0.123" */
        latrec_store8(p, w >> (8 * lz));
        p += 5 - lz;
        latrec_store8(p, (w >> 32 & 0xFFFFFF00u) | '.'); /* bytes 5-7: the fraction */
        return p + 4;
    }
    p = latrec_fmt_u64(p, a / 1000);
    const uint32_t frac = (uint32_t)(a % 1000);
    p[0] = '.';
    p[1] = (char)('0' + frac / 100);
    memcpy(p + 2, latrec_digit_pairs + 2 * (frac % 100), 2);
    return p + 4;
}

/* Flush and close: renamed into place (with a set: handed to it, still
 * under the temporary name), or removed when any write failed. Returns 0,
 * or -1 with errno and err ("PATH: REASON", or the marker's line). */
int  latrec_csv_close(latrec_csv *c, char *err, size_t errlen);
/* Drop what was written (the file is removed). */
void latrec_csv_abort(latrec_csv *c);

#endif
