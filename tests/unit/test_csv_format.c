/*
 * The CSV writer's table formatting (cli/csv.h) against snprintf: every
 * number at and around each power of ten up to 2^64 - 1, every number
 * below 10^6 and each 4-digit half of 8 digits (latrec_digits8's table)
 * over 10^4 ranges, and a few million pseudo-random ones of every length; durations in us with three decimals,
 * negative ones too; stamps through the leading-digit cache; a quoted
 * field as latrec_csv_field makes it.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/csv.h"

static void check_u64(uint64_t v)
{
    char got[32], want[32];
    *latrec_fmt_u64(got, v) = '\0';
    snprintf(want, sizeof want, "%" PRIu64, v);
    assert_string_equal(got, want);
}

static void check_us(int64_t ns)
{
    char got[40], want[40];
    const uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    *latrec_fmt_us(got, ns) = '\0';
    snprintf(want, sizeof want, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000, a % 1000);
    assert_string_equal(got, want);
}

static void test_powers_of_ten(void **state)
{
    (void)state;
    uint64_t p = 1;
    for (int k = 0; k < 20; k++, p *= 10)
        for (int d = -2; d <= 2; d++)
            check_u64(p + (uint64_t)(int64_t)d); /* 1 - 2 wraps to 2^64 - 1: a number too */
    check_u64(0);
    check_u64(UINT64_MAX);
    check_us(0);
    check_us(-1);
    check_us(999);
    check_us(-1000);
    check_us(INT64_MIN);
    check_us(INT64_MAX);
}

/* Every number below 10^6, and 8 digits whose halves run through every
 * 4-digit value (kept zeros and all). */
static void test_every_half(void **state)
{
    (void)state;
    for (uint64_t v = 0; v < 1000000; v++) check_u64(v);
    for (uint32_t h = 0; h < 10000; h++) {
        char got[16], want[16];
        const uint32_t v[3] = { h, h * 10000u + 9999 - h, 99990000u + h };
        for (int k = 0; k < 3; k++) {
            latrec_fmt8(got, v[k]);
            got[8] = '\0';
            snprintf(want, sizeof want, "%08" PRIu32, v[k]);
            assert_string_equal(got, want);
            check_u64(100000000ull * (h + 1) + v[k]);
        }
    }
}

static void test_random(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 2000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const uint64_t v = x >> (x & 63); /* every length */
        check_u64(v);
        check_us((int64_t)v >> 2);
        check_us(-((int64_t)v >> 2));
    }
}

/* latrec_fmt_u64_hi against snprintf: stamps that keep their leading
 * digits for a while, cross 10^8 boundaries, fall below 10^8 and jump to
 * 20 digits, through one cache (what a stamp column sees). */
static void test_shared_leading_digits(void **state)
{
    (void)state;
    latrec_fmt_hi hi = LATREC_FMT_HI_INIT;
    uint64_t x = 88172645463325252ull, t = 4999999000ull;
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t += x & 0x3FF; /* crosses 50 * 10^8, 51 * 10^8, ... */
        uint64_t v = t;
        if ((x >> 20 & 255) == 0) v = x >> (x & 63); /* now and then any length */
        char got[40], want[32];
        memset(got, 'x', sizeof got);
        *latrec_fmt_u64_hi(got, v, &hi) = '\0';
        snprintf(want, sizeof want, "%" PRIu64, v);
        assert_string_equal(got, want);
    }
    /* a fresh cache and one after the top 10^8 of 2^64: small numbers
     * are not taken for cached ones, and the top ones are right */
    const uint64_t edge[] = { 0, 7, 99999999, 100000000, UINT64_MAX, 5, 18446744073609551615ull, 3,
                              18446744073600000000ull, 99999999, 18446744073700000000ull, 1, 12345678 };
    for (int pass = 0; pass < 2; pass++) {
        latrec_fmt_hi h2 = LATREC_FMT_HI_INIT;
        for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
            char got[40], want[32];
            *latrec_fmt_u64_hi(got, edge[(i + (size_t)pass) % (sizeof edge / sizeof edge[0])], &h2) = '\0';
            snprintf(want, sizeof want, "%" PRIu64, edge[(i + (size_t)pass) % (sizeof edge / sizeof edge[0])]);
            assert_string_equal(got, want);
        }
    }
}

static void test_field(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(latrec_csv_field("plain.1", out, sizeof out), 7);
    assert_string_equal(out, "plain.1");
    assert_int_equal(latrec_csv_field("a,b", out, sizeof out), 5);
    assert_string_equal(out, "\"a,b\"");
    assert_int_equal(latrec_csv_field("say\"hi", out, sizeof out), 9);
    assert_string_equal(out, "\"say\"\"hi\"");
    assert_int_equal(latrec_csv_field("line\nnext", out, sizeof out), 11);
    assert_int_equal(latrec_csv_field("abcdef", out, 8), 0); /* 2 * 6 + 3 bytes needed */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_powers_of_ten),
        cmocka_unit_test(test_every_half),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_shared_leading_digits),
        cmocka_unit_test(test_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
