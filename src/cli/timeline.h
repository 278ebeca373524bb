/*
 * cli/timeline.h - trace.json, a trace-event timeline that Perfetto and
 * chrome://tracing open (the JSON "Trace Event Format").
 *
 * Processes are latrec's processes (the pid; a guessed process gets 1000000
 * + its index), named after the program (the scheduler's comm, or run.json's
 * argv[0] for the process latrec launched, else "pid N") and the components
 * whose rings it holds: "e3loop [oai, libe3]". Threads are the rings'
 * threads (the tid; a ring without one gets its ring index + 1) and the
 * threads the scheduler collector saw, named after their ring roles and
 * their comm: "libe3.outbound (e3loop)".
 *
 * What lies on a thread's own track never partially overlaps:
 *   - its scheduler states from sched.latrec, complete slices "running",
 *     "runnable", "blocked" (cat "sched"; args: cpu, and for runnable the
 *     cause and who ran on that CPU instead, with their ns), one after the
 *     other, gaps where the state is unknown;
 *   - every stamp of an instance, a zero-length slice named after its stage
 *     (cat "stamp"; args: seq, leg), which is where flows attach.
 * A leg instance is a nestable async slice "<component>/<leg>" (cat "leg",
 * one id per instance) in its process, from its first to its last chain
 * stamp, with each chain hop "A -> B" nested in it (same cat and id; args
 * kind "hop"): legs that overlap in time (a pipeline) are never forced onto
 * one thread. A one-stage leg is an instant on its thread. A hop whose two
 * stamps are on different threads or processes gets a flow arrow (cat
 * "flow", ph s/f) from stamp A to stamp B. Metadata events have cat
 * "__metadata". A complete path instance (analyze/paths.h) is an async
 * slice "<path>" (cat "path") from its first to its last stamp, with a flow
 * (cat "path") at each hand-off between its legs (its segments), across
 * threads and processes; a hand-off whose next leg began before the last
 * one ended gets no arrow (counted in otherData). Times are us from the first record (three decimals: ns).
 *
 * Large runs: a window (instances whose first stamp lies in [from, to), the
 * scheduler slices clipped to it) and an event budget: when the next
 * instance would pass max_events, the timeline stops there; nothing after
 * that point is written and the totals say what was cut.
 */
#ifndef LATREC_CLI_TIMELINE_H
#define LATREC_CLI_TIMELINE_H

#include "analyze/legs.h"
#include "analyze/paths.h"
#include "engine/input.h"

typedef struct latrec_timeline latrec_timeline;

typedef struct latrec_timeline_opts {
    uint64_t from_ns, to_ns; /* window from the first record; to_ns 0: to the end */
    uint64_t max_events;     /* 0: no limit */
} latrec_timeline_opts;

typedef struct latrec_timeline_totals {
    uint64_t events;             /* written, metadata included */
    uint64_t instances;          /* leg instances drawn */
    uint64_t paths;              /* complete path instances drawn */
    uint64_t handoffs_backwards; /* hand-offs whose next leg began first: no flow */
    uint64_t outside;            /* instances outside the window */
    uint64_t cut;                /* instances after the budget ran out */
    uint64_t sched_slices;       /* scheduler slices written */
    uint64_t sched_cut;          /* scheduler slices after the cut / outside the window */
    uint64_t flows;              /* flow arrows (s/f pairs) */
    int stopped;                 /* the budget ran out */
    uint64_t stopped_at_ns;      /* where, from the first record */
    int sched;                   /* scheduler tracks written */
    char sched_reason[300];      /* why not, when !sched */
} latrec_timeline_totals;

/* Create path (written aside and renamed at close, read/outfile.h) and
 * write the metadata events. NULL with errno and err (one line naming the
 * file, or its directory's marker, and the reason) on failure; a
 * scheduler file that cannot be loaded is said on stderr and left out. */
latrec_timeline *latrec_timeline_open(const char *path, const latrec_input *in, const latrec_legs *legs,
                                      const latrec_timeline_opts *opts, char *err, size_t errlen);
void latrec_timeline_add_instance(latrec_timeline *t, const latrec_instance *inst);
/* A complete path instance whose legs were drawn: an async slice for the
 * whole path (cat "path", named as in->paths shows it; pi->path is the
 * run-wide index) and a flow at each hand-off (cat "path"). */
void latrec_timeline_add_path(latrec_timeline *t, const latrec_path_instance *pi);
/* Finish the file, rename it into place and fill *tot (may be NULL). 0, or
 * -1 with errno and err when any write failed (nothing is renamed then). */
int latrec_timeline_close(latrec_timeline *t, latrec_timeline_totals *tot, char *err, size_t errlen);
/* Drop it: the file is removed. NULL is fine. */
void latrec_timeline_abort(latrec_timeline *t);

#endif
