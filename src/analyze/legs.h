/*
 * analyze/legs.h - assemble leg instances from a time-ordered record stream.
 *
 * An instance is one message's pass through one leg: the stamps of the leg's
 * chain and extras that share one seq in one process. Rows are keyed by
 * (process, leg, seq): seq spaces belong to a process, so a leg stamped on
 * two threads of one process (EMIT_ENTER and ENQUEUE on the producer's
 * thread, DEQUEUE... on the publisher) joins into one instance, and equal
 * seqs of two processes never merge.
 *
 * Process identity: a v3 ring's pid (with its directory, so two hosts never
 * merge); a v1/v2 ring has no pid, so each (directory, component) counts as
 * one process (latrec_legs_guessed_processes() says when that happened).
 *
 * An instance ends when its leg's last chain stage arrives (complete; a leg
 * with extras waits LATREC_LEGS_GRACE_NS of stream time more for a late
 * extra such as WAIT_ENTER or DROP, and so does an instance still missing a
 * chain stage: two rings' clocks can put a stage after the last one in time
 * order, and that negative hop is a clock regression, not a second
 * instance), when a stage it already holds arrives again for the same key
 * (seq reuse: the old one ends and a new one starts), when it is older than
 * the horizon in stream time (counted: latrec_legs_cut_horizon()), when more
 * than max_open instances are open (the oldest ends; counted:
 * latrec_legs_cut_room()), or at latrec_legs_finish(). Ended instances are
 * handed to the emit callback in the order they end.
 *
 * A stage no catalog leg places (neither chain nor extra) is grouped per
 * (process, component, seq) in time order; when the group ends (horizon,
 * repeat, finish) its stage sequence names a discovered leg (identical
 * chains share one), so an uncatalogued program still gets tables.
 *
 * A chain stage of several legs goes to the leg with an open instance for
 * its key, else to the first leg that has it in its chain. An extra of
 * several legs (DROP) shares its seq counter with its thread family: it
 * joins an open instance for its key only when that instance holds a stamp
 * of a ring of the same role (the ring name without its ".<tid>" suffix);
 * else it opens an instance of the first such leg already stamped by that
 * role, else of the first without an open instance for the key. Equal seqs
 * of two counters (libE3's outbound and inbound) never mix.
 *
 * Memory is bounded by the open instances (horizon and max_open), never by
 * the number of records.
 */
#ifndef LATREC_ANALYZE_LEGS_H
#define LATREC_ANALYZE_LEGS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/catalog.h"
#include "read/merge.h"
#include "read/ringset.h"

/* How long a complete instance of a leg with extras stays open for them. */
#define LATREC_LEGS_GRACE_NS 10000000ull

/* Default horizon (--leg-horizon): an instance open longer than this in
 * stream time ends unfinished, and its later stages start a new one. */
#define LATREC_LEGS_HORIZON_NS 10000000000ull

/* One stamp of an instance. */
typedef struct latrec_hit {
    uint64_t t_ns; /* 0: stage not present */
    uint64_t aux, aux2;
    uint32_t ring; /* index in the ring set */
    uint32_t cpu;
} latrec_hit;

typedef struct latrec_instance {
    int      leg;       /* index into latrec_legs_leg() */
    uint32_t process;   /* index into the process table */
    uint64_t seq;
    int      component; /* component index of the ring of the last chain stage present */
    int      complete;  /* every chain stage present */
    uint64_t first_t;   /* earliest stamp of the instance */
    int      n_hits;    /* chain hits then extra hits */
    latrec_hit hits[];  /* n_chain + n_extras entries (t_ns 0 = absent) */
} latrec_instance;

typedef void (*latrec_emit_fn)(void *ctx, const latrec_instance *inst);

typedef struct latrec_legs latrec_legs;

/* What every builder starts with, for the inline accessors below. */
struct latrec_legs_view {
    const uint8_t *first_stage; /* [catalog leg]: its chain[0] */
};

typedef struct latrec_process {
    uint32_t pid;        /* 0 when guessed */
    int      dir;        /* directory index (host) */
    int      component;  /* component index when guessed, else -1 */
    char     label[64];  /* "pid 1234" or "oai (no pid)" */
} latrec_process;

/* At most this many catalogs in one builder. */
#define LATREC_LEGS_MAX_CATALOGS 8

/* Create a builder over the ok rings of `set` with catalog `cat` (borrowed;
 * must outlive the builder) for every ring. ring_dir[i] is the directory index of ring i
 * (NULL: all 0). horizon_ns 0 means LATREC_LEGS_HORIZON_NS (10 s);
 * max_open 0 means 1,000,000.
 * Returns NULL when out of memory. */
