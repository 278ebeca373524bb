/*
 * cli/top_print.h - one block of `latrec top`: as text (libsmartcols
 * tables: the legs, the paths, the rings) or as one JSON object on one line
 * (JSON Lines, for scripts; the shape is in latrec-top(1)).
 */
#ifndef LATREC_CLI_TOP_PRINT_H
#define LATREC_CLI_TOP_PRINT_H

#include <stdio.h>

#include "engine/figures.h"
#include "cli/top_model.h"
#include "engine/engine.h"

/* What a block says besides the rows. */
typedef struct latrec_top_tick {
    uint64_t n;            /* blocks printed before this one */
    double elapsed_s;      /* wall time since top began watching */
    double interval_s;     /* wall time of the last interval */
    double last_s;         /* what the last interval's rates divide by: its wall time
                                    while the source is live, else span_s (a run read once) */
    double span_s;         /* stream time from the run's beginning to its newest record */
    uint64_t records_last; /* records fed during the last interval */
    const char *state;     /* "recording", "ended", "stopped" */
    int final;             /* the last block */
    int recomputed;        /* final: the since-start figures from one pass over the
                              finished input (some records came late live) */
    const latrec_engine_snap *snap;
    const latrec_units *units;
} latrec_top_tick;

void latrec_top_print_text(FILE *out, const latrec_top *t, const latrec_top_tick *k);
/* One line, '\n' ended, flushed. */
void latrec_top_print_json(FILE *out, const latrec_top *t, const latrec_top_tick *k);

#endif
