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
    latrec_merged out;   /* the record as it goes out (out.t_ns: its merge key) */
    uint64_t      key64; /* its key in the 64-bit tree (narrow merges) */
};

struct latrec_merge_src {
    union {
        struct {
            latrec_ring_iter        it; /* the ring's, as of init or the last repoll */
            latrec_cursor           cur;
            struct latrec_merge_rec head; /* the next record out (when has_head) */
            struct latrec_merge_rec next; /* the one after it (when has_next) */
            int                     has_head, has_next;
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

/* The tree's keys. The heads meet in a tree of losers (node j plays 2j
 * and 2j + 1, node leaves + i is ring i's leaf, node 0 keeps the winner),
 * its keys in one of two shapes, each compared in one instruction and
 * its outcome a conditional move (the winner of a match is a coin toss to
 * a branch predictor):
 *  - wide: (key << 64 | tie) in a 128-bit integer. Ties between rings go
 *    to the lower ring index (tie = ring); an exhausted ring (and a
 *    padding leaf) has tie = 2^32 + ring, so it loses to every head,
 *    whatever its time.
 *  - narrow, when every key of the merge lies within [base, base + span]:
 *    ((key - base) << shift | ring) in 64 bits, shift = log2(leaves); an
 *    exhausted ring has every key bit set. Same order, a shorter path
 *    from one winner to the next. A record whose key falls outside (a live
 *    ring's stamps run past the bound) turns the merge wide for good.
 * Positions of one ring never meet (one head per ring). The tree is a
 * function of the leaves, which are the rings' heads in src: it is played
 * again from them whenever heads change other than by a winner's replay. */
typedef unsigned __int128 key128;
struct latrec_merge_ent {
    key128 k;
};

#define EXHAUSTED (1ull << 32)
#ifndef PREFETCH_AHEAD
#define PREFETCH_AHEAD 32 /* records: 16 cache lines (16 rings: 8 KiB in flight, within L1) */
#endif

static inline key128 key_of(uint64_t key, uint64_t tie) { return (key128)key << 64 | tie; }
static inline uint32_t ring_of(key128 k) { return (uint32_t)k; }
static inline int exhausted(key128 k) { return ((uint64_t)k & EXHAUSTED) != 0; }

static inline uint64_t exhausted64(const latrec_merge *m, uint64_t ring) { return UINT64_MAX << m->shift | ring; }

/* A wall-clock key, out of line: the merge's loop keeps its registers. */
static __attribute__((noinline)) uint64_t wall_key(const struct latrec_merge_src *s, uint64_t t_ns)
{
    return latrec_wallmap_apply(&s->wall, t_ns);
}

/* d's key in the 64-bit tree; a key outside the bound turns the merge wide
 * (at the end of the batch). */
static inline __attribute__((always_inline)) void set_key64(latrec_merge *m, uint32_t ring,
                                                           struct latrec_merge_rec *d)
{
    const uint64_t off = d->out.t_ns - m->base;
    if (__builtin_expect(off > m->span, 0)) m->widen = 1;
    d->key64 = off << m->shift | ring;
}

/* Read ring i's next record into *d: 1, or 0 when the ring has no more. */
static inline __attribute__((always_inline)) int read_one(latrec_merge *m, uint32_t i, struct latrec_merge_src *s,
                                                          struct latrec_merge_rec *d, int narrow)
{
    /* Rings are read a record at a time in turn, too many streams for the
     * hardware prefetcher to follow: ask for the line PREFETCH_AHEAD
     * records on (wrapping within the mapping; past the end it is only
     * a hint). */
#ifndef NO_PREFETCH
    __builtin_prefetch(&s->it.recs[(s->it.start + s->cur.pos + PREFETCH_AHEAD) & s->it.mask]);
#endif
    if (!latrec_ring_iter_next(&s->it, &s->cur, &d->out.rec)) return 0;
    d->out.ring = i;
    d->out.pos = s->cur.pos - 1;
    d->out.t_ns = __builtin_expect(m->flags & LATREC_MERGE_WALL, 0) ? wall_key(s, d->out.rec.t_ns) : d->out.rec.t_ns;
    if (narrow) set_key64(m, i, d);
    return 1;
}

/* Ring i's head and the record after it, read afresh (init, repoll); the
 * tree is left to be played again. */
static void load_head(latrec_merge *m, uint32_t i)
{
    struct latrec_merge_src *s = &m->src[i];
    s->has_head = read_one(m, i, s, &s->head, 0);
    s->has_next = s->has_head && read_one(m, i, s, &s->next, 0);
    m->heap_len += s->has_head;
}

/* Ring i's leaf, from its head. */
static key128 leaf_wide(const latrec_merge *m, size_t i)
{
    return i < m->n && m->src[i].has_head ? key_of(m->src[i].head.out.t_ns, i) : key_of(UINT64_MAX, EXHAUSTED + i);
}

static uint64_t leaf_narrow(const latrec_merge *m, size_t i)
{
    return i < m->n && m->src[i].has_head ? m->src[i].head.key64 : exhausted64(m, i);
}

/* Play the matches below `node`: each inner node keeps its loser's key;
 * returns the winner's. Recursion depth log2(leaves). */
static key128 play_wide(latrec_merge *m, size_t node)
{
    if (node >= m->leaves) return leaf_wide(m, node - m->leaves);
    const key128 a = play_wide(m, 2 * node), b = play_wide(m, 2 * node + 1);
    m->heap[node].k = a < b ? b : a;
    return a < b ? a : b;
}

static uint64_t play_narrow(latrec_merge *m, size_t node)
{
    if (node >= m->leaves) return leaf_narrow(m, node - m->leaves);
    const uint64_t a = play_narrow(m, 2 * node), b = play_narrow(m, 2 * node + 1);
    m->tree[node] = a < b ? b : a;
    return a < b ? a : b;
}

/* The narrow bound: every key the rings can still give. A ring's records
 * lie within its stamps' extremes at open (a record past the largest is
 * skipped as lapped, read/ring.h); one without a bound (max_t_ns 0 with
 * records to come) or a span that leaves no room for the ring bits keeps
 * the merge wide. */
static int narrow_bound(latrec_merge *m)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < m->n; i++) {
        const struct latrec_merge_src *s = &m->src[i];
        if (!s->has_head) continue; /* a poll that gives it records plays the tree again */
        if (!s->it.max_t) return 0;
        const uint64_t min_t = m->rings[i].min_t_ns;
        const uint64_t a = min_t && min_t < s->head.out.rec.t_ns ? min_t : s->head.out.rec.t_ns;
        const uint64_t ka = latrec_merge_key(m, i, a), kb = latrec_merge_key(m, i, s->it.max_t);
        if (ka < lo) lo = ka;
        if (kb > hi) hi = kb;
    }
    if (lo > hi) lo = hi = 0; /* nothing to merge (for now) */
    const uint64_t span = (UINT64_MAX >> m->shift) - 1;
    if (hi - lo > span) return 0;
    m->base = lo;
    m->span = span;
    return 1;
}

/* Play the whole tree again from the heads: narrow when allowed and the
 * keys fit, else wide. O(rings): init, polls and new rings only. */
static void rebuild(latrec_merge *m)
{
    m->narrow = !m->widen && narrow_bound(m);
    if (m->narrow) {
        for (size_t i = 0; i < m->n; i++) {
            struct latrec_merge_src *s = &m->src[i];
            if (s->has_head) set_key64(m, (uint32_t)i, &s->head);
            if (s->has_next) set_key64(m, (uint32_t)i, &s->next);
        }
        m->narrow = !m->widen;
    }
    if (m->narrow)
        m->tree[0] = play_narrow(m, 1);
    else
        m->heap[0].k = play_wide(m, 1);
}

/* The winner's ring has a new key k: replay its matches from its leaf to
 * the root, the losers' keys staying in the nodes. */
static inline __attribute__((always_inline)) key128 replay_wide(struct latrec_merge_ent *t, size_t leaves,
                                                               uint32_t ring, key128 k)
{
    for (size_t node = (leaves + ring) >> 1; node >= 1; node >>= 1) {
        const key128 o = t[node].k, lo = o < k ? o : k;
        t[node].k = o ^ k ^ lo; /* the other one: one comparison */
        k = lo;
    }
    t[0].k = k;
    return k;
}

/* One match of the narrow tree, at node. */
#define MATCH64(node)                                                                                                  \
    do {                                                                                                               \
        const uint64_t o_ = t[node], lo_ = o_ < k ? o_ : k;                                                            \
        t[node] = o_ ^ k ^ lo_;                                                                                        \
        k = lo_;                                                                                                       \
    } while (0)

/* The narrow replay, its matches written out for trees up to 64 rings
 * (the leaf's node and its ancestors: (leaves + ring) >> level). */
static inline __attribute__((always_inline)) uint64_t replay_narrow(uint64_t *t, size_t leaves, unsigned shift,
                                                                   uint32_t ring, uint64_t k)
{
    const size_t leaf = leaves + ring;
    switch (shift) { /* from the leaf up */
    case 0: break;
    case 1: MATCH64(1); break;
    case 2: MATCH64(leaf >> 1); MATCH64(1); break;
    case 3: MATCH64(leaf >> 1); MATCH64(leaf >> 2); MATCH64(1); break;
    case 4: MATCH64(leaf >> 1); MATCH64(leaf >> 2); MATCH64(leaf >> 3); MATCH64(1); break;
    case 5: MATCH64(leaf >> 1); MATCH64(leaf >> 2); MATCH64(leaf >> 3); MATCH64(leaf >> 4); MATCH64(1); break;
    case 6:
        MATCH64(leaf >> 1); MATCH64(leaf >> 2); MATCH64(leaf >> 3); MATCH64(leaf >> 4); MATCH64(leaf >> 5); MATCH64(1);
        break;
    default:
        for (size_t node = leaf >> 1; node >= 1; node >>= 1) MATCH64(node);
        t[0] = k;
        return k;
    }
    t[0] = k;
    return k;
}

/* Both trees for k leaves, in one block (the narrow one after the wide
 * one's 16-byte keys): 0, or -1 when out of memory. */
static int alloc_trees(latrec_merge *m, size_t k)
{
    struct latrec_merge_ent *heap = calloc(2 * k, sizeof(*m->heap) + sizeof(*m->tree));
    if (!heap) return -1;
    free(m->heap);
    m->heap = heap;
    m->tree = (uint64_t *)(heap + 2 * k);
    m->leaves = k;
    m->shift = 0;
    while (((size_t)1 << m->shift) < k) m->shift++;
    return 0;
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
    m->src = calloc(n, sizeof *m->src);
    if (alloc_trees(m, k) < 0 || !m->src) {
        latrec_merge_free(m);
        return fail(err, errlen, "out of memory");
    }
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
        load_head(m, (uint32_t)i);
    }
    rebuild(m);
    return 0;
}

