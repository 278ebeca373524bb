/*
 * engine/pass_split.h - a pass read by process, its private state, shared
 * by its files: pass_split.c (a lane's instances, the first-stage stamps,
 * setting up, ending and giving up), pass_split_lane.c (a lane reading its
 * processes' records), pass_plog.c (their path logs, merged).
 */
#ifndef LATREC_ENGINE_PASS_SPLIT_H
#define LATREC_ENGINE_PASS_SPLIT_H

#include <pthread.h>

#include "engine/pass_impl.h"
#include "engine/pass_plog.h"
#include "engine/pass_stamps.h"

#define SPLIT_FILL 256 /* records taken from a part's merge at a time */
#define SPLIT_MAX_LANES 64

/* A lane's view of one (component, leg): its table (NULL: not selected),
 * the lane's part of its figures and what the lane counted of it. */
struct split_part {
    int component, leg;
    latrec_leg_table *t;
    void *part;
    uint64_t instances, complete;
};

struct split;

/* A route of first-stage stamps, (c0, leg), and the component of the
 * table a pass in time order gives them to (stamps_hold). */
struct split_gap {
    int c0, leg, dest;
};

/* One process being read: its rings merged, its builder, its path log. */
struct pfeed {
    latrec_merge m;
    latrec_legs *legs;
    latrec_ring *rings; /* the set's, the process's ok and the others rejected */
    latrec_plog *log;   /* NULL: paths not logged */
    uint64_t last, last_sched;
    uint32_t proc;
    int with_sched, sched_guessed, open;
};

/* One thread's share of the processes: lines of its own, and what it
 * writes per record allocated on its own thread (a line or an arena chunk
 * two threads write moves between the cores at every write). */
struct split_lane {
    _Alignas(64) struct split *sp;
    int id;
    latrec_legs *legs;  /* its processes' counts added up (each is fed by a builder of its own) */
    int *ring_component; /* legs' (every builder of the input has the same) */
    int n_catalog_legs; /* legs' (asked once: the lane's emit checks each instance) */
    latrec_ring *rings; /* the set's rings, each part's own ok, the others rejected */
    uint32_t *procs;    /* its processes, in order */
    int n_procs;
    latrec_input_counts c;
    uint64_t fed, last_t, warm_skipped;
    uint64_t now, horizon; /* the newest record fed (a lazy feed's ends come after it); the leg horizon */
    uint64_t warm_from;    /* the pass's warm-up bound (p->begin + p->opts.warmup_ns) */
    int plain;             /* no paths, no first-stage stamps, figures in no end order: the emit's checks */
    uint64_t next_cut;     /* the earliest latrec_legs_next_cut() at a process's end */
    uint64_t finish_first; /* the earliest first stamp of an instance ended at a process's end */
    uint32_t disorder;     /* the ring whose stamps went down (UINT32_MAX: none) */
    struct split_part *parts;
    int n_parts, cap_parts, last_part;
    uint32_t cur_proc; /* the process being fed */
    struct pfeed *cur; /* its feed */
    uint32_t cur_ring; /* the ring of the record fed */
    int phase;         /* LATREC_PLOG_*: what the builder does while it ends an instance */
    int want_first;    /* first-stage stamps logged (sinks.first_stage, tables made) */
    struct stamp_log *logs;
    int n_logs, cap_logs, last_log;
    pthread_t thread;
    int started;
};

struct split {
    latrec_pass *p;
    int n_lanes;
    size_t open_share; /* instances one process may hold open */
    const uint32_t *ring_proc;
    const uint8_t *anchor;   /* [builder leg]: a path's first leg (NULL: no paths) */
    const uint8_t *path_leg; /* [builder leg]: a leg a path uses; non-NULL: paths by their logs */
    latrec_plogs *plogs;     /* paths assembled from each process's log (NULL: an anchor's instance gives up) */
    int first_reader;        /* the first lane that reads processes (1: the first merges the logs only) */
    int readers, full_waits; /* atomics: lanes still reading processes; of those, waiting on full logs */
    struct split_lane lane[SPLIT_MAX_LANES];
    pthread_mutex_t mu;                      /* the tables: one thread at a time */
    int stop, lost, failed;                  /* atomics: every lane stops at its next fill */
    struct split_gap *gaps;                  /* stamps_hold's routes of first-stage stamps, each to its table */
    size_t n_gaps;
};

static inline int stopped(const struct split *sp)
{
    return __atomic_load_n(&sp->stop, __ATOMIC_RELAXED);
}

static inline void stop_all(struct split *sp, int failed)
{
    if (failed) __atomic_store_n(&sp->failed, 1, __ATOMIC_RELAXED);
    else __atomic_store_n(&sp->lost, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&sp->stop, 1, __ATOMIC_RELAXED);
}

/* pass_split.c: a lane's builders' emit (what latrec_pass_on_instance does,
 * into the lane's parts); the log of the process being fed for (c0, leg),
 * made on first use (NULL when out of memory: the lane stops). */
void latrec_split_lane_instance(void *ctx, const latrec_instance *inst);
struct stamp_log *latrec_split_log_find(struct split_lane *l, int c0, int leg);

/* The log of (c0, leg) inline when it is the last one asked for (twice per
 * instance), else latrec_split_log_find's. */
static inline struct stamp_log *latrec_split_log_of(struct split_lane *l, int c0, int leg)
{
    if (l->n_logs) {
        struct stamp_log *g = &l->logs[l->last_log];
        if (g->c0 == c0 && g->leg == leg && g->proc == l->cur_proc) return g;
    }
    return latrec_split_log_find(l, c0, leg);
}

/* pass_split_lane.c: a lane's thread (its processes read, in turn or, with
 * paths logged, side by side); what it allocated freed. */
void *latrec_split_lane_run(void *arg);
void latrec_split_lane_free(struct split_lane *l);

#endif
