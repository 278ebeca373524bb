/* One analysis pass over a run. */
#include "engine/pass.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/stats.h"
#include "engine/pass_impl.h"
#include "engine/pipeline.h"
#include "read/wallclock.h"
#include "util/prog.h"

static void emit_instance(void *ctx, const latrec_instance *inst);

int latrec_pass_selected(const latrec_pass *p, int component, int leg)
{
    if (p->opts.no_legs) return 0;
    if (p->opts.component && strcmp(p->opts.component, latrec_legs_component_name(p->legs, component)) != 0)
        return 0;
    if (p->opts.leg && strcmp(p->opts.leg, latrec_legs_leg(p->legs, leg)->name) != 0) return 0;
    return 1;
}

enum { SHOWN_YES = 1, SHOWN_NO = 2 };

latrec_leg_table *latrec_pass_table_for(latrec_pass *p, int component, int leg)
{
    if (component >= p->index_comps || leg >= p->index_legs) {
        /* (asked here only: on threads the builder writes beside them) */
        int nc = latrec_legs_n_components(p->legs), nl = latrec_legs_n_legs(p->legs) + 16;
        latrec_leg_table **idx = calloc((size_t)nc * (size_t)nl, sizeof(*idx));
        uint8_t *shown = calloc((size_t)nc * (size_t)nl, 1);
        if (!idx || !shown) {
            free(idx);
            free(shown);
            p->failed = 1;
            return NULL;
        }
        for (int c = 0; c < p->index_comps; c++)
            for (int l = 0; l < p->index_legs; l++) {
                idx[c * nl + l] = p->index[c * p->index_legs + l];
                shown[c * nl + l] = p->shown[c * p->index_legs + l];
            }
        free(p->index);
        free(p->shown);
        p->index = idx;
        p->shown = shown;
        p->index_comps = nc;
        p->index_legs = nl;
    }
    latrec_leg_table **slot = &p->index[component * p->index_legs + leg];
    if (*slot) return *slot;
    /* not shown: asked once (the selection compares names; the instances
     * of a leg not shown come here one by one) */
    uint8_t *shown = &p->shown[component * p->index_legs + leg];
    if (*shown == SHOWN_NO) return NULL;
    if (!*shown) *shown = latrec_pass_selected(p, component, leg) ? SHOWN_YES : SHOWN_NO;
    if (*shown == SHOWN_NO) return NULL;
    const latrec_leg *def = latrec_legs_leg(p->legs, leg);
    latrec_leg_table *t = calloc(1, sizeof(*t));
    if (!t) {
        p->failed = 1;
        return NULL;
    }
    t->component = component;
    t->leg = leg;
    t->legdef = *def;
    snprintf(t->component_name, sizeof(t->component_name), "%s", latrec_legs_component_name(p->legs, component));
    t->n_hops = latrec_leg_hops(latrec_legs_leg_catalog(p->legs, leg), def, &p->opts.hops, t->hops);
    if (p->opts.hops.n && t->n_hops == 0) {
        free(t);
        *shown = SHOWN_NO;
        return NULL; /* the selection names no hop of this leg: not shown */
    }
    if (p->n_tables == p->cap_tables) {
        int cap = p->cap_tables ? p->cap_tables * 2 : 16;
        latrec_leg_table **tt = realloc(p->tables, (size_t)cap * sizeof(*tt));
        if (!tt) {
            free(t);
            p->failed = 1;
            return NULL;
        }
        p->tables = tt;
        p->cap_tables = cap;
    }
    t->wanted = (uint32_t)((1ull << t->n_hops) - 1);
    t->hits_known = 1;
    for (int h = 0; h < t->n_hops; h++) {
        t->hits_known &= t->hops[h].from_hit && t->hops[h].to_hit;
        t->hit_a[h] = (uint8_t)(t->hops[h].from_hit - 1);
        t->hit_b[h] = (uint8_t)(t->hops[h].to_hit - 1);
        if (t->hit_a[h] > t->max_hit) t->max_hit = t->hit_a[h];
        if (t->hit_b[h] > t->max_hit) t->max_hit = t->hit_b[h];
    }
    if (p->sinks.table_new && p->sinks.table_new(p->sinks.ctx, t) < 0) {
        free(t);
        p->failed = 1;
        return NULL;
    }
    p->tables[p->n_tables++] = t;
    *slot = t;
    return t;
}

