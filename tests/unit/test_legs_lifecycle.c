/*
 * test_legs_lifecycle.c - the leg builder's open, grace and end of an
 * instance in exact emit order: a stamp of 0 moving an instance's first
 * stamp back (the horizon then ends it at the next record, and the next
 * oldest after it; a last stage stamped 0 starts a grace that is over at
 * once), the chain order checked when a complete instance of a
 * long chain ends, thousands of instances waiting in grace (some ended
 * there by a late extra) in exact emit order, the open queue's front
 * pinned by an instance the horizon cuts at last (fed also lazily), stamps
 * near 2^64 (no deadline wraps).
 *
 * Records are fed by hand (latrec_legs_feed), or from rings written here
 * in time order (legs_run.h); every expected value is typed in from the
 * records here.
 */
#define LEGS_TEST_ROOT LATREC_TEST_TMP "/legs_lifecycle"
#include "legs_run.h"

static int by_t(const void *a, const void *b)
{
    const struct r *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* A builder over one ring of process 1000 (libe3.outbound.1), in test
 * directory `name`, for records fed by hand as ring 0. */
static void open_by_hand(struct run *r, const char *name, uint64_t horizon)
{
    const char *dir = test_dir(name);
    const struct r one[] = { { 1, ENQUEUE, BASE, 0, 0 } };
    make_ring(dir, "libe3.outbound.1", 3, 1000, 1, one, 1);
    const char *dirs[] = { dir };
    run_open(r, dirs, 1, horizon, 0);
}

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
    struct run r;
    open_by_hand(&r, "zero_first", MS);
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

/* A last chain stage stamped 0 (written, yet absent) on an instance of a
 * leg with extras: its first stamp moves back to 0 and its grace starts at
 * 0, so the next record (BASE + 400) ends it at once, incomplete, before
 * being placed; not a cut (it was in grace). Seq 2 ends at finish. */
static void test_zero_last_stage_grace(void **state)
{
    (void)state;
    struct run r;
    open_by_hand(&r, "zero_last", 0);
    const int out = leg_of(&r, "outbound");
    const latrec_rec v[] = {
        rec_of(ENQUEUE, 1, 1, BASE, 10),          rec_of(ENQUEUE, 1, 2, BASE + 100, 20),
        rec_of(DEQUEUE, 1, 1, BASE + 200, 11),    rec_of(ENCODE_E3AP_DONE, 1, 1, BASE + 300, 12),
        rec_of(SEND_DONE, 1, 1, 0, 13),           rec_of(DEQUEUE, 1, 2, BASE + 400, 21),
    };
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        assert_int_equal(latrec_legs_feed(r.legs, 0, &v[k]), out);
        assert_int_equal(r.n_inst, k < 5 ? 0 : 1);
    }
    const latrec_instance *a = r.inst[0];
    assert_int_equal(a->seq, 1);
    assert_int_equal(a->complete, 0);
    assert_int_equal(a->first_t, 0);
    assert_int_equal(a->hits[2].t_ns, BASE + 300);
    assert_int_equal(a->hits[3].t_ns, 0);
    assert_int_equal(a->hits[3].aux, 13);
    assert_int_equal(latrec_legs_evicted(r.legs), 0);
    latrec_legs_finish(r.legs);
    assert_int_equal(r.n_inst, 2);
    assert_int_equal(r.inst[1]->seq, 2);
    assert_int_equal(r.inst[1]->hits[1].t_ns, BASE + 400);
    run_close(&r);
}

/* Chain order checked at the end of every complete instance, over a leg
 * of 10 chain stages (the stages past the eighth are checked in a loop, the
 * first eight spelled out): instance 1 in order, 2 with its 9th and 10th
 * stages stamped in the reverse order by one thread, 3 with its 1st and
 * 2nd, 4 with its 9th and 10th stamped by two threads in the reverse order
 * (a clock regression across rings, not a reversed chain), 5 with equal
 * stamps (in order). Two of the five are reversed; the first pair seen is
 * named. */
