/*
 * record/sched_spool.h - scheduler records spooled to a temporary file
 * during a run, then written as one time-ordered ALR1 ring (sched.latrec).
 *
 * Records may arrive in any order: the BPF ring buffer interleaves CPUs,
 * and an interrupt can run one handler inside another on the same CPU, so
 * even one CPU's stream is not strictly in time order. The spool keeps a
 * chunk of LATREC_SPOOL_CHUNK records in memory; a full chunk is sorted
 * and appended to an unlinked temporary file in the run directory
 * (O_TMPFILE; or a mkstemp name unlinked at once) as one sorted run.
 * latrec_spool_finish() merges the runs (a binary heap over the runs, one
 * LATREC_SPOOL_RUN_BUF-record read buffer each) straight into the ring
 * file. Memory: 4 MiB while spooling; while merging, 64 KiB per run (one
 * run per 131072 records spooled: 7.6 MiB for 16 million records). The
 * disk holds 32 bytes per record twice at the end (spool and ring).
 *
 * Order: (t_ns, cpu, kind) as sched_catalog.h asks, then seq, aux, aux2 so
 * the file does not depend on arrival order.
 *
 * The ring written: the caller's header template (name, catalog, pid, tid,
 * flags, clock_id, boot_id, host, t0/t1 pairs) with magic, version 3,
 * rec_size 32, entries = the smallest power of two >= the records kept
 * (at least 1, so the ring never wraps) and rec_count = the records kept,
 * exactly. Slots past rec_count are zero (t_ns 0: empty; a sparse file).
 * The file is written as <path>.part and renamed to <path> when complete.
 *
 * Errors: -1 with one line in err naming the file and the reason, e.g.
 * "<dir>: spool: No space left on device". After a failed
 * latrec_spool_add() every later add fails the same way (the first error
 * is kept) and latrec_spool_finish() reports it.
 */
#ifndef LATREC_RECORD_SCHED_SPOOL_H
#define LATREC_RECORD_SCHED_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "latrec/format.h"

#define LATREC_SPOOL_CHUNK   (1u << 17) /* records sorted in memory per run */
#define LATREC_SPOOL_RUN_BUF 2048u      /* records read ahead per run while merging */

typedef struct latrec_spool latrec_spool;

/* A spool whose temporary file lives in directory `dir`. 0, or -1 (err). */
int latrec_spool_open(latrec_spool **out, const char *dir, char *err, size_t errlen);

/* Append one record. 0, or -1 when the spool cannot be written (err). */
int latrec_spool_add(latrec_spool *s, const latrec_rec *r, char *err, size_t errlen);

/* Records added so far. */
uint64_t latrec_spool_count(const latrec_spool *s);

/* Sorted runs written to the temporary file so far. */
uint64_t latrec_spool_runs(const latrec_spool *s);

/* Write every record with t_ns <= keep_until_ns (0: all) to `path` as
 * described above; *kept and *after_stop (records with t_ns past
 * keep_until_ns, left out) are set. hdr is the template (its entries,
 * rec_count, magic, version and rec_size are set here). With replace, the
 * file takes the place of what is at `path` in one rename (the caller
 * checked it is its own live ring: record/sched_live.h); else an existing
 * `path` is an error. 0, or -1 (err). */
int latrec_spool_finish(latrec_spool *s, const char *path, const latrec_hdr *hdr, uint64_t keep_until_ns, int replace,
                        uint64_t *kept, uint64_t *after_stop, char *err, size_t errlen);

/* The order of the file, (t_ns, cpu, kind, seq, aux, aux2), for qsort. */
int latrec_spool_cmp(const void *a, const void *b);

/* Free the spool and its temporary file. NULL is fine. */
void latrec_spool_close(latrec_spool *s);

#endif
