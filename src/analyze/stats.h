/* stats: the running accumulator behind every latency column latrec prints.
 *
 * A column is fed hop values in ns (int64_t). What it reports (every figure
 * but the outliers is a function of the samples alone, in any order):
 *   count     non-negative samples (the only figure that is always defined;
 *             0 for an empty column)
 *   min, max  of the non-negative samples, exact
 *   mean      arithmetic mean, ns
 *   stddev    SAMPLE standard deviation, sqrt(M2 / (n - 1)); needs n >= 2
 *   skewness  adjusted Fisher-Pearson standardized moment coefficient
 *             G1 = sqrt(n (n - 1)) / (n - 2) x m3 / m2^1.5, with the
 *             population central moments m2 = M2 / n, m3 = M3 / n (what
 *             Excel's SKEW and pandas' skew() report); needs n >= 3 and
 *             m2 > 0 (all-equal samples have no skewness)
 *   percentiles  from the column's loghist (nearest rank, exact for
 *             n <= 2048, else < 0.0977 % high; see loghist.h)
 *   outliers  Latte-style chunk-maxima IQR fence (see outliers.h): chunks
 *             of each series (process) in the order its values come
 *   negatives hops < 0: clock regressions (stamps from two CPUs' clocks, or
 *             stamp_at values). They are counted, with the most negative
 *             value, and kept out of every other figure: count, min, max,
 *             mean, stddev, skewness, percentiles and outliers describe the
 *             non-negative samples only. Never wrapped to unsigned.
 *
 * Empty state: every accessor except count returns false ("no value": print
 * "-") and leaves its output alone. No figure is ever a sentinel (2^64 - 1,
 * 0, NaN) and nothing divides by zero.
 *
 * Moments: the column keeps the exact integer power sums of its samples,
 * S1 = sum v, S2 = sum v^2, S3 = sum v^3 (128, 192 and 256 bits: no sample
 * and no count can overflow them), so the moments do not depend on the
 * order the samples came in, and columns merge exactly. The accessors take
 * the central moments from exact integer numerators, M2 = (n S2 - S1^2) / n
 * and M3 = (n^2 S3 - 3 n S1 S2 + 2 S1^3) / n^2, rounded once each to long
 * double (no cancellation: a column of equal values has M2 = 0 exactly).
 * Samples wait in blocks of LATREC_STATS_BLOCK (32) with their series: a
 * full block goes into the loghist, the chunk maxima and the sums at once
 * (its sums in 64-bit words below 2^19 ns, 128-bit ones below 2^40 ns), and
 * every accessor first puts in the block still waiting. Adding a value is a
 * store, so the figures cost a tight loop over 32 values in the cache.
 *
 * Not thread-safe: one column per writer; merge per-thread columns.
 */
#ifndef LATREC_ANALYZE_STATS_H
#define LATREC_ANALYZE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/loghist.h"
#include "analyze/outliers.h"

#define LATREC_STATS_BLOCK 32

/* Running moments of n samples: mean (ns), M2 (ns^2), M3 (ns^3). */
typedef struct latrec_moments {
	uint64_t n;
	long double mean;
	long double m2;
	long double m3;
} latrec_moments;

/* Exact power sums of n non-negative samples: little-endian 64-bit limbs. */
typedef struct latrec_power_sums {
	uint64_t n;
	uint64_t s1[2]; /* sum v, ns */
	uint64_t s2[3]; /* sum v^2, ns^2 */
	uint64_t s3[4]; /* sum v^3, ns^3 */
} latrec_power_sums;

/* An exact signed sum of int64 values (ns) and their count: the same in any
 * order (|sum| < 2^127 for any count below 2^64). */
typedef struct latrec_sum {
	__extension__ __int128 s;
	uint64_t n;
} latrec_sum;

static inline void latrec_sum_add(latrec_sum *a, int64_t v)
{
	a->s += v;
	a->n++;
}

/* The mean of a's values, ns (sum / n rounded once to long double while
 * |sum| < 2^63, else to within two roundings). false when a is empty. */
