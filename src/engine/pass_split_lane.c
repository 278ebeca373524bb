/* A pass read by process: each lane's thread reads its processes' records
 * into builders of their own (pass_split.c tells why that gives the
 * figures of the pass in time order), one process after another, or with
 * paths logged (pass_plog.h) side by side. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/pass_split.h"

/* A first-stage stamp into g (engine/pass_stamps.h). */
static inline void log_put(struct split_lane *l, struct stamp_log *g, uint64_t t_ns)
{
    if (latrec_stamp_log_put(g, t_ns) < 0) stop_all(l->sp, 1);
}

/* Open process proc's feed: its rings (in `rings`, a copy of the set's)
 * merged, a builder of its own. 0, or -1 (stopped). */
static int pfeed_open(struct split_lane *l, struct pfeed *f, uint32_t proc, int with_sched, latrec_ring *rings)
{
    struct split *sp = l->sp;
    latrec_input *in = sp->p->in;
    const latrec_ring *set = in->set.rings;
    memset(f, 0, sizeof(*f));
    f->proc = proc;
    f->rings = rings;
    f->with_sched = with_sched;
    for (size_t i = 0; i < in->set.n; i++) {
        const int mine =
            set[i].status == LATREC_RING_OK && ((int)i == in->sched_ring ? with_sched : sp->ring_proc[i] == proc);
        rings[i].status = mine ? LATREC_RING_OK : LATREC_RING_REJECTED;
    }
    char err[512];
    if (latrec_merge_init(&f->m, rings, in->set.n, in->opts.wall ? LATREC_MERGE_WALL : 0, err, sizeof(err)) < 0) {
        latrec_merge_free(&f->m);
        stop_all(sp, 0); /* the merge in time order says why, if it must */
        return -1;
    }
    /* A builder of the process's own: the process's stream starts again
     * at the run's start, and a builder takes its stamps in time order. */
    if (!(f->legs = latrec_input_legs_new(in, latrec_split_lane_instance, l))) {
        latrec_merge_free(&f->m);
        stop_all(sp, 1);
        return -1;
    }
    /* a guessed ring's stamps must be in order (read/ring.h): the merge's
     * output in order shows every ring of the part is; the builder's
     * records are checked in pfeed_step, sched.latrec's here */
    f->sched_guessed = with_sched && in->sched_ring >= 0 && set[in->sched_ring].derived == LATREC_RING_GUESSED;
    f->log = sp->plogs ? latrec_plogs_of(sp->plogs, proc) : NULL;
    f->open = 1;
    return 0;
}

/* A block of records in the merge's order into f's builder, with no look
 * at any record's leg (pfeed_step, for a plain lane without scheduler
 * records or a path log): their order checked first, then the builder fed
 * in one call. */
static void feed_block_plain(struct split_lane *l, struct pfeed *f, latrec_merged *ev, size_t got)
{
    size_t k = 0;
    uint64_t t = f->last;
    for (; k < got && ev[k].t_ns >= t; k++) t = ev[k].rec.t_ns = ev[k].t_ns; /* the merge's clock (pass.c) */
    if (k < got) {                /* out of time order: the instances could differ */
        l->disorder = ev[k].ring; /* that ring's stamps went down (input.c, check_order) */
        stop_all(l->sp, 0);
    }
    f->last = l->now = t;
    if (latrec_legs_feed_lazy_merged(f->legs, ev, k) == -2) stop_all(l->sp, 1);
    l->fed += k;
}

/* The next records of f's process into its builder: 1, 0 at their end,
 * or -1 (stopped: lost or failed). logged: f's instances go to a path log
 * (a constant in each of pfeed_step's calls: the usual loop stores nothing
 * for it). */
