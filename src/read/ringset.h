/*
 * read/ringset.h - every ring of one run (or of several directories).
 *
 * A directory is read as:
 *   a run directory, when DIR/rings/ is a directory: every "*.latrec" in DIR/rings,
 *     then DIR/sched.latrec if it exists;
 *   otherwise any directory of rings: every "*.latrec" in DIR.
 * Names ending in ".part" (and anything not ending in ".latrec") are
 * ignored. Within a directory rings are sorted by file name (strcmp), so the
 * ring order, and every index into it, is deterministic; several directories
 * keep the order they were given in. Ring files are opened O_NOFOLLOW: a
 * symlinked ring is kept in the set, rejected ("symbolic link: not
 * followed"). A rejected file keeps its reason and the good rings beside it
 * still load.
 */
#ifndef LATREC_READ_RINGSET_H
#define LATREC_READ_RINGSET_H

#include <stddef.h>

#include "read/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct latrec_ringset {
    latrec_ring *rings; /* n rings, ok and rejected, in load order */
    size_t       n;
    size_t       n_ok;  /* rings with status LATREC_RING_OK */
    int          guess; /* opened by latrec_ringset_open_guess with guess set */
} latrec_ringset;

/* Load the rings of `ndirs` directories into *set (caller storage, fully
 * (re)initialised). Returns 0 on success (some rings may still be rejected:
 * check each ring's status), or a negative errno with one line naming the
 * directory in err (err may be NULL), after which *set is empty:
 *   -ENOENT  "DIR: no such directory"
 *   -ENOTDIR "DIR: not a directory"
 *   -EACCES  "DIR: permission denied" (also for EPERM)
 *   -ENODATA "DIR: no .latrec rings"    (nothing to load in that directory)
 *   -ENOMEM  "DIR: out of memory"
 *   other    "DIR: <strerror>"
 *   -EINVAL  "no directory given"       (ndirs == 0)
 * The caller prints "latrec CMD: <err>". Free with latrec_ringset_close(). */
int latrec_ringset_open(latrec_ringset *set, const char *const *dirs,
                        size_t ndirs, char *err, size_t errlen);

/* The same with the rings' open-time scans on up to `threads` threads
 * (at most two are used, for a directory of 4 rings or more): the same set
 * in the same order. */
int latrec_ringset_open_on(latrec_ringset *set, const char *const *dirs,
                           size_t ndirs, int threads, char *err, size_t errlen);

/* latrec_ringset_open_on(), each ring opened by latrec_ring_openat_guess()
 * when guess is not 0: a ring the header describes is not scanned
 * (read/ring.h, enum latrec_ring_derived), and the reader checks what it
 * reads of it. */
int latrec_ringset_open_guess(latrec_ringset *set, const char *const *dirs, size_t ndirs, int threads, int guess,
                              char *err, size_t errlen);

/* latrec_ringset_open() for one directory. */
int latrec_ringset_open_dir(latrec_ringset *set, const char *dir, char *err,
                            size_t errlen);

/* Close every ring and free the set; *set is left empty. Safe twice. */
void latrec_ringset_close(latrec_ringset *set);

/* 1 when two ok rings of the set come from different boots (see
 * latrec_ring_boot_differs()), storing their indexes in *a and *b (either
 * pointer may be NULL); 0 when the monotonic stamps may be merged as they
 * are. */
int latrec_ringset_boots_differ(const latrec_ringset *set, size_t *a, size_t *b);

#ifdef __cplusplus
}
#endif
#endif /* LATREC_READ_RINGSET_H */
