/*
 * ring.c - open, validate and derive one ALR1 ring (rules in ring.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "read/ring_impl.h"
#include "read/shrink_guard.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* Fresh struct holding an owned copy of path. -1 on allocation failure
 * (the ring is then rejected with "out of memory"). */
static int ring_init(latrec_ring *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->path = strdup(path ? path : "");
    if (!r->path) {
        r->basename = "";
        return latrec_ring_reject(r, "out of memory");
    }
    const char *slash = strrchr(r->path, '/');
    r->basename = slash ? slash + 1 : r->path;
    return 0;
}

/* A stamp as CLOCK_MONOTONIC ns: converted in a TSC ring. */
static inline uint64_t ring_ns(const latrec_ring *r, uint64_t raw)
{
    return r->tsc ? latrec_tsc_to_mono(r->tsc, raw) : raw;
}

/* The slots are read in order straight from the mapping, a chunk at a
 * time, and each chunk's pages are given back once it is read
 * (MADV_DONTNEED: the page cache keeps them), so a scan at open holds
 * about one chunk of the ring mapped, and the pass after it maps each page
 * again as it goes (read/ring_window.h). A copy through pread() costs the
 * kernel more than the faults do. A file that shrinks meanwhile reads as
 * empty slots past its end (read/shrink_guard.h). */
enum { SCAN_CHUNK = 1u << 15, /* slots: 1 MiB */
       SCAN_AHEAD = 64 };     /* slots: 2 KiB */

static void scan_done(const latrec_ring *r, uint64_t from, uint64_t to)
{
    const uintptr_t page = 4096, lo = (uintptr_t)r->map;
    uintptr_t a = (uintptr_t)(r->recs + from) & ~(page - 1), b = (uintptr_t)(r->recs + to) & ~(page - 1);
    if (to == r->entries) b = (lo + r->map_len + page - 1) & ~(page - 1);
    if (a < lo) a = lo;
    if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
}

/* What the derivation pass gathers over the slots in slot order. */
struct scan_state {
    uint64_t valid, descents, torn;
    uint64_t first_slot, last_slot, prev, prev_slot;
    uint64_t max_drop, max_drop_slot;
    uint64_t min_t, max_t, min_seq, max_seq;
    uint64_t hole_slot; /* first slot without a valid record (entries: none) */
    uint64_t stages[2][256]; /* per stage id, two tables by slot parity (no
                                store-to-load chain between neighbours) */
};

/* Slots [i0, i1) into st; tsc: convert the stamps (a TSC ring). */
static inline __attribute__((always_inline)) void scan_slots(const latrec_ring *r, struct scan_state *st,
                                                            uint64_t i0, uint64_t i1, int tsc)
{
    const latrec_rec *recs = r->recs;
    uint64_t valid = st->valid, descents = st->descents, prev = st->prev, prev_slot = st->prev_slot;
    uint64_t min_t = st->min_t, max_t = st->max_t, min_seq = st->min_seq, max_seq = st->max_seq;
    for (uint64_t i = i0; i < i1; i++) {
        const latrec_rec *cur = &recs[i];
        /* the hardware prefetcher stops at each page: ask for the line
         * SCAN_AHEAD slots on (past the mapping's end it is only a hint) */
        if ((i & 1) == 0) __builtin_prefetch((const void *)((uintptr_t)cur + SCAN_AHEAD * sizeof *cur));
        uint64_t t = __atomic_load_n(&cur->t_ns, __ATOMIC_RELAXED);
        const uint64_t sc = cur->sc;
        if (__builtin_expect(t == 0, 0)) {
            if (st->hole_slot == r->entries) st->hole_slot = i;
            st->torn += (sc | cur->aux | cur->aux2) != 0;
            continue;
        }
        if (tsc) t = latrec_tsc_to_mono(r->tsc, t);
        if (__builtin_expect(valid == 0, 0)) {
            st->first_slot = i;
        } else if (__builtin_expect(t < prev, 0)) {
            descents++;
            if (prev - t > st->max_drop) {
                st->max_drop = prev - t;
                st->max_drop_slot = prev_slot;
            }
        }
        valid++;
        prev = t;
        prev_slot = i;
        min_t = t < min_t ? t : min_t;
        max_t = t > max_t ? t : max_t;
        const uint64_t seq = latrec_rec_seq(sc);
        min_seq = seq < min_seq ? seq : min_seq;
        max_seq = seq > max_seq ? seq : max_seq;
        st->stages[i & 1][latrec_rec_stage(sc)]++;
    }
    st->valid = valid;
    st->descents = descents;
    st->prev = prev;
    st->prev_slot = prev_slot;
    st->last_slot = valid ? prev_slot : 0;
    st->min_t = min_t;
    st->max_t = max_t;
    st->min_seq = min_seq;
    st->max_seq = max_seq;
}

