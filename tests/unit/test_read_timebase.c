/*
 * TSC rings in the reader: the conversion of TSC counts to CLOCK_MONOTONIC
 * ns on synthetic calibration pairs (expected values computed beforehand
 * with arbitrary-precision integers, floor division), exactness past the
 * last pair, and whole TSC rings written byte by byte (ringgen.h) read
 * through latrec_ring_open: converted records and extremes, and the header
 * combinations that are rejected.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/ring.h"
#include "read/timebase.h"
#include "ringgen.h"

/* Three pairs: ~3 counts per ns, not an integer rate, two different
 * segment rates. */
static const latrec_cal P[3] = {
    { 1000000ull, 2000000000ull },
    { 6001000007ull, 4000000000ull },
    { 15001000007ull, 7000000003ull },
};

static void build(latrec_tsc_map *m)
{
    assert_int_equal(latrec_tsc_map_build(m, P, 3), 0);
    assert_int_equal(m->n, 3);
}

static void test_pairs_convert_to_their_own_clock_reading(void **state)
{
    (void)state;
    latrec_tsc_map m;
    build(&m);
    for (int i = 0; i < 3; i++) assert_int_equal(latrec_tsc_to_mono(&m, P[i].tsc), P[i].mono_ns);
}

static void test_between_pairs_floor_of_the_segment_rate(void **state)
{
    (void)state;
    latrec_tsc_map m;
    build(&m);
    /* tsc -> expected (Python: m_a + (t - t_a) * (m_b - m_a) // (t_b - t_a)) */
    static const uint64_t want[][2] = {
        { 1000001ull, 2000000000ull },     { 3000000000ull, 2999666665ull },  { 6001000006ull, 3999999999ull },
        { 10000000000ull, 5332999998ull }, { 15001000006ull, 7000000002ull },
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        assert_int_equal(latrec_tsc_to_mono(&m, want[i][0]), want[i][1]);
}

static void test_past_the_last_pair_exact_with_no_drift(void **state)
{
    (void)state;
    latrec_tsc_map m;
    build(&m);
    assert_int_equal(latrec_tsc_to_mono(&m, 15001000008ull), 7000000003ull);
    assert_int_equal(latrec_tsc_to_mono(&m, 20000000000ull), 8666333334ull);
    assert_int_equal(latrec_tsc_to_mono(&m, UINT64_MAX), 6148914694056039163ull);
    /* k whole first-to-last spans past the last pair: exactly k times the
     * clock span, however large k (no per-step rounding accumulates). */
    const uint64_t dt = P[2].tsc - P[0].tsc, dm = P[2].mono_ns - P[0].mono_ns;
    for (uint64_t k = 1; k <= 1000000000ull; k *= 10) {
        assert_int_equal(latrec_tsc_to_mono(&m, P[2].tsc + k * dt), P[2].mono_ns + k * dm);
        /* and one count before such a point is strictly less (floor) */
        assert_true(latrec_tsc_to_mono(&m, P[2].tsc + k * dt - 1) < P[2].mono_ns + k * dm);
    }
}

static void test_before_the_first_pair_and_never_zero(void **state)
{
    (void)state;
    latrec_tsc_map m;
    build(&m);
    assert_int_equal(latrec_tsc_to_mono(&m, 999999ull), 1999999999ull);
    assert_int_equal(latrec_tsc_to_mono(&m, 1ull), 1999666666ull);
    assert_int_equal(latrec_tsc_to_mono(&m, 0ull), 1999666666ull);
    /* a count so early it would map before 0 gives 1 (still a valid stamp) */
    const latrec_cal early[2] = { { 1000000000ull, 10ull }, { 2000000000ull, 1000000010ull } };
    latrec_tsc_map e;
    assert_int_equal(latrec_tsc_map_build(&e, early, 2), 0);
    assert_int_equal(latrec_tsc_to_mono(&e, 5ull), 1ull);
}

static void test_saturates_and_never_decreases(void **state)
{
    (void)state;
    const latrec_cal fast[2] = { { 1ull, 1ull }, { 2ull, 1000ull } }; /* 999 ns per count */
    latrec_tsc_map f;
    assert_int_equal(latrec_tsc_map_build(&f, fast, 2), 0);
    assert_int_equal(latrec_tsc_to_mono(&f, UINT64_MAX), UINT64_MAX);
    latrec_tsc_map m;
    build(&m);
    uint64_t prev = 0;
    for (uint64_t t = 0; t < 20000000000ull; t += 7777777ull) {
        const uint64_t v = latrec_tsc_to_mono(&m, t);
        assert_true(v >= prev);
        prev = v;
    }
}

static void test_map_keeps_ordered_pairs_drops_the_rest(void **state)
{
    (void)state;
    /* given out of order, with empty slots, a duplicate tsc and a pair whose
     * clock goes back: sorted, the three good ones kept, two dropped */
    const latrec_cal raw[8] = {
        P[2],
        { 0, 0 },
        P[0],
        { 7000000000ull, 3000000000ull } /* clock back */,
        P[1],
        { 6001000007ull, 4000000001ull } /* same tsc */,
        { 123, 0 } /* empty */,
        { 0, 0 },
    };
    latrec_tsc_map m;
    assert_int_equal(latrec_tsc_map_build(&m, raw, 8), 0);
    assert_int_equal(m.n, 3);
    assert_int_equal(m.dropped, 2);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(m.p[i].tsc, P[i].tsc);
        assert_int_equal(m.p[i].mono_ns, P[i].mono_ns);
    }
    const latrec_cal one[2] = { P[0], { 0, 0 } };
    assert_int_equal(latrec_tsc_map_build(&m, one, 2), -1);
    assert_int_equal(m.n, 1);
}

