/*
 * wallclock.c - per-ring CLOCK_MONOTONIC -> CLOCK_REALTIME map (wallclock.h).
 */
#include "read/wallclock.h"

#include <stdio.h>
#include <string.h>

int latrec_wallmap_from_pairs(latrec_wallmap *m, uint64_t t0_mono_ns,
                              uint64_t t0_real_ns, uint64_t t1_mono_ns,
                              uint64_t t1_real_ns, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (t0_real_ns == 0) {
        if (err && errlen)
            snprintf(err, errlen, "no t0_real_ns: cannot map to wall clock");
        return -1;
    }
    m->t0_mono_ns = t0_mono_ns;
    m->t0_real_ns = t0_real_ns;
    if (t1_mono_ns > t0_mono_ns && t1_real_ns > t0_real_ns) {
        m->t1_mono_ns = t1_mono_ns;
        m->t1_real_ns = t1_real_ns;
        m->two_point = 1;
    }
    return 0;
}

int latrec_wallmap_init(latrec_wallmap *m, const latrec_ring *r, char *err,
                        size_t errlen)
{
    return latrec_wallmap_from_pairs(m, r->t0_mono_ns, r->t0_real_ns,
                                     r->t1_mono_ns, r->t1_real_ns, err, errlen);
}
