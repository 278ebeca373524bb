/* Bytes kept through JSON and terminal output (escape.h). */
#include "read/escape.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t latrec_utf8_seq(const unsigned char *s, size_t n)
{
    if (n == 0) return 0;
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf) len = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef) len = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4) len = 4, min = 0x10000;
    else return 0;
    if (n < len) return 0;
    unsigned cp = c & (0x3f >> (len - 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0; /* overlong, surrogate */
    return len;
}

int latrec_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    while (n) {
        size_t k = latrec_utf8_seq(p, n);
        if (!k) return 0;
        p += k;
        n -= k;
    }
    return 1;
}

char *latrec_escape_bytes(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(4 * n + 1), *o = out;
    if (!out) return NULL;
    const unsigned char *p = (const unsigned char *)s;
    while (n) {
        size_t k = latrec_utf8_seq(p, n);
        if (k == 1 && *p == '\\') {
            *o++ = '\\';
            *o++ = '\\';
        } else if (k) {
            memcpy(o, p, k);
            o += k;
        } else {
            o += sprintf(o, "\\x%02x", *p);
            k = 1;
        }
        p += k;
        n -= k;
    }
    *o = '\0';
    return out;
}

static const char *text_safe(const char *s, char *buf, size_t len, int ascii)
{
    if (!len) return buf;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p), used = 0;
    while (n) {
        size_t k = latrec_utf8_seq(p, n);
        char esc[8];
        const char *piece = (const char *)p;
        size_t plen = k;
        if (!k || (k == 1 && (*p < 0x20 || *p == 0x7f)) || (ascii && *p >= 0x80)) {
            snprintf(esc, sizeof(esc), "\\x%02x", *p);
            piece = esc;
            plen = 4;
            k = 1;
        }
        if (used + plen + 1 > len) { /* cut, and say so */
            size_t at = len >= 4 && used > len - 4 ? len - 4 : used;
            if (len >= 4) memcpy(buf + at, "...", 4);
            else buf[at < len ? at : len - 1] = '\0';
            return buf;
        }
        memcpy(buf + used, piece, plen);
        used += plen;
        p += k;
        n -= k;
    }
    buf[used] = '\0';
    return buf;
}

const char *latrec_text_safe(const char *s, char *buf, size_t len)
{
    return text_safe(s, buf, len, 0);
}

void latrec_text_say(FILE *f, const char *prog, const char *line)
{
    char safe[4 * 4608 + 4]; /* every byte of the longest message as \xHH */
    fprintf(f, "%s: %s\n", prog, latrec_text_safe(line, safe, sizeof(safe)));
}

void latrec_text_sayf(FILE *f, const char *prog, const char *fmt, ...)
{
    char line[4608];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    latrec_text_say(f, prog, line);
}

const char *latrec_text_safe_ascii(const char *s, char *buf, size_t len)
{
    return text_safe(s, buf, len, 1);
}
