/* sched_model: timelines from hand-written kernel-catalog sequences with
 * exact expected values, equal-time replay, tid reuse, "ran instead",
 * runqlat samples and the loader. Random streams and the live model are in
 * test_sched_random.c; the streams are built with sched_stream.h. */
#include "sched_stream.h"

#include <errno.h>
#include <stdlib.h>


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
    assert_int_equal(o.lost_ns, 1000); /* [2000, 3000): inside its timeline */
    split_ok(m, 100, 500, 2500, &o);
    assert_int_equal(o.unknown_ns, 1000); /* before its first event, then lost */
    assert_int_equal(o.lost_ns, 500);
    split_ok(m, 102, 3000, 5000, &o); /* before its first event: not lost */
    assert_int_equal(o.unknown_ns, 1000);
    assert_int_equal(o.lost_ns, 0);
    split_ok(m, 101, 3400, 4500, &o); /* its run, switch-out lost, then closed at the end */
    assert_int_equal(o.unknown_ns, 1100);
    assert_int_equal(o.lost_ns, 0);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
