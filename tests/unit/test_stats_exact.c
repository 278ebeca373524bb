/* latrec_stats' moments from exact power sums: the same bits in any order
 * and over any merge, and exact against an independent reference (the
 * central moments of a shifted copy of the values, in __int128, which the
 * column never computes: they do not change with the shift). Also
 * latrec_sum. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/stats.h"

#define RNG_SEED 11
#include "rng.h"

enum { N = 20011 };
static int64_t V[N];

struct figs {
	double mean, sd, g1;
	bool has_sd, has_g1;
};

static struct figs figs_of(latrec_stats *s)
{
	struct figs f;
	memset(&f, 0, sizeof(f));
	assert_true(latrec_stats_mean(s, &f.mean));
	f.has_sd = latrec_stats_stddev(s, &f.sd);
	f.has_g1 = latrec_stats_skewness(s, &f.g1);
	return f;
}

static struct figs figs_fed(const int64_t *v, size_t n)
{
	latrec_stats s;
	assert_int_equal(latrec_stats_init(&s), 0);
	for (size_t i = 0; i < n; i++)
		latrec_stats_add(&s, v[i]);
	struct figs f = figs_of(&s);
	latrec_stats_free(&s);
	return f;
}

static void assert_same_bits(struct figs a, struct figs b)
{
	assert_memory_equal(&a.mean, &b.mean, sizeof(a.mean));
	assert_int_equal(a.has_sd, b.has_sd);
	assert_int_equal(a.has_g1, b.has_g1);
	if (a.has_sd)
		assert_memory_equal(&a.sd, &b.sd, sizeof(a.sd));
	if (a.has_g1)
		assert_memory_equal(&a.g1, &b.g1, sizeof(a.g1));
}

static void assert_rel(double got, long double want, double tol)
{
	long double err = fabsl((long double)got - want), scale = fabsl(want) > 0 ? fabsl(want) : 1;
	if (err / scale > tol)
		fail_msg("got %.17g want %.17Lg (rel err %Lg > %g)", got, want, err / scale, tol);
}

/* base + a spread below 2^12, with rare spikes: values of one block may
 * cross 2^40 (the column's two ways of summing). */
static void fill(int64_t base)
{
	for (int i = 0; i < N; i++) {
		int64_t d = (int64_t)(rng() % 4096);
		if (rng() % 97 == 0)
			d += 1000000;
		V[i] = base + d;
	}
}

static void shuffle(int64_t *v, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(rng() % (i + 1));
		int64_t t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

/* Every order and every way of cutting and merging gives the same bits. */
static void test_order_and_merge_independent(void **state)
{
	(void)state;
	const int64_t bases[] = { 0, (INT64_C(1) << 40) - 2048, INT64_C(1) << 62, INT64_C(1000000000000) };
	for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		fill(bases[b]);
		const struct figs want = figs_fed(V, N);
		for (int round = 0; round < 4; round++) {
			shuffle(V, N);
			assert_same_bits(figs_fed(V, N), want);
			/* three parts, merged in two orders */
			size_t cut1 = (size_t)(rng() % N), cut2 = cut1 + (size_t)(rng() % (N - cut1));
			latrec_stats p[3], m;
			const size_t from[3] = { 0, cut1, cut2 }, to[3] = { cut1, cut2, N };
			for (int k = 0; k < 3; k++) {
				assert_int_equal(latrec_stats_init(&p[k]), 0);
				for (size_t i = from[k]; i < to[k]; i++)
					latrec_stats_add(&p[k], V[i]);
			}
			const int orders[2][3] = { { 0, 1, 2 }, { 2, 0, 1 } };
			for (int o = 0; o < 2; o++) {
				assert_int_equal(latrec_stats_init(&m), 0);
				for (int k = 0; k < 3; k++)
					assert_int_equal(latrec_stats_merge(&m, &p[orders[o][k]]), 0);
				assert_same_bits(figs_of(&m), want);
				latrec_stats_free(&m);
			}
			for (int k = 0; k < 3; k++)
				latrec_stats_free(&p[k]);
		}
	}
}

