/* loghist: percentiles against exact nearest-rank values computed here by
 * sorting, bucket edges, overflow, merge, the exact-sample mode. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/loghist.h"

#include "rng.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Exact nearest rank from a sorted array, computed independently of the
 * library: the smallest k with k >= p/100 * n, done in integers for p given
 * in thousandths of a percent. */
static int64_t exact_pct_milli(const int64_t *sorted, uint64_t n, uint64_t p_milli)
{
	uint64_t k = (p_milli * n + 100000 - 1) / 100000; /* ceil(p n / 100) */
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return sorted[k - 1];
}

static latrec_loghist H;

static int setup(void **state)
{
	(void)state;
	return latrec_loghist_init(&H);
}

static int teardown(void **state)
{
	(void)state;
	latrec_loghist_free(&H);
	return 0;
}

static void test_empty(void **state)
{
	(void)state;
	int64_t v = 42;
	assert_int_equal(latrec_loghist_count(&H), 0);
	assert_false(latrec_loghist_min(&H, &v));
	assert_false(latrec_loghist_max(&H, &v));
	assert_false(latrec_loghist_value_at_percentile(&H, 50, &v));
	assert_int_equal(v, 42);
	latrec_loghist_iter it;
	latrec_loghist_bucket b;
	latrec_loghist_iter_init(&it, &H);
	assert_false(latrec_loghist_iter_next(&it, &b));
	uint64_t lo = 9, hi = 9;
	assert_true(latrec_loghist_count_above(&H, 0, &lo, &hi));
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 0);
}

static void test_uniform_100000(void **state)
{
	(void)state;
	enum { N = 100000 };
	int64_t *v = malloc(N * sizeof(*v));
	assert_non_null(v);
	for (int i = 0; i < N; i++)
		v[i] = i + 1;
	rng_state = 1;
	for (int i = N - 1; i > 0; i--) { /* Fisher-Yates */
		int j = (int)(rng() % (uint64_t)(i + 1));
		int64_t t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
	for (int i = 0; i < N; i++)
		latrec_loghist_record(&H, v[i]);
	assert_false(latrec_loghist_is_exact(&H));

	const double ps[] = {50, 99, 99.9};
	const int64_t want[] = {50000, 99000, 99900}; /* nearest rank of 1..N */
	for (int i = 0; i < 3; i++) {
		int64_t got;
		assert_true(latrec_loghist_value_at_percentile(&H, ps[i], &got));
		double rel = fabs((double)(got - want[i])) / (double)want[i];
		assert_true(rel <= 0.001);
		assert_true(got >= want[i]); /* highest equivalent value: never low */
	}
	int64_t out[3];
	assert_true(latrec_loghist_percentiles(&H, ps, 3, out));
	int64_t p0, p100;
	assert_true(latrec_loghist_value_at_percentile(&H, 0, &p0));
	assert_true(latrec_loghist_value_at_percentile(&H, 100, &p100));
	assert_int_equal(p0, 1);
	assert_int_equal(p100, N);
	free(v);
}

static void test_rank_rule(void **state)
{
	(void)state;
	assert_int_equal(latrec_loghist_rank(99.9, 1000), 999);
	assert_int_equal(latrec_loghist_rank(99.0, 1000), 990);
	assert_int_equal(latrec_loghist_rank(99.99, 10000), 9999);
	assert_int_equal(latrec_loghist_rank(50, 3), 2);
	assert_int_equal(latrec_loghist_rank(50, 4), 2);
	assert_int_equal(latrec_loghist_rank(0, 7), 1);
	assert_int_equal(latrec_loghist_rank(100, 7), 7);
	assert_int_equal(latrec_loghist_rank(0.0001, 7), 1);
	assert_int_equal(latrec_loghist_rank(-1, 7), 0);
	assert_int_equal(latrec_loghist_rank(100.5, 7), 0);
	assert_int_equal(latrec_loghist_rank(NAN, 7), 0);
	assert_int_equal(latrec_loghist_rank(50, 0), 0);
	latrec_loghist_record(&H, 5);
	int64_t v = 3;
	assert_false(latrec_loghist_value_at_percentile(&H, NAN, &v));
	assert_false(latrec_loghist_value_at_percentile(&H, 101, &v));
	assert_int_equal(v, 3);
}

static void test_single_sample(void **state)
{
	(void)state;
	const int64_t x = 123456789;
	latrec_loghist_record(&H, x);
	const double ps[] = {0, 1, 50, 90, 99, 99.9, 99.99, 100};
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		int64_t got;
		assert_true(latrec_loghist_value_at_percentile(&H, ps[i], &got));
		assert_int_equal(got, x);
	}
	int64_t mn, mx;
	assert_true(latrec_loghist_min(&H, &mn));
	assert_true(latrec_loghist_max(&H, &mx));
	assert_int_equal(mn, x);
	assert_int_equal(mx, x);

	/* The same through the buckets: 5000 copies, histogram mode. The
	 * bucket's highest value is above x; the clamp to [min, max] gives x. */
	latrec_loghist_record_n(&H, x, 4999);
	assert_false(latrec_loghist_is_exact(&H));
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		int64_t got;
		assert_true(latrec_loghist_value_at_percentile(&H, ps[i], &got));
		assert_int_equal(got, x);
	}
}

