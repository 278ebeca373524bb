/* latrec_stats: moments against two-pass formulas computed here, the empty
 * column, negatives, merge, calibration, gaps. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/stats.h"

#include "rng.h"

static latrec_stats S;

static int setup(void **state)
{
	(void)state;
	return latrec_stats_init(&S);
}

static int teardown(void **state)
{
	(void)state;
	latrec_stats_free(&S);
	return 0;
}

static void assert_rel(double got, long double want, double tol)
{
	long double err = fabsl((long double)got - want);
	long double scale = fabsl(want) > 0 ? fabsl(want) : 1;
	if (err / scale > tol)
		fail_msg("got %.17g want %.17Lg (rel err %Lg > %g)", got, want, err / scale, tol);
}

/* Independent reference: two-pass moments in long double. */
struct ref { long double mean, sd, g1; };
static struct ref two_pass(const int64_t *v, size_t n)
{
	struct ref r = {0, 0, 0};
	long double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	r.mean = sum / n;
	long double m2 = 0, m3 = 0;
	for (size_t i = 0; i < n; i++) {
		long double d = v[i] - r.mean;
		m2 += d * d;
		m3 += d * d * d;
	}
	r.sd = sqrtl(m2 / (n - 1));
	long double pm2 = m2 / n, pm3 = m3 / n;
	r.g1 = sqrtl((long double)n * (n - 1)) / (n - 2) * pm3 / powl(pm2, 1.5L);
	return r;
}

static void assert_no_value_except_count(latrec_stats *s)
{
	int64_t i = 11;
	double d = 11.0;
	assert_int_equal(latrec_stats_count(s), 0);
	assert_false(latrec_stats_min(s, &i));
	assert_false(latrec_stats_max(s, &i));
	assert_false(latrec_stats_mean(s, &d));
	assert_false(latrec_stats_stddev(s, &d));
	assert_false(latrec_stats_skewness(s, &d));
	assert_false(latrec_stats_percentile(s, 50, &i));
	assert_false(latrec_stats_percentile(s, 0, &i));
	assert_false(latrec_stats_percentile(s, 100, &i));
	const double ps[] = {50, 99};
	int64_t out[2] = {11, 11};
	assert_false(latrec_stats_percentiles(s, ps, 2, out));
	assert_int_equal(out[0], 11);
	assert_int_equal(latrec_stats_negatives(s), 0);
	assert_false(latrec_stats_negative_min(s, &i));
	latrec_outlier_count oc;
	assert_false(latrec_stats_outliers(s, &oc));
	assert_int_equal(i, 11); /* untouched */
	assert_true(d == 11.0);
}

static void test_empty_column(void **state)
{
	(void)state;
	assert_no_value_except_count(&S);
	/* an emptied column too */
	for (int i = 0; i < 5000; i++)
		latrec_stats_add(&S, i);
	latrec_stats_add(&S, -3);
	latrec_stats_reset(&S);
	assert_no_value_except_count(&S);
	/* a column that saw only regressions has no latency figure either */
	latrec_stats_add(&S, -3);
	int64_t i = 0;
	assert_int_equal(latrec_stats_count(&S), 0);
	assert_false(latrec_stats_min(&S, &i));
	assert_false(latrec_stats_percentile(&S, 50, &i));
	assert_int_equal(latrec_stats_negatives(&S), 1);
}

static void test_single_sample(void **state)
{
	(void)state;
	latrec_stats_add(&S, 4242);
	int64_t v;
	double d;
	assert_int_equal(latrec_stats_count(&S), 1);
	assert_true(latrec_stats_min(&S, &v));
	assert_int_equal(v, 4242);
	assert_true(latrec_stats_max(&S, &v));
	assert_int_equal(v, 4242);
	const double ps[] = {0, 50, 90, 99, 99.9, 100};
	for (size_t i = 0; i < 6; i++) {
		assert_true(latrec_stats_percentile(&S, ps[i], &v));
		assert_int_equal(v, 4242);
	}
	assert_true(latrec_stats_mean(&S, &d));
	assert_true(d == 4242.0);
	assert_false(latrec_stats_stddev(&S, &d)); /* sample stddev needs n >= 2 */
	assert_false(latrec_stats_skewness(&S, &d));
	latrec_outlier_count oc;
	assert_true(latrec_stats_outliers(&S, &oc));
	assert_false(oc.fence.enough_data);
	assert_int_equal(oc.count, 0);
}

