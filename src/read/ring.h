/*
 * read/ring.h - one ALR1 ring file: open, validate, derive, iterate.
 *
 * A ring is mapped read-only and MAP_SHARED, so a ring that a live writer is
 * still filling can be read. A ring file that shrinks while it is read
 * does not kill the reader (read/shrink_guard.h): the slots past the new
 * end read as empty and latrec_ring_truncated() says so. The header is copied once at open (a live
 * writer rewrites rec_count and the t1 pair); the records are read straight
 * from the mapping. All times are CLOCK_MONOTONIC nanoseconds unless a name
 * says otherwise. The on-disk contract is latrec-format(5) and
 * include/latrec/format.h.
 *
 * Header validation (a failure rejects the file: status
 * LATREC_RING_REJECTED, `error` holds one line without the path, and the
 * caller prints "latrec CMD: <path>: <error>"). Checked in this order:
 *   path ends in ".part"      "partial ring (.part): not opened"
 *   a symlink                 "symbolic link: not followed"
 *   not a regular file        "not a regular file"
 *   size < 4096               "shorter than a header: 100 bytes"
 *   magic byte-swapped        "byte-swapped ring (written on an opposite-endian host)"
 *   magic not ALR1 or ALRT    "bad magic 0x31524C42 (not a latrec ring)"
 *   version not 1..3          "unsupported version 7"
 *   entries == 0              "entries is zero"
 *   entries not a power of 2  "entries 100 is not a power of two"
 *   entries > 2^32            "absurd entries 8589934592 (more than 2^32)"
 *   rec_size                  "rec_size 64, expected 32". Version 1 has no
 *                             rec_size field (its bytes are pad): 0 or 32 is
 *                             accepted there. Version 2 and 3 writers always
 *                             store 32, so there 0 is an error like any other
 *                             value.
 *   name without a NUL        "name is not NUL-terminated (64 bytes)"
 *   file too short for the records
 *                             "truncated: header says 4096 entries (135168
 *                             bytes) but the file has 4330 bytes". A longer
 *                             file is accepted; the extra bytes are ignored.
 *   clock_id not 0 or 1       "clock_id 4: stamps not on CLOCK_MONOTONIC (1), not
 *                             comparable with the other rings" (checked after the
 *                             timebase block: the clock a TSC ring converts to)
 * The v3 host and catalog strings are copied up to their field length and
 * always NUL-terminated here; they are never a reason to reject.
 * The timebase block (v3, checked last; read/timebase.h has the conversion):
 *   ALR1 with timebase != 0   "timebase 1 under the ALR1 magic (a TSC ring says ALRT)"
 *   ALRT with version < 3     "TSC ring (ALRT) of version 2 (3 needed)"
 *   ALRT with timebase != 1   "unknown timebase 2"
 *   ALRT, < 2 usable pairs    "TSC ring with 1 usable calibration pairs (2 needed)"
 * A TSC ring's stamps are converted to CLOCK_MONOTONIC ns everywhere below
 * (derivation, first/last records, extremes, iteration); pairs dropped as
 * out of order leave the warning "N TSC calibration pairs out of order,
 * ignored".
 *
 * Derivation (done once at open, one pass over the slots, read from the
 * mapping a chunk at a time and each chunk given back after; ring.c):
 *   valid      records with t_ns != 0.
 *   full       valid == entries. A ring that is not full never wrapped,
 *              whatever its timestamps do: its slot order is its write order.
 *   descents   every i (over valid records in slot order) with
 *              t[i+1] < t[i]; its drop is t[i] - t[i+1].
 *   span       max t_ns - min t_ns over the valid records.
 *   tol        max(LATREC_INVERSION_MIN_NS = 1 ms, span / 100): a drop up to
 *              tol is a local inversion (stamp_at stores a time taken
 *              earlier; a few us is normal) and never a wrap point.
 * Wrap recovery, full ring only:
 *   The wrap candidate is the descent with the largest drop (the first one
 *   on a tie). At the real wrap point the ring's newest record is followed
 *   by its oldest, so that drop is about the whole span; the candidate
 *   counts only if drop >= span / 2 (it need not exceed tol: a ring filled
 *   in less than 2 ms still wraps). The significant descents are the
 *   candidate (if it counts) plus every other descent with drop > tol.
 *   - exactly one significant descent and it is the candidate: wrapped;
 *     start_slot is the slot after it, newest_slot the slot of it.
 *   - two or more significant descents: not a single-writer ring (or torn):
 *     multi_writer = 1, warning "not a single-writer ring (N descents)",
 *     slot order kept, wrapped = 0.
 *   - otherwise no wrap shows in the timestamps: start_slot 0, newest_slot
 *     entries - 1, and wrapped = (rec_count > entries) (the writer wrapped
 *     exactly at the slot-0 boundary).
 * A ring that is not full gets the same multi-writer check (two or more
 * descents with drop > tol); it is never wrapped either way, with one
 * exception: the slot being written.
 * The slot being written. This project's writer clears a slot's t_ns before
 * rewriting it, so a wrapped ring whose writer died (or is live) mid-stamp
 * has exactly one empty slot with valid records after it: the newest record
 * is just before it and the oldest just after it (wrapped = 1, lost =
 * written - valid). When that empty slot is the last one, slot order is
 * write order and the ring counts as wrapped when rec_count >= entries.
 *
 * Loss. The writer stores rec_count exactly at heartbeat, close and exit,
 * and on the stamp path (a stamp at a write index that is a multiple of
 * entries / 2 first stores that index), so the exact number written is
 *   written = the smallest n >= max(rec_count, valid) with
 *             (n - 1) mod entries == newest_slot
 *   lost    = written - entries (0 when written <= entries)
 * For a ring that is not full, written = newest_slot + 1 and lost = 0
 * exactly (if rec_count says more, a warning says so). For a full ring with
 * rec_count < entries (a killed libE3 writer leaves 0; an old writer's stale
 * heartbeat), `written` is only a lower bound: lost_lower_bound = 1 and the
 * true count is `written` plus a multiple of entries. v1/v2 writers that do
 * not refresh rec_count on the stamp path can also leave a stale rec_count
 * >= entries; that cannot be told from the file. A multi-writer ring gets
 * written = max(rec_count, valid), lost = max(0, rec_count - entries), and
 * lost_lower_bound = (rec_count < entries). A rec_count so large that
 * `written` would not fit in 64 bits gives written = rec_count and the
 * warning "rec_count N is implausible: loss is not exact". Every count
 * stays within LATREC_COUNT_MAX (2^63 - 1, what a signed 64-bit JSON
 * integer holds): a rec_count at or beyond it is implausible too (2^63
 * stamps take centuries), written and lost saturate there and
 * lost_lower_bound is set, so sums and outputs never wrap.
 *
 * Torn slots. A slot with a payload (sc, aux or aux2 not zero) but t_ns 0
 * holds a stamp that was never published: the writer was killed between
 * clearing t_ns and storing it again, or (live ring) is storing it now.
 * Such a slot is not a record; `torn` counts them, and they are in no
 * other count.
 *
 * Iteration (write order): latrec_ring_next() below. It acquire-loads t_ns
 * first, skips a zero, copies sc, aux, aux2, then loads t_ns again after an
 * acquire fence (the writer's contract in <latrec/latrec.h>): one plain
 * pass, no allocation, no indirect call. The slots visited are fixed at
 * open (start_slot, iter_len): on a live ring, records published later in
 * slots that were still empty are not visited (open the ring again to see
 * them).
 *
 * Lapped slots (live ring). A visited slot the writer rewrote since the
 * open no longer holds the record of its write-order position: the writer
 * lapped the reader there. Such a slot is skipped and counted in the
 * cursor's `lapped`: its t_ns changed between the two loads (rewritten
 * while copied), or it is later than every stamp the open saw (max_t_ns;
 * a stamp taken before the open and stored after it, latrec_stamp_at()
 * with an old time, is read as a record; a ring struct filled by hand with
 * max_t_ns 0 has no such bound). A slot found with t_ns 0 (never
 * written, torn, or being rewritten right now) is skipped uncounted. A
 * ring that is not written while read has no lapped slot.
 */
