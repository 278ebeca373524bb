/*
 * read/wallclock.h - map one ring's CLOCK_MONOTONIC stamps to CLOCK_REALTIME.
 *
 * Per ring, from the header's clock pairs, integer arithmetic only (a
 * wall-clock ns is about 1.8e18; a double resolves it to about 256 ns):
 *   two-point, when the t1 pair is usable (t1_mono > t0_mono and
 *   t1_real > t0_real):
 *     real = t0_real + floor((mono - t0_mono) * (t1_real - t0_real)
 *                            / (t1_mono - t0_mono))
 *   constant offset otherwise (v1 rings, a ring never flushed):
 *     real = t0_real + (mono - t0_mono)
 * mono before t0_mono is a negative offset and maps below t0_real (floor, so
 * the map never decreases). The product is formed on a 128-bit magnitude
 * (< 2^128), so it cannot overflow; results outside 0..UINT64_MAX saturate.
 */
#ifndef LATREC_READ_WALLCLOCK_H
#define LATREC_READ_WALLCLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "read/ring.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct latrec_wallmap {
    uint64_t t0_mono_ns, t0_real_ns; /* anchor pair */
    uint64_t t1_mono_ns, t1_real_ns; /* second pair (used when two_point) */
    int      two_point;              /* 1: slope from the two pairs; 0: offset */
} latrec_wallmap;

/* Build the map from explicit clock pairs (ns). Returns 0, or -1 with
 * "no t0_real_ns: cannot map to wall clock" in err (err may be NULL) when
 * t0_real_ns is 0. A t1 pair that is not usable (see above) silently gives
 * a constant-offset map. */
int latrec_wallmap_from_pairs(latrec_wallmap *m, uint64_t t0_mono_ns,
                              uint64_t t0_real_ns, uint64_t t1_mono_ns,
                              uint64_t t1_real_ns, char *err, size_t errlen);

/* Build the map for ring `r` from its header pairs (v1 rings have no t1
 * pair: constant offset). Same returns and error text as
 * latrec_wallmap_from_pairs(); the text carries no path. */
int latrec_wallmap_init(latrec_wallmap *m, const latrec_ring *r, char *err,
                        size_t errlen);

/* CLOCK_REALTIME ns for the CLOCK_MONOTONIC ns `mono`, saturating at 0 and
 * UINT64_MAX. */
static inline uint64_t latrec_wallmap_apply(const latrec_wallmap *m, uint64_t mono)
{
    __int128 d = (__int128)mono - (__int128)m->t0_mono_ns; /* |d| < 2^64 */
    __int128 off; /* signed offset from t0_real, clamped to +-2^65 */
    if (!m->two_point) {
        off = d;
    } else {
        unsigned __int128 mag = (unsigned __int128)(d < 0 ? -d : d);
        unsigned __int128 num = m->t1_real_ns - m->t0_real_ns;
        unsigned __int128 den = m->t1_mono_ns - m->t0_mono_ns;
        unsigned __int128 prod = mag * num; /* < 2^128 */
        unsigned __int128 q = prod / den;
        if (d < 0 && q * den != prod)
            q++; /* floor of a negative quotient */
        if (q > ((unsigned __int128)1 << 65))
            q = (unsigned __int128)1 << 65; /* saturates below anyway */
        off = d < 0 ? -(__int128)q : (__int128)q;
    }
    __int128 v = (__int128)m->t0_real_ns + off;
    if (v < 0)
        return 0;
    if (v > (__int128)UINT64_MAX)
        return UINT64_MAX;
    return (uint64_t)v;
}

#ifdef __cplusplus
}
#endif
#endif /* LATREC_READ_WALLCLOCK_H */
