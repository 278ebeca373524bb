/* A pass read by process: each process's rings merged among themselves and
 * fed to a leg builder of their own, processes side by side on threads.
 *
 * Why it gives the figures of the pass in time order: seqs belong to a
 * process, so an instance holds stamps of one process only, and while the
 * records come in time order the builder ends an instance with the same
 * stamps whether or not other processes' records came in between (what is
 * due at another process's record is due at the next one of its own, and
 * nothing of its own came in between). What else one process's records
 * could change in another's is counted by the builder
 * (latrec_legs_cross_process(), analyze/legs.h); the open instances of
 * every process stay under max_open when each part stays under its share.
 * Instances end in another order, so this runs only for sinks that said
 * their figures do not depend on it (sinks.restart, engine/pass.h); tables
 * are made in another order too (as each thread first sees one of their
 * instances), which the sinks do not show (report sorts its tables, hist
 * its columns). When a part finds a record out of time order, a
 * cross-process decision, or a part over its share of max_open, every
 * thread stops, the sinks are told to restart, and the pass
 * reads the stream in time order from its start (pass.c); so it does, once
 * every part has ended, when a process ended with an instance open that
 * the leg horizon cuts before another process's last record. A look at the
 * first 65536 records in time order comes first: when they already show
 * one of these, the stream is read in time order at once.
 *
 * First-stage stamps (inter-arrival gaps need them in time order) are
 * logged per process and per (component of the stamping ring, leg), in time
 * order, each as the distance from the one before in a byte or two, and
 * handed to sinks.first_stage merged in time order at the end (on two
 * threads, pass_stamps.c), to the table
 * a pass in time order gives them (pass.c's routes: the component of the
 * first instance of theirs that ends): so it is when every process's first
 * such instance has the same component, few enough stamps came before it
 * (ROUTE_PENDING_MAX), and the stamps of one table come from one route;
 * else the pass gives up. For sinks whose figures follow a process's end
 * order it gives up too when an instance open for a leg horizon or more
 * ends (lane_instance says why). With paths, when the first records show
 * an instance of a path's first leg or the pass makes no table (paths
 * only), each process's ended instances are logged under the key of the
 * moment the pass in time order ends them, and the logs merged by that
 * key into the pass's path assemblers, which so see the instances of the
 * pass in time order in its order (pass_plog.h; what it cannot order, it
 * gives up on); the processes of a thread are then read side by side.
 * Without the logs it gives up when an instance of a path's first leg ends
 * (with none, no path instance is made in time order either, and nothing
 * of the paths is shown).
 *
 * Threads: each owns whole processes (balanced by their records), so no
 * record crosses between CPUs. Each gathers its instances' figures in
 * parts of its own (sinks.part_new, one per table) and counts them; the
 * parts are folded into the tables once every thread is done. A table is
 * made (in the pass, under one lock) when a thread first sees one of its
 * instances. With the path logs on two threads or more, the first merges
 * the logs into the paths as they grow, and the others read the
 * processes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/pass_split.h"

/* ---- each thread: its processes' instances ---------------------------------- */

/* The lane's part of (component, leg), made with its table on first use;
 * NULL when the lane must stop (out of memory). */
static struct split_part *part_of(struct split_lane *l, int component, int leg)
{
    struct split_part *sp_ = l->parts;
    if (l->n_parts && sp_[l->last_part].component == component && sp_[l->last_part].leg == leg)
        return &sp_[l->last_part];
    for (int i = 0; i < l->n_parts; i++)
        if (sp_[i].component == component && sp_[i].leg == leg) {
            l->last_part = i;
            return &sp_[i];
        }
    struct split *sp = l->sp;
    latrec_pass *p = sp->p;
    if (l->n_parts == l->cap_parts) {
        const int cap = l->cap_parts ? 2 * l->cap_parts : 4;
        struct split_part *np = realloc(l->parts, (size_t)cap * sizeof(*np));
        if (!np) {
            stop_all(sp, 1);
            return NULL;
        }
        l->parts = np;
        l->cap_parts = cap;
    }
    pthread_mutex_lock(&sp->mu);
    latrec_leg_table *t = stopped(sp) ? NULL : latrec_pass_table_for(p, component, leg);
    const int failed = p->failed;
    pthread_mutex_unlock(&sp->mu);
    if (failed || stopped(sp)) {
        stop_all(sp, failed);
        return NULL;
    }
    struct split_part *np = &l->parts[l->n_parts];
    *np = (struct split_part){ component, leg, t, NULL, 0, 0 };
    if (t && !(np->part = p->sinks.part_new(p->sinks.ctx, t))) {
        stop_all(sp, 1);
        return NULL;
    }
    l->last_part = l->n_parts++;
    return np;
}

