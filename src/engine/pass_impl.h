/*
 * engine/pass_impl.h - a pass's private state, shared by its files: pass.c
 * (the pass in time order, on one thread or the pipeline's), pass_split.c
 * (the pass run by process, when its figures allow).
 */
#ifndef LATREC_ENGINE_PASS_IMPL_H
#define LATREC_ENGINE_PASS_IMPL_H

#include "analyze/stats.h"
#include "engine/pass.h"

/* Where the first-stage stamps of a leg go for its inter-arrival row. An
 * instance belongs to the component of the ring that stamped its last chain
 * stage, and its leg's first stage is often stamped by a ring of another
 * component (ENQUEUE on the producer's oai.* thread, the rest on
 * libe3.outbound.*). So the stamps of (first-stage ring's component c0, leg)
 * go to the table of the component that the first ended instance of that
 * pair was given; until one ends (a leg with extras ends 10 ms of stream
 * time after completing), up to ROUTE_PENDING_MAX stamps wait in order, and
 * when none ends in time they go to c0's own table. */
#define ROUTE_PENDING_MAX 65536
struct route {
    int       c0, leg;
    int       dest; /* component index, or -1: not known yet */
    size_t    n_pending, cap_pending;
    uint64_t *pending;
};

/* First-stage stamps of discovered legs: a discovered instance is known
 * only when its group ends, and groups do not end in order of their first
 * stamp (a seq reuse ends one early). Every group whose first stamp is older
 * than the horizon has ended, so the stamps wait in a min-heap until the
 * stream is a horizon past them, then go out in time order. At most
 * DISC_PENDING_MAX wait (then the earliest goes out). */
#define DISC_PENDING_MAX (1u << 20)
struct disc_stamp {
    uint64_t t_ns;
    int      component, leg;
};

/* Records pulled from the stream at a time: enough to keep the merge in
 * its loop, few enough to stay in the first-level cache (14 KiB). */
#define PASS_BATCH 256

/* The side of the pass that feeds the leg builder, on cache lines of its
 * own: on threads (pipeline.h, below) stage 2 writes it at every record
 * while stage 3 reads and writes the rest of the pass, and a line both
 * touched would cross between the cores at every record. Stage 2 reads
 * the pass through the copies here only. */
struct pass_feeder {
    _Alignas(64) latrec_legs *legs;
    uint64_t warm_from; /* begin + warm-up: first-stage stamps from there on */
    int want_first;     /* sinks.first_stage */
    int sched;          /* in->sched_ring */
    uint64_t fed, last_t_ns; /* program records fed; the newest one's time */
    /* On threads: the batch the ended instances go to (NULL: straight to
     * on_instance), the newest record whose stream-time flush of the
     * discovered legs' stamps is still to be written (flush_pending), the
     * builder's failure, the builder already finished. */
    struct pipe_batch *out;
    uint64_t flush_t;
    int flush_pending, failed, finished;
};

struct latrec_pass {
    latrec_input *in;
    latrec_pass_opts opts;
    latrec_pass_sinks sinks;
    latrec_pass_taps taps;
    latrec_legs *legs;
    latrec_leg_table **tables;
    int n_tables, cap_tables;
    latrec_leg_table **index; /* [component * index_legs + leg], grown on demand */
    uint8_t *shown;           /* the same shape: 0 not asked yet, SHOWN_YES, SHOWN_NO (the selection's answer) */
    int index_comps, index_legs;
    uint64_t begin, warm_skipped;
    struct route *routes;
    int n_routes, cap_routes, last_route;
    struct disc_stamp *disc;
    size_t n_disc, cap_disc;
    latrec_path_index *paths; /* every catalog's paths, assembled */
    int path_sel;             /* opts.path's run path */
    uint64_t path_warm_skipped;
    latrec_offsets *offsets; /* --wall, several directories: host clock offsets from the paths */
    latrec_merge m;           /* the time-ordered record stream (have_merge) */
    latrec_merged batch[PASS_BATCH]; /* records taken from it at a time */
    int have_merge, ended, failed;
    int began;             /* the first step decided how the guessed rings are read (pass_begin) */
    int split;             /* read by process (pass_split.c) */
    int by_process;        /* the stream was read by process to its end */
    struct pass_feeder f; /* last: its lines are its own */
};

