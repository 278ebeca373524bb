/*
 * test_legs_csv.c - the CSV writer every leg table, records.csv and
 * rings.csv go through (src/cli/csv.c): RFC 4180 quoting, integer and
 * duration formatting, fields longer than the buffer, many buffer flushes,
 * and write errors reported at close.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/csv.h"

#define TMPDIR LATREC_TEST_TMP "/legs_csv"

static char csv_err[4400]; /* the one line of a failed open or close */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len) *len = (size_t)n;
    return buf;
}

static int setup(void **state)
{
    (void)state;
    mkdir(LATREC_TEST_TMP, 0755);
    if (system("rm -rf '" TMPDIR "'") != 0)
        return -1;
    return mkdir(TMPDIR, 0755);
}

static void test_quoting_and_numbers(void **state)
{
    (void)state;
    const char *path = TMPDIR "/q.csv";
    latrec_csv c;
    assert_int_equal(latrec_csv_open(&c, path, NULL, csv_err, sizeof(csv_err)), 0);
    latrec_csv_str(&c, "plain");
    latrec_csv_str(&c, "a,b");
    latrec_csv_str(&c, "say \"hi\"");
    latrec_csv_str(&c, "two\nlines");
    latrec_csv_str(&c, "cr\rx");
    latrec_csv_str(&c, "\"");
    latrec_csv_str(&c, "");
    latrec_csv_empty(&c);
    latrec_csv_str(&c, " spaced ");
    latrec_csv_end(&c);
    latrec_csv_u64(&c, 0);
    latrec_csv_u64(&c, UINT64_MAX);
    latrec_csv_i64(&c, INT64_MIN);
    latrec_csv_i64(&c, -5);
    latrec_csv_i64(&c, 7);
    latrec_csv_hex(&c, 0);
    latrec_csv_hex(&c, 0x1A);
    latrec_csv_hex(&c, UINT64_MAX);
    latrec_csv_end(&c);
    latrec_csv_us(&c, 1234567);
    latrec_csv_us(&c, -1);
    latrec_csv_us(&c, 0);
    latrec_csv_us(&c, 999);
    latrec_csv_us(&c, -1000);
    latrec_csv_us(&c, INT64_MIN);
    latrec_csv_double(&c, 1.5, 2);
    latrec_csv_double(&c, -0.25, 3);
    latrec_csv_end(&c);
    latrec_csv_empty(&c); /* a row of two empty fields */
    latrec_csv_empty(&c);
    latrec_csv_end(&c);
    assert_int_equal(latrec_csv_close(&c, csv_err, sizeof(csv_err)), 0);
    char *got = slurp(path, NULL);
    assert_string_equal(got,
                        "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\rx\",\"\"\"\",,, spaced \n"
                        "0,18446744073709551615,-9223372036854775808,-5,7,0x00,0x1A,0xFFFFFFFFFFFFFFFF\n"
                        "1234.567,-0.001,0.000,0.999,-1.000,-9223372036854775.808,1.50,-0.250\n"
                        ",\n");
    free(got);
}

/* A field longer than the 64 KiB buffer is written around it, still quoted,
 * and the row goes on after it. */
static void test_long_field(void **state)
{
    (void)state;
    const size_t n = 100000;
    char *big = malloc(n + 1);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++) big[i] = (char)('a' + i % 26);
    big[5] = '"';
    big[n - 3] = ',';
    big[n] = '\0';
    const char *path = TMPDIR "/long.csv";
    latrec_csv c;
    assert_int_equal(latrec_csv_open(&c, path, NULL, csv_err, sizeof(csv_err)), 0);
    latrec_csv_str(&c, "before");
    latrec_csv_str(&c, big);
    latrec_csv_u64(&c, 42);
    latrec_csv_end(&c);
    assert_int_equal(latrec_csv_close(&c, csv_err, sizeof(csv_err)), 0);
    size_t len;
    char *got = slurp(path, &len);
    /* before,"<big with the quote doubled>",42\n */
    assert_int_equal(len, strlen("before,") + 1 + n + 1 + 1 + strlen(",42\n"));
    assert_memory_equal(got, "before,\"abcde\"\"ghi", 18);
    assert_string_equal(got + len - 4, ",42\n");
    assert_int_equal(got[len - 5], '"');
    /* the big field round-trips once the quoting is undone */
    char *back = malloc(n + 1);
    assert_non_null(back);
    size_t k = 0;
    for (size_t i = strlen("before,\""); i < len - 5; i++) {
        if (got[i] == '"') i++; /* "" -> " */
        back[k++] = got[i];
    }
    back[k] = '\0';
    assert_int_equal(k, n);
    assert_string_equal(back, big);
    free(back);
    free(got);
    free(big);
}