/* latrec_split_log_of's search, and the new log. */
struct stamp_log *latrec_split_log_find(struct split_lane *l, int c0, int leg)
{
    struct stamp_log *g = l->logs;
    const uint32_t proc = l->cur_proc;
    for (int i = l->n_logs - 1; i >= 0; i--)
        if (g[i].c0 == c0 && g[i].leg == leg && g[i].proc == proc) return &g[l->last_log = i];
    if (l->n_logs == l->cap_logs) {
        const int cap = l->cap_logs ? 2 * l->cap_logs : 8;
        struct stamp_log *ng = realloc(l->logs, (size_t)cap * sizeof(*ng));
        if (!ng) {
            stop_all(l->sp, 1);
            return NULL;
        }
        l->logs = ng;
        l->cap_logs = cap;
    }
    g = &l->logs[l->n_logs];
    *g = (struct stamp_log){ .c0 = c0, .leg = leg, .proc = proc, .dest = -1 };
    l->last_log = l->n_logs++;
    return g;
}

/* An ended instance of (c0, leg): the first one of the process says where
 * its first-stage stamps go (pass.c, route_settle). */
static void log_settle(struct split_lane *l, int c0, int leg, int component)
{
    struct stamp_log *g = latrec_split_log_of(l, c0, leg);
    if (g && g->dest < 0) {
        g->dest = component;
        g->settle_t = l->now;
    }
}

/* inst to its process's path log (pass_plog.h): 0, or -1 (stopped). */
static int path_log(struct split_lane *l, const latrec_instance *inst)
{
    /* a discovered leg, or open a horizon or more (perhaps cut by it): the
     * log's keys do not hold */
    if (inst->leg < 0 || inst->leg >= l->n_catalog_legs ||
        (l->now - inst->first_t >= l->horizon && inst->first_t <= l->now)) {
        stop_all(l->sp, 0);
        return -1;
    }
    const int rc =
        latrec_plog_put(l->cur->log, inst, latrec_legs_leg(l->legs, inst->leg), l->phase, l->now, l->cur_ring);
    if (rc < 0) stop_all(l->sp, rc == -1);
    return rc < 0 ? -1 : 0;
}

