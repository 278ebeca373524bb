/* Host clock offsets from request/response exchanges (NTP's estimate). */
#include "analyze/clock_offset.h"

#include <string.h>

void latrec_offset_init(latrec_offset_est *e)
{
    memset(e, 0, sizeof(*e));
    e->lo = INT64_MIN;
    e->hi = INT64_MAX;
}

/* One exchange as its interval [lo, hi] for theta. */
static void add_interval(latrec_offset_est *e, int64_t lo, int64_t hi)
{
    const int64_t rtt = hi - lo; /* 2 x NTP's bound: the round trip minus the remote time */
    if (rtt < 0) {
        e->negative_rtt++;
        return;
    }
    const int64_t theta = (int64_t)(((__int128)lo + hi) / 2); /* toward zero, as in the result */
    if (e->n == 0 || rtt < e->best_rtt) {
        e->best_rtt = rtt;
        e->best_theta = theta;
    }
    if (lo > e->lo) e->lo = lo;
    if (hi < e->hi) e->hi = hi;
    e->n++;
}

/* Signed a - b of two stamps (their distance is far below 2^63). */
static int64_t diff(uint64_t a, uint64_t b)
{
    return a >= b ? (int64_t)(a - b) : -(int64_t)(b - a);
}

void latrec_offset_add(latrec_offset_est *e, uint64_t t1, uint64_t t2, uint64_t t3, uint64_t t4)
{
    add_interval(e, diff(t3, t4), diff(t2, t1));
}

int latrec_offset_result(const latrec_offset_est *e, int64_t *offset, int64_t *bound, int *consistent)
{
    if (e->n == 0) return 0;
    if (e->lo <= e->hi) {
        /* the midpoint rounded toward zero (so the other order of the two
         * hosts gives exactly the negated offset), the half width up */
        *offset = (int64_t)(((__int128)e->lo + e->hi) / 2);
        *bound = e->hi - *offset > *offset - e->lo ? e->hi - *offset : *offset - e->lo;
        *consistent = 1;
    } else {
        *offset = e->best_theta;
        *bound = e->best_rtt - e->best_rtt / 2; /* half the round trip, rounded up */
        *consistent = 0;
    }
    return 1;
}

void latrec_offsets_init(latrec_offsets *o, int n_dirs)
{
    o->n_dirs = n_dirs < LATREC_OFFSETS_MAX_DIRS ? n_dirs : LATREC_OFFSETS_MAX_DIRS;
    for (int a = 0; a < LATREC_OFFSETS_MAX_DIRS; a++)
        for (int b = 0; b < LATREC_OFFSETS_MAX_DIRS; b++) latrec_offset_init(&o->pair[a][b]);
}

static int dir_of(const latrec_legs *legs, const latrec_instance *inst)
{
    return latrec_legs_process(legs, inst->process)->dir;
}

/* The stamps of the crossing from path leg i to leg i + 1: 1 with *from
 * (the first chain stage of leg i: stamped before the message leaves; its
 * last stage may not be - SEND_DONE is stamped when send() returns, and the
 * message may be there by then) and *to (the first chain stage of leg i +
 * 1: stamped after it arrived); 0 when either is absent. */
static int handoff(const latrec_legs *legs, const latrec_path_instance *pi, int i, uint64_t *from, uint64_t *to)
{
    const latrec_instance *a = pi->legs[i], *b = pi->legs[i + 1];
    if (!a || !b) return 0;
    if (latrec_legs_leg(legs, a->leg)->n_chain < 1 || latrec_legs_leg(legs, b->leg)->n_chain < 1) return 0;
    *from = a->hits[0].t_ns;
    *to = b->hits[0].t_ns;
    return *from && *to;
}

int latrec_offsets_add_path(latrec_offsets *o, const latrec_legs *legs, const latrec_path_instance *pi)
{
    int added = 0;
    for (int i = 0; i + 1 < pi->n_legs; i++) {
        uint64_t t1, t2;
        if (!handoff(legs, pi, i, &t1, &t2)) continue;
        const int a = dir_of(legs, pi->legs[i]), b = dir_of(legs, pi->legs[i + 1]);
        if (a == b || a >= o->n_dirs || b >= o->n_dirs) continue;
        for (int j = i + 1; j + 1 < pi->n_legs; j++) { /* the next hand-off back from b to a */
            uint64_t t3, t4;
            if (!handoff(legs, pi, j, &t3, &t4) || dir_of(legs, pi->legs[j]) != b || dir_of(legs, pi->legs[j + 1]) != a)
                continue;
            /* theta = b - a lies in [t3 - t4, t2 - t1]; the pair keeps the
             * higher directory's clock minus the lower's */
            const int64_t lo = diff(t3, t4), hi = diff(t2, t1);
            if (a < b) add_interval(&o->pair[a][b], lo, hi);
            else add_interval(&o->pair[b][a], -hi, -lo);
            added++;
            i = j; /* the next exchange starts after this one */
            break;
        }
    }
    return added;
}

int latrec_offsets_get(const latrec_offsets *o, int a, int b, int64_t *offset, int64_t *bound, int *consistent,
                       uint64_t *n)
{
    if (a == b || a < 0 || b < 0 || a >= o->n_dirs || b >= o->n_dirs) return 0;
    const latrec_offset_est *e = a < b ? &o->pair[a][b] : &o->pair[b][a];
    *n = e->n;
    if (!latrec_offset_result(e, offset, bound, consistent)) return 0;
    if (a > b) *offset = -*offset;
    return 1;
}
