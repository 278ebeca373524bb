/*
 * engine/live.h - following a run that is still recording (the engine's
 * LATREC_ENGINE_LIVE; engine/engine.h states the rules): the records the
 * writers stamp after the open, and the rings that appear after it.
 */
#ifndef LATREC_ENGINE_LIVE_H
#define LATREC_ENGINE_LIVE_H

#include <stdint.h>

#include "analyze/legs.h"
#include "engine/input.h"
#include "read/merge.h"

/* How far behind the clock the watermark may stay when a ring is idle:
 * a record stamped this long before a poll that did not see it is fed
 * late (counted in latrec_input.late), not held. ns. */
#define LATREC_LIVE_LAG_NS 100000000ull

/* Rings are looked for in the directories at most this often (ns of
 * CLOCK_MONOTONIC). */
#define LATREC_LIVE_RESCAN_NS 100000000ull

/* Extend every ring that ran dry to what its writer stamped since
 * (latrec_ring_poll), give it its head again, copy the lapped counts and
 * set in->watermark (over the program's rings: the scheduler's
 * sched.latrec, published a window behind the clock, holds nothing back). `now_key` is the clock on the merge's clock (monotonic,
 * or realtime with --wall), read before the rings are looked at. Returns
 * the number of new write-order positions. */
uint64_t latrec_live_poll(latrec_input *in, latrec_merge *m, uint64_t now_key);

/* The clock the merge keys are on, now (ns). */
uint64_t latrec_live_now_key(const latrec_input *in);

/* Open the rings that appeared in the directories since the open (or the
 * last rescan) and add them to the input, the merge and the builder (legs
 * may be NULL). A ring under a catalog the input did not load, or of
 * another boot (without --wall), is left out with one line on stderr.
 * Returns the number of rings added, or -1 (out of memory, printed). */
int latrec_live_rescan(latrec_input *in, latrec_merge *m, latrec_legs *legs);

/* 1 while the first directory's run.json says the run is being recorded
 * and latrec still holds the directory's lock, or when there is no
 * run.json (a directory of rings: only the caller knows); 0 once the
 * recording ended. */
int latrec_live_recording(const latrec_input *in);

#endif
