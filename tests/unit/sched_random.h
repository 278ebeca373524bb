/*
 * sched_random.h - random kernel-catalog streams for the scheduler model's
 * tests (test_sched_random, test_sched_pass): mostly plausible, with every
 * kind, lost events and ties, over RTIDS target threads and RCPUS CPUs.
 */
#ifndef TEST_SCHED_RANDOM_H
#define TEST_SCHED_RANDOM_H

#include "sched_stream.h"

#include "rng.h"

enum { RTIDS = 6, RCPUS = 4 };

/* A stream that is mostly plausible, with every kind, lost events, ties. */
static inline size_t random_stream(latrec_rec *v, size_t n)
{
    uint64_t t = 1000;
    for (size_t i = 0; i < n; i++) {
        uint64_t step = rng() % 4;
        t += step == 0 ? 0 : rng() % 2000; /* a quarter of records tie */
        unsigned cpu = (unsigned)(rng() % RCPUS);
        uint32_t tid = 100 + (uint32_t)(rng() % RTIDS);
        uint64_t other = rng() % 3 ? 500 + rng() % 5 : 100 + rng() % RTIDS;
        unsigned k = 1 + (unsigned)(rng() % 11);
        switch (k) {
        case LATREC_K_WAKEUP:
        case LATREC_K_WAKEUP_NEW: v[i] = R(t, cpu, k, tid, other, rng() % RCPUS); break;
        case LATREC_K_MIGRATE: v[i] = R(t, cpu, k, tid, rng() % RCPUS, rng() % RCPUS); break;
        case LATREC_K_COMM: v[i] = COMM(t, cpu, (uint32_t)(rng() % 2 ? tid : other), rng() % 2 ? "a" : "bb"); break;
        case LATREC_K_OTHER_RUN: v[i] = R(t, cpu, k, 500 + rng() % 5, other, 1); break;
        case LATREC_K_FORK:
        case LATREC_K_EXIT:
            if (rng() % 4) { /* keep lifecycle events rarer */
                v[i] = R(t, cpu, LATREC_K_SWITCH_IN, tid, other, 0);
                break;
            }
            v[i] = R(t, cpu, k, tid, 1, 1);
            break;
        case LATREC_K_EXEC: v[i] = R(t, cpu, k, tid, rng() % 2 ? tid : 100 + rng() % RTIDS, 1); break;
        default: v[i] = R(t, cpu, k, tid, other, 1); break;
        }
    }
    return n;
}

#endif
