/* latrec top: the in-place display (cli/top_screen.h), over ncurses. */
#include "cli/top_screen.h"

#include <curses.h>
#include <term.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct latrec_top_screen {
    SCREEN *scr;
    char *last; /* the text drawn last, for a resize */
    FILE *held; /* standard error while the screen is up */
    int saved;  /* the real standard error */
};

/* What goes to standard error while the screen is up (notes, the launched
 * record's and command's output) would tear it: it is kept in a temporary
 * file and written out when the terminal is given back. */
static void hold_stderr(latrec_top_screen *s)
{
    s->saved = -1;
    fflush(stderr);
    if (!(s->held = tmpfile())) return;
    if ((s->saved = dup(2)) < 0 || dup2(fileno(s->held), 2) < 0) {
        if (s->saved >= 0) close(s->saved);
        s->saved = -1;
        fclose(s->held);
        s->held = NULL;
    }
}

static void release_stderr(latrec_top_screen *s)
{
    if (!s->held) return;
    fflush(stderr);
    dup2(s->saved, 2);
    close(s->saved);
    rewind(s->held);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), s->held)) > 0) fwrite(buf, 1, n, stderr);
    fclose(s->held);
}

latrec_top_screen *latrec_top_screen_open(char *why, size_t len)
{
    const char *term = getenv("TERM");
    if (!term || !*term) {
        snprintf(why, len, "TERM is not set");
        return NULL;
    }
    latrec_top_screen *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(why, len, "out of memory");
        return NULL;
    }
    if (!(s->scr = newterm(term, stdout, stdin))) {
        snprintf(why, len, "no terminal description for TERM=%s", term);
        free(s);
        return NULL;
    }
    set_term(s->scr);
    char *cup = tigetstr("cup");
    if (!cup || cup == (char *)-1) { /* TERM=dumb: no place to redraw at */
        endwin();
        delscreen(s->scr);
        free(s);
        snprintf(why, len, "TERM=%s cannot move the cursor", term);
        return NULL;
    }
    cbreak(); /* keys one by one; ^C still signals */
    noecho();
    nodelay(stdscr, TRUE);
    keypad(stdscr, TRUE);
    curs_set(0);
    hold_stderr(s);
    return s;
}

static void draw(const char *text)
{
    erase();
    int y = 0;
    for (const char *p = text; *p && y < LINES; y++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        mvaddnstr(y, 0, p, (int)(n < (size_t)COLS ? n : (size_t)COLS));
        p += n + (nl != NULL);
    }
    refresh();
}

void latrec_top_screen_draw(latrec_top_screen *s, const char *text)
{
    char *copy = strdup(text);
    if (copy) {
        free(s->last);
        s->last = copy;
    }
    draw(text);
}

int latrec_top_screen_keys(latrec_top_screen *s)
{
    int ch, quit = 0;
    while ((ch = getch()) != ERR) {
        if (ch == 'q' || ch == 'Q') quit = 1;
        else if (ch == KEY_RESIZE && s->last) draw(s->last);
    }
    return quit;
}

void latrec_top_screen_close(latrec_top_screen *s)
{
    if (!s) return;
    endwin();
    delscreen(s->scr);
    release_stderr(s);
    free(s->last);
    free(s);
}