latrec_legs *latrec_legs_new(const latrec_catalog *cat, const latrec_ringset *set,
                             const int *ring_dir, uint64_t horizon_ns, size_t max_open,
                             latrec_emit_fn emit, void *ctx);

/* The same with one catalog per ring: cats[0..n_cats) (borrowed; 1 ..
 * LATREC_LEGS_MAX_CATALOGS), ring_cat[i] the index of ring i's catalog (NULL:
 * all 0). Each ring's stage ids are read under its own catalog only: legs,
 * extras, component aliases and discovered legs' stage names. Catalog c's
 * leg k is builder leg latrec_legs_catalog_leg(b, c, k); catalog 0's legs
 * come first, so with one catalog a builder leg index is the catalog's. */
latrec_legs *latrec_legs_new_multi(const latrec_catalog *const *cats, int n_cats, const int *ring_cat,
                                   const latrec_ringset *set, const int *ring_dir, uint64_t horizon_ns,
                                   size_t max_open, latrec_emit_fn emit, void *ctx);

/* Rings [built-for, set->n) appeared since the builder was made (a live
 * run: engine/live.c): index them as new_multi does (ring_cat, ring_dir
 * cover every ring of set). 0, or -1 when out of memory (the builder stays
 * as it was). */
int latrec_legs_add_rings(latrec_legs *b, const latrec_ringset *set, const int *ring_cat, const int *ring_dir);

/* Feed one record of ring `ring` (records of all rings in time order).
 * Returns the leg index the record was placed in, or -1 for a stage that
 * went to discovery (its leg is known only when the group ends). Returns -2
 * when out of memory (the record is dropped). */
int latrec_legs_feed(latrec_legs *b, uint32_t ring, const latrec_rec *rec);

/* latrec_legs_feed, except that an instance whose grace ran out before
 * rec may stay open, not yet emitted, until latrec_legs_settle() or a
 * record that would find it or make room for another: those end it, and
 * every instance due before it, first. Once settled after the same records,
 * the builder is as latrec_legs_feed would have left it, every instance
 * emitted with the same stamps and in the same order. Between, what it
 * counts or says (n_open, next_cut, ...) may lag. Cheaper: a grace that
 * ends is not a branch per record to guess. Do not mix with
 * latrec_legs_feed between two settles. */
int latrec_legs_feed_lazy(latrec_legs *b, uint32_t ring, const latrec_rec *rec);

/* latrec_legs_feed_lazy for each of ev[0..n) in turn (their rec.t_ns the
 * stamps fed), for a caller that needs no record's leg: -2 when a record
 * was dropped (out of memory), else 0. One call, not one per record. */
int latrec_legs_feed_lazy_merged(latrec_legs *b, const latrec_merged *ev, size_t n);

/* End what the lazy feed put off up to the last record it fed. */
void latrec_legs_settle(latrec_legs *b);

/* End every open instance (in order of first stamp) and hand it to emit
 * (a lazy feed's are settled first). */
void latrec_legs_finish(latrec_legs *b);

void latrec_legs_free(latrec_legs *b);

/* Legs known to the builder: the catalog's, then the discovered ones. A
 * leg's definition never changes once made, and the pointer stays valid
 * until latrec_legs_free. Another thread may call these (and the leg's
 * catalog below) while feed runs, for legs it was told of by a hand-off
 * after their instance was emitted (engine/pipeline.h): a discovered
 * leg's definition and count are published with release stores. */
const latrec_leg *latrec_legs_leg(const latrec_legs *b, int leg);
int latrec_legs_n_legs(const latrec_legs *b);

/* latrec_legs_leg(b, leg)->chain[0] for a leg latrec_legs_feed() returned
 * (a catalog leg), inline for a caller's per-record path (on the thread
 * that feeds). */
static inline unsigned latrec_legs_first_stage(const latrec_legs *b, int leg)
{
    return ((const struct latrec_legs_view *)(const void *)b)->first_stage[leg];
}

/* Catalogs: the catalog a leg belongs to (a discovered leg: the catalog of
 * the ring that stamped it) and its index; a ring's catalog; the builder
 * index of catalog c's leg `local` (-1 when out of range); the number of
 * catalog legs (discovered legs are numbered from there). */