/* The next run of slots whose bytes fd's file holds, from slot i on (lseek
 * SEEK_DATA and SEEK_HOLE): [*from, *to); *from == entries when only a hole
 * follows. The slots between i and *from are a hole, so read as zero.
 * [i, entries) when fd is -1 or the filesystem cannot say. */
static void data_run(const latrec_ring *r, int fd, uint64_t i, uint64_t *from, uint64_t *to)
{
    *from = i;
    *to = r->entries;
    if (fd < 0) return;
    const off_t at = (off_t)(LATREC_HDR_LEN + i * LATREC_REC_SIZE);
    const off_t data = lseek(fd, at, SEEK_DATA);
    if (data < 0) {
        if (errno == ENXIO) *from = r->entries;
        return;
    }
    const off_t hole = data >= at ? lseek(fd, data, SEEK_HOLE) : -1;
    if (data < at || hole <= data) return; /* not said: read it all */
    const uint64_t a = ((uint64_t)data - LATREC_HDR_LEN) / LATREC_REC_SIZE; /* the slot it starts in */
    const uint64_t b = ((uint64_t)hole - LATREC_HDR_LEN + LATREC_REC_SIZE - 1) / LATREC_REC_SIZE;
    *from = a > i ? (a < r->entries ? a : r->entries) : i;
    *to = b < r->entries ? b : r->entries;
}

/* The derivation pass over every slot. A hole of fd's file is not read: its
 * slots are empty, and all an empty slot adds to the scan is the first
 * hole (a sparse ring of 2^30 entries would cost its 32 GiB of zeros). */
static void scan_ring(const latrec_ring *r, struct scan_state *st, int fd)
{
    memset(st, 0, sizeof *st);
    st->min_t = st->min_seq = UINT64_MAX;
    st->hole_slot = r->entries;
    uint64_t run_to = 0; /* the end of the run of data being read */
    for (uint64_t i = 0, end; i < r->entries; i = end) {
        if (i >= run_to) {
            uint64_t from;
            data_run(r, fd, i, &from, &run_to);
            if (from > i) {
                if (st->hole_slot == r->entries) st->hole_slot = i;
                end = from;
                run_to = 0;
                continue;
            }
        }
        end = run_to - i < SCAN_CHUNK ? run_to : i + SCAN_CHUNK;
        if (r->tsc)
            scan_slots(r, st, i, end, 1);
        else
            scan_slots(r, st, i, end, 0);
        scan_done(r, i, end);
    }
}

/* Descents with drop > tol, skipping slot `skip` (the wrap candidate, or
 * UINT64_MAX for none). Slot order over valid records. */
static uint64_t count_large_descents(const latrec_ring *r, uint64_t tol, uint64_t skip)
{
    uint64_t n = 0, prev = 0, prev_slot = 0;
    int have = 0;
    for (uint64_t i = 0; i < r->entries; i++) {
        uint64_t t = __atomic_load_n(&r->recs[i].t_ns, __ATOMIC_RELAXED);
        if (t == 0)
            continue;
        t = ring_ns(r, t);
        if (have && t < prev && prev_slot != skip && prev - t > tol)
            n++;
        prev = t;
        prev_slot = i;
        have = 1;
        if ((i + 1) % SCAN_CHUNK == 0)
            scan_done(r, i + 1 - SCAN_CHUNK, i + 1);
    }
    scan_done(r, r->entries - r->entries % SCAN_CHUNK, r->entries);
    return n;
}

/* The smallest n >= base with (n - 1) mod entries == newest, into *n.
 * -1 (and *n = base) when that n does not fit in 64 bits. */
