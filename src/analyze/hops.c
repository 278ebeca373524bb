/* Hops of a leg. */
#include "analyze/hops.h"

#include <stdio.h>
#include <string.h>

/* Hit index of stage s in leg, or -1. */
static int hit_index(const latrec_leg *leg, unsigned s)
{
    int i = latrec_leg_chain_pos(leg, s);
    if (i < 0 && (i = latrec_leg_extra_pos(leg, s)) >= 0) i += leg->n_chain;
    return i;
}

/* Stage of hit index i of leg, or -1. */
static int hit_stage(const latrec_leg *leg, int i)
{
    if (i < leg->n_chain) return leg->chain[i];
    return i - leg->n_chain < leg->n_extras ? leg->extras[i - leg->n_chain] : -1;
}

/* Fill in the hit indices of h's stages in leg. */
static void index_hop(const latrec_leg *leg, latrec_hopdef *h)
{
    int a = hit_index(leg, h->from), b = hit_index(leg, h->to);
    h->from_hit = (uint8_t)(a + 1);
    h->to_hit = (uint8_t)(b + 1);
}

static int has_stage(const latrec_leg *leg, unsigned s) { return hit_index(leg, s) >= 0; }

static void name_hop(const latrec_catalog *cat, latrec_hopdef *h)
{
    char a[8], b[8];
    snprintf(h->name, sizeof(h->name), "%s->%s", latrec_catalog_stage_name(cat, h->from, a),
             latrec_catalog_stage_name(cat, h->to, b));
}

int latrec_leg_hops(const latrec_catalog *cat, const latrec_leg *leg, const latrec_hop_select *sel,
                    latrec_hopdef *out)
{
    int n = 0;
    if (sel && sel->n) {
        for (int i = 0; i < sel->n && n < LATREC_MAX_HOPS; i++) {
            const int from = latrec_catalog_stage_id(cat, sel->from[i]), to = latrec_catalog_stage_id(cat, sel->to[i]);
            if (from < 0 || to < 0 || !has_stage(leg, (unsigned)from) || !has_stage(leg, (unsigned)to)) continue;
            memset(&out[n], 0, sizeof(out[n]));
            out[n].from = (uint8_t)from;
            out[n].to = (uint8_t)to;
            name_hop(cat, &out[n]);
            index_hop(leg, &out[n++]);
        }
        return n;
    }
    for (int i = 0; i + 1 < leg->n_chain; i++) {
        memset(&out[n], 0, sizeof(out[n]));
        out[n].from = leg->chain[i];
        out[n].to = leg->chain[i + 1];
        name_hop(cat, &out[n++]);
    }
    for (int i = 0; i < leg->n_extra_hops; i++) {
        memset(&out[n], 0, sizeof(out[n]));
        out[n].from = leg->extra_hops[i].from;
        out[n].to = leg->extra_hops[i].to;
        name_hop(cat, &out[n++]);
    }
    if (leg->n_chain >= 2) {
        memset(&out[n], 0, sizeof(out[n]));
        out[n].from = leg->chain[0];
        out[n].to = leg->chain[leg->n_chain - 1];
        out[n].total = 1;
        snprintf(out[n++].name, sizeof(out[0].name), "total");
    }
    for (int i = 0; i < n; i++) index_hop(leg, &out[i]);
    return n;
}

/* The stamp of stage s in inst; known is the hopdef's 1 + hit index (0:
 * not known), used when the leg has s there. */
static inline const latrec_hit *hit_of(const latrec_leg *leg, const latrec_instance *inst, unsigned s,
                                       unsigned known)
{
    int i = known && hit_stage(leg, (int)known - 1) == (int)s ? (int)known - 1 : hit_index(leg, s);
    return i >= 0 && i < inst->n_hits && inst->hits[i].t_ns ? &inst->hits[i] : NULL;
}

int latrec_hop_hits(const latrec_leg *leg, const latrec_instance *inst, const latrec_hopdef *h,
                    const latrec_hit **a, const latrec_hit **b)
{
    *a = hit_of(leg, inst, h->from, h->from_hit);
    *b = hit_of(leg, inst, h->to, h->to_hit);
    return *a && *b;
}

int latrec_hop_value(const latrec_leg *leg, const latrec_instance *inst, const latrec_hopdef *h,
                     int64_t *ns, uint32_t *ring_to)
{
    const latrec_hit *a, *b;
    if (!latrec_hop_hits(leg, inst, h, &a, &b)) return 0;
    *ns = (int64_t)(b->t_ns - a->t_ns);
    *ring_to = b->ring;
    return 1;
}

int latrec_hop_select_add(latrec_hop_select *sel, const latrec_catalog *const *cats, int n_cats, const char *spec)
{
    char *a = sel->from[sel->n < 16 ? sel->n : 0], *b = sel->to[sel->n < 16 ? sel->n : 0];
    const char *colon = strchr(spec, ':');
    if (!colon || sel->n == 16 || (size_t)(colon - spec) >= LATREC_NAME_MAX || strlen(colon + 1) >= LATREC_NAME_MAX)
        return -1;
    snprintf(a, LATREC_NAME_MAX, "%.*s", (int)(colon - spec), spec);
    snprintf(b, LATREC_NAME_MAX, "%s", colon + 1);
    for (int c = 0; c < n_cats; c++)
        if (cats[c] && latrec_catalog_stage_id(cats[c], a) >= 0 && latrec_catalog_stage_id(cats[c], b) >= 0) {
            sel->n++;
            return 0;
        }
    return -1;
}
