/* The analysis engine: an input and one pass over it, in steps. */
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "engine/live.h"
#include "engine/pass_impl.h"
#include "util/prog.h"

struct latrec_engine {
    latrec_input in;
    latrec_pass *pass;
    int flags, opened, ended;
    int draining;          /* LIVE: the recording ended, or finish: no watermark */
    uint64_t next_rescan;  /* LIVE: CLOCK_MONOTONIC ns of the next look at the directories */
    latrec_engine_ring *rings; /* the snapshot's per-ring figures */
    size_t cap_rings;
};

latrec_engine *latrec_engine_open(const latrec_input_opts *opts, const char *cmd, int flags)
{
    latrec_engine *e = calloc(1, sizeof(*e));
    if (!e) {
        fprintf(stderr, "latrec %s: out of memory\n", cmd);
        return NULL;
    }
    e->flags = flags;
    if (latrec_input_open(&e->in, opts, cmd) != 0) {
        latrec_input_close(&e->in);
        free(e);
        return NULL;
    }
    e->opened = 1;
    if (latrec_input_align(&e->in) < 0) {
        latrec_engine_close(e);
        return NULL;
    }
    e->in.live = (flags & LATREC_ENGINE_LIVE) != 0;
    return e;
}

latrec_input *latrec_engine_input(latrec_engine *e) { return &e->in; }
latrec_pass *latrec_engine_pass(latrec_engine *e) { return e->pass; }

