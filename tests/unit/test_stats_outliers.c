/* outliers: the chunk-maxima IQR rule against a reference computed here
 * (direct chunk loop, sort, numpy-linear quartiles), planted spikes, the
 * not-enough-data flag, one-pass vs two-pass counts, merge, chunks per
 * series whatever their interleaving. */
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

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Reference: numpy.percentile(maxima, [25, 75]) (method "linear"). */
struct ref { size_t chunks; double q1, q3, limit; };
static double np_linear(const int64_t *sorted, size_t m, double q)
{
	double h = (double)(m - 1) * q;
	size_t j = (size_t)floor(h);
	if (j + 1 >= m)
		return (double)sorted[m - 1];
	return (double)sorted[j] + (h - (double)j) * (double)(sorted[j + 1] - sorted[j]);
}
static struct ref reference(const int64_t *v, size_t n)
{
	struct ref r = {0, 0, 0, 0};
	size_t m = (n + 999) / 1000;
	int64_t *mx = malloc((m ? m : 1) * sizeof(*mx));
	assert_non_null(mx);
	for (size_t c = 0; c < m; c++) {
		int64_t best = v[c * 1000];
		for (size_t i = c * 1000; i < n && i < (c + 1) * 1000; i++)
			if (v[i] > best)
				best = v[i];
		mx[c] = best;
	}
	qsort(mx, m, sizeof(*mx), cmp_i64);
	r.chunks = m;
	if (m >= 4) {
		r.q1 = np_linear(mx, m, 0.25);
		r.q3 = np_linear(mx, m, 0.75);
		r.limit = r.q3 + 1.5 * (r.q3 - r.q1);
	}
	free(mx);
	return r;
}

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

/* ~1000 +- 50 ns (uniform integers 950..1050), spikes of 50,000 ns planted
 * at one random position in each of `spikes` distinct random chunks. */
static void make_spiky(int64_t *v, size_t n, size_t spikes, bool *planted, uint64_t seed)
{
	rng_state = seed;
	size_t chunks = n / 1000;
	memset(planted, 0, n * sizeof(bool));
	for (size_t i = 0; i < n; i++)
		v[i] = 950 + (int64_t)(rng() % 101);
	bool used[1000] = {false};
	for (size_t s = 0; s < spikes; s++) {
		size_t c;
		do
			c = (size_t)(rng() % chunks);
		while (used[c]);
		used[c] = true;
		size_t i = c * 1000 + (size_t)(rng() % 1000);
		v[i] = 50000;
		planted[i] = true;
	}
}

/* 7 spikes in 7 different chunks of 40,000 samples (40 chunks): flagged
 * exactly, by the two-pass test and by the one-pass count. */
static void test_seven_planted_spikes(void **state)
{
	(void)state;
	enum { N = 40000 };
	static int64_t v[N];
	static bool planted[N];
	make_spiky(v, N, 7, planted, 7);
	for (size_t i = 0; i < N; i++)
		latrec_stats_add(&S, v[i]);

	struct ref r = reference(v, N);
	latrec_outlier_count oc;
	assert_true(latrec_stats_outliers(&S, &oc));
	assert_true(oc.fence.enough_data);
	assert_int_equal(oc.fence.chunks, 40);
	assert_true(oc.fence.q1 == r.q1);
	assert_true(oc.fence.q3 == r.q3);
	assert_true(oc.fence.limit == r.limit);
	assert_int_equal(oc.fence.threshold, (int64_t)floor(r.limit));
	assert_true(oc.fence.threshold < 50000);

	/* pass 2: exactly the planted ones */
	size_t flagged = 0;
	for (size_t i = 0; i < N; i++) {
		bool o = latrec_outliers_is_outlier(&oc.fence, v[i]);
		assert_int_equal(o, planted[i]);
		assert_int_equal(o, (double)v[i] > r.limit);
		flagged += o;
	}
	assert_int_equal(flagged, 7);
	/* one pass (histogram) agrees, exactly */
	assert_true(oc.exact);
	assert_int_equal(oc.count, 7);
	assert_int_equal(oc.count_max, 7);
}

/* The rule's breakdown point, documented in outliers.h: 7 spiking chunks of
 * 20 put a spike at Q3 (position 0.75 x 19 = 14.25 of 20 sorted maxima), so
 * limit >= 50,000 and nothing is flagged. 4 of 20 are still found. */