/* latrec_pass_table_for() with the look-up of a table made inline: it runs
 * at every ended instance and every first-stage stamp. */
static inline latrec_leg_table *table_of(latrec_pass *p, int component, int leg)
{
    if (component < p->index_comps && leg < p->index_legs) {
        latrec_leg_table *t = p->index[component * p->index_legs + leg];
        if (t) return t;
    }
    return latrec_pass_table_for(p, component, leg);
}

/* route_for's search, and the new route. */
__attribute__((noinline)) static struct route *route_find(latrec_pass *p, int c0, int leg)
{
    for (int i = 0; i < p->n_routes; i++)
        if (p->routes[i].c0 == c0 && p->routes[i].leg == leg) return &p->routes[p->last_route = i];
    if (p->n_routes == p->cap_routes) {
        int cap = p->cap_routes ? p->cap_routes * 2 : 16;
        struct route *r = realloc(p->routes, (size_t)cap * sizeof(*r));
        if (!r) {
            p->failed = 1;
            return NULL;
        }
        p->routes = r;
        p->cap_routes = cap;
    }
    struct route *r = &p->routes[p->n_routes];
    memset(r, 0, sizeof(*r));
    r->c0 = c0;
    r->leg = leg;
    r->dest = -1;
    return &p->routes[p->last_route = p->n_routes++];
}

/* The route of (c0, leg), made on first use (NULL: out of memory). Inline:
 * the last one asked for, at every first-stage stamp and ended instance. */
static inline struct route *route_for(latrec_pass *p, int c0, int leg)
{
    if (p->last_route < p->n_routes) {
        struct route *r = &p->routes[p->last_route];
        if (r->c0 == c0 && r->leg == leg) return r;
    }
    return route_find(p, c0, leg);
}

static void first_stage_to(latrec_pass *p, int component, int leg, uint64_t t_ns)
{
    latrec_leg_table *t = table_of(p, component, leg);
    if (t) p->sinks.first_stage(p->sinks.ctx, t, t_ns);
}

/* The route's destination is known (or given up on): hand it what waited. */
static void route_settle(latrec_pass *p, struct route *r, int dest)
{
    r->dest = dest;
    for (size_t i = 0; i < r->n_pending; i++) first_stage_to(p, dest, r->leg, r->pending[i]);
    free(r->pending);
    r->pending = NULL;
    r->n_pending = r->cap_pending = 0;
}

static void on_first_stage(latrec_pass *p, uint32_t ring, int leg, uint64_t t_ns)
{
    int c0 = latrec_legs_ring_component(p->legs, ring);
    struct route *r = route_for(p, c0, leg);
    if (!r) return;
    if (r->dest < 0 && r->n_pending == r->cap_pending) {
        uint64_t *more = NULL;
        if (r->cap_pending < ROUTE_PENDING_MAX) {
            size_t cap = r->cap_pending ? r->cap_pending * 2 : 64;
            more = realloc(r->pending, cap * sizeof(*more));
            if (more) {
                r->pending = more;
                r->cap_pending = cap;
            }
        }
        if (!more) route_settle(p, r, c0);
    }
    if (r->dest >= 0) first_stage_to(p, r->dest, leg, t_ns);
    else r->pending[r->n_pending++] = t_ns;
}

static void disc_pop(latrec_pass *p)
{
    struct disc_stamp top = p->disc[0], last = p->disc[--p->n_disc];
    size_t i = 0;
    for (;;) { /* sift `last` down from the root */
        size_t c = 2 * i + 1;
        if (c >= p->n_disc) break;
        if (c + 1 < p->n_disc && p->disc[c + 1].t_ns < p->disc[c].t_ns) c++;
        if (p->disc[c].t_ns >= last.t_ns) break;
        p->disc[i] = p->disc[c];
        i = c;
    }
    if (p->n_disc) p->disc[i] = last;
    first_stage_to(p, top.component, top.leg, top.t_ns);
}