/* A lane's emit: what latrec_pass_on_instance does, into the lane's part. */
void latrec_split_lane_instance(void *ctx, const latrec_instance *inst)
{
    struct split_lane *l = ctx;
    const latrec_pass *p = l->sp->p;
    if (!l->plain) {
        if (l->sp->plogs) {
            if (path_log(l, inst) < 0) return;
            if (p->opts.no_legs) { /* paths only: what on_instance does then */
                l->warm_skipped += inst->first_t < p->begin + p->opts.warmup_ns;
                return;
            }
        } else if (l->sp->anchor && inst->leg >= 0 && inst->leg < l->n_catalog_legs && l->sp->anchor[inst->leg]) {
            stop_all(l->sp, 0); /* a path instance would be made */
            return;
        }
        /* Open a horizon or more: perhaps cut by it. In time order another
         * process's record between a cut's and a grace end's deadline ends
         * the two in another order than here, where the process's next
         * record ends both (grace ends first): the process's instances
         * would not end in the order of the pass in time order (outlier
         * chunks follow it). */
        if (p->sinks.part_in_end_order && l->now - inst->first_t >= l->horizon && inst->first_t <= l->now) {
            stop_all(l->sp, 0);
            return;
        }
        /* Ended later than the sinks allow after its first stamp: in time
         * order it ends at the stream's clock when due, no later than here
         * (or, still open at the process's end, at the stream's end). */
        if (p->sinks.part_age_max && inst->first_t <= l->now && l->now - inst->first_t > p->sinks.part_age_max) {
            stop_all(l->sp, 0);
            return;
        }
        if (l->want_first && inst->n_hits > 0 && inst->hits[0].t_ns)
            log_settle(l, l->ring_component[inst->hits[0].ring], inst->leg, inst->component);
    }
    if (l->phase == LATREC_PLOG_FINISH && inst->first_t < l->finish_first) l->finish_first = inst->first_t;
    if (inst->first_t < l->warm_from) {
        l->warm_skipped++;
        return;
    }
    if (inst->leg < 0 || inst->leg >= l->n_catalog_legs) {
        stop_all(l->sp, 0); /* a discovered leg (counted cross-process too) */
        return;
    }
    struct split_part *sp = part_of(l, inst->component, inst->leg);
    if (!sp || !sp->t) return;
    const latrec_leg_table *t = sp->t;
    int64_t v[LATREC_MAX_HOPS];
    /* the table's copy of the leg: no discovered leg here (eligible), no leg moves */
    const uint32_t have = latrec_pass_hop_values(p, &t->legdef, t, inst, v);
    sp->instances++;
    sp->complete += inst->complete != 0;
    if (p->sinks.part_values) {
        p->sinks.part_values(sp->part, have, v, inst);
    } else {
        for (uint32_t m = have; m; m &= m - 1) {
            const int h = __builtin_ctz(m);
            p->sinks.part_value(sp->part, h, v[h], inst);
        }
    }
    if (p->sinks.part_instance) p->sinks.part_instance(sp->part, inst);
}

/* ---- setting up, ending, giving up ----------------------------------------- */

/* Can this pass be read by process? (path_instance runs with paths only.) */
static int eligible(const latrec_pass *p)
{
    const int no_legs_ok = p->paths && !p->offsets; /* paths only: their assembly by process is all there is */
    return p->sinks.restart && p->sinks.part_new && (!p->opts.no_legs || no_legs_ok) &&
           (!p->sinks.instance || p->sinks.part_instance) && !p->taps.ended && !p->taps.record && !p->in->live &&
           p->f.fed == 0 && latrec_legs_n_legs(p->legs) == latrec_legs_n_catalog_legs(p->legs);
}

/* Processes to lanes, the one with most records first to the lane with
 * fewest so far. Returns the lanes used. */
static int share_out(struct split *sp, int n_threads, uint32_t *procs, uint64_t *load, uint32_t n_procs)
{
    const latrec_input *in = sp->p->in;
    for (size_t i = 0; i < in->set.n; i++)
        if (in->set.rings[i].status == LATREC_RING_OK && (int)i != in->sched_ring)
            load[sp->ring_proc[i]] += in->set.rings[i].valid + 1; /* every process read */
    uint32_t n_used = 0;
    for (uint32_t q = 0; q < n_procs; q++)
        if (load[q]) procs[n_used++] = q;
    for (uint32_t a = 1; a < n_used; a++) /* by records, most first (stable: equal loads keep process order) */
        for (uint32_t b = a; b > 0 && load[procs[b]] > load[procs[b - 1]]; b--) {
            uint32_t t = procs[b];
            procs[b] = procs[b - 1];
            procs[b - 1] = t;
        }
    /* paths from the logs, on threads: the first merges them, the others
     * read the processes */
    const int first = sp->first_reader = sp->plogs && n_threads >= 2;
    int n_lanes = n_threads - first < (int)n_used ? n_threads - first : (int)n_used;
    n_lanes += first;
    if (n_lanes > SPLIT_MAX_LANES) n_lanes = SPLIT_MAX_LANES;
    uint64_t lane_load[SPLIT_MAX_LANES] = { 0 };
    uint32_t *at = procs + n_used; /* each lane's list, after the sorted one */
    for (int k = 0; k < n_lanes; k++) sp->lane[k].procs = at + (size_t)k * n_used;
    for (uint32_t a = 0; a < n_used && first < n_lanes; a++) {
        int best = first;
        for (int k = first + 1; k < n_lanes; k++)
            if (lane_load[k] < lane_load[best]) best = k;
        lane_load[best] += load[procs[a]];
        sp->lane[best].procs[sp->lane[best].n_procs++] = procs[a];
    }
    return n_lanes;
}