static void test_breakdown_with_20_chunks(void **state)
{
	(void)state;
	enum { N = 20000 };
	static int64_t v[N];
	static bool planted[N];
	latrec_outlier_count oc;

	make_spiky(v, N, 7, planted, 8);
	for (size_t i = 0; i < N; i++)
		latrec_stats_add(&S, v[i]);
	assert_true(latrec_stats_outliers(&S, &oc));
	assert_true(oc.fence.q3 == 50000.0);
	assert_int_equal(oc.count, 0);
	assert_true(oc.exact);

	latrec_stats_reset(&S);
	make_spiky(v, N, 4, planted, 9);
	for (size_t i = 0; i < N; i++)
		latrec_stats_add(&S, v[i]);
	assert_true(latrec_stats_outliers(&S, &oc));
	assert_int_equal(oc.count, 4);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(latrec_outliers_is_outlier(&oc.fence, v[i]), planted[i]);
}

/* Quartiles by hand (numpy.percentile agrees):
 *   maxima {10,20,30,40,1000}: Q1 = 20, Q3 = 40, limit = 70;
 *   maxima {1,2,3,4,5,6}: h = 1.25 / 3.75 -> Q1 = 2.25, Q3 = 4.75,
 *   IQR = 2.5, limit = 8.5, threshold 8. */
static void feed_chunks(latrec_outliers *o, const int64_t *maxima, size_t m)
{
	for (size_t c = 0; c < m; c++)
		for (unsigned i = 0; i < LATREC_OUTLIER_CHUNK; i++)
			latrec_outliers_feed(o, i == 500 ? maxima[c] : 0);
}

static void test_quartiles_by_hand(void **state)
{
	(void)state;
	latrec_outliers o;
	latrec_outlier_fence f;
	latrec_outliers_init(&o);
	const int64_t a[] = {30, 1000, 10, 40, 20};
	feed_chunks(&o, a, 5);
	assert_int_equal(latrec_outliers_fence(&o, &f), 0);
	assert_true(f.enough_data);
	assert_int_equal(f.chunks, 5);
	assert_true(f.q1 == 20.0);
	assert_true(f.q3 == 40.0);
	assert_true(f.iqr == 20.0);
	assert_true(f.limit == 70.0);
	assert_int_equal(f.threshold, 70);
	assert_false(latrec_outliers_is_outlier(&f, 70)); /* strictly above */
	assert_true(latrec_outliers_is_outlier(&f, 71));

	latrec_outliers_reset(&o);
	const int64_t b[] = {6, 5, 4, 3, 2, 1};
	feed_chunks(&o, b, 6);
	assert_int_equal(latrec_outliers_fence(&o, &f), 0);
	assert_true(f.q1 == 2.25);
	assert_true(f.q3 == 4.75);
	assert_true(f.limit == 8.5);
	assert_int_equal(f.threshold, 8);
	assert_false(latrec_outliers_is_outlier(&f, 8));
	assert_true(latrec_outliers_is_outlier(&f, 9));
	latrec_outliers_free(&o);
}

/* A last partial chunk counts: 3000 samples are 3 chunks (not enough data,
 * reported 0 with the flag); one more sample makes 4. */