#ifndef LATREC_READ_RING_H
#define LATREC_READ_RING_H

#include <stddef.h>
#include <stdint.h>

#include "latrec/format.h"
#include "read/timebase.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "latrec reads little-endian rings on little-endian hosts only"
#endif

#define LATREC_REASON_LEN      160
#define LATREC_INVERSION_MIN_NS 1000000ull /* floor of the inversion tolerance */
#define LATREC_MAX_ENTRIES     (1ull << 32)
#define LATREC_COUNT_MAX       ((uint64_t)INT64_MAX) /* counts saturate here */

enum latrec_ring_status {
    LATREC_RING_OK = 0,       /* a ring: header valid, records readable */
    LATREC_RING_REJECTED = 1, /* not a ring; `error` says why */
};

typedef struct latrec_ring {
    /* identity */
    char       *path;     /* as given to open (owned copy) */
    const char *basename; /* last path component, points into path */
    int         status;   /* enum latrec_ring_status */
    char        error[LATREC_REASON_LEN];   /* why rejected; "" when ok */
    char        warning[LATREC_REASON_LEN]; /* non-fatal remark; "" if none */
    int         multi_writer; /* >= 2 significant descents (see above) */

    /* header, all versions (fields a version lacks are zero / empty) */
    uint32_t magic;
    uint32_t version;
    uint64_t entries;
    uint64_t rec_count;
    uint64_t t0_mono_ns;
    uint64_t t0_real_ns;
    char     name[LATREC_NAME_LEN + 1];
    uint32_t rec_size;          /* 32 (a v1 ring's 0 reads as 32) */
    uint32_t clock_ns_per_call; /* ns; 0 = not measured (and in v1) */
    uint64_t t1_mono_ns;        /* 0 in v1 */
    uint64_t t1_real_ns;        /* 0 in v1 */
    /* v3 only; zero / empty in v1 and v2 rings */
    uint32_t pid;
    uint32_t tid;
    uint32_t flags;    /* LATREC_F_* */
    uint32_t clock_id; /* LATREC_CLOCK_ID_MONOTONIC, 0 = unknown */
    uint8_t  boot_id[16];
    char     host[LATREC_HOST_LEN + 1];
    char     catalog[LATREC_CATALOG_LEN + 1];
    /* v3 timebase block: LATREC_TIMEBASE_MONO, or _TSC for an "ALRT" ring,
     * whose stamps every accessor here already gives as CLOCK_MONOTONIC ns
     * (the raw counts are only in the mapping) */
    uint32_t timebase;
    uint64_t cal_taken;        /* calibration pairs the writer took */
    latrec_tsc_map *tsc;       /* the conversion (NULL in a clock ring) */

    /* derived at open (all zero for a rejected ring) */
    uint64_t file_size;    /* bytes */
    uint64_t valid;        /* records with t_ns != 0 */
    uint64_t torn;         /* slots with a payload but t_ns 0 (see above) */
    int      wrapped;      /* the writer went round the ring at least once */
    uint64_t descents;     /* all descents in slot order */
    uint64_t significant_descents; /* see the rule above */
    uint64_t start_slot;   /* slot of the oldest record (first in write order) */
    uint64_t newest_slot;  /* slot of the newest record */
    uint64_t written;      /* records ever written (exact unless lost_lower_bound) */
    uint64_t lost;         /* written - entries, or 0 */
    int      lost_lower_bound; /* written and lost are lower bounds */
    latrec_rec first_rec;  /* first record in write order (zero if valid == 0) */
    latrec_rec last_rec;   /* last record in write order (zero if valid == 0) */
    uint64_t first_t_ns;   /* first_rec.t_ns */
    uint64_t last_t_ns;    /* last_rec.t_ns */
    uint64_t min_t_ns;     /* smallest t_ns (0 if valid == 0) */
    uint64_t max_t_ns;     /* largest t_ns (0 if valid == 0) */
    uint64_t min_seq;      /* smallest 48-bit seq (0 if valid == 0) */
    uint64_t max_seq;      /* largest 48-bit seq (0 if valid == 0) */
    uint64_t stage_counts[256]; /* valid records per stage id */

    /* the mapping; read through latrec_ring_next() */
    const latrec_rec *recs; /* slot 0; NULL for a rejected ring */
    uint64_t mask;          /* entries - 1 */
    uint64_t iter_len;      /* slots to visit from start_slot (write order) */
    void    *map;
    size_t   map_len;
    uint32_t guard;         /* read/shrink_guard.h handle; 0 = unguarded */

    /* following a live ring (latrec_ring_poll, read/ring_live.c) */
    uint64_t live_base;     /* write index of cursor position 0 */
    int      live_init;     /* live_base set (at the first poll) */
    int      live_closed;   /* the writer closed the ring (LATREC_F_CLEAN_CLOSE) */
    uint64_t rc_excess;     /* what the header's rec_count said beyond the records
                             * the open found (a ring that never wrapped): left
                             * out of every rec_count a poll reads */

    /* how the derived fields were found (enum latrec_ring_derived) */
    int      derived;
} latrec_ring;