static void test_long_chain_reversed(void **state)
{
    (void)state;
    const char *dir = test_dir("long_chain");
    char path[700];
    snprintf(path, sizeof path, "%s/long.catalog", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("catalog long\n", f);
    for (int k = 0; k < 10; k++) fprintf(f, "stage 0x%02x S%d\n", 0x40 + k, k);
    fputs("leg ten S0 S1 S2 S3 S4 S5 S6 S7 S8 S9\n", f);
    assert_int_equal(fclose(f), 0);
    latrec_catalog cat;
    char err[256];
    assert_int_equal(latrec_catalog_load(&cat, path, err, sizeof err), 0);
    static struct r a[64], b2[64];
    size_t na = 0, nb = 0;
    for (uint64_t seq = 1; seq <= 5; seq++) {
        const uint64_t t0 = BASE + seq * MS;
        for (int k = 0; k < 10; k++) {
            uint64_t t = t0 + 1000 * (uint64_t)k;
            if (seq == 2 && k >= 8) t = t0 + 9000 - 1000 * (uint64_t)(k - 8); /* S9 at +8000, S8 at +9000 */
            if (seq == 3 && k < 2) t = t0 + 1000 - 1000 * (uint64_t)k;         /* S1 at t0, S0 at +1000 */
            if (seq == 4 && k >= 8) t = t0 + 9000 - 1000 * (uint64_t)(k - 8);
            if (seq == 5) t = t0;
            const struct r x = { seq, 0x40u + (unsigned)k, t, 0, 0 };
            if (seq == 4 && k == 9) b2[nb++] = x; /* the other thread */
            else a[na++] = x;
        }
    }
    qsort(a, na, sizeof a[0], by_t);
    make_ring(dir, "long.1", 3, 1000, 1, a, na);
    make_ring(dir, "long.2", 3, 1000, 2, b2, nb);
    const char *dirs[] = { dir };
    struct run r;
    run_open_with(&r, &cat, dirs, 1, 0, 0);
    run_feed(&r, 1);
    assert_int_equal(r.n_inst, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(r.inst[i]->seq, i + 1);
        assert_int_equal(r.inst[i]->complete, 1);
    }
    char buf[512];
    assert_int_equal(latrec_legs_warning(r.legs, 0, buf, sizeof buf), 1);
    assert_string_equal(buf, "catalog 'long': leg ten: chain stages out of order in 2 of 5 instances (S8 stamped "
                             "after S9 by one thread, the chain says the reverse)");
    assert_int_equal(latrec_legs_warning(r.legs, 1, buf, sizeof buf), 0);
    run_close(&r);
}

/* 8000 instances of the outbound leg, one every 5 us, each hop 3 us, so
 * some 2000 wait in grace at once (the grace queue grows past its first
 * size and is compacted): two seqs in three have EMIT_ENTER before them and a
 * late DROP 400 ns after SEND_DONE, which completes every hit and ends it
 * at once (a hole in the grace queue); every third seq ends when the first
 * record past its SEND_DONE + 10 ms arrives, before that record is placed;
 * the rest at finish in order of creation. The emit order is computed here
 * from those rules and compared instance by instance. */
enum { MANY = 8000, MANY_RECS = 4 * 20002 }; /* this test's 6 per seq, and the pinned front's 4 */
static latrec_rec many_recs[MANY_RECS];
static uint64_t want_seq[MANY];

static int rec_by_t(const void *a, const void *b)
{
    const latrec_rec *x = a, *y = b;
    return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

static uint64_t t_of(uint64_t seq) { return BASE + 5000 * seq; }

static void test_grace_many_exact_order(void **state)
{
    (void)state;
    struct run r;
    open_by_hand(&r, "grace_many", 0);
    size_t n = 0;
    for (uint64_t s = 1; s <= MANY; s++) {
        const uint64_t t = t_of(s);
        if (s % 3) many_recs[n++] = rec_of(EMIT_ENTER, 2, s, t - 1100, s);
        many_recs[n++] = rec_of(ENQUEUE, 2, s, t, s);
        many_recs[n++] = rec_of(DEQUEUE, 2, s, t + 3000, s);
        many_recs[n++] = rec_of(ENCODE_E3AP_DONE, 2, s, t + 6000, s);
        many_recs[n++] = rec_of(SEND_DONE, 2, s, t + 9000, s);
        if (s % 3) many_recs[n++] = rec_of(DROP, 2, s, t + 9400, s);
    }
    qsort(many_recs, n, sizeof many_recs[0], rec_by_t);
    /* the order the rules give */
    size_t n_want = 0;
    uint64_t next_odd = 3; /* the oldest seq without extras not ended */
    for (size_t k = 0; k < n; k++) {
        const uint64_t t = many_recs[k].t_ns;
        while (next_odd <= MANY && t_of(next_odd) + 9000 + LATREC_LEGS_GRACE_NS < t) {
            want_seq[n_want++] = next_odd;
            next_odd += 3;
        }
        if (latrec_rec_stage(many_recs[k].sc) == DROP) want_seq[n_want++] = latrec_rec_seq(many_recs[k].sc);
    }
    const size_t before_finish = n_want;
    for (; next_odd <= MANY; next_odd += 3) want_seq[n_want++] = next_odd;
    assert_int_equal(n_want, MANY);
    assert_true(before_finish > MANY / 3 * 2 + 1000); /* some ended by their grace */

    for (size_t k = 0; k < n; k++) assert_true(latrec_legs_feed(r.legs, 0, &many_recs[k]) >= 0);
    assert_int_equal(r.n_inst, before_finish);
    latrec_legs_finish(r.legs);
    assert_int_equal(r.n_inst, MANY);
    const int out = leg_of(&r, "outbound");
    for (size_t i = 0; i < MANY; i++) {
        const latrec_instance *in = r.inst[i];
        const uint64_t s = want_seq[i];
        assert_int_equal(in->seq, s);
        assert_int_equal(in->leg, out);
        assert_int_equal(in->complete, 1);
        assert_int_equal(in->first_t, t_of(s) - (s % 3 ? 1100 : 0));
        assert_int_equal(in->hits[0].t_ns, t_of(s));
        assert_int_equal(in->hits[3].t_ns, t_of(s) + 9000);
        assert_int_equal(in->hits[3].aux, s);
        assert_int_equal(in->hits[4].t_ns, s % 3 ? t_of(s) - 1100 : 0);
        assert_int_equal(in->hits[5].t_ns, s % 3 ? t_of(s) + 9400 : 0);
    }
    assert_int_equal(latrec_legs_evicted(r.legs), 0);
    run_close(&r);
}

/* The open queue's front pinned, then cut: seq 1 opens at BASE and never
 * completes, while 20000 instances behind it complete and end by their
 * grace, leaving holes (the queue fills and is compacted behind seq 1).
 * With a 50 ms horizon, seq 1 is cut at the first record past BASE +
 * 50 ms, after the graces due before that record; then the front is found
 * again past thousands of holes. The emit order is computed here from
 * those rules; fed both by latrec_legs_feed and lazily (settled every 256
 * records), with the same order, cut count and next cut. */
enum { PINNED = 20000 };
static uint64_t pinned_want[PINNED + 1];

static void test_front_pinned_then_cut(void **state)
{
    (void)state;
    const uint64_t horizon = 50 * MS;
    size_t n = 0;
    many_recs[n++] = rec_of(ENQUEUE, 2, 1, BASE, 1);
    for (uint64_t s = 2; s <= PINNED + 1; s++)
        for (unsigned k = 0; k < 4; k++) many_recs[n++] = rec_of(ENQUEUE + k, 2, s, t_of(s) + 1000 * k, s);
    size_t n_want = 0, cut_at = 0;
    uint64_t next = 2; /* the oldest seq not ended */
    int pinned = 1;
    for (size_t k = 0; k < n; k++) {
        const uint64_t t = many_recs[k].t_ns;
        while (next <= PINNED + 1 && t_of(next) + 3000 + LATREC_LEGS_GRACE_NS < t) pinned_want[n_want++] = next++;
        if (pinned && BASE + horizon < t) {
            pinned_want[n_want++] = 1;
            pinned = 0;
            cut_at = n_want;
        }
    }
    const size_t before_finish = n_want, oldest = next;
    while (next <= PINNED + 1) pinned_want[n_want++] = next++;
    assert_int_equal(n_want, PINNED + 1);
    assert_true(cut_at > 1000 && before_finish > cut_at + 1000);
    for (int lazy = 0; lazy <= 1; lazy++) {
        struct run r;
        open_by_hand(&r, lazy ? "pinned_lazy" : "pinned", horizon);
        for (size_t k = 0; k < n; k++) {
            const int leg =
                lazy ? latrec_legs_feed_lazy(r.legs, 0, &many_recs[k]) : latrec_legs_feed(r.legs, 0, &many_recs[k]);
            assert_true(leg >= 0);
            if (lazy && k % 256 == 255) latrec_legs_settle(r.legs);
        }
        latrec_legs_settle(r.legs);
        assert_int_equal(r.n_inst, before_finish);
        assert_int_equal(latrec_legs_cut_horizon(r.legs), 1);
        assert_int_equal(latrec_legs_next_cut(r.legs), t_of(oldest) + horizon);
        latrec_legs_finish(r.legs);
        assert_int_equal(r.n_inst, PINNED + 1);
        for (size_t i = 0; i < r.n_inst; i++) assert_int_equal(r.inst[i]->seq, pinned_want[i]);
        const latrec_instance *a = r.inst[cut_at - 1];
        assert_int_equal(a->complete, 0);
        assert_int_equal(a->hits[0].t_ns, BASE);
        assert_int_equal(a->hits[1].t_ns, 0);
        assert_int_equal(r.inst[0]->complete, 1);
        run_close(&r);
    }
}

/* Stamps within 100 us of 2^64 (a clock near its end): an instance's
 * horizon and grace end past 2^64, so none is due before the stream ends
 * (not wrapped to a deadline every later record is past, which cut every
 * instance); the 30 complete instances end at finish, complete, in seq
 * order, none cut. */
static void test_stamps_near_2_64(void **state)
{
    (void)state;
    struct run r;
    open_by_hand(&r, "near_2_64", 0);
    const int out = leg_of(&r, "outbound");
    const uint64_t t0 = UINT64_MAX - 100000 + 1; /* 2^64 - 100000 */
    for (uint64_t s = 1; s <= 30; s++) {
        const uint64_t t = t0 + 3000 * (s - 1);
        const latrec_rec v[] = { rec_of(ENQUEUE, 1, s, t, s), rec_of(DEQUEUE, 1, s, t + 500, s),
                                 rec_of(ENCODE_E3AP_DONE, 1, s, t + 1000, s), rec_of(SEND_DONE, 1, s, t + 1500, s) };
        for (size_t k = 0; k < 4; k++) assert_int_equal(latrec_legs_feed(r.legs, 0, &v[k]), out);
    }
    assert_int_equal(r.n_inst, 0);
    assert_int_equal(latrec_legs_next_cut(r.legs), UINT64_MAX);
    latrec_legs_finish(r.legs);
    assert_int_equal(r.n_inst, 30);
    for (size_t i = 0; i < 30; i++) {
        const latrec_instance *in = r.inst[i];
        assert_int_equal(in->seq, i + 1);
        assert_int_equal(in->complete, 1);
        assert_int_equal(in->first_t, t0 + 3000 * i);
        assert_int_equal(in->hits[3].t_ns, t0 + 3000 * i + 1500);
    }
    assert_int_equal(latrec_legs_evicted(r.legs), 0);
    assert_int_equal(latrec_legs_cut_horizon(r.legs), 0);
    run_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_stamp_moves_horizon),
        cmocka_unit_test(test_zero_last_stage_grace),
        cmocka_unit_test(test_long_chain_reversed),
        cmocka_unit_test(test_grace_many_exact_order),
        cmocka_unit_test(test_front_pinned_then_cut),
        cmocka_unit_test(test_stamps_near_2_64),
    };
    return cmocka_run_group_tests(tests, legs_setup, NULL);
}
