/*
 * merge.c - k-way time-ordered merge over rings (tournament tree of losers).
 */
#include "read/merge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A ring's place in the merge. The record after the head is read ahead
 * (`next`), so that when the head goes out the key that replays the
 * ring's matches is already at hand: the read of the ring's mapping is
 * off the path from one winner to the next. The ring's iteration fields
 * are a copy (a ring struct is kilobytes, its fields lines apart), taken
 * again whenever the ring may have been polled. It is padded to a power
 * of two bytes, so that a ring index becomes its address with a shift. */
struct latrec_merge_rec {
    latrec_rec rec;
    uint64_t   key; /* rec's merge key */
    uint64_t   pos; /* rec's write-order position */
};

struct latrec_merge_src {
    union {
        struct {
            latrec_ring_iter        it; /* the ring's, as of init or the last repoll */
            latrec_cursor           cur;
            struct latrec_merge_rec head; /* the next record out (when the leaf is not exhausted) */
            struct latrec_merge_rec next; /* the one after it (when has_next) */
            int                     has_next;
            int                     no_wall; /* left out: no wall-clock mapping (add_rings) */
            latrec_wallmap          wall;
        };
        char size[256];
    };
};
_Static_assert(sizeof(struct latrec_merge_src) == 256, "a merge source is a power of two bytes");

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* A ring's head key, (key << 64 | tie) in one 128-bit integer so that a
 * match is one comparison and its outcome a conditional move (the winner
 * of a match is a coin toss to a branch predictor). Ties between rings go
 * to the lower ring index (tie = ring); an exhausted ring (and a padding
 * leaf) has tie = 2^32 + ring, so it loses to every head, whatever its
 * time. Positions of one ring never meet (one head per ring). */
typedef unsigned __int128 key128;
struct latrec_merge_ent {
    key128 k;
};

#define EXHAUSTED (1ull << 32)
#ifndef PREFETCH_AHEAD
#define PREFETCH_AHEAD 64 /* records: 32 cache lines, half a page */
#endif

static inline key128 key_of(uint64_t key, uint64_t tie) { return (key128)key << 64 | tie; }
static inline uint32_t ring_of(key128 k) { return (uint32_t)k; }
static inline int exhausted(key128 k) { return ((uint64_t)k & EXHAUSTED) != 0; }

/* A wall-clock key, out of line: the merge's loop keeps its registers. */
static __attribute__((noinline)) uint64_t wall_key(const struct latrec_merge_src *s, uint64_t t_ns)
{
    return latrec_wallmap_apply(&s->wall, t_ns);
}

/* Read ring i's next record into *d: 1, or 0 when the ring has no more. */
static inline __attribute__((always_inline)) int read_one(const latrec_merge *m, struct latrec_merge_src *s,
                                                          struct latrec_merge_rec *d)
{
    /* Rings are read a record at a time in turn, too many streams for the
     * hardware prefetcher to follow: ask for the line PREFETCH_AHEAD
     * records on (wrapping within the mapping; past the end it is only
     * a hint). */
    __builtin_prefetch(&s->it.recs[(s->it.start + s->cur.pos + PREFETCH_AHEAD) & s->it.mask]);
    if (!latrec_ring_iter_next(&s->it, &s->cur, &d->rec)) return 0;
    d->pos = s->cur.pos - 1;
    d->key = __builtin_expect(m->flags & LATREC_MERGE_WALL, 0) ? wall_key(s, d->rec.t_ns) : d->rec.t_ns;
    return 1;
}

/* Ring i's head and the record after it, read afresh (init, repoll): the
 * head's key, or an exhausted key when the ring has no more records. */
static key128 load_head(latrec_merge *m, uint32_t i)
{
    struct latrec_merge_src *s = &m->src[i];
    if (!read_one(m, s, &s->head)) {
        s->has_next = 0;
        return key_of(UINT64_MAX, EXHAUSTED + i);
    }
    s->has_next = read_one(m, s, &s->next);
    return key_of(s->head.key, i);
}

/* Play the matches below `node` (node j plays 2j and 2j + 1; node leaves + i
 * is ring i's leaf): each inner node keeps its loser's key; returns the
 * winner's. Recursion depth log2(leaves). */