const latrec_catalog *latrec_legs_leg_catalog(const latrec_legs *b, int leg);
int latrec_legs_leg_catalog_index(const latrec_legs *b, int leg);
const latrec_catalog *latrec_legs_ring_catalog(const latrec_legs *b, uint32_t ring);
int latrec_legs_n_catalogs(const latrec_legs *b);
const latrec_catalog *latrec_legs_catalog(const latrec_legs *b, int c);
int latrec_legs_catalog_leg(const latrec_legs *b, int c, int local);
int latrec_legs_n_catalog_legs(const latrec_legs *b);

/* Modelling warnings, one line each in buf (no newline), for i = 0, 1, ...:
 * a stage in the chains of two legs of one catalog (with the records of
 * it), a leg whose chain stages one thread stamped in the reverse order
 * (with the instances affected), a leg whose open instances a stage they
 * held, stamped again for their seq by another ring of the process, ended
 * (with those instances). Returns 1, or 0 when i is past the last.
 * Counts are final after latrec_legs_finish(). */
int latrec_legs_warning(const latrec_legs *b, int i, char *buf, size_t len);

/* Components (from ring names through the catalog's aliases). */
const char *latrec_legs_component_name(const latrec_legs *b, int component);
int latrec_legs_n_components(const latrec_legs *b);
int latrec_legs_ring_component(const latrec_legs *b, uint32_t ring);

/* Processes seen. */
const latrec_process *latrec_legs_process(const latrec_legs *b, uint32_t process);
uint32_t latrec_legs_ring_process(const latrec_legs *b, uint32_t ring);
/* 1 when some ring had no pid (v1/v2) and its process was guessed as one
 * process per component. */
int latrec_legs_guessed_processes(const latrec_legs *b);

/* Thread id of a ring: the v3 tid, else the numeric last part of its name
 * ("oai.19907" -> 19907), else 0. */
uint32_t latrec_ring_tid(const latrec_ring *r);

/* Instances that ended unfinished because of the horizon or max_open: both
 * counts, the horizon's alone, max_open's alone. A complete instance waiting
 * in its grace and a discovery group (which the horizon normally ends) are
 * not counted. */
uint64_t latrec_legs_evicted(const latrec_legs *b);
uint64_t latrec_legs_cut_horizon(const latrec_legs *b);
uint64_t latrec_legs_cut_room(const latrec_legs *b);
/* The horizon in use, ns. */
uint64_t latrec_legs_horizon(const latrec_legs *b);

/* A builder fed the records of some processes only, one process after
 * another or beside builders fed the others (engine/pass_split.c), ends the
 * same instances with the same stamps as one fed every record in time order
 * as long as the records are in time order and this stays 0. It counts the
 * decisions that records of other processes could have changed: an extra
 * of several legs placed by what its role stamped (in any process), a
 * discovery group (discovered legs are numbered in the order groups end),
 * an instance ended for room (max_open counts every process), a reversed
 * chain noted (the first pair seen is named). */
uint64_t latrec_legs_cross_process(const latrec_legs *b);
/* A record stamped after this (ns, stream time) would cut the oldest open
 * instance by the leg horizon; UINT64_MAX with none open. A builder that
 * ends while another's records go on past it ends differently. */
uint64_t latrec_legs_next_cut(const latrec_legs *b);
/* Instances open now, and the most that may be (max_open). */
size_t latrec_legs_n_open(const latrec_legs *b);
size_t latrec_legs_max_open(const latrec_legs *b);
/* Add the counts of builder `from` (over the same rings and catalogs, fed
 * other processes' records) to b's: cuts, shared-stage records, reversed,
 * twice-stamped and ended instances per leg (the warnings), cross-process
 * decisions. */
void latrec_legs_add_counts(latrec_legs *b, const latrec_legs *from);

/* Value of a key / field of an instance's stage; 0 with *present = 0 when
 * the stage is absent. */
uint64_t latrec_instance_field(const latrec_legs *b, const latrec_instance *inst, unsigned stage,
                               unsigned field, int *present);

/* latrec_instance_field() with the stage's hit index known (idx:
 * latrec_leg_hit_pos() of the instance's leg, -1 when the leg has no such
 * stage). */
static inline uint64_t latrec_instance_hit_field(const latrec_instance *inst, int idx, unsigned field, int *present)
{
    *present = idx >= 0 && idx < inst->n_hits && inst->hits[idx].t_ns != 0;
    if (!*present) return 0;
    if (field == LATREC_FIELD_SEQ) return inst->seq;
    return field == LATREC_FIELD_AUX ? inst->hits[idx].aux : inst->hits[idx].aux2;
}

#endif