/* {1,2,3,4,100} by hand: mean 22; deviations -21,-20,-19,-18,78;
 * M2 = 441+400+361+324+6084 = 7610; M3 = -9261-8000-6859-5832+474552 = 444600;
 * m2 = 1522, m3 = 88920; G1 = sqrt(5*4)/3 * 88920 / 1522^1.5;
 * sample sd = sqrt(7610/4). */
static void test_skew_small_by_hand(void **state)
{
	(void)state;
	const int64_t v[] = {1, 2, 3, 4, 100};
	for (int i = 0; i < 5; i++)
		latrec_stats_add(&S, v[i]);
	double d;
	assert_true(latrec_stats_mean(&S, &d));
	assert_rel(d, 22.0L, 1e-15);
	assert_true(latrec_stats_stddev(&S, &d));
	assert_rel(d, sqrtl(7610.0L / 4.0L), 1e-12);
	assert_true(latrec_stats_skewness(&S, &d));
	long double g1 = sqrtl(20.0L) / 3.0L * 88920.0L / powl(1522.0L, 1.5L);
	assert_rel(d, g1, 1e-9);
	/* g1 = 88920 / 59377.4 = 1.49755, G1 = 1.49071 x g1 = 2.2324 (what
	 * scipy.stats.skew(bias=False) and Excel's SKEW give) */
	assert_true(d > 2.232 && d < 2.233);
	/* n < 3 has no skewness */
	latrec_stats_reset(&S);
	latrec_stats_add(&S, 1);
	latrec_stats_add(&S, 9);
	assert_false(latrec_stats_skewness(&S, &d));
	assert_true(latrec_stats_stddev(&S, &d));
	assert_rel(d, sqrtl(32.0L), 1e-15);
}

static void exp_set(int64_t *v, size_t n, uint64_t seed)
{
	rng_state = seed;
	for (size_t i = 0; i < n; i++) {
		double u = ((double)(rng() >> 11) + 0.5) / 9007199254740992.0;
		v[i] = 100 + (int64_t)floor(-1000.0 * log(u));
	}
}

static void test_exponential_two_pass(void **state)
{
	(void)state;
	enum { N = 1000 };
	int64_t v[N];
	exp_set(v, N, 99);
	for (int i = 0; i < N; i++)
		latrec_stats_add(&S, v[i]);
	struct ref r = two_pass(v, N);
	double d;
	assert_true(latrec_stats_mean(&S, &d));
	assert_rel(d, r.mean, 1e-12);
	assert_true(latrec_stats_stddev(&S, &d));
	assert_rel(d, r.sd, 1e-10);
	assert_true(latrec_stats_skewness(&S, &d));
	assert_rel(d, r.g1, 1e-9);
	assert_true(d > 1.0); /* an exponential's skewness is 2 */
}

/* A 1e12 ns offset with small spread: the naive sum-of-squares formula
 * loses everything here; the block + pairwise update must not. */
static void test_large_offset_stable(void **state)
{
	(void)state;
	enum { N = 10007 };
	static int64_t v[N];
	for (int i = 0; i < N; i++)
		v[i] = INT64_C(1000000000000) + (int64_t)((i * 7919u) % 1000u) + (i % 13 == 0 ? 5000 : 0);
	for (int i = 0; i < N; i++)
		latrec_stats_add(&S, v[i]);
	struct ref r = two_pass(v, N);
	double d;
	assert_true(latrec_stats_mean(&S, &d));
	assert_rel(d, r.mean, 1e-15);
	assert_true(latrec_stats_stddev(&S, &d));
	assert_rel(d, r.sd, 1e-9);
	assert_true(latrec_stats_skewness(&S, &d));
	assert_rel(d, r.g1, 1e-6);
}

static void test_all_equal(void **state)
{
	(void)state;
	for (int i = 0; i < 100; i++)
		latrec_stats_add(&S, 500);
	double d;
	assert_true(latrec_stats_stddev(&S, &d));
	assert_true(d == 0.0);
	assert_false(latrec_stats_skewness(&S, &d)); /* 0/0: no value */
	assert_true(latrec_stats_mean(&S, &d));
	assert_true(d == 500.0);
}

