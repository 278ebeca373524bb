/*
 * test_legs_index.c - the leg builder's index of open instances: open
 * instances whose seqs are far apart or many at once, and an old instance
 * cut by the horizon behind thousands that ended after it opened.
 *
 * Rings are written byte by byte with ringgen.h into a directory per test,
 * read back with the reader (ringset + merge) and fed in time order, as
 * latrec convert does (legs_run.h). Every expected value is typed in from
 * the records written here.
 */
#define LEGS_TEST_ROOT LATREC_TEST_TMP "/legs_index"
#include "legs_run.h"

/* ---- open instances far apart in seq, and many at once ---------------------------- */

static int by_t(const void *a, const void *b)
{
    const struct r *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* Ten instances open at once whose seqs differ by multiples of 64 and of
 * 65536 (the builder files seqs by their low bits), their stages arriving
 * in the reverse order of their seqs, and 300 consecutive seqs open at
 * once: each instance gets its own four stamps, once. */
static void test_index_spread(void **state)
{
    (void)state;
    const char *dir = test_dir("spread");
    enum { SPREAD = 10, MANY = 300 };
    static struct r v[4 * (SPREAD + MANY)];
    static const unsigned st[4] = { ENQUEUE, DEQUEUE, ENCODE_E3AP_DONE, SEND_DONE };
    uint64_t seqs[SPREAD + MANY];
    size_t n = 0;
    for (int i = 0; i < SPREAD + MANY; i++) {
        seqs[i] = i < SPREAD ? 1 + 64ull * (uint64_t)i + (i >= 5 ? 65536ull * 3 : 0) : 1000 + (uint64_t)(i - SPREAD);
        for (int k = 0; k < 4; k++) {
            /* stage k of instance i at 10 us * k + 10 ns * (i, or its reverse for odd k) */
            const uint64_t order = k & 1 ? (uint64_t)(SPREAD + MANY - 1 - i) : (uint64_t)i;
            v[n++] = (struct r){ seqs[i], st[k], BASE + 10000ull * (uint64_t)k + 10 * order, (uint64_t)i, 0 };
        }
    }
    qsort(v, n, sizeof v[0], by_t);
    make_ring(dir, "libe3.outbound.1", 3, 1000, 1, v, n);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 0, 0);
    run_feed(&r, 1);
    const int out = leg_of(&r, "outbound");
    assert_int_equal(r.n_inst, SPREAD + MANY);
    for (int i = 0; i < SPREAD + MANY; i++) {
        const latrec_instance *in = find_inst(&r, out, 0, seqs[i], 0);
        assert_int_equal(in->complete, 1);
        for (int k = 0; k < 4; k++) {
            const uint64_t order = k & 1 ? (uint64_t)(SPREAD + MANY - 1 - i) : (uint64_t)i;
            assert_int_equal(in->hits[k].t_ns, BASE + 10000ull * (uint64_t)k + 10 * order);
            assert_int_equal(in->hits[k].aux, (uint64_t)i);
        }
    }
    assert_int_equal(latrec_legs_evicted(r.legs), 0);
    run_close(&r);
}

/* One instance that never completes (seq 1), then 3999 ENQUEUEs of seqs
 * 5, 6, 7, 5, 6, 7, ... 1 us apart, each ending the one three records
 * before (a seq reused): seq 1 stays the oldest open instance behind
 * thousands that ended, until the 3 ms horizon ends it at the first record
 * past BASE + 3 ms (the 3001st), before that record ends the instance of
 * record 2998. */
static void test_oldest_behind_ended(void **state)
{
    (void)state;
    const char *dir = test_dir("oldest");
    enum { N = 4000 };
    static struct r v[N];
    v[0] = (struct r){ 1, ENQUEUE, BASE, 0, 0 };
    for (int i = 1; i < N; i++) v[i] = (struct r){ 5 + (uint64_t)(i - 1) % 3, ENQUEUE, BASE + 1000ull * (uint64_t)i, (uint64_t)i, 0 };
    make_ring(dir, "libe3.outbound.1", 3, 1000, 1, v, N);
    const char *dirs[] = { dir };
    struct run r;
    run_open(&r, dirs, 1, 3 * MS, 0);
    run_feed(&r, 1);
    assert_int_equal(r.n_inst, N);
    for (size_t k = 0, i = 1; k < N; k++) {
        const latrec_instance *in = r.inst[k];
        if (k == 2997) { /* ended by the horizon at record 3001 */
            assert_int_equal(in->seq, 1);
            assert_int_equal(in->hits[0].t_ns, BASE);
            continue;
        }
        assert_int_equal(in->seq, 5 + (i - 1) % 3);
        assert_int_equal(in->hits[0].t_ns, BASE + 1000ull * i);
        assert_int_equal(in->hits[0].aux, i);
        assert_int_equal(in->complete, 0);
        i++;
    }
    assert_int_equal(latrec_legs_cut_horizon(r.legs), 1);
    run_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_spread),
        cmocka_unit_test(test_oldest_behind_ended),
    };
    return cmocka_run_group_tests(tests, legs_setup, NULL);
}