static int next_congruent(uint64_t base, uint64_t newest, uint64_t mask,
                          uint64_t *n)
{
    uint64_t want = (newest + 1) & mask;
    if (__builtin_add_overflow(base, (want - base) & mask, n)) {
        *n = base;
        return -1;
    }
    return 0;
}

/* Counts within LATREC_COUNT_MAX (ring.h): an implausible rec_count makes
 * the loss a saturated lower bound, never a wrapped or negative figure. */
static void saturate(latrec_ring *r)
{
    /* A count at LATREC_COUNT_MAX is one that reached it: a lower bound. */
    if (r->rec_count < LATREC_COUNT_MAX && r->written < LATREC_COUNT_MAX)
        return;
    latrec_ring_warn(r, "rec_count %llu is implausible: loss is not exact",
                     (unsigned long long)r->rec_count);
    if (r->written > LATREC_COUNT_MAX)
        r->written = LATREC_COUNT_MAX;
    if (r->lost > LATREC_COUNT_MAX)
        r->lost = LATREC_COUNT_MAX;
    r->lost_lower_bound = 1;
}

/* A wrapped ring holding `held` records up to newest_slot: written is the
 * first count from max(rec_count, held) that lands on newest_slot, lost
 * what it holds no more. */
static void count_wrapped(latrec_ring *r, uint64_t held)
{
    const uint64_t base = r->rec_count > held ? r->rec_count : held;
    if (next_congruent(base, r->newest_slot, r->mask, &r->written) != 0)
        latrec_ring_warn(r, "rec_count %llu is implausible: loss is not exact", (unsigned long long)r->rec_count);
    r->lost = r->written - held;
}

/* Where the records lie (start_slot, newest_slot, iter_len), whether the
 * ring wrapped, how many were written and lost: from the scan and the
 * descents judged significant (derive). */
static void lay_out(latrec_ring *r, const struct scan_state *st, int in_progress, int candidate)
{
    const uint64_t entries = r->entries, valid = st->valid, first_slot = st->first_slot,
                   last_slot = st->last_slot, max_drop_slot = st->max_drop_slot, hole_slot = st->hole_slot;
    const uint64_t hole_newest = (hole_slot + entries - 1) & r->mask;
    const int full = valid == entries;
    if (in_progress && !r->multi_writer) {
        /* Wrapped, stopped (or caught) in the middle of a stamp. */
        r->wrapped = 1;
        r->newest_slot = hole_newest;
        r->start_slot = (hole_slot + 1) & r->mask;
        r->iter_len = entries;
        count_wrapped(r, valid);
        r->lost_lower_bound = r->rec_count < entries / 2;
    } else if (!full) {
        /* Never wrapped, or wrapped with the slot after the newest record
         * being written when that is the last slot: slot order is write
         * order either way, and the count says which. */
        r->start_slot = first_slot;
        r->newest_slot = last_slot;
        r->iter_len = last_slot - first_slot + 1;
        r->written = last_slot + 1;
        r->lost = 0;
        if (valid + 1 == entries && hole_slot == entries - 1 && r->rec_count >= entries &&
            !r->multi_writer) {
            next_congruent(r->rec_count, last_slot, r->mask, &r->written);
            r->wrapped = 1;
            r->lost = r->written - valid;
        } else if (r->rec_count > r->written) {
            r->rc_excess = r->rec_count - r->written;
            latrec_ring_warn(r, "rec_count %llu but the ring holds %llu records and never wrapped",
                             (unsigned long long)r->rec_count, (unsigned long long)r->written);
        }
    } else if (r->multi_writer) {
        r->start_slot = 0;
        r->newest_slot = entries - 1;
        r->iter_len = entries;
        r->written = r->rec_count > valid ? r->rec_count : valid;
        r->lost = r->rec_count > entries ? r->rec_count - entries : 0;
        r->lost_lower_bound = r->rec_count < entries;
    } else {
        if (candidate) {
            r->wrapped = 1;
            r->newest_slot = max_drop_slot;
            r->start_slot = (max_drop_slot + 1) & r->mask;
        } else {
            r->wrapped = r->rec_count > entries;
            r->newest_slot = entries - 1;
            r->start_slot = 0;
        }
        r->iter_len = entries;
        count_wrapped(r, entries);
        r->lost_lower_bound = r->rec_count < entries;
    }
}

