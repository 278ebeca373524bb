/*
 * engine/engine.h - the analysis engine: open a run, feed its records to the
 * leg builder and path assemblers in steps, look at the figures so far,
 * finish, close. report, hist, convert and top drive it; record drives it
 * for --stop-above.
 *
 *   latrec_engine *e = latrec_engine_open(&input_opts, "top", LATREC_ENGINE_LIVE);
 *   ...resolve names against latrec_engine_input(e)...
 *   latrec_engine_start(e, &pass_opts, &sinks);
 *   while ((r = latrec_engine_step(e, 1 << 20)) != LATREC_ENGINE_END) {
 *       if (r == LATREC_ENGINE_IDLE) ...wait, snapshot, print...
 *   }
 *   latrec_engine_finish(e);  ...tables: latrec_pass_tables(latrec_engine_pass(e))
 *   latrec_engine_close(e);
 *
 * The figures themselves reach the caller through the pass sinks
 * (engine/pass.h) as each instance ends; a snapshot adds what the stream
 * itself says: records fed, the newest stamp, per-ring loss.
 */
#ifndef LATREC_ENGINE_ENGINE_H
#define LATREC_ENGINE_ENGINE_H

#include <stdint.h>

#include "engine/align.h"
#include "engine/input.h"
#include "engine/pass.h"

typedef struct latrec_engine latrec_engine;

/* latrec_engine_open flags. LIVE: the run may still be recording; a step
 * that has fed every record there is now returns LATREC_ENGINE_IDLE instead
 * of LATREC_ENGINE_END, and the next step reads what arrived since.
 *
 * LIVE, what a step does (engine/live.c):
 *   - at most every LATREC_LIVE_RESCAN_NS (100 ms) of CLOCK_MONOTONIC: the
 *     first directory's run.json is read (a recording that ended: the step
 *     drains, below), then the directories are looked at again and rings
 *     that appeared join the input, the merge and the leg builder, from
 *     their oldest record (a ring naming a catalog that was not loaded at
 *     open, or of another boot without --wall, is left out in one line);
 *   - every ring that ran dry is polled (latrec_ring_poll, read/ring.h):
 *     what its writer stamped since becomes readable, slots its writer
 *     overwrote before they were read are counted lapped;
 *   - records go to the builder in merge order up to the watermark and no
 *     further. The watermark rule, so that a slow ring's older records are
 *     not overtaken: a ring still written (not closed by its writer) gives
 *     nothing older than its newest stamp from now on, so the watermark is
 *     the smallest newest stamp over those rings; a ring idle at this poll
 *     (read to its writer, nothing new) would hold everything, so it holds
 *     the others no lower than the clock (read before the poll) minus
 *     LATREC_LIVE_LAG_NS (100 ms); a ring that has unread records, or ran
 *     dry since its last poll, holds them at its newest stamp. A record
 *     stamped more than that lag before the poll that first sees it (a
 *     writer preempted between its clock read and its store, an earlier
 *     time given to latrec_stamp_at, a ring that appears late) is fed when
 *     seen, after newer ones: snapshot .late counts them. Times are those
 *     of the merge (CLOCK_MONOTONIC, or CLOCK_REALTIME with --wall).
 *   - END only once the recording ended (run.json no longer says
 *     "recording"): the step then polls, under the watermark, until a poll
 *     finds nothing more, and then drains everything without it. A directory without run.json never
 *     ends by itself: the caller finishes when it wants.
 * latrec_engine_finish on a LIVE engine drains the same way before it ends
 * the open instances. Without LIVE nothing of this runs: the rings are read
 * as they were at open, to the end, as report, hist and convert always did. */
enum { LATREC_ENGINE_LIVE = 1 };

/* latrec_engine_step results */
enum { LATREC_ENGINE_END = 0, LATREC_ENGINE_MORE = 1, LATREC_ENGINE_IDLE = 2, LATREC_ENGINE_ERROR = -1 };

/* Open the directories opts names (engine/input.h: latrec_input_open, then
 * --align). NULL when nothing can be read, the reason printed as "latrec
 * CMD: ..." (the command exits LATREC_EXIT_ERROR). */