static void disc_push(latrec_pass *p, int component, int leg, uint64_t t_ns)
{
    if (p->n_disc == DISC_PENDING_MAX) disc_pop(p);
    if (p->n_disc == p->cap_disc) {
        size_t cap = p->cap_disc ? p->cap_disc * 2 : 256;
        struct disc_stamp *d = realloc(p->disc, cap * sizeof(*d));
        if (!d) {
            p->failed = 1;
            return;
        }
        p->disc = d;
        p->cap_disc = cap;
    }
    size_t i = p->n_disc++;
    for (; i > 0 && p->disc[(i - 1) / 2].t_ns > t_ns; i = (i - 1) / 2) p->disc[i] = p->disc[(i - 1) / 2];
    p->disc[i] = (struct disc_stamp){ t_ns, component, leg };
}

/* Hand out the discovered legs' stamps older than `before`. */
static void disc_flush(latrec_pass *p, uint64_t before)
{
    while (p->n_disc && p->disc[0].t_ns < before) disc_pop(p);
}

static void on_path(void *ctx, const latrec_path_instance *pi)
{
    latrec_pass *p = ctx;
    if (p->offsets) latrec_offsets_add_path(p->offsets, p->legs, pi); /* every path's exchanges */
    if (p->opts.path && pi->path != p->path_sel) return;
    if (pi->start_ns < p->begin + p->opts.warmup_ns) {
        p->path_warm_skipped++;
        return;
    }
    if (p->sinks.path_instance) p->sinks.path_instance(p->sinks.ctx, pi);
}

void latrec_pass_on_instance(void *ctx, const latrec_instance *inst)
{
    latrec_pass *p = ctx;
    if (p->taps.ended) p->taps.ended(p->taps.ctx, inst);
    if (p->paths && latrec_path_index_feed(p->paths, inst) < 0) p->failed = 1;
    const latrec_leg *leg = latrec_legs_leg(p->legs, inst->leg); /* once: a leg, once made, does not change */
    if (p->sinks.first_stage && leg->discovered && inst->n_hits > 0 &&
        inst->hits[0].t_ns >= p->begin + p->opts.warmup_ns)
        disc_push(p, inst->component, inst->leg, inst->hits[0].t_ns); /* hits[0]: the group's first stamp */
    if (p->sinks.first_stage && inst->n_hits > 0 && inst->hits[0].t_ns) {
        /* hits[0] is the first chain stage: learn where its stamps go. */
        struct route *r = route_for(p, latrec_legs_ring_component(p->legs, inst->hits[0].ring), inst->leg);
        if (r && r->dest < 0) route_settle(p, r, inst->component);
    }
    if (inst->first_t < p->begin + p->opts.warmup_ns) {
        p->warm_skipped++;
        return;
    }
    if (p->opts.no_legs) return; /* no tables (table_for would say so, a look-up later) */
    latrec_leg_table *t = table_of(p, inst->component, inst->leg);
    if (!t) return;
    t->instances++;
    t->complete += inst->complete != 0;
    int64_t v[LATREC_MAX_HOPS];
    const uint32_t have = latrec_pass_hop_values(p, leg, t, inst, v);
    if (p->sinks.values) {
        p->sinks.values(p->sinks.ctx, t, have, v, inst);
    } else {
        for (uint32_t m = have; m; m &= m - 1) {
            const int h = __builtin_ctz(m);
            p->sinks.value(p->sinks.ctx, t, h, v[h], inst);
        }
    }
    if (p->sinks.instance) p->sinks.instance(p->sinks.ctx, t, inst);
}