/* One pass over the slots: counts, extremes, descents; then wrap and loss
 * as ring.h describes. fd: the ring's file (its holes are not read), or -1. */
static void derive(latrec_ring *r, int fd)
{
    const latrec_rec *recs = r->recs;
    uint64_t entries = r->entries;
    struct scan_state scan, *st = &scan; /* 4 KiB */
    scan_ring(r, st, fd);
    for (int k = 0; k < 256; k++) r->stage_counts[k] = st->stages[0][k] + st->stages[1][k];
    r->torn = st->torn;
    const uint64_t valid = st->valid, descents = st->descents, max_drop = st->max_drop,
                   max_drop_slot = st->max_drop_slot, min_t = st->min_t, max_t = st->max_t,
                   min_seq = st->min_seq, max_seq = st->max_seq, hole_slot = st->hole_slot;

    r->valid = valid;
    r->descents = descents;
    if (valid == 0) {
        r->written = r->rec_count;
        r->lost = r->rec_count > entries ? r->rec_count - entries : 0;
        saturate(r);
        return;
    }
    r->min_t_ns = min_t;
    r->max_t_ns = max_t;
    r->min_seq = min_seq;
    r->max_seq = max_seq;

    uint64_t span = max_t - min_t;
    uint64_t tol = span / 100 > LATREC_INVERSION_MIN_NS ? span / 100
                                                        : LATREC_INVERSION_MIN_NS;
    /* A writer clears a slot's t_ns before it rewrites the slot, so a ring
     * whose writer was killed (or is live) mid-stamp after wrapping has
     * exactly one empty slot with valid records after it: the slot being
     * written. Its neighbours are the newest and the oldest record, so
     * time descends across it (unless it is slot 0, where slot order is
     * already write order); an empty slot with time rising across it is
     * no wrap point, and slot order stays write order. */
    int in_progress = valid + 1 == entries && hole_slot < entries - 1 && entries >= 2 &&
                      (hole_slot == 0 ||
                       ring_ns(r, __atomic_load_n(&recs[hole_slot - 1].t_ns, __ATOMIC_ACQUIRE)) >
                           ring_ns(r, __atomic_load_n(&recs[hole_slot + 1].t_ns, __ATOMIC_ACQUIRE)));
    int candidate = valid == entries && descents > 0 && max_drop >= span - span / 2;
    uint64_t hole_newest = (hole_slot + entries - 1) & r->mask;
    uint64_t significant;
    if (in_progress)
        significant = descents ? count_large_descents(r, tol, hole_newest) : 0;
    else if (descents == 0)
        significant = 0;
    else if (candidate)
        significant = 1 + (descents > 1
                               ? count_large_descents(r, tol, max_drop_slot)
                               : 0);
    else
        significant = descents > 1 ? count_large_descents(r, tol, UINT64_MAX)
                                   : (max_drop > tol);
    r->significant_descents = significant + (in_progress && hole_slot > 0);

    if (significant >= 2) {
        r->multi_writer = 1;
        latrec_ring_warn(r, "not a single-writer ring (%llu descents)",
                         (unsigned long long)significant);
    }

    lay_out(r, st, in_progress, candidate);

    const latrec_rec *first = &recs[r->start_slot];
    const latrec_rec *last = &recs[r->newest_slot];
    r->first_rec = (latrec_rec){first->sc, ring_ns(r, first->t_ns), first->aux, first->aux2};
    r->last_rec = (latrec_rec){last->sc, ring_ns(r, last->t_ns), last->aux, last->aux2};
    r->first_t_ns = r->first_rec.t_ns;
    r->last_t_ns = r->last_rec.t_ns;
    saturate(r);
}

/* Slots [from, to) all zero (t_ns and payload): 1, else 0. Read as the
 * scan reads, a chunk at a time, each chunk given back after. */
