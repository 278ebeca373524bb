/*
 * analyze/sched_model.h - what the kernel scheduler did to the target's
 * threads: per-thread timelines from sched.latrec, and how a hop's time
 * divides into on-CPU, runqueue wait, blocked and unknown.
 *
 * Input. Records of the "kernel" catalog (analyze/sched_catalog.h: kinds,
 * seq/aux/aux2), fed one by one in file order with latrec_sched_feed(),
 * then latrec_sched_finish(); or latrec_sched_load() on the ring. The model
 * RELIES on the file order: time order, ties sorted by (t_ns, cpu, kind),
 * as the writer saves it. Records of one t_ns are buffered and replayed in
 * a fixed causal order whatever order they came in (see "Equal times"); a
 * record whose t_ns is below an earlier record's is counted (out_of_order)
 * and processed as if stamped at that earlier time. t_ns 0 and unknown
 * kinds are counted and ignored.
 *
 * Threads and generations. A thread is a (tid, generation): a tid gets a
 * new generation when FORK names it as a child, when WAKEUP_NEW wakes it
 * (unless its current generation has no state yet: the normal FORK then
 * WAKEUP_NEW), when EXEC makes it the identity of another thread, and for
 * any event after its generation closed (EXIT and the final switch-out). A
 * new generation never continues the old one's states, name or counters.
 * Generation numbers count from 0 per tid.
 *
 * States (enum latrec_sched_state), each timeline interval half-open
 * [start_ns, end_ns):
 *   RUNNING   switched in on `cpu` (SWITCH_IN) until the next switch-out.
 *   RUNNABLE  waiting in `cpu`'s runqueue: from a WAKEUP / WAKEUP_NEW
 *             (cpu = its target cpu, aux2) or a SWITCH_OUT_PREEMPTED (cpu =
 *             where it ran) to the next SWITCH_IN. A MIGRATE while runnable
 *             ends the interval and starts a new RUNNABLE one on the
 *             destination CPU (cause MIGRATE; counted in
 *             runnable_migrations).
 *   BLOCKED   from a SWITCH_OUT_BLOCKED (cpu = where it ran) to the wakeup.
 *   UNKNOWN   no data: before the thread's first event, between FORK and
 *             WAKEUP_NEW, after its generation closed, and wherever events
 *             were lost (below). UNKNOWN is never stored: it is the gaps.
 *
 * Rules for sequences the kernel should not produce (lost events). A state
 * whose end we did not see becomes UNKNOWN back to its start, counted in
 * `inconsistent`: a SWITCH_IN while BLOCKED (the wakeup was lost) or while
 * already RUNNING; a SWITCH_OUT_* while not RUNNING on that CPU; EXIT while
 * not RUNNING (except just switched out at the same ns). A WAKEUP of a
 * thread that is RUNNING or RUNNABLE starts nothing (spurious_wakeups). A
 * thread in UNKNOWN takes the state the event implies. A SWITCH_IN on a CPU
 * other than the one the thread waited on, and a WAKEUP to a CPU other than
 * the one it blocked on with no MIGRATE, count as a migration at that time
 * (implicit_migrations). A MIGRATE while BLOCKED or RUNNING changes no
 * interval (the cpu of a BLOCKED interval stays the CPU it blocked on) but
 * counts as a migration of the thread; a MIGRATE with orig cpu == dest cpu
 * is no move and is ignored. A switch record on a CPU where another target
 * thread is still RUNNING per the model ends that run as UNKNOWN (its
 * switch-out was lost). A new generation of a tid whose current one never
 * saw EXIT counts in lost_exits; the old one's open state becomes UNKNOWN.
 *
 * Exit. EXIT comes before the thread's final switch-out (the kernel traces
 * sched_process_exit in do_exit, on the exiting thread's CPU, then
 * schedules away for good), so EXIT also says the thread is RUNNING on the
 * record's cpu (a thread in UNKNOWN, e.g. one that predates the recording,
 * becomes RUNNING there). An exited
 * generation stays the tid's current one until its final SWITCH_OUT_BLOCKED
 * closes it (it may still be preempted and switched in again). If the tid is
 * reused before that (FORK of the same tid), the exiting generation is kept
 * aside and receives the switch-outs that match its CPU (it is RUNNING
 * there and the new one is not).
 *
 * EXEC with old tid != tid (a non-leader thread exec'd and took the
 * leader's tid): the old tid's generation closes and a new generation of
 * tid continues its state from that instant.
 *
 * Equal times. Records with the same t_ns are replayed sorted by phase,
 * then cpu, kind, seq, aux, aux2, so the result does not depend on their
 * order in the input:
 *   1 SWITCH_OUT_PREEMPTED, SWITCH_OUT_BLOCKED  (a thread leaves a CPU)
 *   2 EXIT                                      (a generation ends)
 *   3 FORK, EXEC                                (a generation begins)
 *   4 COMM
 *   5 MIGRATE
 *   6 WAKEUP_NEW, WAKEUP
 *   7 SWITCH_IN, OTHER_RUN                      (a task enters a CPU)
 * so a thread switched out on CPU 1 and in on CPU 0 at the same ns is seen
 * leaving before entering, and a wakeup and switch-in at one ns give a
 * 0 ns wait. A switch-out of a thread that is not running on that CPU but
 * is switched in there at the same ns (a 0 ns run) is replayed after phase
 * 7 instead.
 *
 * Names. COMM records give a tid's name from their time on (renames and
 * exec included: latrec_sched_comm() answers "the name at time t"). A
 * generation only sees names recorded within its own life; before its
 * first COMM it takes its first one. Names are at most 15 bytes (the
 * kernel's TASK_COMM_LEN). The idle task (tid 0) is "swapper/<cpu>" unless
 * a COMM names it.
 *
 * Who ran instead. Every switch record says who left and who entered a CPU:
 * SWITCH_OUT_* (prev = seq, next = aux), SWITCH_IN (prev = aux, next =
 * seq), OTHER_RUN (prev = aux, next = seq). Per CPU the model keeps
 * occupancy intervals: the entering task runs until the next switch record
 * on that CPU. When a record's prev is not the task the model had on that
 * CPU, switches happened that were not recorded; the collector records
 * every switch on a CPU where a target thread waits, so the model gives
 * prev the time since that CPU last started having a waiting target thread
 * (or since the previous record, whichever is later) and ends the stale
 * occupant there. The usual case this covers: a thread woken onto a CPU
 * busy with a task that switched in before anyone waited; SWITCH_IN's prev
 * tid names it. Target threads that run on the CPU count as well as
 * outside tasks (flag `target`).
 *
 * Queries. latrec_sched_split() lays [t_a, t_b) over the timeline of the
 * generation of `tid` alive at t_b (the latest whose first event is <= t_b;
 * the tid's first generation if none). Events inside the window are those
 * with t_a <= t < t_b. Cost: one hash probe, a binary search for t_a and a
 * galloping search from there for t_b over a packed array of interval ends
 * (prefix sums in the intervals give the state totals, so the cost does not
 * grow with the window), the same pair of searches over the thread's
 * preemption and migration times, and, only when the thread was runnable in
 * the window, a walk over its runnable intervals there and the overlapping
 * occupancy of their CPUs (one search per CPU change, galloping on
 * otherwise). The 5 "ran instead" entries are the exact top 5 (every
 * distinct task is summed first; a heap buffer beyond 32 of them).
 * latrec_sched_split_sums() leaves out who ran instead and starts the
 * searches for t_a where the caller's hint says the last one ended: for a
 * hop's instances, which come nearly in time order, a few steps each.
 *
 * Live: latrec_sched_settle() makes the timeline up to a time queryable
 * while records still come (a run being recorded).
 *
 * Memory is proportional to the number of scheduler records. Not
 * thread-safe while feeding; after latrec_sched_finish() every query is
 * const and may run concurrently.
 */
