/*
 * engine/align.h - --align: with --wall and the run directories of several
 * hosts, one pass assembles the paths of every catalog and estimates each
 * directory's clock offset to the first directory from the exchanges of
 * the paths that go there and back (analyze/clock_offset.h); each
 * directory's rings then have their realtime pairs shifted by minus that
 * offset, so every later pass (and every figure) is on the first
 * directory's clock. A directory without such a path keeps its pairs (one
 * line says so).
 */
#ifndef LATREC_ENGINE_ALIGN_H
#define LATREC_ENGINE_ALIGN_H

#include <stddef.h>
#include <stdio.h>

#include "engine/input.h"

/* Does nothing without --align. 0, or -1 with the reason printed (--align
 * without --wall or with one directory, a catalog without paths, out of
 * memory). */
int latrec_input_align(latrec_input *in);

/* "DIR shifted by -5000.000 us (offset to DIR0 estimated within +-12.000 us
 * from 998 exchanges)" for directory d when --align shifted it: 1, else 0. */
int latrec_align_note(const latrec_input *in, int d, char *buf, size_t len);

/* hist and convert: each shifted directory's latrec_align_note() on out,
 * "latrec CMD: clock alignment: ..." (report puts it in its header); nothing
 * with -q. */
void latrec_align_print(const latrec_input *in, FILE *out);

#endif