/* ---- whole rings -------------------------------------------------------- */

static char dir[256];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "%s/test_read_timebase-%d", LATREC_TEST_TMP, (int)getpid());
    mkdir(dir, 0755);
    return 0;
}

/* A v3 TSC ring of 16 entries named tsc.1 with P's pairs and `n` records at
 * the counts given (seq i + 1, ENQUEUE). */
static void tsc_ring(ringgen *g, const uint64_t *counts, int n)
{
    assert_int_equal(ringgen_init(g, 3, 16, "tsc.1"), 0);
    const uint64_t t[3] = { P[0].tsc, P[1].tsc, P[2].tsc };
    const uint64_t mo[3] = { P[0].mono_ns, P[1].mono_ns, P[2].mono_ns };
    ringgen_make_tsc(g, t, mo, 3);
    for (int i = 0; i < n; i++) ringgen_stamp(g, (uint64_t)i + 1, 0, 0x21, counts[i], 0, 0);
    ringgen_set_u64(g, RINGGEN_OFF_REC_COUNT, (uint64_t)n);
}

static int open_written(ringgen *g, latrec_ring *r, char *path, size_t len)
{
    snprintf(path, len, "%s/tsc.1.latrec", dir);
    unlink(path);
    assert_int_equal(ringgen_write(g, path), 0);
    ringgen_free(g);
    return latrec_ring_open(r, path);
}

static void test_tsc_ring_reads_as_monotonic_ns(void **state)
{
    (void)state;
    const uint64_t counts[4] = { 1000001ull, 3000000000ull, 10000000000ull, 20000000000ull };
    const uint64_t want[4] = { 2000000000ull, 2999666665ull, 5332999998ull, 8666333334ull };
    ringgen g;
    tsc_ring(&g, counts, 4);
    latrec_ring r;
    char path[400];
    assert_int_equal(open_written(&g, &r, path, sizeof(path)), 0);
    assert_int_equal(r.timebase, 1);
    assert_int_equal(r.clock_id, 1);
    assert_non_null(r.tsc);
    assert_int_equal(r.cal_taken, 3);
    assert_int_equal(r.valid, 4);
    assert_int_equal(r.first_t_ns, want[0]);
    assert_int_equal(r.last_t_ns, want[3]);
    assert_int_equal(r.min_t_ns, want[0]);
    assert_int_equal(r.max_t_ns, want[3]);
    latrec_cursor c;
    latrec_ring_cursor_init(&c);
    latrec_rec rec;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(latrec_ring_next(&r, &c, &rec), 1);
        assert_int_equal(rec.t_ns, want[i]);
    }
    assert_int_equal(latrec_ring_next(&r, &c, &rec), 0);
    latrec_ring_close(&r);
}

