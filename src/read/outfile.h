/*
 * read/outfile.h - every file latrec writes (convert's CSV files and
 * trace.json, record's run.json) goes through here, so that no output
 * follows a symbolic link or truncates a file latrec did not create.
 * (In src/read because it is the lowest layer both record and the CLI use;
 * libc only, like the reader.)
 *
 *   open    the data goes to a temporary name ".NAME.XXXXXX" in NAME's
 *           directory, created with O_CREAT|O_EXCL|O_NOFOLLOW: nothing that
 *           exists is ever opened for writing. When NAME exists and is not
 *           latrec's own file, open fails at once (errno EEXIST).
 *   commit  the temporary file is renamed to NAME: without replacing
 *           anything when NAME is absent (RENAME_NOREPLACE), over NAME only
 *           when it is latrec's own file. A rename replaces the name, never
 *           writes through it: a link's target or another hard link keeps
 *           its data.
 *   abort   the temporary file is removed.
 *
 * latrec's own file: a regular file (not a symbolic link, directory, FIFO
 * or device) that latrec wrote, known in one of two ways:
 *   - LATREC_OUT_OWN_DIR: the caller created the directory itself (a run
 *     directory latrec record made and holds locked): every regular file
 *     in it is latrec's;
 *   - otherwise the directory's marker file ".latrec-output" lists NAME.
 *     Each commit adds NAME to the marker (created O_EXCL|O_NOFOLLOW), so a
 *     directory convert wrote into once can be written again, and
 *     `record -f` knows which files of a run directory convert made.
 *
 * Errors: -1 with errno and a one-line reason in err naming the path.
 */
#ifndef LATREC_READ_OUTFILE_H
#define LATREC_READ_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#define LATREC_OUT_MARKER ".latrec-output"

enum { LATREC_OUT_OWN_DIR = 1 };

typedef struct latrec_outfile {
    FILE    *f;          /* write the data here */
    int      dfd;        /* NAME's directory */
    unsigned flags;
    char     path[4200]; /* as given, for messages */
    char     name[256];
    char     tmp[280];
} latrec_outfile;

int  latrec_outfile_open(latrec_outfile *o, const char *path, unsigned flags, char *err, size_t errlen);
/* Flush, close and rename into place. 0, or -1 (the temporary file is
 * removed, NAME is left as it was). */
int  latrec_outfile_commit(latrec_outfile *o, char *err, size_t errlen);
void latrec_outfile_abort(latrec_outfile *o);

/* Remove the temporaries of files still open when a signal ends the process
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1/2, SIGXCPU,
 * SIGVTALRM, SIGPROF, SIGIO, SIGPWR, the real-time ones: every one whose
 * default ends it without a fault); then it dies of that signal as it
 * would have. SIGXFSZ (a file-size limit) is ignored instead, so that the
 * write fails with EFBIG and the caller names the file. Signals the
 * process ignores or catches keep their handler.
 * For commands that write files and have no signal handling of their own
 * (convert, report -o). */
void latrec_outfile_unlink_on_signal(void);

/* strerror(e), except EEXIST: "exists and latrec did not write it ...
 * left alone" (for callers that keep only errno). */
const char *latrec_outfile_strerror(int e);

/* 1 when `name` in directory dfd is latrec's own file by the marker
 * (a regular file listed in dfd's .latrec-output), else 0. */
int latrec_outdir_lists(int dfd, const char *name);

/* Create directory `dir` and its missing parents (0755). 0, or -1 with err
 * (a component that exists and is not a directory). */
int latrec_outdir_make(const char *dir, char *err, size_t errlen);

#endif