bool latrec_sum_mean(const latrec_sum *a, double *out);

/* One column. Fields are read-only to users; use the functions. */
typedef struct latrec_stats {
	latrec_loghist hist;     /* non-negative samples */
	latrec_outliers outl;    /* chunk maxima of the non-negative samples */
	latrec_power_sums sums;  /* committed blocks */
	int64_t block[LATREC_STATS_BLOCK]; /* pending samples, not yet in hist, outl, sums */
	uint32_t series[LATREC_STATS_BLOCK]; /* their series */
	uint32_t block_n;
	uint64_t negatives;      /* hops < 0 */
	int64_t neg_min;         /* most negative hop (valid if negatives > 0) */
	__extension__ __int128 neg_sum; /* their sum */
} latrec_stats;

/* Make an empty column (allocates the 272 KiB loghist). Returns 0, or -1
 * with errno = ENOMEM (s is then safe to free). */
int latrec_stats_init(latrec_stats *s);

/* Empty the column, keeping its memory. */
void latrec_stats_reset(latrec_stats *s);

/* Release the memory. Safe after a failed init and twice in a row. */
void latrec_stats_free(latrec_stats *s);

/* Internal to add(): put the pending block into the loghist, the chunk
 * maxima and the sums. */
void latrec_stats_flush_block(latrec_stats *s);
/* Internal to add(): count a negative hop. */
void latrec_stats_add_negative(latrec_stats *s, int64_t v);

/* Add one hop value v (ns) of series k (a process index: the outliers'
 * chunks are cut per series, in the order its values come; nothing else
 * depends on the order). v < 0 is a clock regression: counted in negatives
 * only. Cost: two stores; every 32nd call also puts the block in (no
 * division per sample). */
static inline void latrec_stats_add_in(latrec_stats *s, int64_t v, uint32_t k)
{
	if (__builtin_expect(v < 0, 0)) {
		latrec_stats_add_negative(s, v);
		return;
	}
	const uint32_t n = s->block_n;
	s->block[n] = v;
	s->series[n] = k;
	s->block_n = n + 1;
	if (__builtin_expect(n + 1 == LATREC_STATS_BLOCK, 0))
		latrec_stats_flush_block(s);
}

/* Add n values of series k, v[0], v[stride], .. v[(n - 1) stride]: what
 * n calls of latrec_stats_add_in() give, in that order. A whole block of
 * non-negative values (n = LATREC_STATS_BLOCK, none waiting) goes in at
 * once, without a store per value. */
void latrec_stats_add_strided(latrec_stats *s, const int64_t *v, size_t stride, uint32_t n, uint32_t k);

/* Add one hop value of series 0 (one series, in time order). */
static inline void latrec_stats_add(latrec_stats *s, int64_t v)
{
	latrec_stats_add_in(s, v, 0);
}

/* dst += src: every figure becomes what feeding src's samples after dst's
 * would give, exactly (outliers: see latrec_outliers_merge about a series'
 * partial chunk of 1000 in both). dst != src. Returns 0, or -1 with errno = ENOMEM (dst is then
 * unchanged). */
int latrec_stats_merge(latrec_stats *dst, const latrec_stats *src);

/* Non-negative samples added. 0 for an empty column. */
uint64_t latrec_stats_count(const latrec_stats *s);

/* Smallest / largest non-negative sample, ns. false when empty. */
bool latrec_stats_min(const latrec_stats *s, int64_t *out);
bool latrec_stats_max(const latrec_stats *s, int64_t *out);

/* Arithmetic mean, ns. false when empty. */
bool latrec_stats_mean(const latrec_stats *s, double *out);

/* Sample standard deviation sqrt(M2 / (n - 1)), ns. false when n < 2. */
bool latrec_stats_stddev(const latrec_stats *s, double *out);

/* Adjusted Fisher-Pearson skewness G1 (dimensionless). false when n < 3 or
 * all samples are equal (m2 = 0). */
bool latrec_stats_skewness(const latrec_stats *s, double *out);

/* The moments with the pending block folded in (for callers that want
 * other moment figures). n = 0 when empty. */
