/*
 * record/threshold.h - --stop-above: a thread that reads the run's rings
 * while the command stamps them (the analysis engine, live) and judges
 * every instance that ends against one limit (analyze/gate.h, instance
 * form: 'libe3/outbound:total>500us', 'e3/loop:total>2ms'; the judging
 * itself is engine/judge.h).
 *
 * The first instance whose value of the gate's hop (or path segment) is
 * over the limit is kept and the watcher's fd becomes readable; the thread
 * then stops reading. The record run loop polls the fd and stops the run
 * (record.h). latrec_threshold_end, once the command has ended, reads what
 * is left and ends the instances still open, so that a crossing in the
 * last records is found too, then joins the thread.
 *
 * Times are CLOCK_MONOTONIC ns (the rings' clock); values ns, raw (not
 * calibrated).
 */
#ifndef LATREC_RECORD_THRESHOLD_H
#define LATREC_RECORD_THRESHOLD_H

#include <stdint.h>

#include "engine/judge.h"

typedef struct latrec_threshold_opts {
    const char *dir;       /* what the engine reads: the run directory (its run.json
                              has the start stamp), or with -p the process's ring directory */
    const char *rings_dir; /* where the command writes its rings: watched for the first one */
    const latrec_gate *gate;
    const char *catalog; /* record's --catalog FILE, or NULL */
    uint64_t since_ns;   /* instances that began earlier are not judged (the start stamp) */
} latrec_threshold_opts;

typedef struct latrec_threshold latrec_threshold;

/* Start the thread. NULL (err set) when it cannot start. */
latrec_threshold *latrec_threshold_start(const latrec_threshold_opts *o, char *err, size_t errlen);

/* Readable (an eventfd) once an instance crossed the limit. */
int latrec_threshold_fd(const latrec_threshold *t);

/* The command has ended: read the rest, end the open instances, join. */
void latrec_threshold_end(latrec_threshold *t);

/* After latrec_threshold_end (or once the fd is readable): 1 with *hit
 * and *detected_ns (when the watcher judged it) when an instance crossed
 * the limit, else 0. */
int latrec_threshold_crossed(latrec_threshold *t, latrec_judge_hit *hit, uint64_t *detected_ns);

/* After latrec_threshold_end: 1 when the gate named a leg or path of the
 * run; and why the watcher stopped early ("" when it did not). */
int latrec_threshold_named(const latrec_threshold *t);
const char *latrec_threshold_error(const latrec_threshold *t);

void latrec_threshold_free(latrec_threshold *t);

#endif