static inline __attribute__((always_inline)) int step(struct split_lane *l, struct pfeed *f, const int logged)
{
    struct split *sp = l->sp;
    latrec_pass *p = sp->p;
    latrec_input *in = p->in;
    latrec_merged ev[SPLIT_FILL];
    l->cur_proc = f->proc;
    l->cur = f;
    l->now = f->last;
    const size_t got = stopped(sp) ? 0 : latrec_input_fill_part(in, &f->m, ev, SPLIT_FILL, &l->c);
    if (!got) return stopped(sp) ? -1 : 0;
    if (f->log && !f->last && ev[0].t_ns == 0 && (int)ev[0].ring != in->sched_ring)
        stop_all(sp, 0); /* stamped 0: written, yet absent to the builder (legs.c) */
    l->phase = LATREC_PLOG_FEED;
    latrec_legs *const legs = f->legs; /* in registers through the loop */
    uint64_t last = f->last;
    const int want_first = l->want_first, sched = in->sched_ring;
    const int plain = l->plain && !logged && !(f->with_sched && sched >= 0);
    if (plain) {
        feed_block_plain(l, f, ev, got);
        last = f->last;
    }
    for (size_t k = 0; k < got && !plain; k++) {
        if ((int)ev[k].ring == sched) {
            if (f->sched_guessed && ev[k].t_ns < f->last_sched) {
                l->disorder = ev[k].ring;
                stop_all(sp, 0);
            }
            if (ev[k].t_ns > f->last_sched) f->last_sched = ev[k].t_ns;
            continue;
        }
        if (ev[k].t_ns < last) {      /* out of time order: the instances could differ */
            l->disorder = ev[k].ring; /* that ring's stamps went down (input.c, check_order) */
            stop_all(sp, 0);
            break;
        }
        last = l->now = ev[k].rec.t_ns = ev[k].t_ns; /* the builder runs on the merge's clock (pass.c) */
        if (logged) l->cur_ring = ev[k].ring;        /* where the builder is when it ends an instance */
        const int leg = latrec_legs_feed_lazy(legs, ev[k].ring, &ev[k].rec);
        if (leg == -2) stop_all(sp, 1);
        l->fed++;
        /* pass.c's first_stage_of: the leg's first chain stage, past the warm-up */
        if (leg >= 0 && want_first && latrec_legs_first_stage(legs, leg) == latrec_rec_stage(ev[k].rec.sc) &&
            ev[k].t_ns >= p->f.warm_from) {
            struct stamp_log *g = latrec_split_log_of(l, l->ring_component[ev[k].ring], leg);
            if (g) log_put(l, g, ev[k].t_ns);
        }
    }
    f->last = last;
    l->phase = LATREC_PLOG_SETTLE;
    latrec_legs_settle(f->legs); /* before its counts are read */
    if (f->log) latrec_plog_publish(f->log, f->last);
    if (latrec_legs_cross_process(f->legs) || latrec_legs_n_open(f->legs) + SPLIT_FILL > sp->open_share)
        stop_all(sp, 0);
    return stopped(sp) ? -1 : 1;
}

static int pfeed_step(struct split_lane *l, struct pfeed *f)
{
    return f->log ? step(l, f, 1) : step(l, f, 0);
}

/* f's process read to its end (or stopped): its builder finished, its
 * counts to the lane's. */
static void pfeed_close(struct split_lane *l, struct pfeed *f)
{
    struct split *sp = l->sp;
    const latrec_input *in = sp->p->in;
    l->cur_proc = f->proc;
    l->cur = f;
    l->now = f->last;
    for (size_t i = 0; i < in->set.n; i++)
        if (f->rings[i].status == LATREC_RING_OK) l->c.lapped[i] = latrec_merge_cursor(&f->m, i)->lapped;
    latrec_merge_free(&f->m);
    if (f->last > l->last_t) l->last_t = f->last;
    const uint64_t cut = latrec_legs_next_cut(f->legs);
    if (cut < l->next_cut) l->next_cut = cut;
    l->phase = LATREC_PLOG_FINISH;
    if (!stopped(sp)) latrec_legs_finish(f->legs);
    if (f->log && !stopped(sp) && latrec_plog_end(f->log, f->last) < 0) stop_all(sp, 0);
    latrec_legs_add_counts(l->legs, f->legs);
    latrec_legs_free(f->legs);
    f->open = 0;
}

/* Read one process's rings to their end into a builder of its own: 0, or
 * -1 (stopped: lost or failed). */