/* A position in one ring's write order. `pos` is the index of the next slot
 * to visit, counted from start_slot; after latrec_ring_next() returns 1 the
 * record just returned sits at write-order position pos - 1, slot
 * (start_slot + pos - 1) & mask. */
typedef struct latrec_cursor {
    uint64_t pos;
    uint64_t lapped; /* visited slots rewritten since the open, skipped */
} latrec_cursor;

/* How a ring's derived fields were found ("Derivation" above).
 *   SCANNED   by the pass over every slot at open (latrec_ring_open).
 *   GUESSED   from the header and a few slots (latrec_ring_openat_guess):
 *             a ring its writer closed cleanly (LATREC_F_CLEAN_CLOSE) with
 *             0 < rec_count <= entries, not a TSC ring, slot 0 and slot
 *             rec_count - 1 holding stamps in order, and every slot from
 *             rec_count on all zero (those are scanned, no pass reads
 *             them; a hole of the file, which reads as zero, is skipped,
 *             as lseek's SEEK_DATA shows it). The guess is what the scan gives when slots
 *             [0, rec_count) all hold records in time order: valid =
 *             written = rec_count, start_slot 0, iter_len rec_count,
 *             min_t_ns the first stamp, max_t_ns the last, no descent,
 *             nothing torn, lost or wrapped, no warning. stage_counts,
 *             min_seq and max_seq are not derived (zero). A pass that
 *             reads the ring checks it (latrec_ring_guess_holds) before
 *             anything it computed is used; when it does not hold,
 *             latrec_ring_rescan derives the ring as open would have.
 *   VERIFIED  a guess that a pass found true (latrec_ring_guess_holds). */