/* Each header combination a reader must not time: the reason it gives. */
static void expect_rejected(void (*edit)(ringgen *), const char *reason)
{
    const uint64_t counts[1] = { 3000000000ull };
    ringgen g;
    tsc_ring(&g, counts, 1);
    edit(&g);
    latrec_ring r;
    char path[400];
    assert_int_equal(open_written(&g, &r, path, sizeof(path)), -1);
    assert_int_equal(r.status, LATREC_RING_REJECTED);
    if (!strstr(r.error, reason)) fail_msg("error '%s' lacks '%s'", r.error, reason);
    assert_null(r.tsc);
    latrec_ring_close(&r);
}

static void edit_one_pair(ringgen *g)
{
    memset(g->buf + RINGGEN_OFF_CAL + 16, 0, 32); /* pairs 1 and 2 emptied */
}
static void edit_alr1_magic(ringgen *g)
{
    ringgen_set_u32(g, RINGGEN_OFF_MAGIC, RINGGEN_MAGIC);
}
static void edit_version2(ringgen *g)
{
    ringgen_set_u32(g, RINGGEN_OFF_VERSION, 2);
}
static void edit_timebase2(ringgen *g)
{
    ringgen_set_u32(g, RINGGEN_OFF_TIMEBASE, 2);
}
static void edit_swapped(ringgen *g)
{
    ringgen_set_u32(g, RINGGEN_OFF_MAGIC, 0x414C5254u);
}

static void test_tsc_headers_that_cannot_be_timed_are_rejected(void **state)
{
    (void)state;
    expect_rejected(edit_one_pair, "TSC ring with 1 usable calibration pairs (2 needed)");
    expect_rejected(edit_alr1_magic, "timebase 1 under the ALR1 magic");
    expect_rejected(edit_version2, "TSC ring (ALRT) of version 2");
    expect_rejected(edit_timebase2, "unknown timebase 2");
    expect_rejected(edit_swapped, "byte-swapped ring");
}

static void test_clock_ring_is_untouched(void **state)
{
    (void)state;
    ringgen g;
    assert_int_equal(ringgen_init(&g, 3, 16, "tsc.1"), 0);
    ringgen_stamp(&g, 1, 0, 0x21, 3000000000ull, 0, 0);
    latrec_ring r;
    char path[400];
    assert_int_equal(open_written(&g, &r, path, sizeof(path)), 0);
    assert_int_equal(r.timebase, 0);
    assert_null(r.tsc);
    assert_int_equal(r.first_t_ns, 3000000000ull);
    latrec_ring_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_convert_to_their_own_clock_reading),
        cmocka_unit_test(test_between_pairs_floor_of_the_segment_rate),
        cmocka_unit_test(test_past_the_last_pair_exact_with_no_drift),
        cmocka_unit_test(test_before_the_first_pair_and_never_zero),
        cmocka_unit_test(test_saturates_and_never_decreases),
        cmocka_unit_test(test_map_keeps_ordered_pairs_drops_the_rest),
        cmocka_unit_test(test_tsc_ring_reads_as_monotonic_ns),
        cmocka_unit_test(test_tsc_headers_that_cannot_be_timed_are_rejected),
        cmocka_unit_test(test_clock_ring_is_untouched),
    };
    return cmocka_run_group_tests(tests, setup_dir, NULL);
}
