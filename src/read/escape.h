/*
 * read/escape.h - names and command lines from the outside world (argv,
 * the working directory, ring and thread names from ring headers and
 * /proc) are bytes, not text: they may be invalid UTF-8 or hold control
 * characters. Every byte is kept, escaped where the output cannot carry it:
 *
 *   JSON (run.json, report --format json, trace.json): JSON strings must be
 *     UTF-8, so a value that is not is written escaped - a byte that is not
 *     part of valid UTF-8 as the four characters \xHH (hex, lower case) and
 *     a backslash as \\ - and flagged beside it ("<key>_escaped": true, or
 *     for an array "<key>_escaped": [indexes]). A value that is valid UTF-8
 *     is written as it is.
 *   Text on a terminal (report, hist, the record summary): control
 *     characters (0x00-0x1f, 0x7f) and bytes that are not valid UTF-8 are
 *     written as \xHH; printable text, including multibyte UTF-8, as it is.
 *
 * libc only; in src/read as the lowest layer record and the CLI share.
 */
#ifndef LATREC_READ_ESCAPE_H
#define LATREC_READ_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at s (1..4), 0 when the byte at s
 * does not start one (n bytes available). */
size_t latrec_utf8_seq(const unsigned char *s, size_t n);

/* 1 when s (NUL-terminated) is valid UTF-8. */
int latrec_utf8_valid(const char *s);

/* The JSON escaping above of s (NUL-terminated), malloc'd; NULL when out
 * of memory. */
char *latrec_escape_bytes(const char *s);

/* The terminal escaping above of s into buf (always NUL-terminated; cut
 * with "..." when it does not fit). Returns buf. */
const char *latrec_text_safe(const char *s, char *buf, size_t len);

/* "PROG: LINE\n" on f with LINE in the terminal escaping: a message that
 * holds names from the command line or from a file (a directory given to
 * -o, a ring's role) stays one line of text whatever bytes they hold. */
void latrec_text_say(FILE *f, const char *prog, const char *line);
/* latrec_text_say of the line fmt makes (cut at 4607 bytes). */
void latrec_text_sayf(FILE *f, const char *prog, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The same, and every byte from 0x80 up as \xHH too: a cell of a
 * libsmartcols table. latrec runs in the C locale, where libsmartcols
 * (2.38, with its own encoding off) loops for ever measuring such a byte,
 * and with its encoding on it escapes our \xHH again ("\x5cx07"). */
const char *latrec_text_safe_ascii(const char *s, char *buf, size_t len);

#endif
