/*
 * test_read_wallclock.c - monotonic -> wall-clock mapping against
 * hand-computed values (around 1.8e18 ns, where a double is off by up to
 * 128 ns), and the boot-id check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "read/ring.h"
#include "read/wallclock.h"
#include "ringgen.h"

#define TMPDIR LATREC_TEST_TMP "/read_wallclock"

/* A double cannot hold this value: the tests below would catch a mapping
 * that goes through floating point. */
static void test_double_is_not_enough(void **state)
{
    (void)state;
    uint64_t v = 1799999999999999999ull;
    assert_true((uint64_t)(double)v != v);
}

static void test_constant_offset(void **state)
{
    (void)state;
    latrec_wallmap m;
    char err[128];
    /* no t1 pair */
    assert_int_equal(latrec_wallmap_from_pairs(&m, 1000, 1799999999999999001ull,
                                               0, 0, err, sizeof err), 0);
    assert_false(m.two_point);
    assert_int_equal(latrec_wallmap_apply(&m, 1000), 1799999999999999001ull);
    assert_int_equal(latrec_wallmap_apply(&m, 1998), 1799999999999999999ull);
    assert_int_equal(latrec_wallmap_apply(&m, 1999), 1800000000000000000ull);
    /* before t0: a negative offset */
    assert_int_equal(latrec_wallmap_apply(&m, 1), 1799999999999998002ull);
    assert_int_equal(latrec_wallmap_apply(&m, 0), 1799999999999998001ull);

    /* unusable t1 pairs fall back to the offset */
    assert_int_equal(latrec_wallmap_from_pairs(&m, 1000, 5000, 1000, 9000, NULL, 0), 0);
    assert_false(m.two_point); /* t1_mono == t0_mono */
    assert_int_equal(latrec_wallmap_from_pairs(&m, 1000, 5000, 900, 9000, NULL, 0), 0);
    assert_false(m.two_point); /* t1_mono < t0_mono */
    assert_int_equal(latrec_wallmap_from_pairs(&m, 1000, 5000, 2000, 5000, NULL, 0), 0);
    assert_false(m.two_point); /* t1_real == t0_real */
    assert_int_equal(latrec_wallmap_from_pairs(&m, 1000, 5000, 2000, 4000, NULL, 0), 0);
    assert_false(m.two_point); /* realtime stepped back */
    assert_int_equal(latrec_wallmap_apply(&m, 3000), 7000);
    /* saturation at the ends */
    assert_int_equal(latrec_wallmap_apply(&m, 0), 4000);
    assert_int_equal(latrec_wallmap_from_pairs(&m, 10000, 5000, 0, 0, NULL, 0), 0);
    assert_int_equal(latrec_wallmap_apply(&m, 0), 0);
    assert_int_equal(latrec_wallmap_from_pairs(&m, 0, UINT64_MAX - 5, 0, 0, NULL, 0), 0);
    assert_int_equal(latrec_wallmap_apply(&m, 5), UINT64_MAX);
    assert_int_equal(latrec_wallmap_apply(&m, 6), UINT64_MAX);
    assert_int_equal(latrec_wallmap_apply(&m, UINT64_MAX), UINT64_MAX);

    /* no t0_real */
    err[0] = '\0';
    assert_int_equal(latrec_wallmap_from_pairs(&m, 1000, 0, 2000, 3000, err, sizeof err), -1);
    assert_string_equal(err, "no t0_real_ns: cannot map to wall clock");
}