enum latrec_ring_derived {
    LATREC_RING_SCANNED = 0,
    LATREC_RING_GUESSED = 1,
    LATREC_RING_VERIFIED = 2,
};

/* Open, validate and derive the ring file at `path` (relative to the current
 * directory or absolute). The file is opened O_NOFOLLOW: a symlinked ring is
 * rejected. `r` is caller storage and is fully (re)initialised.
 * Returns 0 when the ring is ok, -1 when it is rejected (r->status is
 * LATREC_RING_REJECTED and r->error holds the reason). In both cases the
 * caller must call latrec_ring_close(r). */
int latrec_ring_open(latrec_ring *r, const char *path);

/* As latrec_ring_open(), but `name` is resolved relative to the directory
 * fd `dirfd` (AT_FDCWD allowed); `path` is what r->path records and what
 * the caller will print (e.g. "run/rings/x.latrec"). Same returns. */
int latrec_ring_openat(latrec_ring *r, int dirfd, const char *name,
                       const char *path);

/* As latrec_ring_open() for an already open file descriptor (e.g. a memfd).
 * `fd` is not closed and may be closed once this returns; the mapping keeps
 * the file. `path` is only recorded (it may be any label, not opened; the
 * ".part" rule still applies to it). Same returns. */
int latrec_ring_open_fd(latrec_ring *r, int fd, const char *path);

