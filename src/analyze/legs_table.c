/* Where open instances are kept when a window's entry cannot take them
 * (legs_impl.h): the windows' growth, and the overflow table of the
 * instances no window holds (collisions, discovery groups), in buckets of
 * SLOT_LANES consecutive seqs of one (process, leg key), linear probing. */
#include "analyze/legs_impl.h"

#include <stdlib.h>
#include <string.h>

/* Fibonacci hashing: seq has 48 bits, process and leg go above it and into
 * its top, and the top bits of one product, where every input bit has
 * reached, are the home slot (home_of). pl is SLOT_PL(process, legkey). */
static inline uint64_t hash_key(uint64_t seq_hi, uint64_t pl)
{
    return (seq_hi ^ (pl >> 32) << 40 ^ (pl & 0xFFFFFFFFull) << 52) * 0x9E3779B97F4A7C15ull;
}

static inline size_t home_of(const latrec_legs *b, uint64_t hash) { return (size_t)(hash >> b->table_shift); }

/* The bucket of (seq, pl) (its hash: hash_key(seq / SLOT_LANES, pl)), or
 * the empty one where it would go. */
static inline struct slot *find_slot_hashed(latrec_legs *b, uint64_t hash, uint64_t seq, uint64_t pl)
{
    const size_t mask = b->table_cap - 1;
    const uint64_t hi = seq / SLOT_LANES;
    for (size_t i = home_of(b, hash);; i = (i + 1) & mask) {
        struct slot *s = &b->table[i];
        if (!s->used || (s->seq_hi == hi && s->pl == pl)) return s;
    }
}

static inline struct slot *find_slot(latrec_legs *b, uint64_t seq, uint64_t pl)
{
    return find_slot_hashed(b, hash_key(seq / SLOT_LANES, pl), seq, pl);
}

struct slot *latrec_legs_table_new(size_t cap)
{
    struct slot *t = aligned_alloc(64, cap * sizeof(*t));
    if (t) memset(t, 0, cap * sizeof(*t));
    return t;
}

static int grow_table(latrec_legs *b)
{
    struct slot *old = b->table;
    size_t old_cap = b->table_cap;
    struct slot *t = latrec_legs_table_new(old_cap * 2);
    if (!t) return -1;
    b->table = t;
    b->table_cap = old_cap * 2;
    b->table_shift--;
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].used) continue;
        size_t j = home_of(b, old[i].hash);
        while (t[j].used) j = (j + 1) & (b->table_cap - 1);
        t[j] = old[i];
    }
    free(old);
    return 0;
}

/* Remove an emptied bucket with backward-shift deletion (linear probing
 * stays valid). */
static void remove_slot(latrec_legs *b, struct slot *s)
{
    size_t mask = b->table_cap - 1;
    size_t i = (size_t)(s - b->table);
    for (size_t j = (i + 1) & mask; b->table[j].used; j = (j + 1) & mask) {
        size_t home = home_of(b, b->table[j].hash);
        /* Move j back to i when its home is not within (i, j]. */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            b->table[i] = b->table[j];
            i = j;
        }
    }
    b->table[i] = (struct slot){ 0 };
    b->n_slots--;
}

/* Put node n in slot s (found by find_slot for its key). */
static void slot_put(latrec_legs *b, struct slot *s, uint64_t seq, uint64_t pl, struct node *n)
{
    if (!s->used) {
        s->seq_hi = seq / SLOT_LANES;
        s->pl = pl;
        s->hash = hash_key(s->seq_hi, pl);
        b->n_slots++;
    }
    s->used++;
    SLOT_NODE(s, seq) = n;
}

/* Take seq's node out of slot s; the bucket goes when it empties. */
static void slot_drop(latrec_legs *b, struct slot *s, uint64_t seq)
{
    SLOT_NODE(s, seq) = NULL;
    if (!--s->used) remove_slot(b, s);
}

struct node *latrec_legs_table_get(latrec_legs *b, uint64_t seq, uint64_t pl)
{
    return SLOT_NODE(find_slot(b, seq, pl), seq);
}

int latrec_legs_table_put(latrec_legs *b, uint64_t seq, uint64_t pl, struct node *n)
{
    if ((b->n_slots + 1) * 2 > b->table_cap && grow_table(b) < 0) return -1;
    slot_put(b, find_slot(b, seq, pl), seq, pl, n);
    return 0;
}

void latrec_legs_table_drop(latrec_legs *b, uint64_t seq, uint64_t pl)
{
    slot_drop(b, find_slot(b, seq, pl), seq);
}

/* ---- windows ---------------------------------------------------------------- */

static struct node *no_nodes[1]; /* every empty window's one entry: read, never written */

void latrec_legs_wins_init(latrec_legs *b, size_t from, size_t to)
{
    for (size_t i = from * (size_t)b->n_cat_legs; i < to * (size_t)b->n_cat_legs; i++)
        b->wins[i] = (struct win){ no_nodes, 0, 0, 0, 0 };
}

/* A window of twice the entries (or its first): its live entries keep
 * their seqs, so no two land on one entry. 0, or -1. */
static int grow_win(struct win *w)
{
    const uint32_t cap = w->cap ? w->cap * 2 : WIN_MIN;
    struct node **e = calloc(cap, sizeof(*e));
    if (!e) return -1;
    for (uint32_t i = 0; i < w->cap; i++)
        if (w->e[i]) e[NODE_INST(w->e[i])->seq & (cap - 1)] = w->e[i];
    if (w->cap) free(w->e);
    w->e = e;
    w->cap = cap;
    w->mask = cap - 1;
    return 0;
}

/* legs_impl.h */
int latrec_legs_insert_slow(latrec_legs *b, uint32_t process, int32_t legkey, uint64_t seq, struct node *n)
{
    struct win *w = NULL;
    if (legkey >= 0) {
        w = win_of(b, process, legkey);
        if (!w->cap || (w->e[seq & w->mask] && w->n * 4 >= w->cap && w->cap < WIN_MAX))
            (void)grow_win(w); /* failing, the overflow table takes it */
        struct node **e = &w->e[seq & w->mask];
        if (w->cap && !*e) {
            *e = n;
            w->n++;
            return 0;
        }
    }
    if (latrec_legs_table_put(b, seq, SLOT_PL(process, legkey), n) < 0) return -1;
    if (w) w->ovf++;
    return 0;
}