static void test_partial_chunk_and_not_enough(void **state)
{
	(void)state;
	latrec_outlier_count oc;
	for (int i = 0; i < 3000; i++)
		latrec_stats_add(&S, i == 10 ? 1000000 : 100);
	assert_true(latrec_stats_outliers(&S, &oc));
	assert_false(oc.fence.enough_data);
	assert_int_equal(oc.fence.chunks, 3);
	assert_int_equal(oc.count, 0);
	assert_true(oc.exact);
	assert_false(latrec_outliers_is_outlier(&oc.fence, INT64_MAX));

	latrec_stats_add(&S, 100); /* chunk 4 has one sample */
	assert_true(latrec_stats_outliers(&S, &oc));
	assert_true(oc.fence.enough_data);
	assert_int_equal(oc.fence.chunks, 4);
	/* sorted maxima {100, 100, 100, 1000000}: Q1 (h = 0.75) = 100,
	 * Q3 (h = 2.25) = 100 + 0.25 x 999900 = 250075, IQR = 249975,
	 * limit = 250075 + 374962.5 = 625037.5 */
	assert_true(oc.fence.q3 == 250075.0);
	assert_true(oc.fence.limit == 625037.5);
	assert_int_equal(oc.fence.threshold, 625037);
	assert_int_equal(oc.count, 1);
	assert_true(latrec_outliers_is_outlier(&oc.fence, 1000000));

	/* the partial chunk's maximum takes part in the quartiles */
	latrec_outliers o;
	latrec_outlier_fence f;
	latrec_outliers_init(&o);
	const int64_t m[] = {10, 20, 30};
	feed_chunks(&o, m, 3);
	for (int i = 0; i < 7; i++)
		latrec_outliers_feed(&o, i == 3 ? 1000 : 1);
	assert_int_equal(latrec_outliers_fence(&o, &f), 0);
	assert_int_equal(f.chunks, 4);
	/* {10,20,30,1000}: Q1 at 0.75 -> 17.5, Q3 at 2.25 -> 272.5 */
	assert_true(f.q1 == 17.5);
	assert_true(f.q3 == 272.5);
	/* feeding goes on after a fence */
	for (int i = 0; i < 993; i++)
		latrec_outliers_feed(&o, 5);
	assert_int_equal(latrec_outliers_chunks(&o), 4);
	latrec_outliers_feed(&o, 5);
	assert_int_equal(latrec_outliers_chunks(&o), 5);
	latrec_outliers_free(&o);
}

/* Random sets in the microsecond range, thresholds above 2048 ns: the
 * one-pass count brackets the two-pass truth; the reference threshold
 * matches; exact cases are exact. */
static void test_one_pass_brackets_truth(void **state)
{
	(void)state;
	enum { N = 25000 };
	static int64_t v[N];
	for (int iter = 0; iter < 40; iter++) {
		latrec_stats_reset(&S);
		rng_state = 300 + (uint64_t)iter;
		size_t n = 4000 + (size_t)(rng() % (N - 4000));
		for (size_t i = 0; i < n; i++) {
			v[i] = 20000 + (int64_t)(rng() % 30000);
			if (rng() % 2000 == 0)
				v[i] += (int64_t)(rng() % 200000);
			latrec_stats_add(&S, v[i]);
		}
		struct ref r = reference(v, n);
		latrec_outlier_count oc;
		assert_true(latrec_stats_outliers(&S, &oc));
		assert_int_equal(oc.fence.chunks, r.chunks);
		assert_true(oc.fence.limit == r.limit);
		uint64_t truth = 0;
		for (size_t i = 0; i < n; i++)
			truth += latrec_outliers_is_outlier(&oc.fence, v[i]);
		uint64_t ref_truth = 0;
		for (size_t i = 0; i < n; i++)
			ref_truth += (double)v[i] > r.limit;
		assert_int_equal(truth, ref_truth);
		assert_true(oc.count <= truth && truth <= oc.count_max);
		if (oc.exact)
			assert_int_equal(oc.count, truth);
	}
}

static void test_merge_trackers(void **state)
{
	(void)state;
	latrec_outliers a, b, c;
	latrec_outliers_init(&a);
	latrec_outliers_init(&b);
	latrec_outliers_init(&c);
	rng_state = 12;
	for (int i = 0; i < 9500; i++) {
		int64_t x = (int64_t)(rng() % 5000);
		latrec_outliers_feed(i < 4000 ? &a : &b, x);
		latrec_outliers_feed(&c, x);
	}
	assert_int_equal(latrec_outliers_merge(&a, &b), 0);
	assert_int_equal(latrec_outliers_chunks(&a), latrec_outliers_chunks(&c));
	latrec_outlier_fence fa, fc;
	assert_int_equal(latrec_outliers_fence(&a, &fa), 0);
	assert_int_equal(latrec_outliers_fence(&c, &fc), 0);
	assert_true(fa.q1 == fc.q1 && fa.q3 == fc.q3 && fa.threshold == fc.threshold);
	/* b's partial chunk continues in a */
	latrec_outliers_feed(&a, 1);
	latrec_outliers_feed(&c, 1);
	assert_int_equal(a.cur[0].n, c.cur[0].n);

	/* unaligned: a's partial chunk is closed on its own */
	latrec_outliers_reset(&a);
	latrec_outliers_reset(&b);
	for (int i = 0; i < 1500; i++)
		latrec_outliers_feed(&a, 1);
	for (int i = 0; i < 1500; i++)
		latrec_outliers_feed(&b, 1);
	assert_int_equal(latrec_outliers_merge(&a, &b), 0);
	assert_int_equal(latrec_outliers_chunks(&a), 4);
	latrec_outliers_free(&a);
	latrec_outliers_free(&b);
	latrec_outliers_free(&c);

	/* empty tracker */
	latrec_outliers e;
	latrec_outlier_fence f;
	latrec_outliers_init(&e);
	assert_int_equal(latrec_outliers_fence(&e, &f), 0);
	assert_int_equal(f.chunks, 0);
	assert_false(f.enough_data);
	assert_false(latrec_outliers_is_outlier(&f, 5));
	latrec_outliers_free(&e);
}