/* ---- the first-stage stamps, in time order -------------------------------- */

/* Where a pass in time order sends the stamps of (c0, leg) (pass.c's
 * routes): the component of the first instance of theirs that ends, the
 * same in every process that ended one, else c0's. 1 when a pass in time
 * order gives each route's stamps to the table sp->gaps names for it, in
 * time order, and to no other (no route's stamps wait past
 * ROUTE_PENDING_MAX: in time order the first such instance ends no later
 * than the earliest a process's first one ended here, so the stamps of
 * every process up to that time bound those that wait; with none ended,
 * all go to c0's table in time order anyway; the stamps of one table come
 * from one route: two would reach it in the order their routes settle);
 * 0: give up, or -1 out of memory. Tables are made in another order than
 * in time order; every sink shows them in an order of its own (report
 * sorts them, hist its columns). */
static int stamps_hold(struct split *sp)
{
    latrec_pass *p = sp->p;
    size_t n_logs = 0;
    for (int a = 0; a < sp->n_lanes; a++) n_logs += (size_t)sp->lane[a].n_logs;
    free(sp->gaps);
    sp->n_gaps = 0;
    if (!(sp->gaps = malloc((n_logs + 1) * sizeof(*sp->gaps)))) return -1;
    for (int a = 0; a < sp->n_lanes; a++)
        for (int i = 0; i < sp->lane[a].n_logs; i++) {
            const struct stamp_log *g = &sp->lane[a].logs[i];
            int first = 1, dest = -1; /* the key's first log, and its dest */
            uint64_t n = 0, settle_t = UINT64_MAX;
            for (int b = 0; b < sp->n_lanes; b++)
                for (int j = 0; j < sp->lane[b].n_logs; j++) {
                    const struct stamp_log *h = &sp->lane[b].logs[j];
                    if (h->c0 != g->c0 || h->leg != g->leg) continue;
                    if ((b < a || (b == a && j < i))) first = 0;
                    if (h->dest >= 0 && dest >= 0 && h->dest != dest) return 0;
                    if (h->dest >= 0) dest = h->dest;
                    if (h->dest >= 0 && h->settle_t < settle_t) settle_t = h->settle_t;
                    n += h->n;
                }
            if (!first || !n) continue;
            uint64_t waiting = 0;
            for (int b = 0; b < sp->n_lanes && dest >= 0; b++)
                for (int j = 0; j < sp->lane[b].n_logs; j++) {
                    const struct stamp_log *h = &sp->lane[b].logs[j];
                    if (h->c0 == g->c0 && h->leg == g->leg) waiting += latrec_stamp_log_upto(h, settle_t);
                }
            if (waiting >= ROUTE_PENDING_MAX) return 0;
            if (dest < 0) dest = g->c0;
            if (!latrec_pass_selected(p, dest, g->leg)) continue; /* no table: dropped, as in time order */
            for (size_t k = 0; k < sp->n_gaps; k++)
                if (sp->gaps[k].dest == dest && sp->gaps[k].leg == g->leg) return 0;
            sp->gaps[sp->n_gaps++] = (struct split_gap){ g->c0, g->leg, dest };
        }
    return 1;
}

/* The stamps of a route stamps_hold found a table for, to it in time order
 * (every process's log merged, on two threads when the pass has two lanes).
 * 0, or -1 out of memory. */
