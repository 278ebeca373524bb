/*
 * merge.c - k-way time-ordered merge over rings (tournament tree of losers).
 */
#include "read/merge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A ring's place in the merge. The record after the head is read ahead,
 * so that when the head goes out the key that replays the ring's matches
 * is already at hand: the read of the ring's mapping is off the path from
 * one winner to the next. The two records sit in buf[], the head at
 * buf[h], and swap places by h (no copy). The ring's iteration fields
 * are a copy (a ring struct is kilobytes, its fields lines apart), taken
 * again whenever the ring may have been polled. Only rings that can give
 * records have a place (src[leaf], in ring order; leaf_of[ring] finds it),
 * so a merge of a few rings of a large array plays a small tree. The
 * plain reads go by p and stop (see read_one). It is padded to a power of two bytes, so
 * that a ring index becomes its address with a shift. */
struct latrec_merge_rec {
    latrec_merged out;   /* the record as it goes out (out.t_ns: its merge key) */
    uint64_t      key64; /* its key in the 64-bit tree, set by rebuild and general reads (a
                            narrow merge plays the next record's from the tree's leaf) */
};

struct latrec_merge_src {
    union {
        struct {
            struct latrec_merge_rec buf[2]; /* the head (buf[h]) and the record after it */
            const latrec_rec       *p;      /* the slot at cur.pos */
            const latrec_rec       *stop;   /* slots from p up to here are read the plain way */
            uint64_t                lo, range; /* a plain read's stamp lies in [lo, lo + range] */
            unsigned                h;
            int                     has_head, has_next;
            int                     no_wall; /* left out: no wall-clock mapping (add_rings) */
            uint32_t                ring;    /* its index in the rings array */
            latrec_ring_iter        it; /* the ring's, as of init or the last repoll */
            latrec_cursor           cur;
            latrec_wallmap          wall;
        };
        char size[512];
    };
};
_Static_assert(sizeof(struct latrec_merge_src) == 512, "a merge source is a power of two bytes");

#define HEAD(s) (&(s)->buf[(s)->h])
#define NEXT(s) (&(s)->buf[(s)->h ^ 1])

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
 * again from them whenever heads change other than by a winner's replay.
 * The narrow tree's leaf nodes (leaves + i) hold the key of the record
 * after ring i's head, the key its next replay plays: one load from the
 * winner's ring index, on the path from one winner to the next. */
typedef unsigned __int128 key128;
struct latrec_merge_ent {
    key128 k;
};

#define EXHAUSTED (1ull << 32)
#define NO_LEAF   UINT32_MAX /* leaf_of a ring left out (not ok) */
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

/* Where ring s's plain reads (read_one) stand: p is the slot at cur.pos,
 * stop the end of the visit or of the mapping, whichever comes first. A
 * TSC ring's stamps and a wall-clock merge's keys take the general way
 * (stop = p). */
static void plain_at(const latrec_merge *m, struct latrec_merge_src *s)
{
    const latrec_ring_iter *it = &s->it;
    const uint64_t pos = s->cur.pos;
    s->p = s->stop = NULL;
    if (!it->recs || pos >= it->len || it->tsc || (m->flags & LATREC_MERGE_WALL)) return;
    const uint64_t slot = (it->start + pos) & it->mask, to_end = it->mask + 1 - slot, to_len = it->len - pos;
    s->p = it->recs + slot;
    s->stop = s->p + (to_end < to_len ? to_end : to_len);
}

/* The general read (latrec_ring_iter_next) of ring i's next record into
 * *d: 1, or 0 when the ring has no more. */
static __attribute__((noinline)) int read_slow(latrec_merge *m, uint32_t i, struct latrec_merge_src *s,
                                               struct latrec_merge_rec *d, int narrow)
{
    const int got = latrec_ring_iter_next(&s->it, &s->cur, &d->out.rec);
    plain_at(m, s);
    if (!got) return 0;
    d->out.pos = s->cur.pos - 1;
    d->out.t_ns = m->flags & LATREC_MERGE_WALL ? wall_key(s, d->out.rec.t_ns) : d->out.rec.t_ns;
    if (narrow) set_key64(m, i, d);
    return 1;
}

