/*
 * analyze/legs_impl.h - the leg builder's private state, shared by its
 * files: legs_setup.c (building and growing it), legs.c (the open-instance
 * table, feeding and ending instances), legs_query.c (what callers ask).
 */
#ifndef LATREC_ANALYZE_LEGS_IMPL_H
#define LATREC_ANALYZE_LEGS_IMPL_H

#include "analyze/legs.h"

#include <stdint.h>

#define MAX_CANDS 6
#define LATREC_UNLIKELY_(x) __builtin_expect(!!(x), 0)
#define DISC_HITS LATREC_MAX_CHAIN
#define LATREC_LEGS_RETIRED 96 /* 48 doublings of the leg table */

struct cand {
    int16_t leg;
    int8_t  pos;   /* chain or extra position */
    int8_t  extra; /* 1: an extra of the leg */
};

struct node {
    struct node *prev, *next; /* open list, in order of creation */
    uint64_t gpos;            /* in grace: its entry's position in the queue */
    int      in_grace;
    int32_t  legkey;          /* leg index, or -(component + 1) for discovery */
    uint8_t  n_disc;
    uint8_t  disc_stage[DISC_HITS];
    int      n_slots;         /* hits allocated */
};

#define NODE_INST(n) ((latrec_instance *)((char *)(n) + sizeof(struct node)))

struct grace {
    struct node *node; /* NULL: a hole */
    uint64_t done_t;   /* when the last chain stage arrived */
    uint64_t hash;     /* the node's table key hash (to fetch its slot ahead) */
};

/* Fetch the nodes this many entries behind the grace queue's front. */
#define GRACE_AHEAD 8

/* A table slot: the key's hash (its home, and most misses told apart
 * without reading the node) and the node, which holds the key itself. */
struct slot {
    uint64_t hash;
    struct node *node; /* NULL: empty */
};

struct latrec_legs {
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
     * on another thread may hold them: grow_legs in legs.c). */
    void *retired[LATREC_LEGS_RETIRED];
    int n_retired;
    struct cand (*cands)[256][MAX_CANDS]; /* [catalog][stage] */
    uint8_t (*n_cands)[256];

    /* Modelling warnings: records of a stage in the chains of two legs, and
     * instances with two chain stages of one ring in the reverse order. */
    uint8_t (*n_chain_cands)[256];
    uint64_t (*shared_recs)[256];
    uint64_t *leg_reversed, *leg_ended; /* per catalog leg */
    uint8_t (*leg_reversed_pair)[2];    /* the first reversed pair seen */

    size_t n_rings;
    int *ring_component;
    uint32_t *ring_process;
    char (*components)[LATREC_NAME_MAX];
    int n_components;
    latrec_process *processes;
    uint32_t n_processes;
    int guessed;

    struct slot *table;
    size_t table_cap, n_open, max_open;
    unsigned table_shift; /* 64 - log2(table_cap) */
    struct node *head, *tail;
    /* Complete instances waiting for late extras, in order of completion:
     * a queue of (node, when its last chain stage arrived) read from the
     * front, so the nodes due next are known ahead and fetched from memory
     * before they are ended. An instance that leaves grace early leaves a
     * hole (node NULL); holes are dropped at the front, and the queue is
     * compacted when they outnumber the instances waiting. */
    struct grace *gq;
    uint64_t gq_head, gq_len, gq_cap; /* absolute position of the front; entries; a power of two */
    size_t n_grace;
    struct node *free_nodes[DISC_HITS + LATREC_MAX_EXTRAS + 1];
    uint64_t horizon, grace;
    uint64_t cut_horizon, cut_room; /* instances ended unfinished, by cause */

    /* Seq counters belong to a thread family: ring_role[ring] indexes the
     * ring's role (its name without the ".<tid>" suffix), and
     * leg_roles[leg * n_roles + role] says a leg was stamped by that role. */
    int *ring_role;
    int n_roles;
    uint8_t *leg_roles;

    latrec_emit_fn emit;
    void *ctx;
};

#endif