uint64_t latrec_pass_run_begin(const latrec_input *in)
{
    /* Each directory begins at its own start stamp (or its first record);
     * the run begins with the earliest of them. On the wall clock, both are
     * mapped by a ring of that directory. */
    uint64_t begin = UINT64_MAX;
    for (int d = 0; d < in->opts.n_dirs; d++) {
        uint64_t first = UINT64_MAX, start = 0;
        for (size_t i = 0; i < in->set.n; i++) {
            const latrec_ring *r = &in->set.rings[i];
            latrec_wallmap w;
            if (in->ring_dir[i] != d || r->status != LATREC_RING_OK || !r->valid) continue;
            if (!in->opts.wall) {
                if (r->min_t_ns < first) first = r->min_t_ns;
                continue;
            }
            if ((int)i == in->sched_ring || latrec_wallmap_init(&w, r, NULL, 0) != 0) continue;
            uint64_t t = latrec_wallmap_apply(&w, r->min_t_ns);
            if (t < first) first = t;
            if (in->dir_have_start[d] && !start) start = latrec_wallmap_apply(&w, in->dir_start_ns[d]);
        }
        if (!in->opts.wall && in->dir_have_start[d]) start = in->dir_start_ns[d];
        /* Live (engine.h): rings still appear, so the first record is not
         * known yet; a directory with a start stamp begins at it (else an
         * instance stamped before the first record of the rings open now
         * would be taken for one before the beginning). */
        if (in->live && start && !in->opts.wall) first = start;
        if (first == UINT64_MAX) continue;
        uint64_t b = start > first ? start : first;
        if (b < begin) begin = b;
    }
    return begin == UINT64_MAX ? 0 : begin;
}

static latrec_path_index *paths_assemble(latrec_pass *p)
{
    const latrec_input *in = p->in;
    const latrec_paths_opts po = { in->opts.path_horizon_ns, 0, in->opts.wall && in->opts.n_dirs > 1 };
    return latrec_path_index_assemble(p->legs, &po, on_path, p);
}

int latrec_pass_paths_renew(latrec_pass *p)
{
    latrec_path_index_free(p->paths);
    p->path_warm_skipped = 0;
    return (p->paths = paths_assemble(p)) ? 0 : -1;
}

latrec_pass *latrec_pass_new(latrec_input *in, const latrec_pass_opts *opts, const latrec_pass_sinks *sinks)
{
    latrec_pass *p = aligned_alloc(_Alignof(latrec_pass), sizeof(*p)); /* the feeder's lines */
    if (p) memset(p, 0, sizeof(*p));
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", latrec_prog);
        return NULL;
    }
    p->in = in;
    p->opts = *opts;
    p->sinks = *sinks;
    p->begin = latrec_pass_run_begin(in);
    p->legs = latrec_input_legs_new(in, emit_instance, p);
    p->f.legs = p->legs;
    p->f.warm_from = p->begin + opts->warmup_ns;
    p->f.want_first = sinks->first_stage != NULL;
    p->f.sched = in->sched_ring;
    if (p->legs && opts->paths) {
        latrec_paths_opts po = { in->opts.path_horizon_ns, 0, in->opts.wall && in->opts.n_dirs > 1 };
        if (!(p->paths = paths_assemble(p))) {
            latrec_legs_free(p->legs);
            p->legs = NULL;
        }
        p->path_sel = latrec_path_index_find(p->paths, opts->path); /* callers checked the name */
        if (p->legs && po.cross_hosts && (p->offsets = malloc(sizeof(*p->offsets))))
            latrec_offsets_init(p->offsets, in->opts.n_dirs);
        else if (po.cross_hosts)
            p->failed = 1;
    }
    if (!p->legs || latrec_input_rewind(in, &p->m) < 0) {
        if (!p->legs) fprintf(stderr, "%s: out of memory\n", latrec_prog);
        latrec_pass_free(p);
        return NULL;
    }
    p->have_merge = 1;
    return p;
}

/* The record's stage is the first chain stage of the leg it went to, past
 * the warm-up: its stamp goes to the leg's inter-arrival row. */
static int first_stage_of(const latrec_pass *p, int leg, const latrec_rec *rec)
{
    return leg >= 0 && p->f.want_first && latrec_legs_first_stage(p->f.legs, leg) == latrec_rec_stage(rec->sc) &&
           rec->t_ns >= p->f.warm_from;
}

/* The discovered legs' stamps a horizon older than the stream at t_ns. */
static void flush_to(latrec_pass *p, uint64_t t_ns)
{
    if (!p->n_disc) return; /* the common case: no call per record */
    const uint64_t h = latrec_legs_horizon(p->legs);
    if (t_ns > h && p->disc[0].t_ns < t_ns - h) disc_flush(p, t_ns - h); /* no wrap near 2^64 */
}

/* One record of the stream into the leg builder, the record tap and the
 * first-stage stamps: 0, or -1 when the builder is out of memory. */
