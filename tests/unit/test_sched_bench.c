/* sched_model: cost of building the model and of a split query, on a
 * synthetic stream of 16 busy threads (about 400,000 timeline intervals).
 * Prints ns/record and ns/query (figures only: no time is asserted; it
 * runs with the unit tests, under sanitizers too, in about a second) and
 * checks that the sums-only splits give the split's figures. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/sched_catalog.h"
#include "analyze/sched_model.h"

#define RNG_SEED 42
#include "rng.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static latrec_rec R(uint64_t t, unsigned cpu, unsigned kind, uint64_t seq, uint64_t aux, uint64_t aux2)
{
    latrec_rec r = { (seq & LATREC_SEQ_MASK) | ((uint64_t)cpu << 48) | ((uint64_t)kind << 56), t, aux, aux2 };
    return r;
}

static int rec_order(const void *pa, const void *pb)
{
    const latrec_rec *a = pa, *b = pb;
    if (a->t_ns != b->t_ns) return a->t_ns < b->t_ns ? -1 : 1;
    unsigned ca = latrec_rec_cpu(a->sc), cb = latrec_rec_cpu(b->sc);
    if (ca != cb) return ca < cb ? -1 : 1;
    unsigned ka = latrec_rec_stage(a->sc), kb = latrec_rec_stage(b->sc);
    return (ka > kb) - (ka < kb);
}

enum { THREADS = 16, SPAN_NS = 500000000 };

typedef struct { uint64_t t_sum, n; } acc;

static int count_wait(void *ctx, const latrec_sched_wait *w)
{
    acc *a = ctx;
    a->t_sum += w->wait_ns;
    a->n++;
    return 0;
}

/* The stream: THREADS threads, each on its own CPU, until SPAN_NS; the
 * records in v (room for cap), sorted as a file holds them. Returns how many. */
static size_t gen_stream(latrec_rec *v, size_t cap)
{
    size_t n = 0;
    /* each thread on its own CPU: run 1-50 us, then preempted (30 %) and
     * waiting 1-20 us behind a kworker, or blocked 5-200 us, woken and
     * waiting 1-20 us behind whatever ran */
    for (uint32_t th = 0; th < THREADS; th++) {
        uint32_t tid = 1000 + th;
        unsigned cpu = th;
        uint64_t t = 1000000 + rng() % 1000, prev = 0;
        while (t < SPAN_NS && n + 8 < cap) {
            v[n++] = R(t, cpu, LATREC_K_SWITCH_IN, tid, prev, 120);
            t += 1000 + rng() % 49000;
            if (rng() % 10 < 3) {
                v[n++] = R(t, cpu, LATREC_K_SWITCH_OUT_PREEMPTED, tid, 7000 + cpu, 120);
                t += 1000 + rng() % 19000;
                v[n++] = R(t, cpu, LATREC_K_SWITCH_IN, tid, 7000 + cpu, 120);
                t += 1000 + rng() % 49000;
            }
            v[n++] = R(t, cpu, LATREC_K_SWITCH_OUT_BLOCKED, tid, 0, 1);
            t += 5000 + rng() % 195000;
            v[n++] = R(t, (cpu + 1) % THREADS, LATREC_K_WAKEUP, tid, 1, cpu);
            uint64_t w = 1000 + rng() % 19000;
            v[n++] = R(t + w / 2, cpu, LATREC_K_OTHER_RUN, 8000 + cpu, 0, 1);
            prev = 8000 + cpu;
            t += w;
        }
    }
    qsort(v, n, sizeof *v, rec_order);
    return n;
}

/* The model of v, built and timed. */
static latrec_sched_model *build_timed(const latrec_rec *v, size_t n)
{
    latrec_sched_model *m = latrec_sched_model_new();
    assert_non_null(m);
    uint64_t t0 = now_ns();
    for (size_t i = 0; i < n; i++) assert_int_equal(latrec_sched_feed(m, &v[i]), 0);
    assert_int_equal(latrec_sched_finish(m), 0);
    uint64_t t1 = now_ns();
    const latrec_sched_counts *c = latrec_sched_counters(m);
    printf("# sched_model: %zu records, %llu intervals, %llu occupancy, build %.1f ns/record\n", n,
           (unsigned long long)c->intervals, (unsigned long long)c->occupancy, (double)(t1 - t0) / (double)n);
    assert_int_equal(c->inconsistent, 0);
    return m;
}

