/*
 * test_legs_lazy.c - the lazy feed (latrec_legs_feed_lazy): an instance
 * whose grace ran out stays open until a settle or a record that needs it
 * gone, and once settled the builder is as latrec_legs_feed left it.
 *
 * Cases worked by hand (a late extra, and a missing chain stage, for an
 * instance past its grace, fed lazily: the old instance ends at that
 * record, before a new one opens; finish ends what is past its grace
 * first), then random streams (late extras before and after their
 * grace, seqs used again, seqs a window's size apart, stamps of 0,
 * uncatalogued stages, small horizons and max_open) fed to two builders,
 * one by latrec_legs_feed and one lazily, settled every k records: the
 * same instances in the same order, byte for byte, and the same counts at
 * every settle.
 */
#define LEGS_TEST_ROOT LATREC_TEST_TMP "/legs_lazy"
#include "legs_run.h"

enum { DELIVER_BEGIN = 0x27, DELIVER_DONE = 0x28 }; /* typed in from ring-format.md */

static latrec_rec rec_of(unsigned stage, uint64_t seq, uint64_t t, uint64_t aux)
{
    return (latrec_rec){ (uint64_t)stage << 56 | (uint64_t)1 << 48 | seq, t, aux, aux + 1 };
}

/* Two rings of process 1000 in test directory `name`, for records fed by
 * hand as rings 0 and 1. */
static void open_two(struct run *r, const char *name, uint64_t horizon, size_t max_open)
{
    const char *dir = test_dir(name);
    const struct r one[] = { { 1, ENQUEUE, BASE, 0, 0 } };
    make_ring(dir, "libe3.outbound.1", 3, 1000, 1, one, 1);
    make_ring(dir, "libe3.outbound.2", 3, 1000, 2, one, 1);
    const char *dirs[] = { dir };
    run_open(r, dirs, 1, horizon, max_open);
}

/* Seq 1 complete at BASE + 3000, in grace until 10 ms later; seq 2 opened
 * at BASE + 100. Seq 2's DEQUEUE past seq 1's grace: fed lazily, seq 1
 * stays open (nothing emitted). A DROP of seq 1 after its grace: seq 1 ends
 * first (complete, no DROP), then a new instance of seq 1 opens with the
 * DROP alone. finish: seq 2, then the new seq 1 (order of creation). */
static void test_late_extra_past_grace(void **state)
{
    (void)state;
    struct run r;
    open_two(&r, "late_extra", 0, 0);
    const int out = leg_of(&r, "outbound");
    const uint64_t after = BASE + 3000 + LATREC_LEGS_GRACE_NS;
    const latrec_rec v[] = {
        rec_of(ENQUEUE, 1, BASE, 10),          rec_of(ENQUEUE, 2, BASE + 100, 20),
        rec_of(DEQUEUE, 1, BASE + 1000, 11),   rec_of(ENCODE_E3AP_DONE, 1, BASE + 2000, 12),
        rec_of(SEND_DONE, 1, BASE + 3000, 13), rec_of(DEQUEUE, 2, after + 500, 21),
        rec_of(DROP, 1, after + 600, 14),
    };
    for (size_t k = 0; k < 6; k++) assert_int_equal(latrec_legs_feed_lazy(r.legs, 0, &v[k]), out);
    assert_int_equal(r.n_inst, 0);
    assert_int_equal(latrec_legs_n_open(r.legs), 2);
    assert_int_equal(latrec_legs_feed_lazy(r.legs, 1, &v[6]), out);
    assert_int_equal(r.n_inst, 1);
    const latrec_instance *a = r.inst[0];
    assert_int_equal(a->seq, 1);
    assert_int_equal(a->complete, 1);
    assert_int_equal(a->hits[3].t_ns, BASE + 3000);
    assert_int_equal(a->hits[5].t_ns, 0); /* the DROP went to a new instance */
    assert_int_equal(latrec_legs_n_open(r.legs), 2);
    latrec_legs_settle(r.legs);
    assert_int_equal(r.n_inst, 1);
    latrec_legs_finish(r.legs);
    assert_int_equal(r.n_inst, 3);
    assert_int_equal(r.inst[1]->seq, 2);
    assert_int_equal(r.inst[1]->hits[1].t_ns, after + 500);
    assert_int_equal(r.inst[2]->seq, 1);
    assert_int_equal(r.inst[2]->first_t, after + 600);
    assert_int_equal(r.inst[2]->hits[5].t_ns, after + 600);
    assert_int_equal(r.inst[2]->hits[5].ring, 1);
    assert_int_equal(r.inst[2]->complete, 0);
    assert_int_equal(latrec_legs_evicted(r.legs), 0);
    run_close(&r);
}

/* Seq 2 opens first, then seq 1, which lacks DEQUEUE when its SEND_DONE
 * starts its grace. Past that grace, seq 2's DEQUEUE (fed lazily: nothing
 * ends), then seq 1's DEQUEUE: the usual stage of one leg for an instance
 * that lacks it, yet its grace is over: seq 1 ends first, incomplete, and a
 * new seq 1 opens. With only seq 2's DEQUEUE fed, finish still ends seq 1
 * first (its grace ran out before that record), not in order of creation. */
