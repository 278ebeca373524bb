/*
 * read/timebase.h - a TSC ring's stamps as CLOCK_MONOTONIC nanoseconds.
 *
 * A TSC ring (magic "ALRT", timebase 1; latrec-format(5)) stores raw TSC
 * counts in t_ns and carries (TSC, CLOCK_MONOTONIC) calibration pairs in its
 * header: two at open (>= 2 ms apart), one per heartbeat, one at close or at
 * the exit flush. The map built here turns a count into monotonic ns:
 *
 *   pairs     the header's nonempty pairs (mono_ns != 0) sorted by tsc; a
 *             pair that is not strictly later than the one kept before it in
 *             both tsc and mono_ns is dropped (counted in `dropped`).
 *   between   pairs a <= tsc < b:  m_a + floor((tsc - t_a) (m_b - m_a) / (t_b - t_a))
 *   after     the last pair z:     m_z + floor((tsc - t_z) * DM / DT)
 *   before    the first pair a:    m_a - ceil((t_a - tsc) * DM / DT), at least 1
 *             with DM/DT the first-to-last rate (the longest baseline).
 * Exact unsigned 128-bit integer arithmetic: a pair converts to its own
 * mono_ns exactly, conversion never decreases as tsc grows, and past the
 * last pair tsc = t_z + k*DT gives exactly m_z + k*DM (no rounding drift,
 * however far). A result past 2^64 - 1 saturates there; 0 never results.
 *
 * Error: each pair is the clock read between two TSC reads, tsc their
 * midpoint, the tightest of seven tries (about +-10 ns on a vDSO clock).
 * Between pairs the error is that plus the clock's own rate change (NTP
 * slewing) over the pair interval; past the last pair, the rate error of
 * the first-to-last baseline times the distance (2 ms of open baseline: up
 * to ~10 ppm; after one heartbeat a minute in, under 1 ppm).
 */
#ifndef LATREC_READ_TIMEBASE_H
#define LATREC_READ_TIMEBASE_H

#include <stdint.h>

#include "latrec/format.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct latrec_tsc_map {
    uint32_t n;       /* usable pairs in p[], sorted, strictly increasing */
    uint32_t dropped; /* nonempty pairs left out (out of order) */
    latrec_cal p[LATREC_CAL_SLOTS];
} latrec_tsc_map;

/* Build the map from `slots` raw header pairs (at most LATREC_CAL_SLOTS are
 * looked at). 0 when at least two pairs are usable, else -1 (m->n says how
 * many were). */
int latrec_tsc_map_build(latrec_tsc_map *m, const latrec_cal *raw, unsigned slots);

/* floor (or ceil) of x * num / den, saturated to 2^64 - 1; den > 0. */
static inline uint64_t latrec_muldiv_(uint64_t x, uint64_t num, uint64_t den, int round_up)
{
    const unsigned __int128 p = (unsigned __int128)x * num;
    unsigned __int128 q = p / den;
    if (round_up && q * den != p) q++;
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* CLOCK_MONOTONIC ns of a TSC count, by the rules above (m->n >= 2).
 * Inline, as ring.h's iteration is. */
static inline uint64_t latrec_tsc_to_mono(const latrec_tsc_map *m, uint64_t tsc)
{
    const latrec_cal *p = m->p;
    const unsigned n = m->n;
    const uint64_t dt = p[n - 1].tsc - p[0].tsc, dm = p[n - 1].mono_ns - p[0].mono_ns;
    uint64_t out;
    if (tsc >= p[n - 1].tsc) {
        const uint64_t d = latrec_muldiv_(tsc - p[n - 1].tsc, dm, dt, 0);
        out = d > UINT64_MAX - p[n - 1].mono_ns ? UINT64_MAX : p[n - 1].mono_ns + d;
    } else if (tsc < p[0].tsc) {
        const uint64_t d = latrec_muldiv_(p[0].tsc - tsc, dm, dt, 1);
        out = d >= p[0].mono_ns ? 1 : p[0].mono_ns - d;
    } else {
        unsigned lo = 0, hi = n - 1; /* p[lo].tsc <= tsc < p[hi].tsc */
        while (hi - lo > 1) {
            const unsigned mid = lo + (hi - lo) / 2;
            if (p[mid].tsc <= tsc) lo = mid;
            else hi = mid;
        }
        out = p[lo].mono_ns + latrec_muldiv_(tsc - p[lo].tsc, p[hi].mono_ns - p[lo].mono_ns, p[hi].tsc - p[lo].tsc, 0);
    }
    return out ? out : 1;
}

#ifdef __cplusplus
}
#endif
#endif /* LATREC_READ_TIMEBASE_H */
