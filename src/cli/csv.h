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
    latrec_outfile *out; /* opened by path: written aside, renamed at close */
    int    fd;      /* opened by path: out's, written with write(2); else -1 (f) */
    unsigned align; /* > 0: whole blocks of align bytes go out with O_DIRECT */
    int    grown;   /* the large buffer was tried (csv.c) */
    uint64_t written; /* bytes written to fd */
} latrec_csv;

/* Open path for writing, or use f when path is NULL. A path is written to a
 * temporary name and renamed over it at close, never following a symbolic
 * link or replacing a file latrec did not write (read/outfile.h). Returns
 * 0, or -1 with errno (EEXIST: path is not latrec's; see
 * latrec_outfile_strerror). */
int  latrec_csv_open(latrec_csv *c, const char *path, FILE *f);
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

/* Decimal formatting without a per-digit division: numbers are cut into
 * chunks of 8 digits (independent 32-bit work the CPU overlaps), each
 * written two digits at a time from a table. Each returns the end of what
 * it wrote (no NUL). */
static const char latrec_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Exactly 8 digits of v < 10^8 (leading zeros kept). */
static inline __attribute__((always_inline)) void latrec_fmt8(char *p, uint32_t v)
{
    const uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(p, latrec_digit_pairs + 2 * (hi / 100), 2);
    memcpy(p + 2, latrec_digit_pairs + 2 * (hi % 100), 2);
    memcpy(p + 4, latrec_digit_pairs + 2 * (lo / 100), 2);
    memcpy(p + 6, latrec_digit_pairs + 2 * (lo % 100), 2);
}

/* v < 10^8 without leading zeros. (A branch-free digit count from the bit
 * length took more instructions: the values of a column mostly keep their
 * length, so these branches are predicted.) */
static inline __attribute__((always_inline)) char *latrec_fmt_small(char *out, uint32_t v)
{
    const size_t n = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5
                   : v < 1000000 ? 6 : v < 10000000 ? 7 : 8;
    char *p = out + n;
    while (v >= 100) {
        const uint32_t i = 2 * (v % 100);
        v /= 100;
        p -= 2;
        memcpy(p, latrec_digit_pairs + i, 2);
    }
    if (v >= 10) memcpy(p - 2, latrec_digit_pairs + 2 * v, 2);
    else p[-1] = (char)('0' + v);
    return out + n;
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
    uint64_t hi; /* v / 10^8 of the last v >= 10^8 */
    size_t   n;
    char     s[24];
} latrec_fmt_hi;
#define LATREC_FMT_HI_INIT { UINT64_MAX, 0, { 0 } }

static inline __attribute__((always_inline)) char *latrec_fmt_u64_hi(char *out, uint64_t v, latrec_fmt_hi *h)
{
    if (v < 100000000u) return latrec_fmt_small(out, (uint32_t)v);
    const uint64_t hi = v / 100000000u; /* < 1.9 * 10^11: at most 12 digits */
    if (__builtin_expect(hi != h->hi, 0)) {
        h->hi = hi;
        h->n = (size_t)(latrec_fmt_u64(h->s, hi) - h->s);
    }
    memcpy(out, h->s, 16);
    latrec_fmt8(out + h->n, (uint32_t)(v - hi * 100000000u));
    return out + h->n + 8;
}

/* A duration in ns as us with three fractional digits (-1.234). */
static inline char *latrec_fmt_us(char *p, int64_t ns)
{
    const uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0) *p++ = '-';
    p = latrec_fmt_u64(p, a / 1000);
    const uint32_t frac = (uint32_t)(a % 1000);
    p[0] = '.';
    p[1] = (char)('0' + frac / 100);
    memcpy(p + 2, latrec_digit_pairs + 2 * (frac % 100), 2);
    return p + 4;
}

/* Flush and close (opened by path: renamed into place, or removed when any
 * write failed). Returns 0, or -1 with errno when any write failed. */
int  latrec_csv_close(latrec_csv *c);
/* Drop what was written (opened by path: the file is removed). */
void latrec_csv_abort(latrec_csv *c);

#endif
