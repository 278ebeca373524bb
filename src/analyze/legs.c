/* Leg instances: key records by (process, leg, seq), end instances, discover
 * uncatalogued chains. */
#include "analyze/legs_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- windows (legs_impl.h; their growth and the overflow table: legs_table.c) ---- */

/* The open instance of a key, or NULL. */
static inline struct node *lookup(latrec_legs *b, uint32_t process, int32_t legkey, uint64_t seq)
{
    if (legkey >= 0) {
        const struct win *w = win_of(b, process, legkey);
        struct node *n = w->e[seq & w->mask];
        if (n && NODE_INST(n)->seq == seq) return n;
        if (!w->ovf) return NULL;
    }
    return latrec_legs_table_get(b, seq, SLOT_PL(process, legkey));
}

/* Index node n under its key (absent until now). 0, or -1. */
static inline int insert(latrec_legs *b, uint32_t process, int32_t legkey, uint64_t seq, struct node *n)
{
    if (legkey >= 0) {
        struct win *w = win_of(b, process, legkey);
        struct node **e = &w->e[seq & w->mask];
        if (LATREC_LIKELY_(!*e && w->cap)) {
            *e = n;
            w->n++;
            return 0;
        }
    }
    return latrec_legs_insert_slow(b, process, legkey, seq, n);
}

/* Take node n (open) out of the index. */
static void unindex(latrec_legs *b, struct node *n)
{
    const latrec_instance *inst = NODE_INST(n);
    if (inst->leg >= 0) {
        struct win *w = win_of(b, inst->process, inst->leg);
        struct node **e = &w->e[inst->seq & w->mask];
        if (*e == n) {
            *e = NULL;
            w->n--;
            return;
        }
        w->ovf--;
    }
    latrec_legs_table_drop(b, inst->seq, SLOT_PL(inst->process, inst->leg));
}

/* Bytes of a node with n_slots hits, in whole lines (a discovery group's
 * size class also holds its stage list). */
static size_t node_bytes(int n_slots)
{
    size_t sz = sizeof(struct node) + sizeof(latrec_instance) + (size_t)n_slots * sizeof(latrec_hit);
    if (n_slots == DISC_HITS) sz += sizeof(struct disc);
    return (sz + 63) & ~(size_t)63;
}

/* A class's next slab: twice the nodes of its last one, and past 256 KiB a
 * huge page (2 MiB, asked for with MADV_HUGEPAGE): the thousands of nodes
 * waiting in grace are ended in an order that walks them, and a TLB entry
 * covers thousands of them. */