static key128 play(latrec_merge *m, size_t node)
{
    if (node >= m->leaves)
        return m->heap[node].k;
    key128 a = play(m, 2 * node), b = play(m, 2 * node + 1);
    m->heap[node].k = a < b ? b : a;
    return a < b ? a : b;
}

/* The winner's ring has a new key k: replay its matches from its leaf to
 * the root, the losers' keys staying in the nodes. */
static inline key128 replay(latrec_merge *m, uint32_t ring, key128 k)
{
    struct latrec_merge_ent *t = m->heap;
    for (size_t node = (m->leaves + ring) >> 1; node >= 1; node >>= 1) {
        const key128 o = t[node].k, lo = o < k ? o : k;
        t[node].k = o ^ k ^ lo; /* the other one: one comparison */
        k = lo;
    }
    t[0].k = k;
    return k;
}

int latrec_merge_init(latrec_merge *m, const latrec_ring *rings, size_t n,
                      unsigned flags, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (err && errlen)
        err[0] = '\0';
    if (n > UINT32_MAX)
        return fail(err, errlen, "too many rings");
    m->rings = rings;
    m->n = n;
    m->flags = flags;
    if (n == 0)
        return 0;

    if (!(flags & (LATREC_MERGE_WALL | LATREC_MERGE_ALLOW_MIXED_BOOTS))) {
        /* Compare every known boot id with the first known one. */
        size_t ref = n;
        for (size_t i = 0; i < n; i++) {
            if (rings[i].status != LATREC_RING_OK || !latrec_ring_boot_known(&rings[i]))
                continue;
            if (ref == n)
                ref = i;
            else if (latrec_ring_boot_differs(&rings[ref], &rings[i]))
                return fail(err, errlen,
                            "%s and %s come from different boots: merge on "
                            "the wall clock",
                            rings[ref].path, rings[i].path);
        }
    }

    size_t k = 1;
    while (k < n)
        k *= 2;
    m->leaves = k;
    m->src = calloc(n, sizeof *m->src);
    m->heap = calloc(2 * k, sizeof *m->heap);
    if (!m->src || !m->heap) {
        latrec_merge_free(m);
        return fail(err, errlen, "out of memory");
    }
    for (size_t i = 0; i < k; i++)
        m->heap[k + i].k = key_of(UINT64_MAX, EXHAUSTED + i);
    for (size_t i = 0; i < n; i++) {
        if (rings[i].status != LATREC_RING_OK)
            continue;
        if (flags & LATREC_MERGE_WALL) {
            char why[LATREC_REASON_LEN];
            if (latrec_wallmap_init(&m->src[i].wall, &rings[i], why, sizeof why) != 0) {
                latrec_merge_free(m);
                return fail(err, errlen, "%s: %s", rings[i].path, why);
            }
        }
        latrec_ring_cursor_init(&m->src[i].cur);
        latrec_ring_iter_of(&rings[i], &m->src[i].it);
        m->heap[k + i].k = load_head(m, (uint32_t)i);
        m->heap_len += !exhausted(m->heap[k + i].k);
    }
    m->heap[0].k = play(m, 1);
    return 0;
}

size_t latrec_merge_fill(latrec_merge *m, latrec_merged *out, size_t max, uint64_t limit)
{
    if (m->heap_len == 0)
        return 0;
    struct latrec_merge_src *const src = m->src;
    struct latrec_merge_ent *const t = m->heap;
    key128 w = t[0].k;
    size_t n = 0;
    while (n < max && !exhausted(w) && (uint64_t)(w >> 64) <= limit) {
        const uint32_t i = ring_of(w);
        struct latrec_merge_src *s = &src[i];
        latrec_merged *o = &out[n++];
        o->t_ns = s->head.key;
        o->ring = i;
        o->pos = s->head.pos;
        o->rec = s->head.rec;
        /* The record after the head (read ahead) is the ring's new head:
         * its matches are played first, and the one after it read while
         * the next winner's record goes out. */
        const int more = s->has_next;
        key128 k = key_of(UINT64_MAX, EXHAUSTED + i);
        if (__builtin_expect(more, 1)) {
            k = key_of(s->next.key, i);
            s->head = s->next;
        }
        t[m->leaves + i].k = k; /* the leaves are what play() starts from */
        m->heap_len -= !more;
        w = replay(m, i, k);
        if (__builtin_expect(more, 1)) s->has_next = read_one(m, s, &s->next);
    }
    return n;
}