/* latrec_merge_fill in one tree shape; stops early when the merge must
 * turn wide. */
static inline __attribute__((always_inline)) size_t fill(latrec_merge *m, latrec_merged *out, size_t max,
                                                        uint64_t limit, int narrow)
{
    struct latrec_merge_src *const src = m->src;
    uint64_t *const tree = m->tree;
    struct latrec_merge_ent *const heap = m->heap;
    const size_t leaves = m->leaves;
    const unsigned shift = m->shift;
    const uint64_t ring_mask = ((uint64_t)1 << shift) - 1;
    /* the limit as a narrow key: every key bit above the ring bits */
    if (narrow && limit < m->base) return 0;
    const uint64_t lim64 = limit - m->base > m->span ? m->span : limit - m->base;
    key128 w = narrow ? 0 : m->heap[0].k;
    uint64_t w64 = narrow ? m->tree[0] : 0;
    size_t n = 0;
    while (n < max && !(narrow && __builtin_expect(m->widen, 0))) {
        uint32_t i;
        if (narrow) {
            if ((w64 >> shift) > lim64) break; /* also when every ring is exhausted */
            i = (uint32_t)(w64 & ring_mask);
        } else {
            if (exhausted(w) || (uint64_t)(w >> 64) > limit) break;
            i = ring_of(w);
        }
        struct latrec_merge_src *s = &src[i];
        out[n++] = s->head.out;
        /* The record after the head (read ahead) is the ring's new head:
         * its matches are played first, and the one after it read while
         * the next winner's record goes out. */
        const int more = s->has_next;
        if (narrow) {
            w64 = replay_narrow(tree, leaves, shift, i, more ? s->next.key64 : exhausted64(m, i));
        } else {
            w = replay_wide(heap, leaves, i, more ? key_of(s->next.out.t_ns, i) : key_of(UINT64_MAX, EXHAUSTED + i));
        }
        if (__builtin_expect(more, 1)) {
            s->head = s->next;
            s->has_next = read_one(m, i, s, &s->next, narrow);
        } else {
            s->has_head = 0;
            m->heap_len--;
        }
    }
    return n;
}

