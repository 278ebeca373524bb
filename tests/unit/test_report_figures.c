/* The figures latrec report prints for one column (src/cli/figures.c over
 * src/analyze/stats.c): empty columns, clock regressions, percentile rules,
 * skewness, the outlier rule, names and option parsing. Every expected value
 * is computed here independently (by hand or by sorting). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/figures.h"

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
#define NP 5

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void shuffle(int64_t *v, size_t n)
{
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)(rnd() % (i + 1));
        int64_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static void fill(latrec_stats *s, const int64_t *v, size_t n)
{
    assert_int_equal(latrec_stats_init(s), 0);
    for (size_t i = 0; i < n; i++) latrec_stats_add(s, v[i]);
}

static void empty_column_has_no_figure(void **state)
{
    (void)state;
    latrec_stats s;
    assert_int_equal(latrec_stats_init(&s), 0);
    latrec_figures f;
    latrec_figures_from_stats(&f, &s, pcts, NP);
    assert_int_equal(f.count, 0);
    assert_int_equal(f.n, fig_skew(NP) + 1);
    for (int i = 0; i < f.n; i++) assert_false(f.has[i]);
    assert_false(f.outliers_known);
    assert_int_equal(f.outliers, 0);
    assert_int_equal(f.regressions, 0);
    latrec_stats_free(&s);
}

static void one_sample_has_no_stddev_or_skewness(void **state)
{
    (void)state;
    int64_t v[] = { 1234 };
    latrec_stats s;
    fill(&s, v, 1);
    latrec_figures f;
    latrec_figures_from_stats(&f, &s, pcts, NP);
    assert_int_equal(f.count, 1);
    for (int i = 0; i <= fig_mean(NP); i++) {
        assert_true(f.has[i]);
        assert_true(f.v[i] == 1234.0);
    }
    assert_false(f.has[fig_stddev(NP)]);
    assert_false(f.has[fig_skew(NP)]);
    latrec_stats_free(&s);
}

static void negative_hops_are_counted_not_wrapped(void **state)
{
    (void)state;
    int64_t v[] = { 2000, -500, 2000, -1, 3000, INT64_MIN + 1 };
    latrec_stats s;
    fill(&s, v, 6);
    latrec_figures f;
    latrec_figures_from_stats(&f, &s, pcts, NP);
    assert_int_equal(f.count, 3);
    assert_int_equal(f.regressions, 3);
    assert_true(f.v[FIG_MIN] == 2000.0);
    assert_true(f.v[fig_max(NP)] == 3000.0);
    for (int i = 0; i < f.n; i++)
        if (f.has[i] && i != fig_skew(NP)) assert_true(f.v[i] >= 0 && f.v[i] <= 3000.0);
    int64_t neg;
    assert_true(latrec_stats_negative_min(&s, &neg));
    assert_true(neg == INT64_MIN + 1);
    latrec_stats_free(&s);
}

/* 2000 distinct values: exact nearest rank, so p99.9 (rank 1998) is not p99
 * (rank 1980). */
static void small_set_percentiles_are_exact(void **state)
{
    (void)state;
    int64_t v[2000];
    for (int i = 0; i < 2000; i++) v[i] = i + 1;
    shuffle(v, 2000);
    latrec_stats s;
    fill(&s, v, 2000);
    latrec_figures f;
    latrec_figures_from_stats(&f, &s, pcts, NP);
    assert_true(f.v[FIG_PCT0 + 0] == 1000.0);
    assert_true(f.v[FIG_PCT0 + 1] == 1800.0);
    assert_true(f.v[FIG_PCT0 + 2] == 1980.0);
    assert_true(f.v[FIG_PCT0 + 3] == 1998.0);
    assert_true(f.v[FIG_PCT0 + 4] == 2000.0);
    assert_true(f.v[FIG_PCT0 + 2] != f.v[FIG_PCT0 + 3]);
    latrec_stats_free(&s);
}