/* 2000 distinct values packed so tightly that a 1/1024 bucket would merge
 * p99 and p99.9: the exact mode keeps them apart. */
static void test_p999_differs_from_p99(void **state)
{
	(void)state;
	const int64_t base = 1000000;
	for (int64_t i = 1999; i >= 0; i--)
		latrec_loghist_record(&H, base + i);
	assert_true(latrec_loghist_is_exact(&H));
	int64_t p99, p999;
	assert_true(latrec_loghist_value_at_percentile(&H, 99, &p99));
	assert_true(latrec_loghist_value_at_percentile(&H, 99.9, &p999));
	assert_int_equal(p99, base + 1980 - 1);  /* rank ceil(0.99 x 2000) = 1980 */
	assert_int_equal(p999, base + 1998 - 1); /* rank ceil(0.999 x 2000) = 1998 */
	assert_true(p999 != p99);
}

static void test_bucket_edges(void **state)
{
	(void)state;
	int64_t lo, hi;
	const struct { int64_t v, lo, hi; } cases[] = {
		{0, 0, 1},
		{2047, 2047, 2048},
		{2048, 2048, 2050},
		{2049, 2048, 2050},
		{2050, 2050, 2052},
		{4095, 4094, 4096},
		{4096, 4096, 4100},
		{4099, 4096, 4100},
		{4100, 4100, 4104},
		{(INT64_C(1) << 20) - 1, (INT64_C(1) << 20) - 512, INT64_C(1) << 20},
		{INT64_C(1) << 20, INT64_C(1) << 20, (INT64_C(1) << 20) + 1024},
		{LATREC_LOGHIST_LIMIT - 1, LATREC_LOGHIST_LIMIT - (INT64_C(1) << 30), LATREC_LOGHIST_LIMIT},
		{LATREC_LOGHIST_LIMIT, LATREC_LOGHIST_LIMIT, INT64_MAX},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_true(latrec_loghist_bucket_of(cases[i].v, &lo, &hi));
		assert_int_equal(lo, cases[i].lo);
		assert_int_equal(hi, cases[i].hi);
	}
	assert_false(latrec_loghist_bucket_of(-1, &lo, &hi));

	/* Every bucket: contiguous, lower inclusive / upper exclusive, and
	 * width / lower <= 1/1024 above the unit range. */
	int64_t expect_lo = 0;
	for (uint32_t idx = 0; idx < LATREC_LOGHIST_BUCKETS; idx++) {
		assert_true(latrec_loghist_bucket_of(expect_lo, &lo, &hi));
		assert_int_equal(lo, expect_lo);
		assert_int_equal(latrec_loghist_index(lo), idx);
		assert_int_equal(latrec_loghist_index(hi - 1), idx);
		if (lo >= LATREC_LOGHIST_UNIT_LIMIT)
			assert_true((hi - lo) * 1024 <= lo);
		else
			assert_int_equal(hi - lo, 1);
		expect_lo = hi;
	}
	assert_int_equal(expect_lo, LATREC_LOGHIST_LIMIT);

	/* Through record + iterator: 4096 and 4099 share [4096, 4100); 4100
	 * starts the next bucket; 4095 is in the bucket below. */
	latrec_loghist_record(&H, 4095);
	latrec_loghist_record(&H, 4096);
	latrec_loghist_record(&H, 4099);
	latrec_loghist_record(&H, 4100);
	latrec_loghist_iter it;
	latrec_loghist_bucket b;
	latrec_loghist_iter_init(&it, &H);
	assert_true(latrec_loghist_iter_next(&it, &b));
	assert_int_equal(b.lower, 4094);
	assert_int_equal(b.upper, 4096);
	assert_int_equal(b.count, 1);
	assert_true(latrec_loghist_iter_next(&it, &b));
	assert_int_equal(b.lower, 4096);
	assert_int_equal(b.upper, 4100);
	assert_int_equal(b.count, 2);
	assert_true(latrec_loghist_iter_next(&it, &b));
	assert_int_equal(b.lower, 4100);
	assert_int_equal(b.upper, 4104);
	assert_int_equal(b.count, 1);
	assert_false(b.overflow);
	assert_false(latrec_loghist_iter_next(&it, &b));
}