#ifndef LATREC_ANALYZE_SCHED_MODEL_H
#define LATREC_ANALYZE_SCHED_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "latrec/format.h"
#include "read/ring.h"

#define LATREC_SCHED_MAX_CPUS 256     /* the record's cpu field is 8 bits */
#define LATREC_SCHED_NO_CPU   0xFFFFu /* cpu not known */
#define LATREC_SCHED_COMM_LEN 16      /* bytes with the NUL */
#define LATREC_SCHED_TOP      5       /* "ran instead" entries per split */

typedef enum latrec_sched_state {
    LATREC_SCHED_UNKNOWN = 0,
    LATREC_SCHED_RUNNING = 1,
    LATREC_SCHED_RUNNABLE = 2,
    LATREC_SCHED_BLOCKED = 3,
} latrec_sched_state;

/* What began an interval, or a runqueue wait. */
typedef enum latrec_sched_cause {
    LATREC_SCHED_C_NONE = 0,
    LATREC_SCHED_C_SWITCH_IN = 1,  /* RUNNING */
    LATREC_SCHED_C_PREEMPT = 2,    /* RUNNABLE after SWITCH_OUT_PREEMPTED */
    LATREC_SCHED_C_BLOCK = 3,      /* BLOCKED after SWITCH_OUT_BLOCKED */
    LATREC_SCHED_C_WAKEUP = 4,     /* RUNNABLE after WAKEUP */
    LATREC_SCHED_C_WAKEUP_NEW = 5, /* RUNNABLE after WAKEUP_NEW */
    LATREC_SCHED_C_MIGRATE = 6,    /* RUNNABLE continued on another CPU */
    LATREC_SCHED_C_EXEC = 7,       /* state carried over by EXEC to a new tid */
} latrec_sched_cause;