/* 1 when the options select (component, leg) for a table. */
int latrec_pass_selected(const latrec_pass *p, int component, int leg);

/* The table of (component, leg), created on first use; NULL when not
 * selected or on failure. */
latrec_leg_table *latrec_pass_table_for(latrec_pass *p, int component, int leg);

/* The values of t's wanted hops of the instance of `leg` into v (after
 * calibration, as the sinks get them): bit h set when hop h has one.
 * Inline: it runs once per ended instance. */
static inline uint32_t latrec_pass_hop_values(const latrec_pass *p, const latrec_leg *leg, const latrec_leg_table *t,
                                              const latrec_instance *inst, int64_t *v)
{
    uint32_t have = 0;
    if (t->hits_known && inst->n_hits > t->max_hit && !p->opts.calibrate) { /* without a branch a hop */
        for (uint32_t m = t->wanted; m; m &= m - 1) {
            const int h = __builtin_ctz(m);
            const uint64_t a = inst->hits[t->hit_a[h]].t_ns, b = inst->hits[t->hit_b[h]].t_ns;
            v[h] = (int64_t)(b - a);
            have |= (uint32_t)((a != 0) & (b != 0)) << h;
        }
        return have;
    }
    for (uint32_t m = t->wanted; m; m &= m - 1) {
        const int h = __builtin_ctz(m);
        uint32_t ring;
        if (!latrec_hop_value_of_leg(leg, inst, &t->hops[h], &v[h], &ring)) continue; /* hops are leg's */
        /* A real hop shorter than the clock cost calibrates to 0, not to a
         * clock regression: regressions are judged on the raw hop. */
        if (p->opts.calibrate && v[h] >= 0) {
            v[h] = latrec_calibrate(v[h], p->in->set.rings[ring].clock_ns_per_call);
            if (v[h] < 0) v[h] = 0;
        }
        have |= 1u << h;
    }
    return have;
}

/* What the pass does with an ended instance (the builder's emit when
 * not on the pipeline): ctx the pass. */
void latrec_pass_on_instance(void *ctx, const latrec_instance *inst);

/* The stream read by process (pass_split.c) on up to n_threads threads,
 * when the pass's options and sinks allow: 1 done (the stream read to its
 * end, every instance ended), 0 not run, or given up with the sinks told to
 * restart and the pass as it was before (read the stream in time order
 * instead), -1 out of memory (the caller says so). */
int latrec_pass_split_run(latrec_pass *p, int n_threads);
/* 1 when the first records of the run in time order hold nothing that
 * makes a pass by process give up (pass_peek.c); *anchored set when one
 * of them went to a leg anchor[] (NULL: none) marks. */
int latrec_pass_peek_ok(const latrec_pass *p, const uint8_t *anchor, int *anchored);

/* The pass's path assemblers made anew (a pass by process that fed them
 * gave up): 0, or -1 out of memory. */
int latrec_pass_paths_renew(latrec_pass *p);

/* A first pass in time order that found a guessed ring wrong
 * (in->guess_wrong, engine/input.h): its sinks told to restart, p freed,
 * and a new pass with the same options, sinks and taps over the input
 * read again from its start, handed to taps.restart. NULL when out of
 * memory or the taps could not start over (said). */
latrec_pass *latrec_pass_start_over(latrec_pass *p);

/* 1 when p can start over (engine/pass.h, sinks.restart): its sinks set
 * restart or have no callbacks, its taps set theirs or have none, and the
 * input is not live. */
static inline int latrec_pass_can_start_over(const latrec_pass *p)
{
    const latrec_pass_sinks *s = &p->sinks;
    const latrec_pass_taps *t = &p->taps;
    const int sinks =
        s->restart || (!s->table_new && !s->value && !s->instance && !s->first_stage && !s->path_instance);
    const int taps = t->restart || (!t->ended && !t->record);
    return sinks && taps && !p->in->live;
}

#endif
