/*
 * read/shrink_guard.h - a ring file that shrinks while it is read.
 *
 * A ring is read through a shared mapping of the whole file. When the file
 * is truncated under it (a writer's ftruncate, a user's `truncate`, a
 * filesystem that drops it), touching a page past the new end raises
 * SIGBUS, which would kill the reader and every other ring's figures with
 * it. The guard keeps a table of the reader's mappings; its SIGBUS handler,
 * for a fault inside one of them, maps anonymous zero pages over the rest of
 * that mapping (from the faulting page to its end) and returns: the access
 * is repeated, reads zeros, and a zero t_ns is an empty slot, so the pass
 * simply finds no more records there and goes on with the other rings. The
 * table remembers the lowest byte offset replaced, which is how the reader
 * learns and reports that the ring was truncated while read.
 *
 * Why this rather than checking the size before each access: the record
 * path stays one load per slot (no system call, no setjmp per record). The
 * handler uses only mmap and atomic loads and stores. A SIGBUS elsewhere
 * goes to the handler installed before the guard's (or kills the process,
 * as it would have). A program that installs its own SIGBUS handler after
 * opening a ring replaces the guard until the next ring is opened, which
 * puts the guard back in front of that handler.
 */
#ifndef LATREC_READ_SHRINK_GUARD_H
#define LATREC_READ_SHRINK_GUARD_H

#include <stddef.h>
#include <stdint.h>

/* Watch the mapping [map, map + len). Returns a handle > 0, or 0 when the
 * guard could not be set up (out of memory, sigaction failed): the mapping
 * is then read unguarded, as before. */
uint32_t latrec_shrink_guard_add(const void *map, size_t len);

/* Stop watching (before the mapping is unmapped). 0 is ignored. */
void latrec_shrink_guard_remove(uint32_t handle);

/* The lowest byte offset within the mapping replaced by zero pages, or
 * UINT64_MAX when none was (also for handle 0). */
uint64_t latrec_shrink_guard_cut(uint32_t handle);

#endif /* LATREC_READ_SHRINK_GUARD_H */