static inline int feed(latrec_pass *p, latrec_merged *ev, int sched)
{
    if ((int)ev->ring == sched) {
        if (p->taps.record) p->taps.record(p->taps.ctx, ev, -1);
        return 0;
    }
    /* The builder runs on the merge's clock (wall-clock with --wall:
     * monotonic clocks of two hosts are unrelated). */
    const uint64_t stamped = ev->rec.t_ns;
    ev->rec.t_ns = ev->t_ns;
    p->f.fed++;
    p->f.last_t_ns = ev->t_ns;
    int leg = latrec_legs_feed(p->legs, ev->ring, &ev->rec);
    if (leg == -2) {
        p->f.failed = 1;
        return -1;
    }
    if (p->taps.record) {
        ev->rec.t_ns = stamped;
        p->taps.record(p->taps.ctx, ev, leg);
        ev->rec.t_ns = ev->t_ns;
    }
    if (first_stage_of(p, leg, &ev->rec)) on_first_stage(p, ev->ring, leg, ev->rec.t_ns);
    flush_to(p, ev->rec.t_ns);
    return 0;
}

/* Before the first record of a first pass in time order: the rings
 * opened by the guess are checked as it reads when it can start over
 * (engine/input.h), else latrec_input_fill scans them first. */
static void pass_begin(latrec_pass *p)
{
    p->began = 1;
    if (p->in->pass == 1 && p->in->guessed && latrec_pass_can_start_over(p)) p->in->checking = 1;
}

int latrec_pass_step(latrec_pass *p, uint64_t budget)
{
    latrec_input *in = p->in;
    if (p->ended) return 0;
    if (__builtin_expect(!p->began, 0)) pass_begin(p);
    while (budget) {
        const size_t want = budget < PASS_BATCH ? (size_t)budget : PASS_BATCH;
        const size_t got = latrec_input_fill(in, &p->m, p->batch, want);
        if (got == 0) return 0;
        budget -= got;
        const int sched = in->sched_ring;
        for (size_t k = 0; k < got; k++)
            if (feed(p, &p->batch[k], sched) < 0) return -1;
    }
    return p->failed ? -1 : 1;
}

int latrec_pass_end(latrec_pass *p)
{
    latrec_input *in = p->in;
    if (p->ended) return p->failed ? -1 : 0;
    p->ended = 1;
    if (!p->f.finished) latrec_legs_finish(p->legs);
    if (p->paths) latrec_path_index_finish(p->paths);
    disc_flush(p, UINT64_MAX);
    /* once per input (a pass that found a guess wrong runs again: engine.c) */
    if (!in->opts.quiet && !p->opts.no_warnings && in->pass == 1 && !in->guess_wrong) {
        latrec_pass_print_warnings(p->legs);
        if (p->paths) latrec_pass_print_join_warnings(p->paths);
    }
    for (int i = 0; i < p->n_routes; i++)
        if (p->routes[i].dest < 0) route_settle(p, &p->routes[i], p->routes[i].c0);
    latrec_merge_free(&p->m);
    p->have_merge = 0;
    if (p->failed || p->f.failed) {
        fprintf(stderr, "%s: out of memory\n", latrec_prog);
        return -1;
    }
    return 0;
}

/* ---- the pass on threads (engine/pipeline.h) ------------------------------
 *
 * Stage 1 copies merged records into a batch, stage 2 feeds them to the
 * builder and writes what the pass does after each record as events into
 * the batch, stage 3 replays those events in order: the ended instances
 * (on_instance), the first-stage stamps (on_first_stage) and the stream
 * time after a record (flush_to). An event carries the time of the records
 * fed since the one before it, applied first: between two events, one
 * flush to the newest of those times does what a flush after each did
 * (no stamp is pushed in between, and the heap gives them in time order).
 * So stage 3 makes the calls one thread makes, in the same order. */
#define PIPE_BATCH_RECS 4096
#define PIPE_BATCHES 6

struct pipe_rec {
    latrec_rec rec; /* rec.t_ns: the merge's clock */
    uint32_t ring;
};

/* What a record tap sees of a record besides its pipe_rec. */
struct pipe_tapped {
    uint64_t stamped; /* rec.t_ns as stored */
    uint64_t pos;
};

