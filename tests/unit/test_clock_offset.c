/*
 * test_clock_offset.c - the host clock offset estimator (analyze/
 * clock_offset.h) on exchanges whose stamps are typed in: B's clock = A's +
 * theta, one-way delays d1 (A -> B) and d2 (B -> A), remote time r.
 * Every expected figure is worked out by hand next to it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analyze/clock_offset.h"

/* One exchange from A's t1 with the given truth. */
static void exchange(latrec_offset_est *e, uint64_t t1, int64_t theta, uint64_t d1, uint64_t r, uint64_t d2)
{
    const uint64_t t2 = t1 + d1 + (uint64_t)theta; /* B's clock */
    const uint64_t t3 = t2 + r;
    const uint64_t t4 = t3 - (uint64_t)theta + d2; /* back on A's clock */
    latrec_offset_add(e, t1, t2, t3, t4);
}

static void test_one_exchange_is_ntp(void **state)
{
    (void)state;
    latrec_offset_est e;
    latrec_offset_init(&e);
    int64_t off, bound;
    int consistent;
    assert_int_equal(latrec_offset_result(&e, &off, &bound, &consistent), 0);
    /* t1 = 1000, t2 = 6300, t3 = 6500, t4 = 2000: theta = (5300 + 4500) / 2
     * = 4900, bound = ((2000 - 1000) - (6500 - 6300)) / 2 = 400 */
    latrec_offset_add(&e, 1000, 6300, 6500, 2000);
    assert_int_equal(latrec_offset_result(&e, &off, &bound, &consistent), 1);
    assert_int_equal(off, 4900);
    assert_int_equal(bound, 400);
    assert_int_equal(consistent, 1);
    assert_int_equal(e.n, 1);
    /* the truth (5000: d1 = 300, d2 = 500) is within the bound */
    assert_true(5000 >= off - bound && 5000 <= off + bound);
}

static void test_intersection_tightens(void **state)
{
    (void)state;
    latrec_offset_est e;
    latrec_offset_init(&e);
    /* theta 5000: [t3 - t4, t2 - t1] = [5000 - d2, 5000 + d1] */
    exchange(&e, 1000, 5000, 300, 200, 500);  /* [4500, 5300] */
    exchange(&e, 100000, 5000, 100, 50, 900); /* [4100, 5100] */
    exchange(&e, 200000, 5000, 700, 10, 40);  /* [4960, 5700] */
    int64_t off, bound;
    int consistent;
    assert_int_equal(latrec_offset_result(&e, &off, &bound, &consistent), 1);
    /* [4960, 5100]: 5030 +- 70, tighter than the best single one (+-370) */
    assert_int_equal(off, 5030);
    assert_int_equal(bound, 70);
    assert_int_equal(consistent, 1);
    assert_int_equal(e.n, 3);
    assert_int_equal(e.best_rtt, 740);
    assert_int_equal(e.best_theta, 5330);
    /* an odd width rounds the bound up: [4960, 5101] -> 5030 +- 71 */
    latrec_offset_init(&e);
    latrec_offset_add(&e, 0, 5101, 5101, 141); /* [4960, 5101] */
    assert_int_equal(latrec_offset_result(&e, &off, &bound, &consistent), 1);
    assert_int_equal(off, 5030);
    assert_int_equal(bound, 71);
}

static void test_symmetric_delays_exact(void **state)
{
    (void)state;
    latrec_offset_est e;
    latrec_offset_init(&e);
    for (uint64_t i = 0; i < 100; i++) exchange(&e, 1000000 * i + 7, -123456, 800 + i, 3000, 800 + i);
    int64_t off, bound;
    int consistent;
    assert_int_equal(latrec_offset_result(&e, &off, &bound, &consistent), 1);
    /* [-123456 - 800, -123456 + 800] for the smallest delays */
    assert_int_equal(off, -123456);
    assert_int_equal(bound, 800);
    assert_int_equal(consistent, 1);
}

static void test_drift_falls_back_to_smallest_round_trip(void **state)
{
    (void)state;
    latrec_offset_est e;
    latrec_offset_init(&e);
    exchange(&e, 1000, 5000, 100, 10, 100);   /* [4900, 5100], rtt 200 */
    exchange(&e, 900000, 9000, 300, 10, 100); /* [8900, 9300], rtt 400: disjoint */
    int64_t off, bound;
    int consistent;
    assert_int_equal(latrec_offset_result(&e, &off, &bound, &consistent), 1);
    assert_int_equal(consistent, 0);
    assert_int_equal(off, 5000);
    assert_int_equal(bound, 100);
    /* a negative round trip (a stamp not where the message was) is counted
     * and left out */
    latrec_offset_add(&e, 1000, 1000, 5000, 1000); /* [4000, 0] */
    assert_int_equal(e.negative_rtt, 1);
    assert_int_equal(e.n, 2);
}

/* Directory pairs: the pair keeps the higher directory minus the lower,
 * latrec_offsets_get() answers either order. */
static void test_pairs(void **state)
{
    (void)state;
    static latrec_offsets o;
    latrec_offsets_init(&o, 3);
    exchange(&o.pair[0][2], 1000, 7000, 100, 50, 300); /* [6700, 7100] */
    int64_t off, bound;
    int consistent;
    uint64_t n;
    assert_int_equal(latrec_offsets_get(&o, 0, 2, &off, &bound, &consistent, &n), 1);
    assert_int_equal(off, 6900);
    assert_int_equal(bound, 200);
    assert_int_equal(n, 1);
    assert_int_equal(latrec_offsets_get(&o, 2, 0, &off, &bound, &consistent, &n), 1);
    assert_int_equal(off, -6900);
    assert_int_equal(bound, 200);
    assert_int_equal(latrec_offsets_get(&o, 0, 1, &off, &bound, &consistent, &n), 0);
    assert_int_equal(n, 0);
    assert_int_equal(latrec_offsets_get(&o, 1, 1, &off, &bound, &consistent, &n), 0);
    assert_int_equal(latrec_offsets_get(&o, 0, 3, &off, &bound, &consistent, &n), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_exchange_is_ntp),
        cmocka_unit_test(test_intersection_tightens),
        cmocka_unit_test(test_symmetric_delays_exact),
        cmocka_unit_test(test_drift_falls_back_to_smallest_round_trip),
        cmocka_unit_test(test_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