static void test_negatives_are_regressions(void **state)
{
	(void)state;
	const int64_t v[] = {-5, 10, -100, 20, INT64_MIN, 30};
	for (int i = 0; i < 6; i++)
		latrec_stats_add(&S, v[i]);
	assert_int_equal(latrec_stats_count(&S), 3);
	assert_int_equal(latrec_stats_negatives(&S), 3);
	int64_t x;
	assert_true(latrec_stats_negative_min(&S, &x));
	assert_true(x == INT64_MIN);
	assert_true(latrec_stats_min(&S, &x));
	assert_int_equal(x, 10);
	assert_true(latrec_stats_max(&S, &x));
	assert_int_equal(x, 30);
	for (double p = 0; p <= 100; p += 12.5) {
		assert_true(latrec_stats_percentile(&S, p, &x));
		assert_true(x >= 10 && x <= 30);
	}
	assert_true(latrec_stats_percentile(&S, 0, &x));
	assert_int_equal(x, 10);
	double d;
	assert_true(latrec_stats_mean(&S, &d));
	assert_true(d == 20.0);
	assert_int_equal(latrec_loghist_below_zero(latrec_stats_hist(&S)), 0);
}

static void test_calibration(void **state)
{
	(void)state;
	assert_int_equal(latrec_calibrate(1000, 25), 975);
	assert_int_equal(latrec_calibrate(1000, 0), 1000);
	assert_int_equal(latrec_calibrate(10, 25), -15);
	assert_int_equal(latrec_calibrate(-7, 3), -10);
	assert_true(latrec_calibrate(INT64_MAX, UINT32_MAX) == INT64_MAX - (int64_t)UINT32_MAX);
	assert_true(latrec_calibrate(INT64_MIN + 5, 10) == INT64_MIN);
	assert_true(latrec_calibrate(INT64_MIN + 10, 10) == INT64_MIN);
	assert_true(latrec_calibrate(INT64_MIN + 11, 10) == INT64_MIN + 1);
}

static void test_gaps(void **state)
{
	(void)state;
	latrec_gaps g;
	latrec_gaps_init(&g, &S);
	const uint64_t t[] = {100, 350, 600, 590, 1000};
	for (int i = 0; i < 5; i++)
		latrec_gaps_feed(&g, t[i]);
	/* gaps 250, 250, -10 (regression), 410 */
	assert_int_equal(latrec_stats_count(&S), 3);
	assert_int_equal(latrec_stats_negatives(&S), 1);
	int64_t x;
	assert_true(latrec_stats_negative_min(&S, &x));
	assert_int_equal(x, -10);
	double d;
	assert_true(latrec_stats_mean(&S, &d));
	assert_rel(d, 910.0L / 3.0L, 1e-15);
	assert_true(latrec_stats_max(&S, &x));
	assert_int_equal(x, 410);
	/* saturation of absurd gaps instead of wrapping */
	latrec_stats_reset(&S);
	latrec_gaps_init(&g, &S);
	latrec_gaps_feed(&g, 0);
	latrec_gaps_feed(&g, UINT64_MAX);
	latrec_gaps_feed(&g, 0);
	assert_int_equal(latrec_stats_count(&S), 1);
	assert_true(latrec_stats_max(&S, &x));
	assert_true(x == INT64_MAX);
	assert_true(latrec_stats_negative_min(&S, &x));
	assert_true(x == -INT64_MAX);
}

static void feed_mixed(latrec_stats *s, int64_t *log, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int64_t x = (int64_t)(rng() >> (34 + rng() % 20));
		if (rng() % 50 == 0)
			x = -(int64_t)(rng() % 1000) - 1;
		if (rng() % 300 == 0)
			x += 1000000;
		latrec_stats_add(s, x);
		if (log)
			log[i] = x;
	}
}

