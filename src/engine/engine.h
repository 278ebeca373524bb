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
 * of LATREC_ENGINE_END, and the next step reads what arrived since. */
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
 * ERROR: out of memory, printed. */
int latrec_engine_step(latrec_engine *e, uint64_t budget);

/* What the stream has given so far. */
typedef struct latrec_engine_snap {
    uint64_t records;        /* program records fed to the builder */
    uint64_t last_t_ns;      /* the newest of them, on the pass clock (0: none) */
    uint64_t begin_ns;       /* the run's beginning on that clock */
    latrec_input_totals totals; /* rings, loss, wraps, torn (engine/input.h) */
} latrec_engine_snap;
void latrec_engine_snapshot(latrec_engine *e, latrec_engine_snap *s);

/* End every open instance (the run is over): latrec_pass_end. 0 or -1. */
int latrec_engine_finish(latrec_engine *e);

/* Step to the end of the stream and finish (a run that is over): 0, or -1
 * (reason printed). */
int latrec_engine_run(latrec_engine *e);

/* The pass (its tables, legs, paths), NULL before start. */
latrec_pass *latrec_engine_pass(latrec_engine *e);

/* Free the pass and close the input. NULL is fine. */
void latrec_engine_close(latrec_engine *e);

#endif
