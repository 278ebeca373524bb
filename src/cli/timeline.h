/*
 * cli/timeline.h - trace.json, a trace-event timeline that Perfetto and
 * chrome://tracing open.
 *
 * One process per latrec process (its pid; a guessed process gets 1000000 +
 * its index), one track per ring thread (its tid; a ring without one gets
 * its ring index + 1), named after the ring. Each leg instance is a slice
 * "<component>/<leg>" on the thread that stamped its first chain stage, from
 * its first to its last chain stamp, with seq and completeness in args; each
 * hop is a slice "A -> B" on the thread that stamped B, and a hop whose two
 * stages were stamped on different threads (or processes) also gets a flow
 * arrow from A to B. A one-stage leg is an instant event. Times are us from
 * the first record (three decimals: ns precision).
 */
#ifndef LATREC_CLI_TIMELINE_H
#define LATREC_CLI_TIMELINE_H

#include "analyze/legs.h"
#include "cli/input.h"

typedef struct latrec_timeline latrec_timeline;

/* Create path (written aside and renamed at close, read/outfile.h) and
 * write the metadata events. NULL with errno on failure (EEXIST: path is
 * not latrec's). */
latrec_timeline *latrec_timeline_open(const char *path, const latrec_input *in, const latrec_legs *legs);
void latrec_timeline_add_instance(latrec_timeline *t, const latrec_instance *inst);
/* Finish the file and rename it into place. 0, or -1 with errno when any
 * write failed (nothing is renamed then). */
int latrec_timeline_close(latrec_timeline *t);

#endif
