/*
 * test_read_ring_wrap.c - one ring that wrapped: where its write order
 * starts (inversions, the slot-0 boundary, a slot a killed writer was
 * rewriting), two writers in one ring, and the written and lost counts.
 */
#define RING_TEST_DIR LATREC_TEST_TMP "/read_ring_wrap"
#include "read_ring_util.h"

/* ---- rule 3: wrap recovery --------------------------------------------- */

static void test_wrap_simple(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    make_ring(&g, 20, 1000 * MS, 10 * MS, 20);
    assert_int_equal(open_gen(&r, &g, "w.latrec"), 0);
    assert_int_equal(r.valid, 16);
    assert_true(r.wrapped);
    assert_int_equal(r.descents, 1);
    assert_int_equal(r.significant_descents, 1);
    assert_int_equal(r.start_slot, 4);
    assert_int_equal(r.newest_slot, 3);
    assert_int_equal(r.written, 20);
    assert_int_equal(r.lost, 4);
    assert_false(r.lost_lower_bound);
    assert_int_equal(r.first_t_ns, 1000 * MS + 4 * 10 * MS);
    assert_int_equal(r.last_t_ns, 1000 * MS + 19 * 10 * MS);
    assert_int_equal(latrec_rec_seq(r.first_rec.sc), 5);
    assert_int_equal(latrec_rec_seq(r.last_rec.sc), 20);
    assert_int_equal(r.min_seq, 5);
    assert_int_equal(r.max_seq, 20);
    expect_order(&r, 5, 16);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* A ring filled in well under 1 ms (records 1 us apart) still wraps. */
static void test_wrap_tiny_span(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    make_ring(&g, 27, 5000 * MS, 1 * US, 27);
    assert_int_equal(open_gen(&r, &g, "tiny.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.start_slot, 11);
    assert_int_equal(r.written, 27);
    assert_int_equal(r.lost, 11);
    expect_order(&r, 12, 16);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* stamp_at inversions of a few us right before the wrap point (the newest
 * record), right after it (the oldest), and away from it: none of them is
 * taken for the wrap, which stays where the newest meets the oldest. */
static void test_wrap_with_inversions(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    uint64_t base = 2000 * MS, step = 100 * US;
    make_ring(&g, 24, base, step, 24);
    /* records 0..23: slots 8..15 hold records 8..15 (oldest), slots 0..7
     * hold records 16..23 (newest = slot 7). */
    /* newest record stamped 5 us before its predecessor */
    ringgen_set_rec(&g, 7, 24, 0, 0x21, base + 22 * step - 5 * US, 23, 0);
    /* the oldest's successor stamped 3 us before the oldest */
    ringgen_set_rec(&g, 9, 10, 0, 0x21, base + 8 * step - 3 * US, 9, 0);
    /* and one in the middle of the newer part */
    ringgen_set_rec(&g, 3, 20, 0, 0x21, base + 18 * step - 7 * US, 19, 0);
    assert_int_equal(open_gen(&r, &g, "inv.latrec"), 0);
    assert_int_equal(r.descents, 4);
    assert_int_equal(r.significant_descents, 1);
    assert_true(r.wrapped);
    assert_false(r.multi_writer);
    assert_int_equal(r.start_slot, 8);
    assert_int_equal(r.newest_slot, 7);
    assert_int_equal(r.written, 24);
    assert_int_equal(r.lost, 8);
    expect_order(&r, 9, 16);
    assert_int_equal(r.last_t_ns, base + 22 * step - 5 * US);
    latrec_ring_close(&r);

    /* the same inversions with a ring that did not wrap (exactly full):
     * no candidate spans half the ring, slot order stays */
    ringgen_free(&g);
    make_ring(&g, 16, base, step, 16);
    ringgen_set_rec(&g, 15, 16, 0, 0x21, base + 14 * step - 5 * US, 15, 0);
    ringgen_set_rec(&g, 1, 2, 0, 0x21, base - 3 * US, 1, 0);
    ringgen_set_rec(&g, 7, 8, 0, 0x21, base + 6 * step - 7 * US, 7, 0);
    assert_int_equal(open_gen(&r, &g, "inv0.latrec"), 0);
    assert_int_equal(r.descents, 3);
    assert_int_equal(r.significant_descents, 0);
    assert_false(r.wrapped);
    assert_int_equal(r.start_slot, 0);
    assert_int_equal(r.written, 16);
    assert_int_equal(r.lost, 0);
    expect_order(&r, 1, 16);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* A full ring with no descent wrapped exactly at the slot-0 boundary when
 * rec_count says so. */
static void test_wrap_at_boundary(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    make_ring(&g, 32, 1000 * MS, MS, 32);
    assert_int_equal(open_gen(&r, &g, "b32.latrec"), 0);
    assert_int_equal(r.descents, 0);
    assert_true(r.wrapped);
    assert_int_equal(r.start_slot, 0);
    assert_int_equal(r.newest_slot, 15);
    assert_int_equal(r.written, 32);
    assert_int_equal(r.lost, 16);
    assert_false(r.lost_lower_bound);
    expect_order(&r, 17, 16);
    latrec_ring_close(&r);

    /* rec_count 17 (stored when the index reached 16, plus one heartbeat):
     * the first n >= 17 ending at slot 15 is 32 */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 17);
    assert_int_equal(open_gen(&r, &g, "b17.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.written, 32);
    assert_int_equal(r.lost, 16);
    latrec_ring_close(&r);

    /* exactly full: rec_count 16, not wrapped */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 16);
    assert_int_equal(open_gen(&r, &g, "b16.latrec"), 0);
    assert_false(r.wrapped);
    assert_int_equal(r.written, 16);
    assert_int_equal(r.lost, 0);
    assert_false(r.lost_lower_bound);
    latrec_ring_close(&r);

    /* rec_count 0 (killed writer): cannot tell, lower bound */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 0);
    assert_int_equal(open_gen(&r, &g, "b0.latrec"), 0);
    assert_false(r.wrapped);
    assert_int_equal(r.written, 16);
    assert_int_equal(r.lost, 0);
    assert_true(r.lost_lower_bound);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* Two writers' records in one ring: more than one significant descent. */
static void test_multi_writer(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    assert_int_equal(ringgen_init(&g, 2, 16, "mw.1"), 0);
    /* A: 100..107 ms in slots 0,2,4..; B: 50..57 ms in slots 1,3,5.. */
    for (int i = 0; i < 16; i++)
        ringgen_stamp(&g, i + 1, 0, 0x21, (i % 2 ? 50 : 100) * MS + (i / 2) * MS, 0, 0);
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 40);
    assert_int_equal(open_gen(&r, &g, "mw.latrec"), 0);
    assert_int_equal(r.status, LATREC_RING_OK);
    assert_int_equal(r.descents, 8);
    assert_int_equal(r.significant_descents, 8);
    assert_true(r.multi_writer);
    assert_false(r.wrapped);
    assert_string_equal(r.warning, "not a single-writer ring (8 descents)");
    assert_int_equal(r.start_slot, 0);
    assert_int_equal(r.written, 40);
    assert_int_equal(r.lost, 24);
    expect_order(&r, 1, 16);
    latrec_ring_close(&r);

    /* a wrap plus one more big descent elsewhere: two significant */
    ringgen_free(&g);
    make_ring(&g, 20, 1000 * MS, 10 * MS, 20);
    ringgen_set_rec(&g, 10, 11, 0, 0x21, 1000 * MS + 5 * 10 * MS, 0, 0);
    assert_int_equal(open_gen(&r, &g, "mw2.latrec"), 0);
    assert_int_equal(r.descents, 2);
    assert_int_equal(r.significant_descents, 2);
    assert_true(r.multi_writer);
    assert_false(r.wrapped);
    assert_string_equal(r.warning, "not a single-writer ring (2 descents)");
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* ---- rule 4: loss ------------------------------------------------------- */

static void test_loss(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    /* 45 written into 16: newest at slot (45-1) mod 16 = 12 */
    make_ring(&g, 45, 1000 * MS, MS, 45);
    assert_int_equal(open_gen(&r, &g, "l45.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.newest_slot, 12);
    assert_int_equal(r.start_slot, 13);
    assert_int_equal(r.written, 45);
    assert_int_equal(r.lost, 29);
    assert_false(r.lost_lower_bound);
    latrec_ring_close(&r);

    /* rec_count last stored when the index reached 32: exact again */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 32);
    assert_int_equal(open_gen(&r, &g, "l32.latrec"), 0);
    assert_int_equal(r.written, 45);
    assert_int_equal(r.lost, 29);
    assert_false(r.lost_lower_bound);
    latrec_ring_close(&r);

    /* killed writer (rec_count 0): congruent lower bound 16 + 13 = 29 */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 0);
    assert_int_equal(open_gen(&r, &g, "l0.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.written, 29);
    assert_int_equal(r.lost, 13);
    assert_true(r.lost_lower_bound);
    assert_int_equal(r.written % 16, 45 % 16);
    latrec_ring_close(&r);

    /* stale heartbeat below the capacity: same lower bound */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, 9);
    assert_int_equal(open_gen(&r, &g, "l9.latrec"), 0);
    assert_int_equal(r.written, 29);
    assert_true(r.lost_lower_bound);
    latrec_ring_close(&r);

    /* an impossible rec_count: no overflow, said so, saturated at 2^63 - 1
     * (what every output, JSON included, holds) as a lower bound */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, UINT64_MAX);
    assert_int_equal(open_gen(&r, &g, "lmax.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.written, INT64_MAX);
    assert_int_equal(r.lost, INT64_MAX);
    assert_true(r.lost_lower_bound);
    assert_string_equal(r.warning, "rec_count 18446744073709551615 is implausible: "
                                   "loss is not exact");
    latrec_ring_close(&r);

    /* congruent with the newest slot, so no overflow either: 2^64 - 19
     * written would be 2^64 - 35 lost (printed as -35 by a signed
     * figure); saturated instead */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, UINT64_MAX - 18);
    assert_int_equal(open_gen(&r, &g, "lbig.latrec"), 0);
    assert_int_equal((UINT64_MAX - 18 - 1) % 16, r.newest_slot);
    assert_int_equal(r.written, INT64_MAX);
    assert_int_equal(r.lost, INT64_MAX);
    assert_true(r.lost_lower_bound);
    assert_string_equal(r.warning, "rec_count 18446744073709551597 is implausible: "
                                   "loss is not exact");
    latrec_ring_close(&r);

    /* 2^63 - 1 itself is still a plausible count */
    ringgen_set_u64(&g, RINGGEN_OFF_REC_COUNT, (uint64_t)INT64_MAX - 2);
    assert_int_equal(open_gen(&r, &g, "l63.latrec"), 0);
    assert_int_equal(r.written, INT64_MAX - 2);
    assert_int_equal(r.lost, INT64_MAX - 18);
    assert_false(r.lost_lower_bound);
    assert_string_equal(r.warning, "");
    latrec_ring_close(&r);
    ringgen_free(&g);
}

/* A writer killed in the middle of a stamp after wrapping leaves the slot it
 * was rewriting empty (the stamp clears t_ns first). The ring is still
 * wrapped, its order starts after the empty slot, and the count is exact
 * from a rec_count refreshed every entries/2 records. */
static void test_in_progress_slot(void **state)
{
    (void)state;
    ringgen g;
    latrec_ring r;
    /* 45 completed, the 46th (index 45, slot 13) in progress */
    make_ring(&g, 46, 1000 * MS, MS, 40);
    ringgen_set_rec(&g, 13, 0, 0, 0, 0, 0, 0);
    assert_int_equal(open_gen(&r, &g, "ip45.latrec"), 0);
    assert_true(r.wrapped);
    assert_false(r.multi_writer);
    assert_int_equal(r.valid, 15);
    assert_int_equal(r.newest_slot, 12);
    assert_int_equal(r.start_slot, 14);
    assert_int_equal(r.written, 45);
    assert_int_equal(r.lost, 30);
    assert_false(r.lost_lower_bound);
    expect_order(&r, 31, 15); /* seqs 31..45: records 30..44 */
    latrec_ring_close(&r);

    /* in progress at slot 0: the newest record is in the last slot */
    ringgen_free(&g);
    make_ring(&g, 49, 1000 * MS, MS, 40);
    ringgen_set_rec(&g, 0, 0, 0, 0, 0, 0, 0);
    assert_int_equal(open_gen(&r, &g, "ip48.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.newest_slot, 15);
    assert_int_equal(r.start_slot, 1);
    assert_int_equal(r.written, 48);
    assert_int_equal(r.lost, 33);
    expect_order(&r, 34, 15);
    latrec_ring_close(&r);

    /* in progress at the last slot of a later lap: order as written, the
     * count from rec_count */
    ringgen_free(&g);
    make_ring(&g, 48, 1000 * MS, MS, 40);
    ringgen_set_rec(&g, 15, 0, 0, 0, 0, 0, 0);
    assert_int_equal(open_gen(&r, &g, "ip47.latrec"), 0);
    assert_true(r.wrapped);
    assert_int_equal(r.newest_slot, 14);
    assert_int_equal(r.written, 47);
    assert_int_equal(r.lost, 32);
    expect_order(&r, 33, 15);
    latrec_ring_close(&r);

    /* the same picture in the first lap is just a ring not yet full */
    ringgen_free(&g);
    make_ring(&g, 15, 1000 * MS, MS, 8);
    assert_int_equal(open_gen(&r, &g, "first.latrec"), 0);
    assert_false(r.wrapped);
    assert_int_equal(r.written, 15);
    assert_int_equal(r.lost, 0);
    latrec_ring_close(&r);
    ringgen_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrap_simple),
        cmocka_unit_test(test_wrap_tiny_span),
        cmocka_unit_test(test_wrap_with_inversions),
        cmocka_unit_test(test_wrap_at_boundary),
        cmocka_unit_test(test_multi_writer),
        cmocka_unit_test(test_loss),
        cmocka_unit_test(test_in_progress_slot),
    };
    return cmocka_run_group_tests(tests, setup_dir, NULL);
}