static int gap_replay(struct split *sp, const struct split_gap *gap, const struct stamp_log **logs)
{
    latrec_pass *p = sp->p;
    latrec_leg_table *t = latrec_pass_table_for(p, gap->dest, gap->leg);
    if (!t) return p->failed ? -1 : 0;
    size_t n = 0;
    for (int a = 0; a < sp->n_lanes; a++)
        for (int i = 0; i < sp->lane[a].n_logs; i++) {
            const struct stamp_log *g = &sp->lane[a].logs[i];
            if (g->c0 == gap->c0 && g->leg == gap->leg && g->n) logs[n++] = g;
        }
    return latrec_stamps_replay(p, t, logs, n, sp->n_lanes > 1);
}

/* Every route's stamps to its table. 0, or -1 out of memory. */
static int stamps_replay(struct split *sp)
{
    size_t cap = 0;
    for (int a = 0; a < sp->n_lanes; a++) cap += (size_t)sp->lane[a].n_logs;
    const struct stamp_log **logs = calloc(cap + 1, sizeof(*logs));
    if (!logs) return -1;
    int rc = 0;
    for (size_t k = 0; k < sp->n_gaps && rc == 0; k++) rc = gap_replay(sp, &sp->gaps[k], logs);
    free(logs);
    return rc;
}

/* Every part read to its end: its figures to the tables, its counts to
 * the pass and the input. 0, or -1 when a fold ran out of memory. */
static int commit(struct split *sp)
{
    latrec_pass *p = sp->p;
    latrec_input_counts c[SPLIT_MAX_LANES];
    for (int k = 0; k < sp->n_lanes; k++) {
        struct split_lane *l = &sp->lane[k];
        for (int i = 0; i < l->n_parts; i++) {
            struct split_part *part = &l->parts[i];
            if (!part->t) continue;
            part->t->instances += part->instances;
            part->t->complete += part->complete;
            if (p->sinks.part_fold(p->sinks.ctx, part->t, part->part) < 0) p->failed = 1;
            part->part = NULL;
        }
        latrec_legs_add_counts(p->legs, l->legs);
        p->f.fed += l->fed;
        if (l->last_t > p->f.last_t_ns) p->f.last_t_ns = l->last_t;
        p->warm_skipped += l->warm_skipped;
        c[k] = l->c;
    }
    if (!p->failed && stamps_replay(sp) < 0) p->failed = 1;
    latrec_input_parts_done(p->in, c, sp->n_lanes);
    p->f.finished = 1; /* every instance ended in the lanes' builders */
    p->by_process = 1;
    return p->failed ? -1 : 0;
}

/* Every part read to its end: did the rings opened by a guess hold what
 * the scan would have found (engine/input.h)? */
static int guesses_hold(struct split *sp)
{
    latrec_input_counts c[SPLIT_MAX_LANES];
    for (int k = 0; k < sp->n_lanes; k++) c[k] = sp->lane[k].c;
    return latrec_input_guesses_hold(sp->p->in, c, sp->n_lanes);
}

/* Given up: the pass as it was before, the sinks told to start over. */
static void undo(struct split *sp)
{
    latrec_pass *p = sp->p;
    p->sinks.restart(p->sinks.ctx, p->tables, p->n_tables);
    for (int i = 0; i < p->n_tables; i++) free(p->tables[i]);
    p->n_tables = 0;
    if (p->index) memset(p->index, 0, (size_t)p->index_comps * (size_t)p->index_legs * sizeof(*p->index));
    p->warm_skipped = 0;
    p->failed = 0;
    if (sp->plogs && latrec_pass_paths_renew(p) < 0) p->failed = 1; /* fed by the merge of the logs */
    latrec_input_parts_undo(p->in);
}

