/* The look at the stream's start before a pass by process
 * (pass_split.c): its first records through a builder of their own, to
 * tell whether a run by process would give up, so that such a run is read
 * in time order at once instead of twice. */
#include <stdlib.h>
#include <string.h>

#include "engine/pass_impl.h"

#define PEEK_FILL 256 /* records taken from the merge at a time */
/* Records the look reads: few enough to cost little beside the pass. */
#define SPLIT_PEEK (1u << 16)

struct peek {
    const latrec_pass *p;
    int component, leg, tables; /* the first selected (component, leg); distinct ones seen */
    int c0, first_leg, routes;  /* the first route of first-stage stamps (stamps_hold); distinct ones seen */
};

static void peek_instance(void *ctx, const latrec_instance *inst)
{
    struct peek *k = ctx;
    if (inst->leg < 0 || !latrec_pass_selected(k->p, inst->component, inst->leg)) return;
    if (k->tables && inst->component == k->component && inst->leg == k->leg) return;
    k->component = inst->component;
    k->leg = inst->leg;
    k->tables++;
}

/* A first-stage stamp of (c0, leg): two routes of a leg some component
 * selects make the pass by process give up (stamps_hold). */
static void peek_route(struct peek *k, int c0, int leg)
{
    if (k->routes && c0 == k->c0 && leg == k->first_leg) return;
    for (int c = 0; c < latrec_legs_n_components(k->p->legs); c++)
        if (latrec_pass_selected(k->p, c, leg)) {
            k->c0 = c0;
            k->first_leg = leg;
            k->routes++;
            return;
        }
}

/* The first records in time order through a builder of their own: 1 when
 * nothing there makes a run by process give up (a second table, two
 * routes of first-stage stamps, a cross-process decision, a record out of
 * order), so that a run whose
 * start already says so is read in time order at once instead of twice.
 * What the look cannot see makes the run by process give up later.
 * *anchored set when a record went to a leg anchor[] marks (a path's first
 * leg). */
int latrec_pass_peek_ok(const latrec_pass *p, const uint8_t *anchor, int *anchored)
{
    const latrec_input *in = p->in;
    struct peek k = { p, -1, -1, 0, -1, -1, 0 };
    latrec_legs *legs = latrec_input_legs_new(in, peek_instance, &k);
    latrec_merged *ev = malloc(PEEK_FILL * sizeof(*ev));
    latrec_merge m;
    memset(&m, 0, sizeof(m));
    int ok = legs && ev &&
             latrec_merge_init(&m, in->set.rings, in->set.n, in->opts.wall ? LATREC_MERGE_WALL : 0, NULL, 0) == 0;
    uint64_t last = 0;
    const int n_anchor = anchor && legs ? latrec_legs_n_catalog_legs(legs) : 0; /* anchor[] covers catalog legs */
    size_t got;
    for (uint32_t n = 0; ok && n < SPLIT_PEEK && (got = latrec_merge_fill(&m, ev, PEEK_FILL, UINT64_MAX)) > 0;
         n += (uint32_t)got)
        for (size_t i = 0; i < got && ok; i++) {
            if ((int)ev[i].ring == in->sched_ring) continue;
            if (!(ok = ev[i].t_ns >= last)) break;
            last = ev[i].rec.t_ns = ev[i].t_ns; /* the merge's clock, as the pass */
            const int leg = latrec_legs_feed(legs, ev[i].ring, &ev[i].rec);
            ok = leg != -2;
            if (leg >= 0 && leg < n_anchor && anchor[leg]) *anchored = 1;
            if (leg >= 0 && p->sinks.first_stage && latrec_legs_first_stage(legs, leg) == latrec_rec_stage(ev[i].rec.sc))
                peek_route(&k, latrec_legs_ring_component(legs, ev[i].ring), leg);
        }
    ok = ok && k.tables <= 1 && k.routes <= 1 && !latrec_legs_cross_process(legs);
    latrec_merge_free(&m);
    latrec_legs_free(legs); /* its open instances are not emitted: they have not ended */
    free(ev);
    return ok;
}