static void test_chain_stage_past_grace(void **state)
{
    (void)state;
    const uint64_t after = BASE + 3000 + LATREC_LEGS_GRACE_NS;
    const latrec_rec v[] = {
        rec_of(ENQUEUE, 2, BASE, 20),
        rec_of(ENQUEUE, 1, BASE + 100, 10),
        rec_of(ENCODE_E3AP_DONE, 1, BASE + 2000, 12),
        rec_of(SEND_DONE, 1, BASE + 3000, 13),
        rec_of(DEQUEUE, 2, after + 500, 21),
        rec_of(DEQUEUE, 1, after + 600, 11),
    };
    for (int whole = 0; whole <= 1; whole++) {
        struct run r;
        open_two(&r, whole ? "stage_past_grace" : "finish_past_grace", 0, 0);
        const int out = leg_of(&r, "outbound");
        for (size_t k = 0; k < 5 + (size_t)whole; k++) assert_int_equal(latrec_legs_feed_lazy(r.legs, 0, &v[k]), out);
        assert_int_equal(r.n_inst, (size_t)whole);
        latrec_legs_finish(r.legs);
        assert_int_equal(r.n_inst, 2 + (size_t)whole);
        const latrec_instance *a = r.inst[0];
        assert_int_equal(a->seq, 1);
        assert_int_equal(a->complete, 0);
        assert_int_equal(a->hits[1].t_ns, 0);
        assert_int_equal(a->hits[3].t_ns, BASE + 3000);
        assert_int_equal(r.inst[1]->seq, 2);
        assert_int_equal(r.inst[1]->hits[1].t_ns, after + 500);
        if (whole) {
            assert_int_equal(r.inst[2]->seq, 1);
            assert_int_equal(r.inst[2]->first_t, after + 600);
            assert_int_equal(r.inst[2]->hits[0].t_ns, 0);
            assert_int_equal(r.inst[2]->hits[1].t_ns, after + 600);
        }
        run_close(&r);
    }
}

/* ---- random streams, both ways ---------------------------------------------- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

struct fed {
    latrec_rec rec;
    uint32_t ring;
};

enum { MSGS = 6000, MAX_RECS = MSGS * 10 };
static struct fed recs[MAX_RECS];
static latrec_merged block[MAX_RECS]; /* the records a lane feeds in one call */

static int fed_by_t(const void *a, const void *b)
{
    const struct fed *x = a, *y = b;
    if (x->rec.t_ns != y->rec.t_ns) return x->rec.t_ns < y->rec.t_ns ? -1 : 1;
    return x->rec.aux < y->rec.aux ? -1 : x->rec.aux > y->rec.aux; /* aux: write order */
}

/* Outbound messages every ~5 us with hops of 1-40 us, some stages
 * missing, some stamped 0 (they sort first), seqs now and then used again
 * (within or after the old one's grace, some 2000 messages) or a window's
 * size ahead, extras before and after their grace, an uncatalogued stage
 * now and then; between them deliver-leg instances (no extras: each ends
 * at its last stage). Returns the records, in time order. */
static size_t make_stream(uint64_t seed)
{
    rng_state = seed;
    static const unsigned chain[] = { ENQUEUE, DEQUEUE, ENCODE_E3AP_DONE, SEND_DONE };
    size_t n = 0;
    uint64_t aux = 0;
    for (uint64_t m = 1; m <= MSGS; m++) {
        uint64_t seq = m;
        const uint64_t roll = rnd() % 100;
        if (roll < 3 && m > 4000) seq = m - 1 - rnd() % 4000; /* used again */
        else if (roll < 6) seq = m + 64 * (1 + rnd() % 4);    /* on a live window entry */
        uint64_t t = BASE + 5000 * m + rnd() % 3000;
        const uint32_t ring = (uint32_t)(rnd() % 2);
        if (rnd() % 4 == 0) recs[n++] = (struct fed){ rec_of(EMIT_ENTER, seq, t - 700, ++aux), ring };
        for (int k = 0; k < 4; k++) {
            const uint64_t r = rnd() % 100;
            if (r < 8) continue; /* missing */
            recs[n++] = (struct fed){ rec_of(chain[k], seq, r < 10 ? 0 : t, ++aux), (uint32_t)(rnd() % 2) };
            t += 1000 + rnd() % 40000;
        }
        const uint64_t late = rnd() % 100;
        if (late < 15) /* a DROP within or past its grace */
            recs[n++] = (struct fed){ rec_of(DROP, seq, t + rnd() % (2 * LATREC_LEGS_GRACE_NS), ++aux), ring };
        if (late >= 97) recs[n++] = (struct fed){ rec_of(0x7e, seq, t + rnd() % 30000, ++aux), ring };
        if (late % 4 == 1) {
            const uint64_t d = m / 4, t0 = BASE + 5000 * m + rnd() % 3000;
            recs[n++] = (struct fed){ rec_of(DELIVER_BEGIN, d, t0, ++aux), ring };
            if (rnd() % 8) recs[n++] = (struct fed){ rec_of(DELIVER_DONE, d, t0 + rnd() % 20000, ++aux), ring };
        }
    }
    qsort(recs, n, sizeof recs[0], fed_by_t);
    return n;
}