/* Ring i's next record into *d the plain way: 1, or 0 (nothing read)
 * when the next slot needs the general way. The plain read is
 * latrec_ring_iter_next's for a slot that needs none of its exceptions:
 * inside the mapping and the visit (before stop), t_ns loaded twice around
 * the payload and unchanged, and in [lo, lo + range] (not 0, not above the
 * ring's largest stamp, within the narrow tree's bound: rebuild), so its
 * key needs no check either. A narrow merge's key goes to *key64. */
static inline __attribute__((always_inline)) int read_plain(const latrec_merge *m, uint32_t i,
                                                            struct latrec_merge_src *s, struct latrec_merge_rec *d,
                                                            uint64_t *key64, unsigned shift)
{
    const latrec_rec *p = s->p;
    if (__builtin_expect(p == s->stop, 0)) return 0;
    /* Rings are read a record at a time in turn, too many streams for the
     * hardware prefetcher to follow: ask for the line PREFETCH_AHEAD
     * records on (past the mapping it is only a hint). */
#ifndef NO_PREFETCH
    __builtin_prefetch(p + PREFETCH_AHEAD);
#endif
    const uint64_t t = __atomic_load_n(&p->t_ns, __ATOMIC_ACQUIRE);
    const uint64_t sc = __atomic_load_n(&p->sc, __ATOMIC_RELAXED);
    const uint64_t aux = __atomic_load_n(&p->aux, __ATOMIC_RELAXED);
    const uint64_t aux2 = __atomic_load_n(&p->aux2, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__builtin_expect(t - s->lo > s->range || __atomic_load_n(&p->t_ns, __ATOMIC_RELAXED) != t, 0)) return 0;
    d->out.rec = (latrec_rec){ .sc = sc, .t_ns = t, .aux = aux, .aux2 = aux2 };
    d->out.t_ns = t;
    d->out.pos = s->cur.pos++;
    if (key64) *key64 = (t - m->base) << shift | i;
    s->p = p + 1;
    return 1;
}

/* Read ring i's next record into *d: 1, or 0 when the ring has no more.
 * The general way also says whether the merge must turn wide. */
static inline __attribute__((always_inline)) int read_one(latrec_merge *m, uint32_t i, struct latrec_merge_src *s,
                                                          struct latrec_merge_rec *d)
{
    return read_plain(m, i, s, d, NULL, 0) || read_slow(m, i, s, d, 0);
}

/* Leaf i's head and the record after it, read afresh (init, repoll) the
 * general way; the tree and the plain reads' bounds are left to be set
 * again (rebuild, which always follows). */
static void load_head(latrec_merge *m, uint32_t i)
{
    struct latrec_merge_src *s = &m->src[i];
    s->h = 0;
    s->buf[0].out.ring = s->buf[1].out.ring = s->ring;
    plain_at(m, s);
    s->has_head = read_slow(m, i, s, HEAD(s), 0);
    s->has_next = s->has_head && read_slow(m, i, s, NEXT(s), 0);
    m->heap_len += s->has_head;
}

/* Leaf i, from its ring's head. */
static key128 leaf_wide(const latrec_merge *m, size_t i)
{
    return i < m->n_src && m->src[i].has_head ? key_of(HEAD(&m->src[i])->out.t_ns, i)
                                              : key_of(UINT64_MAX, EXHAUSTED + i);
}