latrec_engine *latrec_engine_open(const latrec_input_opts *opts, const char *cmd, int flags);

/* The input: its rings, catalogs, run.json (valid until close). */
latrec_input *latrec_engine_input(latrec_engine *e);

/* Start the pass: 0, or -1 (reason printed). */
int latrec_engine_start(latrec_engine *e, const latrec_pass_opts *opts, const latrec_pass_sinks *sinks);

/* Feed up to budget records (sinks run inside). MORE: records remain;
 * IDLE (LIVE only): none now; END: the stream is over (then call finish);
 * ERROR: out of memory, printed. Not LIVE, a pass that can start over
 * (engine/pass.h, sinks.restart) and found at the stream's end that a
 * ring opened by the guess was wrong starts over here: its sinks and
 * taps are told, latrec_engine_pass is the new pass, and the step
 * returns MORE. */
int latrec_engine_step(latrec_engine *e, uint64_t budget);

/* One ring as the stream has read it so far. */
typedef struct latrec_engine_ring {
    const char *path;  /* as the ring set spells it ("run/rings/x.latrec") */
    const char *name;  /* the writer's ring name ("libe3.outbound.101"; "" when rejected) */
    int      ok;       /* read (0: rejected, the reason printed at open or rescan) */
    int      sched;    /* the scheduler collector's sched.latrec */
    int      closed;   /* its writer closed it (seen by a LIVE poll) */
    uint64_t records;  /* its records fed (after the start-stamp filter) */
    uint64_t written;  /* records its writer wrote, as of the last poll (read/ring.h) */
    uint64_t lost;     /* overwritten before the open (lower bound when lost_lower_bound) */
    int      wrapped, lost_lower_bound;
    uint64_t lapped;   /* overwritten under the reader after the open */
    uint64_t torn;     /* slots caught mid-stamp at open */
    uint64_t dropped;  /* before its directory's start stamp */
    uint64_t last_t_ns; /* its newest stamp (CLOCK_MONOTONIC; 0: none) */
} latrec_engine_ring;

/* What the stream has given so far. */
typedef struct latrec_engine_snap {
    uint64_t records;        /* program records fed to the builder */
    uint64_t last_t_ns;      /* the newest of them, on the pass clock (0: none) */
    uint64_t begin_ns;       /* the run's beginning on that clock */
    latrec_input_totals totals; /* rings, loss, wraps, torn, lapped (engine/input.h) */
    size_t   n_rings;        /* every ring, ok or not, in set order */
    const latrec_engine_ring *rings; /* valid until the next step, snapshot or close */
    uint64_t watermark;      /* LIVE: records up to this merge key are fed (0: not live) */
    uint64_t late;           /* LIVE: records fed below a key already fed (see above) */
} latrec_engine_snap;
void latrec_engine_snapshot(latrec_engine *e, latrec_engine_snap *s);

/* End every open instance (the run is over): latrec_pass_end. 0 or -1. */
int latrec_engine_finish(latrec_engine *e);

/* Step to the end of the stream and finish (a run that is over): 0, or -1
 * (reason printed). Without LIVE, on --threads threads
 * (latrec_pass_finish: the same figures as one). */
int latrec_engine_run(latrec_engine *e);

/* One more pass over the same records, to its end, with its own options
 * and sinks (report's outlier pass: the first pass's fences decide what
 * the second counts): run as latrec_engine_run runs the first, then
 * freed; latrec_engine_pass(e) stays the first pass. Only after the first
 * pass ended, and not LIVE (the rings are read as they were at open). 0,
 * or -1 (reason printed). */
int latrec_engine_run_again(latrec_engine *e, const latrec_pass_opts *opts, const latrec_pass_sinks *sinks);

/* The pass (its tables, legs, paths), NULL before start. */
latrec_pass *latrec_engine_pass(latrec_engine *e);

/* Free the pass and close the input. NULL is fine. */
void latrec_engine_close(latrec_engine *e);

#endif
