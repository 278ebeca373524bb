/*
 * record/sched_live.h - the scheduler records published while the run goes
 * on: <run>/sched.latrec as a live ALR1 ring, which `latrec top` (and any
 * reader) follows like the program's rings; at the end the collector's
 * time-ordered file replaces it (record/sched_spool.h).
 *
 * The ring: version 3, catalog "kernel", name "sched", LATREC_SCHED_LIVE_LOG2
 * entries, written by this project's writer rules (latrec-format(5): a
 * slot's t_ns zeroed before its payload changes, stored last with release
 * ordering; rec_count refreshed every entries / 2 records), so a reader
 * polls it with latrec_ring_poll and counts what it laps. Created as
 * <path>.part and renamed into place (never over an existing file).
 *
 * Order: records arrive in any order (the BPF ring buffer interleaves
 * CPUs). latrec_sched_live_add() buffers them; latrec_sched_live_publish(l,
 * before) writes every buffered record stamped before `before`, sorted as
 * sched.latrec is (sched_spool.h), then sets the header's t1 pair to
 * (before, the realtime then): every record stamped before t1_mono_ns that
 * the ring will ever hold is in it. t_ns therefore never descends in write
 * order. A record that arrives after a publication passed its time is not
 * put in the ring (it would descend): it is counted in `late` and is still
 * in the final sched.latrec. The collector publishes at each drain (every
 * LATREC_SCHED_POLL_MS) up to the clock read before the drain minus
 * LATREC_SCHED_LIVE_WINDOW_NS.
 *
 * End: latrec_sched_live_close() sets rec_count exactly and the clean-close
 * flag (a live reader then drains it and stops waiting). A record killed
 * before that leaves the live ring: valid records up to its last
 * publication, the flag unset.
 *
 * Errors: -1 with one line in err naming the file and the reason.
 */
#ifndef LATREC_RECORD_SCHED_LIVE_H
#define LATREC_RECORD_SCHED_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "latrec/format.h"

#define LATREC_SCHED_LIVE_LOG2 18u               /* 256 Ki records (8 MiB) */
#define LATREC_SCHED_LIVE_WINDOW_NS 150000000ull /* reorder window, ns */

typedef struct latrec_sched_live latrec_sched_live;

/* Create the ring at `path` from the header template (name, catalog,
 * host, boot id, pid, clock, t0 pair; the rest is set here). 0, or -1. */
int latrec_sched_live_open(latrec_sched_live **out, const char *path, const latrec_hdr *tmpl, char *err, size_t errlen);

/* Buffer one record for the next publication. 0, or -1 out of memory
 * (the record is then left out of the live ring, counted in late). */
int latrec_sched_live_add(latrec_sched_live *l, const latrec_rec *r);

/* Write the buffered records stamped before `before_ns` (CLOCK_MONOTONIC),
 * in order, and set t1 to before_ns. An earlier `before_ns` than the last
 * one does nothing. */
void latrec_sched_live_publish(latrec_sched_live *l, uint64_t before_ns);

/* Mark the ring closed (rec_count exact, LATREC_F_CLEAN_CLOSE). */
void latrec_sched_live_close(latrec_sched_live *l);

/* 1 when `path` is this ring's file (same device and inode, not a link to
 * it): the final file may replace it. */
int latrec_sched_live_is(const latrec_sched_live *l, const char *path);

/* Records in the ring, and records left out as late. */
uint64_t latrec_sched_live_published(const latrec_sched_live *l);
uint64_t latrec_sched_live_late(const latrec_sched_live *l);

/* Unmap and free (the file stays). NULL is fine. */
void latrec_sched_live_free(latrec_sched_live *l);

#endif
