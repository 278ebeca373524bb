/*
 * cli/top_launch.h - `latrec top ... -- CMD`: `latrec record` run as a
 * child process (/proc/self/exe record -o DIR [OPTIONS] -- CMD), whose
 * directory top watches live. Its exit status becomes top's.
 *
 * The child's standard output goes to top's standard error, so that top's
 * own output (blocks, JSON Lines) stays clean; while top draws on the
 * terminal its standard error is held (cli/top_screen.h) and the child's
 * standard input is /dev/null (the keys are top's).
 */
#ifndef LATREC_CLI_TOP_LAUNCH_H
#define LATREC_CLI_TOP_LAUNCH_H

#include <signal.h>
#include <sys/types.h>

typedef struct latrec_top_child {
    pid_t pid;
    int done, status; /* reaped; its wait status */
} latrec_top_child;

/* Start `latrec record` with args (NULL ended, without the program name),
 * the signal mask reset to mask. 0, or -1 with the reason printed. */
int latrec_top_launch(latrec_top_child *c, char *const *args, int stdin_null, const sigset_t *mask);

/* Reap the child when it ended: 1 once it has, else 0. */
int latrec_top_child_reap(latrec_top_child *c);

/* Its exit status as record's own (128+N when it died of signal N). */
int latrec_top_child_exit(const latrec_top_child *c);

#endif
