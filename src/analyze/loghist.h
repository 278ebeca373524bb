/* loghist: a log-linear latency histogram over int64 nanoseconds (the
 * HdrHistogram idea), exact for small sample sets.
 *
 * Layout (all values in ns, v >= 0):
 *   - unit buckets [v, v+1) for every v < 2048 (LATREC_LOGHIST_UNIT_LIMIT);
 *   - above that, each power-of-two range [2^e, 2^(e+1)), 11 <= e <= 40, is
 *     split into 1024 (2^LATREC_LOGHIST_SUB_BITS) linear sub-buckets of width
 *     2^(e-10). Width / lower edge <= 2^(e-10) / 2^e = 1/1024 (0.0977 %);
 *   - values >= 2^41 ns (LATREC_LOGHIST_LIMIT, about 36.6 minutes) are not
 *     bucketed: they go to an overflow count; their true maximum is still
 *     tracked (latrec_loghist_max).
 *   32768 buckets of uint64_t = 256 KiB of counts, plus 16 KiB of exact
 *   samples (below): 272 KiB per histogram, one calloc at init, nothing
 *   allocated afterwards. Reset, merge, percentiles and the iterator touch
 *   only the index span of [min, max], so untouched pages of a fresh
 *   mmap-backed allocation stay unfaulted (measured: 76 KiB resident for
 *   values 100 ns .. 50 us), but budget for the full 272 KiB.
 *
 * Bucket edges: a bucket holds lower <= v < upper (lower edge inclusive,
 * upper edge exclusive). A value exactly on an edge goes to the bucket that
 * starts there: 4096 is in [4096, 4100), 4095 in [4094, 4096).
 *
 * Exact where cheap: the first LATREC_LOGHIST_EXACT_MAX (2048) samples are
 * also kept verbatim. While count <= 2048, percentiles and threshold counts
 * are computed from the samples themselves (exact); beyond, from the
 * buckets. The histogram buckets are always complete, whatever the count.
 *
 * Percentile convention (both modes): p names the smallest recorded value v
 * such that at least p % of the samples are <= v — nearest rank,
 * rank = ceil(p / 100 x n), at least 1 (p = 0 gives the minimum, p = 100 the
 * maximum). From buckets, the answer is the highest value of the bucket that
 * holds that rank (upper - 1, HdrHistogram's "highest equivalent value"),
 * clamped into [min, max] of the recorded samples. So a histogram percentile
 * r and the exact nearest-rank value x satisfy x <= r <= x * (1 + 1/1024)
 * (r == x below 2048 ns): never under-reported, relative error <= 0.0977 %,
 * and always within [min, max]. A rank that lands in the overflow count
 * (values >= 2^41 ns) reports the maximum; the bound does not hold there.
 *
 * Negative values are never bucketed: latrec_loghist_record counts them in
 * `below_zero` and otherwise ignores them (latrec_stats filters regressions
 * before they get here and reports them itself).
 *
 * Cost: latrec_loghist_record is inline, branch-light, with no division and
 * no log: one clz, two shifts, an increment, min/max and (for the first 2048
 * samples) one store. Measured 2.2-3.7 ns per call on a shared 2-core AMD
 * EPYC VM, RelWithDebInfo (tests/unit/test_stats_bench.c prints the figure).
 *
 * Not thread-safe: one writer per histogram; merge per-thread histograms
 * with latrec_loghist_merge.
 */
#ifndef LATREC_ANALYZE_LOGHIST_H
#define LATREC_ANALYZE_LOGHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LATREC_LOGHIST_SUB_BITS 10
/* Values below this get unit-width buckets. */
#define LATREC_LOGHIST_UNIT_LIMIT (INT64_C(1) << (LATREC_LOGHIST_SUB_BITS + 1))
/* Highest power-of-two range bucketed: [2^40, 2^41). */
#define LATREC_LOGHIST_MAX_EXP 40
/* First value that goes to the overflow count: 2^41 ns. */
#define LATREC_LOGHIST_LIMIT (INT64_C(1) << (LATREC_LOGHIST_MAX_EXP + 1))
/* Number of buckets: 2048 unit buckets + 1024 per range 2^11 .. 2^40, i.e.
 * (MAX_EXP - SUB_BITS + 2) x 2^SUB_BITS = 32 x 1024 = 32768. */
#define LATREC_LOGHIST_BUCKETS \
	((LATREC_LOGHIST_MAX_EXP - LATREC_LOGHIST_SUB_BITS + 2) << LATREC_LOGHIST_SUB_BITS)
/* Sample counts up to this are answered exactly from kept samples. */
#define LATREC_LOGHIST_EXACT_MAX 2048

