/*
 * engine/pass_stamps.h - the first-stage stamps of a pass by process
 * (pass_split.c): logged per process in time order, handed to the sinks
 * merged in time order at the end (pass_stamps.c).
 */
#ifndef LATREC_ENGINE_PASS_STAMPS_H
#define LATREC_ENGINE_PASS_STAMPS_H

#include "engine/pass_impl.h"

/* Where a log's reading stands after some of its stamps: the offset of the
 * next one's bytes and the last one read. */
struct stamp_mark {
    size_t off;
    uint64_t t;
};

/* One process's first-stage stamps of (c0, leg): c0 the component of the
 * ring that stamped them. In time order, each the varint of its distance
 * from the one before (7 bits a byte), with a mark every
 * STAMP_MARK_EVERY stamps (marks[k]: after k of them) to find a time in it
 * without reading it from its start. */
struct stamp_log {
    int c0, leg;
    uint32_t proc;
    int dest;          /* the component of the process's first ended instance of (c0, leg); -1: none */
    uint64_t n;        /* stamps */
    uint64_t settle_t; /* the newest record fed when dest was known */
    uint64_t last;     /* the last stamp */
    uint8_t *buf;
    size_t len, cap;
    struct stamp_mark *marks;
    size_t n_marks, cap_marks;
};

#define STAMP_MARK_EVERY 256u

/* Room for a stamp in g, and its mark when one is due: 0, or -1 out of
 * memory. */
int latrec_stamp_log_grow(struct stamp_log *g);

/* Log t_ns, no earlier than the last stamp: 0, or -1 out of memory. */
static inline int latrec_stamp_log_put(struct stamp_log *g, uint64_t t_ns)
{
    if (__builtin_expect(g->n % STAMP_MARK_EVERY == 0 || g->len + 10 > g->cap, 0) && latrec_stamp_log_grow(g) < 0)
        return -1;
    uint64_t d = t_ns - g->last; /* stamps in order: the lane stops at one that is not */
    while (d >= 0x80) {
        g->buf[g->len++] = (uint8_t)(d | 0x80);
        d >>= 7;
    }
    g->buf[g->len++] = (uint8_t)d;
    g->last = t_ns;
    g->n++;
    return 0;
}
void latrec_stamp_log_free(struct stamp_log *g);

/* The stamps of g at or before t_ns. */
uint64_t latrec_stamp_log_upto(const struct stamp_log *g, uint64_t t_ns);

/* The stamps of logs[0..n) (each in time order) to t's first_stage sink
 * merged in time order; with two_threads and the sinks' first_stage_part
 * (engine/pass.h), the later part of them on a second thread meanwhile.
 * 0, or -1 out of memory. */
int latrec_stamps_replay(latrec_pass *p, latrec_leg_table *t, const struct stamp_log *const *logs, size_t n,
                         int two_threads);

#endif