/* A line or more each: neighbouring batches are in different stages. */
struct pipe_batch {
    _Alignas(64) struct pipe_rec *recs;
    struct pipe_tapped *tapped; /* with a record tap: per record (sched.latrec's are in recs too) */
    size_t n_recs;
    unsigned char *ev; /* events, each a pipe_ev and its payload */
    size_t ev_len, ev_cap;
};

enum { EV_NONE, EV_INSTANCE, EV_FIRST };

struct pipe_ev {
    uint32_t kind, size; /* size: the event with its payload, a multiple of 8 */
    uint64_t flush_t;    /* flush_to this first (0: none) */
};

struct pipe_first {
    uint32_t ring;
    int32_t leg;
    uint64_t t_ns;
};

/* Room for `size` more bytes of events: 0, or -1 (out of memory). */
static int ev_grow(latrec_pass *p, struct pipe_batch *b, size_t size)
{
    size_t cap = b->ev_cap ? b->ev_cap : 64 * 1024;
    while (cap < b->ev_len + size) cap *= 2;
    unsigned char *ev = realloc(b->ev, cap);
    if (!ev) {
        p->f.failed = 1;
        return -1;
    }
    b->ev = ev;
    b->ev_cap = cap;
    return 0;
}

/* Room for an event of `payload` bytes in the batch stage 2 fills: its
 * payload, or NULL when out of memory. */
static inline void *ev_put(latrec_pass *p, uint32_t kind, size_t payload)
{
    struct pipe_batch *b = p->f.out;
    const size_t size = (sizeof(struct pipe_ev) + payload + 7) & ~(size_t)7;
    if (b->ev_len + size > b->ev_cap && ev_grow(p, b, size) < 0) return NULL;
    struct pipe_ev *e = (struct pipe_ev *)(b->ev + b->ev_len);
    *e = (struct pipe_ev){ kind, (uint32_t)size, p->f.flush_pending ? p->f.flush_t : 0 };
    p->f.flush_pending = 0;
    b->ev_len += size;
    return e + 1;
}

/* The builder's emit: on threads, a copy of the instance for stage 3. */
static void emit_instance(void *ctx, const latrec_instance *inst)
{
    latrec_pass *p = ctx;
    if (!p->f.out) {
        latrec_pass_on_instance(p, inst);
        return;
    }
    const size_t size = offsetof(latrec_instance, hits) + (size_t)inst->n_hits * sizeof(inst->hits[0]);
    void *d = ev_put(p, EV_INSTANCE, size);
    if (d) memcpy(d, inst, size);
}

static int pipe_merge(void *ctx, void *batch)
{
    latrec_pass *p = ctx;
    struct pipe_batch *b = batch;
    latrec_merged ev[128];
    b->n_recs = 0;
    while (b->n_recs < PIPE_BATCH_RECS) {
        const size_t room = PIPE_BATCH_RECS - b->n_recs;
        const size_t got = latrec_input_fill(p->in, &p->m, ev, room < 128 ? room : 128);
        if (!got) return 0;
        const int sched = p->in->sched_ring;
        for (size_t k = 0; k < got; k++) {
            if ((int)ev[k].ring == sched && !b->tapped) continue;
            if (b->tapped) b->tapped[b->n_recs] = (struct pipe_tapped){ ev[k].rec.t_ns, ev[k].pos };
            struct pipe_rec *r = &b->recs[b->n_recs++];
            r->rec = ev[k].rec;
            r->rec.t_ns = ev[k].t_ns; /* as latrec_pass_step */
            r->ring = ev[k].ring;
        }
    }
    return 1;
}

/* The record tap on stage 2, after the builder (as latrec_pass_step). */
static void pipe_tap(latrec_pass *p, const struct pipe_rec *r, const struct pipe_tapped *t, int leg)
{
    latrec_merged ev = { .t_ns = r->rec.t_ns, .ring = r->ring, .pos = t->pos, .rec = r->rec };
    ev.rec.t_ns = t->stamped;
    p->taps.record(p->taps.ctx, &ev, leg);
}

