/*
 * cli/text_table.h - the libsmartcols tables of report's and top's text
 * output, with their cells escaped by latrec (read/escape.h) and by nobody
 * else.
 */
#ifndef LATREC_CLI_TEXT_TABLE_H
#define LATREC_CLI_TEXT_TABLE_H

#include <stdio.h>

#include <libsmartcols.h>

/* A table printed on out, NULL when out of memory. Its cells are escaped
 * already (latrec_text_cell), which libsmartcols would escape again
 * outside a UTF-8 locale ("\x5cx07" for a \x07, valid UTF-8 as \xHH), so
 * its own encoding is off. */
struct libscols_table *latrec_text_table(FILE *out);

/* Cell col of ln: text (NULL: empty) with control characters and bytes
 * outside ASCII as \xHH, so a ring or thread name reaches the terminal
 * safely. */
void latrec_text_cell(struct libscols_line *ln, int col, const char *text);

#endif