/* One histogram. Treat the fields as read-only; use the functions. */
typedef struct latrec_loghist {
	uint64_t *counts;   /* LATREC_LOGHIST_BUCKETS counts */
	int64_t *exact;     /* first min(total, EXACT_MAX) samples, record order */
	uint64_t total;     /* samples recorded (>= 0), overflow included */
	uint64_t overflow;  /* samples >= LATREC_LOGHIST_LIMIT */
	uint64_t below_zero; /* negative values refused by record */
	int64_t min;        /* valid when total > 0 (INT64_MAX when empty) */
	int64_t max;        /* valid when total > 0 (INT64_MIN when empty) */
} latrec_loghist;

/* One non-empty bucket, as the iterator reports it. ns. */
typedef struct latrec_loghist_bucket {
	int64_t lower;     /* inclusive */
	int64_t upper;     /* exclusive; INT64_MAX for the overflow bucket */
	uint64_t count;
	bool overflow;     /* the open-ended [LATREC_LOGHIST_LIMIT, ...) bucket;
	                    * its largest value is latrec_loghist_max() */
} latrec_loghist_bucket;

/* Iterator state over non-empty buckets; see latrec_loghist_iter_init. */
typedef struct latrec_loghist_iter {
	const latrec_loghist *h;
	uint32_t idx;      /* next bucket index to look at */
	uint32_t end;      /* one past the last index that can be non-empty */
	bool overflow_done;
} latrec_loghist_iter;

/* Allocate an empty histogram (272 KiB, zeroed). Returns 0, or -1 with
 * errno = ENOMEM (h is then left empty and safe to free). */
int latrec_loghist_init(latrec_loghist *h);

/* Release the memory; h becomes a zeroed struct. Safe on a zeroed or failed
 * histogram and twice in a row. */
void latrec_loghist_free(latrec_loghist *h);

/* Empty h without freeing it. Clears only the bucket span [min, max] that
 * can hold counts, so it does not fault in untouched pages. */
void latrec_loghist_reset(latrec_loghist *h);

/* Bucket index of a value 0 <= v < LATREC_LOGHIST_LIMIT. No division, no
 * log: with e = floor(log2(v | 1024)) and s = e - 10, index = s*1024 + (v>>s).
 * For v < 2048, s = 0 and the index is v itself. */
static inline uint32_t latrec_loghist_index(int64_t v)
{
	uint64_t u = (uint64_t)v;
	/* 63 - clz as 63 ^ clz (clz <= 63): the bit scan's own result */
	unsigned e = 63u ^ (unsigned)__builtin_clzll(u | (UINT64_C(1) << LATREC_LOGHIST_SUB_BITS));
	unsigned s = e - LATREC_LOGHIST_SUB_BITS;
	return (uint32_t)((s << LATREC_LOGHIST_SUB_BITS) + (u >> s));
}

/* Record one value v (ns). v < 0: counted in below_zero, nothing else.
 * v >= LATREC_LOGHIST_LIMIT: counted in overflow (and in min/max/total).
 * h must have been initialised successfully. */
static inline void latrec_loghist_record(latrec_loghist *h, int64_t v)
{
	if (__builtin_expect(v < 0, 0)) {
		h->below_zero++;
		return;
	}
	/* min/max start at INT64_MAX/INT64_MIN, so these are plain cmovs. */
	h->min = v < h->min ? v : h->min;
	h->max = v > h->max ? v : h->max;
	if (__builtin_expect(h->total < LATREC_LOGHIST_EXACT_MAX, 0))
		h->exact[h->total] = v;
	h->total++;
	if (__builtin_expect(v >= LATREC_LOGHIST_LIMIT, 0)) {
		h->overflow++;
		return;
	}
	h->counts[latrec_loghist_index(v)]++;
}

/* Record value v n times (n = 0 is a no-op). Same rules as record. */
void latrec_loghist_record_n(latrec_loghist *h, int64_t v, uint64_t n);

/* Record v[0 .. n) in that order: the same as n calls of record, with the
 * minimum, maximum, total and overflow test done once for all of them. */
void latrec_loghist_record_block(latrec_loghist *h, const int64_t *v, size_t n);

/* The same in two steps, for a caller that loops over the block anyway
 * (latrec_stats): every v[i] in [0, LATREC_LOGHIST_LIMIT), lo and hi their
 * minimum and maximum, n > 0; _begin does all but the bucket counts, then
 * latrec_loghist_bump(h, v[i]) for each. */
void latrec_loghist_begin_block(latrec_loghist *h, const int64_t *v, size_t n, int64_t lo, int64_t hi);
static inline void latrec_loghist_bump(latrec_loghist *h, int64_t v)
{
	h->counts[latrec_loghist_index(v)]++;
}

/* dst += src: bucket counts, overflow, below_zero, total, min/max. Kept
 * samples survive only while the combined count stays <= EXACT_MAX (then
 * dst's samples are followed by src's). Equivalent to having recorded src's
 * values into dst. src is unchanged; dst == src is allowed (doubles it). */
void latrec_loghist_merge(latrec_loghist *dst, const latrec_loghist *src);