static void test_overflow(void **state)
{
	(void)state;
	for (int i = 0; i < 3000; i++)
		latrec_loghist_record(&H, 1000 + i);
	const int64_t big[] = {LATREC_LOGHIST_LIMIT, LATREC_LOGHIST_LIMIT + 7, INT64_C(5) << 50};
	for (int i = 0; i < 3; i++)
		latrec_loghist_record(&H, big[i]);
	assert_int_equal(latrec_loghist_count(&H), 3003);
	assert_int_equal(latrec_loghist_overflow(&H), 3);
	int64_t mx, p100, p50;
	assert_true(latrec_loghist_max(&H, &mx));
	assert_int_equal(mx, INT64_C(5) << 50);
	assert_true(latrec_loghist_value_at_percentile(&H, 100, &p100));
	assert_int_equal(p100, INT64_C(5) << 50);
	assert_true(latrec_loghist_value_at_percentile(&H, 50, &p50));
	assert_true(p50 >= 2501 && p50 <= 2504); /* rank 1502 -> value 2501 */

	latrec_loghist_iter it;
	latrec_loghist_bucket b, last = {0};
	uint64_t sum = 0;
	latrec_loghist_iter_init(&it, &H);
	while (latrec_loghist_iter_next(&it, &b)) {
		sum += b.count;
		last = b;
	}
	assert_int_equal(sum, 3003);
	assert_true(last.overflow);
	assert_int_equal(last.count, 3);
	assert_int_equal(last.lower, LATREC_LOGHIST_LIMIT);

	/* counted above the range: the overflow bucket straddles t. */
	uint64_t lo, hi;
	assert_false(latrec_loghist_count_above(&H, LATREC_LOGHIST_LIMIT + 3, &lo, &hi));
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 3);
	assert_true(latrec_loghist_count_above(&H, LATREC_LOGHIST_LIMIT - 1, &lo, &hi));
	assert_int_equal(lo, 3);
	assert_int_equal(hi, 3);
}

static void test_negatives_refused(void **state)
{
	(void)state;
	latrec_loghist_record(&H, -1);
	latrec_loghist_record(&H, INT64_MIN);
	latrec_loghist_record_n(&H, -5, 3);
	latrec_loghist_record(&H, 7);
	assert_int_equal(latrec_loghist_count(&H), 1);
	assert_int_equal(latrec_loghist_below_zero(&H), 5);
	int64_t p0;
	assert_true(latrec_loghist_value_at_percentile(&H, 0, &p0));
	assert_int_equal(p0, 7);
}

