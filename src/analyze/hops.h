/*
 * analyze/hops.h - the hops of a leg and their values in an instance.
 *
 * A leg's hops are its chain hops (consecutive chain stages), its extra hops
 * (catalog `hop` lines, e.g. EMIT_ENTER -> ENQUEUE), and the total (first to
 * last chain stage, for chains of two or more stages). A selection (--hop
 * A:B) replaces them with the named pairs, for every leg that has both
 * stages (chain or extra), adjacent or not. A selection names stages as
 * text and each leg reads them under its own catalog, so in a run that
 * mixes catalogs a pair names the stages of the catalog of each leg it
 * matches (RX:TX picks pipe's RX->TX, not ids that mean other stages in
 * e3).
 *
 * A hop value is t(B) - t(A) in ns, signed: a negative value is a clock
 * regression (two CPUs' clocks, or a stamp_at time), never wrapped.
 */
#ifndef LATREC_ANALYZE_HOPS_H
#define LATREC_ANALYZE_HOPS_H

#include <stdint.h>

#include "analyze/catalog.h"
#include "analyze/legs.h"

#define LATREC_MAX_HOPS (LATREC_MAX_CHAIN + LATREC_MAX_EXTRA_HOPS + 1)

typedef struct latrec_hopdef {
    uint8_t from, to;
    /* 1 + the hit index of from / to in the leg latrec_leg_hops() was given
     * (0: not known; found by the stages then). Checked against the leg at
     * each use, so a hopdef filled by hand or used with another leg stays
     * right. */
    uint8_t from_hit, to_hit;
    int     total;                      /* the leg total */
    char    name[2 * LATREC_NAME_MAX + 8]; /* "ENQUEUE->DEQUEUE" or "total" */
} latrec_hopdef;

/* A --hop selection: stage pairs by name or id text ("RX", "0x21"). */
typedef struct latrec_hop_select {
    int n;
    char from[16][LATREC_NAME_MAX], to[16][LATREC_NAME_MAX];
} latrec_hop_select;

/* Fill out[] with the hops of leg (max LATREC_MAX_HOPS) of catalog cat
 * (the leg's: a selection's stage names are read in it); sel NULL or empty
 * means every hop of the leg. Returns the count (0: the selection names no
 * pair this leg has). */
int latrec_leg_hops(const latrec_catalog *cat, const latrec_leg *leg, const latrec_hop_select *sel,
                    latrec_hopdef *out);

/* The value of hop h in inst: 1 with *ns = t(to) - t(from) and *ring_to =
 * the ring that stamped `to`; 0 when either stage is absent. */
int latrec_hop_value(const latrec_leg *leg, const latrec_instance *inst, const latrec_hopdef *h,
                     int64_t *ns, uint32_t *ring_to);

/* latrec_hop_value() for an instance of the very leg that latrec_leg_hops()
 * made h for (a leg table's hops and its instances): the stamps are taken
 * at h's hit indices, unchecked against the leg's stages. */
static inline int latrec_hop_value_of_leg(const latrec_leg *leg, const latrec_instance *inst, const latrec_hopdef *h,
                                          int64_t *ns, uint32_t *ring_to)
{
    if (!h->from_hit || !h->to_hit) return latrec_hop_value(leg, inst, h, ns, ring_to);
    const int a = h->from_hit - 1, b = h->to_hit - 1;
    if (a >= inst->n_hits || b >= inst->n_hits || !inst->hits[a].t_ns || !inst->hits[b].t_ns) return 0;
    *ns = (int64_t)(inst->hits[b].t_ns - inst->hits[a].t_ns);
    *ring_to = inst->hits[b].ring;
    return 1;
}

/* The two stamps of hop h in inst (NULL when a stage is absent): *a the
 * `from` stamp, *b the `to` stamp. Returns 1 when both are present. */
int latrec_hop_hits(const latrec_leg *leg, const latrec_instance *inst, const latrec_hopdef *h,
                    const latrec_hit **a, const latrec_hit **b);

/* latrec_hop_hits() for an instance of the very leg that latrec_leg_hops()
 * made h for, as latrec_hop_value_of_leg() is for latrec_hop_value(). */
static inline int latrec_hop_hits_of_leg(const latrec_leg *leg, const latrec_instance *inst, const latrec_hopdef *h,
                                         const latrec_hit **a, const latrec_hit **b)
{
    if (!h->from_hit || !h->to_hit) return latrec_hop_hits(leg, inst, h, a, b);
    const int i = h->from_hit - 1, j = h->to_hit - 1;
    *a = i < inst->n_hits && inst->hits[i].t_ns ? &inst->hits[i] : NULL;
    *b = j < inst->n_hits && inst->hits[j].t_ns ? &inst->hits[j] : NULL;
    return *a && *b;
}

/* Parse "A:B" (stage names or ids) into sel. 0, or -1 when no catalog of
 * cats[0 .. n_cats) knows both stages, or the selection is full. */
int latrec_hop_select_add(latrec_hop_select *sel, const latrec_catalog *const *cats, int n_cats, const char *spec);

#endif
