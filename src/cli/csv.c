/* Buffered CSV writer. */
#include "cli/csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CSV_BUF (1u << 16)

int latrec_csv_open(latrec_csv *c, const char *path, FILE *f)
{
    memset(c, 0, sizeof(*c));
    if (path) {
        char err[512];
        if (!(c->out = malloc(sizeof(*c->out)))) return -1;
        if (latrec_outfile_open(c->out, path, 0, err, sizeof(err)) < 0) {
            const int e = errno;
            free(c->out);
            c->out = NULL;
            errno = e;
            return -1;
        }
        c->f = c->out->f;
    } else {
        c->f = f;
    }
    c->buf = malloc(CSV_BUF);
    if (!c->buf) {
        if (c->out) latrec_outfile_abort(c->out);
        free(c->out);
        c->out = NULL;
        errno = ENOMEM;
        return -1;
    }
    c->cap = CSV_BUF;
    c->first = 1;
    return 0;
}

static void flush(latrec_csv *c)
{
    if (c->len && fwrite(c->buf, 1, c->len, c->f) != c->len && !c->error) {
        c->error = 1;
        c->err_no = errno;
    }
    c->len = 0;
}

/* Room for n more bytes plus a separator. */
static char *room(latrec_csv *c, size_t n)
{
    if (c->len + n + 1 > c->cap) flush(c);
    if (!c->first) c->buf[c->len++] = ',';
    c->first = 0;
    return c->buf + c->len;
}

/* Decimal formatting without a per-digit division: numbers are cut into
 * chunks of 8 digits (independent 32-bit work the CPU overlaps), each
 * written two digits at a time from a table. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Exactly 8 digits of v < 10^8 (leading zeros kept). */
static inline void fmt8(char *p, uint32_t v)
{
    const uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(p, digit_pairs + 2 * (hi / 100), 2);
    memcpy(p + 2, digit_pairs + 2 * (hi % 100), 2);
    memcpy(p + 4, digit_pairs + 2 * (lo / 100), 2);
    memcpy(p + 6, digit_pairs + 2 * (lo % 100), 2);
}

/* v < 10^8 without leading zeros. Returns the length. */
static inline size_t fmt_small(char *out, uint32_t v)
{
    const size_t n = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5
                   : v < 1000000 ? 6 : v < 10000000 ? 7 : 8;
    char *p = out + n;
    while (v >= 100) {
        const uint32_t i = 2 * (v % 100);
        v /= 100;
        p -= 2;
        memcpy(p, digit_pairs + i, 2);
    }
    if (v >= 10) memcpy(p - 2, digit_pairs + 2 * v, 2);
    else p[-1] = (char)('0' + v);
    return n;
}

static inline size_t fmt_u64(char *out, uint64_t v)
{
    if (v < 100000000u) return fmt_small(out, (uint32_t)v);
    if (v < 10000000000000000ull) {
        const size_t n = fmt_small(out, (uint32_t)(v / 100000000u));
        fmt8(out + n, (uint32_t)(v % 100000000u));
        return n + 8;
    }
    const uint64_t top = v / 100000000u;
    const size_t n = fmt_small(out, (uint32_t)(top / 100000000u)); /* < 1845 */
    fmt8(out + n, (uint32_t)(top % 100000000u));
    fmt8(out + n + 8, (uint32_t)(v % 100000000u));
    return n + 16;
}

void latrec_csv_u64(latrec_csv *c, uint64_t v)
{
    char *p = room(c, 24);
    c->len += fmt_u64(p, v);
}

void latrec_csv_i64(latrec_csv *c, int64_t v)
{
    char *p = room(c, 24);
    size_t n = 0;
    if (v < 0) p[n++] = '-';
    c->len += n + fmt_u64(p + n, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

void latrec_csv_hex(latrec_csv *c, uint64_t v)
{
    static const char digits[] = "0123456789ABCDEF";
    char *p = room(c, 20);
    char tmp[16];
    size_t n = 0;
    do {
        tmp[n++] = digits[v & 15];
        v >>= 4;
    } while (v);
    if (n < 2) tmp[n++] = '0';
    p[0] = '0';
    p[1] = 'x';
    for (size_t i = 0; i < n; i++) p[2 + i] = tmp[n - 1 - i];
    c->len += 2 + n;
}

void latrec_csv_us(latrec_csv *c, int64_t ns)
{
    char *p = room(c, 32);
    size_t n = 0;
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0) p[n++] = '-';
    n += fmt_u64(p + n, a / 1000);
    uint64_t frac = a % 1000;
    p[n++] = '.';
    p[n++] = (char)('0' + frac / 100);
    p[n++] = (char)('0' + frac / 10 % 10);
    p[n++] = (char)('0' + frac % 10);
    c->len += n;
}

void latrec_csv_double(latrec_csv *c, double v, int decimals)
{
    char *p = room(c, 64);
    int n = snprintf(p, 64, "%.*f", decimals, v);
    c->len += n > 0 && n < 64 ? (size_t)n : 0;
}

void latrec_csv_str(latrec_csv *c, const char *s)
{
    /* Fast path, one pass: a field of up to 64 bytes with nothing to quote
     * (ring, component, stage and leg names) is copied as it is scanned;
     * nothing is committed until its end is seen. */
    if (c->len + 1 + 64 <= c->cap) {
        char *p = c->buf + c->len + !c->first;
        for (size_t k = 0; k < 64; k++) {
            const char ch = s[k];
            if (ch == '\0') {
                if (!c->first) c->buf[c->len] = ',';
                c->len += (size_t)!c->first + k;
                c->first = 0;
                return;
            }
            if (ch == ',' || ch == '"' || ch == '\r' || ch == '\n') break;
            p[k] = ch;
        }
    }
    size_t n = strlen(s);
    int quote = strpbrk(s, ",\"\r\n") != NULL;
    if (2 * n + 3 > c->cap) { /* a field longer than the buffer: write directly */
        room(c, 0);
        flush(c);
        if (quote) fputc('"', c->f);
        for (const char *q = s; *q; q++) {
            if (*q == '"') fputc('"', c->f);
            fputc(*q, c->f);
        }
        if (quote) fputc('"', c->f);
        return;
    }
    char *p = room(c, 2 * n + 2);
    size_t k = 0;
    if (quote) p[k++] = '"';
    for (const char *q = s; *q; q++) {
        if (*q == '"') p[k++] = '"';
        p[k++] = *q;
    }
    if (quote) p[k++] = '"';
    c->len += k;
}

void latrec_csv_empty(latrec_csv *c)
{
    room(c, 0);
}

void latrec_csv_end(latrec_csv *c)
{
    if (c->len + 1 > c->cap) flush(c);
    c->buf[c->len++] = '\n';
    c->first = 1;
}

int latrec_csv_close(latrec_csv *c)
{
    flush(c);
    int rc = c->error ? -1 : 0;
    if (fflush(c->f) != 0 && !rc) {
        rc = -1;
        c->err_no = errno;
    }
    if (c->out) {
        char err[512];
        if (rc) {
            latrec_outfile_abort(c->out);
        } else if (latrec_outfile_commit(c->out, err, sizeof(err)) < 0) {
            rc = -1;
            c->err_no = errno;
        }
        free(c->out);
        c->out = NULL;
    } else if (c->f != stdout && c->f != stderr && fclose(c->f) != 0 && !rc) {
        rc = -1;
        c->err_no = errno;
    }
    free(c->buf);
    errno = c->err_no;
    c->f = NULL;
    c->buf = NULL;
    return rc;
}
