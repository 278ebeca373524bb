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

#define PEEK_ROUTES 64 /* routes the look tells apart (more: as if two met) */

struct peek {
    const latrec_pass *p;
    int n_routes, two_routes; /* routes of first-stage stamps seen; two of one leg (stamps_hold) */
    struct {
        int c0, leg;
    } route[PEEK_ROUTES];
};

/* The look's instances: not needed (what they end is the pass's). */
static void peek_instance(void *ctx, const latrec_instance *inst)
{
    (void)ctx;
    (void)inst;
}

/* A first-stage stamp of (c0, leg) a component selects: a leg's stamps by
 * two routes may reach one table, which makes the pass by process give up
 * (stamps_hold). */
static void peek_route(struct peek *k, int c0, int leg)
{
    for (int i = 0; i < k->n_routes; i++)
        if (k->route[i].leg == leg) {
            if (k->route[i].c0 != c0) k->two_routes = 1;
            return;
        }
    for (int c = 0; c < latrec_legs_n_components(k->p->legs); c++)
        if (latrec_pass_selected(k->p, c, leg)) {
            if (k->n_routes == PEEK_ROUTES) {
                k->two_routes = 1;
                return;
            }
            k->route[k->n_routes].c0 = c0;
            k->route[k->n_routes++].leg = leg;
            return;
        }
}

/* The first records in time order through a builder of their own: 1 when
 * nothing there makes a run by process give up (first-stage stamps of
 * a leg by two routes, a cross-process decision, a record out of order),
 * so that a run whose
 * start already says so is read in time order at once instead of twice.
 * What the look cannot see makes the run by process give up later.
 * *anchored set when a record went to a leg anchor[] marks (a path's first
 * leg). */
int latrec_pass_peek_ok(const latrec_pass *p, const uint8_t *anchor, int *anchored)
{
    const latrec_input *in = p->in;
    struct peek k = { .p = p };
    latrec_legs *legs = latrec_input_legs_new(in, peek_instance, NULL);
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
    ok = ok && !k.two_routes && !latrec_legs_cross_process(legs);
    latrec_merge_free(&m);
    latrec_legs_free(legs); /* its open instances are not emitted: they have not ended */
    free(ev);
    return ok;
}