/* Uniform 1..100000 ns: p50/p99/p99.9 never under the exact value and at
 * most 0.1 % over; every percentile inside [min, max]. */
static void uniform_percentiles_within_0_1_percent(void **state)
{
    (void)state;
    size_t n = 100000;
    int64_t *v = malloc(n * sizeof(*v));
    assert_non_null(v);
    for (size_t i = 0; i < n; i++) v[i] = (int64_t)i + 1;
    shuffle(v, n);
    latrec_stats s;
    fill(&s, v, n);
    free(v);
    const double exact[] = { 50000, 90000, 99000, 99900, 99990 };
    latrec_figures f;
    latrec_figures_from_stats(&f, &s, pcts, NP);
    for (int i = 0; i < NP; i++) {
        assert_true(f.v[FIG_PCT0 + i] >= exact[i]);
        assert_true(f.v[FIG_PCT0 + i] <= exact[i] * 1.001);
    }
    for (double p = 0; p <= 100; p += 0.37) {
        int64_t x;
        assert_true(latrec_stats_percentile(&s, p, &x));
        assert_true(x >= 1 && x <= 100000);
    }
    assert_true(f.v[FIG_MIN] == 1.0 && f.v[fig_max(NP)] == 100000.0);
    assert_true(fabs(f.v[fig_mean(NP)] - 50000.5) < 1e-6);
    latrec_stats_free(&s);
}

/* 1, 1, 1, 1, 10 (us): mean 2.8, m2 = 12.96, m3 = 69.984, g1 = 1.5 and
 * G1 = sqrt(5 x 4) / 3 x 1.5 = sqrt(5). Sample stddev sqrt(64.8 / 4). */
static void skewness_of_a_known_set(void **state)
{
    (void)state;
    int64_t v[] = { 1000, 1000, 10000, 1000, 1000 };
    latrec_stats s;
    fill(&s, v, 5);
    latrec_figures f;
    latrec_figures_from_stats(&f, &s, pcts, NP);
    assert_true(fabs(f.v[fig_skew(NP)] - sqrt(5.0)) < 1e-12);
    assert_true(fabs(f.v[fig_mean(NP)] - 2800.0) < 1e-9);
    assert_true(fabs(f.v[fig_stddev(NP)] - sqrt(16.2e6)) < 1e-6);
    latrec_stats_free(&s);
}

/* 40 chunks of 1000 samples in 1000..1999, spikes of 50 us planted in
 * `spikes` distinct chunks. */
static uint64_t outliers_with_spikes(int spikes)
{
    latrec_stats s;
    assert_int_equal(latrec_stats_init(&s), 0);
    for (int i = 1; i <= 40000; i++) {
        int spike = i % 1000 == 500 && i / 1000 < spikes;
        latrec_stats_add(&s, spike ? 50000 : 1000 + (7919 * (int64_t)i) % 1000);
    }
    latrec_figures f;
    latrec_figures_from_stats(&f, &s, pcts, NP);
    assert_true(f.outliers_known);
    assert_int_equal(f.outliers, f.outliers_max); /* threshold < 2048 ns: exact */
    latrec_stats_free(&s);
    return f.outliers;
}

static void outlier_rule_flags_exactly_the_planted_spikes(void **state)
{
    (void)state;
    assert_int_equal(outliers_with_spikes(0), 0);
    assert_int_equal(outliers_with_spikes(7), 7);
    assert_int_equal(outliers_with_spikes(10), 10);
    /* Breakdown: with 11 of 40 chunks spiking, Q3 is a spike. */
    assert_int_equal(outliers_with_spikes(11), 0);
}

static void too_few_chunks_for_outliers(void **state)
{
    (void)state;
    int64_t v[3000];
    for (int i = 0; i < 3000; i++) v[i] = i == 1500 ? 1000000 : 1000;
    latrec_stats s;
    fill(&s, v, 3000);
    latrec_figures f;
    latrec_figures_from_stats(&f, &s, pcts, NP);
    assert_false(f.outliers_known);
    assert_int_equal(f.outliers, 0);
    latrec_stats_free(&s);
}