enum { Q = 200000 };

/* Q splits of windows up to `window` ns on random threads, at random times
 * or in time order (ordered: as a report asks them, and then the sums with
 * a hint per thread as well, which must give the same figures), timed. */
static void time_splits(const latrec_sched_model *m, uint64_t window, int ordered)
{
    uint32_t *qt = malloc(Q * sizeof *qt);
    uint64_t *qa = malloc(Q * sizeof *qa), *qb = malloc(Q * sizeof *qb);
    assert_non_null(qt);
    assert_non_null(qa);
    assert_non_null(qb);
    for (int q = 0; q < Q; q++) {
        qt[q] = 1000 + (uint32_t)(rng() % THREADS);
        qa[q] = 1000000 + rng() % (SPAN_NS - 1000000);
        qb[q] = qa[q] + rng() % window;
    }
    if (ordered) { /* t_a rises; windows keep their lengths */
        uint64_t step = (SPAN_NS - 1000000) / Q;
        for (int q = 0; q < Q; q++) {
            uint64_t len = qb[q] - qa[q];
            qa[q] = 1000000 + (uint64_t)q * step;
            qb[q] = qa[q] + len;
        }
    }
    uint64_t sink = 0, with_wait = 0, sink2_ref = 0;
    latrec_sched_breakdown o;
    uint64_t s0 = now_ns();
    for (int q = 0; q < Q; q++) {
        latrec_sched_split(m, qt[q], qa[q], qb[q], &o);
        sink += o.on_cpu_ns + o.unknown_ns + (uint64_t)o.n_others;
        sink2_ref += o.on_cpu_ns + o.unknown_ns;
        with_wait += o.runnable_ns != 0;
    }
    uint64_t s1 = now_ns();
    double per = (double)(s1 - s0) / Q;
    printf("# split, %s, windows up to %llu us: %.1f ns/query (%.0f %% with a runqueue wait, sink %llu)\n",
           ordered ? "time order" : "random times", (unsigned long long)(window / 1000), per,
           100.0 * (double)with_wait / Q, (unsigned long long)(sink & 0xff));
    if (ordered) { /* as a report sums a hop: no "ran instead", one hint per thread */
        latrec_sched_hint h[THREADS];
        memset(h, 0, sizeof h);
        uint64_t sink2 = 0;
        s0 = now_ns();
        for (int q = 0; q < Q; q++) {
            latrec_sched_split_sums(m, &h[qt[q] - 1000], qt[q], qa[q], qb[q], &o);
            sink2 += o.on_cpu_ns + o.unknown_ns;
        }
        s1 = now_ns();
        assert_int_equal(sink2, sink2_ref); /* the same figures */
        printf("#   sums with a hint per thread: %.1f ns/query (%.2f of the split's, same run)\n",
               (double)(s1 - s0) / Q, (double)(s1 - s0) / Q / per);
    }
    free(qt);
    free(qa);
    free(qb);
}

static void test_split_cost(void **state)
{
    (void)state;
    size_t cap = 1 << 21;
    latrec_rec *v = malloc(cap * sizeof *v);
    assert_non_null(v);
    size_t n = gen_stream(v, cap);
    latrec_sched_model *m = build_timed(v, n);

    static const uint64_t windows[3] = { 20000, 200000, 2000000 };
    for (int wi = 0; wi < 6; wi++) time_splits(m, windows[wi % 3], wi >= 3);
    acc a = { 0, 0 };
    latrec_sched_foreach_wait(m, count_wait, &a);
    assert_true(a.n > 10000);
    printf("# runqlat: %llu waits, mean %.1f us\n", (unsigned long long)a.n, (double)a.t_sum / (double)a.n / 1000.0);
    latrec_sched_model_free(m);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