static int split_go(struct split *sp, int n_threads)
{
    latrec_pass *p = sp->p;
    const latrec_input *in = p->in;
    uint32_t n_procs = 0;
    for (size_t i = 0; i < in->set.n; i++)
        if (in->set.rings[i].status == LATREC_RING_OK && sp->ring_proc[i] + 1 > n_procs) n_procs = sp->ring_proc[i] + 1;
    uint32_t *procs = calloc((size_t)n_procs * (SPLIT_MAX_LANES + 1) + 1, sizeof(*procs));
    uint64_t *load = calloc((size_t)n_procs + 1, sizeof(*load));
    int rc = 0;
    if (!procs || !load) goto out;
    if (sp->path_leg && !(sp->plogs = latrec_plogs_new(p, n_procs, sp->path_leg))) goto out;
    sp->n_lanes = share_out(sp, n_threads, procs, load, n_procs);
    if (sp->n_lanes < 2 && (n_threads >= 2 || sp->lane[0].n_procs < 2)) goto out; /* the pipeline does as well */
    for (int k = 0; k < sp->n_lanes; k++) {
        sp->lane[k].sp = sp;
        sp->lane[k].id = k;
        sp->lane[k].next_cut = UINT64_MAX;
        sp->lane[k].finish_first = UINT64_MAX;
        sp->lane[k].disorder = UINT32_MAX;
    }
    size_t n_parts = 0;
    for (int k = 0; k < sp->n_lanes; k++) n_parts += (size_t)sp->lane[k].n_procs;
    sp->open_share = (latrec_legs_max_open(p->legs) - 1) / n_parts;
    sp->readers = 0;
    for (int k = 0; k < sp->n_lanes; k++) sp->readers += sp->lane[k].n_procs > 0;
    sp->full_waits = 0;
    p->split = 1;
    for (int k = 1; k < sp->n_lanes; k++) {
        if (pthread_create(&sp->lane[k].thread, NULL, latrec_split_lane_run, &sp->lane[k]) != 0) {
            stop_all(sp, 0); /* no thread: in time order, as before */
            break;
        }
        sp->lane[k].started = 1;
    }
    if (!stopped(sp)) latrec_split_lane_run(&sp->lane[0]);
    for (int k = 1; k < sp->n_lanes; k++)
        if (sp->lane[k].started) pthread_join(sp->lane[k].thread, NULL);
    p->split = 0;
    /* A process whose records ended with instances open while another's
     * went on past their leg horizon: in time order those are cut by it
     * (counted), here they were ended at the process's end. */
    uint64_t end_t = 0, next_cut = UINT64_MAX;
    for (int k = 0; k < sp->n_lanes; k++) {
        if (sp->lane[k].last_t > end_t) end_t = sp->lane[k].last_t;
        if (sp->lane[k].next_cut < next_cut) next_cut = sp->lane[k].next_cut;
    }
    if (next_cut < end_t) sp->lost = 1;
    for (int k = 0; k < sp->n_lanes && p->sinks.part_age_max; k++)
        if (sp->lane[k].finish_first < end_t && end_t - sp->lane[k].finish_first > p->sinks.part_age_max) sp->lost = 1;
    if (!sp->failed && !sp->lost && p->sinks.first_stage) {
        const int hold = stamps_hold(sp);
        if (hold < 0) sp->failed = 1;
        else if (!hold) sp->lost = 1;
    }
    if (!sp->failed && !sp->lost && !guesses_hold(sp)) sp->lost = 1; /* read again once scanned */
    for (int k = 0; k < sp->n_lanes; k++) /* a guessed ring out of order: scanned before it is read again */
        if (sp->lane[k].disorder != UINT32_MAX) latrec_input_guess_wrong(p->in, sp->lane[k].disorder);
    if (sp->failed) rc = -1;
    else if (sp->lost) undo(sp);
    else rc = commit(sp) < 0 ? -1 : 1;

    for (int k = 0; k < sp->n_lanes; k++) latrec_split_lane_free(&sp->lane[k]);
out:
    latrec_plogs_free(sp->plogs);
    sp->plogs = NULL;
    free(sp->gaps);
    sp->gaps = NULL;
    sp->n_gaps = 0;
    free(procs);
    free(load);
    return rc;
}

static int split_try(latrec_pass *p, int n_threads);

