/* sched_model: who ran instead while a thread waited, on hand-written
 * kernel-catalog sequences with exact expected values: a chain of other
 * tasks on the CPU, a task whose switch-in was never recorded, an
 * unrecorded switch between two others, and one task across two waits. The
 * streams are built with sched_stream.h. */
#include "sched_stream.h"

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
}

/* Woken onto a CPU busy with a task whose switch-in nobody recorded:
 * SWITCH_IN's prev tid names it, from the moment the thread waited. */
static void test_ran_instead_unrecorded_switch_in(void **state)
{
    (void)state;
    latrec_sched_breakdown o;
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
    latrec_sched_model *m = BUILD(w);
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
}

/* An unrecorded switch 600 -> 700 on CPU 1 while nobody waited there:
 * 600 keeps the time up to when a target began waiting again, 700
 * gets the time from then on. */
static void test_ran_instead_unrecorded_switch(void **state)
{
    (void)state;
    latrec_sched_breakdown o;
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
    latrec_sched_model *m = BUILD(x);
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
}

/* One task (900) holds CPU 1 across two waits of the thread there,
 * with a run on CPU 2 between them (implicit migrations both ways). */
static void test_ran_instead_across_waits(void **state)
{
    (void)state;
    latrec_sched_breakdown o;
    const latrec_rec y[] = {
        SPRE(1000, 1, 100, 900),
        SIN(1300, 2, 100, 0),
        SBLK(1500, 2, 100, 0),
        WAKE(1700, 0, 100, 1),
        SIN(2000, 1, 100, 900),
        SBLK(2500, 1, 100, 0),
    };
    latrec_sched_model *m = BUILD(y);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ran_instead),
        cmocka_unit_test(test_ran_instead_unrecorded_switch_in),
        cmocka_unit_test(test_ran_instead_unrecorded_switch),
        cmocka_unit_test(test_ran_instead_across_waits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