static uint64_t leaf_narrow(const latrec_merge *m, size_t i)
{
    return i < m->n_src && m->src[i].has_head ? HEAD(&m->src[i])->key64 : exhausted64(m, i);
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

/* The merge key of stamp t_ns of the ring at s. */
static uint64_t src_key(const latrec_merge *m, const struct latrec_merge_src *s, uint64_t t_ns)
{
    return (m->flags & LATREC_MERGE_WALL) ? latrec_wallmap_apply(&s->wall, t_ns) : t_ns;
}

/* The narrow bound: every key the rings can still give. A ring's records
 * lie within its stamps' extremes at open (a record past the largest is
 * skipped as lapped, read/ring.h); one without a bound (max_t_ns 0 with
 * records to come) or a span that leaves no room for the ring bits keeps
 * the merge wide. */
static int narrow_bound(latrec_merge *m)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < m->n_src; i++) {
        const struct latrec_merge_src *s = &m->src[i];
        if (!s->has_head) continue; /* a poll that gives it records plays the tree again */
        if (!s->it.max_t) return 0;
        const uint64_t min_t = m->rings[s->ring].min_t_ns;
        const uint64_t head_t = HEAD(s)->out.rec.t_ns, a = min_t && min_t < head_t ? min_t : head_t;
        const uint64_t ka = src_key(m, s, a), kb = src_key(m, s, s->it.max_t);
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

/* The plain reads' bounds (read_one), per ring: a stamp not 0 and not
 * above the ring's largest (when it has one), and in a narrow merge within
 * the tree's bound, so that its key needs no check. A ring with no head
 * can get an empty range (its largest stamp below the bound): it is read
 * again only after load_head and another rebuild. */
static void plain_bounds(latrec_merge *m)
{
    const uint64_t top = m->base + m->span < m->base ? UINT64_MAX : m->base + m->span;
    for (size_t i = 0; i < m->n_src; i++) {
        struct latrec_merge_src *s = &m->src[i];
        uint64_t lo = 1, hi = s->it.max_t ? s->it.max_t : UINT64_MAX;
        if (m->narrow) {
            if (m->base > lo) lo = m->base;
            if (top < hi) hi = top;
        }
        if (hi < lo) lo = hi = UINT64_MAX;
        s->lo = lo;
        s->range = hi - lo;
    }
}

/* Play the whole tree again from the heads: narrow when allowed and the
 * keys fit, else wide. O(rings): init, polls and new rings only. */
static void rebuild(latrec_merge *m)
{
    m->narrow = !m->widen && narrow_bound(m);
    if (m->narrow) {
        for (size_t i = 0; i < m->n_src; i++) {
            struct latrec_merge_src *s = &m->src[i];
            if (s->has_head) set_key64(m, (uint32_t)i, HEAD(s));
            if (s->has_next) set_key64(m, (uint32_t)i, NEXT(s));
            m->tree[m->leaves + i] = NEXT(s)->key64;
        }
        m->narrow = !m->widen;
    }
    plain_bounds(m);
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

/* The rings' places for n_src leaves and the leaf of each of n rings, in
 * one block (the leaves' first, zeroed; what there was copied over): 0, or
 * -1 when out of memory. */
static int alloc_src(latrec_merge *m, size_t n_src, size_t n)
{
    const size_t src_bytes = n_src * sizeof(*m->src);
    char *b = calloc(1, src_bytes + n * sizeof(*m->leaf_of) + 1);
    if (!b) return -1;
    if (m->src) {
        memcpy(b, m->src, m->n_src * sizeof(*m->src));
        memcpy(b + src_bytes, m->leaf_of, m->n * sizeof(*m->leaf_of));
    }
    free(m->src);
    m->src = (struct latrec_merge_src *)b;
    m->leaf_of = (uint32_t *)(b + src_bytes);
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

    size_t n_ok = 0;
    for (size_t i = 0; i < n; i++) n_ok += rings[i].status == LATREC_RING_OK;
    size_t k = 1;
    while (k < n_ok)
        k *= 2;
    if (alloc_src(m, n_ok, n) < 0 || alloc_trees(m, k) < 0) {
        latrec_merge_free(m);
        return fail(err, errlen, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        m->leaf_of[i] = NO_LEAF;
        if (rings[i].status != LATREC_RING_OK)
            continue;
        struct latrec_merge_src *s = &m->src[m->n_src];
        if (flags & LATREC_MERGE_WALL) {
            char why[LATREC_REASON_LEN];
            if (latrec_wallmap_init(&s->wall, &rings[i], why, sizeof why) != 0) {
                latrec_merge_free(m);
                return fail(err, errlen, "%s: %s", rings[i].path, why);
            }
        }
        s->ring = (uint32_t)i;
        m->leaf_of[i] = (uint32_t)m->n_src;
        latrec_ring_cursor_init(&s->cur);
        latrec_ring_iter_of(&rings[i], &s->it);
        load_head(m, (uint32_t)m->n_src++);
    }
    rebuild(m);
    return 0;
}

/* The winner, ring i, goes out: its head to *o, the record after it (read
 * ahead) becomes its head, and the one after that is read into the old
 * head's place while the next winner's record goes out. Its new key (or
 * the exhausted one) is what replays its matches; 0 when it has no head
 * left. */
#define TAKE(o, s)                                                                                                     \
    do {                                                                                                               \
        *(o) = HEAD(s)->out;                                                                                           \
        if (__builtin_expect(!(s)->has_next, 0)) {                                                                     \
            (s)->has_head = 0;                                                                                         \
            m->heap_len--;                                                                                             \
        }                                                                                                              \
    } while (0)

/* latrec_merge_fill on the narrow tree of 2^shift leaves (a constant in
 * each of fill_narrow's callers); stops early when the merge must turn
 * wide. */
static inline __attribute__((always_inline)) size_t fill_narrow(latrec_merge *m, latrec_merged *out, size_t max,
                                                                uint64_t limit, const unsigned shift)
{
    struct latrec_merge_src *const src = m->src;
    uint64_t *const tree = m->tree;
    const size_t leaves = (size_t)1 << shift;
    const uint64_t ring_mask = leaves - 1;
    if (limit < m->base) return 0;
    /* the limit as a narrow key: every key at or below it goes out (an
     * exhausted ring's key, every key bit set, is above any) */
    const uint64_t lim64 = limit - m->base > m->span ? m->span : limit - m->base;
    const uint64_t lim_key = lim64 << shift | ring_mask;
    uint64_t w = tree[0];
    size_t n = 0;
    while (n < max && w <= lim_key) {
        const uint32_t i = (uint32_t)(w & ring_mask);
        struct latrec_merge_src *s = &src[i];
        out[n++] = HEAD(s)->out;
        if (__builtin_expect(!s->has_next, 0)) { /* TAKE's, tested once (out may alias s) */
            s->has_head = 0;
            m->heap_len--;
            w = replay_narrow(tree, leaves, shift, i, exhausted64(m, i));
            continue;
        }
        w = replay_narrow(tree, leaves, shift, i, tree[leaves + i]);
        struct latrec_merge_rec *d = HEAD(s);
        s->h ^= 1;
        if (read_plain(m, i, s, d, &tree[leaves + i], shift)) continue;
        s->has_next = read_slow(m, i, s, d, 1);
        tree[leaves + i] = d->key64;
        if (__builtin_expect(m->widen, 0)) break;
    }
    return n;
}

/* latrec_merge_fill on the wide tree. */
static size_t fill_wide(latrec_merge *m, latrec_merged *out, size_t max, uint64_t limit)
{
    struct latrec_merge_src *const src = m->src;
    struct latrec_merge_ent *const heap = m->heap;
    const size_t leaves = m->leaves;
    key128 w = heap[0].k;
    size_t n = 0;
    while (n < max && !exhausted(w) && (uint64_t)(w >> 64) <= limit) {
        const uint32_t i = ring_of(w);
        struct latrec_merge_src *s = &src[i];
        TAKE(&out[n++], s);
        if (!s->has_head) {
            w = replay_wide(heap, leaves, i, key_of(UINT64_MAX, EXHAUSTED + i));
            continue;
        }
        w = replay_wide(heap, leaves, i, key_of(NEXT(s)->out.t_ns, i));
        struct latrec_merge_rec *d = HEAD(s);
        s->h ^= 1;
        s->has_next = read_one(m, i, s, d);
    }
    return n;
}

/* The narrow fill for this merge's tree, its shape a constant (up to 64
 * rings). */
static size_t fill_narrow_any(latrec_merge *m, latrec_merged *out, size_t max, uint64_t limit)
{
    switch (m->shift) {
    case 0: return fill_narrow(m, out, max, limit, 0);
    case 1: return fill_narrow(m, out, max, limit, 1);
    case 2: return fill_narrow(m, out, max, limit, 2);
    case 3: return fill_narrow(m, out, max, limit, 3);
    case 4: return fill_narrow(m, out, max, limit, 4);
    case 5: return fill_narrow(m, out, max, limit, 5);
    case 6: return fill_narrow(m, out, max, limit, 6);
    default: return fill_narrow(m, out, max, limit, m->shift);
    }
}

size_t latrec_merge_fill(latrec_merge *m, latrec_merged *out, size_t max, uint64_t limit)
{
    if (m->narrow && m->widen) rebuild(m); /* a key outside the narrow bound: wide from now on */
    if (m->heap_len == 0) return 0;
    if (!m->narrow) return fill_wide(m, out, max, limit);
    size_t n = fill_narrow_any(m, out, max, limit);
    if (m->widen) {
        rebuild(m);
        n += fill_wide(m, out + n, max - n, limit);
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
    *key = HEAD(&m->src[i])->out.t_ns;
    return 1;
}

latrec_cursor *latrec_merge_cursor(latrec_merge *m, size_t i)
{
    if (m->leaf_of[i] != NO_LEAF) return &m->src[m->leaf_of[i]].cur;
    latrec_ring_cursor_init(&m->no_cursor); /* a ring left out: nothing visited */
    return &m->no_cursor;
}

uint64_t latrec_merge_key(const latrec_merge *m, size_t i, uint64_t t_ns)
{
    return m->leaf_of[i] != NO_LEAF ? src_key(m, &m->src[m->leaf_of[i]], t_ns) : t_ns;
}

/* Take a head for leaf i when it has none: 1 when it has one now. The
 * tree is left to the caller to play again (a ring joining changes
 * matches off the winner's path). */
static int repoll_leaf(latrec_merge *m, size_t i)
{
    struct latrec_merge_src *s = &m->src[i];
    if (s->has_head) return 1;
    if (s->no_wall) return 0;
    latrec_ring_iter_of(&m->rings[s->ring], &s->it); /* a poll may have moved them */
    load_head(m, (uint32_t)i);
    return s->has_head;
}

int latrec_merge_repoll(latrec_merge *m, size_t i)
{
    const uint32_t leaf = m->leaf_of[i];
    if (leaf == NO_LEAF) return 0;
    if (m->src[leaf].has_head) return 1;
    if (!repoll_leaf(m, leaf)) return 0;
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
    size_t n_ok = m->n_src;
    for (size_t i = m->n; i < n; i++) n_ok += rings[i].status == LATREC_RING_OK;
    if (alloc_src(m, n_ok, n) < 0 || grow_tree(m, n_ok) < 0) return fail(err, errlen, "out of memory");
    int rc = 0;
    const size_t from = m->n_src;
    for (size_t i = m->n; i < n; i++) {
        m->leaf_of[i] = NO_LEAF;
        if (rings[i].status != LATREC_RING_OK) continue;
        struct latrec_merge_src *s = &m->src[m->n_src];
        s->ring = (uint32_t)i;
        m->leaf_of[i] = (uint32_t)m->n_src++;
        latrec_ring_cursor_init(&s->cur);
        char why[LATREC_REASON_LEN];
        if ((m->flags & LATREC_MERGE_WALL) && latrec_wallmap_init(&s->wall, &rings[i], why, sizeof(why)) != 0) {
            s->no_wall = 1;
            if (rc == 0) rc = fail(err, errlen, "%s: %s", rings[i].path, why);
        }
    }
    m->n = n;
    for (size_t i = from; i < m->n_src; i++) repoll_leaf(m, i);
    rebuild(m);
    return rc;
}

void latrec_merge_free(latrec_merge *m)
{
    free(m->src); /* and leaf_of after it */
    free(m->heap); /* and the narrow tree after it */
    memset(m, 0, sizeof *m);
}