static int feed_process(struct split_lane *l, uint32_t proc, int with_sched)
{
    struct pfeed f;
    if (pfeed_open(l, &f, proc, with_sched, l->rings) < 0) return -1;
    int rc;
    while ((rc = pfeed_step(l, &f)) > 0) {
    }
    pfeed_close(l, &f);
    return stopped(l->sp) ? -1 : 0;
}

/* On the lane's thread. */
static int lane_init(struct split_lane *l)
{
    latrec_pass *p = l->sp->p;
    const size_t n = p->in->set.n;
    l->legs = latrec_input_legs_new(p->in, latrec_split_lane_instance, l);
    l->rings = malloc(n * sizeof(*l->rings) + 1);
    l->c.fed = calloc(n + 1, sizeof(uint64_t));
    l->c.dropped = calloc(n + 1, sizeof(uint64_t));
    l->c.lapped = calloc(n + 1, sizeof(uint64_t));
    l->ring_component = malloc((n + 1) * sizeof(*l->ring_component));
    if (!l->legs || !l->rings || !l->c.fed || !l->c.dropped || !l->c.lapped || !l->ring_component) return -1;
    for (size_t i = 0; i < n; i++) l->ring_component[i] = latrec_legs_ring_component(l->legs, (uint32_t)i);
    l->n_catalog_legs = latrec_legs_n_catalog_legs(l->legs);
    l->want_first = p->sinks.first_stage && !p->opts.no_legs; /* no tables: their stamps go nowhere */
    l->horizon = latrec_legs_horizon(l->legs);
    l->warm_from = p->begin + p->opts.warmup_ns;
    l->plain =
        !l->sp->plogs && !l->sp->anchor && !p->sinks.part_in_end_order && !p->sinks.part_age_max && !l->want_first;
    memcpy(l->rings, p->in->set.rings, n * sizeof(*l->rings));
    return 0;
}

void latrec_split_lane_free(struct split_lane *l)
{
    const latrec_pass *p = l->sp->p;
    for (int i = 0; i < l->n_parts; i++)
        if (l->parts[i].part) p->sinks.part_free(l->parts[i].part);
    free(l->parts);
    latrec_legs_free(l->legs);
    for (int i = 0; i < l->n_logs; i++) latrec_stamp_log_free(&l->logs[i]);
    free(l->logs);
    free(l->rings);
    free(l->ring_component);
    free(l->c.fed);
    free(l->c.dropped);
    free(l->c.lapped);
}

/* Chunks of a process's path log not yet merged before its thread waits
 * (2 MiB): a thread ahead of the others waits for the merge. */
#define PLOG_BACKLOG 8

static void plog_pause(void)
{
    const struct timespec ts = { 0, 20000 };
    nanosleep(&ts, NULL);
}

/* Pauses without the merge moving before a thread whose every log is
 * full gives the run by process up (about 0.1 s or more): the merge may
 * wait for an item none of those processes can log before it takes from
 * theirs. The pass in time order then gives the same figures. */
#define PLOG_STILL_MAX 5000

/* Drains in a row that took nothing while every lane still reading
 * processes waited on full logs (or none read any more) before the first
 * lane gives the run by process up at once: nothing can be logged that
 * the merge would take. A few, for a lane seen waiting as it leaves. */
#define PLOG_STUCK_MAX 20

/* The first lane's drain of the logs into the paths (items taken, -1
 * when out of memory); *stuck counts the drains in a row that took
 * nothing while no lane could log more. */
static long plogs_drain_watch(struct split *sp, int *stuck)
{
    /* the waits' count before the drain: what a lane logged before it
     * began to wait is seen by the drain (release there, acquire here) */
    const int all_wait =
        __atomic_load_n(&sp->full_waits, __ATOMIC_ACQUIRE) == __atomic_load_n(&sp->readers, __ATOMIC_ACQUIRE);
    const long r = latrec_plogs_drain(sp->plogs);
    if (r < 0) {
        stop_all(sp, 1);
        return r;
    }
    *stuck = r == 0 && all_wait ? *stuck + 1 : 0;
    if (*stuck >= PLOG_STUCK_MAX) stop_all(sp, 0);
    return r;
}

