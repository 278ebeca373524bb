/* loghist: log-linear histogram over int64 ns. See loghist.h for the layout,
 * the percentile rule and the error bound. */
#include "analyze/loghist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The highest index latrec_loghist_index can return, for LIMIT - 1, is
 * ((MAX_EXP - SUB_BITS) << SUB_BITS) + 2^(SUB_BITS+1) - 1: the last bucket. */
_Static_assert(((LATREC_LOGHIST_MAX_EXP - LATREC_LOGHIST_SUB_BITS) << LATREC_LOGHIST_SUB_BITS)
	       + (2 << LATREC_LOGHIST_SUB_BITS) == LATREC_LOGHIST_BUCKETS,
	       "bucket count must cover latrec_loghist_index(LIMIT - 1)");

/* Relative slack for p/100 x n landing a rounding crumb above an integer. */
#define RANK_TOLERANCE 1e-12

static void set_empty(latrec_loghist *h)
{
	h->total = 0;
	h->overflow = 0;
	h->below_zero = 0;
	h->min = INT64_MAX;
	h->max = INT64_MIN;
}

int latrec_loghist_init(latrec_loghist *h)
{
	memset(h, 0, sizeof(*h));
	set_empty(h);
	/* One block: counts, then the kept samples. */
	size_t bytes = (size_t)LATREC_LOGHIST_BUCKETS * sizeof(uint64_t)
		+ (size_t)LATREC_LOGHIST_EXACT_MAX * sizeof(int64_t);
	void *mem = calloc(1, bytes);
	if (!mem) {
		errno = ENOMEM;
		return -1;
	}
	h->counts = mem;
	h->exact = (int64_t *)(h->counts + LATREC_LOGHIST_BUCKETS);
	return 0;
}

void latrec_loghist_free(latrec_loghist *h)
{
	free(h->counts);
	memset(h, 0, sizeof(*h));
	set_empty(h);
}

/* Index span [*first, *end) that can hold non-zero bucket counts. */
static void bucket_span(const latrec_loghist *h, uint32_t *first, uint32_t *end)
{
	if (h->total == h->overflow) { /* nothing bucketed */
		*first = *end = 0;
		return;
	}
	int64_t top = h->max < LATREC_LOGHIST_LIMIT ? h->max : LATREC_LOGHIST_LIMIT - 1;
	*first = latrec_loghist_index(h->min);
	*end = latrec_loghist_index(top) + 1;
}

void latrec_loghist_reset(latrec_loghist *h)
{
	uint32_t first, end;
	if (h->counts && h->total > 0) {
		bucket_span(h, &first, &end);
		if (end > first)
			memset(h->counts + first, 0, (size_t)(end - first) * sizeof(uint64_t));
	}
	set_empty(h);
}

void latrec_loghist_record_n(latrec_loghist *h, int64_t v, uint64_t n)
{
	if (n == 0)
		return;
	if (v < 0) {
		h->below_zero += n;
		return;
	}
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	if (h->total + n <= LATREC_LOGHIST_EXACT_MAX) {
		for (uint64_t i = 0; i < n; i++)
			h->exact[h->total + i] = v;
	}
	h->total += n;
	if (v >= LATREC_LOGHIST_LIMIT)
		h->overflow += n;
	else
		h->counts[latrec_loghist_index(v)] += n;
}

void latrec_loghist_record_block(latrec_loghist *h, const int64_t *v, size_t n)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	if (n == 0 || lo < 0 || hi >= LATREC_LOGHIST_LIMIT) { /* not a plain block: value by value */
		for (size_t i = 0; i < n; i++)
			latrec_loghist_record(h, v[i]);
		return;
	}
	latrec_loghist_begin_block(h, v, n, lo, hi);
	for (size_t i = 0; i < n; i++)
		latrec_loghist_bump(h, v[i]);
}