/* As latrec_ring_openat(), but a ring the header and a few slots can
 * describe is not scanned: r->derived is LATREC_RING_GUESSED then (see
 * enum latrec_ring_derived), else the ring is scanned as by
 * latrec_ring_openat (LATREC_RING_SCANNED). Same returns. */
int latrec_ring_openat_guess(latrec_ring *r, int dirfd, const char *name,
                             const char *path);

/* latrec_ring_open_fd() by the guess, as latrec_ring_openat_guess(). */
int latrec_ring_open_fd_guess(latrec_ring *r, int fd, const char *path);

/* A pass read a guessed ring to its end in write order: `read` records
 * (kept or dropped before a start stamp), each stamp at or above the one
 * before it, and `lapped` slots skipped. The scan would have derived the
 * same fields exactly when read == r->valid and lapped == 0: then 1, and
 * r->derived becomes LATREC_RING_VERIFIED; else 0. (Stamps in order are
 * the caller's to check: a merge's output in time order shows them.) */
int latrec_ring_guess_holds(latrec_ring *r, uint64_t read, uint64_t lapped);

/* Derive a guessed ring by the scan, as latrec_ring_openat would have
 * (fields, warning); r->derived becomes LATREC_RING_SCANNED. A ring that
 * is not guessed is left as it is. */
void latrec_ring_rescan(latrec_ring *r);

/* Unmap and free what open allocated; r is left zeroed. Safe on a rejected
 * ring, on a zeroed struct and twice. */
void latrec_ring_close(latrec_ring *r);

/* 1 when the file shrank under the ring's mapping while it was read (so
 * far): slots from *readable_bytes (a file offset; may be NULL) on were
 * read as empty. 0 otherwise. Ask after a pass: a pass that touched no
 * page past the new end sees every record it had. */
int latrec_ring_truncated(const latrec_ring *r, uint64_t *readable_bytes);

/* 1 when the ring carries a v3 boot id (not all zero), 0 when unknown. */
int latrec_ring_boot_known(const latrec_ring *r);

/* 1 when both rings carry a known (not all-zero) v3 boot id and the ids
 * differ: their monotonic stamps must not be merged without wall-clock
 * mapping. 0 otherwise (same boot, or one of them unknown). */
int latrec_ring_boot_differs(const latrec_ring *a, const latrec_ring *b);

/* Start a write-order pass over `r`. */
static inline void latrec_ring_cursor_init(latrec_cursor *c)
{
    c->pos = 0;
    c->lapped = 0;
}

/* Next valid record of `r` in write order into *out. Returns 1 with *out
 * filled, 0 at the end (and for a rejected ring). t_ns is acquire-loaded
 * before sc/aux/aux2 are copied and loaded again after them, so a record a
 * live writer is publishing is either skipped (t_ns still 0) or seen whole,
 * and a slot it rewrites meanwhile is skipped and counted in c->lapped
 * (see "Lapped slots" above). */
/* What latrec_ring_next() reads of a ring, apart: a reader that holds a
 * copy of them (read/merge.c keeps one per ring, next to its head, and
 * takes it again whenever a poll may have changed them) visits the same
 * records in the same way. */
typedef struct latrec_ring_iter {
    const latrec_rec     *recs;   /* r->recs */
    uint64_t              start;  /* r->start_slot */
    uint64_t              mask;   /* r->mask */
    uint64_t              len;    /* r->iter_len */
    uint64_t              max_t;  /* r->max_t_ns (0: no bound) */
    const latrec_tsc_map *tsc;    /* r->tsc */
} latrec_ring_iter;