static int pipe_feed(void *ctx, void *batch, int last)
{
    latrec_pass *p = ctx;
    struct pipe_batch *b = batch;
    p->f.out = b;
    b->ev_len = 0;
    if (!b->tapped) { /* the batch is the program's records */
        p->f.fed += b->n_recs;
        if (b->n_recs) p->f.last_t_ns = b->recs[b->n_recs - 1].rec.t_ns;
    }
    for (size_t i = 0; i < b->n_recs && !p->f.failed; i++) {
        const struct pipe_rec *r = &b->recs[i];
        if (b->tapped) { /* sched.latrec's are there too, for the tap only */
            if ((int)r->ring == p->f.sched) {
                pipe_tap(p, r, &b->tapped[i], -1);
                continue;
            }
            p->f.fed++;
            p->f.last_t_ns = r->rec.t_ns;
        }
        const int leg = latrec_legs_feed(p->f.legs, r->ring, &r->rec);
        if (b->tapped) pipe_tap(p, r, &b->tapped[i], leg);
        if (leg == -2) p->f.failed = 1;
        if (first_stage_of(p, leg, &r->rec)) {
            struct pipe_first *f = ev_put(p, EV_FIRST, sizeof(*f));
            if (f) *f = (struct pipe_first){ r->ring, leg, r->rec.t_ns };
        }
        /* One thread flushes at every record; here the pending flush goes
         * with the next event, which is the same while stamps rise. Past a
         * descent (a ring not single-writer) the higher stamp flushes more:
         * it goes out on its own first. */
        if (p->f.flush_pending && r->rec.t_ns < p->f.flush_t) ev_put(p, EV_NONE, 0);
        p->f.flush_t = r->rec.t_ns;
        p->f.flush_pending = 1;
    }
    if (p->f.flush_pending) ev_put(p, EV_NONE, 0);
    if (last && !p->f.failed) {
        latrec_legs_finish(p->f.legs); /* latrec_pass_end's, here: its instances are stage 3's */
        p->f.finished = 1;
    }
    p->f.out = NULL;
    return p->f.failed ? -1 : 0;
}

static int pipe_apply(void *ctx, void *batch)
{
    latrec_pass *p = ctx;
    const struct pipe_batch *b = batch;
    for (size_t off = 0; off < b->ev_len && !p->failed;) {
        const struct pipe_ev *e = (const struct pipe_ev *)(b->ev + off);
        if (e->flush_t) flush_to(p, e->flush_t);
        if (e->kind == EV_INSTANCE) {
            latrec_pass_on_instance(p, (const latrec_instance *)(e + 1));
        } else if (e->kind == EV_FIRST) {
            const struct pipe_first *f = (const struct pipe_first *)(e + 1);
            on_first_stage(p, f->ring, f->leg, f->t_ns);
        }
        off += e->size;
    }
    return p->failed ? -1 : 0;
}

/* --threads (engine/input.h): 0 is 2 when two CPUs are online. A record
 * tap runs on stage 2, after the builder took each record. */
static int pass_threads(const latrec_pass *p)
{
    int n = p->in->opts.threads;
    if (n <= 0) n = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
    return n;
}

/* The rest of the stream through the stages on n threads. 0 or -1. */
static int pass_threads_run(latrec_pass *p, int n)
{
    struct pipe_batch b[PIPE_BATCHES];
    void *bp[PIPE_BATCHES];
    int ok = 1, r = -1;
    memset(b, 0, sizeof(b));
    for (int i = 0; i < PIPE_BATCHES; i++) {
        bp[i] = &b[i];
        ok &= (b[i].recs = malloc(PIPE_BATCH_RECS * sizeof(*b[i].recs))) != NULL;
        if (p->taps.record) ok &= (b[i].tapped = malloc(PIPE_BATCH_RECS * sizeof(*b[i].tapped))) != NULL;
    }
    if (ok) {
        const latrec_pipe_stages s = { p, pipe_merge, pipe_feed, pipe_apply };
        r = latrec_pipe_run(&s, bp, PIPE_BATCHES, n);
    }
    for (int i = 0; i < PIPE_BATCHES; i++) {
        free(b[i].recs);
        free(b[i].tapped);
        free(b[i].ev);
    }
    if (r < 0 && !p->f.failed) p->failed = 1;
    return r;
}

