/*
 * read/merge.h - streaming k-way merge of many rings by time.
 *
 * Every ok ring is read in its own write order (latrec_ring_next()); the
 * merge repeatedly emits the smallest head among the rings, keyed by
 * (time, ring index, write-order position), so equal times come out in ring
 * index order and the output is the same on every run. A ring's own write
 * order is kept even where stamp_at left a small local inversion. Memory is
 * O(number of rings), allocated once at init; latrec_merge_next() and
 * latrec_merge_fill() never allocate. The rings' heads meet in a
 * tournament (loser) tree: a record costs one key comparison per level,
 * log2(ok rings) rounded up (a ring that is not ok takes no leaf, so a
 * merge of some rings of an array, the others marked rejected, plays a
 * tree of their number), on 64-bit keys while every key of the merge fits
 * beside the ring bits (128-bit keys otherwise; merge.c). Each ring is read
 * one record past its head. latrec_merge_fill() hands out records in
 * batches: the cheap way to read the stream.
 */
#ifndef LATREC_READ_MERGE_H
#define LATREC_READ_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "read/ring.h"
#include "read/wallclock.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    /* Key on CLOCK_REALTIME: each ring's stamps mapped by its own
     * latrec_wallmap (see wallclock.h). Needed to join hosts or boots. */
    LATREC_MERGE_WALL = 1u << 0,
    /* On the monotonic clock, merge even when rings carry different v3
     * boot ids (normally refused: their stamps are not comparable). */
    LATREC_MERGE_ALLOW_MIXED_BOOTS = 1u << 1,
};

/* One merged record. */
typedef struct latrec_merged {
    uint64_t   t_ns; /* the merge key: rec.t_ns, or its wall-clock ns with
                        LATREC_MERGE_WALL */
    uint32_t   ring; /* index into the rings array given to init */
    uint64_t   pos;  /* write-order position within that ring (0 = oldest) */
    latrec_rec rec;  /* the record as stored (rec.t_ns stays monotonic) */
} latrec_merged;

struct latrec_merge_src; /* per ring: cursor, head record, wall map */
struct latrec_merge_ent; /* a ring's head key: (key, ring), or exhausted */

typedef struct latrec_merge {
    const latrec_ring       *rings;
    size_t                   n;
    unsigned                 flags;
    struct latrec_merge_src *src;  /* n_src entries: the ok rings', in ring order (merge.c) */
    uint32_t                *leaf_of; /* n entries: ring i's place in src (UINT32_MAX: none) */
    size_t                   n_src;
    struct latrec_merge_ent *heap; /* the wide tree: 2 * leaves keys of 128 bits
                                      ([0] the winner, [1, leaves) the loser of
                                      each match; merge.c) */
    uint64_t                *tree; /* the narrow tree, the same in 64 bits */
    size_t                   leaves;   /* n rounded up to a power of two */
    unsigned                 shift;    /* log2(leaves) */
    int                      narrow;   /* the narrow tree is the one played */
    int                      widen;    /* a key fell outside it: wide from now on */
    uint64_t                 base, span; /* narrow keys: key - base in [0, span] */
    size_t                   heap_len; /* rings not exhausted */
    latrec_cursor            no_cursor; /* latrec_merge_cursor of a ring left out */
} latrec_merge;

/* Prepare a merge over rings[0..n) (rejected rings are skipped; the array
 * must outlive the merge; n < 2^32). flags: LATREC_MERGE_*. Returns 0, or
 * -1 with one line in err (err may be NULL):
 *   "<ring path>: no t0_real_ns: cannot map to wall clock"  (WALL)
 *   "<a> and <b> come from different boots: merge on the wall clock"
 *                                                  (monotonic, mixed boots)
 *   "out of memory" / "too many rings"
 * latrec_merge_free() is safe after either result. */
int latrec_merge_init(latrec_merge *m, const latrec_ring *rings, size_t n,
                      unsigned flags, char *err, size_t errlen);

/* Next record in merged time order into *out: 1, or 0 when every ring is
 * exhausted. No allocation, O(log n) per record. */
int latrec_merge_next(latrec_merge *m, latrec_merged *out);

/* Up to max records in merged time order into out[0..), each with a merge
 * key <= limit (UINT64_MAX: no limit): what max calls of latrec_merge_next
 * would give, stopping before the first record above limit. Returns the
 * number stored, 0 when every ring is exhausted or the next key is above
 * limit. No allocation. */
size_t latrec_merge_fill(latrec_merge *m, latrec_merged *out, size_t max, uint64_t limit);

/* Following live rings (engine/live.c). */

/* The key of the next record (what latrec_merge_next would give): 1 with
 * *key set, or 0 when every ring is exhausted (for now). */
int latrec_merge_peek(const latrec_merge *m, uint64_t *key);

/* Ring i's cursor (to extend with latrec_ring_poll once the ring ran dry). */
latrec_cursor *latrec_merge_cursor(latrec_merge *m, size_t i);

/* Ring i ran dry and its cursor may have been extended since: take its
 * next record as its head again. 1 when ring i has a head now (also when
 * it never ran dry), 0 when it is still exhausted. */
int latrec_merge_repoll(latrec_merge *m, size_t i);

/* The merge key of ring i's stamp t_ns (itself, or wall-clock ns). */
uint64_t latrec_merge_key(const latrec_merge *m, size_t i, uint64_t t_ns);

/* The ring array grew to n (it may have moved): rings [m->n, n) join the
 * merge, each from its oldest record. 0, or -1 with one line in err:
 * "out of memory", "<ring path>: no t0_real_ns: cannot map to wall clock"
 * (that ring is left out, the others join). Boot ids are not compared
 * here (the caller leaves out a ring of another boot). */
int latrec_merge_add_rings(latrec_merge *m, const latrec_ring *rings, size_t n, char *err, size_t errlen);

/* Free what init allocated; *m is left zeroed. */
void latrec_merge_free(latrec_merge *m);

#ifdef __cplusplus
}
#endif
#endif /* LATREC_READ_MERGE_H */