int latrec_engine_start(latrec_engine *e, const latrec_pass_opts *opts, const latrec_pass_sinks *sinks)
{
    if (e->pass) return -1;
    e->pass = latrec_pass_new(&e->in, opts, sinks);
    return e->pass ? 0 : -1;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A LIVE step (engine.h): look for new rings and the run's end now and
 * then, poll the dry rings, feed up to the watermark. */
static int live_step(latrec_engine *e, uint64_t budget)
{
    latrec_input *in = &e->in;
    latrec_merge *m = latrec_pass_merge(e->pass);
    const uint64_t now = mono_ns();
    if (now >= e->next_rescan) {
        e->next_rescan = now + LATREC_LIVE_RESCAN_NS;
        if (!e->draining && !latrec_live_recording(in)) e->draining = 1;
        if (latrec_live_rescan(in, m, latrec_pass_legs(e->pass)) < 0) return LATREC_ENGINE_ERROR;
    }
    const uint64_t added = latrec_live_poll(in, m, latrec_live_now_key(in));
    /* Draining: the watermark holds while polls still find records (a ring
     * that ran dry had more its writer stamped before the end), then
     * everything there is goes, in merge order. */
    if (e->draining && !added) in->live = 0;
    const int r = latrec_pass_step(e->pass, budget);
    if (r < 0) return LATREC_ENGINE_ERROR;
    if (r > 0) return LATREC_ENGINE_MORE;
    if (!e->draining) return LATREC_ENGINE_IDLE;
    return added ? LATREC_ENGINE_MORE : LATREC_ENGINE_END;
}

int latrec_engine_step(latrec_engine *e, uint64_t budget)
{
    if (!e->pass || e->ended) return LATREC_ENGINE_END;
    if (e->flags & LATREC_ENGINE_LIVE) return live_step(e, budget);
    int r = latrec_pass_step(e->pass, budget);
    if (r < 0) return LATREC_ENGINE_ERROR;
    if (r || !e->in.guess_wrong) return r ? LATREC_ENGINE_MORE : LATREC_ENGINE_END;
    /* a ring opened by the guess was not what it said (engine/input.h):
     * scanned now, and the pass starts over (its sinks told) */
    if (!(e->pass = latrec_pass_start_over(e->pass))) return LATREC_ENGINE_ERROR;
    return LATREC_ENGINE_MORE;
}

/* The per-ring figures of the snapshot. */
static const latrec_engine_ring *ring_figures(latrec_engine *e)
{
    const latrec_input *in = &e->in;
    if (in->set.n > e->cap_rings) {
        latrec_engine_ring *r = realloc(e->rings, in->set.n * sizeof(*r));
        if (!r) return NULL;
        e->rings = r;
        e->cap_rings = in->set.n;
    }
    for (size_t i = 0; i < in->set.n; i++) {
        const latrec_ring *r = &in->set.rings[i];
        e->rings[i] = (latrec_engine_ring){
            .path = r->path,
            .name = r->name,
            .ok = r->status == LATREC_RING_OK,
            .sched = (int)i == in->sched_ring,
            .closed = r->live_closed,
            .records = in->fed[i],
            .written = r->written,
            .lost = r->lost,
            .wrapped = r->wrapped != 0,
            .lost_lower_bound = r->lost_lower_bound && r->lost,
            .lapped = in->lapped[i],
            .torn = r->torn,
            .dropped = in->dropped[i],
            .last_t_ns = r->max_t_ns,
        };
    }
    return e->rings;
}

void latrec_engine_snapshot(latrec_engine *e, latrec_engine_snap *s)
{
    latrec_merge *m = e->pass ? latrec_pass_merge(e->pass) : NULL;
    if (m) latrec_input_lapped_get(&e->in, m);
    s->records = e->pass ? latrec_pass_fed(e->pass) : 0;
    s->last_t_ns = e->pass ? latrec_pass_last_t(e->pass) : 0;
    s->begin_ns = e->pass ? latrec_pass_begin(e->pass) : latrec_pass_run_begin(&e->in);
    latrec_input_totals_get(&e->in, &s->totals);
    s->rings = ring_figures(e);
    s->n_rings = s->rings ? e->in.set.n : 0;
    s->watermark = e->in.live ? e->in.watermark : 0;
    s->late = e->in.late;
}

int latrec_engine_finish(latrec_engine *e)
{
    if (!e->pass) return -1;
    if ((e->flags & LATREC_ENGINE_LIVE) && !e->ended) {
        e->draining = 1;
        int r;
        while ((r = live_step(e, UINT64_MAX)) == LATREC_ENGINE_MORE)
            ;
        if (r == LATREC_ENGINE_ERROR) return -1;
    }
    e->ended = 1;
    return latrec_pass_end(e->pass);
}

int latrec_engine_run(latrec_engine *e)
{
    if (!e->pass || e->ended) return -1;
    if (!(e->flags & LATREC_ENGINE_LIVE)) { /* the rings as they were at open: on threads */
        e->ended = 1;
        const int rc = latrec_pass_finish(e->pass);
        if (rc < 0 || !e->in.guess_wrong) return rc;
        /* a ring opened by the guess was not what it said (engine/input.h):
         * scanned now, and the pass runs again from its start */
        if (!(e->pass = latrec_pass_start_over(e->pass))) return -1;
        return latrec_pass_finish(e->pass);
    }
    int r;
    while ((r = latrec_engine_step(e, UINT64_MAX)) == LATREC_ENGINE_MORE)
        ;
    if (r == LATREC_ENGINE_ERROR) {
        fprintf(stderr, "%s: out of memory\n", latrec_prog); /* what a step's ERROR means */
        return -1;
    }
    return latrec_engine_finish(e);
}

int latrec_engine_run_again(latrec_engine *e, const latrec_pass_opts *opts, const latrec_pass_sinks *sinks)
{
    if (!e->pass || !e->ended || (e->flags & LATREC_ENGINE_LIVE)) {
        fprintf(stderr, "%s: a second pass needs a first one ended, over rings not followed live\n", latrec_prog);
        return -1;
    }
    latrec_pass *first = e->pass;
    if (!(e->pass = latrec_pass_new(&e->in, opts, sinks))) {
        e->pass = first;
        return -1;
    }
    e->ended = 0;
    const int rc = latrec_engine_run(e);
    latrec_pass_free(e->pass);
    e->pass = first;
    e->ended = 1;
    return rc;
}

void latrec_engine_close(latrec_engine *e)
{
    if (!e) return;
    latrec_pass_free(e->pass);
    if (e->opened) latrec_input_close(&e->in);
    free(e->rings);
    free(e);
}
