/*
 * record/collector.h - what `latrec record` switches on around a run.
 *
 * A collector gathers one kind of sample: the target's rings, tracefs
 * events (-t), later the scheduler through BPF. record drives every
 * collector through the same steps so that all of them share one start
 * stamp (DESIGN.md, "Synchronised start"):
 *
 *   start       before the target runs (the launched child waits at its
 *               barrier; an attached process is already running). The
 *               collector is on when start returns.
 *   told_start  once every collector is on, record writes the start stamp;
 *               each collector is told its CLOCK_MONOTONIC ns and must
 *               drop every sample stamped before it (counting the drops).
 *               Not called when the run has no start stamp (no tracefs).
 *   poll        every poll_ms while the target runs (drain buffers).
 *   cut         (optional) a --stop-above limit was crossed: stop capturing
 *               now, so that the collector's tail is what led up to it
 *               (the tracefs events); the run stops next.
 *   stop        after the target has ended (and the stop stamp is written):
 *               switch off, write the collector's files into the run
 *               directory, fill `counts`.
 *   describe    extra fields for run.json's "collectors" entry.
 *   destroy     free; called once, whatever happened before.
 *
 * A collector whose start fails is reported in one line, marked failed in
 * run.json ("ran": false, "reason"), and the run goes on without it.
 */
#ifndef LATREC_RECORD_COLLECTOR_H
#define LATREC_RECORD_COLLECTOR_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/tracefs_sync.h"

/* Sample counts of one collector, for run.json and the summary. When exact,
 * written = records + dropped + lost. */
typedef struct latrec_collector_counts {
    uint64_t written; /* samples produced while the collector saw them */
    uint64_t records; /* kept: stamped at or after the start stamp */
    uint64_t dropped; /* stamped before the start stamp (or after the stop stamp), removed */
    uint64_t lost;    /* overwritten or missed before they could be read */
    int      lost_lower_bound; /* lost and written are lower bounds */
} latrec_collector_counts;

/* What every collector is told at start. */
typedef struct latrec_collect_ctx {
    const char     *run_dir;
    const char     *run_id;
    pid_t           pid;    /* the target: the child at its barrier, or the attached process */
    int             attach; /* 1 with -p */
    latrec_tracefs *tfs;    /* the run's tracefs instance, NULL without tracefs */
    int             quiet;
} latrec_collect_ctx;

typedef struct latrec_collector latrec_collector;

typedef struct latrec_collector_ops {
    const char *name; /* key in run.json's "collectors" */
    unsigned    poll_ms;
    int    (*start)(latrec_collector *c, const latrec_collect_ctx *x, char *err, size_t errlen);
    void   (*told_start)(latrec_collector *c, uint64_t start_ns);
    void   (*poll)(latrec_collector *c);
    void   (*cut)(latrec_collector *c, uint64_t mono_ns);
    int    (*stop)(latrec_collector *c, uint64_t stop_ns, char *err, size_t errlen);
    json_t *(*describe)(const latrec_collector *c);
    void   (*destroy)(latrec_collector *c);
} latrec_collector_ops;

enum latrec_collector_state {
    LATREC_COLL_NEW = 0,
    LATREC_COLL_ON,      /* started */
    LATREC_COLL_DONE,    /* stopped, counts valid */
    LATREC_COLL_FAILED,  /* start or stop failed: `error` says why */
};

struct latrec_collector {
    const latrec_collector_ops *ops;
    void *priv;
    int   state;               /* enum latrec_collector_state */
    char  error[512];
    latrec_collector_counts counts;
};

/* The target's rings. `src` is where they are written during the run:
 *   mode LATREC_RINGS_MOVE: a directory of the run's own (tmpfs), moved into
 *                           <run>/rings at stop;
 *   mode LATREC_RINGS_DIRECT: <run>/rings itself (nothing to move);
 *   mode LATREC_RINGS_COPY: the directory of a live process (-p): the rings
 *                           written by the process tree, or holding records
 *                           at or after the start stamp, are copied.
 * stop counts, through the ring reader, every ring's records before and
 * after the start stamp (records < start_ns are "dropped"). */
enum { LATREC_RINGS_MOVE, LATREC_RINGS_DIRECT, LATREC_RINGS_COPY };
latrec_collector *latrec_coll_rings_new(const char *src, int mode);

/* tracefs events (-t): `events` is a NULL-terminated list of "system:event"
 * (sched:sched_switch, sched:sched_wakeup plus -e). Enabled in the run's
 * instance and filtered to the target's threads (set_event_pid with the
 * event-fork option); drained every 200 ms; written at stop as trace.txt,
 * one event per line, "<mono_ns> <comm>-<pid> [<cpu>] <event>: <fields>",
 * keeping only events between the start and stop stamps. Needs tracefs. */
latrec_collector *latrec_coll_trace_new(const char *const *events, size_t buffer_kb);

#endif