void latrec_stats_moments(const latrec_stats *s, latrec_moments *out);

/* Percentile p in [0, 100] of the non-negative samples, ns, by the
 * nearest-rank rule of loghist.h; always within [min, max]. false when empty
 * or p is invalid. */
bool latrec_stats_percentile(const latrec_stats *s, double p, int64_t *out);

/* Several percentiles at once; out[i] answers p[i]. false (nothing written)
 * when empty or any p[i] is invalid. */
bool latrec_stats_percentiles(const latrec_stats *s, const double *p, size_t k, int64_t *out);

/* Clock regressions: the number of negative hops. */
uint64_t latrec_stats_negatives(const latrec_stats *s);

/* The most negative hop, ns (< 0). false when there was none. */
bool latrec_stats_negative_min(const latrec_stats *s, int64_t *out);

/* Outliers by the rule of outliers.h, counted one-pass against the column's
 * loghist (out->exact tells whether the count is exact; else it is the
 * bracket [count, count_max]). false when the column is empty, or on
 * ENOMEM (errno set). With 1..3 chunks of 1000: true, count 0,
 * fence.enough_data false.
 * For an exact count or --drop-outliers, take out->fence and make a second
 * pass with latrec_outliers_is_outlier(). */
bool latrec_stats_outliers(latrec_stats *s, latrec_outlier_count *out);

/* The column's histogram of non-negative samples, for bucket output. */
const latrec_loghist *latrec_stats_hist(const latrec_stats *s);

/* The fence of the column's outliers (latrec_outliers_fence() of its
 * chunk maxima): 0, or -1 with errno = ENOMEM. */
int latrec_stats_fence(latrec_stats *s, latrec_outlier_fence *f);

/* The exact signed sum of every value added, negative ones included, and
 * their count: what latrec_sum_add() of each would give. */
void latrec_stats_signed_sum(const latrec_stats *s, latrec_sum *out);

/* Calibration: a hop minus the cost of the clock read between its two
 * stamps, ns: hop_ns - clock_ns_per_call. clock_ns_per_call is the ring
 * header's `clock_ns_per_call` (offset 108, the mean cost of one clock read
 * measured when the ring was opened; 0 = not measured, which subtracts
 * nothing). This is how Latte removes its measured self-offset. The result
 * is exact (saturates at INT64_MIN rather than wrap) and may be negative for
 * a hop shorter than the mean clock cost: judge clock regressions on the raw
 * hop, before calibrating. */
static inline int64_t latrec_calibrate(int64_t hop_ns, uint32_t clock_ns_per_call)
{
	int64_t c = (int64_t)clock_ns_per_call;
	return hop_ns < INT64_MIN + c ? INT64_MIN : hop_ns - c;
}

/* Inter-arrival helper: feed timestamps t_ns (CLOCK_MONOTONIC ns, as in the
 * ring records) in order; from the second one on, each feed adds the gap
 * t - previous t to dst. A timestamp earlier than the previous gives a
 * negative gap (a regression). Gaps beyond the int64 range saturate. Period
 * and jitter are then dst's mean and stddev. */
typedef struct latrec_gaps {
	latrec_stats *dst;  /* not owned */
	uint64_t prev;      /* last timestamp fed */
	bool have_prev;
} latrec_gaps;

/* Start a gap series feeding into dst (an initialised column). */
void latrec_gaps_init(latrec_gaps *g, latrec_stats *dst);

/* Feed the next timestamp, ns. Inline: once per leg instance. */
static inline void latrec_gaps_feed(latrec_gaps *g, uint64_t t_ns)
{
	if (g->have_prev) {
		int64_t gap;
		if (t_ns >= g->prev) {
			uint64_t d = t_ns - g->prev;
			gap = d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
		} else {
			uint64_t d = g->prev - t_ns;
			gap = d > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)d;
		}
		latrec_stats_add(g->dst, gap);
	}
	g->prev = t_ns;
	g->have_prev = true;
}

#endif /* LATREC_ANALYZE_STATS_H */
