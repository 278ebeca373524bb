/*
 * record/rundir.h - the run directory: create it (keeping a previous one as
 * DIR.old, like perf), choose where the rings live during the run (a tmpfs
 * directory of the run's own), and bring them into DIR/rings at the end.
 *
 * Layout (DESIGN.md, "Runs and the run directory"):
 *   DIR/run.json   manifest (record/manifest.h)
 *   DIR/rings/     the target's rings; during the run a symbolic link to the
 *                  tmpfs directory, so a reader finds them even if latrec dies
 *   DIR/trace.txt  tracefs events with -t
 *
 * Errors: every function returning -1 leaves one line in err naming the path
 * and the reason ("out.old: exists; move it away or use -f").
 */
#ifndef LATREC_RECORD_RUNDIR_H
#define LATREC_RECORD_RUNDIR_H

#include <stddef.h>
#include <stdint.h>

/* Create the run directory `dir` (trailing '/' ignored) and lock it: a run
 * directory in use is held with flock(LOCK_EX) on the directory itself for
 * the whole run (*lock_fd, O_CLOEXEC: the command does not inherit it; the
 * lock goes with latrec, killed or not). When `dir` exists:
 *   - locked by another run: fail, naming it (latrec pid, run id, command
 *     from its run.json); nothing is renamed or deleted;
 *   - its run.json still says "recording" (latrec was killed): one line
 *     says so (unless quiet), then as below;
 *   - DIR.old absent: rename DIR to DIR.old (*rotated = 1);
 *   - DIR.old present, force == 0: fail; DIR.old is never deleted;
 *   - DIR.old present, force != 0: remove DIR itself, which must hold only
 *     what latrec wrote: run.json, trace.txt, sched.latrec (regular files),
 *     rings/ (a link, or regular ring files), and what convert wrote there
 *     (files and directories listed in their .latrec-output, read/outfile.h).
 *     Everything is checked - names and file types - before anything is
 *     deleted; anything else fails naming it, with nothing deleted.
 * Creation is serialised by a short flock on the parent directory, so two
 * runs starting at once cannot both take `dir`. Returns 0 or -1. */
int latrec_rundir_create(const char *dir, int force, int quiet, int *rotated, int *lock_fd, char *err,
                         size_t errlen);

/* Choose and create the directory the rings are written to during the run:
 *   base NULL: /dev/shm when it is tmpfs, else NULL is returned in *out and
 *              note says why (the caller then writes to DIR/rings directly);
 *   base set:  that directory (created if missing).
 * The rings go into "<base>/latrec-<run_id>" (base made absolute; created,
 * mode 0700, must not exist). *tmpfs says whether it is on tmpfs (statfs). Returns 0 or -1. */
int latrec_rundir_rings_tmp(const char *base, const char *run_id, char *out, size_t outlen,
                            int *tmpfs, char *note, size_t notelen, char *err, size_t errlen);

/* The failure log of the run's rings: DIR/rings-failed.log. The program's
 * writer library appends "<ring name>\t<reason>" for every ring it cannot
 * create (src/lib/ring.c; the path reaches it as LATREC_FAILURE_LOG), and
 * the rings collector counts them per role into run.json. */
#define LATREC_RING_FAILURE_LOG "rings-failed.log"

/* Create DIR/rings-failed.log (O_EXCL | O_NOFOLLOW) with room reserved
 * (fallocate, size kept 0) so that the library's lines fit even on a full
 * filesystem; its absolute path into out. Returns 0, or -1 with err. A
 * filesystem without fallocate is not an error (note says so). */
int latrec_rundir_failure_log(const char *dir, char *out, size_t outlen, char *note, size_t notelen, char *err,
                              size_t errlen);

/* Remove the partial rings ("*.part" regular files) of directory `dir`:
 * a program that dies while creating a ring leaves one (src/lib/ring.c).
 * Returns how many, their bytes in *bytes (may be NULL). */
unsigned latrec_rundir_remove_parts(const char *dir, uint64_t *bytes);

/* Make DIR/rings: a symbolic link to `target` when target is set, else a
 * directory. Returns 0 or -1. */
int latrec_rundir_rings_link(const char *dir, const char *target, char *err, size_t errlen);

/* Decide for one ring file whether to bring it: 1 yes, 0 no. */
typedef int (*latrec_ring_filter)(void *ctx, const char *path, const char *name);

typedef struct latrec_collect_stats {
    unsigned moved;   /* renamed (same filesystem) */
    unsigned copied;  /* copied (then unlinked when moving) */
    unsigned skipped; /* refused by the filter */
    unsigned failed;  /* could not be brought (said on stderr) */
    unsigned left;    /* other entries left in the source directory */
} latrec_collect_stats;

/* Bring every "*.latrec" regular file of `src` into DIR/rings. move != 0:
 * all or nothing - every ring is renamed (or copied, across filesystems)
 * into DIR/.rings.new, which then replaces the DIR/rings link, the copied
 * sources are unlinked and `src` removed when empty; when one ring cannot
 * be brought (ENOSPC), the others go back, DIR/rings keeps pointing at src
 * and st->failed counts every ring (all still in src);
 * move == 0: copy only (the rings of a live process). Never overwrites: a
 * name already present in DIR/rings is reported and left. Copies go through
 * "<name>.part" and are renamed into place. Per-file failures are printed
 * ("latrec record: PATH: reason") and counted; returns 0, or -1 when DIR/rings
 * cannot be made or src cannot be read. */
int latrec_rundir_collect(const char *dir, const char *src, int move, latrec_ring_filter filter,
                          void *ctx, latrec_collect_stats *st, char *err, size_t errlen);

#endif
