/* sched_model: timelines from hand-written kernel-catalog sequences with
 * exact expected values: preempted, blocked and spurious wakeups, exact
 * splits, migration, equal-time replay, runqlat samples, lost events and
 * the loader. A thread's life (exit, tid reuse, exec) is in
 * test_sched_threads.c, who ran instead in test_sched_instead.c, random
 * streams and the live model in test_sched_random.c; the streams are built
 * with sched_stream.h. */
#include "sched_stream.h"

#include <errno.h>
#include <stdlib.h>

/* ---- preempted vs blocked vs spurious --------------------------------- */

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
        cmocka_unit_test(test_runqlat),
        cmocka_unit_test(test_lost_events),
        cmocka_unit_test(test_load_ring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
