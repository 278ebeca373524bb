/*
 * analyze/legs_impl.h - the leg builder's private state, shared by its
 * files: legs_setup.c (building and growing it), legs.c (the windows,
 * feeding and ending instances), legs_table.c (the overflow table of open
 * instances), legs_discovered.c (discovered legs), legs_query.c (what
 * callers ask).
 */
#ifndef LATREC_ANALYZE_LEGS_IMPL_H
#define LATREC_ANALYZE_LEGS_IMPL_H

#include "analyze/legs.h"

#include <stdint.h>

#define MAX_CANDS 6
#define LATREC_UNLIKELY_(x) __builtin_expect(!!(x), 0)
#define LATREC_LIKELY_(x) __builtin_expect(!!(x), 1)
#define DISC_HITS LATREC_MAX_CHAIN
#define LATREC_LEGS_RETIRED 96 /* 48 doublings of the leg table */

/* A leg a stage can go to, with what placing a record there needs to know
 * without reading the leg. */
struct cand {
    int16_t leg;
    int8_t  pos;       /* chain or extra position */
    int8_t  extra;     /* 1: an extra of the leg */
    uint8_t idx;       /* its hit: pos, or n_chain + pos for an extra */
    uint8_t last;      /* 1: the leg's last chain stage */
    uint8_t n_slots;   /* the leg's hits: n_chain + n_extras */
    uint8_t no_extras; /* 1: the last chain stage of a leg with no extras (complete ends it at once) */
    uint32_t all;      /* bits of every hit */
    uint32_t before;   /* bits of the chain stages before the last one */
};

/* An open instance: this header, then its latrec_instance (hits[]
 * inline), then for a discovery group its stage list (struct disc). Nodes
 * are cut from 64-byte aligned slabs in sizes of whole lines, so the
 * E3 outbound leg's node (4 chain stages, 2 extras) is four lines. While
 * open, inst->leg holds the table key's leg (-(component + 1) for
 * discovery) and inst->n_hits the hits allocated (the node's size class). */
struct node {
    struct node *next; /* the free list */
    uint32_t opos;     /* its entry's position in the open queue (mod 2^32) */
    uint32_t gpos;     /* in grace: its entry's position in the grace queue (mod 2^32) */
    uint32_t have;     /* bit i: hits[i] holds a stamp (t_ns != 0); NODE_GRACE */
};

/* A catalog leg's node has its hits zeroed when it opens (an instance shows
 * absent stages as zero hits; a record stamped 0 is written, yet absent). */
#define NODE_HITS ((1u << (LATREC_MAX_CHAIN + LATREC_MAX_EXTRAS)) - 1)
#define NODE_GRACE (1u << 31) /* waiting in the grace queue */
#define NODE_INST(n) ((latrec_instance *)((char *)(n) + sizeof(struct node)))

/* A discovery group's stages, after its DISC_HITS hits. */
struct disc {
    uint8_t n;
    uint8_t stage[DISC_HITS];
};
#define NODE_DISC(n) \
    ((struct disc *)((char *)(n) + sizeof(struct node) + sizeof(latrec_instance) + DISC_HITS * sizeof(latrec_hit)))

struct grace {
    struct node *node; /* NULL: a hole */
    uint64_t done_t;   /* when the last chain stage arrived */
};

/* t + d, or UINT64_MAX when that passes 2^64: a deadline (horizon,
 * grace) past the last stamp there is never reached, rather than wrapping
 * to a small one that every later record is past. */
static inline uint64_t due_after(uint64_t t, uint64_t d)
{
    uint64_t s;
    return __builtin_add_overflow(t, d, &s) ? UINT64_MAX : s;
}

/* Fetch the nodes this many entries behind the grace queue's front. */
#define GRACE_AHEAD 8

/* Where an open instance is found by its key (process, leg key, seq).
 *
 * A catalog leg's instances of one process are in that pair's window: an
 * array of node pointers indexed by seq modulo its size. A seq counter's
 * messages in flight and those waiting in grace hold neighbouring entries,
 * so the usual record finds its node with no hash and in a line its
 * predecessors just used. A window starts small and doubles when a seq
 * lands on a live entry while a quarter of it is live (up to WIN_MAX
 * entries); otherwise that instance, and every discovery group, goes to
 * the overflow table below (ovf counts a window's instances there, so a
 * window with none is never looked past).
 *
 * The overflow table's slot is a bucket of SLOT_LANES consecutive seqs of
 * one (process, leg key) holding the whole key (a probe never reads a
 * node) and its hash (moving it never rehashes). One line each. */