/* One stretch of a thread's timeline. before_ns[] are prefix sums: ns the
 * generation spent RUNNING, RUNNABLE, BLOCKED (indices state - 1) before
 * start_ns. cpu is LATREC_SCHED_NO_CPU when not known. */
typedef struct latrec_sched_interval {
    uint64_t start_ns, end_ns; /* [start, end), end > start */
    uint64_t before_ns[3];
    uint16_t cpu;
    uint8_t  state; /* latrec_sched_state, never UNKNOWN */
    uint8_t  cause; /* latrec_sched_cause */
    uint32_t reserved;
} latrec_sched_interval;

/* A task that ran on the thread's CPU while it waited in the window. */
typedef struct latrec_sched_other {
    uint32_t tid;                         /* 0: the idle task of `cpu` */
    uint32_t cpu;                         /* CPU of its first overlap */
    int      target;                      /* 1: a thread of the target */
    uint64_t ns;                          /* overlap with the wait, summed */
    char     comm[LATREC_SCHED_COMM_LEN]; /* "" when never named */
} latrec_sched_other;

/* How [t_a, t_b) divided for one thread. on_cpu + runnable + blocked +
 * unknown == t_b - t_a exactly; lost <= unknown. */
typedef struct latrec_sched_breakdown {
    uint64_t on_cpu_ns;   /* RUNNING */
    uint64_t runnable_ns; /* RUNNABLE: runqueue wait */
    uint64_t blocked_ns;  /* BLOCKED */
    uint64_t unknown_ns;  /* no data */
    uint64_t lost_ns;     /* of unknown_ns, the part within the thread's
                             timeline (from its first stored state to its
                             end): states the model dropped because their
                             events were lost (ring buffer full, late in a
                             live ring, never traced by the kernel); the
                             rest is before its first state or after its
                             end */
    uint32_t preemptions; /* SWITCH_OUT_PREEMPTED with t_a <= t < t_b */
    uint32_t migrations;  /* MIGRATE (and implicit ones) in the window */
    int32_t  gen;         /* generation used; -1: tid unknown to the model */
    uint32_t n_tasks;     /* distinct tasks that ran instead */
    uint64_t instead_ns;  /* sum of their ns (<= runnable_ns) */
    uint64_t unattributed_ns; /* runnable_ns - instead_ns: nobody known */
    int      n_others;    /* entries in others[], <= LATREC_SCHED_TOP */
    latrec_sched_other others[LATREC_SCHED_TOP]; /* by ns desc, then tid */
} latrec_sched_breakdown;

/* A runqueue wait of a target thread that ended in a switch-in. */
typedef struct latrec_sched_wait {
    uint64_t t_ns;     /* when the wait began (wakeup or preemption) */
    uint64_t wait_ns;  /* until the SWITCH_IN */
    uint32_t tid;
    uint32_t gen;
    uint32_t cpu;      /* CPU it was switched in on */
    uint8_t  cause;    /* LATREC_SCHED_C_WAKEUP, _WAKEUP_NEW or _PREEMPT */
    uint8_t  migrated; /* moved between CPUs while waiting */
    uint16_t reserved;
} latrec_sched_wait;

/* One thread generation. */
typedef struct latrec_sched_thread {
    uint32_t tid, gen;
    uint32_t tgid;     /* from FORK / EXEC / EXIT; 0 when not seen */
    int      exited;   /* EXIT seen */
    uint64_t first_ns; /* its first event */
    uint64_t end_ns;   /* when it closed (final switch-out, EXIT, exec
                          away, reuse) or the last event time */
    uint64_t on_cpu_ns, runnable_ns, blocked_ns; /* whole-life totals */
    size_t n_intervals;                          /* held now (latrec_sched_forget lets go of some) */
    size_t n_stored;                             /* stored over its life, let go of or not */
    uint64_t first_interval_ns;                  /* start of its first stored interval (0: none) */
} latrec_sched_thread;

