/*
 * sched_stream.h - what the scheduler model's tests share: kernel-catalog
 * records typed in by hand (R and the per-kind macros, COMM's packed
 * name), a model built from an array and finished, the checks every
 * split and interval must pass, the basic stream and a snapshot of a model.
 */
#ifndef TEST_SCHED_STREAM_H
#define TEST_SCHED_STREAM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "analyze/sched_catalog.h"
#include "analyze/sched_model.h"

/* ---- building streams ------------------------------------------------- */

static inline latrec_rec R(uint64_t t, unsigned cpu, unsigned kind, uint64_t seq, uint64_t aux, uint64_t aux2)
{
    latrec_rec r;
    r.sc = (seq & LATREC_SEQ_MASK) | ((uint64_t)cpu << 48) | ((uint64_t)kind << 56);
    r.t_ns = t;
    r.aux = aux;
    r.aux2 = aux2;
    return r;
}

/* COMM record: name packed little-endian into aux (bytes 0..7), aux2 (8..15) */
static inline latrec_rec COMM(uint64_t t, unsigned cpu, uint32_t tid, const char *name)
{
    unsigned char b[16] = { 0 };
    size_t n = strlen(name);
    memcpy(b, name, n > 15 ? 15 : n);
    uint64_t a = 0, a2 = 0;
    for (int i = 7; i >= 0; i--) {
        a = (a << 8) | b[i];
        a2 = (a2 << 8) | b[8 + i];
    }
    return R(t, cpu, LATREC_K_COMM, tid, a, a2);
}

#define SIN(t, c, tid, prev)   R(t, c, LATREC_K_SWITCH_IN, tid, prev, 120)
#define SPRE(t, c, tid, next)  R(t, c, LATREC_K_SWITCH_OUT_PREEMPTED, tid, next, 120)
#define SBLK(t, c, tid, next)  R(t, c, LATREC_K_SWITCH_OUT_BLOCKED, tid, next, 1)
#define WAKE(t, c, tid, tc)    R(t, c, LATREC_K_WAKEUP, tid, 9, tc)
#define WNEW(t, c, tid, tc)    R(t, c, LATREC_K_WAKEUP_NEW, tid, 9, tc)
#define MIG(t, c, tid, o, d)   R(t, c, LATREC_K_MIGRATE, tid, o, d)
#define FORK(t, c, tid, par, tgid) R(t, c, LATREC_K_FORK, tid, par, tgid)
#define EXEC(t, c, tid, old, tgid) R(t, c, LATREC_K_EXEC, tid, old, tgid)
#define EXIT(t, c, tid, tgid)  R(t, c, LATREC_K_EXIT, tid, tgid, 0)
#define OTHER(t, c, tid, prev) R(t, c, LATREC_K_OTHER_RUN, tid, prev, 77)

static inline latrec_sched_model *build(const latrec_rec *v, size_t n)
{
    latrec_sched_model *m = latrec_sched_model_new();
    assert_non_null(m);
    for (size_t i = 0; i < n; i++) assert_int_equal(latrec_sched_feed(m, &v[i]), 0);
    assert_int_equal(latrec_sched_finish(m), 0);
    return m;
}

#define BUILD(arr) build(arr, sizeof(arr) / sizeof(arr[0]))

static inline void split_ok(const latrec_sched_model *m, uint32_t tid, uint64_t a, uint64_t b,
                            latrec_sched_breakdown *o)
{
    assert_int_equal(latrec_sched_split(m, tid, a, b, o), 0);
    assert_int_equal(o->on_cpu_ns + o->runnable_ns + o->blocked_ns + o->unknown_ns, b - a);
}

static inline void expect_iv(const latrec_sched_interval *iv, uint64_t s, uint64_t e, unsigned state, unsigned cpu,
                      unsigned cause)
{
    assert_int_equal(iv->start_ns, s);
    assert_int_equal(iv->end_ns, e);
    assert_int_equal(iv->state, state);
    assert_int_equal(iv->cpu, cpu);
    assert_int_equal(iv->cause, cause);
}

static inline unsigned state_at(const latrec_sched_model *m, uint32_t tid, uint64_t t, unsigned *cpu)
{
    return (unsigned)latrec_sched_state_at(m, tid, t, cpu);
}

/* ---- the basic stream: one thread preempted, woken spuriously, blocked -- */

/* COMM of 200, then 100 runs on CPU 1 from 1000 to 9000 ns: preempted by
 * 200 at 2000, two spurious wakeups, blocked 5000 to 7000. */
#define BASIC_N 10
static inline void basic_stream(latrec_rec *out)
{
    const latrec_rec v[BASIC_N] = {
        COMM(500, 1, 200, "kworker/1:2"),
        SIN(1000, 1, 100, 0),
        SPRE(2000, 1, 100, 200),    /* preempted by 200 */
        WAKE(2500, 0, 100, 1),      /* spurious: runnable */
        SIN(3000, 1, 100, 200),
        WAKE(4000, 0, 100, 1),      /* spurious: running */
        SBLK(5000, 1, 100, 0),      /* blocked, CPU goes idle */
        WAKE(7000, 0, 100, 1),
        SIN(7500, 1, 100, 0),
        SBLK(9000, 1, 100, 0),
    };
    memcpy(out, v, sizeof v);
}

static inline latrec_sched_model *build_basic(void)
{
    latrec_rec v[BASIC_N];
    basic_stream(v);
    return build(v, BASIC_N);
}

/* ---- a snapshot: one tid's intervals, the counters, the first waits ---- */

typedef struct snap {
    size_t n;
    latrec_sched_interval iv[32];
    latrec_sched_counts c;
    size_t n_w;
    latrec_sched_wait w[8];
} snap;

static inline int collect_wait(void *ctx, const latrec_sched_wait *w)
{
    snap *s = ctx;
    if (s->n_w < 8) s->w[s->n_w] = *w;
    s->n_w++;
    return 0;
}

static inline void take(const latrec_sched_model *m, uint32_t tid, uint64_t t, snap *s)
{
    memset(s, 0, sizeof *s);
    const latrec_sched_interval *iv = latrec_sched_intervals(m, tid, t, &s->n, NULL);
    assert_true(s->n <= 32);
    if (s->n) memcpy(s->iv, iv, s->n * sizeof *iv);
    s->c = *latrec_sched_counters(m);
    latrec_sched_foreach_wait(m, collect_wait, s);
}

enum { RUN = LATREC_SCHED_RUNNING, RQ = LATREC_SCHED_RUNNABLE, BLK = LATREC_SCHED_BLOCKED, UNK = LATREC_SCHED_UNKNOWN };

#endif