#define WIN_MIN 64
#define WIN_MAX (1u << 16)
struct win {
    struct node **e; /* cap entries (the shared empty one while cap is 0) */
    uint32_t mask;   /* cap - 1 (0 while cap is 0) */
    uint32_t cap;
    uint32_t n;      /* live entries */
    uint32_t ovf;    /* this pair's instances in the overflow table */
};

#define SLOT_LANES 4
struct slot {
    uint64_t seq_hi;  /* seq / SLOT_LANES */
    uint64_t pl;      /* SLOT_PL(process, legkey) */
    uint64_t hash;    /* hash_key(seq_hi, pl) */
    uint32_t used;    /* lanes holding a node; 0: an empty slot */
    uint32_t unused_;
    struct node *node[SLOT_LANES]; /* by seq % SLOT_LANES; NULL: none */
};
#define SLOT_PL(process, legkey) ((uint64_t)(process) << 32 | (uint32_t)(legkey))
#define SLOT_NODE(s, seq) ((s)->node[(seq) & (SLOT_LANES - 1)])

/* Nodes of one size class: a free list, and slabs cut in creation order. */
#define SLAB_NODES 64             /* a class's first slab */
#define SLAB_HUGE (2u << 20)      /* its largest */
struct node_class {
    struct node *free;
    char *slab;        /* the current slab's next unused node, or NULL */
    size_t slab_left;  /* nodes left in it */
    size_t slab_nodes; /* nodes of the last slab */
};

/* What the usual record needs, per ring and stage, in one line's half:
 * for a stage of exactly one candidate leg, that candidate, the window of
 * the ring's process for its leg and the leg_roles cell of (the ring's
 * role, the leg); w NULL for any other stage. */
struct usual {
    struct win *w;
    const struct cand *c;
    uint8_t *role;
    uint64_t first; /* 1: the leg's first chain stage (its record most often opens an instance) */
};
struct ring_fast {
    struct usual st[256];
};

struct latrec_legs {
    struct latrec_legs_view view; /* first: legs.h's inline accessors read it */
    /* Catalogs: catalog c's legs are legs[cat_base[c] .. cat_base[c + 1]);
     * discovered legs follow from n_cat_legs on. A ring's records are read
     * under its own catalog (ring_cat). */
    const latrec_catalog *cats[LATREC_LEGS_MAX_CATALOGS];
    int n_cats;
    int cat_base[LATREC_LEGS_MAX_CATALOGS + 1];
    int n_cat_legs;
    int *ring_cat;
    latrec_leg *legs;
    int *leg_cat;             /* catalog of every leg (cap_legs) */
    int n_legs, cap_legs;
    /* legs and leg_cat before they grew, freed with the builder (a reader
     * on another thread may hold them: grow_legs in legs_discovered.c). */
    void *retired[LATREC_LEGS_RETIRED];
    int n_retired;
    struct cand (*cands)[256][MAX_CANDS]; /* [catalog][stage] */
    uint8_t (*n_cands)[256];

    /* Modelling warnings: records of a stage in the chains of two legs,
     * instances with two chain stages of one ring in the reverse order, and
     * instances ended by a stage they hold stamped again for their seq by
     * another ring of the process (leg_twice). */
    uint8_t (*n_chain_cands)[256];
    uint64_t (*shared_recs)[256];
    uint64_t *leg_reversed, *leg_ended, *leg_twice; /* per catalog leg */
    /* per catalog: stage groups of discovered legs ended, and those ended
     * by a stage they hold stamped again on another ring (as leg_twice) */
    uint64_t *disc_ended, *disc_twice;
    uint8_t (*leg_reversed_pair)[2];    /* the first reversed pair seen */

    size_t n_rings;
    int *ring_component;
    uint32_t *ring_process;
    char (*components)[LATREC_NAME_MAX];
    int n_components;
    latrec_process *processes;
    uint32_t n_processes;
    int guessed;