typedef struct latrec_sched_counts {
    uint64_t records;          /* fed, including ignored ones */
    uint64_t by_kind[16];      /* per kind id (0x01..0x0B) */
    uint64_t ignored;          /* t_ns 0 or an unknown kind */
    uint64_t out_of_order;     /* t_ns below an earlier record's */
    uint64_t bad_cpu;          /* a cpu in aux/aux2 >= 256: record cpu used */
    uint64_t spurious_wakeups; /* WAKEUP of a RUNNING / RUNNABLE thread */
    uint64_t runnable_migrations; /* MIGRATE while RUNNABLE */
    uint64_t implicit_migrations; /* CPU changed with no MIGRATE */
    uint64_t inconsistent;     /* states dropped to UNKNOWN (lost events) */
    uint64_t lost_exits;       /* new generation without an EXIT */
    uint64_t tids;             /* distinct tids with a timeline */
    uint64_t threads;          /* generations */
    uint64_t reused_tids;      /* tids with more than one generation */
    uint64_t intervals;        /* timeline intervals stored */
    uint64_t occupancy;        /* per-CPU occupancy intervals stored */
    uint64_t waits;            /* runqueue waits (latrec_sched_foreach_wait) */
    uint64_t ring_lost;        /* records the ring lost (latrec_sched_load) */
    uint64_t first_ns, last_ns; /* first and last event time */
} latrec_sched_counts;

typedef struct latrec_sched_model latrec_sched_model;

/* An empty model, or NULL when out of memory. */
latrec_sched_model *latrec_sched_model_new(void);

/* Free the model and everything it holds; NULL is allowed. */
void latrec_sched_model_free(latrec_sched_model *m);

/* Feed one kernel-catalog record (file order). Returns 0; -1 with errno
 * ENOMEM (out of memory: the model is incomplete, keep it only to free it)
 * or EINVAL (after latrec_sched_finish()). */
int latrec_sched_feed(latrec_sched_model *m, const latrec_rec *rec);

/* Replay the last buffered records, close every open interval (timelines
 * and CPU occupancy) at the last event time. Queries see closed intervals
 * only, so call this once after the last feed. Returns 0; -1 with ENOMEM.
 * A second call does nothing. */
int latrec_sched_finish(latrec_sched_model *m);

/* Live (a ring still written, engine/sched_view.h): every record stamped
 * before t_ns has been fed (the ring's publication mark, record/sched_live.h).
 * Each open state is stored as an interval up to t_ns and goes on from
 * there, so queries up to t_ns see the states as after
 * latrec_sched_finish(): the same figures, a timeline cut in more
 * intervals. Feeding goes on after it; a record below
 * t_ns fed later is out_of_order. A later event that shows a state's end
 * was lost takes the pieces stored back (UNKNOWN back to the state's start,
 * as without settling): a query answered before then saw it known. After
 * latrec_sched_finish() the model is the one built without settling.
 * Returns 0; -1 with errno ENOMEM or EINVAL (finished). */
int latrec_sched_settle(latrec_sched_model *m, uint64_t t_ns);

/* Live, over a long run: let go of what ended at or before t_ns (timeline
 * intervals, CPU occupancy, preemption and migration times, runqueue
 * waits), so that memory follows the span still asked about, not the run.
 * A window reaching before t_ns reads UNKNOWN there (and may miss who ran
 * instead then; not as lost_ns); after t_ns every figure is as before. Threads,
 * generations, names and whole-life totals stay. */
void latrec_sched_forget(latrec_sched_model *m, uint64_t t_ns);

/* What the model holds now, in entries: timeline intervals, CPU occupancy,
 * preemption and migration times, runqueue waits (what forgetting bounds;
 * threads, generations and names are left out). */
size_t latrec_sched_retained(const latrec_sched_model *m);

/* Feed every record of `ring` (write order) and finish. The ring must be
 * open (LATREC_RING_OK) with catalog "kernel" (or no catalog: v1/v2).
 * Returns 0; -1 with errno EINVAL (rejected ring, other catalog, model
 * already finished) or ENOMEM. Records the ring lost show in ring_lost. */
int latrec_sched_load(latrec_sched_model *m, const latrec_ring *ring);

/* Split [t_a, t_b) for `tid` (the thread that stamped the hop's second
 * stage, or its first when the caller wants that one). Fills *out; a tid
 * without a timeline gives unknown_ns = t_b - t_a and gen = -1. Returns 0;
 * -1 with errno EINVAL when t_b < t_a (out zeroed) or ENOMEM (the others
 * list could not be built: the ns figures and counts are still exact,
 * n_others = 0). */
int latrec_sched_split(const latrec_sched_model *m, uint32_t tid, uint64_t t_a, uint64_t t_b,
                       latrec_sched_breakdown *out);

