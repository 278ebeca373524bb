/*
 * engine/pass_plog.h - the paths of a pass read by process (pass_split.c):
 * each process's ended leg instances logged in the order its builder ends
 * them, each under the key of the moment a pass in time order ends it, and
 * the logs merged by that key into the pass's path assemblers, so that
 * they see the instances of the pass in time order, in its order.
 *
 * When a builder fed every record in time order ends an instance (legs.h):
 *   - at a record R, which completes it or stamps a stage it holds again:
 *     key (t_R, 0, ring of R) - R's merge key, whose order (time, ring) is
 *     the stream's for records of two processes (read/merge.h);
 *   - when its grace runs out: at the first record stamped after D (the
 *     last chain stage's stamp + the grace), before that record's own
 *     ends, in the order of the grace queue (of the records that started
 *     the graces): key (D, 1, ring of the last chain stage);
 *   - at the end of the stream, in the order the instances were opened:
 *     key (UINT64_MAX, first stamp, ring of the first stamp); an instance
 *     in grace when its process's records ended takes the grace key when a
 *     record of another process comes after D, else this one.
 * A process's builder ends its instances in that order (pass_split.c), so
 * each log is sorted by key; records of two processes never share a ring,
 * so two logs never hold equal keys. Ended by the horizon or for room, or
 * an instance of a discovered leg: the pass by process gives up before
 * (pass_split.c), as it gives up here on what this cannot order (two graces
 * of one ring started at one stamp and still open at the process's end, a
 * record stamped 0).
 *
 * A log is written on its process's thread and read on the merging one
 * (the first thread): items are published as they are written, and the
 * process's watermark (no later item has a key below (w, 0, 0)) after
 * each block of records. An instance of a leg no path uses is logged as
 * its latest stamp only (all the assemblers take from it: their stream
 * time).
 */
#ifndef LATREC_ENGINE_PASS_PLOG_H
#define LATREC_ENGINE_PASS_PLOG_H

#include <stddef.h>
#include <stdint.h>

#include "engine/pass_impl.h"

typedef struct latrec_plog latrec_plog;
typedef struct latrec_plogs latrec_plogs;

/* When the builder hands out an instance: while it is fed a record, while
 * it settles what a lazy feed put off, while it finishes. */
enum { LATREC_PLOG_FEED, LATREC_PLOG_SETTLE, LATREC_PLOG_FINISH };

/* Logs for processes [0, n_procs) of pass p; path_leg[builder leg] 1 when a
 * path uses the leg. NULL when out of memory. */
latrec_plogs *latrec_plogs_new(latrec_pass *p, uint32_t n_procs, const uint8_t *path_leg);
void latrec_plogs_free(latrec_plogs *s);
latrec_plog *latrec_plogs_of(latrec_plogs *s, uint32_t proc);

/* Writer (the thread feeding the process). Log inst, ended in `phase`
 * while the builder was at record (now, ring): 0, -1 out of memory, -2
 * when it cannot be ordered (give up). */
int latrec_plog_put(latrec_plog *g, const latrec_instance *inst, const latrec_leg *leg, int phase, uint64_t now,
                    uint32_t ring);
/* Every record up to w fed and settled: published. */
void latrec_plog_publish(latrec_plog *g, uint64_t w);
/* The process's records ended (its builder finished): its last items
 * published. 0, or -2 (give up). */
int latrec_plog_end(latrec_plog *g, uint64_t w);
/* Chunks written and not yet read (the writer waits past a few). */
unsigned latrec_plog_backlog(const latrec_plog *g);

/* Reader (the merging thread): feed the pass's paths every item whose
 * place in time order is known. Returns items fed (0: none could be), or
 * -1 when the assemblers ran out of memory. */
long latrec_plogs_drain(latrec_plogs *s);
/* 1 when every process ended and every item was fed. */
int latrec_plogs_finished(latrec_plogs *s);
/* Items fed so far (the writers' wait sees the reader move). */
uint64_t latrec_plogs_progress(const latrec_plogs *s);

#endif
