/* outliers: Latte-style outlier counting over a column of hop values (ns).
 *
 * The rule (as the brief states Latte's, see "Differences from Latte" below):
 *   1. split the samples of each process (latrec_outliers_feed_in: any
 *      series of its own), in the order they come, into consecutive chunks
 *      of LATREC_OUTLIER_CHUNK (1000); each series' last partial chunk
 *      (1..999 samples) counts as a chunk. With one series this is Latte's
 *      chunking of the samples in time order; with several, the chunks do
 *      not depend on how the series interleave;
 *   2. take each chunk's maximum;
 *   3. Q1, Q3 = the 25th / 75th percentiles of those maxima by linear
 *      interpolation between closest ranks (numpy's default "linear", Hyndman
 *      & Fan type 7): sort the m maxima x[0..m-1], h = (m - 1) q,
 *      Q = x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]);
 *   4. limit = Q3 + 1.5 IQR, IQR = Q3 - Q1; a sample v is an outlier iff
 *      v > limit, i.e. v > threshold = floor(limit) (v is an integer);
 *   5. fewer than LATREC_OUTLIER_MIN_CHUNKS (4) maxima: not enough data, no
 *      sample is an outlier, the count is 0 and enough_data says so.
 * Quartiles and limit are computed in long double: exact while the maxima
 * are below 2^60 ns (36 years).
 *
 * Streaming, memory O(n / 1000): the tracker keeps one int64 per finished
 * chunk and the running maximum of each series' current one; feeding is a
 * compare, an increment and, every 1000 samples, an append.
 *
 * Counting the samples above the threshold needs them again. Two ways:
 *   - one pass: latrec_outliers_count() asks the column's loghist (fed with
 *     the same samples): every bucket strictly above the threshold's bucket
 *     counts whole. The result is exact when the loghist still holds the
 *     samples verbatim (n <= 2048), when the threshold is below 2048 ns (unit
 *     buckets) or when its bucket is empty or ends right at it; otherwise it
 *     is a [count, count_max] bracket (exact == false) whose width is the
 *     population of the one bucket (width <= threshold / 1024) that holds the
 *     threshold.
 *   - two passes (exact always, and what --drop-outliers needs): pass 1 feeds
 *     every sample; latrec_outliers_fence() fixes the threshold; pass 2
 *     re-reads the samples and asks latrec_outliers_is_outlier() per sample,
 *     counting or excluding them.
 *
 * Differences from Latte: Latte's CleanData (Latte.hpp) uses cutoff =
 * Q3 + 3 IQR with Q1 = x[m/4], Q3 = x[3m/4] (no interpolation), falls back to
 * 1.5 Q3 when IQR = 0, and skips a trailing chunk of fewer than 500 samples.
 * latrec follows the rule above (1.5 IQR, interpolated quartiles, every
 * partial chunk counts).
 *
 * Breakdown: the fence is built from chunk maxima, so once more than about a
 * quarter of the chunks contain a spike, Q3 is a spike and no spike is an
 * outlier (e.g. 7 spiking chunks out of 20 report 0). The rule finds rare
 * spikes, not a bimodal distribution.
 */
#ifndef LATREC_ANALYZE_OUTLIERS_H
#define LATREC_ANALYZE_OUTLIERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/loghist.h"

#define LATREC_OUTLIER_CHUNK 1000u   /* samples per chunk */
#define LATREC_OUTLIER_MIN_CHUNKS 4u /* fewer maxima: not enough data */
#define LATREC_OUTLIER_IQR_K 1.5L    /* limit = Q3 + K x IQR */

/* A series' unfinished chunk. */
typedef struct latrec_outlier_chunk {
	int64_t max;       /* its maximum (valid if n > 0) */
	uint32_t n;        /* its samples, 0..999 */
} latrec_outlier_chunk;

/* The streaming tracker: per-chunk maxima. Fields are read-only to users. */
typedef struct latrec_outliers {
	int64_t *maxima;   /* finished chunks' maxima (any order) */
	size_t n_maxima;
	size_t cap;
	latrec_outlier_chunk *cur; /* per series: its current, unfinished chunk */
	uint32_t n_cur;    /* series seen (cur's length) */
	bool oom;          /* a chunk maximum could not be stored */
} latrec_outliers;

