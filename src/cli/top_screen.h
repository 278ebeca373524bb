/*
 * cli/top_screen.h - `latrec top` on a terminal: the block redrawn in place
 * with ncurses (one screen, cursor hidden, keys read without echo); q quits.
 * While the screen is up, standard error is held in a temporary file and
 * written out when the terminal is given back.
 */
#ifndef LATREC_CLI_TOP_SCREEN_H
#define LATREC_CLI_TOP_SCREEN_H

#include <stddef.h>

typedef struct latrec_top_screen latrec_top_screen;

/* Take over the terminal on standard output (keys from standard input).
 * NULL when curses cannot (no terminfo entry for $TERM: reason in why). */
latrec_top_screen *latrec_top_screen_open(char *why, size_t len);

/* Draw text (lines cut to the screen) in place of what was there. */
void latrec_top_screen_draw(latrec_top_screen *s, const char *text);

/* Read the keys typed so far: 1 when one of them was q (or Q), else 0. A
 * resize redraws the last text. */
int latrec_top_screen_keys(latrec_top_screen *s);

/* Give the terminal back as it was. NULL is fine. */
void latrec_top_screen_close(latrec_top_screen *s);

#endif
