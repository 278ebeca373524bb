/* sched_model: timelines from hand-written kernel-catalog sequences with
 * exact expected values, equal-time replay, tid reuse, "ran instead",
 * runqlat samples, the loader, and the sum invariant on random streams. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/sched_catalog.h"
#include "analyze/sched_model.h"

/* ---- building streams ------------------------------------------------- */

static latrec_rec R(uint64_t t, unsigned cpu, unsigned kind, uint64_t seq, uint64_t aux, uint64_t aux2)
{
    latrec_rec r;
    r.sc = (seq & LATREC_SEQ_MASK) | ((uint64_t)cpu << 48) | ((uint64_t)kind << 56);
    r.t_ns = t;
    r.aux = aux;
    r.aux2 = aux2;
    return r;
}

/* COMM record: name packed little-endian into aux (bytes 0..7), aux2 (8..15) */
static latrec_rec COMM(uint64_t t, unsigned cpu, uint32_t tid, const char *name)
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

static latrec_sched_model *build(const latrec_rec *v, size_t n)
{
    latrec_sched_model *m = latrec_sched_model_new();
    assert_non_null(m);
    for (size_t i = 0; i < n; i++) assert_int_equal(latrec_sched_feed(m, &v[i]), 0);
    assert_int_equal(latrec_sched_finish(m), 0);
    return m;
}

#define BUILD(arr) build(arr, sizeof(arr) / sizeof(arr[0]))

static void split_ok(const latrec_sched_model *m, uint32_t tid, uint64_t a, uint64_t b, latrec_sched_breakdown *o)
{
    assert_int_equal(latrec_sched_split(m, tid, a, b, o), 0);
    assert_int_equal(o->on_cpu_ns + o->runnable_ns + o->blocked_ns + o->unknown_ns, b - a);
}

static void expect_iv(const latrec_sched_interval *iv, uint64_t s, uint64_t e, unsigned state, unsigned cpu,
                      unsigned cause)
{
    assert_int_equal(iv->start_ns, s);
    assert_int_equal(iv->end_ns, e);
    assert_int_equal(iv->state, state);
    assert_int_equal(iv->cpu, cpu);
    assert_int_equal(iv->cause, cause);
}

static unsigned state_at(const latrec_sched_model *m, uint32_t tid, uint64_t t, unsigned *cpu)
{
    return (unsigned)latrec_sched_state_at(m, tid, t, cpu);
}

enum { RUN = LATREC_SCHED_RUNNING, RQ = LATREC_SCHED_RUNNABLE, BLK = LATREC_SCHED_BLOCKED, UNK = LATREC_SCHED_UNKNOWN };

/* ---- preempted vs blocked vs spurious --------------------------------- */

#define BASIC_N 10
static void basic_stream(latrec_rec *out)
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

static latrec_sched_model *build_basic(void)
{
    latrec_rec v[BASIC_N];
    basic_stream(v);
    return build(v, BASIC_N);
}

static void test_preempted_blocked_spurious(void **state)
{
    (void)state;
    latrec_sched_model *m = build_basic();
    size_t n;
    uint32_t gen = 99;
    const latrec_sched_interval *iv = latrec_sched_intervals(m, 100, 3000, &n, &gen);
    assert_int_equal(gen, 0);
    assert_int_equal(n, 6);
    expect_iv(&iv[0], 1000, 2000, RUN, 1, LATREC_SCHED_C_SWITCH_IN);
    expect_iv(&iv[1], 2000, 3000, RQ, 1, LATREC_SCHED_C_PREEMPT);
    expect_iv(&iv[2], 3000, 5000, RUN, 1, LATREC_SCHED_C_SWITCH_IN);
    expect_iv(&iv[3], 5000, 7000, BLK, 1, LATREC_SCHED_C_BLOCK);
    expect_iv(&iv[4], 7000, 7500, RQ, 1, LATREC_SCHED_C_WAKEUP);
    expect_iv(&iv[5], 7500, 9000, RUN, 1, LATREC_SCHED_C_SWITCH_IN);
    assert_int_equal(iv[5].before_ns[0], 3000);
    assert_int_equal(iv[5].before_ns[1], 1500);
    assert_int_equal(iv[5].before_ns[2], 2000);

    unsigned cpu;
    assert_int_equal(state_at(m, 100, 999, &cpu), UNK);
    assert_int_equal(cpu, LATREC_SCHED_NO_CPU);
    assert_int_equal(state_at(m, 100, 1000, &cpu), RUN);
    assert_int_equal(cpu, 1);
    assert_int_equal(state_at(m, 100, 2999, NULL), RQ);
    assert_int_equal(state_at(m, 100, 6000, NULL), BLK);
    assert_int_equal(state_at(m, 100, 9000, NULL), UNK);

    const latrec_sched_counts *c = latrec_sched_counters(m);
    assert_int_equal(c->spurious_wakeups, 2);
    assert_int_equal(c->inconsistent, 0);
    assert_int_equal(c->threads, 1);
    assert_int_equal(c->records, 10);
    assert_int_equal(c->by_kind[LATREC_K_WAKEUP], 3);
    latrec_sched_model_free(m);
}

static void test_split_exact(void **state)
{
    (void)state;
    latrec_sched_model *m = build_basic();
    latrec_sched_breakdown o;
    split_ok(m, 100, 1500, 8000, &o);
    assert_int_equal(o.on_cpu_ns, 500 + 2000 + 500);
    assert_int_equal(o.runnable_ns, 1000 + 500);
    assert_int_equal(o.blocked_ns, 2000);
    assert_int_equal(o.unknown_ns, 0);
    assert_int_equal(o.preemptions, 1);
    assert_int_equal(o.migrations, 0);
    assert_int_equal(o.gen, 0);
    /* who ran instead: kworker 1000 ns while preempted, idle 500 ns after the wakeup */
    assert_int_equal(o.n_tasks, 2);
    assert_int_equal(o.n_others, 2);
    assert_int_equal(o.instead_ns, 1500);
    assert_int_equal(o.unattributed_ns, 0);
    assert_int_equal(o.others[0].tid, 200);
    assert_int_equal(o.others[0].ns, 1000);
    assert_int_equal(o.others[0].cpu, 1);
    assert_int_equal(o.others[0].target, 0);
    assert_string_equal(o.others[0].comm, "kworker/1:2");
    assert_int_equal(o.others[1].tid, 0);
    assert_int_equal(o.others[1].ns, 500);
    assert_string_equal(o.others[1].comm, "swapper/1");

    split_ok(m, 100, 0, 500, &o); /* before the first event */
    assert_int_equal(o.unknown_ns, 500);
    split_ok(m, 100, 500, 1500, &o);
    assert_int_equal(o.unknown_ns, 500);
    assert_int_equal(o.on_cpu_ns, 500);
    split_ok(m, 100, 8500, 10000, &o); /* after the end */
    assert_int_equal(o.on_cpu_ns, 500);
    assert_int_equal(o.unknown_ns, 1000);
    split_ok(m, 100, 2000, 2000, &o); /* empty window */
    assert_int_equal(o.unknown_ns, 0);
    assert_int_equal(o.preemptions, 0);
    split_ok(m, 100, 2000, 2001, &o); /* the preemption at t_a is inside */
    assert_int_equal(o.preemptions, 1);
    assert_int_equal(o.runnable_ns, 1);
    split_ok(m, 100, 1000, 2000, &o); /* ... the one at t_b is not */
    assert_int_equal(o.preemptions, 0);
    assert_int_equal(o.on_cpu_ns, 1000);
    split_ok(m, 100, 4000, 6000, &o);
    assert_int_equal(o.on_cpu_ns, 1000);
    assert_int_equal(o.blocked_ns, 1000);
    assert_int_equal(o.n_others, 0);

    split_ok(m, 4242, 10, 20, &o); /* unknown tid */
    assert_int_equal(o.gen, -1);
    assert_int_equal(o.unknown_ns, 10);

    errno = 0;
    assert_int_equal(latrec_sched_split(m, 100, 20, 10, &o), -1);
    assert_int_equal(errno, EINVAL);
    latrec_sched_model_free(m);
}

