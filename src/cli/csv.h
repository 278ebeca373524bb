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

#include "read/outfile.h"

typedef struct latrec_csv {
    FILE  *f;
    char  *buf;
    size_t len, cap;
    int    first;   /* next field is the first of its row */
    int    error;   /* a write failed (errno kept in err_no) */
    int    err_no;
    latrec_outfile *out; /* opened by path: written aside, renamed at close */
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
/* Flush and close (opened by path: renamed into place, or removed when any
 * write failed). Returns 0, or -1 with errno when any write failed. */
int  latrec_csv_close(latrec_csv *c);

#endif