int latrec_merge_next(latrec_merge *m, latrec_merged *out)
{
    return latrec_merge_fill(m, out, 1, UINT64_MAX) != 0;
}

/* ---- live rings ---------------------------------------------------------- */

int latrec_merge_peek(const latrec_merge *m, uint64_t *key)
{
    if (m->heap_len == 0) return 0;
    *key = (uint64_t)(m->heap[0].k >> 64);
    return 1;
}

latrec_cursor *latrec_merge_cursor(latrec_merge *m, size_t i) { return &m->src[i].cur; }

uint64_t latrec_merge_key(const latrec_merge *m, size_t i, uint64_t t_ns)
{
    return (m->flags & LATREC_MERGE_WALL) ? latrec_wallmap_apply(&m->src[i].wall, t_ns) : t_ns;
}

/* Take a head for ring i when it has none: 1 when it has one now. The
 * tree's matches are left to the caller to play again (a ring joining
 * changes matches off the winner's path). */
static int repoll_leaf(latrec_merge *m, size_t i)
{
    struct latrec_merge_ent *leaf = &m->heap[m->leaves + i];
    if (!exhausted(leaf->k)) return 1;
    if (m->rings[i].status != LATREC_RING_OK || m->src[i].no_wall) return 0;
    latrec_ring_iter_of(&m->rings[i], &m->src[i].it); /* a poll may have moved them */
    leaf->k = load_head(m, (uint32_t)i);
    if (exhausted(leaf->k)) return 0;
    m->heap_len++;
    return 1;
}

int latrec_merge_repoll(latrec_merge *m, size_t i)
{
    struct latrec_merge_ent *leaf = &m->heap[m->leaves + i];
    if (!exhausted(leaf->k)) return 1;
    if (!repoll_leaf(m, i)) return 0;
    m->heap[0].k = play(m, 1); /* O(rings), live polls only */
    return 1;
}

/* The tree for at least n rings: leaves doubled as needed, the rings' keys
 * kept, padding leaves exhausted. 0, or -1 when out of memory. */
static int grow_tree(latrec_merge *m, size_t n)
{
    size_t k = m->leaves ? m->leaves : 1;
    while (k < n)
        k *= 2;
    if (k == m->leaves)
        return 0;
    struct latrec_merge_ent *heap = calloc(2 * k, sizeof(*heap));
    if (!heap) return -1;
    for (size_t i = 0; i < k; i++)
        heap[k + i].k = i < m->n ? m->heap[m->leaves + i].k : key_of(UINT64_MAX, EXHAUSTED + i);
    free(m->heap);
    m->heap = heap;
    m->leaves = k;
    return 0;
}

int latrec_merge_add_rings(latrec_merge *m, const latrec_ring *rings, size_t n, char *err, size_t errlen)
{
    if (err && errlen) err[0] = '\0';
    if (n > UINT32_MAX) return fail(err, errlen, "too many rings");
    m->rings = rings;
    if (n <= m->n) return 0;
    struct latrec_merge_src *src = realloc(m->src, n * sizeof(*src));
    if (src) m->src = src;
    if (!src || grow_tree(m, n) < 0) return fail(err, errlen, "out of memory");
    int rc = 0;
    for (size_t i = m->n; i < n; i++) {
        memset(&m->src[i], 0, sizeof(m->src[i]));
        latrec_ring_cursor_init(&m->src[i].cur);
        char why[LATREC_REASON_LEN];
        if (rings[i].status == LATREC_RING_OK && (m->flags & LATREC_MERGE_WALL) &&
            latrec_wallmap_init(&m->src[i].wall, &rings[i], why, sizeof(why)) != 0) {
            m->src[i].no_wall = 1;
            if (rc == 0) rc = fail(err, errlen, "%s: %s", rings[i].path, why);
        }
    }
    size_t from = m->n;
    m->n = n;
    for (size_t i = from; i < n; i++) repoll_leaf(m, i);
    m->heap[0].k = play(m, 1);
    return rc;
}

void latrec_merge_free(latrec_merge *m)
{
    free(m->src);
    free(m->heap);
    memset(m, 0, sizeof *m);
}