/* Many rows: the buffer is flushed many times and nothing is lost or
 * reordered. */
static void test_many_rows(void **state)
{
    (void)state;
    const char *path = TMPDIR "/many.csv";
    latrec_csv c;
    assert_int_equal(latrec_csv_open(&c, path, NULL, csv_err, sizeof(csv_err)), 0);
    const uint64_t rows = 200000;
    for (uint64_t i = 0; i < rows; i++) {
        latrec_csv_u64(&c, i * 1000003u);
        latrec_csv_str(&c, i % 7 ? "x" : "y,z");
        latrec_csv_us(&c, (int64_t)i - 100000);
        latrec_csv_end(&c);
    }
    assert_int_equal(latrec_csv_close(&c, csv_err, sizeof(csv_err)), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[128], want[128];
    for (uint64_t i = 0; i < rows; i++) {
        assert_non_null(fgets(line, sizeof line, f));
        int64_t d = (int64_t)i - 100000;
        uint64_t a = d < 0 ? (uint64_t)-d : (uint64_t)d;
        snprintf(want, sizeof want, "%llu,%s,%s%llu.%03llu\n", (unsigned long long)(i * 1000003u),
                 i % 7 ? "x" : "\"y,z\"", d < 0 ? "-" : "", (unsigned long long)(a / 1000),
                 (unsigned long long)(a % 1000));
        if (strcmp(line, want) != 0) fail_msg("row %llu: '%s' != '%s'", (unsigned long long)i, line, want);
    }
    assert_null(fgets(line, sizeof line, f));
    fclose(f);
}

/* Integers at every digit-count boundary and pseudo-random ones format as
 * printf does. */
static void test_integers_like_printf(void **state)
{
    (void)state;
    uint64_t v[2048];
    size_t n = 0;
    uint64_t p = 1;
    for (int d = 0; d < 20; d++, p *= 10) {
        v[n++] = p;
        v[n++] = p - 1;
        v[n++] = p + 1;
        v[n++] = p * 5;
    }
    v[n++] = UINT64_MAX;
    v[n++] = UINT64_MAX - 1;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    while (n < sizeof v / sizeof v[0]) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[n++] = x >> (x % 64); /* every magnitude */
    }
    const char *path = TMPDIR "/ints.csv";
    latrec_csv c;
    assert_int_equal(latrec_csv_open(&c, path, NULL, csv_err, sizeof(csv_err)), 0);
    for (size_t i = 0; i < n; i++) {
        latrec_csv_u64(&c, v[i]);
        latrec_csv_i64(&c, -(int64_t)(v[i] >> 1));
        latrec_csv_us(&c, (int64_t)(v[i] >> 1));
        latrec_csv_end(&c);
    }
    assert_int_equal(latrec_csv_close(&c, csv_err, sizeof(csv_err)), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[128], want[128];
    for (size_t i = 0; i < n; i++) {
        assert_non_null(fgets(line, sizeof line, f));
        uint64_t h = v[i] >> 1;
        snprintf(want, sizeof want, "%llu,%lld,%llu.%03llu\n", (unsigned long long)v[i], -(long long)h,
                 (unsigned long long)(h / 1000), (unsigned long long)(h % 1000));
        if (strcmp(line, want) != 0) fail_msg("value %llu: '%s' != '%s'", (unsigned long long)v[i], line, want);
    }
    fclose(f);
}

static void test_errors(void **state)
{
    (void)state;
    latrec_csv c;
    errno = 0;
    assert_int_equal(latrec_csv_open(&c, TMPDIR "/no/such/dir.csv", NULL, csv_err, sizeof(csv_err)), -1);
    assert_int_equal(errno, ENOENT);
    assert_string_equal(csv_err, TMPDIR "/no/such: No such file or directory");
    /* a name that is not latrec's: the one line of read/outfile.c, not strerror(EEXIST) */
    assert_int_equal(latrec_csv_open(&c, "/dev/null", NULL, csv_err, sizeof(csv_err)), -1);
    assert_int_equal(errno, EEXIST);
    assert_string_equal(csv_err, "/dev/null: exists and is not a regular file: left alone; move it away or write "
                                 "elsewhere");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quoting_and_numbers),
        cmocka_unit_test(test_long_field),
        cmocka_unit_test(test_many_rows),
        cmocka_unit_test(test_integers_like_printf),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