/* Three series (processes) of 2500, 4100 and 999 samples with spikes:
 * the fence is that of the chunk maxima of each series on its own (their
 * partial chunks counting: 3 + 5 + 1 chunks), computed here directly, and
 * the same for any interleaving of the series and for a merge of trackers
 * that hold different series. */
static void test_series_interleaving_free(void **state)
{
	(void)state;
	enum { A = 2500, B = 4100, C = 999, N = A + B + C };
	static int64_t v[N];
	static uint32_t k[N];
	const size_t len[3] = { A, B, C };
	rng_state = 77;
	size_t at = 0;
	for (uint32_t q = 0; q < 3; q++)
		for (size_t i = 0; i < len[q]; i++, at++) {
			v[at] = 900 + (int64_t)(rng() % 200) + (rng() % 400 == 0 ? 30000 : 0);
			k[at] = q;
		}
	/* reference: each series' chunk maxima, then numpy "linear" quartiles */
	int64_t mx[16];
	size_t m = 0, from = 0;
	for (uint32_t q = 0; q < 3; q++) {
		for (size_t c = 0; c * 1000 < len[q]; c++) {
			int64_t best = v[from + c * 1000];
			for (size_t i = c * 1000; i < len[q] && i < (c + 1) * 1000; i++)
				best = v[from + i] > best ? v[from + i] : best;
			mx[m++] = best;
		}
		from += len[q];
	}
	assert_int_equal(m, 9);
	qsort(mx, m, sizeof(*mx), cmp_i64);
	const double q1 = np_linear(mx, m, 0.25), q3 = np_linear(mx, m, 0.75);
	latrec_outlier_fence want = { 0 };
	for (int round = 0; round < 3; round++) {
		/* feed the series interleaved at random, each in its own order */
		latrec_outliers o;
		latrec_outliers_init(&o);
		size_t next[3] = { 0, A, A + B }, end[3] = { A, A + B, N };
		for (size_t left = N; left > 0; left--) {
			uint32_t q;
			do
				q = (uint32_t)(rng() % 3);
			while (next[q] == end[q]);
			latrec_outliers_feed_in(&o, v[next[q]], k[next[q]]);
			next[q]++;
		}
		latrec_outlier_fence f;
		assert_int_equal(latrec_outliers_fence(&o, &f), 0);
		assert_int_equal(f.chunks, 9);
		assert_true(f.enough_data);
		assert_true(f.q1 == q1 && f.q3 == q3);
		if (round == 0)
			want = f;
		assert_true(f.threshold == want.threshold);
		latrec_outliers_free(&o);
	}
	/* series 0 and 2 in one tracker, series 1 in another, merged */
	latrec_outliers a, b;
	latrec_outliers_init(&a);
	latrec_outliers_init(&b);
	for (size_t i = 0; i < N; i++)
		latrec_outliers_feed_in(k[i] == 1 ? &b : &a, v[i], k[i]);
	assert_int_equal(latrec_outliers_merge(&a, &b), 0);
	latrec_outlier_fence f;
	assert_int_equal(latrec_outliers_fence(&a, &f), 0);
	assert_int_equal(f.chunks, 9);
	assert_true(f.q1 == q1 && f.q3 == q3 && f.threshold == want.threshold);
	latrec_outliers_free(&a);
	latrec_outliers_free(&b);
}

