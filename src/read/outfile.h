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
 * commit is finish (the data flushed and closed under the temporary name)
 * then place (the rename). A set of files that belong together (convert's
 * CSV files) is finished file by file and placed at once
 * (latrec_outset_place): a failure of any of them places none.
 *
 * latrec's own file: a regular file (not a symbolic link, directory, FIFO
 * or device) that latrec wrote, known in one of two ways:
 *   - LATREC_OUT_OWN_DIR: the caller created the directory itself (a run
 *     directory latrec record made and holds locked): every regular file
 *     in it is latrec's;
 *   - otherwise the directory's marker file ".latrec-output" lists NAME.
 *     Each commit adds NAME to the marker (created O_EXCL|O_NOFOLLOW)
 *     before the rename, so a directory convert wrote into once can be
 *     written again, and `record -f` knows which files of a run directory
 *     convert made; a marker that cannot take the name (a symbolic link,
 *     not a regular file, not writable) fails open at once, naming the
 *     marker, and a file is never placed unlisted.
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
/* Flush and close, still under the temporary name (a write error shows
 * here). 0, or -1 with err "PATH: REASON" (the temporary file removed). */
int  latrec_outfile_finish(latrec_outfile *o, char *err, size_t errlen);
void latrec_outfile_abort(latrec_outfile *o);

/* Finished files placed together: all renamed into place, or (a name
 * refused, the marker refusing them) none, every temporary removed. */
typedef struct latrec_outset {
    latrec_outfile **f; /* malloc'd, the set's own (freed by place and abort) */
    size_t n, cap;
} latrec_outset;
/* Take o (malloc'd, opened, finished or not): 0, or -1 (ENOMEM; o is still
 * the caller's). */
int  latrec_outset_add(latrec_outset *s, latrec_outfile *o);
/* Finish and place every file, in the order added. 0, or -1 with errno
 * and err (one line naming the file or marker and the reason): none was
 * placed, also when a rename is refused after the others were checked (a
 * file that appeared meanwhile): the ones before it are taken back and the
 * files they replaced put back (a replaced file is exchanged, and removed
 * once every file is in place; on a filesystem without exchanges it is
 * replaced at once and cannot come back). The set is empty afterwards
 * either way. */
int  latrec_outset_place(latrec_outset *s, char *err, size_t errlen);
/* Remove every temporary; the set is empty afterwards. */
void latrec_outset_abort(latrec_outset *s);

/* The files an earlier command left in the directory of set s (its first
 * file's) that s does not write: each a regular file the directory's marker
 * lists whose name ends in suffix (convert's ".csv": the tables of an
 * earlier conversion, another run's components). Their names, NUL-separated
 * in a malloc'd buffer, *n of them; NULL when there is none (*n 0: also out
 * of memory). */
char *latrec_outset_stale(const latrec_outset *s, const char *suffix, size_t *n);

/* Remove the n files names lists (NUL-separated) from directory dir: their
 * names are taken out of its marker first, so that a file that cannot be
 * removed stays unlisted (no longer latrec's), never listed without its
 * file; each is removed only while it is a regular file. 0, or -1 with err
 * naming the first that stayed and why. */
int latrec_outdir_remove(const char *dir, const char *names, size_t n, char *err, size_t errlen);

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

/* 1 when `name` in directory dfd is latrec's own file by the marker
 * (a regular file listed in dfd's .latrec-output), else 0. */
int latrec_outdir_lists(int dfd, const char *name);

/* One command at a time writes into an output directory: two conversions
 * at once would each check the directory, then place their files over the
 * other's (the loser's undo taking the winner's names out of the marker).
 * latrec_outdir_lock holds dir with an flock (LOCK_EX, not waiting) on
 * dir/.latrec-lock, opened with O_CREAT|O_NOFOLLOW and never written; a
 * command that finds it held fails at once, "DIR: another latrec is writing
 * into it (it holds DIR/.latrec-lock); ...". A directory no file can be
 * created in is not locked (the output says why it cannot be written).
 * latrec_outdir_unlock removes the lock file (when it is an empty file of
 * one name) and lets it go, as a signal that ends the command does
 * (latrec_outfile_unlink_on_signal); SIGKILL leaves the file, not the lock.
 * 0, or -1 with err naming the directory or the lock file. */
#define LATREC_OUT_LOCK ".latrec-lock"
typedef struct latrec_outlock {
    int fd, dfd; /* the lock file and its directory (-1: none) */
} latrec_outlock;
int  latrec_outdir_lock(const char *dir, latrec_outlock *l, char *err, size_t errlen);
void latrec_outdir_unlock(latrec_outlock *l);
/* The lock file of the lock held now removed, as unlock would (for the
 * handler of latrec_outfile_unlink_on_signal; async-signal-safe). */
void latrec_outdir_unlock_on_signal(void);

/* Create directory `dir` and its missing parents (0755). 0, or -1 with err
 * (a component that exists and is not a directory). */
int latrec_outdir_make(const char *dir, char *err, size_t errlen);

#endif
