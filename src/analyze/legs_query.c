/* What callers ask the leg builder: its legs, components, processes,
 * catalogs, cuts and modelling warnings. */
#include "analyze/legs_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- queries -------------------------------------------------------------- */

/* Acquire loads: the leg table may grow on another thread (grow_legs, legs_discovered.c). */
const latrec_leg *latrec_legs_leg(const latrec_legs *b, int leg)
{
    return &__atomic_load_n(&b->legs, __ATOMIC_ACQUIRE)[leg];
}
int latrec_legs_n_legs(const latrec_legs *b)
{
    return __atomic_load_n(&b->n_legs, __ATOMIC_ACQUIRE);
}
const char *latrec_legs_component_name(const latrec_legs *b, int c) { return b->components[c]; }
int latrec_legs_n_components(const latrec_legs *b) { return b->n_components; }
int latrec_legs_ring_component(const latrec_legs *b, uint32_t ring) { return b->ring_component[ring]; }
const latrec_process *latrec_legs_process(const latrec_legs *b, uint32_t p) { return &b->processes[p]; }
uint32_t latrec_legs_ring_process(const latrec_legs *b, uint32_t ring) { return b->ring_process[ring]; }
int latrec_legs_guessed_processes(const latrec_legs *b) { return b->guessed; }
uint64_t latrec_legs_evicted(const latrec_legs *b) { return b->cut_horizon + b->cut_room; }
uint64_t latrec_legs_cut_horizon(const latrec_legs *b) { return b->cut_horizon; }
uint64_t latrec_legs_cut_room(const latrec_legs *b) { return b->cut_room; }
uint64_t latrec_legs_horizon(const latrec_legs *b) { return b->horizon; }
uint64_t latrec_legs_cross_process(const latrec_legs *b) { return b->cross; }
size_t latrec_legs_n_open(const latrec_legs *b) { return b->n_open; }
size_t latrec_legs_max_open(const latrec_legs *b) { return b->max_open; }

void latrec_legs_add_counts(latrec_legs *b, const latrec_legs *from)
{
    b->cut_horizon += from->cut_horizon;
    b->cut_room += from->cut_room;
    b->cross += from->cross;
    for (int c = 0; c < b->n_cats && c < from->n_cats; c++)
        for (int st = 0; st < 256; st++) b->shared_recs[c][st] += from->shared_recs[c][st];
    for (int l = 0; l < b->n_cat_legs && l < from->n_cat_legs; l++) {
        if (!b->leg_reversed[l] && from->leg_reversed[l])
            memcpy(b->leg_reversed_pair[l], from->leg_reversed_pair[l], sizeof(b->leg_reversed_pair[l]));
        b->leg_reversed[l] += from->leg_reversed[l];
        b->leg_ended[l] += from->leg_ended[l];
        b->leg_twice[l] += from->leg_twice[l];
    }
    for (int c = 0; c < b->n_cats && c < from->n_cats; c++) {
        b->disc_ended[c] += from->disc_ended[c];
        b->disc_twice[c] += from->disc_twice[c];
    }
}

const latrec_catalog *latrec_legs_leg_catalog(const latrec_legs *b, int leg)
{
    return b->cats[latrec_legs_leg_catalog_index(b, leg)];
}
int latrec_legs_leg_catalog_index(const latrec_legs *b, int leg)
{
    return __atomic_load_n(&b->leg_cat, __ATOMIC_ACQUIRE)[leg];
}
const latrec_catalog *latrec_legs_ring_catalog(const latrec_legs *b, uint32_t ring)
{
    return b->cats[b->ring_cat[ring]];
}
int latrec_legs_n_catalogs(const latrec_legs *b) { return b->n_cats; }
const latrec_catalog *latrec_legs_catalog(const latrec_legs *b, int c) { return b->cats[c]; }
int latrec_legs_n_catalog_legs(const latrec_legs *b) { return b->n_cat_legs; }

