/* rng.h - splitmix64, the unit tests' random numbers: the same stream for
 * the same seed on every machine, so a failure can be replayed. rng_state
 * starts at RNG_SEED (0 unless the test defines it before the include);
 * a test may set it again. */
#ifndef LATREC_TEST_RNG_H
#define LATREC_TEST_RNG_H

#include <stdint.h>

#ifndef RNG_SEED
#define RNG_SEED 0
#endif

static uint64_t rng_state = RNG_SEED;

static inline uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