/* Samples recorded (non-negative; overflow included). */
static inline uint64_t latrec_loghist_count(const latrec_loghist *h) { return h->total; }
/* Samples >= LATREC_LOGHIST_LIMIT. */
static inline uint64_t latrec_loghist_overflow(const latrec_loghist *h) { return h->overflow; }
/* Negative values refused by record. */
static inline uint64_t latrec_loghist_below_zero(const latrec_loghist *h) { return h->below_zero; }
/* True while percentiles are computed from kept samples (count <= 2048). */
static inline bool latrec_loghist_is_exact(const latrec_loghist *h)
{
	return h->total <= LATREC_LOGHIST_EXACT_MAX;
}

/* Smallest / largest sample recorded, ns (true values, overflow included).
 * Returns false (and leaves *out alone) when the histogram is empty. */
bool latrec_loghist_min(const latrec_loghist *h, int64_t *out);
bool latrec_loghist_max(const latrec_loghist *h, int64_t *out);

/* Percentile p in [0, 100] by the nearest-rank rule in the header comment.
 * rank = ceil(p/100 x n) is computed in double; a product that exceeds an
 * integer k by at most 1e-12 x k (rounding of p's binary form) is rank k, so
 * p = 99.9 of n = 1000 is rank 999 (not 1000 by a rounding crumb).
 * Returns false when the histogram is empty or p is NaN / outside [0, 100]. */
bool latrec_loghist_value_at_percentile(const latrec_loghist *h, double p, int64_t *out);

/* Several percentiles at once (sorts the kept samples once in exact mode).
 * out[i] answers p[i]. Returns false, writing nothing, if the histogram is
 * empty or any p[i] is invalid. */
bool latrec_loghist_percentiles(const latrec_loghist *h, const double *p, size_t k, int64_t *out);

/* The nearest rank (1..n) that percentile p names for n samples; 0 when
 * n = 0 or p is invalid. Exposed so printers and tests share the rule. */
uint64_t latrec_loghist_rank(double p, uint64_t n);

/* Samples strictly greater than t (ns). *lo is the number known to be > t;
 * *hi = *lo + the count of t's own bucket when that bucket may hold values on
 * both sides of t. Exact (returns true, *lo == *hi) in exact mode, when t is
 * below 2048 ns (unit buckets), when t + 1 is a bucket's lower edge or when
 * t's bucket is empty; otherwise returns false with the bounds. Empty
 * histogram: 0, 0, true. */
bool latrec_loghist_count_above(const latrec_loghist *h, int64_t t, uint64_t *lo, uint64_t *hi);

/* Edges of the bucket value v falls in: *lower <= v < *upper. For
 * v >= LATREC_LOGHIST_LIMIT: the overflow bucket [LIMIT, INT64_MAX). Returns
 * false for v < 0. */
bool latrec_loghist_bucket_of(int64_t v, int64_t *lower, int64_t *upper);

/* A histogram's figures without its 272 KiB: the buckets in use, in index
 * order, and the kept samples while there are at most EXACT_MAX of them.
 * What fills a few buckets (an interval of a time series) costs a few KiB
 * to keep. Start zeroed. */
typedef struct latrec_loghist_sparse {
	uint64_t total, overflow, below_zero;
	int64_t min, max;   /* valid when total > 0 */
	uint32_t *idx;      /* non-empty buckets, ascending */
	uint64_t *count;    /* their counts */
	uint32_t n;
	int64_t *exact;     /* the total samples while total <= EXACT_MAX, else NULL */
} latrec_loghist_sparse;

/* dst += src's samples (src unchanged): what latrec_loghist_merge gives a
 * histogram. 0, or -1 with errno = ENOMEM (dst is then unchanged). */
int latrec_loghist_sparse_add(latrec_loghist_sparse *dst, const latrec_loghist *src);
/* dst += src: 0, or -1 with errno = ENOMEM (dst is then unchanged). */
int latrec_loghist_sparse_merge(latrec_loghist_sparse *dst, const latrec_loghist_sparse *src);
/* h += s, as latrec_loghist_merge of the histogram s holds: h then
 * answers every query as if it had recorded s's samples. */
void latrec_loghist_add_sparse(latrec_loghist *h, const latrec_loghist_sparse *s);
/* Release s's memory; s becomes empty. */
void latrec_loghist_sparse_free(latrec_loghist_sparse *s);

/* Iterate non-empty buckets in ascending order, the overflow bucket last:
 *   latrec_loghist_iter it; latrec_loghist_bucket b;
 *   latrec_loghist_iter_init(&it, h);
 *   while (latrec_loghist_iter_next(&it, &b)) ...
 * h must not change during the iteration. */
void latrec_loghist_iter_init(latrec_loghist_iter *it, const latrec_loghist *h);
bool latrec_loghist_iter_next(latrec_loghist_iter *it, latrec_loghist_bucket *out);

#endif /* LATREC_ANALYZE_LOGHIST_H */