size_t latrec_merge_fill(latrec_merge *m, latrec_merged *out, size_t max, uint64_t limit)
{
    if (m->narrow && m->widen) rebuild(m); /* a key outside the narrow bound: wide from now on */
    if (m->heap_len == 0) return 0;
    if (!m->narrow) return fill(m, out, max, limit, 0);
    size_t n = fill(m, out, max, limit, 1);
    if (m->widen) {
        rebuild(m);
        n += fill(m, out + n, max - n, limit, 0);
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
    const size_t i = m->narrow ? (size_t)(m->tree[0] & (((uint64_t)1 << m->shift) - 1)) : ring_of(m->heap[0].k);
    *key = m->src[i].head.out.t_ns;
    return 1;
}

latrec_cursor *latrec_merge_cursor(latrec_merge *m, size_t i) { return &m->src[i].cur; }

uint64_t latrec_merge_key(const latrec_merge *m, size_t i, uint64_t t_ns)
{
    return (m->flags & LATREC_MERGE_WALL) ? latrec_wallmap_apply(&m->src[i].wall, t_ns) : t_ns;
}

/* Take a head for ring i when it has none: 1 when it has one now. The
 * tree is left to the caller to play again (a ring joining changes
 * matches off the winner's path). */
static int repoll_leaf(latrec_merge *m, size_t i)
{
    if (m->src[i].has_head) return 1;
    if (m->rings[i].status != LATREC_RING_OK || m->src[i].no_wall) return 0;
    latrec_ring_iter_of(&m->rings[i], &m->src[i].it); /* a poll may have moved them */
    load_head(m, (uint32_t)i);
    return m->src[i].has_head;
}

int latrec_merge_repoll(latrec_merge *m, size_t i)
{
    if (m->src[i].has_head) return 1;
    if (!repoll_leaf(m, i)) return 0;
    rebuild(m); /* O(rings), live polls only */
    return 1;
}

/* The tree for at least n rings: leaves doubled as needed (the tree is
 * played again after). 0, or -1 when out of memory. */
static int grow_tree(latrec_merge *m, size_t n)
{
    size_t k = m->leaves ? m->leaves : 1;
    while (k < n)
        k *= 2;
    return k == m->leaves ? 0 : alloc_trees(m, k);
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
    rebuild(m);
    return rc;
}

void latrec_merge_free(latrec_merge *m)
{
    free(m->src);
    free(m->heap); /* and the narrow tree after it */
    memset(m, 0, sizeof *m);
}