static void test_two_point(void **state)
{
    (void)state;
    latrec_wallmap m;
    /* t0 = (1 s, 1.799999990e18 + 7); t1 10 s later on the monotonic clock,
     * 10 s + 1 us on the real clock: slope 1 + 1e-7 */
    const uint64_t m0 = 1000000000ull, r0 = 1799999990000000007ull;
    const uint64_t m1 = m0 + 10000000000ull, r1 = r0 + 10000001000ull;
    assert_int_equal(latrec_wallmap_from_pairs(&m, m0, r0, m1, r1, NULL, 0), 0);
    assert_true(m.two_point);
    /* the anchors map exactly */
    assert_int_equal(latrec_wallmap_apply(&m, m0), r0);
    assert_int_equal(latrec_wallmap_apply(&m, m1), r1);
    /* 5 s in: +500 ns of drift */
    assert_int_equal(latrec_wallmap_apply(&m, m0 + 5000000000ull), r0 + 5000000500ull);
    /* 3 ns in: 3.0000003 -> 3 */
    assert_int_equal(latrec_wallmap_apply(&m, m0 + 3), r0 + 3);
    /* 3 ns before: -3.0000003 -> floor -4 (the map never decreases) */
    assert_int_equal(latrec_wallmap_apply(&m, m0 - 3), r0 - 4);
    /* 1 s before: -1e9 - 100 exactly */
    assert_int_equal(latrec_wallmap_apply(&m, m0 - 1000000000ull), r0 - 1000000100ull);
    /* 20 s in (extrapolated past t1): +2 us */
    assert_int_equal(latrec_wallmap_apply(&m, m0 + 20000000000ull), r0 + 20000002000ull);
    /* 9,999,999,999 ns in: 9999999999 * (1 + 1e-7) = 10000000998.9999999 */
    assert_int_equal(latrec_wallmap_apply(&m, m0 + 9999999999ull), r0 + 10000000998ull);
    /* mono 0 (boot): 1 s before t0 */
    assert_int_equal(latrec_wallmap_apply(&m, 0), r0 - 1000000100ull);
    /* what a double gets here: not this exact value */
    double d = (double)r0 + (double)5000000000ull * (10000001000.0 / 10000000000.0);
    assert_true((uint64_t)d != r0 + 5000000500ull);

    /* a slow real clock: slope 1 - 1e-6 over 1000 s */
    const uint64_t m2 = m0 + 1000000000000ull, r2 = r0 + 999999000000ull;
    assert_int_equal(latrec_wallmap_from_pairs(&m, m0, r0, m2, r2, NULL, 0), 0);
    assert_int_equal(latrec_wallmap_apply(&m, m0 + 1000000ull), r0 + 999999ull);
    /* 1000001 * 0.999999 = 999999.999999 -> 999999; before t0 -> -1000000 */
    assert_int_equal(latrec_wallmap_apply(&m, m0 + 1000001ull), r0 + 999999ull);
    assert_int_equal(latrec_wallmap_apply(&m, m0 - 1000001ull), r0 - 1000000ull);

    /* extreme slope: no overflow, saturation instead */
    assert_int_equal(latrec_wallmap_from_pairs(&m, 100, 1, 101, UINT64_MAX, NULL, 0), 0);
    assert_true(m.two_point);
    assert_int_equal(latrec_wallmap_apply(&m, 100), 1);
    assert_int_equal(latrec_wallmap_apply(&m, 101), UINT64_MAX);
    assert_int_equal(latrec_wallmap_apply(&m, UINT64_MAX), UINT64_MAX);
    assert_int_equal(latrec_wallmap_apply(&m, 0), 0);
    assert_int_equal(latrec_wallmap_apply(&m, 99), 0);
}

static void put(const char *file, uint32_t version, uint64_t t0m, uint64_t t0r,
                uint64_t t1m, uint64_t t1r, const uint8_t *boot)
{
    char path[512];
    ringgen g;
    assert_int_equal(ringgen_init(&g, version, 4, "w.1"), 0);
    ringgen_set_u64(&g, RINGGEN_OFF_T0_MONO, t0m);
    ringgen_set_u64(&g, RINGGEN_OFF_T0_REAL, t0r);
    if (version >= 2) {
        ringgen_set_u64(&g, RINGGEN_OFF_T1_MONO, t1m);
        ringgen_set_u64(&g, RINGGEN_OFF_T1_REAL, t1r);
    }
    if (boot)
        ringgen_set_bytes(&g, RINGGEN_OFF_BOOT_ID, boot, 16);
    snprintf(path, sizeof path, TMPDIR "/%s", file);
    assert_int_equal(ringgen_write(&g, path), 0);
    ringgen_free(&g);
}