static void assert_same_stats(latrec_stats *a, latrec_stats *b, bool outliers)
{
	assert_int_equal(latrec_stats_count(a), latrec_stats_count(b));
	assert_int_equal(latrec_stats_negatives(a), latrec_stats_negatives(b));
	int64_t x, y;
	double p, q;
	assert_int_equal(latrec_stats_negative_min(a, &x), latrec_stats_negative_min(b, &y));
	if (latrec_stats_negatives(a))
		assert_int_equal(x, y);
	bool have = latrec_stats_count(a) > 0;
	assert_int_equal(latrec_stats_min(a, &x), have);
	assert_int_equal(latrec_stats_min(b, &y), have);
	if (have)
		assert_int_equal(x, y);
	assert_int_equal(latrec_stats_max(a, &x), have);
	assert_int_equal(latrec_stats_max(b, &y), have);
	if (have)
		assert_int_equal(x, y);
	if (latrec_stats_mean(a, &p)) {
		assert_true(latrec_stats_mean(b, &q));
		assert_rel(p, q, 1e-12);
	}
	if (latrec_stats_stddev(a, &p)) {
		assert_true(latrec_stats_stddev(b, &q));
		assert_rel(p, q, 1e-10);
	}
	if (latrec_stats_skewness(a, &p)) {
		assert_true(latrec_stats_skewness(b, &q));
		assert_rel(p, q, 1e-9);
	}
	for (double pc = 0; pc <= 100; pc += 0.1) {
		bool ra = latrec_stats_percentile(a, pc, &x), rb = latrec_stats_percentile(b, pc, &y);
		assert_int_equal(ra, rb);
		if (ra)
			assert_int_equal(x, y);
	}
	if (!outliers)
		return;
	latrec_outlier_count oa, ob;
	bool ra = latrec_stats_outliers(a, &oa), rb = latrec_stats_outliers(b, &ob);
	assert_int_equal(ra, rb);
	if (ra) {
		assert_int_equal(oa.fence.chunks, ob.fence.chunks);
		assert_int_equal(oa.fence.enough_data, ob.fence.enough_data);
		assert_int_equal(oa.fence.threshold, ob.fence.threshold);
		assert_int_equal(oa.count, ob.count);
		assert_int_equal(oa.count_max, ob.count_max);
	}
}

/* Values added a block at a time from rows (latrec_stats_add_strided)
 * give the column the values one by one gives: every figure, the exact
 * power sums and the outlier chunks, for whole blocks of small values,
 * blocks with a clock regression, with values of 2^19 ns and more and of
 * 2^41 and more, partial blocks and blocks after values still waiting,
 * several series in turn, while the loghist keeps its first samples and
 * after. */
static void test_strided_equals_one_by_one(void **state)
{
	(void)state;
	enum { HOPS = 3, ROWS = 40 };
	latrec_stats a, b;
	assert_int_equal(latrec_stats_init(&a), 0);
	assert_int_equal(latrec_stats_init(&b), 0);
	rng_state = 31;
	static int64_t rows[ROWS * HOPS];
	for (int round = 0; round < 400; round++) {
		const uint32_t n = round % 5 == 4 ? 1 + (uint32_t)(rng() % ROWS) : LATREC_STATS_BLOCK;
		const uint32_t k = (uint32_t)(round / 7 % 3);
		const int kind = (int)(rng() % 200); /* < 10: a regression, 10: >= 2^19, 11: >= 2^41 (most chunks none) */
		for (uint32_t i = 0; i < n * HOPS; i++) /* the other hops' values above this one's: a column */
			rows[i] = i % HOPS == 1 ? 100 + (int64_t)(rng() % 60000) : 300000 + (int64_t)(rng() % 1000); /* read wrong shows */
		if (kind < 10)
			rows[(rng() % n) * HOPS + 1] = -(int64_t)(rng() % 500) - 1;
		if (kind == 10)
			rows[(rng() % n) * HOPS + 1] = (INT64_C(1) << 19) + (int64_t)(rng() % 1000);
		if (kind == 11)
			rows[(rng() % n) * HOPS + 1] = (INT64_C(1) << 41) + (int64_t)(rng() % 1000);
		if (round % 11 == 10) { /* a value waiting before the block */
			latrec_stats_add_in(&a, 777, k);
			latrec_stats_add_in(&b, 777, k);
		}
		for (uint32_t i = 0; i < n; i++)
			latrec_stats_add_in(&a, rows[i * HOPS + 1], k);
		latrec_stats_add_strided(&b, &rows[1], HOPS, n, k);
		while (round % 3 && b.block_n) { /* mostly none waiting: the next whole block goes in at once */
			latrec_stats_add_in(&a, 900, k);
			latrec_stats_add_in(&b, 900, k);
		}
		if (round == 40) { /* about 1300 values: the kept samples answer */
			assert_true(latrec_stats_count(&a) <= LATREC_LOGHIST_EXACT_MAX);
			assert_same_stats(&a, &b, true);
		}
	}
	assert_true(latrec_stats_count(&a) > 10000);
	assert_true(latrec_stats_negatives(&a) > 5);
	assert_same_stats(&a, &b, true);
	latrec_moments ma, mb;
	latrec_stats_moments(&a, &ma);
	latrec_stats_moments(&b, &mb);
	assert_int_equal(ma.n, mb.n);
	assert_true(ma.mean == mb.mean && ma.m2 == mb.m2 && ma.m3 == mb.m3);
	latrec_sum sa, sb;
	latrec_stats_signed_sum(&a, &sa);
	latrec_stats_signed_sum(&b, &sb);
	assert_true(sa.s == sb.s && sa.n == sb.n);
	latrec_outlier_fence fa, fb;
	assert_int_equal(latrec_stats_fence(&a, &fa), 0);
	assert_int_equal(latrec_stats_fence(&b, &fb), 0);
	assert_int_equal(fa.chunks, fb.chunks);
	assert_true(fa.enough_data && fa.q1 == fb.q1 && fa.q3 == fb.q3);
	latrec_stats_free(&a);
	latrec_stats_free(&b);
}