    struct win *wins; /* [process * n_cat_legs + leg] */
    struct slot *table; /* the overflow table */
    size_t table_cap, n_slots, n_open, max_open; /* slots: buckets in use */
    unsigned table_shift; /* 64 - log2(table_cap) */
    /* Every open instance in order of creation: a queue of nodes (an
     * instance that ends leaves a hole, NULL, dropped when the front is
     * asked for: oldest(); compacted as the grace queue is). The front is
     * the oldest: the horizon and max_open end it first, and finish ends
     * them in this order. */
    struct node **oq;
    uint64_t oq_head, oq_len, oq_cap; /* as gq's */
    /* Complete instances waiting for late extras, in order of completion:
     * a queue of (node, when its last chain stage arrived) read from the
     * front, so the nodes due next are known ahead and fetched from memory
     * before they are ended. An instance that leaves grace early leaves a
     * hole (node NULL); holes are dropped at the front, and the queue is
     * compacted when they outnumber the instances waiting. */
    struct grace *gq;
    uint64_t gq_head, gq_len, gq_cap; /* absolute position of the front; entries; a power of two */
    uint64_t gq_holes; /* entries of the grace queue that are holes */
    struct node_class classes[DISC_HITS + LATREC_MAX_EXTRAS + 1]; /* by hits allocated */
    void **slabs;                                                  /* every slab, to free them */
    size_t n_slabs, cap_slabs;
    uint64_t horizon, grace;
    /* No instance is due to end (grace over, horizon passed) while stream
     * time stays at or below this: a lower bound of the grace queue front's
     * and the open queue front's deadlines. */
    uint64_t due;
    /* A lower bound of the open queue front's horizon deadline, made exact
     * when a record passes it (UINT64_MAX: none open) */
    uint64_t hdue;
    uint64_t lazy_t; /* the last record latrec_legs_feed_lazy fed (its stamp; 0: none) */
    uint64_t cut_horizon, cut_room; /* instances ended unfinished, by cause */
    /* Decisions that records of other processes could have changed
     * (latrec_legs_cross_process() says which). */
    uint64_t cross;

    /* Seq counters belong to a thread family: ring_role[ring] indexes the
     * ring's role (its name without the ".<tid>" suffix), and
     * leg_roles[role * leg_roles_stride + leg] says a leg was stamped by
     * that role. */
    int *ring_role;
    int n_roles;
    uint8_t *leg_roles;       /* [role][leg], rows leg_roles_stride (n_cat_legs + 1) wide */
    size_t leg_roles_stride;
    struct ring_fast *ring_fast; /* per ring */
    uint8_t **ring_roles;        /* per ring: leg_roles + its role * leg_roles_stride */

    latrec_emit_fn emit;
    void *ctx;
};

/* Fill ring_fast[i] and ring_roles[i] from ring i's catalog, process and role. */
void latrec_legs_ring_fast(latrec_legs *b, size_t i);

/* The overflow table (legs_table.c). A zeroed table of cap slots,
 * line-aligned; NULL when out of memory. */
struct slot *latrec_legs_table_new(size_t cap);
/* The node of (seq, pl) there (pl: SLOT_PL), or NULL. */
struct node *latrec_legs_table_get(latrec_legs *b, uint64_t seq, uint64_t pl);
/* Put node n there under (seq, pl) (absent until now), growing the table
 * when half full. 0, or -1 when out of memory. */
int latrec_legs_table_put(latrec_legs *b, uint64_t seq, uint64_t pl, struct node *n);
/* Take (seq, pl)'s node out (it is there). */
void latrec_legs_table_drop(latrec_legs *b, uint64_t seq, uint64_t pl);

/* Windows of processes [from, to) made empty. */
void latrec_legs_wins_init(latrec_legs *b, size_t from, size_t to);

/* The window of (process, leg key >= 0). */
static inline struct win *win_of(const latrec_legs *b, uint32_t process, int32_t legkey)
{
    return &b->wins[(size_t)process * (size_t)b->n_cat_legs + (size_t)legkey];
}

/* Index node n under its key when its window's entry is taken or the
 * window has none (the usual case is inline in legs.c): grow the window,
 * else the overflow table. 0, or -1 when out of memory. */
__attribute__((noinline)) int latrec_legs_insert_slow(latrec_legs *b, uint32_t process, int32_t legkey, uint64_t seq,
                                                      struct node *n);

/* The leg index of discovery node n's stage chain in its ring's catalog,
 * added the first time (legs_discovered.c); -1 when the table cannot grow. */
int latrec_legs_discovered_leg(latrec_legs *b, const struct node *n);

#endif