/* Until g's backlog is merged (every log of this thread's processes is
 * full): the first thread merges meanwhile. A merge that stands still
 * gives up. */
static void plog_wait(struct split_lane *l, const latrec_plog *g)
{
    struct split *sp = l->sp;
    uint64_t seen = latrec_plogs_progress(sp->plogs);
    int still = 0, stuck = 0;
    __atomic_add_fetch(&sp->full_waits, 1, __ATOMIC_RELEASE);
    for (; latrec_plog_backlog(g) > PLOG_BACKLOG && !stopped(sp) && still < PLOG_STILL_MAX;) {
        if (l->id == 0 && plogs_drain_watch(sp, &stuck)) continue;
        plog_pause();
        const uint64_t now = latrec_plogs_progress(sp->plogs);
        still = now == seen ? still + 1 : 0;
        seen = now;
    }
    __atomic_sub_fetch(&sp->full_waits, 1, __ATOMIC_RELEASE);
    if (still == PLOG_STILL_MAX) stop_all(sp, 0);
}

/* With paths logged: the lane's processes read side by side, the one
 * furthest behind first (the logs hold little), the first lane merging the
 * logs into the pass's paths as they grow, to the end. */
static void lane_run_paths(struct split_lane *l)
{
    struct split *sp = l->sp;
    const latrec_input *in = sp->p->in;
    const size_t n = in->set.n;
    struct pfeed *f = calloc((size_t)l->n_procs + 1, sizeof(*f));
    latrec_ring *rings = malloc((size_t)l->n_procs * n * sizeof(*rings) + 1);
    int left = 0;
    if (!f || !rings) stop_all(sp, 1);
    for (int k = 0; f && rings && k < l->n_procs; k++, left++) {
        memcpy(rings + (size_t)k * n, in->set.rings, n * sizeof(*rings));
        if (pfeed_open(l, &f[k], l->procs[k], l->id == sp->first_reader && k == 0, rings + (size_t)k * n) < 0) break;
    }
    while (left == l->n_procs && !stopped(sp)) {
        /* The one furthest behind whose log has room: a full log may hold
         * items the merge takes only once another process of this lane
         * went past them (an instance's grace ends after its last record),
         * so stepping the full one alone would wait on itself. */
        struct pfeed *b = NULL, *full = NULL;
        for (int k = 0; k < l->n_procs; k++) {
            if (!f[k].open) continue;
            struct pfeed **to = latrec_plog_backlog(f[k].log) > PLOG_BACKLOG ? &full : &b;
            if (!*to || f[k].last < (*to)->last) *to = &f[k];
        }
        if (!b && !full) break;
        if (!b) plog_wait(l, (b = full)->log); /* every log full: the merge can take from each */
        const int rc = pfeed_step(l, b);
        if (rc == 0) pfeed_close(l, b);
        if (rc < 0 || (l->id == 0 && latrec_plogs_drain(sp->plogs) < 0)) break;
    }
    if (l->n_procs) __atomic_sub_fetch(&sp->readers, 1, __ATOMIC_RELEASE);
    for (int stuck = 0; l->id == 0 && !stopped(sp) && !latrec_plogs_finished(sp->plogs);)
        if (plogs_drain_watch(sp, &stuck) == 0) plog_pause(); /* the other threads' processes are behind */
    if (!stopped(sp) && l->id == 0 && sp->p->failed) stop_all(sp, 1);
    for (int k = 0; f && k < left; k++)
        if (f[k].open) pfeed_close(l, &f[k]);
    free(f);
    free(rings);
}

void *latrec_split_lane_run(void *arg)
{
    struct split_lane *l = arg;
    if (lane_init(l) < 0) {
        stop_all(l->sp, 1);
        return NULL;
    }
    if (l->sp->plogs) {
        lane_run_paths(l);
        return NULL;
    }
    for (int k = 0; k < l->n_procs; k++)
        if (feed_process(l, l->procs[k], l->id == 0 && k == 0) < 0) break;
    return NULL;
}