void latrec_loghist_begin_block(latrec_loghist *h, const int64_t *v, size_t n, int64_t lo, int64_t hi)
{
	h->min = lo < h->min ? lo : h->min;
	h->max = hi > h->max ? hi : h->max;
	if (h->total < LATREC_LOGHIST_EXACT_MAX) {
		const size_t room = LATREC_LOGHIST_EXACT_MAX - h->total;
		memcpy(h->exact + h->total, v, (n < room ? n : room) * sizeof(*v));
	}
	h->total += n;
}

void latrec_loghist_merge(latrec_loghist *dst, const latrec_loghist *src)
{
	if (src->total == 0) {
		dst->below_zero += src->below_zero;
		return;
	}
	/* Read everything from src before dst changes: they may be the same. */
	uint64_t src_total = src->total, src_overflow = src->overflow;
	uint64_t src_below = src->below_zero;
	int64_t src_min = src->min, src_max = src->max;
	uint32_t first, end;
	bucket_span(src, &first, &end);

	if (dst->total + src_total <= LATREC_LOGHIST_EXACT_MAX)
		memmove(dst->exact + dst->total, src->exact, (size_t)src_total * sizeof(int64_t));
	for (uint32_t i = first; i < end; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src_total;
	dst->overflow += src_overflow;
	dst->below_zero += src_below;
	if (src_min < dst->min)
		dst->min = src_min;
	if (src_max > dst->max)
		dst->max = src_max;
}

bool latrec_loghist_min(const latrec_loghist *h, int64_t *out)
{
	if (h->total == 0)
		return false;
	*out = h->min;
	return true;
}

bool latrec_loghist_max(const latrec_loghist *h, int64_t *out)
{
	if (h->total == 0)
		return false;
	*out = h->max;
	return true;
}

uint64_t latrec_loghist_rank(double p, uint64_t n)
{
	if (n == 0 || isnan(p) || p < 0.0 || p > 100.0)
		return 0;
	double x = p / 100.0 * (double)n;
	double fl = floor(x);
	double r = (x - fl <= RANK_TOLERANCE * x) ? fl : ceil(x);
	if (r < 1.0)
		return 1;
	if (r >= (double)n)
		return n;
	return (uint64_t)r;
}

static void bucket_edges(uint32_t idx, int64_t *lower, int64_t *upper)
{
	if (idx < (uint32_t)LATREC_LOGHIST_UNIT_LIMIT) {
		*lower = idx;
		*upper = (int64_t)idx + 1;
		return;
	}
	unsigned s = (idx >> LATREC_LOGHIST_SUB_BITS) - 1;
	*lower = (int64_t)(idx - (s << LATREC_LOGHIST_SUB_BITS)) << s;
	*upper = *lower + (INT64_C(1) << s);
}

bool latrec_loghist_bucket_of(int64_t v, int64_t *lower, int64_t *upper)
{
	if (v < 0)
		return false;
	if (v >= LATREC_LOGHIST_LIMIT) {
		*lower = LATREC_LOGHIST_LIMIT;
		*upper = INT64_MAX;
		return true;
	}
	bucket_edges(latrec_loghist_index(v), lower, upper);
	return true;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Value holding rank r (1..total), from the buckets. */
static int64_t value_at_rank_hist(const latrec_loghist *h, uint64_t r)
{
	if (r > h->total - h->overflow)
		return h->max; /* in the overflow count: its best-known value */
	uint32_t first, end;
	bucket_span(h, &first, &end);
	uint64_t cum = 0;
	for (uint32_t i = first; i < end; i++) {
		cum += h->counts[i];
		if (cum >= r) {
			int64_t lo, hi;
			bucket_edges(i, &lo, &hi);
			int64_t v = hi - 1;
			if (v > h->max)
				v = h->max;
			if (v < h->min)
				v = h->min;
			return v;
		}
	}
	return h->max; /* unreachable while counts and total agree */
}

bool latrec_loghist_percentiles(const latrec_loghist *h, const double *p, size_t k, int64_t *out)
{
	if (h->total == 0)
		return false;
	for (size_t i = 0; i < k; i++)
		if (latrec_loghist_rank(p[i], h->total) == 0)
			return false;
	if (latrec_loghist_is_exact(h)) {
		int64_t sorted[LATREC_LOGHIST_EXACT_MAX];
		memcpy(sorted, h->exact, (size_t)h->total * sizeof(int64_t));
		qsort(sorted, (size_t)h->total, sizeof(int64_t), cmp_i64);
		for (size_t i = 0; i < k; i++)
			out[i] = sorted[latrec_loghist_rank(p[i], h->total) - 1];
		return true;
	}
	for (size_t i = 0; i < k; i++)
		out[i] = value_at_rank_hist(h, latrec_loghist_rank(p[i], h->total));
	return true;
}

bool latrec_loghist_value_at_percentile(const latrec_loghist *h, double p, int64_t *out)
{
	return latrec_loghist_percentiles(h, &p, 1, out);
}

bool latrec_loghist_count_above(const latrec_loghist *h, int64_t t, uint64_t *lo, uint64_t *hi)
{
	*lo = *hi = 0;
	if (h->total == 0 || t >= h->max)
		return true;
	if (t < h->min) {
		*lo = *hi = h->total;
		return true;
	}
	if (latrec_loghist_is_exact(h)) {
		uint64_t n = 0;
		for (uint64_t i = 0; i < h->total; i++)
			n += h->exact[i] > t;
		*lo = *hi = n;
		return true;
	}
	/* min <= t < max from here on. */
	if (t >= LATREC_LOGHIST_LIMIT) { /* t inside the overflow bucket */
		*hi = h->overflow;
		return false;
	}
	uint32_t first, end, ti = latrec_loghist_index(t);
	bucket_span(h, &first, &end);
	uint64_t above = h->overflow;
	for (uint32_t i = ti + 1; i < end; i++)
		above += h->counts[i];
	int64_t tlo, thi;
	bucket_edges(ti, &tlo, &thi);
	*lo = above;
	if (t + 1 == thi || h->counts[ti] == 0) {
		*hi = above;
		return true;
	}
	*hi = above + h->counts[ti];
	return false;
}

void latrec_loghist_iter_init(latrec_loghist_iter *it, const latrec_loghist *h)
{
	it->h = h;
	if (h->total == 0) {
		it->idx = it->end = 0;
	} else {
		bucket_span(h, &it->idx, &it->end);
	}
	it->overflow_done = false;
}

bool latrec_loghist_iter_next(latrec_loghist_iter *it, latrec_loghist_bucket *out)
{
	const latrec_loghist *h = it->h;
	while (it->idx < it->end) {
		uint32_t i = it->idx++;
		if (h->counts[i]) {
			bucket_edges(i, &out->lower, &out->upper);
			out->count = h->counts[i];
			out->overflow = false;
			return true;
		}
	}
	if (!it->overflow_done) {
		it->overflow_done = true;
		if (h->overflow) {
			out->lower = LATREC_LOGHIST_LIMIT;
			out->upper = INT64_MAX;
			out->count = h->overflow;
			out->overflow = true;
			return true;
		}
	}
	return false;
}

/* ---- sparse histograms ---------------------------------------------------- */

/* The scalar figures and kept samples of a sum of two (a, then b). */
static int sparse_head(latrec_loghist_sparse *out, uint64_t a_total, const int64_t *a_exact, uint64_t b_total,
		       const int64_t *b_exact)
{
	out->total = a_total + b_total;
	out->exact = NULL;
	if (out->total > LATREC_LOGHIST_EXACT_MAX)
		return 0;
	out->exact = malloc((size_t)(out->total ? out->total : 1) * sizeof(int64_t));
	if (!out->exact)
		return -1;
	if (a_total)
		memcpy(out->exact, a_exact, (size_t)a_total * sizeof(int64_t));
	if (b_total)
		memcpy(out->exact + a_total, b_exact, (size_t)b_total * sizeof(int64_t));
	return 0;
}

/* dst's buckets and src's (m of them, at si / sc) merged in index order. */
static int sparse_merge_buckets(latrec_loghist_sparse *out, const latrec_loghist_sparse *dst, const uint32_t *si,
				const uint64_t *sc, uint32_t m)
{
	const size_t cap = (size_t)dst->n + m + 1;
	out->idx = malloc(cap * sizeof(*out->idx));
	out->count = malloc(cap * sizeof(*out->count));
	if (!out->idx || !out->count)
		return -1;
	uint32_t i = 0, j = 0, n = 0;
	while (i < dst->n || j < m) {
		if (j == m || (i < dst->n && dst->idx[i] < si[j])) {
			out->idx[n] = dst->idx[i];
			out->count[n++] = dst->count[i++];
		} else if (i == dst->n || si[j] < dst->idx[i]) {
			out->idx[n] = si[j];
			out->count[n++] = sc[j++];
		} else {
			out->idx[n] = si[j];
			out->count[n++] = dst->count[i++] + sc[j++];
		}
	}
	out->n = n;
	return 0;
}

/* dst += (the figures of a histogram: total, overflow, below_zero, min,
 * max, kept samples, m buckets). */
static int sparse_sum(latrec_loghist_sparse *dst, const latrec_loghist *fig, const int64_t *exact, const uint32_t *si,
		      const uint64_t *sc, uint32_t m)
{
	latrec_loghist_sparse out = { 0 };
	if (sparse_head(&out, dst->total, dst->exact, fig->total, exact) < 0 ||
	    sparse_merge_buckets(&out, dst, si, sc, m) < 0) {
		latrec_loghist_sparse_free(&out);
		errno = ENOMEM;
		return -1;
	}
	out.overflow = dst->overflow + fig->overflow;
	out.below_zero = dst->below_zero + fig->below_zero;
	out.min = dst->min;
	out.max = dst->max;
	if (fig->total && (!dst->total || fig->min < out.min))
		out.min = fig->min;
	if (fig->total && (!dst->total || fig->max > out.max))
		out.max = fig->max;
	latrec_loghist_sparse_free(dst);
	*dst = out;
	return 0;
}

int latrec_loghist_sparse_add(latrec_loghist_sparse *dst, const latrec_loghist *src)
{
	uint32_t first, end, m = 0;
	bucket_span(src, &first, &end);
	for (uint32_t i = first; i < end; i++)
		m += src->counts[i] != 0;
	uint32_t *si = malloc(((size_t)m + 1) * sizeof(*si));
	uint64_t *sc = malloc(((size_t)m + 1) * sizeof(*sc));
	int rc = -1;
	if (si && sc) {
		m = 0;
		for (uint32_t i = first; i < end; i++)
			if (src->counts[i]) {
				si[m] = i;
				sc[m++] = src->counts[i];
			}
		rc = sparse_sum(dst, src, src->exact, si, sc, m);
	} else {
		errno = ENOMEM;
	}
	free(si);
	free(sc);
	return rc;
}

int latrec_loghist_sparse_merge(latrec_loghist_sparse *dst, const latrec_loghist_sparse *src)
{
	latrec_loghist fig = { .total = src->total, .overflow = src->overflow, .below_zero = src->below_zero,
			       .min = src->min, .max = src->max };
	return sparse_sum(dst, &fig, src->exact, src->idx, src->count, src->n);
}

void latrec_loghist_add_sparse(latrec_loghist *h, const latrec_loghist_sparse *s)
{
	if (s->total == 0) {
		h->below_zero += s->below_zero;
		return;
	}
	if (h->total + s->total <= LATREC_LOGHIST_EXACT_MAX)
		memcpy(h->exact + h->total, s->exact, (size_t)s->total * sizeof(int64_t));
	for (uint32_t i = 0; i < s->n; i++)
		h->counts[s->idx[i]] += s->count[i];
	h->total += s->total;
	h->overflow += s->overflow;
	h->below_zero += s->below_zero;
	if (s->min < h->min)
		h->min = s->min;
	if (s->max > h->max)
		h->max = s->max;
}

void latrec_loghist_sparse_free(latrec_loghist_sparse *s)
{
	free(s->idx);
	free(s->count);
	free(s->exact);
	memset(s, 0, sizeof(*s));
}
