/*
 * analyze/sched_pass.h - the scheduler split of a time-ordered pass in
 * bounded memory: a scheduler model (analyze/sched_model.h) fed from
 * sched.latrec as the pass's hops ask for it, letting go of what no later
 * hop reaches, every figure as the model of the whole run gives it.
 *
 * Feeding. Before a split of [t_a, t_b) the model is fed up to the first
 * record stamped after t_b (every record at or before t_b is then in); at
 * the end of the source it is finished.
 *
 * Exact figures. Once every record up to t_b is in, the intervals stored
 * in the window no longer change. What may still change is the thread's
 * open state when it began before t_b: a later event ends it, stored, or
 * UNKNOWN back to its start when its end was lost. The split is added at
 * once with that part unknown, and the part is moved into its state when
 * the state turns out stored (the model says so as it ends). A tid the
 * model has no generation of yet may still get one later (a split then
 * reads it unknown, and counts): those are tallied and counted at the end
 * when the tid turned up. The sums are integer ns (latrec_sched_ns,
 * exact), so their order changes nothing.
 *
 * Forgetting. A pass's hops reach back from where it is by a little (an
 * instance's hops end before it is emitted; a leg with extras waits 10 ms
 * more). The model keeps twice the furthest reach seen so far plus
 * LATREC_SCHED_PASS_MARGIN_NS and lets go of the rest now and then
 * (latrec_sched_forget). A split reaching before what was let go (further
 * than twice any before it) is kept aside and answered at the end by a
 * second model fed from the start of the source, which keeps only what the
 * splits left to answer need (latrec_sched_pass_end).
 *
 * Who ran instead (--explain): splits wanted after the pass (the slowest
 * instances: latrec_sched_pass_want) are answered at its end, by the model
 * when it still holds their window, else by that second model. Such a
 * split also depends on the occupancy of the CPUs the thread waited on,
 * which a later switch record may still cut back to when a target thread
 * began waiting there: it is taken once that cannot happen any more, and
 * the names of who ran instead are looked up at the end (a task named only
 * later takes that name, as in the whole model).
 *
 * Memory: the records of about twice the furthest reach (the occupancy and
 * timelines the model keeps), plus threads, generations and names. Not
 * thread-safe.
 */
#ifndef LATREC_ANALYZE_SCHED_PASS_H
#define LATREC_ANALYZE_SCHED_PASS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/sched_model.h"

#define LATREC_SCHED_PASS_MARGIN_NS 1000000ull /* kept beyond twice the reach */

/* Where the records come from, in file order (sched.latrec's). */
typedef struct latrec_sched_source {
    int (*next)(void *ctx, latrec_rec *rec); /* 1: *rec is the next, 0: no more */
    void (*rewind)(void *ctx);               /* back to the first record */
    void *ctx;
    uint64_t ring_lost; /* records the ring lost (latrec_sched_counts.ring_lost) */
} latrec_sched_source;

/* A sum of ns: exact (128 bits), so the order of the splits changes
 * nothing; a reader converts it to long double to divide. */
typedef unsigned __int128 latrec_sched_ns;

/* A hop's splits summed: ns per state, events. */
typedef struct latrec_sched_acc {
    uint64_t n;                                         /* instances split */
    latrec_sched_ns on_cpu, runnable, blocked, unknown; /* ns, summed */
    latrec_sched_ns lost;                               /* of unknown, where events were lost (lost_ns) */
    uint64_t preemptions, migrations;
    latrec_sched_hint hint; /* where the last split's searches ended (whole model) */
} latrec_sched_acc;

/* One split counted into a: n, its ns per state, its events. */
void latrec_sched_acc_add(latrec_sched_acc *a, const latrec_sched_breakdown *b);

typedef struct latrec_sched_pass latrec_sched_pass;

/* A pass over src (read from its first record), or NULL out of memory. */
latrec_sched_pass *latrec_sched_pass_new(const latrec_sched_source *src);
void latrec_sched_pass_free(latrec_sched_pass *p);

/* The model (threads, names, counters; after latrec_sched_pass_end every
 * record is in). */
const latrec_sched_model *latrec_sched_pass_model(const latrec_sched_pass *p);

/* Split [t_a, t_b) on tid into acc (zeroed before the first) and also
 * (NULL: none; e.g. an interval's sums: what is settled later goes there
 * too), as latrec_sched_split_sums on the whole model would, now or by
 * the end. 0; -1 when it counts nowhere (t_b < t_a, no timeline for tid)
 * or out of memory (errno ENOMEM: the figures are incomplete). */
int latrec_sched_pass_add(latrec_sched_pass *p, latrec_sched_acc *acc, latrec_sched_acc *also, uint32_t tid,
                          uint64_t t_a, uint64_t t_b);

/* After the last add: the full split of [t_a, t_b) on tid (who ran
 * instead too) is wanted at the end. 0, or -1 out of memory. */
int latrec_sched_pass_want(latrec_sched_pass *p, uint32_t tid, uint64_t t_a, uint64_t t_b);

/* Feed the rest, finish, settle every split (those kept aside and the
 * wanted ones by a second model when needed). 0, or -1 out of memory. */
int latrec_sched_pass_end(latrec_sched_pass *p);

/* After latrec_sched_pass_end: the wanted split, as latrec_sched_split on
 * the whole model gives it. 0; -1 when it was not wanted, t_b < t_a, tid
 * has no timeline, or who ran instead could not be listed. */
int latrec_sched_pass_answer(const latrec_sched_pass *p, uint32_t tid, uint64_t t_a, uint64_t t_b,
                             latrec_sched_breakdown *out);

/* What it took: the most entries the model held (latrec_sched_retained),
 * the splits and wanted splits answered by the second model, the forgets. */
typedef struct latrec_sched_pass_stats {
    size_t peak_retained;
    uint64_t late, late_wanted, forgets;
} latrec_sched_pass_stats;
void latrec_sched_pass_stats_get(const latrec_sched_pass *p, latrec_sched_pass_stats *out);

/* Every runqueue wait of src to fn, in switch-in order (as
 * latrec_sched_foreach_wait on the model of the whole source gives them),
 * the model letting go of what ended as it is fed: memory for the threads,
 * generations and names, not the records. *out gets the model, finished
 * (its counters, threads and names as the whole model's; its timelines
 * let go), to free; NULL out of memory. 0, fn's nonzero return (the walk
 * stopped there), or -1 with errno ENOMEM. */
int latrec_sched_waits(const latrec_sched_source *src, latrec_sched_model **out, latrec_sched_wait_fn fn, void *ctx);

#endif
