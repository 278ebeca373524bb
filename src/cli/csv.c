/* Buffered CSV writer. */
#include "cli/csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CSV_BUF (1u << 16) /* 64 KiB: 256 KiB measured no faster, 1 MiB slower (more system time) */

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

void latrec_csv_u64(latrec_csv *c, uint64_t v)
{
    char *p = room(c, 24);
    latrec_csv_commit(c, latrec_fmt_u64(p, v));
}

void latrec_csv_i64(latrec_csv *c, int64_t v)
{
    char *p = room(c, 24);
    size_t n = 0;
    if (v < 0) p[n++] = '-';
    latrec_csv_commit(c, latrec_fmt_u64(p + n, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v));
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
    latrec_csv_commit(c, latrec_fmt_us(p, ns));
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

size_t latrec_csv_field(const char *s, char *out, size_t cap)
{
    const size_t n = strlen(s);
    const int quote = strpbrk(s, ",\"\r\n") != NULL;
    size_t k = 0;
    if (2 * n + 3 > cap) return 0;
    if (quote) out[k++] = '"';
    for (const char *q = s; *q; q++) {
        if (*q == '"') out[k++] = '"';
        out[k++] = *q;
    }
    if (quote) out[k++] = '"';
    out[k] = '\0';
    return k;
}

void latrec_csv_flush(latrec_csv *c)
{
    flush(c);
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

void latrec_csv_abort(latrec_csv *c)
{
    if (c->out) {
        latrec_outfile_abort(c->out);
        free(c->out);
        c->out = NULL;
    } else if (c->f && c->f != stdout && c->f != stderr) {
        fclose(c->f);
    }
    free(c->buf);
    c->f = NULL;
    c->buf = NULL;
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