static void test_merge_equals_feeding_both(void **state)
{
	(void)state;
	/* Outlier chunks match only when a's (non-negative) count is a multiple
	 * of 1000: merge closes a's partial chunk on its own (documented). */
	const size_t sizes[][2] = {{0, 0}, {0, 300}, {300, 0}, {17, 40}, {1000, 2500}, {4000, 12345}};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		latrec_stats a, b, c;
		assert_int_equal(latrec_stats_init(&a), 0);
		assert_int_equal(latrec_stats_init(&b), 0);
		assert_int_equal(latrec_stats_init(&c), 0);
		rng_state = 1000 + k;
		feed_mixed(&a, NULL, sizes[k][0]);
		feed_mixed(&b, NULL, sizes[k][1]);
		rng_state = 1000 + k;
		feed_mixed(&c, NULL, sizes[k][0]);
		feed_mixed(&c, NULL, sizes[k][1]);
		bool aligned = latrec_stats_count(&a) % LATREC_OUTLIER_CHUNK == 0;
		assert_int_equal(latrec_stats_merge(&a, &b), 0);
		assert_same_stats(&a, &c, aligned);
		latrec_stats_free(&a);
		latrec_stats_free(&b);
		latrec_stats_free(&c);
	}
}

/* Outlier chunking in merge when a's count is exactly a multiple of 1000:
 * identical to feeding both, spikes included. */
static void test_merge_outliers_aligned(void **state)
{
	(void)state;
	latrec_stats a, b, c;
	assert_int_equal(latrec_stats_init(&a), 0);
	assert_int_equal(latrec_stats_init(&b), 0);
	assert_int_equal(latrec_stats_init(&c), 0);
	rng_state = 4;
	for (int i = 0; i < 30000; i++) {
		int64_t x = 900 + (int64_t)(rng() % 200);
		if (i % 4999 == 17)
			x = 80000;
		latrec_stats_add(i < 13000 ? &a : &b, x);
		latrec_stats_add(&c, x);
	}
	assert_int_equal(latrec_stats_merge(&a, &b), 0);
	assert_same_stats(&a, &c, true);
	latrec_outlier_count oc;
	assert_true(latrec_stats_outliers(&a, &oc));
	assert_true(oc.fence.enough_data);
	assert_true(oc.exact);
	/* spikes at i = 17 + 4999 k: 17, 5016, 10015, 15014, 20013, 25012 */
	assert_int_equal(oc.count, 6);
	latrec_stats_free(&a);
	latrec_stats_free(&b);
	latrec_stats_free(&c);
}

/* The signed sum of every value, negatives included, is what latrec_sum_add
 * of each gives, read at any point (a block part full or just put in). */