/* ---- migration -------------------------------------------------------- */

static void test_migration_mid_hop(void **state)
{
    (void)state;
    const latrec_rec v[] = {
        SIN(1000, 0, 100, 0),
        SPRE(2000, 0, 100, 300),   /* 300 takes CPU 0 */
        MIG(2600, 2, 100, 0, 2),   /* load balancer pulls the waiting thread */
        SIN(3000, 2, 100, 400),    /* 400 had CPU 2 (its switch-in unrecorded) */
        SBLK(4000, 2, 100, 0),
        MIG(4500, 1, 100, 2, 1),   /* moved while blocked (wakeup placement) */
        WAKE(4500, 1, 100, 1),
        SIN(4700, 1, 100, 0),
        SBLK(5000, 1, 100, 0),
    };
    latrec_sched_model *m = BUILD(v);
    size_t n;
    const latrec_sched_interval *iv = latrec_sched_intervals(m, 100, 2000, &n, NULL);
    assert_int_equal(n, 7);
    expect_iv(&iv[1], 2000, 2600, RQ, 0, LATREC_SCHED_C_PREEMPT);
    expect_iv(&iv[2], 2600, 3000, RQ, 2, LATREC_SCHED_C_MIGRATE);
    expect_iv(&iv[3], 3000, 4000, RUN, 2, LATREC_SCHED_C_SWITCH_IN);
    expect_iv(&iv[4], 4000, 4500, BLK, 2, LATREC_SCHED_C_BLOCK); /* stays the CPU it blocked on */
    expect_iv(&iv[5], 4500, 4700, RQ, 1, LATREC_SCHED_C_WAKEUP);

    latrec_sched_breakdown o;
    split_ok(m, 100, 1500, 3500, &o);
    assert_int_equal(o.on_cpu_ns, 500 + 500);
    assert_int_equal(o.runnable_ns, 1000);
    assert_int_equal(o.preemptions, 1);
    assert_int_equal(o.migrations, 1);
    /* 300 on CPU 0 while it waited there, 400 on CPU 2 after the move */
    assert_int_equal(o.n_others, 2);
    assert_int_equal(o.others[0].tid, 300);
    assert_int_equal(o.others[0].ns, 600);
    assert_int_equal(o.others[0].cpu, 0);
    assert_int_equal(o.others[1].tid, 400);
    assert_int_equal(o.others[1].ns, 400);
    assert_int_equal(o.others[1].cpu, 2);
    assert_int_equal(o.unattributed_ns, 0);

    split_ok(m, 100, 2600, 4500, &o); /* t_a <= t < t_b: 2600 in, 4500 out */
    assert_int_equal(o.migrations, 1);
    split_ok(m, 100, 2601, 4501, &o);
    assert_int_equal(o.migrations, 1);
    split_ok(m, 100, 2600, 4501, &o);
    assert_int_equal(o.migrations, 2);
    split_ok(m, 100, 3500, 5000, &o);
    assert_int_equal(o.migrations, 1); /* the blocked one at 4500 */
    assert_int_equal(o.blocked_ns, 500);
    assert_int_equal(o.runnable_ns, 200);
    assert_int_equal(o.on_cpu_ns, 500 + 300);

    const latrec_sched_counts *c = latrec_sched_counters(m);
    assert_int_equal(c->runnable_migrations, 1);
    assert_int_equal(c->implicit_migrations, 0);
    assert_int_equal(c->inconsistent, 0);
    latrec_sched_model_free(m);
}

/* ---- equal timestamps ------------------------------------------------- */

typedef struct snap {
    size_t n;
    latrec_sched_interval iv[32];
    latrec_sched_counts c;
    size_t n_w;
    latrec_sched_wait w[8];
} snap;

static int collect_wait(void *ctx, const latrec_sched_wait *w)
{
    snap *s = ctx;
    if (s->n_w < 8) s->w[s->n_w] = *w;
    s->n_w++;
    return 0;
}

static void take(const latrec_sched_model *m, uint32_t tid, uint64_t t, snap *s)
{
    memset(s, 0, sizeof *s);
    const latrec_sched_interval *iv = latrec_sched_intervals(m, tid, t, &s->n, NULL);
    assert_true(s->n <= 32);
    if (s->n) memcpy(s->iv, iv, s->n * sizeof *iv);
    s->c = *latrec_sched_counters(m);
    latrec_sched_foreach_wait(m, collect_wait, s);
}

