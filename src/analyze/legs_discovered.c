/* Discovered legs: the leg of a discovery group's chain, added to the leg
 * table (and named from its stages) the first time that chain ends. */
#include "analyze/legs_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int leg_name_taken(const latrec_legs *b, const char *name)
{
    for (int l = 0; l < b->n_legs; l++)
        if (strcmp(b->legs[l].name, name) == 0) return 1;
    return 0;
}

/* Twice the room for legs. Another thread may be reading the leg table
 * (engine/pipeline.h: the pass's stage 3 reads the definition of every
 * leg an instance it was handed has): the old arrays stay as they are
 * until latrec_legs_free, and the new ones are published by release
 * stores (latrec_legs_leg loads them by acquire). 0, or -1. */
static int grow_legs(latrec_legs *b)
{
    const size_t cap = (size_t)b->cap_legs * 2;
    if (b->n_retired + 2 > LATREC_LEGS_RETIRED) return -1;
    latrec_leg *legs = malloc(cap * sizeof(*legs));
    int *lc = malloc(cap * sizeof(*lc));
    if (!legs || !lc) {
        free(legs);
        free(lc);
        return -1;
    }
    memcpy(legs, b->legs, (size_t)b->n_legs * sizeof(*legs));
    memcpy(lc, b->leg_cat, (size_t)b->n_legs * sizeof(*lc));
    b->retired[b->n_retired++] = b->legs;
    b->retired[b->n_retired++] = b->leg_cat;
    __atomic_store_n(&b->legs, legs, __ATOMIC_RELEASE);
    __atomic_store_n(&b->leg_cat, lc, __ATOMIC_RELEASE);
    b->cap_legs = (int)cap;
    return 0;
}

int latrec_legs_discovered_leg(latrec_legs *b, const struct node *n)
{
    const struct disc *d = NODE_DISC(n);
    const int cat_index = b->ring_cat[NODE_INST(n)->hits[0].ring];
    const latrec_catalog *cat = b->cats[cat_index];
    b->disc_ended[cat_index]++;
    for (int l = b->n_cat_legs; l < b->n_legs; l++)
        if (b->leg_cat[l] == cat_index && b->legs[l].n_chain == d->n && memcmp(b->legs[l].chain, d->stage, d->n) == 0)
            return l;
    if (b->n_legs == b->cap_legs && grow_legs(b) < 0) return -1;
    b->leg_cat[b->n_legs] = cat_index;
    latrec_leg *leg = &b->legs[b->n_legs];
    memset(leg, 0, sizeof(*leg));
    leg->discovered = 1;
    leg->n_chain = d->n;
    memcpy(leg->chain, d->stage, d->n);
    /* Up to 16 stage names of up to 47 bytes (or longer, from a header)
     * joined by '>': appended with bounds; a name too long for a leg name
     * becomes "FIRST>..>LAST" below. */
    char name[LATREC_NAME_MAX * (LATREC_MAX_CHAIN + 1)] = "", buf[8];
    size_t len = 0;
    for (int i = 0; i < d->n && len < sizeof(name) - 1; i++) {
        int w = snprintf(name + len, sizeof(name) - len, "%s%s", i ? ">" : "",
                         latrec_catalog_stage_name(cat, d->stage[i], buf));
        len = w < 0 ? sizeof(name) - 1 : len + (size_t)w;
    }
    if (len >= LATREC_NAME_MAX) {
        char first[8], last[8];
        snprintf(name, sizeof(name), "%s>..>%s", latrec_catalog_stage_name(cat, d->stage[0], first),
                 latrec_catalog_stage_name(cat, d->stage[d->n - 1], last));
        name[LATREC_NAME_MAX - 8] = '\0';
    }
    snprintf(leg->name, sizeof(leg->name), "%s", name);
    for (int k = 2; leg_name_taken(b, leg->name); k++)
        snprintf(leg->name, sizeof(leg->name), "%.*s#%u", LATREC_NAME_MAX - 14, name, (unsigned)k % 100000u);
    __atomic_store_n(&b->n_legs, b->n_legs + 1, __ATOMIC_RELEASE); /* the leg is written */
    return b->n_legs - 1;
}