static void same_counts(const struct run *a, const struct run *b)
{
    assert_int_equal(a->n_inst, b->n_inst);
    assert_int_equal(latrec_legs_n_open(a->legs), latrec_legs_n_open(b->legs));
    assert_int_equal(latrec_legs_next_cut(a->legs), latrec_legs_next_cut(b->legs));
    assert_int_equal(latrec_legs_cut_horizon(a->legs), latrec_legs_cut_horizon(b->legs));
    assert_int_equal(latrec_legs_cut_room(a->legs), latrec_legs_cut_room(b->legs));
    assert_int_equal(latrec_legs_evicted(a->legs), latrec_legs_evicted(b->legs));
    assert_int_equal(latrec_legs_cross_process(a->legs), latrec_legs_cross_process(b->legs));
}

/* The instances of b, emitted as a's were. */
static void same_instances(const struct run *a, const struct run *b)
{
    assert_int_equal(a->n_inst, b->n_inst);
    for (size_t i = 0; i < a->n_inst; i++) {
        const latrec_instance *x = a->inst[i], *y = b->inst[i];
        assert_int_equal(x->leg, y->leg);
        assert_int_equal(x->process, y->process);
        assert_int_equal(x->seq, y->seq);
        assert_int_equal(x->component, y->component);
        assert_int_equal(x->complete, y->complete);
        assert_int_equal(x->first_t, y->first_t);
        assert_int_equal(x->n_hits, y->n_hits);
        assert_memory_equal(x->hits, y->hits, (size_t)x->n_hits * sizeof(latrec_hit)); /* no padding */
    }
}

/* One stream fed three ways: record by record, lazily record by record,
 * and lazily a block of `every` records per call (as a lane feeds them,
 * latrec_legs_feed_lazy_merged), the lazy builders settled every `every`
 * records: returns the instances emitted. */
static size_t both_ways(uint64_t seed, uint64_t horizon, size_t max_open, size_t every)
{
    const size_t n = make_stream(seed);
    struct run exact, lazy, blocks;
    open_two(&exact, "exact", horizon, max_open);
    open_two(&lazy, "lazy", horizon, max_open);
    open_two(&blocks, "blocks", horizon, max_open);
    size_t from = 0; /* the first record the block feed has not had */
    for (size_t k = 0; k < n; k++) {
        const int a = latrec_legs_feed(exact.legs, recs[k].ring, &recs[k].rec);
        const int b = latrec_legs_feed_lazy(lazy.legs, recs[k].ring, &recs[k].rec);
        assert_int_equal(a, b);
        assert_true(lazy.n_inst <= exact.n_inst);
        block[k] = (latrec_merged){ .t_ns = recs[k].rec.t_ns, .ring = recs[k].ring, .pos = k, .rec = recs[k].rec };
        if ((k + 1) % every == 0 || k + 1 == n) {
            assert_int_equal(latrec_legs_feed_lazy_merged(blocks.legs, &block[from], k + 1 - from), 0);
            from = k + 1;
        }
        if ((k + 1) % every == 0) {
            latrec_legs_settle(lazy.legs);
            latrec_legs_settle(blocks.legs);
            same_counts(&exact, &lazy);
            same_counts(&exact, &blocks);
        }
    }
    latrec_legs_finish(exact.legs);
    latrec_legs_finish(lazy.legs); /* settles first */
    latrec_legs_finish(blocks.legs);
    same_counts(&exact, &lazy);
    same_counts(&exact, &blocks);
    same_instances(&exact, &lazy);
    same_instances(&exact, &blocks);
    const size_t got = exact.n_inst;
    run_close(&exact);
    run_close(&lazy);
    run_close(&blocks);
    return got;
}

static void test_random_streams_both_ways(void **state)
{
    (void)state;
    const struct {
        uint64_t horizon;
        size_t max_open, every;
    } cfg[] = {
        { 0, 0, 1 },        { 0, 0, 7 },        { 0, 0, 256 },         { 0, 0, MAX_RECS },
        { 30 * MS, 0, 64 }, { 2 * MS, 0, 256 }, { 0, 40, 16 },         { 5 * MS, 100, 255 },
        { 0, 1500, 64 },    { 0, 2100, 256 },   { 12 * MS, 2300, 33 },
    };
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++)
        for (uint64_t seed = 1; seed <= 3; seed++)
            assert_true(both_ways(0x9e3779b97f4a7c15ull * (seed + 7 * c), cfg[c].horizon, cfg[c].max_open,
                                  cfg[c].every) > MSGS / 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_late_extra_past_grace),
        cmocka_unit_test(test_chain_stage_past_grace),
        cmocka_unit_test(test_random_streams_both_ways),
    };
    return cmocka_run_group_tests(tests, legs_setup, NULL);
}
