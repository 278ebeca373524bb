/* Micro-benchmark of the per-sample paths (prints ns/op; asserts only the
 * counts, never the timing, so it cannot flake). latrec_loghist_record is
 * called per hop per record, at >= 50 M records/s in the writer's hot loops
 * being analysed, so it must stay at a few ns: no division, no log, one clz.
 * Run: ctest -R test_stats_bench -V (or the binary directly). */
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime outside the CMake build */
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analyze/stats.h"

enum { NVAL = 1 << 20, ROUNDS = 32 };

#define RNG_SEED 42
#include "rng.h"

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Latency-like values: mostly 200 ns .. 60 us, a tail to ~30 ms. */
static int64_t *make_values(void)
{
	int64_t *v = malloc(NVAL * sizeof(*v));
	assert_non_null(v);
	for (size_t i = 0; i < NVAL; i++) {
		unsigned sh = (unsigned)(rng() % 8);
		v[i] = 200 + (int64_t)((rng() >> 48) >> sh);
		if (i % 997 == 0)
			v[i] += (int64_t)(rng() % 30000000);
	}
	return v;
}

static void bench_record(void **state)
{
	(void)state;
	int64_t *v = make_values();
	latrec_loghist h;
	assert_int_equal(latrec_loghist_init(&h), 0);
	double t0 = now_ns();
	for (int r = 0; r < ROUNDS; r++)
		for (size_t i = 0; i < NVAL; i++)
			latrec_loghist_record(&h, v[i]);
	double t1 = now_ns();
	assert_int_equal(latrec_loghist_count(&h), (uint64_t)NVAL * ROUNDS);
	printf("latrec_loghist_record: %.2f ns/op (%d M calls)\n",
	       (t1 - t0) / ((double)NVAL * ROUNDS), (NVAL * ROUNDS) >> 20);
	latrec_loghist_free(&h);
	free(v);
}

static void bench_stats_add(void **state)
{
	(void)state;
	int64_t *v = make_values();
	latrec_stats s;
	assert_int_equal(latrec_stats_init(&s), 0);
	double t0 = now_ns();
	for (int r = 0; r < ROUNDS; r++)
		for (size_t i = 0; i < NVAL; i++)
			latrec_stats_add(&s, v[i]);
	double t1 = now_ns();
	assert_int_equal(latrec_stats_count(&s), (uint64_t)NVAL * ROUNDS);
	printf("latrec_stats_add:      %.2f ns/op (histogram + moments + outlier chunks)\n",
	       (t1 - t0) / ((double)NVAL * ROUNDS));
	const double ps[] = {50, 90, 99, 99.9, 99.99};
	int64_t out[5];
	t0 = now_ns();
	assert_true(latrec_stats_percentiles(&s, ps, 5, out));
	t1 = now_ns();
	printf("5 percentiles over %d M samples: %.1f us\n", (NVAL * ROUNDS) >> 20, (t1 - t0) / 1e3);
	latrec_stats_free(&s);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bench_record),
		cmocka_unit_test(bench_stats_add),
	};
	return cmocka_run_group_tests_name("stats_bench", tests, NULL, NULL);
}