/* Random sets of both modes: every percentile in [min, max], equal to the
 * exact nearest rank in exact mode, within the one-sided bound otherwise. */
static void test_property_within_min_max(void **state)
{
	(void)state;
	enum { MAXN = 6000 };
	int64_t *v = malloc(MAXN * sizeof(*v));
	assert_non_null(v);
	const uint64_t pm[] = {0, 1000, 25000, 50000, 90000, 99000, 99900, 99990, 100000};
	rng_state = 20240601;
	for (int iter = 0; iter < 1000; iter++) {
		latrec_loghist_reset(&H);
		uint64_t n = 1 + rng() % MAXN;
		unsigned shift = (unsigned)(rng() % 40);        /* magnitude */
		int64_t offset = (int64_t)(rng() % 100000);
		for (uint64_t i = 0; i < n; i++) {
			v[i] = offset + (int64_t)(rng() >> (24 + shift)); /* < 2^40 + offset */
			latrec_loghist_record(&H, v[i]);
		}
		qsort(v, n, sizeof(*v), cmp_i64);
		int64_t mn, mx;
		assert_true(latrec_loghist_min(&H, &mn));
		assert_true(latrec_loghist_max(&H, &mx));
		assert_int_equal(mn, v[0]);
		assert_int_equal(mx, v[n - 1]);
		for (size_t k = 0; k < sizeof(pm) / sizeof(pm[0]) + 1; k++) {
			uint64_t p_milli = k < sizeof(pm) / sizeof(pm[0]) ? pm[k] : rng() % 100001;
			double p = (double)p_milli / 1000.0;
			int64_t got;
			assert_true(latrec_loghist_value_at_percentile(&H, p, &got));
			assert_true(got >= mn && got <= mx);
			int64_t want = exact_pct_milli(v, n, p_milli);
			if (latrec_loghist_is_exact(&H)) {
				assert_int_equal(got, want);
			} else {
				assert_true(got >= want);
				assert_true((long double)(got - want) < (long double)want / 1024.0L + 1e-9L);
			}
		}
	}
	free(v);
}

static void fill_random(latrec_loghist *h, int64_t *dst, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		int64_t x = (int64_t)(rng() >> (20 + rng() % 30));
		if (rng() % 97 == 0)
			x = LATREC_LOGHIST_LIMIT + (int64_t)(rng() >> 30);
		if (rng() % 89 == 0)
			x = -x - 1;
		latrec_loghist_record(h, x);
		if (dst)
			dst[i] = x;
	}
}

static void assert_same_hist(const latrec_loghist *a, const latrec_loghist *b)
{
	assert_int_equal(latrec_loghist_count(a), latrec_loghist_count(b));
	assert_int_equal(latrec_loghist_overflow(a), latrec_loghist_overflow(b));
	assert_int_equal(latrec_loghist_below_zero(a), latrec_loghist_below_zero(b));
	assert_int_equal(latrec_loghist_is_exact(a), latrec_loghist_is_exact(b));
	int64_t x, y;
	assert_int_equal(latrec_loghist_min(a, &x), latrec_loghist_min(b, &y));
	if (latrec_loghist_count(a))
		assert_int_equal(x, y);
	assert_int_equal(latrec_loghist_max(a, &x), latrec_loghist_max(b, &y));
	if (latrec_loghist_count(a))
		assert_int_equal(x, y);
	latrec_loghist_iter ia, ib;
	latrec_loghist_bucket ba, bb;
	latrec_loghist_iter_init(&ia, a);
	latrec_loghist_iter_init(&ib, b);
	for (;;) {
		bool ra = latrec_loghist_iter_next(&ia, &ba), rb = latrec_loghist_iter_next(&ib, &bb);
		assert_int_equal(ra, rb);
		if (!ra)
			break;
		assert_int_equal(ba.lower, bb.lower);
		assert_int_equal(ba.upper, bb.upper);
		assert_int_equal(ba.count, bb.count);
	}
	for (double p = 0; p <= 100; p += 0.5) {
		bool ra = latrec_loghist_value_at_percentile(a, p, &x);
		bool rb = latrec_loghist_value_at_percentile(b, p, &y);
		assert_int_equal(ra, rb);
		if (ra)
			assert_int_equal(x, y);
	}
}