/* The fixed threshold, from latrec_outliers_fence(). ns. */
typedef struct latrec_outlier_fence {
	bool enough_data;  /* chunks >= 4; else nothing is an outlier */
	uint64_t chunks;   /* chunk maxima used, the partial chunk included */
	double q1, q3;     /* quartiles of the chunk maxima (valid if enough_data) */
	double iqr;        /* q3 - q1 */
	double limit;      /* q3 + 1.5 iqr */
	int64_t threshold; /* floor(limit): v is an outlier iff v > threshold */
} latrec_outlier_fence;

/* The one-pass count (latrec_outliers_count). */
typedef struct latrec_outlier_count {
	latrec_outlier_fence fence;
	uint64_t count;     /* samples known to be > threshold (0 if !enough_data) */
	uint64_t count_max; /* upper bound; == count when exact */
	bool exact;         /* count is the true number of samples > threshold */
} latrec_outlier_count;

/* Start empty. Allocates nothing until the first chunk completes. */
void latrec_outliers_init(latrec_outliers *o);

/* Forget every sample; keeps the allocation. */
void latrec_outliers_reset(latrec_outliers *o);

/* Release memory; o becomes empty (usable again after init). */
void latrec_outliers_free(latrec_outliers *o);

/* Store series k's finished chunk's maximum (called by feed every 1000
 * samples). On allocation failure sets o->oom; fence then fails with ENOMEM. */
void latrec_outliers_close_chunk(latrec_outliers *o, uint32_t k);

/* Make room for series k (called by feed); sets o->oom on failure. */
void latrec_outliers_grow(latrec_outliers *o, uint32_t k);

/* Feed one sample v (ns, >= 0) of series k (a process index, from 0), in
 * the order the series' samples come. Negative hops are clock regressions
 * and should not be fed (latrec_stats filters them). */
static inline void latrec_outliers_feed_in(latrec_outliers *o, int64_t v, uint32_t k)
{
	if (__builtin_expect(k >= o->n_cur, 0)) {
		latrec_outliers_grow(o, k);
		if (k >= o->n_cur)
			return;
	}
	latrec_outlier_chunk *c = &o->cur[k];
	c->max = (c->n == 0 || v > c->max) ? v : c->max;
	if (__builtin_expect(++c->n == LATREC_OUTLIER_CHUNK, 0))
		latrec_outliers_close_chunk(o, k);
}

/* latrec_outliers_feed_in() of v[i], k[i] for i in [0, n), in that order. */
void latrec_outliers_feed_block(latrec_outliers *o, const int64_t *v, const uint32_t *k, size_t n);

/* The same for n values of series k, v[0], v[stride], .. v[(n - 1)
 * stride], hi their maximum, n > 0: one step while they do not finish k's
 * chunk. */
void latrec_outliers_feed_run(latrec_outliers *o, const int64_t *v, size_t stride, size_t n, uint32_t k, int64_t hi);

/* Feed one sample of series 0: one series in time order. */
static inline void latrec_outliers_feed(latrec_outliers *o, int64_t v)
{
	latrec_outliers_feed_in(o, v, 0);
}

/* Samples fed so far, as chunk count: finished chunks + the series with a
 * partial one. */
uint64_t latrec_outliers_chunks(const latrec_outliers *o);

/* dst then src, as if src's samples had been fed after dst's, except that
 * where both have a partial chunk of a series, dst's is closed as a chunk
 * of its own (identical to feeding both when the series of src are not in
 * dst, or dst's sample count of each is a multiple of 1000). src's partial
 * chunks become dst's current ones. dst != src. Returns 0, or -1 with
 * errno = ENOMEM (dst unchanged). */
int latrec_outliers_merge(latrec_outliers *dst, const latrec_outliers *src);

/* Compute Q1, Q3 and the threshold from the maxima seen so far (partial
 * chunks included); feeding may continue afterwards. Returns 0, or -1 with
 * errno = ENOMEM if a chunk maximum was lost to an allocation failure. With
 * no sample at all: 0, chunks = 0, enough_data = false. */
int latrec_outliers_fence(latrec_outliers *o, latrec_outlier_fence *f);

/* Pass 2 / --drop-outliers: true iff v (ns) is an outlier under fence f
 * (enough_data and v > threshold). */
static inline bool latrec_outliers_is_outlier(const latrec_outlier_fence *f, int64_t v)
{
	return f->enough_data && v > f->threshold;
}

/* One-pass count: fence the tracker, then count the samples of h (the same
 * samples' histogram) above the threshold; see the header comment for when
 * it is exact. Returns 0, or -1 with errno = ENOMEM as fence does. */
int latrec_outliers_count(latrec_outliers *o, const latrec_loghist *h, latrec_outlier_count *out);

#endif /* LATREC_ANALYZE_OUTLIERS_H */