/* Against the moments of v - base, exact in __int128 here. */
static void test_exact_against_shifted(void **state)
{
	(void)state;
	const int64_t bases[] = { 0, INT64_C(1) << 39, INT64_C(1) << 50, (INT64_C(1) << 62) + 12345 };
	for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		fill(bases[b]);
		__int128 s1 = 0, s2 = 0, s3 = 0;
		for (int i = 0; i < N; i++) {
			const __int128 d = V[i] - bases[b];
			s1 += d;
			s2 += d * d;
			s3 += d * d * d;
		}
		const __int128 n = N;
		const __int128 nm2 = n * s2 - s1 * s1;                           /* n M2 */
		const __int128 n2m3 = n * n * s3 - 3 * n * s1 * s2 + 2 * s1 * s1 * s1; /* n^2 M3 */
		const long double mean = (long double)bases[b] + (long double)s1 / N;
		const long double sd = sqrtl((long double)nm2 / ((long double)N * (N - 1)));
		const long double g1 = sqrtl((long double)N * (N - 1)) / (N - 2) * (long double)n2m3 /
				       ((long double)nm2 * sqrtl((long double)nm2));
		const struct figs f = figs_fed(V, N);
		assert_rel(f.mean, mean, 1e-16);
		assert_true(f.has_sd && f.has_g1);
		assert_rel(f.sd, sd, 1e-15);
		assert_rel(f.g1, g1, 1e-14);
	}
}

/* Equal values at the top of the range: variance exactly 0, no skewness. */
static void test_equal_large_values(void **state)
{
	(void)state;
	latrec_stats s;
	assert_int_equal(latrec_stats_init(&s), 0);
	for (int i = 0; i < 1000; i++)
		latrec_stats_add(&s, INT64_MAX);
	double d;
	assert_true(latrec_stats_mean(&s, &d));
	assert_true(d == (double)INT64_MAX);
	assert_true(latrec_stats_stddev(&s, &d));
	assert_true(d == 0.0);
	assert_false(latrec_stats_skewness(&s, &d));
	latrec_moments m;
	latrec_stats_moments(&s, &m);
	assert_true(m.n == 1000 && m.m2 == 0 && m.m3 == 0);
	latrec_stats_free(&s);
}

/* Three values by hand: 0, 0, 3 x 2^61 (mean 2^61, M2 = 6 x 2^122,
 * M3 = 6 x 2^183, G1 = sqrt 6 / 1 x (M3/3) / (M2/3)^1.5 = sqrt(3)). */
static void test_skew_by_hand_huge(void **state)
{
	(void)state;
	latrec_stats s;
	assert_int_equal(latrec_stats_init(&s), 0);
	latrec_stats_add(&s, 0);
	latrec_stats_add(&s, 0);
	latrec_stats_add(&s, 3 * (INT64_C(1) << 61));
	double d;
	assert_true(latrec_stats_mean(&s, &d));
	assert_true(d == ldexp(1, 61));
	assert_true(latrec_stats_stddev(&s, &d)); /* sqrt(6 x 2^122 / 2) = sqrt 3 x 2^61 */
	assert_rel(d, sqrtl(3) * ldexpl(1, 61), 1e-16);
	assert_true(latrec_stats_skewness(&s, &d));
	assert_rel(d, sqrtl(3), 1e-16);
	latrec_stats_free(&s);
}

static void test_sum(void **state)
{
	(void)state;
	latrec_sum a;
	memset(&a, 0, sizeof(a));
	double d;
	assert_false(latrec_sum_mean(&a, &d));
	for (int i = 0; i < 5; i++)
		latrec_sum_add(&a, INT64_MAX); /* past 2^63: the wide way */
	assert_true(latrec_sum_mean(&a, &d));
	assert_true(d == (double)INT64_MAX);
	memset(&a, 0, sizeof(a));
	latrec_sum_add(&a, -7);
	latrec_sum_add(&a, 2);
	assert_true(latrec_sum_mean(&a, &d));
	assert_true(d == -2.5);
	memset(&a, 0, sizeof(a));
	for (int i = 0; i < 3; i++)
		latrec_sum_add(&a, INT64_MIN);
	latrec_sum_add(&a, INT64_MAX);
	assert_true(latrec_sum_mean(&a, &d)); /* (3 x -2^63 + 2^63 - 1) / 4 = -2^62 - 1/4 */
	assert_true(d == -ldexp(1, 62));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_merge_independent),
		cmocka_unit_test(test_exact_against_shifted),
		cmocka_unit_test(test_equal_large_values),
		cmocka_unit_test(test_skew_by_hand_huge),
		cmocka_unit_test(test_sum),
	};
	return cmocka_run_group_tests_name("stats_exact", tests, NULL, NULL);
}
