/*
 * analyze/clock_offset.h - the clock offset between two hosts, estimated
 * from the four stamps of request/response exchanges, as NTP does.
 *
 * One exchange between host A and host B: A stamps t1 when the request
 * leaves, B stamps t2 when it arrives and t3 when the response leaves, A
 * stamps t4 when it arrives (A's stamps on A's clock, B's on B's). With B's
 * clock = A's clock + theta and one-way delays d1, d2 >= 0:
 *     t2 = t1 + d1 + theta,  t4 = t3 + d2 - theta
 * so every exchange bounds theta to [t3 - t4, t2 - t1]: its midpoint is
 * NTP's offset ((t2 - t1) + (t3 - t4)) / 2, its half width NTP's bound,
 * half the round trip minus the remote time ((t4 - t1) - (t3 - t2)) / 2.
 *
 * Over many exchanges the estimate is the intersection of their intervals
 * (every one holds theta when the offset stays constant over the run):
 * offset = its midpoint, bound = its half width, never wider than the best
 * single exchange's. When the intersection is empty (the offset drifted
 * during the run, or a delay was negative: a stamp not where the message
 * was), the estimate falls back to NTP's choice, the exchange of the
 * smallest round trip, and says it is not consistent.
 *
 * The bound holds when every sender's stamp precedes the message leaving
 * and every receiver's stamp follows its arrival. Where the exchanges come
 * from: path instances (analyze/paths.h) that go from one directory (host)
 * to another and back. A crossing from A's leg to B's next leg is (t1, t2):
 * t1 the first chain stage of A's leg (not its last: libE3's SEND_DONE is
 * stamped when send() returns, and the message may have arrived by then),
 * t2 the first chain stage of B's leg; the next crossing from B back to A
 * is (t3, t4) alike. All times ns, signed differences of the stamps on the
 * clock the path was assembled on (--wall: each host's CLOCK_REALTIME as
 * its rings map it).
 */
#ifndef LATREC_ANALYZE_CLOCK_OFFSET_H
#define LATREC_ANALYZE_CLOCK_OFFSET_H

#include <stdint.h>

#include "analyze/legs.h"
#include "analyze/paths.h"

/* The estimate of one host pair: B's clock minus A's. */
typedef struct latrec_offset_est {
    uint64_t n;            /* exchanges */
    int64_t lo, hi;        /* intersection [lo, hi] (lo > hi: empty) */
    int64_t best_theta;    /* the smallest round trip's offset */
    int64_t best_rtt;      /* its round trip minus the remote time, >= 0 */
    uint64_t negative_rtt; /* exchanges whose round trip came out negative */
} latrec_offset_est;

void latrec_offset_init(latrec_offset_est *e);

/* One exchange, stamps as above (t1, t4 on A; t2, t3 on B). */
void latrec_offset_add(latrec_offset_est *e, uint64_t t1, uint64_t t2, uint64_t t3, uint64_t t4);

/* The estimate: 1 with *offset (B - A, ns) and *bound (ns, >= 0) and
 * *consistent (1: the intervals intersect; 0: the smallest round trip's),
 * or 0 without exchanges. */
int latrec_offset_result(const latrec_offset_est *e, int64_t *offset, int64_t *bound, int *consistent);

/* Estimates for every pair of directories (hosts) of a run. */
#define LATREC_OFFSETS_MAX_DIRS 64

typedef struct latrec_offsets {
    int n_dirs;
    latrec_offset_est pair[LATREC_OFFSETS_MAX_DIRS][LATREC_OFFSETS_MAX_DIRS]; /* [a][b], a < b: b - a */
} latrec_offsets;

void latrec_offsets_init(latrec_offsets *o, int n_dirs);

/* The exchanges of one path instance: each hand-off from one directory to
 * another, paired with the next hand-off back (legs, their processes and
 * directories from the builder `legs`). Returns the exchanges added. */
int latrec_offsets_add_path(latrec_offsets *o, const latrec_legs *legs, const latrec_path_instance *pi);

/* The estimate of directory b's clock minus directory a's (any order;
 * a != b): as latrec_offset_result(). */
int latrec_offsets_get(const latrec_offsets *o, int a, int b, int64_t *offset, int64_t *bound, int *consistent,
                       uint64_t *n);

#endif
