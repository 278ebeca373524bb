/* The option grammar: util/duration.h and util/number.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/duration.h"
#include "util/number.h"

static const latrec_duration_opt unit_required = { "--interval", NULL, 0, UINT64_MAX };
static const latrec_duration_opt bare_seconds = { "-d", "s", 1, 3600000000000ull };

static uint64_t ok(const latrec_duration_opt *o, const char *s)
{
    uint64_t ns = 12345;
    char err[200] = "";
    int rc = latrec_duration_parse(o, s, &ns, err, sizeof(err));
    if (rc != 0) fail_msg("'%s' refused: %s", s, err);
    return ns;
}

static void refused(const latrec_duration_opt *o, const char *s, const char *why)
{
    uint64_t ns = 12345;
    char err[200] = "";
    if (latrec_duration_parse(o, s, &ns, err, sizeof(err)) == 0)
        fail_msg("'%s' taken as %llu ns", s, (unsigned long long)ns);
    assert_int_equal(ns, 12345);
    if (!strstr(err, why) || strncmp(err, o->name, strlen(o->name)) != 0)
        fail_msg("'%s': '%s' lacks '%s'", s, err, why);
}

static void test_units(void **state)
{
    (void)state;
    assert_int_equal(ok(&unit_required, "7ns"), 7);
    assert_int_equal(ok(&unit_required, "7us"), 7000);
    assert_int_equal(ok(&unit_required, "2.5ms"), 2500000);
    assert_int_equal(ok(&unit_required, "3s"), 3000000000ull);
    assert_int_equal(ok(&unit_required, "2m"), 120000000000ull);
    assert_int_equal(ok(&unit_required, "2min"), 120000000000ull);
    assert_int_equal(ok(&unit_required, "1.25h"), 4500000000000ull);
    assert_int_equal(ok(&unit_required, "0.000000001s"), 1);
    assert_int_equal(ok(&unit_required, "1.000ns"), 1); /* trailing zeros are exact */
    assert_int_equal(ok(&unit_required, "0"), 0);       /* zero needs no unit */
    assert_int_equal(ok(&unit_required, "0.00"), 0);
    assert_int_equal(ok(&unit_required, "18446744073709551615ns"), UINT64_MAX);
}

static void test_refused_forms(void **state)
{
    (void)state;
    static const char *const bad[] = { "nan",   "inf",  "-inf", "NaN", "infinity", "1e3",  "1e3s", "0x10",
                                       "0x10s", "-1s",  "+1s",  "1.",  ".5s",      " 1s",  "1 s",  "1s ",
                                       "1S",    "1sec", "",     "s",   "1..2s",    "1,5s", "5us5" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) refused(&unit_required, bad[i], "is not a duration");
    refused(&unit_required, "1.5ns", "finer than 1 ns");
    refused(&unit_required, "0.0000000015s", "finer than 1 ns");
    refused(&unit_required, "18446744073709551616ns", "is not a duration"); /* integer part overflows */
    refused(&unit_required, "18446744073709552s", "out of range");          /* product overflows */
    refused(&unit_required, "18446744073709551615.5ns", "finer than 1 ns");
}

static void test_bare_numbers(void **state)
{
    (void)state;
    /* Where the option has no unit of its own, a bare number is refused
     * (the old parsers took it as ns: '--interval 1' was 1 ns). */
    refused(&unit_required, "1", "needs a unit");
    refused(&unit_required, "200", "needs a unit");
    refused(&unit_required, "0.5", "needs a unit");
    /* Where it has one, it is in that unit. */
    assert_int_equal(ok(&bare_seconds, "3"), 3000000000ull);
    assert_int_equal(ok(&bare_seconds, "0.5"), 500000000ull);
    assert_int_equal(ok(&bare_seconds, "500ms"), 500000000ull);
    /* '-d 20000000000' was taken as 20 s worth of ns: now 2e10 s, out of range. */
    refused(&bare_seconds, "20000000000", "out of range (1ns..1h)");
    const latrec_duration_opt bare_ns = { "-P", "ns", 1, UINT64_MAX };
    assert_int_equal(ok(&bare_ns, "500"), 500);
}

