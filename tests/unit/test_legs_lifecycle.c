/*
 * test_legs_lifecycle.c - the leg builder's open, grace and end of an
 * instance in exact emit order: a stamp of 0 moving an instance's first
 * stamp back (the horizon then ends it at the next record, and the next
 * oldest after it), a node reused from the free list after its instance
 * ended in grace (every hit written afresh or zero).
 *
 * Records are fed by hand (latrec_legs_feed) into a builder over one ring
 * (legs_run.h); every expected value is typed in from the records here.
 */
#define LEGS_TEST_ROOT LATREC_TEST_TMP "/legs_lifecycle"
#include "legs_run.h"

static latrec_rec rec_of(unsigned stage, unsigned cpu, uint64_t seq, uint64_t t, uint64_t aux)
{
    return (latrec_rec){ (uint64_t)stage << 56 | (uint64_t)cpu << 48 | seq, t, aux, aux + 1 };
}

/* Horizon 1 ms. Seqs 1 and 2 open at BASE and BASE + 100; a DEQUEUE of
 * seq 2 stamped 0 moves its first stamp to 0, which changes nothing while
 * seq 1 is the oldest; a DEQUEUE of seq 1 stamped 0 then makes the oldest
 * instance older than the horizon: the next record (BASE + 300) ends seq 1,
 * then seq 2 (now the oldest, also from 0), cut by the horizon, before
 * opening seq 3. */
static void test_zero_stamp_moves_horizon(void **state)
{
    (void)state;
    const char *dir = test_dir("zero_first");
    const struct r one[] = { { 1, ENQUEUE, BASE, 0, 0 } };
    make_ring(dir, "libe3.outbound.1", 3, 1000, 1, one, 1);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, MS, 0);
    const int out = leg_of(&r, "outbound");
    const latrec_rec v[] = {
        rec_of(ENQUEUE, 1, 1, BASE, 10),       rec_of(ENQUEUE, 1, 2, BASE + 100, 20),
        rec_of(DEQUEUE, 1, 2, 0, 21),          rec_of(ENQUEUE, 1, 4, BASE + 150, 40),
        rec_of(DEQUEUE, 1, 1, 0, 11),          rec_of(ENQUEUE, 1, 3, BASE + 300, 30),
    };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        assert_int_equal(latrec_legs_feed(r.legs, 0, &v[k]), out);
        if (k < 5) assert_int_equal(r.n_inst, 0);
    }
    assert_int_equal(r.n_inst, 2);
    assert_int_equal(r.inst[0]->seq, 1);
    assert_int_equal(r.inst[0]->first_t, 0);
    assert_int_equal(r.inst[0]->hits[0].t_ns, BASE);
    assert_int_equal(r.inst[0]->hits[1].t_ns, 0);
    assert_int_equal(r.inst[0]->hits[1].aux, 11);
    assert_int_equal(r.inst[1]->seq, 2);
    assert_int_equal(r.inst[1]->first_t, 0);
    assert_int_equal(r.inst[1]->hits[1].aux, 21);
    assert_int_equal(latrec_legs_cut_horizon(r.legs), 2);
    assert_int_equal(latrec_legs_n_open(r.legs), 2); /* 4 (from BASE + 150) and 3 */
    assert_int_equal(latrec_legs_next_cut(r.legs), BASE + 150 + MS);
    latrec_legs_finish(r.legs);
    assert_int_equal(r.n_inst, 4);
    assert_int_equal(r.inst[2]->seq, 4);
    assert_int_equal(r.inst[3]->seq, 3);
    assert_int_equal(latrec_legs_cut_horizon(r.legs), 2);
    run_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_stamp_moves_horizon),
    };
    return cmocka_run_group_tests(tests, legs_setup, NULL);
}
