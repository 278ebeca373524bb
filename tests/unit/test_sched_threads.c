/* sched_model: a thread's life on hand-written kernel-catalog sequences with
 * exact expected values: exit and tid reuse (a tid's generations), a thread
 * reused before its final switch-out, a lost exit, exit and switch-out at
 * one ns, and exec taking over the leader's tid. The streams are built with
 * sched_stream.h. */
#include "sched_stream.h"

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
}

/* reused before the old thread's final switch-out: the switch-out on
 * CPU 0 still belongs to the old generation */
static void test_tid_reuse_before_switch_out(void **state)
{
    (void)state;
    latrec_sched_breakdown o;
    const latrec_rec w[] = {
        SIN(1000, 0, 100, 0),
        EXIT(4000, 0, 100, 50),
        FORK(4050, 1, 100, 50, 50),
        WNEW(4060, 1, 100, 1),
        SBLK(4100, 0, 100, 0),
        SIN(4200, 1, 100, 0),
        SBLK(5000, 1, 100, 0),
    };
    latrec_sched_model *m = BUILD(w);
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
}

/* FORK of a tid whose thread never reported EXIT */
static void test_tid_reuse_lost_exit(void **state)
{
    (void)state;
    const latrec_rec x[] = {
        SIN(1000, 0, 100, 0),
        SBLK(2000, 0, 100, 0),
        FORK(3000, 1, 100, 50, 50),
        WNEW(3000, 1, 100, 1),
        SIN(3500, 1, 100, 0),
        SBLK(4000, 1, 100, 0),
    };
    latrec_sched_model *m = BUILD(x);
    assert_int_equal(latrec_sched_counters(m)->lost_exits, 1);
    assert_int_equal(state_at(m, 100, 2500, NULL), UNK); /* when it died is not known */
    assert_int_equal(state_at(m, 100, 1500, NULL), RUN);
    assert_int_equal(state_at(m, 100, 3200, NULL), RQ);
    latrec_sched_model_free(m);
}

/* EXIT and the final switch-out at one ns, in file order (switch-out
 * first: kind 0x02 < 0x09) */
static void test_exit_at_switch_out(void **state)
{
    (void)state;
    const latrec_rec y[] = {
        SIN(1000, 0, 100, 0),
        SBLK(4000, 0, 100, 0),
        EXIT(4000, 0, 100, 50),
        FORK(5000, 1, 100, 50, 50),
    };
    latrec_sched_model *m = BUILD(y);
    const latrec_sched_counts *c = latrec_sched_counters(m);
    assert_int_equal(c->inconsistent, 0);
    assert_int_equal(c->lost_exits, 0);
    assert_int_equal(c->threads, 2);
    assert_int_equal(state_at(m, 100, 3999, NULL), RUN);
    assert_int_equal(state_at(m, 100, 4500, NULL), UNK);
    latrec_sched_model_free(m);
}

/* ---- exec ------------------------------------------------------------ */

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tid_reuse),
        cmocka_unit_test(test_tid_reuse_before_switch_out),
        cmocka_unit_test(test_tid_reuse_lost_exit),
        cmocka_unit_test(test_exit_at_switch_out),
        cmocka_unit_test(test_exec_takeover),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