static void test_merge_equals_feeding_both(void **state)
{
	(void)state;
	/* sizes: exact + exact -> exact, exact + exact -> histogram, big + big */
	const uint64_t sizes[][2] = {{700, 900}, {1500, 1400}, {30000, 4321}, {0, 50}, {50, 0}};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		latrec_loghist a, b, c;
		assert_int_equal(latrec_loghist_init(&a), 0);
		assert_int_equal(latrec_loghist_init(&b), 0);
		assert_int_equal(latrec_loghist_init(&c), 0);
		rng_state = 77 + k;
		fill_random(&a, NULL, sizes[k][0]);
		fill_random(&b, NULL, sizes[k][1]);
		rng_state = 77 + k;
		fill_random(&c, NULL, sizes[k][0]);
		fill_random(&c, NULL, sizes[k][1]);
		latrec_loghist_merge(&a, &b);
		assert_same_hist(&a, &c);
		latrec_loghist_free(&a);
		latrec_loghist_free(&b);
		latrec_loghist_free(&c);
	}
	/* merge into itself doubles it */
	latrec_loghist a, c;
	assert_int_equal(latrec_loghist_init(&a), 0);
	assert_int_equal(latrec_loghist_init(&c), 0);
	rng_state = 5;
	fill_random(&a, NULL, 1000);
	rng_state = 5;
	fill_random(&c, NULL, 1000);
	rng_state = 5;
	fill_random(&c, NULL, 1000);
	latrec_loghist_merge(&a, &a);
	assert_same_hist(&a, &c);
	latrec_loghist_free(&a);
	latrec_loghist_free(&c);
}

/* Histograms kept sparse (a part's interval of a time series), summed in
 * turn and merged, then put into an empty histogram: the same buckets,
 * figures and percentiles as one histogram fed every sample, in exact mode
 * and not (the parts' sums crossing 2048 samples between them or not). */
static void test_sparse_equals_feeding_all(void **state)
{
	(void)state;
	const uint64_t sizes[][3] = {{700, 900, 300}, {1500, 1400, 10}, {30000, 4321, 0}, {0, 0, 50}, {0, 0, 0}, {2047, 1, 0}};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		latrec_loghist part, all, out;
		assert_int_equal(latrec_loghist_init(&part), 0);
		assert_int_equal(latrec_loghist_init(&all), 0);
		assert_int_equal(latrec_loghist_init(&out), 0);
		latrec_loghist_sparse s1 = { 0 }, s2 = { 0 };
		rng_state = 91 + k;
		fill_random(&part, NULL, sizes[k][0]); /* two parts into s1 */
		assert_int_equal(latrec_loghist_sparse_add(&s1, &part), 0);
		latrec_loghist_reset(&part);
		fill_random(&part, NULL, sizes[k][1]);
		assert_int_equal(latrec_loghist_sparse_add(&s1, &part), 0);
		latrec_loghist_reset(&part);
		fill_random(&part, NULL, sizes[k][2]); /* one into s2, merged */
		assert_int_equal(latrec_loghist_sparse_add(&s2, &part), 0);
		assert_int_equal(latrec_loghist_sparse_merge(&s1, &s2), 0);
		assert_int_equal(s1.total, sizes[k][0] + sizes[k][1] + sizes[k][2] - s1.below_zero);
		assert_true((s1.exact != NULL) == (s1.total <= LATREC_LOGHIST_EXACT_MAX));
		latrec_loghist_add_sparse(&out, &s1);
		rng_state = 91 + k;
		for (int i = 0; i < 3; i++)
			fill_random(&all, NULL, sizes[k][i]);
		assert_same_hist(&out, &all);
		latrec_loghist_sparse_free(&s1);
		latrec_loghist_sparse_free(&s2);
		latrec_loghist_free(&part);
		latrec_loghist_free(&all);
		latrec_loghist_free(&out);
	}
}