int latrec_pass_finish(latrec_pass *p)
{
    if (!p->ended) {
        const int n = pass_threads(p);
        int r = latrec_pass_split_run(p, n);
        if (r == 1) r = 0;
        else if (r == 0 && n >= 2) r = pass_threads_run(p, n);
        else if (r == 0)
            while ((r = latrec_pass_step(p, UINT64_MAX)) > 0)
                ;
        if (r < 0) {
            p->ended = 1;
            fprintf(stderr, "%s: out of memory\n", latrec_prog);
            return -1;
        }
    }
    return latrec_pass_end(p);
}

latrec_pass *latrec_pass_run(latrec_input *in, const latrec_pass_opts *opts, const latrec_pass_sinks *sinks)
{
    latrec_pass *p = latrec_pass_new(in, opts, sinks);
    if (!p) return NULL;
    if (latrec_pass_finish(p) < 0) {
        latrec_pass_free(p);
        return NULL;
    }
    return p;
}

void latrec_pass_tap(latrec_pass *p, const latrec_pass_taps *taps) { p->taps = *taps; }
uint64_t latrec_pass_fed(const latrec_pass *p) { return p->f.fed; }
uint64_t latrec_pass_last_t(const latrec_pass *p) { return p->f.last_t_ns; }
latrec_merge *latrec_pass_merge(latrec_pass *p) { return p->have_merge ? &p->m : NULL; }

latrec_leg_table **latrec_pass_tables(latrec_pass *p, int *n)
{
    *n = p->n_tables;
    return p->tables;
}

latrec_legs *latrec_pass_legs(latrec_pass *p) { return p->legs; }
uint64_t latrec_pass_warmup_skipped(const latrec_pass *p) { return p->warm_skipped; }
uint64_t latrec_pass_begin(const latrec_pass *p) { return p->begin; }
const latrec_path_index *latrec_pass_paths(const latrec_pass *p) { return p->paths; }
int latrec_pass_read_by_process(const latrec_pass *p) { return p->by_process; }
const latrec_offsets *latrec_pass_offsets(const latrec_pass *p) { return p->offsets; }
uint64_t latrec_pass_path_warmup_skipped(const latrec_pass *p) { return p->path_warm_skipped; }

void latrec_pass_free(latrec_pass *p)
{
    if (!p) return;
    for (int i = 0; i < p->n_tables; i++) free(p->tables[i]);
    free(p->tables);
    free(p->index);
    free(p->shown);
    for (int i = 0; i < p->n_routes; i++) free(p->routes[i].pending);
    free(p->routes);
    free(p->disc);
    free(p->offsets);
    latrec_path_index_free(p->paths);
    latrec_legs_free(p->legs);
    if (p->have_merge) latrec_merge_free(&p->m);
    free(p);
}

/* names of the components (legs == 0) or legs known to the builder, ", "
 * separated, each once; 1 when want is among them. */
static int known_names(latrec_legs *b, int legs, const char *want, char *buf, size_t len)
{
    int n = legs ? latrec_legs_n_legs(b) : latrec_legs_n_components(b), found = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *name = legs ? latrec_legs_leg(b, i)->name : latrec_legs_component_name(b, i);
        int dup = 0;
        for (int k = 0; k < i && !dup; k++)
            dup = strcmp(name, legs ? latrec_legs_leg(b, k)->name : latrec_legs_component_name(b, k)) == 0;
        if (dup) continue;
        found |= strcmp(name, want) == 0;
        if (used < len) {
            int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
            if (w > 0) used += (size_t)w;
        }
    }
    if (used >= len && len > 4) memcpy(buf + len - 4, "...", 4);
    return found;
}

int latrec_pass_check_names(latrec_pass *p, const char *cmd)
{
    char names[1024];
    const char *what[2] = { p->opts.component, p->opts.leg };
    for (int legs = 0; legs < 2; legs++) {
        if (!what[legs] || known_names(p->legs, legs, what[legs], names, sizeof(names))) continue;
        fprintf(stderr, "latrec %s: --%s %s: no such %s in this run (%s: %s)\n", cmd, legs ? "leg" : "component",
                what[legs], legs ? "leg" : "component", legs ? "legs" : "components", names[0] ? names : "none");
        return -1;
    }
    return 0;
}