static int slots_empty(const latrec_ring *r, uint64_t from, uint64_t to)
{
    for (uint64_t i = from; i < to;) {
        const uint64_t end = to - i < SCAN_CHUNK ? to : (i & ~(uint64_t)(SCAN_CHUNK - 1)) + SCAN_CHUNK;
        const uint64_t stop = end < to ? end : to;
        uint64_t any = 0;
        for (uint64_t j = i; j < stop; j++) {
            const latrec_rec *s = &r->recs[j];
            if ((j & 1) == 0) __builtin_prefetch((const void *)((uintptr_t)s + SCAN_AHEAD * sizeof *s));
            any |= __atomic_load_n(&s->t_ns, __ATOMIC_RELAXED) | s->sc | s->aux | s->aux2;
        }
        scan_done(r, i, stop);
        if (any) return 0;
        i = stop;
    }
    return 1;
}

/* Slots [from, entries) all zero: 1, else 0. A hole of the file
 * (data_run) reads as zero and is not read: a mostly empty ring whose
 * writer never touched its tail costs a few calls; where the filesystem
 * cannot say (or fd is -1), every slot is read. */
static int tail_empty(const latrec_ring *r, int fd, uint64_t from)
{
    for (uint64_t i = from, a, b; i < r->entries; i = b) {
        data_run(r, fd, i, &a, &b);
        if (a >= r->entries) return 1; /* a hole to the end of the file */
        if (!slots_empty(r, a, b)) return 0;
    }
    return 1;
}

/* The guess (enum latrec_ring_derived in ring.h): 1 when the header and
 * slot 0, slot rec_count - 1 and the slots after it allow it (fields set,
 * r->derived GUESSED), 0 when the ring must be scanned. */
static int guess(latrec_ring *r, int fd)
{
    const uint64_t n = r->rec_count;
    if (!(r->flags & LATREC_F_CLEAN_CLOSE) || r->tsc || n == 0 || n > r->entries) return 0;
    const latrec_rec *first = &r->recs[0], *last = &r->recs[n - 1];
    const uint64_t t0 = __atomic_load_n(&first->t_ns, __ATOMIC_ACQUIRE);
    const uint64_t t1 = __atomic_load_n(&last->t_ns, __ATOMIC_ACQUIRE);
    if (t0 == 0 || t1 < t0 || !tail_empty(r, fd, n)) return 0;
    r->valid = r->written = n;
    r->start_slot = 0;
    r->newest_slot = n - 1;
    r->iter_len = n;
    r->first_rec = (latrec_rec){ first->sc, t0, first->aux, first->aux2 };
    r->last_rec = (latrec_rec){ last->sc, t1, last->aux, last->aux2 };
    r->first_t_ns = r->min_t_ns = t0;
    r->last_t_ns = r->max_t_ns = t1;
    r->derived = LATREC_RING_GUESSED;
    return 1;
}

int latrec_ring_guess_holds(latrec_ring *r, uint64_t read, uint64_t lapped)
{
    if (r->derived != LATREC_RING_GUESSED) return r->derived == LATREC_RING_VERIFIED;
    if (read != r->valid || lapped) return 0;
    r->derived = LATREC_RING_VERIFIED;
    return 1;
}

void latrec_ring_rescan(latrec_ring *r)
{
    if (r->status != LATREC_RING_OK || r->derived != LATREC_RING_GUESSED) return;
    /* every field derive sets, from valid to stage_counts, back to zero */
    memset(&r->valid, 0, offsetof(latrec_ring, stage_counts) + sizeof r->stage_counts - offsetof(latrec_ring, valid));
    r->iter_len = 0;
    r->multi_writer = 0;
    derive(r, -1); /* its file was closed at open */
    madvise(r->map, r->map_len, MADV_DONTNEED); /* as open_on_fd */
    r->derived = LATREC_RING_SCANNED;
}

/* Validate and map an open fd (not closed here); with_guess: a ring the
 * guess describes is not scanned. */