static void test_ranges(void **state)
{
    (void)state;
    const latrec_duration_opt r = { "--x", NULL, 1000, 2000000 };
    assert_int_equal(ok(&r, "1us"), 1000);
    assert_int_equal(ok(&r, "2ms"), 2000000);
    refused(&r, "999ns", "out of range (1us..2ms)");
    refused(&r, "2000001ns", "out of range (1us..2ms)");
    refused(&r, "0", "out of range");
    refused(&bare_seconds, "0", "out of range (1ns..1h)");
    refused(&bare_seconds, "3601", "out of range");
}

static void test_format_and_units(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(latrec_duration_format(1500, buf, sizeof(buf)), "1500ns");
    assert_string_equal(latrec_duration_format(2000000000ull, buf, sizeof(buf)), "2s");
    assert_string_equal(latrec_duration_format(90000000000ull, buf, sizeof(buf)), "90s");
    assert_string_equal(latrec_duration_format(120000000000ull, buf, sizeof(buf)), "2m");
    assert_string_equal(latrec_duration_format(7200000000000ull, buf, sizeof(buf)), "2h");
    assert_int_equal(latrec_duration_unit_ns("ms"), 1000000);
    assert_int_equal(latrec_duration_unit_ns("sec"), 0);
}

static void test_counts(void **state)
{
    (void)state;
    const latrec_count_opt top = { "--top", 0, 10000 };
    uint64_t v = 7;
    char err[200];
    assert_int_equal(latrec_count_parse(&top, "0", &v, err, sizeof(err)), 0);
    assert_int_equal(v, 0);
    assert_int_equal(latrec_count_parse(&top, "10000", &v, err, sizeof(err)), 0);
    assert_int_equal(v, 10000);
    static const char *const bad[] = {
        "10001", "-1", "+1", "", " 1", "1x", "0x10", "1e3", "nan", "18446744073709551616"
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = 7;
        assert_int_equal(latrec_count_parse(&top, bad[i], &v, err, sizeof(err)), -1);
        assert_int_equal(v, 7);
        assert_string_equal(strstr(err, "is not a count in 0..10000"), "is not a count in 0..10000");
    }
}

static void test_numbers(void **state)
{
    (void)state;
    double d = 7;
    assert_int_equal(latrec_number_parse("-2.5", -10, 10, &d), 0);
    assert_true(d == -2.5);
    assert_int_equal(latrec_number_parse("99.99", 0, 100, &d), 0);
    assert_true(d == 99.99);
    static const char *const bad[] = { "nan", "inf", "-nan", "1e3", "0x1p3", ".5", "5.", "", "-", "+1", "1 " };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        d = 7;
        assert_int_equal(latrec_number_parse(bad[i], -1e300, 1e300, &d), -1);
        assert_true(d == 7);
    }
    assert_int_equal(latrec_number_parse("100.5", 0, 100, &d), -1);
}

static void test_choices(void **state)
{
    (void)state;
    static const latrec_choice t[] = {
        { "text", 0, NULL }, { "csv", 1, NULL }, { "json", 2, NULL }, { NULL, 0, NULL }
    };
    int v = -1;
    assert_int_equal(latrec_choice_parse(t, "json", &v), 0);
    assert_int_equal(v, 2);
    assert_int_equal(latrec_choice_parse(t, "JSON", &v), -1);
    char buf[64];
    assert_string_equal(latrec_choice_list(t, -1, buf, sizeof(buf)), "text, csv or json");
    assert_string_equal(latrec_choice_list(t, 1, buf, sizeof(buf)), "text, csv (default) or json");
    static const latrec_choice two[] = { { "csv", 0, NULL }, { "chrome", 1, NULL }, { NULL, 0, NULL } };
    assert_string_equal(latrec_choice_list(two, 0, buf, sizeof(buf)), "csv (default) or chrome");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),   cmocka_unit_test(test_refused_forms),    cmocka_unit_test(test_bare_numbers),
        cmocka_unit_test(test_ranges),  cmocka_unit_test(test_format_and_units), cmocka_unit_test(test_counts),
        cmocka_unit_test(test_numbers), cmocka_unit_test(test_choices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