int latrec_pass_split_run(latrec_pass *p, int n_threads)
{
    latrec_input *in = p->in;
    const size_t scans = in->rescans;
    const int rc = split_try(p, n_threads);
    if (rc != 0) return rc;
    /* read in time order next: the rings still guessed are checked as it
     * reads when its figures can start over (engine/input.h), else scanned
     * first; rings scanned since the pass began (here or by a run by
     * process that found a guess wrong) make its merge and the run's
     * beginning taken again */
    in->guess_wrong = 0; /* what a run by process found, it started over for */
    if (latrec_pass_can_start_over(p)) in->checking = in->guessed != 0;
    else (void)latrec_input_settle(in, NULL);
    if (in->rescans == scans) return 0;
    p->begin = latrec_pass_run_begin(in);
    p->f.warm_from = p->begin + p->opts.warmup_ns;
    return latrec_input_remerge(in, &p->m);
}

latrec_pass *latrec_pass_start_over(latrec_pass *p)
{
    latrec_input *in = p->in;
    const latrec_pass_opts opts = p->opts;
    const latrec_pass_sinks sinks = p->sinks;
    if (sinks.restart) sinks.restart(sinks.ctx, p->tables, p->n_tables);
    const latrec_pass_taps taps = p->taps;
    latrec_pass_free(p);
    latrec_input_start_over(in);
    latrec_pass *q = latrec_pass_new(in, &opts, &sinks);
    if (!q) return NULL;
    q->taps = taps;
    if (taps.restart && taps.restart(taps.ctx, q) < 0) {
        latrec_pass_free(q);
        return NULL;
    }
    return q;
}

/* [builder leg] 1: the first leg of a path of the run (an instance of it
 * ending would make a path instance), or with every_leg any leg of one.
 * NULL when out of memory. */
static uint8_t *path_anchors(const latrec_pass *p, int every_leg)
{
    const int n_legs = latrec_legs_n_catalog_legs(p->legs);
    uint8_t *a = calloc((size_t)n_legs + 1, 1);
    for (int k = 0; a && k < latrec_path_index_n(p->paths); k++) {
        const latrec_path *path = latrec_path_index_path(p->paths, k);
        const int c = latrec_path_index_catalog_index(p->paths, k);
        for (int i = 0; i < (every_leg ? path->n_legs : 1); i++) {
            const int leg = latrec_legs_catalog_leg(p->legs, c, path->legs[i]);
            if (leg >= 0 && leg < n_legs) a[leg] = 1;
        }
    }
    return a;
}

static int split_try(latrec_pass *p, int n_threads)
{
    /* paths only on one thread: the builders by process save less than
     * their logs cost (the assembly is most of the work either way) */
    if (!eligible(p) || (p->opts.no_legs && n_threads < 2)) return 0;
    uint8_t *anchor = p->paths ? path_anchors(p, 0) : NULL;
    uint8_t *path_leg = p->paths ? path_anchors(p, 1) : NULL;
    int anchored = 0, rc = 0;
    if ((p->paths && (!anchor || !path_leg)) || !latrec_pass_peek_ok(p, anchor, &anchored)) {
        free(anchor);
        free(path_leg);
        return 0;
    }
    struct split *sp = aligned_alloc(_Alignof(struct split), (sizeof(struct split) + 63) & ~(size_t)63);
    if (sp) memset(sp, 0, sizeof(*sp));
    uint32_t *ring_proc = calloc(p->in->set.n + 1, sizeof(*ring_proc));
    if (sp && ring_proc) {
        sp->p = p;
        sp->anchor = anchor;
        /* paths assembled from each process's log when a path instance
         * may be made: with paths only, or when the first records show
         * an instance of a path's first leg (without one, none is made, and
         * one found later reads the run in time order) */
        if (p->paths && !p->offsets && (p->opts.no_legs || anchored)) sp->path_leg = path_leg;
        for (size_t i = 0; i < p->in->set.n; i++)
            if (p->in->set.rings[i].status == LATREC_RING_OK && (int)i != p->in->sched_ring)
                ring_proc[i] = latrec_legs_ring_process(p->legs, (uint32_t)i);
        sp->ring_proc = ring_proc;
        pthread_mutex_init(&sp->mu, NULL);
        rc = split_go(sp, n_threads);
        pthread_mutex_destroy(&sp->mu);
    }
    free(ring_proc);
    free(anchor);
    free(path_leg);
    free(sp);
    return rc;
}