int latrec_legs_catalog_leg(const latrec_legs *b, int c, int local)
{
    if (c < 0 || c >= b->n_cats || local < 0 || local >= b->cats[c]->n_legs) return -1;
    return b->cat_base[c] + local;
}

/* The i-th stage in the chains of two legs of one catalog, or -1. */
static int shared_stage(const latrec_legs *b, int i, int *cat)
{
    for (int c = 0; c < b->n_cats; c++)
        for (int st = 0; st < 256; st++)
            if (b->n_chain_cands[c][st] > 1 && i-- == 0) {
                *cat = c;
                return st;
            }
    return -1;
}

int latrec_legs_warning(const latrec_legs *b, int i, char *buf, size_t len)
{
    int c;
    int st = shared_stage(b, i, &c);
    char nb[8], nb2[8];
    if (st >= 0) {
        const latrec_catalog *cat = b->cats[c];
        const char *legs_of[2] = { NULL, NULL };
        for (int k = 0, f = 0; k < b->n_cands[c][st] && f < 2; k++)
            if (!b->cands[c][st][k].extra) legs_of[f++] = b->legs[b->cands[c][st][k].leg].name;
        snprintf(buf, len, "catalog '%s': stage %s is in the chains of legs %s and %s%s: %llu records of it, "
                 "each given to one leg only",
                 cat->name, latrec_catalog_stage_name(cat, (unsigned)st, nb), legs_of[0], legs_of[1],
                 b->n_chain_cands[c][st] > 2 ? " (and more)" : "", (unsigned long long)b->shared_recs[c][st]);
        return 1;
    }
    for (c = 0; c < b->n_cats; c++)
        for (st = 0; st < 256; st++) i -= b->n_chain_cands[c][st] > 1;
    for (int l = 0; l < b->n_cat_legs; l++) {
        if (!b->leg_reversed[l] || i-- > 0) continue;
        const latrec_catalog *cat = b->cats[b->leg_cat[l]];
        snprintf(buf, len, "catalog '%s': leg %s: chain stages out of order in %llu of %llu instances (%s "
                 "stamped after %s by one thread, the chain says the reverse)",
                 cat->name, b->legs[l].name, (unsigned long long)b->leg_reversed[l],
                 (unsigned long long)b->leg_ended[l],
                 latrec_catalog_stage_name(cat, b->leg_reversed_pair[l][0], nb),
                 latrec_catalog_stage_name(cat, b->leg_reversed_pair[l][1], nb2));
        return 1;
    }
    for (int l = 0; l < b->n_cat_legs; l++) {
        if (!b->leg_twice[l] || i-- > 0) continue;
        snprintf(buf, len,
                 "catalog '%s': leg %s: %llu of %llu instances cut short by one of their stages "
                 "stamped again for the same seq on another ring of the process (two rings of one process "
                 "stamping the same seqs: a per-thread seq counter, or a copied ring?)",
                 b->cats[b->leg_cat[l]]->name, b->legs[l].name, (unsigned long long)b->leg_twice[l],
                 (unsigned long long)b->leg_ended[l]);
        return 1;
    }
    for (int c = 0; c < b->n_cats; c++) {
        if (!b->disc_twice[c] || i-- > 0) continue;
        snprintf(buf, len,
                 "catalog '%s': discovered legs: %llu of %llu stage groups cut short by one of their stages "
                 "stamped again for the same seq on another ring of the process (two rings of one process "
                 "stamping the same seqs: a per-thread seq counter, or a copied ring?)",
                 b->cats[c]->name, (unsigned long long)b->disc_twice[c], (unsigned long long)b->disc_ended[c]);
        return 1;
    }
    return 0;
}

uint64_t latrec_instance_field(const latrec_legs *b, const latrec_instance *inst, unsigned stage,
                               unsigned field, int *present)
{
    return latrec_instance_hit_field(inst, latrec_leg_hit_pos(latrec_legs_leg(b, inst->leg), stage), field, present);
}