static int new_slab(latrec_legs *b, struct node_class *c, size_t bytes)
{
    if (b->n_slabs == b->cap_slabs) {
        size_t cap = b->cap_slabs ? b->cap_slabs * 2 : 16;
        void **slabs = realloc(b->slabs, cap * sizeof(*slabs));
        if (!slabs) return -1;
        b->slabs = slabs;
        b->cap_slabs = cap;
    }
    size_t nodes = c->slab_nodes ? c->slab_nodes * 2 : SLAB_NODES;
    const int huge = nodes * bytes > SLAB_HUGE / 8; /* past 256 KiB: whole huge pages */
    if (huge) nodes = SLAB_HUGE / bytes;
    char *p = aligned_alloc(huge ? SLAB_HUGE : 64, huge ? SLAB_HUGE : nodes * bytes);
    if (!p) return -1;
    if (huge) madvise(p, SLAB_HUGE, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
    b->slabs[b->n_slabs++] = p;
    c->slab_nodes = nodes;
    c->slab = p;
    c->slab_left = nodes;
    return 0;
}

/* Zero the hits of a node: whole lines (two hits each; the node ends on a
 * line boundary), spelled out for the usual sizes so that no loop branch
 * is left to guess. A node waiting on a free list has its hits zeroed (an
 * instance shows absent stages as zero hits): a new one here, an ended
 * one by end_node, so that opening one writes none of them. */
static inline void zero_hits(struct node *n, int n_slots)
{
    char *h = (char *)NODE_INST(n)->hits;
    switch ((n_slots + 1) / 2) {
    case 4: memset(h + 192, 0, 64); /* fall through */
    case 3: memset(h + 128, 0, 64); /* fall through */
    case 2: memset(h + 64, 0, 64);  /* fall through */
    case 1: memset(h, 0, 64);       /* fall through */
    case 0: break;
    default: memset(h, 0, (size_t)n_slots * sizeof(latrec_hit));
    }
}

/* new_node() with an empty free list: the next node of a slab. */
static __attribute__((noinline)) struct node *slab_node(latrec_legs *b, int n_slots)
{
    struct node_class *c = &b->classes[n_slots];
    const size_t bytes = node_bytes(n_slots);
    if (!c->slab_left && new_slab(b, c, bytes) < 0) return NULL;
    struct node *n = (struct node *)c->slab;
    c->slab += bytes;
    c->slab_left--;
    zero_hits(n, n_slots);
    return n;
}

/* A node with n_slots hits; the caller fills the rest (open_node).
 * The free list is last-in first-out: the node ended just now, still in
 * cache, is the one reused. */
static inline struct node *new_node(latrec_legs *b, int n_slots)
{
    struct node_class *c = &b->classes[n_slots];
    struct node *n = c->free;
    if (LATREC_UNLIKELY_(!n)) return slab_node(b, n_slots);
    c->free = n->next;
    return n;
}

/* ---- the open queue (legs_impl.h) -------------------------------------------------- */

/* The holes at the open queue's front dropped (an instance that ended
 * leaves one, and whether it was the front is a coin toss to a branch
 * predictor: they are dropped when the front is asked for). */
static void open_front(latrec_legs *b)
{
    const uint64_t mask = b->oq_cap - 1;
    while (b->oq_len && !b->oq[b->oq_head & mask]) {
        b->oq_head++;
        b->oq_len--;
    }
}

/* The oldest open instance, or NULL. */
static inline struct node *oldest(latrec_legs *b)
{
    open_front(b);
    return b->oq_len ? b->oq[b->oq_head & (b->oq_cap - 1)] : NULL;
}

/* hdue made exact again: the front's horizon deadline (it may come
 * before `due`). */
static void open_front_due(latrec_legs *b)
{
    const struct node *n = oldest(b);
    b->hdue = n ? due_after(NODE_INST(n)->first_t, b->horizon) : UINT64_MAX;
    if (b->hdue < b->due) b->due = b->hdue;
}

/* Room for one more open queue entry: compact when holes are most of it,
 * else double it. 0, or -1 when out of memory. */
static __attribute__((noinline)) int open_room(latrec_legs *b)
{
    const uint64_t mask = b->oq_cap - 1;
    open_front(b); /* without touching a node, and enough when it frees a quarter */
    if (b->oq_cap && b->oq_len <= b->oq_cap - b->oq_cap / 4) return 0;
    if (b->oq_len >= 64 && b->n_open < b->oq_len / 2) {
        uint64_t to = b->oq_head;
        for (uint64_t from = b->oq_head; from < b->oq_head + b->oq_len; from++) {
            struct node *n = b->oq[from & mask];
            if (!n) continue;
            n->opos = (uint32_t)to;
            b->oq[to++ & mask] = n;
        }
        b->oq_len = to - b->oq_head;
        return 0;
    }
    const uint64_t cap = b->oq_cap ? b->oq_cap * 2 : 1024;
    if (cap > (1ull << 32)) return -1; /* a node keeps its position mod 2^32 */
    struct node **q = malloc(cap * sizeof(*q));
    if (!q) return -1;
    for (uint64_t p = b->oq_head; p < b->oq_head + b->oq_len; p++) q[p & (cap - 1)] = b->oq[p & mask];
    free(b->oq);
    b->oq = q;
    b->oq_cap = cap;
    return 0;
}

/* ---- ending instances ----------------------------------------------------- */

/* Two chain stages stamped by one ring (one thread: its time order is its
 * program order) in the reverse of the chain's order: the catalog's chain
 * is out of order (across rings, a negative hop is a clock regression). */
static void note_reversed(latrec_legs *b, const latrec_leg *leg, const latrec_instance *inst)
{
    const int l = inst->leg;
    b->leg_ended[l]++;
    /* Stamps in chain order, the usual case: no pair is reversed. */
    int ordered = 1;
    if (inst->complete) { /* every chain stamp there (none is 0): spelled out, no loop branch to guess */
        const latrec_hit *h = inst->hits;
        int bad = 0;
        switch (leg->n_chain) {
        default:
            for (int i = 8; i < leg->n_chain; i++) bad |= h[i].t_ns < h[i - 1].t_ns;
            /* fall through */
        case 8: bad |= h[7].t_ns < h[6].t_ns; /* fall through */
        case 7: bad |= h[6].t_ns < h[5].t_ns; /* fall through */
        case 6: bad |= h[5].t_ns < h[4].t_ns; /* fall through */
        case 5: bad |= h[4].t_ns < h[3].t_ns; /* fall through */
        case 4: bad |= h[3].t_ns < h[2].t_ns; /* fall through */
        case 3: bad |= h[2].t_ns < h[1].t_ns; /* fall through */
        case 2: bad |= h[1].t_ns < h[0].t_ns; /* fall through */
        case 1:
        case 0: break;
        }
        ordered = !bad;
    } else {
        uint64_t last = 0;
        for (int i = 0; i < leg->n_chain && ordered; i++) {
            const uint64_t t = inst->hits[i].t_ns;
            if (!t) continue;
            ordered = t >= last;
            last = t;
        }
    }
    if (ordered) return;
    for (int i = 0; i < leg->n_chain; i++) {
        const latrec_hit *a = &inst->hits[i];
        if (!a->t_ns) continue;
        for (int j = i + 1; j < leg->n_chain; j++) {
            const latrec_hit *z = &inst->hits[j];
            if (!z->t_ns || z->ring != a->ring || z->t_ns >= a->t_ns) continue;
            b->cross++; /* which pair is named first follows the order instances end */
            if (!b->leg_reversed[l]++) {
                b->leg_reversed_pair[l][0] = leg->chain[i];
                b->leg_reversed_pair[l][1] = leg->chain[j];
            }
            return;
        }
    }
}

/* End a catalog leg's instance: complete or not, its component (the ring
 * of its last chain stage present, else of its last extra). */
static void end_instance(latrec_legs *b, struct node *n, latrec_instance *inst)
{
    const latrec_leg *leg = &b->legs[inst->leg];
    const uint32_t have = n->have & NODE_HITS, chain = (1u << leg->n_chain) - 1;
    const uint32_t last_of = have & chain ? have & chain : have;
    const int last = last_of ? 31 - __builtin_clz(last_of) : 0; /* 0: no stamp but t_ns 0 (hits[0] zero) */
    inst->complete = (have & chain) == chain;
    inst->component = b->ring_component[inst->hits[last].ring];
    note_reversed(b, leg, inst);
    b->emit(b->ctx, inst);
}

/* End node n: hand its instance to emit, then drop it from the index, the
 * grace queue and the open queue. */
static __attribute__((noinline)) void end_node(latrec_legs *b, struct node *n)
{
    latrec_instance *inst = NODE_INST(n);
    const int32_t legkey = inst->leg;
    const int n_slots = inst->n_hits;
    unindex(b, n);
    if (legkey < 0) {
        int leg = latrec_legs_discovered_leg(b, n);
        inst->leg = leg;
        inst->complete = 1;
        inst->n_hits = NODE_DISC(n)->n;
        inst->component = -legkey - 1;
        if (leg >= 0) b->emit(b->ctx, inst);
    } else {
        end_instance(b, n, inst);
    }
    if (n->have & NODE_GRACE) {
        b->gq[n->gpos & (b->gq_cap - 1)].node = NULL;
        b->gq_holes++;
    }
    b->oq[n->opos & (b->oq_cap - 1)] = NULL;
    b->n_open--; /* hdue stays a lower bound of the front's (open_front) */
    zero_hits(n, n_slots);
    n->next = b->classes[n_slots].free;
    b->classes[n_slots].free = n;
}

uint64_t latrec_legs_next_cut(const latrec_legs *b)
{
    for (uint64_t p = b->oq_head; p < b->oq_head + b->oq_len; p++) {
        const struct node *n = b->oq[p & (b->oq_cap - 1)];
        if (n) return due_after(NODE_INST(n)->first_t, b->horizon);
    }
    return UINT64_MAX;
}

void latrec_legs_finish(latrec_legs *b)
{
    latrec_legs_settle(b);
    for (struct node *n; (n = oldest(b));) end_node(b, n);
}

/* ---- feeding -------------------------------------------------------------- */

/* Node n (new, indexed, first stamped at t) at the back of the open queue
 * (room checked). */
static inline __attribute__((always_inline)) void open_queued(latrec_legs *b, struct node *n, uint64_t t)
{
    const uint64_t pos = b->oq_head + b->oq_len++;
    n->opos = (uint32_t)pos;
    b->oq[pos & (b->oq_cap - 1)] = n;
    if (pos == b->oq_head) { /* the front now */
        b->hdue = due_after(t, b->horizon);
        if (b->hdue < b->due) b->due = b->hdue;
    }
    b->n_open++;
}

/* A new instance of a key none is open for. */
static inline __attribute__((always_inline)) struct node *open_node(latrec_legs *b, uint64_t seq, uint32_t process,
                                                                    int32_t legkey, int n_slots, uint64_t t)
{
    if (LATREC_UNLIKELY_(b->oq_len == b->oq_cap) && open_room(b) < 0) return NULL;
    struct node *n = new_node(b, n_slots);
    if (!n) return NULL;
    if (insert(b, process, legkey, seq, n) < 0) {
        n->next = b->classes[n_slots].free;
        b->classes[n_slots].free = n;
        return NULL;
    }
    n->have = 0;
    latrec_instance *inst = NODE_INST(n);
    inst->leg = legkey;
    inst->process = process;
    inst->seq = seq;
    inst->component = 0;
    inst->complete = 0;
    inst->first_t = t;
    inst->n_hits = n_slots;
    if (legkey < 0) NODE_DISC(n)->n = 0;
    open_queued(b, n, t); /* its hits zeroed on the free list (zero_hits) */
    return n;
}

static void set_hit(latrec_hit *h, uint32_t ring, const latrec_rec *rec)
{
    h->t_ns = rec->t_ns;
    h->aux = rec->aux;
    h->aux2 = rec->aux2;
    h->ring = ring;
    h->cpu = latrec_rec_cpu(rec->sc);
}

/* An instance cut short: not one already complete and waiting for late
 * extras, and not a discovery group (those have no last stage; the horizon
 * is how they normally end, and they count as complete). */
static int counts_as_evicted(const struct node *n)
{
    return !(n->have & NODE_GRACE) && NODE_INST(n)->leg >= 0;
}

/* Ask for the node of the grace entry GRACE_AHEAD behind the front: it is
 * about to be ended, and it was last touched a grace period of records ago. (Inlined: a function that only prefetches looks
 * pure to the compiler, and calls to it vanish.) */
static inline __attribute__((always_inline)) void fetch_ahead(const latrec_legs *b)
{
    if (b->gq_len <= GRACE_AHEAD) return;
    const struct grace *g = &b->gq[(b->gq_head + GRACE_AHEAD) & (b->gq_cap - 1)];
    if (!g->node) return;
    const char *n = (const char *)g->node; /* the lines a leg of a few stages uses (nodes start a line) */
    for (size_t off = 0; off < sizeof(struct node) + sizeof(latrec_instance) + 6 * sizeof(latrec_hit); off += 64)
        __builtin_prefetch(n + off);
}

static inline __attribute__((always_inline)) void evict(latrec_legs *b, uint64_t now)
{
    while (b->gq_len) {
        const struct grace *g = &b->gq[b->gq_head & (b->gq_cap - 1)];
        struct node *n = g->node;
        if (n) {
            if (due_after(g->done_t, b->grace) >= now) break;
            n->have &= ~NODE_GRACE; /* its entry leaves the queue here, not as a hole */
            end_node(b, n);
        }
        b->gq_head++;
        b->gq_len--;
        b->gq_holes -= n == NULL;
        fetch_ahead(b);
    }
    while (b->hdue < now) { /* the open queue's front may be past the horizon */
        open_front_due(b);
        if (b->hdue >= now) break;
        struct node *n = oldest(b);
        b->cut_horizon += counts_as_evicted(n);
        end_node(b, n);
    }
    /* Nothing more is due until the grace queue front's grace or the open
     * queue front's horizon (hdue) ends. */
    uint64_t due = b->hdue;
    if (b->gq_len) {
        const struct grace *g = &b->gq[b->gq_head & (b->gq_cap - 1)];
        const uint64_t gdue = due_after(g->done_t, b->grace);
        if (gdue < due) due = gdue;
    }
    b->due = due;
}

/* evict, out of line: the rare paths catch up through it. */
static __attribute__((noinline)) void feed_evict(latrec_legs *b, uint64_t now)
{
    evict(b, now);
}

/* Make room for one more open instance: at most max_open are ever open. */
static void make_room(latrec_legs *b)
{
    b->cross++;
    for (struct node *n; (n = oldest(b)) && b->n_open >= b->max_open;) {
        b->cut_room += counts_as_evicted(n);
        end_node(b, n);
    }
}

static int feed_discovery(latrec_legs *b, uint32_t ring, const latrec_rec *rec, unsigned stage, uint64_t seq,
                          uint32_t process)
{
    int32_t legkey = -(b->ring_component[ring] + 1);
    b->cross++; /* discovered legs are numbered in the order their groups end */
    struct node *n = lookup(b, process, legkey, seq);
    const uint8_t *again = n ? memchr(NODE_DISC(n)->stage, (int)stage, NODE_DISC(n)->n) : NULL;
    if (n && (NODE_DISC(n)->n == DISC_HITS || again)) {
        /* as in feed_general: from another ring of a process known by its pid */
        if (again && b->processes[process].pid)
            b->disc_twice[b->ring_cat[ring]] += NODE_INST(n)->hits[again - NODE_DISC(n)->stage].ring != ring;
        end_node(b, n);
        n = NULL;
    }
    if (!n && b->n_open >= b->max_open) make_room(b);
    if (!n && !(n = open_node(b, seq, process, legkey, DISC_HITS, rec->t_ns))) return -2;
    struct disc *d = NODE_DISC(n);
    set_hit(&NODE_INST(n)->hits[d->n], ring, rec);
    if (rec->t_ns) n->have |= 1u << d->n;
    d->stage[d->n++] = (uint8_t)stage;
    return -1;
}

/* 1 when instance n holds a stamp of a ring of role `role`. */
static int node_has_role(const latrec_legs *b, const struct node *n, int role)
{
    const latrec_instance *inst = NODE_INST(n);
    for (uint32_t have = n->have & NODE_HITS; have; have &= have - 1)
        if (b->ring_role[inst->hits[__builtin_ctz(have)].ring] == role) return 1;
    return 0;
}

/* The candidate leg of a record of `stage` on a ring of role `role`. A chain
 * stage goes to the first candidate with an open instance for the key, else
 * to the first candidate. An extra (DROP, SKIPPED) shares its seq counter
 * with the chain stages stamped by its thread family, and equal seqs of two
 * families are normal (libE3's outbound and inbound counters): it joins an
 * open instance only when that instance holds a stamp of the same role,
 * else it opens one of the first leg known to be stamped by that role, else
 * of the first leg without an open instance for the key. */
static const struct cand *pick_cand(latrec_legs *b, int cat, unsigned stage, uint64_t seq, uint32_t process,
                                    int role, struct node **np)
{
    const struct cand *cands = b->cands[cat][stage];
    const int n = b->n_cands[cat][stage];
    if (n == 1) { /* the usual stage: its one leg, open or not */
        *np = lookup(b, process, cands[0].leg, seq);
        return &cands[0];
    }
    int learned = -1, free_slot = -1;
    for (int i = 0; i < n; i++) {
        struct node *o = lookup(b, process, cands[i].leg, seq);
        if (o && (!cands[i].extra || n == 1 || node_has_role(b, o, role))) {
            *np = o;
            return &cands[i];
        }
        if (!o && free_slot < 0) free_slot = i;
        if (!o && learned < 0 && cands[i].extra && b->leg_roles[(size_t)role * b->leg_roles_stride + (size_t)cands[i].leg])
            learned = i;
    }
    int pick = cands[0].extra ? (learned >= 0 ? learned : free_slot >= 0 ? free_slot : 0) : 0;
    b->cross += cands[0].extra; /* leg_roles: what the role stamped in any process */
    *np = lookup(b, process, cands[pick].leg, seq);
    return &cands[pick];
}

/* Drop the grace queue's holes: the entries keep their order, and each
 * node learns its new position. */
static void compact_grace(latrec_legs *b)
{
    const uint64_t mask = b->gq_cap - 1;
    uint64_t to = b->gq_head;
    for (uint64_t from = b->gq_head; from < b->gq_head + b->gq_len; from++) {
        struct grace g = b->gq[from & mask];
        if (!g.node) continue;
        g.node->gpos = (uint32_t)to;
        b->gq[to++ & mask] = g;
    }
    b->gq_len = to - b->gq_head;
    b->gq_holes = 0;
}

/* Room for one more grace entry: compact when holes are most of the queue,
 * else double it. 0, or -1 when out of memory. */
static __attribute__((noinline)) int grace_room(latrec_legs *b)
{
    if (b->gq_len < b->gq_cap) return 0;
    if (b->gq_len >= 64 && b->gq_len - b->gq_holes < b->gq_len / 2) {
        compact_grace(b);
        return 0;
    }
    uint64_t cap = b->gq_cap ? b->gq_cap * 2 : 1024;
    if (cap > (1ull << 32)) return -1; /* a node keeps its position mod 2^32 */
    struct grace *q = malloc(cap * sizeof(*q));
    if (!q) return -1;
    for (uint64_t p = b->gq_head; p < b->gq_head + b->gq_len; p++) q[p & (cap - 1)] = b->gq[p & (b->gq_cap - 1)];
    free(b->gq);
    b->gq = q;
    b->gq_cap = cap;
    return 0;
}

/* Put a complete-so-far instance on the grace queue: it waits there for
 * late extras, and for chain stages a clock regression across two rings
 * put after its last one in time order. 0, or -1 when out of memory. */
static inline int start_grace(latrec_legs *b, struct node *n, uint64_t t)
{
    if (LATREC_UNLIKELY_(b->gq_len == b->gq_cap) && grace_room(b) < 0) return -1;
    const uint64_t pos = b->gq_head + b->gq_len++;
    n->have |= NODE_GRACE;
    n->gpos = (uint32_t)pos;
    const uint64_t gdue = due_after(t, b->grace);
    if (gdue < b->due) b->due = gdue;
    b->gq[pos & (b->gq_cap - 1)] = (struct grace){ n, t };
    return 0;
}

/* The stage just placed may complete node n: end it, or start its
 * grace. */
static __attribute__((noinline)) int placed_last(latrec_legs *b, struct node *n, const struct cand *c, uint64_t t)
{
    if (n->have & NODE_GRACE) {
        if ((n->have & c->all) == c->all) end_node(b, n);
    } else if ((n->have & c->before) == c->before && c->no_extras) {
        end_node(b, n);
    } else if (start_grace(b, n, t) < 0) { /* a late extra (WAIT_ENTER, DROP) or chain stage may follow */
        return -2;
    }
    return c->leg;
}

/* Node n's first stamp moved back to t: its horizon comes earlier, which
 * is the open queue's next deadline when n is its front (hdue stays a
 * lower bound of it either way). */
static __attribute__((noinline)) void earlier_first(latrec_legs *b, struct node *n, uint64_t t)
{
    NODE_INST(n)->first_t = t;
    const uint64_t d = due_after(t, b->horizon);
    if (d < b->hdue) b->hdue = d;
    if (d < b->due) b->due = d;
}

/* The last chain stage of a leg with extras starts the instance's grace
 * (start_grace) without a branch to guess (a mispredicted branch costs
 * more than these stores): any other stage writes the free entry past the
 * grace queue's back and leaves it there. The caller has checked that the
 * queue has room and holds an entry, that n is not in grace and that c
 * does not end it. `due` stays as it is: a lower bound of the front's
 * deadline already, which comes no later than this one (stamps come in
 * time order; a stamp of 0 comes here only behind the front, where the
 * front ends first anyway). */
static inline __attribute__((always_inline)) int grace_have(latrec_legs *b, struct node *n, const struct cand *c,
                                                            uint64_t t, uint32_t have)
{
    const uint32_t last = c->last;
    const uint64_t pos = b->gq_head + b->gq_len;
    b->gq[pos & (b->gq_cap - 1)] = (struct grace){ n, t };
    n->gpos = (uint32_t)pos;
    n->have = have | last << 31; /* NODE_GRACE */
    b->gq_len += last;
    return c->leg;
}

/* grace_have with have n's own. */
static inline __attribute__((always_inline)) int grace_if_last(latrec_legs *b, struct node *n, const struct cand *c,
                                                               uint64_t t)
{
    return grace_have(b, n, c, t, n->have);
}

/* 1 when placing c in n needs more than grace_if_last: n in grace (when
 * it may be: may_grace), a stage that may end it at once, a full or an
 * empty grace queue. */
static inline __attribute__((always_inline)) int place_slow(const latrec_legs *b, const struct node *n,
                                                            const struct cand *c, const int may_grace)
{
    return (may_grace && (n->have & NODE_GRACE)) | c->no_extras | (b->gq_len - 1 >= b->gq_cap - 1); /* full or empty */
}

/* The ends a lazy feed put off (latrec_legs_feed_lazy), before anything
 * that reads or ends an open instance other than the usual record does:
 * every instance due before t ends first, in its order. A no-op after
 * latrec_legs_feed, which ended them already. */
static inline void catch_up(latrec_legs *b, uint64_t t)
{
    if (LATREC_UNLIKELY_(t > b->due)) feed_evict(b, t);
}

/* place() once the record is written, for the rare cases: an earlier first
 * stamp, or place_slow(). (n is not in grace unless it came the general
 * way, which caught up already: catching up ends nothing of n's.) */
static __attribute__((noinline)) int placed_rare(latrec_legs *b, struct node *n, const struct cand *c, uint64_t t)
{
    catch_up(b, t);
    if (t < NODE_INST(n)->first_t) earlier_first(b, n, t);
    if (place_slow(b, n, c, 1)) return c->last || n->have & NODE_GRACE ? placed_last(b, n, c, t) : c->leg;
    return grace_if_last(b, n, c, t);
}

/* Record rec of ring `ring` into node n as candidate c, then end the
 * instance or start its grace when that stage completes it (may_grace 0:
 * the caller knows n is not in grace). The usual record calls nothing but
 * by a tail call, so its path saves no registers. */
static inline __attribute__((always_inline)) int place(latrec_legs *b, struct node *n, const struct cand *c,
                                                        uint32_t ring, const latrec_rec *rec, const int may_grace)
{
    const uint64_t t = rec->t_ns;
    latrec_instance *inst = NODE_INST(n);
    const uint32_t have = n->have | (uint32_t)(t != 0) << c->idx; /* stamped 0: written, yet absent */
    set_hit(&inst->hits[c->idx], ring, rec);
    if (LATREC_UNLIKELY_((t < inst->first_t) | place_slow(b, n, c, may_grace))) {
        n->have = have;
        return placed_rare(b, n, c, t);
    }
    return grace_have(b, n, c, t, have);
}

/* A new instance for rec (none open for its key). */
static __attribute__((noinline)) int feed_open(latrec_legs *b, uint32_t ring, const latrec_rec *rec,
                                               const struct cand *c, uint64_t seq)
{
    const uint32_t process = b->ring_process[ring];
    catch_up(b, rec->t_ns); /* max_open counts what a lazy feed left open */
    if (b->n_open >= b->max_open) make_room(b);
    struct node *n = open_node(b, seq, process, c->leg, c->n_slots, rec->t_ns);
    if (!n) return -2;
    b->ring_roles[ring][c->leg] = 1;
    return place(b, n, c, ring, rec, 0);
}

/* The usual record's new instance: its window's entry for seq is free and
 * no instance of the pair is in the overflow table (feed_usual). What
 * needs room (max_open, the open queue, a first window) goes the general
 * way; with no free node, a slab gives one. */
static __attribute__((noinline)) int feed_new(latrec_legs *b, uint32_t ring, const latrec_rec *rec,
                                              const struct usual *u, uint64_t seq)
{
    const struct cand *c = u->c;
    struct win *w = u->w;
    struct node_class *cl = &b->classes[c->n_slots];
    struct node *n = cl->free;
    if (LATREC_UNLIKELY_(!w->cap || b->n_open >= b->max_open || b->oq_len == b->oq_cap))
        return feed_open(b, ring, rec, c, seq);
    if (LATREC_UNLIKELY_(!n)) { /* a new node, not a catch-up (a lazy feed's ends wait) */
        if (!(n = slab_node(b, c->n_slots))) return feed_open(b, ring, rec, c, seq);
    } else {
        cl->free = n->next;
    }
    w->e[seq & w->mask] = n;
    w->n++;
    n->have = 0;
    latrec_instance *inst = NODE_INST(n);
    inst->leg = c->leg;
    inst->process = b->ring_process[ring];
    inst->seq = seq;
    inst->component = 0;
    inst->complete = 0;
    inst->first_t = rec->t_ns;
    inst->n_hits = c->n_slots;
    open_queued(b, n, rec->t_ns);
    *u->role = 1;
    return place(b, n, c, ring, rec, 0);
}

/* Every case but the usual one: a stage of several legs or of none
 * (discovery), a new instance, a seq used again. */
static __attribute__((noinline)) int feed_general(latrec_legs *b, uint32_t ring, const latrec_rec *rec)
{
    const unsigned stage = latrec_rec_stage(rec->sc);
    const uint64_t seq = latrec_rec_seq(rec->sc);
    const uint32_t process = b->ring_process[ring];
    const int cat = b->ring_cat[ring];
    catch_up(b, rec->t_ns); /* what it finds open is what latrec_legs_feed would */
    if (LATREC_UNLIKELY_(b->n_cands[cat][stage] == 0)) return feed_discovery(b, ring, rec, stage, seq, process);
    if (LATREC_UNLIKELY_(b->n_chain_cands[cat][stage] > 1)) b->shared_recs[cat][stage]++;

    const int role = b->ring_role[ring];
    struct node *n;
    const struct cand *c = pick_cand(b, cat, stage, seq, process, role, &n);
    if (n && (n->have >> c->idx & 1)) { /* seq reuse: the stage is there already */
        /* From another ring of a process known by its pid, while open: two
         * threads stamping the same seqs (a per-thread counter, or a copied
         * ring). Rings without a pid are one process per component by guess
         * only, and processes of their own may well count alike. */
        b->leg_twice[c->leg] += NODE_INST(n)->hits[c->idx].ring != ring && b->processes[process].pid;
        end_node(b, n);
        n = NULL;
    }
    if (!n) return feed_open(b, ring, rec, c, seq);
    b->ring_roles[ring][c->leg] = 1;
    return place(b, n, c, ring, rec, 1);
}

/* The usual record: a stage of one leg, for an open instance that does
 * not hold it yet and is not in grace, found in its window (lookup spelled
 * out); the rest goes elsewhere by tail calls, so this path saves no
 * registers. (An instance in grace may be one a lazy feed left open past
 * its grace: the general way catches up first.) */
static inline __attribute__((always_inline)) int feed_usual(latrec_legs *b, uint32_t ring, const latrec_rec *rec)
{
    const struct usual *u = &b->ring_fast[ring].st[latrec_rec_stage(rec->sc)];
    const struct win *w = u->w;
    if (LATREC_UNLIKELY_(!w)) return feed_general(b, ring, rec);
    const struct cand *c = u->c;
    const uint64_t seq = latrec_rec_seq(rec->sc);
    struct node *n = w->e[seq & w->mask];
    /* Whether a record opens an instance is a coin toss to a branch
     * predictor: a branch on its stage, read from a hot line, is one that
     * is found wrong sooner than one on the window's entry. */
    if (u->first) {
        if (LATREC_LIKELY_(!n)) return w->ovf ? feed_general(b, ring, rec) : feed_new(b, ring, rec, u, seq);
    } else if (LATREC_UNLIKELY_(!n)) {
        return w->ovf ? feed_general(b, ring, rec) : feed_new(b, ring, rec, u, seq);
    }
    if (LATREC_UNLIKELY_(NODE_INST(n)->seq != seq || ((n->have >> c->idx & 1) | (n->have & NODE_GRACE))))
        return feed_general(b, ring, rec);
    *u->role = 1;
    return place(b, n, c, ring, rec, 0);
}

/* A record past `due`: end what is due first. */
static __attribute__((noinline)) int feed_due(latrec_legs *b, uint32_t ring, const latrec_rec *rec)
{
    evict(b, rec->t_ns);
    return feed_usual(b, ring, rec);
}

int latrec_legs_feed(latrec_legs *b, uint32_t ring, const latrec_rec *rec)
{
    if (LATREC_UNLIKELY_(rec->t_ns > b->due)) return feed_due(b, ring, rec);
    return feed_usual(b, ring, rec);
}

/* Past the horizon deadline only: a grace that ran out waits (its end is
 * a coin toss per record to a branch predictor; a settle's loop of them
 * is not). */
int latrec_legs_feed_lazy(latrec_legs *b, uint32_t ring, const latrec_rec *rec)
{
    b->lazy_t = rec->t_ns;
    if (LATREC_UNLIKELY_(rec->t_ns > b->hdue)) return feed_due(b, ring, rec);
    return feed_usual(b, ring, rec);
}

int latrec_legs_feed_lazy_merged(latrec_legs *b, const latrec_merged *ev, size_t n)
{
    int bad = 0;
    for (size_t k = 0; k < n; k++) {
        const latrec_rec *rec = &ev[k].rec;
        const uint32_t ring = ev[k].ring;
        const int leg = LATREC_UNLIKELY_(rec->t_ns > b->hdue) ? feed_due(b, ring, rec) : feed_usual(b, ring, rec);
        if (LATREC_UNLIKELY_(leg == -2)) bad = 1;
    }
    if (n) b->lazy_t = ev[n - 1].rec.t_ns;
    return bad ? -2 : 0;
}

void latrec_legs_settle(latrec_legs *b)
{
    catch_up(b, b->lazy_t);
}