static void names_units_and_percentile_lists(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(latrec_figure_name(FIG_MIN, pcts, NP, buf, sizeof(buf)), "min");
    assert_string_equal(latrec_figure_name(FIG_PCT0 + 3, pcts, NP, buf, sizeof(buf)), "p99.9");
    assert_string_equal(latrec_figure_name(FIG_PCT0 + 4, pcts, NP, buf, sizeof(buf)), "p99.99");
    assert_string_equal(latrec_figure_name(fig_max(NP), pcts, NP, buf, sizeof(buf)), "max");
    assert_string_equal(latrec_figure_name(fig_mean(NP), pcts, NP, buf, sizeof(buf)), "mean");
    assert_string_equal(latrec_figure_name(fig_stddev(NP), pcts, NP, buf, sizeof(buf)), "stddev");
    assert_string_equal(latrec_figure_name(fig_skew(NP), pcts, NP, buf, sizeof(buf)), "skewness");
    latrec_units u;
    assert_int_equal(latrec_units_parse("ns", &u), 0);
    assert_true(u.div == 1.0 && u.decimals == 0);
    assert_int_equal(latrec_units_parse("us", &u), 0);
    assert_true(u.div == 1e3 && u.decimals == 3);
    assert_int_equal(latrec_units_parse("ms", &u), 0);
    assert_true(u.div == 1e6 && u.decimals == 6);
    assert_int_equal(latrec_units_parse("s", &u), -1);
    double p[LATREC_MAX_PCT];
    assert_int_equal(latrec_parse_percentiles("50,99.9", p, LATREC_MAX_PCT), 2);
    assert_true(p[0] == 50 && p[1] == 99.9);
    assert_int_equal(latrec_parse_percentiles("0,100", p, LATREC_MAX_PCT), 2);
    assert_int_equal(latrec_parse_percentiles("", p, LATREC_MAX_PCT), -1);
    assert_int_equal(latrec_parse_percentiles("101", p, LATREC_MAX_PCT), -1);
    assert_int_equal(latrec_parse_percentiles("-1", p, LATREC_MAX_PCT), -1);
    assert_int_equal(latrec_parse_percentiles("50,x", p, LATREC_MAX_PCT), -1);
    assert_int_equal(latrec_parse_percentiles("1,2,3", p, 2), -1);
    /* a percentile given twice is one column, named once */
    assert_int_equal(latrec_parse_percentiles("50,99,50", p, LATREC_MAX_PCT), 2);
    assert_true(p[0] == 50 && p[1] == 99);
    /* a column is named by the percentile itself, not by six digits of it
     * (%g named 99.9999999 "p100" and 12.3456789 "p12.3457") */
    assert_int_equal(latrec_parse_percentiles("99.9999999,12.3456789,0.00001,100", p, LATREC_MAX_PCT), 4);
    assert_string_equal(latrec_figure_name(FIG_PCT0, p, 4, buf, sizeof(buf)), "p99.9999999");
    assert_string_equal(latrec_figure_name(FIG_PCT0 + 1, p, 4, buf, sizeof(buf)), "p12.3456789");
    assert_string_equal(latrec_figure_name(FIG_PCT0 + 2, p, 4, buf, sizeof(buf)), "p0.00001");
    assert_string_equal(latrec_figure_name(FIG_PCT0 + 3, p, 4, buf, sizeof(buf)), "p100");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_column_has_no_figure),
        cmocka_unit_test(one_sample_has_no_stddev_or_skewness),
        cmocka_unit_test(negative_hops_are_counted_not_wrapped),
        cmocka_unit_test(small_set_percentiles_are_exact),
        cmocka_unit_test(uniform_percentiles_within_0_1_percent),
        cmocka_unit_test(skewness_of_a_known_set),
        cmocka_unit_test(outlier_rule_flags_exactly_the_planted_spikes),
        cmocka_unit_test(too_few_chunks_for_outliers),
        cmocka_unit_test(names_units_and_percentile_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