static void open_tmp(latrec_ring *r, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, TMPDIR "/%s", file);
    assert_int_equal(latrec_ring_open(r, path), 0);
}

static void test_from_ring(void **state)
{
    (void)state;
    mkdir(LATREC_TEST_TMP, 0755);
    mkdir(TMPDIR, 0755);
    latrec_ring r;
    latrec_wallmap m;
    char err[128];

    put("v2.latrec", 2, 1000, 1799999999000000000ull, 2000, 1799999999000001001ull, NULL);
    open_tmp(&r, "v2.latrec");
    assert_int_equal(latrec_wallmap_init(&m, &r, err, sizeof err), 0);
    assert_true(m.two_point);
    /* slope 1001/1000: 500 ns in -> 500.5 -> 500 */
    assert_int_equal(latrec_wallmap_apply(&m, 1500), 1799999999000000500ull);
    latrec_ring_close(&r);

    /* v1: the bytes where t1 would be are ignored: constant offset */
    put("v1.latrec", 1, 1000, 1799999999000000000ull, 0, 0, NULL);
    open_tmp(&r, "v1.latrec");
    assert_int_equal(latrec_wallmap_init(&m, &r, err, sizeof err), 0);
    assert_false(m.two_point);
    assert_int_equal(latrec_wallmap_apply(&m, 1500), 1799999999000000500ull);
    latrec_ring_close(&r);

    put("no0.latrec", 2, 1000, 0, 2000, 3000, NULL);
    open_tmp(&r, "no0.latrec");
    assert_int_equal(latrec_wallmap_init(&m, &r, err, sizeof err), -1);
    assert_string_equal(err, "no t0_real_ns: cannot map to wall clock");
    latrec_ring_close(&r);
}

static void test_boot_ids(void **state)
{
    (void)state;
    uint8_t a[16], b[16], last[16] = {0};
    memset(a, 0x5A, 16);
    memcpy(b, a, 16);
    b[15] ^= 1;
    last[15] = 1; /* only the last byte set: still known */
    put("ba.latrec", 3, 1, 1, 0, 0, a);
    put("ba2.latrec", 3, 1, 1, 0, 0, a);
    put("bb.latrec", 3, 1, 1, 0, 0, b);
    put("bz.latrec", 3, 1, 1, 0, 0, NULL);
    put("bl.latrec", 3, 1, 1, 0, 0, last);
    put("b2.latrec", 2, 1, 1, 0, 0, a); /* v2: the bytes are pad, ignored */

    latrec_ring ra, ra2, rb, rz, rl, r2;
    open_tmp(&ra, "ba.latrec");
    open_tmp(&ra2, "ba2.latrec");
    open_tmp(&rb, "bb.latrec");
    open_tmp(&rz, "bz.latrec");
    open_tmp(&rl, "bl.latrec");
    open_tmp(&r2, "b2.latrec");
    assert_true(latrec_ring_boot_known(&ra));
    assert_true(latrec_ring_boot_known(&rl));
    assert_false(latrec_ring_boot_known(&rz));
    assert_false(latrec_ring_boot_known(&r2));
    assert_int_equal(latrec_ring_boot_differs(&ra, &ra2), 0);
    assert_int_equal(latrec_ring_boot_differs(&ra, &rb), 1);
    assert_int_equal(latrec_ring_boot_differs(&rb, &ra), 1);
    assert_int_equal(latrec_ring_boot_differs(&ra, &rl), 1);
    assert_int_equal(latrec_ring_boot_differs(&ra, &rz), 0); /* unknown: compatible */
    assert_int_equal(latrec_ring_boot_differs(&rz, &rb), 0);
    assert_int_equal(latrec_ring_boot_differs(&ra, &r2), 0);
    latrec_ring_close(&ra);
    latrec_ring_close(&ra2);
    latrec_ring_close(&rb);
    latrec_ring_close(&rz);
    latrec_ring_close(&rl);
    latrec_ring_close(&r2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_double_is_not_enough),
        cmocka_unit_test(test_constant_offset),
        cmocka_unit_test(test_two_point),
        cmocka_unit_test(test_from_ring),
        cmocka_unit_test(test_boot_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