static void test_record_n(void **state)
{
	(void)state;
	latrec_loghist c;
	assert_int_equal(latrec_loghist_init(&c), 0);
	const int64_t vals[] = {3, 70000, 5, LATREC_LOGHIST_LIMIT + 1, 999999};
	const uint64_t reps[] = {1000, 1000, 2, 3, 17};
	for (size_t i = 0; i < 5; i++) {
		latrec_loghist_record_n(&H, vals[i], reps[i]);
		for (uint64_t r = 0; r < reps[i]; r++)
			latrec_loghist_record(&c, vals[i]);
	}
	latrec_loghist_record_n(&H, 12, 0);
	assert_same_hist(&H, &c);
	latrec_loghist_free(&c);
}

static void test_count_above(void **state)
{
	(void)state;
	uint64_t lo, hi;
	/* exact mode */
	for (int i = 0; i < 100; i++)
		latrec_loghist_record(&H, 100000 + i);
	assert_true(latrec_loghist_count_above(&H, 100049, &lo, &hi));
	assert_int_equal(lo, 50);
	assert_int_equal(hi, 50);
	/* histogram mode, t inside a populated 64-wide bucket [99968, 100032):
	 * a bracket around the true count */
	latrec_loghist_reset(&H);
	for (int i = 0; i < 5000; i++)
		latrec_loghist_record(&H, 90000 + i * 4);
	int64_t blo, bhi;
	assert_true(latrec_loghist_bucket_of(100000, &blo, &bhi));
	assert_int_equal(blo, 99968);
	assert_int_equal(bhi, 100032);
	uint64_t truth = 0;
	for (int i = 0; i < 5000; i++)
		truth += 90000 + i * 4 > 100000;
	assert_false(latrec_loghist_count_above(&H, 100000, &lo, &hi));
	assert_true(lo <= truth && truth <= hi);
	assert_int_equal(hi - lo, 16); /* the 16 samples of that bucket */
	/* t at a bucket's top (t + 1 is an edge): exact */
	assert_true(latrec_loghist_count_above(&H, 100031, &lo, &hi));
	assert_int_equal(lo, (uint64_t)(5000 - (100032 - 90000) / 4));
	assert_int_equal(hi, lo);
	/* t below the unit limit: exact */
	latrec_loghist_reset(&H);
	for (int i = 0; i < 4000; i++)
		latrec_loghist_record(&H, i % 2000);
	assert_true(latrec_loghist_count_above(&H, 1499, &lo, &hi));
	assert_int_equal(lo, 1000);
	assert_int_equal(hi, 1000);
}

static void test_reset_reuse(void **state)
{
	(void)state;
	for (int i = 0; i < 10000; i++)
		latrec_loghist_record(&H, i * 1000);
	latrec_loghist_record(&H, LATREC_LOGHIST_LIMIT * 2);
	latrec_loghist_reset(&H);
	assert_int_equal(latrec_loghist_count(&H), 0);
	assert_int_equal(latrec_loghist_overflow(&H), 0);
	latrec_loghist_iter it;
	latrec_loghist_bucket b;
	latrec_loghist_iter_init(&it, &H);
	assert_false(latrec_loghist_iter_next(&it, &b));
	/* every count really is zero again */
	for (uint32_t i = 0; i < LATREC_LOGHIST_BUCKETS; i++)
		assert_int_equal(H.counts[i], 0);
	latrec_loghist_record(&H, 77);
	int64_t p;
	assert_true(latrec_loghist_value_at_percentile(&H, 50, &p));
	assert_int_equal(p, 77);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uniform_100000, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rank_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_single_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_p999_differs_from_p99, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bucket_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_negatives_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_property_within_min_max, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_equals_feeding_both, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sparse_equals_feeding_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_n, setup, teardown),
		cmocka_unit_test_setup_teardown(test_count_above, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset_reuse, setup, teardown),
	};
	return cmocka_run_group_tests_name("stats_loghist", tests, NULL, NULL);
}