static inline void latrec_ring_iter_of(const latrec_ring *r, latrec_ring_iter *it)
{
    it->recs = r->recs;
    it->start = r->start_slot;
    it->mask = r->mask;
    it->len = r->iter_len;
    it->max_t = r->max_t_ns;
    it->tsc = r->tsc;
}

/* latrec_ring_next() on the fields of `it`. */
static inline __attribute__((always_inline)) int latrec_ring_iter_next(const latrec_ring_iter *it, latrec_cursor *c,
                                                                   latrec_rec *out)
{
    const latrec_rec *recs = it->recs;
    uint64_t pos = c->pos;
    while (pos < it->len) {
        const latrec_rec *s = &recs[(it->start + pos) & it->mask];
        uint64_t t = __atomic_load_n(&s->t_ns, __ATOMIC_ACQUIRE);
        pos++;
        if (t == 0)
            continue;
        const uint64_t sc = __atomic_load_n(&s->sc, __ATOMIC_RELAXED);
        const uint64_t aux = __atomic_load_n(&s->aux, __ATOMIC_RELAXED);
        const uint64_t aux2 = __atomic_load_n(&s->aux2, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__builtin_expect(__atomic_load_n(&s->t_ns, __ATOMIC_RELAXED) != t, 0)) {
            c->lapped++;
            continue;
        }
        if (__builtin_expect(it->tsc != NULL, 0))
            t = latrec_tsc_to_mono(it->tsc, t);
        if (__builtin_expect(t > it->max_t, 0) && it->max_t) {
            c->lapped++;
            continue;
        }
        out->sc = sc;
        out->t_ns = t;
        out->aux = aux;
        out->aux2 = aux2;
        c->pos = pos;
        return 1;
    }
    c->pos = pos;
    return 0;
}

static inline int latrec_ring_next(const latrec_ring *r, latrec_cursor *c,
                                   latrec_rec *out)
{
    latrec_ring_iter it;
    latrec_ring_iter_of(r, &it);
    return latrec_ring_iter_next(&it, c, out);
}

/* Follow a ring a writer is still stamping (read/ring_live.c). Call it
 * when `c` ran dry (latrec_ring_next returned 0; earlier it does nothing):
 * the records written since the open or the last poll become the next
 * positions of `c`, and the ring's written, wrapped, rec_count, max_t_ns
 * and last_t_ns follow the writer. lost, valid, stage_counts and the
 * first record stay as at open: lost counts what was overwritten before
 * the open, the cursor's lapped what was overwritten under the reader.
 *
 * Where the writer is: the header's rec_count R (the writer refreshes it
 * every entries / 2 records, so the write index W is in [R, R + entries /
 * 2]), then the slots from max(R, the end seen so far) on, while each holds
 * a nonzero t_ns not below the one before it: the first that does not (the
 * slot being written, or a record of the previous lap) is W. Records below
 * R are taken as written whatever their stamps (latrec_stamp_at() with an
 * earlier time); above R such a record waits until rec_count passes it.
 *
 * Lapping: when W is more than entries ahead of the cursor, the records
 * between were overwritten before they were read: they are counted in
 * c->lapped and the cursor moves to the oldest record still there (one
 * further when slot W is being rewritten right now). The slots the cursor
 * then visits are checked as latrec_ring_next does (a t_ns above the
 * poll's newest stamp, or changed while copied: lapped). A look at the
 * slots is sound when the writer moved less than half a ring during it,
 * which an unchanged rec_count proves; otherwise the poll looks again (8
 * looks at most: a writer crossing half a ring during each of them can
 * still have records of one lap read under the positions of the lap
 * before). With the writer paused while the poll looks, the count is exact.
 *
 * Returns the number of new positions (lapped ones included), 0 when
 * nothing was written since (or the ring is rejected, or not a
 * single-writer ring). The header is read through the mapping: v1/v2
 * writers that do not refresh rec_count on the stamp path are followed by
 * their stamps alone. */
uint64_t latrec_ring_poll(latrec_ring *r, latrec_cursor *c);

#ifdef __cplusplus
}
#endif
#endif /* LATREC_READ_RING_H */