static void test_equal_times(void **state)
{
    (void)state;
    /* 100 runs on CPU 1, is preempted there and switched in on CPU 0 at the
     * same ns. File order (t, cpu, kind) puts CPU 0's SWITCH_IN first. */
    latrec_rec v[] = {
        SIN(1000, 1, 100, 0),
        SIN(2000, 0, 100, 0),
        SPRE(2000, 1, 100, 300),
        MIG(2000, 1, 100, 1, 0),
        SBLK(3000, 0, 100, 0),
        SIN(4000, 0, 100, 0), /* wakeup and switch-in at one ns: 0 ns wait */
        WAKE(4000, 0, 100, 0),
        SBLK(5000, 0, 100, 0),
    };
    latrec_sched_model *m = build(v, 8);
    snap ref;
    take(m, 100, 1000, &ref);
    assert_int_equal(ref.n, 4);
    expect_iv(&ref.iv[0], 1000, 2000, RUN, 1, LATREC_SCHED_C_SWITCH_IN);
    expect_iv(&ref.iv[1], 2000, 3000, RUN, 0, LATREC_SCHED_C_SWITCH_IN);
    expect_iv(&ref.iv[2], 3000, 4000, BLK, 0, LATREC_SCHED_C_BLOCK);
    expect_iv(&ref.iv[3], 4000, 5000, RUN, 0, LATREC_SCHED_C_SWITCH_IN);
    assert_int_equal(ref.c.inconsistent, 0);
    assert_int_equal(ref.c.spurious_wakeups, 0);
    assert_int_equal(ref.c.implicit_migrations, 0);
    assert_int_equal(ref.n_w, 2);
    assert_int_equal(ref.w[0].wait_ns, 0);
    assert_int_equal(ref.w[0].cpu, 0);
    assert_int_equal(ref.w[0].cause, LATREC_SCHED_C_PREEMPT);
    assert_int_equal(ref.w[0].migrated, 1);
    assert_int_equal(ref.w[1].wait_ns, 0);
    assert_int_equal(ref.w[1].cause, LATREC_SCHED_C_WAKEUP);
    latrec_sched_breakdown o;
    split_ok(m, 100, 1500, 2500, &o);
    assert_int_equal(o.on_cpu_ns, 1000);
    assert_int_equal(o.preemptions, 1);
    assert_int_equal(o.migrations, 1);
    latrec_sched_model_free(m);

    /* every order of each equal-time group gives the same result */
    static const int perm3[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
    for (int p = 0; p < 6; p++) {
        for (int q = 0; q < 2; q++) {
            latrec_rec w[8];
            w[0] = v[0];
            for (int k = 0; k < 3; k++) w[1 + k] = v[1 + perm3[p][k]];
            w[4] = v[4];
            w[5] = v[5 + q];
            w[6] = v[6 - q];
            w[7] = v[7];
            m = build(w, 8);
            snap s;
            take(m, 100, 1000, &s);
            assert_memory_equal(&s, &ref, sizeof s);
            latrec_sched_model_free(m);
        }
    }

    /* a 0 ns run: switched in and preempted again at the same ns */
    const latrec_rec z[] = {
        SPRE(1000, 2, 100, 0),
        SIN(2000, 2, 100, 0),
        SPRE(2000, 2, 100, 0),
        SIN(2500, 2, 100, 0),
        SBLK(3000, 2, 100, 0),
    };
    m = BUILD(z);
    take(m, 100, 1000, &ref);
    assert_int_equal(ref.c.inconsistent, 0);
    assert_int_equal(ref.n, 3);
    expect_iv(&ref.iv[0], 1000, 2000, RQ, 2, LATREC_SCHED_C_PREEMPT);
    expect_iv(&ref.iv[1], 2000, 2500, RQ, 2, LATREC_SCHED_C_PREEMPT);
    expect_iv(&ref.iv[2], 2500, 3000, RUN, 2, LATREC_SCHED_C_SWITCH_IN);
    assert_int_equal(ref.n_w, 2);
    assert_int_equal(ref.w[0].wait_ns, 1000);
    assert_int_equal(ref.w[1].wait_ns, 500);
    latrec_sched_model_free(m);
}

/* ---- exit and tid reuse ----------------------------------------------- */

static void test_tid_reuse(void **state)
{
    (void)state;
    const latrec_rec v[] = {
        FORK(1000, 0, 100, 50, 50),
        COMM(1000, 0, 100, "worker"),
        WNEW(1100, 0, 100, 0),
        SIN(1200, 0, 100, 0),
        SBLK(2000, 0, 100, 0),
        WAKE(3000, 1, 100, 0),
        SIN(3100, 0, 100, 0),
        EXIT(4000, 0, 100, 50),
        SBLK(4100, 0, 100, 0), /* the final switch-out */
        FORK(5000, 1, 100, 50, 50),
        COMM(5000, 1, 100, "newbie"),
        WNEW(5200, 1, 100, 1),
        SIN(5300, 1, 100, 0),
        SPRE(6000, 1, 100, 0),
        SIN(6500, 1, 100, 0),
        COMM(7000, 3, 999, "other"),
    };
    latrec_sched_model *m = BUILD(v);
    latrec_sched_breakdown o;
    split_ok(m, 100, 1500, 6200, &o);
    assert_int_equal(o.gen, 1);
    assert_int_equal(o.on_cpu_ns, 700);
    assert_int_equal(o.runnable_ns, 100 + 200);
    assert_int_equal(o.blocked_ns, 0);
    assert_int_equal(o.unknown_ns, 4700 - 1000);
    assert_int_equal(o.preemptions, 1);

    split_ok(m, 100, 1500, 3500, &o); /* the old thread, asked within its life */
    assert_int_equal(o.gen, 0);
    assert_int_equal(o.on_cpu_ns, 500 + 400);
    assert_int_equal(o.blocked_ns, 1000);
    assert_int_equal(o.runnable_ns, 100);
    split_ok(m, 100, 3500, 4900, &o); /* after the exit: nothing */
    assert_int_equal(o.on_cpu_ns, 600);
    assert_int_equal(o.unknown_ns, 800);

    assert_string_equal(latrec_sched_comm(m, 100, 1500), "worker");
    assert_string_equal(latrec_sched_comm(m, 100, 4900), "worker");
    assert_string_equal(latrec_sched_comm(m, 100, 5500), "newbie");
    assert_int_equal(state_at(m, 100, 4500, NULL), UNK);
    assert_int_equal(state_at(m, 100, 5100, NULL), UNK); /* FORK to WAKEUP_NEW */
    assert_int_equal(state_at(m, 100, 5250, NULL), RQ);

    const latrec_sched_counts *c = latrec_sched_counters(m);
    assert_int_equal(c->threads, 2);
    assert_int_equal(c->tids, 1);
    assert_int_equal(c->reused_tids, 1);
    assert_int_equal(c->lost_exits, 0);
    assert_int_equal(c->inconsistent, 0);
    assert_int_equal(latrec_sched_n_threads(m), 2);
    latrec_sched_thread th;
    latrec_sched_thread_info(m, 0, &th);
    assert_int_equal(th.tid, 100);
    assert_int_equal(th.gen, 0);
    assert_int_equal(th.tgid, 50);
    assert_int_equal(th.exited, 1);
    assert_int_equal(th.first_ns, 1000);
    assert_int_equal(th.end_ns, 4100);
    assert_int_equal(th.on_cpu_ns, 800 + 1000);
    latrec_sched_thread_info(m, 1, &th);
    assert_int_equal(th.gen, 1);
    assert_int_equal(th.exited, 0);
    assert_int_equal(th.end_ns, 7000);
    assert_int_equal(th.on_cpu_ns, 700 + 500);
    latrec_sched_model_free(m);

    /* reused before the old thread's final switch-out: the switch-out on
     * CPU 0 still belongs to the old generation */
    const latrec_rec w[] = {
        SIN(1000, 0, 100, 0),
        EXIT(4000, 0, 100, 50),
        FORK(4050, 1, 100, 50, 50),
        WNEW(4060, 1, 100, 1),
        SBLK(4100, 0, 100, 0),
        SIN(4200, 1, 100, 0),
        SBLK(5000, 1, 100, 0),
    };
    m = BUILD(w);
    size_t n;
    uint32_t gen;
    const latrec_sched_interval *iv = latrec_sched_intervals(m, 100, 3000, &n, &gen);
    assert_int_equal(gen, 0);
    assert_int_equal(n, 1);
    expect_iv(&iv[0], 1000, 4100, RUN, 0, LATREC_SCHED_C_SWITCH_IN);
    iv = latrec_sched_intervals(m, 100, 4100, &n, &gen);
    assert_int_equal(gen, 1);
    assert_int_equal(n, 2);
    expect_iv(&iv[0], 4060, 4200, RQ, 1, LATREC_SCHED_C_WAKEUP_NEW);
    expect_iv(&iv[1], 4200, 5000, RUN, 1, LATREC_SCHED_C_SWITCH_IN);
    split_ok(m, 100, 3000, 4300, &o);
    assert_int_equal(o.gen, 1);
    assert_int_equal(o.on_cpu_ns, 100);
    assert_int_equal(o.runnable_ns, 140);
    assert_int_equal(o.unknown_ns, 1300 - 240);
    assert_int_equal(latrec_sched_counters(m)->inconsistent, 0);
    latrec_sched_model_free(m);

    /* FORK of a tid whose thread never reported EXIT */
    const latrec_rec x[] = {
        SIN(1000, 0, 100, 0),
        SBLK(2000, 0, 100, 0),
        FORK(3000, 1, 100, 50, 50),
        WNEW(3000, 1, 100, 1),
        SIN(3500, 1, 100, 0),
        SBLK(4000, 1, 100, 0),
    };
    m = BUILD(x);
    assert_int_equal(latrec_sched_counters(m)->lost_exits, 1);
    assert_int_equal(state_at(m, 100, 2500, NULL), UNK); /* when it died is not known */
    assert_int_equal(state_at(m, 100, 1500, NULL), RUN);
    assert_int_equal(state_at(m, 100, 3200, NULL), RQ);
    latrec_sched_model_free(m);

    /* EXIT and the final switch-out at one ns, in file order (switch-out
     * first: kind 0x02 < 0x09) */
    const latrec_rec y[] = {
        SIN(1000, 0, 100, 0),
        SBLK(4000, 0, 100, 0),
        EXIT(4000, 0, 100, 50),
        FORK(5000, 1, 100, 50, 50),
    };
    m = BUILD(y);
    c = latrec_sched_counters(m);
    assert_int_equal(c->inconsistent, 0);
    assert_int_equal(c->lost_exits, 0);
    assert_int_equal(c->threads, 2);
    assert_int_equal(state_at(m, 100, 3999, NULL), RUN);
    assert_int_equal(state_at(m, 100, 4500, NULL), UNK);
    latrec_sched_model_free(m);
}

static void test_exec_takeover(void **state)
{
    (void)state;
    const latrec_rec v[] = {
        COMM(100, 0, 100, "leader"),
        COMM(100, 0, 101, "helper"),
        SIN(1000, 0, 101, 0),
        SIN(1000, 1, 100, 0),
        EXIT(1500, 1, 100, 100),
        SBLK(1600, 1, 100, 0),
        EXEC(2000, 0, 100, 101, 100),
        COMM(2000, 0, 100, "newprog"),
        SPRE(3000, 0, 100, 0),
        SIN(3200, 0, 100, 0),
        SBLK(4000, 0, 100, 0),
    };
    latrec_sched_model *m = BUILD(v);
    unsigned cpu;
    assert_int_equal(state_at(m, 101, 1500, &cpu), RUN);
    assert_int_equal(state_at(m, 101, 2500, NULL), UNK);
    assert_int_equal(state_at(m, 100, 2500, &cpu), RUN);
    assert_int_equal(cpu, 0);
    assert_string_equal(latrec_sched_comm(m, 100, 1200), "leader");
    assert_string_equal(latrec_sched_comm(m, 100, 2500), "newprog");
    assert_string_equal(latrec_sched_comm(m, 101, 1200), "helper");
    latrec_sched_breakdown o;
    split_ok(m, 100, 1000, 4000, &o);
    assert_int_equal(o.gen, 1);
    assert_int_equal(o.on_cpu_ns, 1000 + 800);
    assert_int_equal(o.runnable_ns, 200);
    assert_int_equal(o.unknown_ns, 1000);
    const latrec_sched_counts *c = latrec_sched_counters(m);
    assert_int_equal(c->inconsistent, 0);
    assert_int_equal(c->lost_exits, 0);
    latrec_sched_model_free(m);
}

/* ---- who ran instead -------------------------------------------------- */

static void test_ran_instead(void **state)
{
    (void)state;
    const latrec_rec v[] = {
        COMM(10, 3, 201, "kworker/3:1"),
        COMM(10, 3, 202, "irq/45-eth0"),
        COMM(20, 3, 100, "consumer"),
        SIN(500, 3, 100, 0),
        SPRE(1000, 3, 100, 201),
        OTHER(1000, 3, 201, 100), /* the same switch, from the collector's other probe */
        OTHER(1100, 3, 202, 201),
        OTHER(1400, 3, 203, 202),
        COMM(1450, 3, 204, "ksoftirqd/3"),
        OTHER(1450, 3, 204, 203),
        OTHER(1700, 3, 205, 204),
        OTHER(1710, 3, 206, 205),
        OTHER(1750, 3, 201, 206),
        COMM(1900, 3, 202, "irq/45-renamed"),
        SIN(2000, 3, 100, 201),
        COMM(2100, 3, 100, "consumer-2"),
        SBLK(3000, 3, 100, 0),
    };
    latrec_sched_model *m = BUILD(v);
    latrec_sched_breakdown o;
    split_ok(m, 100, 800, 2200, &o);
    assert_int_equal(o.runnable_ns, 1000);
    assert_int_equal(o.n_tasks, 6);
    assert_int_equal(o.instead_ns, 1000);
    assert_int_equal(o.unattributed_ns, 0);
    assert_int_equal(o.n_others, 5);
    static const struct { uint32_t tid; uint64_t ns; const char *comm; } want[5] = {
        { 201, 350, "kworker/3:1" }, { 202, 300, "irq/45-eth0" }, { 204, 250, "ksoftirqd/3" },
        { 203, 50, "" },             { 206, 40, "" },
    };
    for (int i = 0; i < 5; i++) {
        assert_int_equal(o.others[i].tid, want[i].tid);
        assert_int_equal(o.others[i].ns, want[i].ns);
        assert_string_equal(o.others[i].comm, want[i].comm);
        assert_int_equal(o.others[i].cpu, 3);
        assert_int_equal(o.others[i].target, 0);
    }
    split_ok(m, 100, 1200, 1800, &o); /* part of the wait */
    assert_int_equal(o.runnable_ns, 600);
    assert_int_equal(o.instead_ns, 600);
    assert_int_equal(o.n_tasks, 6);
    assert_int_equal(o.others[0].tid, 204);
    assert_int_equal(o.others[0].ns, 250);
    assert_int_equal(o.others[1].tid, 202);
    assert_int_equal(o.others[1].ns, 200);
    assert_string_equal(latrec_sched_comm(m, 202, 1950), "irq/45-renamed");
    assert_string_equal(latrec_sched_comm(m, 100, 1000), "consumer");
    assert_string_equal(latrec_sched_comm(m, 100, 2500), "consumer-2");
    assert_string_equal(latrec_sched_comm(m, 100, 5), "consumer"); /* before its first COMM */
    assert_null(latrec_sched_comm(m, 203, 1500));
    latrec_sched_model_free(m);

    /* Woken onto a CPU busy with a task whose switch-in nobody recorded:
     * SWITCH_IN's prev tid names it, from the moment the thread waited. */
    const latrec_rec w[] = {
        SIN(500, 2, 100, 0),
        SBLK(1000, 2, 100, 0),          /* CPU 2 idles ... then 500 runs, unrecorded */
        COMM(1200, 2, 500, "rcu_sched"),
        WAKE(2000, 0, 100, 2),
        SIN(2600, 2, 100, 500),
        SBLK(3000, 2, 100, 0),
        /* a second target thread ran instead on CPU 2 */
        WAKE(3100, 0, 100, 2),
        SIN(3100, 2, 101, 0),
        SBLK(3400, 2, 101, 100),
        SIN(3400, 2, 100, 101),
        SBLK(4000, 2, 100, 0),
    };
    m = BUILD(w);
    split_ok(m, 100, 1000, 3000, &o);
    assert_int_equal(o.blocked_ns, 1000);
    assert_int_equal(o.runnable_ns, 600);
    assert_int_equal(o.n_others, 1);
    assert_int_equal(o.others[0].tid, 500);
    assert_int_equal(o.others[0].ns, 600);
    assert_string_equal(o.others[0].comm, "rcu_sched");
    split_ok(m, 100, 3000, 4000, &o);
    assert_int_equal(o.runnable_ns, 300);
    assert_int_equal(o.n_others, 1);
    assert_int_equal(o.others[0].tid, 101);
    assert_int_equal(o.others[0].target, 1);
    assert_int_equal(o.others[0].ns, 300);
    latrec_sched_model_free(m);

    /* An unrecorded switch 600 -> 700 on CPU 1 while nobody waited there:
     * 600 keeps the time up to when a target began waiting again, 700
     * gets the time from then on. */
    const latrec_rec x[] = {
        SBLK(1000, 1, 101, 600),
        WAKE(1100, 0, 100, 1),
        MIG(1500, 0, 100, 1, 0),
        SIN(1600, 0, 100, 0),
        WAKE(2000, 0, 101, 1),
        SIN(2400, 1, 101, 700),
        SBLK(3000, 1, 101, 0),
        SBLK(3000, 0, 100, 0),
    };
    m = BUILD(x);
    split_ok(m, 100, 1000, 1600, &o);
    assert_int_equal(o.runnable_ns, 500);
    assert_int_equal(o.migrations, 1);
    assert_int_equal(o.n_others, 2);
    assert_int_equal(o.others[0].tid, 600);
    assert_int_equal(o.others[0].ns, 400);
    assert_int_equal(o.others[1].tid, 0);
    assert_int_equal(o.others[1].cpu, 0);
    assert_int_equal(o.others[1].ns, 100);
    assert_string_equal(o.others[1].comm, "swapper/0");
    split_ok(m, 101, 1000, 3000, &o);
    assert_int_equal(o.blocked_ns, 1000);
    assert_int_equal(o.runnable_ns, 400);
    assert_int_equal(o.n_others, 1);
    assert_int_equal(o.others[0].tid, 700);
    assert_int_equal(o.others[0].ns, 400);
    latrec_sched_model_free(m);

    /* One task (900) holds CPU 1 across two waits of the thread there,
     * with a run on CPU 2 between them (implicit migrations both ways). */
    const latrec_rec y[] = {
        SPRE(1000, 1, 100, 900),
        SIN(1300, 2, 100, 0),
        SBLK(1500, 2, 100, 0),
        WAKE(1700, 0, 100, 1),
        SIN(2000, 1, 100, 900),
        SBLK(2500, 1, 100, 0),
    };
    m = BUILD(y);
    split_ok(m, 100, 1000, 2000, &o);
    assert_int_equal(o.runnable_ns, 600);
    assert_int_equal(o.migrations, 2);
    assert_int_equal(o.n_others, 1);
    assert_int_equal(o.others[0].tid, 900);
    assert_int_equal(o.others[0].ns, 600);
    assert_int_equal(o.unattributed_ns, 0);
    assert_int_equal(latrec_sched_counters(m)->implicit_migrations, 2);
    latrec_sched_model_free(m);
}

/* ---- runqlat ---------------------------------------------------------- */

static int stop_after_one(void *ctx, const latrec_sched_wait *w)
{
    (void)w;
    (*(int *)ctx)++;
    return 7;
}

static void test_runqlat(void **state)
{
    (void)state;
    latrec_sched_model *m = build_basic();
    snap s;
    take(m, 100, 0, &s);
    assert_int_equal(s.n_w, 2);
    assert_int_equal(s.w[0].t_ns, 2000);
    assert_int_equal(s.w[0].wait_ns, 1000);
    assert_int_equal(s.w[0].tid, 100);
    assert_int_equal(s.w[0].gen, 0);
    assert_int_equal(s.w[0].cpu, 1);
    assert_int_equal(s.w[0].cause, LATREC_SCHED_C_PREEMPT);
    assert_int_equal(s.w[0].migrated, 0);
    assert_int_equal(s.w[1].t_ns, 7000);
    assert_int_equal(s.w[1].wait_ns, 500);
    assert_int_equal(s.w[1].cause, LATREC_SCHED_C_WAKEUP);
    assert_int_equal(s.c.waits, 2);
    int calls = 0;
    assert_int_equal(latrec_sched_foreach_wait(m, stop_after_one, &calls), 7);
    assert_int_equal(calls, 1);
    latrec_sched_model_free(m);

    /* a wait still open at the end is not a sample; WAKEUP_NEW waits are */
    const latrec_rec v[] = {
        FORK(100, 0, 300, 1, 1),
        WNEW(200, 0, 300, 1),
        SIN(450, 1, 300, 0),
        SPRE(900, 1, 300, 0),
    };
    m = BUILD(v);
    take(m, 300, 0, &s);
    assert_int_equal(s.n_w, 1);
    assert_int_equal(s.w[0].wait_ns, 250);
    assert_int_equal(s.w[0].cause, LATREC_SCHED_C_WAKEUP_NEW);
    latrec_sched_model_free(m);
}

/* ---- lost events and bad input ---------------------------------------- */

static void test_lost_events(void **state)
{
    (void)state;
    const latrec_rec v[] = {
        SIN(1000, 0, 100, 0),
        SBLK(2000, 0, 100, 0),
        SIN(3000, 0, 100, 0),   /* wakeup lost: the blocked stretch is unknown */
        SIN(3500, 1, 101, 0),
        SIN(4000, 1, 102, 0),   /* 101's switch-out lost: its run is unknown */
        SBLK(5000, 0, 100, 0),
        R(4500, 0, LATREC_K_COMM, 1, 0, 0),  /* out of order: taken at 5000 */
        R(5100, 0, 0x33, 1, 0, 0),           /* unknown kind */
        MIG(5200, 0, 100, 0, 4096),          /* bad cpu */
        SBLK(6000, 1, 102, 0),
    };
    latrec_sched_model *m = BUILD(v);
    const latrec_sched_counts *c = latrec_sched_counters(m);
    assert_int_equal(c->inconsistent, 2);
    assert_int_equal(c->out_of_order, 1);
    assert_int_equal(c->ignored, 1);
    assert_int_equal(c->bad_cpu, 1);
    assert_int_equal(state_at(m, 100, 2500, NULL), UNK);
    assert_int_equal(state_at(m, 100, 3500, NULL), RUN);
    assert_int_equal(state_at(m, 101, 3600, NULL), UNK);
    assert_int_equal(state_at(m, 102, 4100, NULL), RUN);
    latrec_sched_breakdown o;
    split_ok(m, 100, 1000, 5000, &o);
    assert_int_equal(o.on_cpu_ns, 3000);
    assert_int_equal(o.unknown_ns, 1000);
    const latrec_rec w[] = {
        EXIT(1000, 2, 300, 300),    /* first event: it runs on CPU 2 */
        SBLK(1200, 2, 300, 0),      /* its final switch-out, same generation */
        SPRE(1300, 1, 301, 0),
        SIN(1500, 0, 301, 0),       /* switched in elsewhere, no MIGRATE */
        SBLK(1600, 0, 301, 0),
    };
    latrec_sched_model *m2 = BUILD(w);
    c = latrec_sched_counters(m2);
    assert_int_equal(c->threads, 2);
    assert_int_equal(c->inconsistent, 0);
    assert_int_equal(c->implicit_migrations, 1);
    unsigned cpu;
    assert_int_equal(state_at(m2, 300, 1100, &cpu), RUN);
    assert_int_equal(cpu, 2);
    assert_int_equal(state_at(m2, 300, 1300, NULL), UNK);
    split_ok(m2, 301, 1300, 1600, &o);
    assert_int_equal(o.migrations, 1);
    assert_int_equal(o.runnable_ns, 200);
    snap sn;
    take(m2, 301, 0, &sn);
    assert_int_equal(sn.n_w, 1);
    assert_int_equal(sn.w[0].migrated, 1);
    assert_int_equal(sn.w[0].cpu, 0);
    latrec_sched_model_free(m2);

    errno = 0;
    latrec_rec late = SIN(7000, 0, 100, 0);
    assert_int_equal(latrec_sched_feed(m, &late), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(latrec_sched_finish(m), 0);
    latrec_sched_model_free(m);
}

/* ---- loader ----------------------------------------------------------- */

static void test_load_ring(void **state)
{
    (void)state;
    /* basic[] in an 8-slot ring that wrapped: 10 records written, the
     * oldest two lost, write order starts at slot 2 */
    latrec_rec basic[BASIC_N], slots[8];
    basic_stream(basic);
    for (int i = 0; i < 8; i++) slots[(2 + i) & 7] = basic[2 + i];
    latrec_ring r;
    memset(&r, 0, sizeof r);
    r.status = LATREC_RING_OK;
    strcpy(r.catalog, LATREC_SCHED_CATALOG);
    r.recs = slots;
    r.entries = 8;
    r.mask = 7;
    r.start_slot = 2;
    r.iter_len = 8;
    r.lost = 2;
    latrec_sched_model *m = latrec_sched_model_new();
    assert_int_equal(latrec_sched_load(m, &r), 0);
    const latrec_sched_counts *c = latrec_sched_counters(m);
    assert_int_equal(c->records, 8);
    assert_int_equal(c->ring_lost, 2);
    assert_int_equal(c->first_ns, 2000);
    assert_int_equal(c->last_ns, 9000);
    latrec_sched_breakdown o;
    split_ok(m, 100, 1500, 8000, &o);
    assert_int_equal(o.on_cpu_ns, 2000 + 500);
    assert_int_equal(o.runnable_ns, 1500);
    assert_int_equal(o.blocked_ns, 2000);
    assert_int_equal(o.unknown_ns, 500); /* before the first record kept */
    /* finished: a second load is refused */
    errno = 0;
    assert_int_equal(latrec_sched_load(m, &r), -1);
    assert_int_equal(errno, EINVAL);
    latrec_sched_model_free(m);

    m = latrec_sched_model_new();
    strcpy(r.catalog, "e3");
    errno = 0;
    assert_int_equal(latrec_sched_load(m, &r), -1);
    assert_int_equal(errno, EINVAL);
    r.catalog[0] = '\0'; /* v1/v2 ring: no catalog */
    r.status = LATREC_RING_REJECTED;
    assert_int_equal(latrec_sched_load(m, &r), -1);
    r.status = LATREC_RING_OK;
    assert_int_equal(latrec_sched_load(m, &r), 0);
    assert_int_equal(latrec_sched_counters(m)->records, 8);
    latrec_sched_model_free(m);
    latrec_sched_model_free(NULL);
}

/* ---- random streams --------------------------------------------------- */

static uint64_t rng_state;
static uint64_t rng(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

enum { RTIDS = 6, RCPUS = 4 };

/* A stream that is mostly plausible, with every kind, lost events, ties. */
static size_t random_stream(latrec_rec *v, size_t n)
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

/* the split computed the slow way, over every interval */
static void brute(const latrec_sched_interval *iv, size_t n, uint64_t a, uint64_t b, uint64_t f[3])
{
    f[0] = f[1] = f[2] = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t s = iv[i].start_ns > a ? iv[i].start_ns : a, e = iv[i].end_ns < b ? iv[i].end_ns : b;
        if (s < e) f[iv[i].state - 1] += e - s;
    }
}

/* The sums-only split equals the full one whatever its hint: one kept per
 * tid over queries in random order (it must search back as well as on),
 * and one holding out-of-range indices. */
static void sums_match(const latrec_sched_model *m, latrec_sched_hint *h, uint32_t tid, uint64_t a, uint64_t b,
                       const latrec_sched_breakdown *o)
{
    latrec_sched_hint junk = { .gen1 = h->gen1, .iv = (size_t)rng(), .pre = (size_t)rng() % 64, .mig = SIZE_MAX };
    latrec_sched_hint *hs[2] = { h, &junk };
    for (int k = 0; k < 2; k++) {
        latrec_sched_breakdown s;
        assert_int_equal(latrec_sched_split_sums(m, hs[k], tid, a, b, &s), 0);
        assert_int_equal(s.gen, o->gen);
        assert_int_equal(s.on_cpu_ns, o->on_cpu_ns);
        assert_int_equal(s.runnable_ns, o->runnable_ns);
        assert_int_equal(s.blocked_ns, o->blocked_ns);
        assert_int_equal(s.unknown_ns, o->unknown_ns);
        assert_int_equal(s.preemptions, o->preemptions);
        assert_int_equal(s.migrations, o->migrations);
        assert_int_equal(s.n_others, 0);
        assert_int_equal(s.unattributed_ns, s.runnable_ns);
    }
}

static void check_model(const latrec_sched_model *m, uint64_t t_end)
{
    latrec_sched_hint hint[RTIDS + 1];
    memset(hint, 0, sizeof hint);
    for (size_t k = 0; k < latrec_sched_n_threads(m); k++) {
        latrec_sched_thread th;
        latrec_sched_thread_info(m, k, &th);
        size_t n;
        uint32_t gen;
        const latrec_sched_interval *iv = latrec_sched_intervals(m, th.tid, th.first_ns, &n, &gen);
        if (gen != th.gen) continue; /* a later generation began at the same ns */
        uint64_t sum[3] = { 0, 0, 0 };
        for (size_t i = 0; i < n; i++) {
            assert_true(iv[i].start_ns < iv[i].end_ns);
            if (i) assert_true(iv[i - 1].end_ns <= iv[i].start_ns);
            assert_true(iv[i].state >= 1 && iv[i].state <= 3);
            assert_memory_equal(iv[i].before_ns, sum, sizeof sum);
            sum[iv[i].state - 1] += iv[i].end_ns - iv[i].start_ns;
        }
        assert_int_equal(sum[0], th.on_cpu_ns);
        assert_int_equal(sum[1], th.runnable_ns);
        assert_int_equal(sum[2], th.blocked_ns);
    }
    for (int q = 0; q < 3000; q++) {
        uint32_t tid = 100 + (uint32_t)(rng() % (RTIDS + 1));
        uint64_t a = rng() % (t_end + 2000), b = a + (rng() % 4 ? rng() % 5000 : rng() % (t_end + 1));
        latrec_sched_breakdown o;
        split_ok(m, tid, a, b, &o);
        sums_match(m, &hint[tid - 100], tid, a, b, &o);
        size_t n;
        const latrec_sched_interval *iv = latrec_sched_intervals(m, tid, b, &n, NULL);
        uint64_t f[3];
        brute(iv, n, a, b, f);
        assert_int_equal(o.on_cpu_ns, f[0]);
        assert_int_equal(o.runnable_ns, f[1]);
        assert_int_equal(o.blocked_ns, f[2]);
        assert_true(o.instead_ns <= o.runnable_ns);
        assert_int_equal(o.instead_ns + o.unattributed_ns, o.runnable_ns);
        assert_true(o.n_others >= 0 && o.n_others <= LATREC_SCHED_TOP);
        assert_true((uint32_t)o.n_others <= o.n_tasks);
        uint64_t top = 0;
        for (int i = 0; i < o.n_others; i++) {
            assert_true(o.others[i].ns > 0);
            if (i) assert_true(o.others[i - 1].ns >= o.others[i].ns);
            top += o.others[i].ns;
        }
        assert_true(top <= o.instead_ns);
        if (o.n_tasks <= LATREC_SCHED_TOP) assert_int_equal(top, o.instead_ns);

        /* additive: the window cut at every interval edge inside it sums
         * to the same figures (each piece holds at most one interval) */
        uint64_t cut[64];
        size_t nc = 0;
        cut[nc++] = a;
        for (size_t i = 0; i < n && nc < 60; i++) {
            if (iv[i].start_ns > a && iv[i].start_ns < b && iv[i].start_ns != cut[nc - 1]) cut[nc++] = iv[i].start_ns;
            if (iv[i].end_ns > a && iv[i].end_ns < b) cut[nc++] = iv[i].end_ns;
        }
        if (nc >= 60) continue;
        cut[nc++] = b;
        latrec_sched_breakdown sum;
        memset(&sum, 0, sizeof sum);
        for (size_t k = 0; k + 1 < nc; k++) {
            latrec_sched_breakdown p;
            split_ok(m, tid, cut[k], cut[k + 1], &p);
            sums_match(m, &hint[tid - 100], tid, cut[k], cut[k + 1], &p); /* in time order */
            assert_int_equal(p.gen, o.gen);
            sum.on_cpu_ns += p.on_cpu_ns;
            sum.runnable_ns += p.runnable_ns;
            sum.blocked_ns += p.blocked_ns;
            sum.unknown_ns += p.unknown_ns;
            sum.preemptions += p.preemptions;
            sum.migrations += p.migrations;
            sum.instead_ns += p.instead_ns;
        }
        assert_int_equal(sum.on_cpu_ns, o.on_cpu_ns);
        assert_int_equal(sum.runnable_ns, o.runnable_ns);
        assert_int_equal(sum.blocked_ns, o.blocked_ns);
        assert_int_equal(sum.unknown_ns, o.unknown_ns);
        assert_int_equal(sum.preemptions, o.preemptions);
        assert_int_equal(sum.migrations, o.migrations);
        assert_int_equal(sum.instead_ns, o.instead_ns);
    }
}

/* The same threads and generations in both models (x finished, y live). */
static void same_threads(const latrec_sched_model *x, const latrec_sched_model *y)
{
    assert_int_equal(latrec_sched_n_threads(x), latrec_sched_n_threads(y));
    for (size_t k = 0; k < latrec_sched_n_threads(x); k++) {
        latrec_sched_thread a, b;
        latrec_sched_thread_info(x, k, &a);
        latrec_sched_thread_info(y, k, &b);
        assert_int_equal(a.tid, b.tid);
        assert_int_equal(a.gen, b.gen);
        assert_int_equal(a.first_ns, b.first_ns);
        assert_int_equal(a.exited, b.exited);
        assert_int_equal(a.tgid, b.tgid);
    }
}

/* n random splits, the same in both models: windows up to 20 us ending
 * in (b_max - b_span, b_max] (no earlier than 0). */
static void same_splits(const latrec_sched_model *x, const latrec_sched_model *y, int n, uint64_t b_max,
                        uint64_t b_span)
{
    for (int q = 0; q < n; q++) {
        uint32_t tid = 100 + (uint32_t)(rng() % RTIDS);
        uint64_t b = b_max - rng() % (b_span < b_max ? b_span : b_max);
        uint64_t a = b - rng() % (b < 20000 ? b + 1 : 20000);
        latrec_sched_breakdown o1, o2;
        memset(&o1, 0, sizeof o1);
        memset(&o2, 0, sizeof o2);
        split_ok(x, tid, a, b, &o1);
        split_ok(y, tid, a, b, &o2);
        assert_memory_equal(&o1, &o2, sizeof o1);
    }
}

static void test_random_sum_invariant(void **state)
{
    (void)state;
    enum { N = 20000 };
    latrec_rec *v = malloc(N * sizeof *v), *w = malloc(N * sizeof *w);
    assert_non_null(v);
    assert_non_null(w);
    for (uint64_t seed = 1; seed <= 8; seed++) {
        rng_state = seed * 0x1234567ull;
        random_stream(v, N);
        latrec_sched_model *m = build(v, N);
        check_model(m, v[N - 1].t_ns);

        /* equal-time groups shuffled: the same timelines and counters */
        memcpy(w, v, N * sizeof *v);
        for (size_t i = 0; i < N;) {
            size_t j = i;
            while (j < N && w[j].t_ns == w[i].t_ns) j++;
            for (size_t k = j - 1; k > i; k--) {
                size_t r = i + rng() % (k - i + 1);
                latrec_rec tmp = w[k];
                w[k] = w[r];
                w[r] = tmp;
            }
            i = j;
        }
        latrec_sched_model *m2 = build(w, N);
        assert_memory_equal(latrec_sched_counters(m), latrec_sched_counters(m2), sizeof(latrec_sched_counts));
        assert_int_equal(latrec_sched_n_threads(m), latrec_sched_n_threads(m2));
        for (size_t k = 0; k < latrec_sched_n_threads(m); k++) {
            latrec_sched_thread t1, t2;
            latrec_sched_thread_info(m, k, &t1);
            latrec_sched_thread_info(m2, k, &t2);
            assert_memory_equal(&t1, &t2, sizeof t1);
        }
        same_splits(m, m2, 500, v[N - 1].t_ns, v[N - 1].t_ns);
        const latrec_sched_counts *c = latrec_sched_counters(m);
        assert_true(c->intervals > 1000);
        assert_true(c->waits > 100);
        latrec_sched_model_free(m);
        latrec_sched_model_free(m2);
    }
    free(v);
    free(w);
}

/* Live (latrec_sched_settle, latrec_sched_forget): a model fed in steps and settled at times
 * the records before which are all in answers every query up to the last
 * record fed as the model of those records, finished, does, while it goes
 * on being fed (a later event may still show a state lost: the full model
 * then has it unknown back to its start); after its own finish it is the
 * model of the whole stream, those states taken back too. The marks fall
 * on records' own times half of the time (a state cut there is not one
 * begun there). One that lets go of what ended 60 us before each mark has
 * the same threads, answers the windows after that the same, and holds a
 * fraction of the intervals. */
static void test_settle_live(void **state)
{
    (void)state;
    enum { N = 20000 };
    latrec_rec *v = malloc(N * sizeof *v);
    assert_non_null(v);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        rng_state = seed * 0x7654321ull;
        random_stream(v, N);
        latrec_sched_model *full = build(v, N);
        latrec_sched_model *live = latrec_sched_model_new(), *lean = latrec_sched_model_new();
        assert_non_null(live);
        assert_non_null(lean);
        size_t fed = 0;
        while (fed < N) {
            size_t next = fed + 1 + (size_t)(rng() % 700);
            if (next > N) next = N;
            for (; fed < next; fed++) {
                assert_int_equal(latrec_sched_feed(live, &v[fed]), 0);
                assert_int_equal(latrec_sched_feed(lean, &v[fed]), 0);
            }
            /* a mark no record before which is missing: the next record's
             * time, or the last fed one's (its ns may still get more) */
            uint64_t mark = fed < N && rng() % 2 ? v[fed].t_ns : v[fed - 1].t_ns;
            /* what the live model knows: the records before the mark (those
             * of the mark's own ns wait: more of them may come) */
            size_t known = fed;
            while (known > 0 && v[known - 1].t_ns >= mark) known--;
            if (known == 0) continue;
            const uint64_t upto = v[known - 1].t_ns;
            assert_int_equal(latrec_sched_settle(live, mark), 0);
            assert_int_equal(latrec_sched_settle(lean, mark), 0);
            latrec_sched_model *so_far = build(v, known);
            same_threads(so_far, live);
            same_splits(so_far, live, 40, upto, 30000);
            /* lean lets go of what ended 60 us before: the windows after are the same */
            if (upto > 60000) latrec_sched_forget(lean, upto - 60000);
            same_threads(so_far, lean);
            same_splits(so_far, lean, 40, upto, 30000);
            latrec_sched_model_free(so_far);
        }
        /* lean holds the last stretch only */
        size_t n_live = 0, n_lean = 0;
        for (size_t k = 0; k < latrec_sched_n_threads(live); k++) {
            latrec_sched_thread a, b;
            latrec_sched_thread_info(live, k, &a);
            latrec_sched_thread_info(lean, k, &b);
            n_live += a.n_intervals;
            n_lean += b.n_intervals;
        }
        assert_true(n_lean * 20 < n_live);
        latrec_sched_model_free(lean);
        assert_int_equal(latrec_sched_finish(live), 0);
        assert_int_equal(latrec_sched_settle(live, v[N - 1].t_ns + 1), -1); /* finished */
        same_splits(full, live, 200, v[N - 1].t_ns, v[N - 1].t_ns);
        latrec_sched_model_free(full);
        latrec_sched_model_free(live);
    }
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preempted_blocked_spurious),
        cmocka_unit_test(test_split_exact),
        cmocka_unit_test(test_migration_mid_hop),
        cmocka_unit_test(test_equal_times),
        cmocka_unit_test(test_tid_reuse),
        cmocka_unit_test(test_exec_takeover),
        cmocka_unit_test(test_ran_instead),
        cmocka_unit_test(test_runqlat),
        cmocka_unit_test(test_lost_events),
        cmocka_unit_test(test_load_ring),
        cmocka_unit_test(test_random_sum_invariant),
        cmocka_unit_test(test_settle_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