/* Where a caller's last split left its searches, so that the next one, of
 * the same thread and near it in time (a hop's instances come nearly in
 * time order), starts there: a few steps instead of binary searches over
 * the whole timeline. Zero it before first use. Any value gives the same
 * figures (it is only where the searches start), so a hint is never wrong,
 * only slow, e.g. after the model it was used with changed. */
typedef struct latrec_sched_hint {
    uint32_t gen1;       /* generation index + 1 the indices are of; 0 none */
    size_t iv, pre, mig; /* interval of t_a, first preemption, migration >= t_a */
} latrec_sched_hint;

/* latrec_sched_split() without who ran instead (n_others, n_tasks,
 * instead_ns 0; unattributed_ns = runnable_ns), for callers that sum the
 * state figures over many hops: the same figures, the searches started at
 * and left in *h. Returns 0; -1 with errno EINVAL when t_b < t_a. */
int latrec_sched_split_sums(const latrec_sched_model *m, latrec_sched_hint *h, uint32_t tid, uint64_t t_a, uint64_t t_b,
                            latrec_sched_breakdown *out);

/* latrec_sched_split() on m, the names of who ran instead from `names`, a
 * model fed the same records further on (a task named only later takes
 * that name, as in the model of the whole run). For a model fed as it is
 * read (cli/timeline_sched.c): its window must be in, and who ran on the
 * CPUs the thread waited on settled (latrec_sched_others_final). */
int latrec_sched_split_named(const latrec_sched_model *m, const latrec_sched_model *names, uint32_t tid, uint64_t t_a,
                             uint64_t t_b, latrec_sched_breakdown *out);

/* Who ran on the CPUs the generation of tid alive at t_b waited on in
 * [t_a, t_b) can no longer change as more records are fed: 1, else 0
 * (a later switch record may still give an unrecorded task the time back
 * to when a target thread began waiting there). */
int latrec_sched_others_final(const latrec_sched_model *m, uint32_t tid, uint64_t t_a, uint64_t t_b);

/* Every interval that starts before the time returned is stored as it
 * will stay (or its state was dropped for good): the model's time, or the
 * start of the earliest state still open when that is before it;
 * UINT64_MAX once finished. */
uint64_t latrec_sched_settled_before(const latrec_sched_model *m);

/* State of `tid` at time t (the generation alive at t, as for splits);
 * *cpu (may be NULL) gets its cpu or LATREC_SCHED_NO_CPU. */
latrec_sched_state latrec_sched_state_at(const latrec_sched_model *m, uint32_t tid, uint64_t t_ns,
                                         unsigned *cpu);

/* Name of `tid` at time t (generation-aware for target threads), or NULL
 * when never named. Points into the model. */
const char *latrec_sched_comm(const latrec_sched_model *m, uint32_t tid, uint64_t t_ns);

/* The last name generation `gen` of `tid` had (after its exec and renames:
 * the name to label the thread by), or NULL when never named or no such
 * generation. Points into the model. */
const char *latrec_sched_thread_name(const latrec_sched_model *m, uint32_t tid, uint32_t gen);

/* The generation of `tid` alive at t_ns (as for splits), or -1 when the tid
 * has no timeline. */
int64_t latrec_sched_gen_at(const latrec_sched_model *m, uint32_t tid, uint64_t t_ns);

/* The timeline of the generation of `tid` alive at t_ns: *n intervals,
 * sorted, disjoint; NULL with *n = 0 for an unknown tid. *gen (may be NULL)
 * gets the generation. Points into the model. */
const latrec_sched_interval *latrec_sched_intervals(const latrec_sched_model *m, uint32_t tid,
                                                    uint64_t t_ns, size_t *n, uint32_t *gen);

/* Runqueue waits (runqlat): fn is called for each wait that ended in a
 * switch-in, in switch-in time order; a nonzero return stops the walk and
 * is returned. Waits still open at the end are not samples. */
typedef int (*latrec_sched_wait_fn)(void *ctx, const latrec_sched_wait *w);
int latrec_sched_foreach_wait(const latrec_sched_model *m, latrec_sched_wait_fn fn, void *ctx);

/* Thread generations, in order of first event: i < n_threads. */
size_t latrec_sched_n_threads(const latrec_sched_model *m);
void latrec_sched_thread_info(const latrec_sched_model *m, size_t i, latrec_sched_thread *out);

/* Counters (see the struct). */
const latrec_sched_counts *latrec_sched_counters(const latrec_sched_model *m);

/* "RUNNING", "RUNNABLE", "BLOCKED", "UNKNOWN". */
const char *latrec_sched_state_name(latrec_sched_state s);

#endif