static int open_on_fd(latrec_ring *r, int fd, int with_guess)
{
    if (latrec_ring_read_header(r, fd) != 0)
        return -1;

    size_t len = (size_t)(LATREC_HDR_LEN + r->entries * LATREC_REC_SIZE);
    void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return latrec_ring_reject(r, "mmap: %s", strerror(errno));
    r->map = map;
    r->map_len = len;
    r->guard = latrec_shrink_guard_add(map, len);
    r->recs = (const latrec_rec *)((const unsigned char *)map + LATREC_HDR_LEN);
    r->mask = r->entries - 1;
    if (!with_guess || !guess(r, fd)) derive(r, fd);
    /* derive gave its chunks back as it went, but then read a few slots
     * again (the first and the last record, the neighbours of an empty
     * slot), and a fault may map a whole large folio (read/ring_window.h):
     * give them back, so an open ring holds no record pages until a pass
     * reads it. */
    madvise(map, len, MADV_DONTNEED);
    r->status = LATREC_RING_OK;
    return 0;
}

/* Undo a partial open of a rejected ring: keep path and reason only. */
static int finish(latrec_ring *r, int rc)
{
    if (rc == 0)
        return 0;
    latrec_shrink_guard_remove(r->guard);
    if (r->map)
        munmap(r->map, r->map_len);
    free(r->tsc);
    char *path = r->path;
    char error[LATREC_REASON_LEN];
    memcpy(error, r->error, sizeof error);
    uint64_t size = r->file_size;
    memset(r, 0, sizeof *r);
    r->path = path;
    const char *slash = path ? strrchr(path, '/') : NULL;
    r->basename = slash ? slash + 1 : (path ? path : "");
    r->file_size = size;
    memcpy(r->error, error, sizeof error);
    r->status = LATREC_RING_REJECTED;
    return -1;
}

static int open_at(latrec_ring *r, int dirfd, const char *name, const char *path, int with_guess)
{
    if (ring_init(r, path ? path : name) != 0)
        return -1;
    if (ends_with(name, ".part") || ends_with(r->path, ".part"))
        return finish(r, latrec_ring_reject(r, "partial ring (.part): not opened"));
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ELOOP)
            return finish(r, latrec_ring_reject(r, "symbolic link: not followed"));
        return finish(r, latrec_ring_reject(r, "%s", strerror(errno)));
    }
    int rc = open_on_fd(r, fd, with_guess);
    close(fd);
    return finish(r, rc);
}

int latrec_ring_openat(latrec_ring *r, int dirfd, const char *name,
                       const char *path)
{
    return open_at(r, dirfd, name, path, 0);
}

int latrec_ring_openat_guess(latrec_ring *r, int dirfd, const char *name,
                             const char *path)
{
    return open_at(r, dirfd, name, path, 1);
}

int latrec_ring_open(latrec_ring *r, const char *path)
{
    return latrec_ring_openat(r, AT_FDCWD, path, path);
}

static int open_fd(latrec_ring *r, int fd, const char *path, int with_guess)
{
    if (ring_init(r, path) != 0)
        return -1;
    if (ends_with(r->path, ".part"))
        return finish(r, latrec_ring_reject(r, "partial ring (.part): not opened"));
    return finish(r, open_on_fd(r, fd, with_guess));
}

int latrec_ring_open_fd(latrec_ring *r, int fd, const char *path)
{
    return open_fd(r, fd, path, 0);
}

int latrec_ring_open_fd_guess(latrec_ring *r, int fd, const char *path)
{
    return open_fd(r, fd, path, 1);
}

void latrec_ring_close(latrec_ring *r)
{
    latrec_shrink_guard_remove(r->guard);
    if (r->map)
        munmap(r->map, r->map_len);
    free(r->tsc);
    free(r->path);
    memset(r, 0, sizeof *r);
}

int latrec_ring_boot_known(const latrec_ring *r)
{
    for (size_t i = 0; i < sizeof r->boot_id; i++)
        if (r->boot_id[i])
            return 1;
    return 0;
}

int latrec_ring_boot_differs(const latrec_ring *a, const latrec_ring *b)
{
    if (!latrec_ring_boot_known(a) || !latrec_ring_boot_known(b))
        return 0;
    return memcmp(a->boot_id, b->boot_id, sizeof a->boot_id) != 0;
}

int latrec_ring_truncated(const latrec_ring *r, uint64_t *readable_bytes)
{
    uint64_t cut = latrec_shrink_guard_cut(r->guard);
    if (cut == UINT64_MAX)
        return 0;
    if (readable_bytes)
        *readable_bytes = cut;
    return 1;
}