/* A run of one series fed at once (latrec_outliers_feed_run, what a
 * column's block of one series takes) leaves the tracker as feeding its
 * samples one by one does: the same stored maxima in the same order and
 * the same unfinished chunks, for runs of 1..70 that end before, at and
 * across a chunk's end (1000 is no multiple of them), spikes on the
 * chunks' edges, and series that appear late. Then a column fed runs of
 * four series through latrec_stats_add_in (blocks of one series and mixed
 * ones) has the fence of each series' chunk maxima computed here. */
static void test_runs_of_one_series(void **state)
{
	(void)state;
	enum { N = 23000 };
	static int64_t v[N];
	static uint32_t k[N];
	rng_state = 5;
	size_t at = 0, per[4] = { 0, 0, 0, 0 };
	while (at < N) {
		const uint32_t q = at < 3000 ? 0 : (uint32_t)(rng() % 4); /* series 1..3 start later */
		size_t len = 1 + (size_t)(rng() % 70);
		for (; len && at < N; len--, at++) {
			const size_t i = per[q]++;
			const int edge = i % 1000 == 999 || i % 1000 == 0;
			v[at] = 500 + (int64_t)(rng() % 300) + (edge && rng() % 3 == 0 ? 20000 + (int64_t)(i % 7) : 0);
			k[at] = q;
		}
	}
	latrec_outliers a, b;
	latrec_outliers_init(&a);
	latrec_outliers_init(&b);
	for (size_t i = 0; i < N; i++)
		latrec_outliers_feed_in(&a, v[i], k[i]);
	for (size_t i = 0; i < N;) {
		size_t j = i;
		int64_t hi = v[i];
		while (j < N && k[j] == k[i]) {
			hi = v[j] > hi ? v[j] : hi;
			j++;
		}
		latrec_outliers_feed_run(&b, v + i, 1, j - i, k[i], hi);
		i = j;
	}
	assert_int_equal(a.n_maxima, b.n_maxima);
	assert_true(a.n_maxima >= 20);
	assert_memory_equal(a.maxima, b.maxima, a.n_maxima * sizeof(*a.maxima));
	assert_int_equal(a.n_cur, b.n_cur);
	for (uint32_t q = 0; q < a.n_cur; q++) {
		assert_int_equal(a.cur[q].n, b.cur[q].n);
		if (a.cur[q].n)
			assert_int_equal(a.cur[q].max, b.cur[q].max);
	}
	latrec_outliers_free(&a);
	latrec_outliers_free(&b);

	/* reference: each series' chunk maxima in its own order */
	static int64_t mx[N / 1000 + 8];
	size_t m = 0;
	for (uint32_t q = 0; q < 4; q++) {
		size_t seen = 0;
		for (size_t i = 0; i < N; i++) {
			if (k[i] != q)
				continue;
			if (seen % 1000 == 0)
				mx[m++] = v[i];
			else if (v[i] > mx[m - 1])
				mx[m - 1] = v[i];
			seen++;
		}
	}
	qsort(mx, m, sizeof(*mx), cmp_i64);
	const double q1 = np_linear(mx, m, 0.25), q3 = np_linear(mx, m, 0.75);
	latrec_stats col;
	assert_int_equal(latrec_stats_init(&col), 0);
	for (size_t i = 0; i < N; i++)
		latrec_stats_add_in(&col, v[i], k[i]);
	latrec_outlier_fence f;
	assert_int_equal(latrec_stats_fence(&col, &f), 0);
	assert_int_equal(f.chunks, m);
	assert_true(f.enough_data);
	assert_true(f.q1 == q1 && f.q3 == q3);
	assert_int_equal(f.threshold, (int64_t)floor(q3 + 1.5 * (q3 - q1)));
	latrec_stats_free(&col);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_seven_planted_spikes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_breakdown_with_20_chunks, setup, teardown),
		cmocka_unit_test(test_quartiles_by_hand),
		cmocka_unit_test_setup_teardown(test_partial_chunk_and_not_enough, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_pass_brackets_truth, setup, teardown),
		cmocka_unit_test(test_merge_trackers),
		cmocka_unit_test(test_series_interleaving_free),
		cmocka_unit_test(test_runs_of_one_series),
	};
	return cmocka_run_group_tests_name("stats_outliers", tests, NULL, NULL);
}