static void test_signed_sum(void **state)
{
	(void)state;
	latrec_sum want = { 0, 0 };
	rng_state = 77;
	const size_t reads[] = { 0, 1, 17, 32, 33, 1005, 4096 };
	size_t fed = 0;
	for (size_t r = 0; r < sizeof(reads) / sizeof(reads[0]); r++) {
		for (; fed < reads[r]; fed++) {
			int64_t x;
			feed_mixed(&S, &x, 1);
			latrec_sum_add(&want, x);
		}
		latrec_sum got;
		latrec_stats_signed_sum(&S, &got);
		assert_true(got.s == want.s);
		assert_int_equal(got.n, want.n);
	}
	assert_true(latrec_stats_negatives(&S) > 0); /* the sums above had some */
	latrec_stats_add(&S, INT64_MAX);
	latrec_stats_add(&S, -INT64_MAX);
	latrec_sum_add(&want, INT64_MAX);
	latrec_sum_add(&want, -INT64_MAX);
	latrec_sum got;
	latrec_stats_signed_sum(&S, &got);
	assert_true(got.s == want.s);
	assert_int_equal(got.n, want.n);
}

/* A block recorded at once is n values recorded one by one: plain blocks,
 * blocks with a negative or an overflow value, across the kept samples'
 * end (2048). */
static void test_loghist_block(void **state)
{
	(void)state;
	latrec_loghist one, blk;
	assert_int_equal(latrec_loghist_init(&one), 0);
	assert_int_equal(latrec_loghist_init(&blk), 0);
	rng_state = 5;
	int64_t v[40];
	for (int round = 0; round < 400; round++) {
		const size_t n = rng() % 41;
		for (size_t i = 0; i < n; i++) {
			v[i] = (int64_t)(rng() >> (30 + rng() % 30));
			if (rng() % 200 == 0)
				v[i] = -(int64_t)(rng() % 100) - 1;
			if (rng() % 300 == 0)
				v[i] = LATREC_LOGHIST_LIMIT + (int64_t)(rng() % 5);
			latrec_loghist_record(&one, v[i]);
		}
		latrec_loghist_record_block(&blk, v, n);
		if (round == 40 || round == 399) { /* kept samples (exact), then buckets */
			assert_int_equal(latrec_loghist_count(&one), latrec_loghist_count(&blk));
			assert_int_equal(latrec_loghist_overflow(&one), latrec_loghist_overflow(&blk));
			assert_int_equal(latrec_loghist_below_zero(&one), latrec_loghist_below_zero(&blk));
			assert_int_equal(latrec_loghist_is_exact(&one), round == 40);
			int64_t a, b;
			assert_true(latrec_loghist_min(&one, &a) && latrec_loghist_min(&blk, &b));
			assert_int_equal(a, b);
			assert_true(latrec_loghist_max(&one, &a) && latrec_loghist_max(&blk, &b));
			assert_int_equal(a, b);
			for (double p = 0; p <= 100; p += 0.5) {
				assert_true(latrec_loghist_value_at_percentile(&one, p, &a));
				assert_true(latrec_loghist_value_at_percentile(&blk, p, &b));
				assert_int_equal(a, b);
			}
			latrec_loghist_iter ia, ib;
			latrec_loghist_bucket ba, bb;
			latrec_loghist_iter_init(&ia, &one);
			latrec_loghist_iter_init(&ib, &blk);
			while (latrec_loghist_iter_next(&ia, &ba)) {
				assert_true(latrec_loghist_iter_next(&ib, &bb));
				assert_int_equal(ba.lower, bb.lower);
				assert_int_equal(ba.count, bb.count);
			}
			assert_false(latrec_loghist_iter_next(&ib, &bb));
		}
	}
	assert_true(latrec_loghist_overflow(&one) > 0 && latrec_loghist_below_zero(&one) > 0);
	latrec_loghist_free(&one);
	latrec_loghist_free(&blk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty_column, setup, teardown),
		cmocka_unit_test_setup_teardown(test_single_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skew_small_by_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exponential_two_pass, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_offset_stable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_equal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_negatives_are_regressions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_calibration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gaps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signed_sum, setup, teardown),
		cmocka_unit_test(test_loghist_block),
		cmocka_unit_test(test_merge_equals_feeding_both),
		cmocka_unit_test(test_strided_equals_one_by_one),
		cmocka_unit_test(test_merge_outliers_aligned),
	};
	return cmocka_run_group_tests_name("stats_accum", tests, NULL, NULL);
}
