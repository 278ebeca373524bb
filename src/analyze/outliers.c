/* outliers: chunk-maxima IQR fence. See outliers.h for the rule. */
#include "analyze/outliers.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CAP 64

void latrec_outliers_init(latrec_outliers *o)
{
	memset(o, 0, sizeof(*o));
}

void latrec_outliers_reset(latrec_outliers *o)
{
	o->n_maxima = 0;
	if (o->n_cur)
		memset(o->cur, 0, o->n_cur * sizeof(*o->cur));
	o->oom = false;
}

void latrec_outliers_free(latrec_outliers *o)
{
	free(o->maxima);
	free(o->cur);
	memset(o, 0, sizeof(*o));
}

/* Room for series 0..k in cur (zeroed). 0, or -1 with errno = ENOMEM. */
static int reserve_series(latrec_outliers *o, uint32_t k)
{
	if (k < o->n_cur)
		return 0;
	uint32_t n = o->n_cur ? o->n_cur : 1;
	while (n <= k) {
		if (n > UINT32_MAX / 2) {
			errno = ENOMEM;
			return -1;
		}
		n *= 2;
	}
	latrec_outlier_chunk *c = realloc(o->cur, (size_t)n * sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return -1;
	}
	memset(c + o->n_cur, 0, (size_t)(n - o->n_cur) * sizeof(*c));
	o->cur = c;
	o->n_cur = n;
	return 0;
}

void latrec_outliers_grow(latrec_outliers *o, uint32_t k)
{
	if (reserve_series(o, k) != 0)
		o->oom = true;
}

static int reserve(latrec_outliers *o, size_t need)
{
	if (need <= o->cap)
		return 0;
	size_t cap = o->cap ? o->cap : FIRST_CAP;
	while (cap < need) {
		if (cap > SIZE_MAX / 2 / sizeof(int64_t))
			goto nomem;
		cap *= 2;
	}
	int64_t *p = realloc(o->maxima, cap * sizeof(int64_t));
	if (!p)
		goto nomem;
	o->maxima = p;
	o->cap = cap;
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}

void latrec_outliers_close_chunk(latrec_outliers *o, uint32_t k)
{
	latrec_outlier_chunk *c = &o->cur[k];
	if (c->n == 0)
		return;
	if (reserve(o, o->n_maxima + 1) == 0)
		o->maxima[o->n_maxima++] = c->max;
	else
		o->oom = true;
	c->n = 0;
	c->max = 0;
}

void latrec_outliers_feed_block(latrec_outliers *o, const int64_t *v, const uint32_t *k, size_t n)
{
	latrec_outlier_chunk *cur = o->cur; /* what only a new series moves */
	uint32_t n_cur = o->n_cur;
	for (size_t i = 0; i < n; i++) {
		const uint32_t s = k[i];
		if (__builtin_expect(s >= n_cur, 0)) {
			latrec_outliers_grow(o, s);
			cur = o->cur;
			n_cur = o->n_cur;
			if (s >= n_cur)
				continue;
		}
		latrec_outlier_chunk *c = &cur[s];
		const uint32_t m = c->n;
		c->max = (m == 0 || v[i] > c->max) ? v[i] : c->max;
		c->n = m + 1;
		if (__builtin_expect(m + 1 == LATREC_OUTLIER_CHUNK, 0))
			latrec_outliers_close_chunk(o, s);
	}
}

void latrec_outliers_feed_run(latrec_outliers *o, const int64_t *v, size_t stride, size_t n, uint32_t k, int64_t hi)
{
	if (n && k < o->n_cur && o->cur[k].n + n < LATREC_OUTLIER_CHUNK) {
		latrec_outlier_chunk *c = &o->cur[k];
		c->max = (c->n == 0 || hi > c->max) ? hi : c->max;
		c->n += (uint32_t)n;
		return;
	}
	for (size_t i = 0; i < n; i++)
		latrec_outliers_feed_in(o, v[i * stride], k);
}

/* Series with a partial chunk. */
static size_t partials(const latrec_outliers *o)
{
	size_t n = 0;
	for (uint32_t k = 0; k < o->n_cur; k++)
		n += o->cur[k].n > 0;
	return n;
}

uint64_t latrec_outliers_chunks(const latrec_outliers *o)
{
	return (uint64_t)o->n_maxima + partials(o);
}

int latrec_outliers_merge(latrec_outliers *dst, const latrec_outliers *src)
{
	size_t closed = 0; /* dst's partial chunks that src's replace */
	for (uint32_t k = 0; k < src->n_cur; k++)
		closed += src->cur[k].n > 0 && k < dst->n_cur && dst->cur[k].n > 0;
	if (reserve(dst, dst->n_maxima + closed + src->n_maxima) != 0 ||
	    (src->n_cur && reserve_series(dst, src->n_cur - 1) != 0))
		return -1;
	for (uint32_t k = 0; k < src->n_cur; k++) {
		if (!src->cur[k].n)
			continue;
		if (dst->cur[k].n)
			dst->maxima[dst->n_maxima++] = dst->cur[k].max;
		dst->cur[k] = src->cur[k];
	}
	if (src->n_maxima)
		memcpy(dst->maxima + dst->n_maxima, src->maxima, src->n_maxima * sizeof(int64_t));
	dst->n_maxima += src->n_maxima;
	dst->oom = dst->oom || src->oom;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* numpy "linear" quantile of m sorted values a: quarters / 4 in [0, 1]. */
static long double quantile(const int64_t *a, size_t m, unsigned quarters)
{
	/* h = (m - 1) x quarters / 4, kept exact as an integer and a remainder. */
	size_t num = (m - 1) * quarters;
	size_t j = num / 4, f = num % 4;
	long double xj = (long double)a[j];
	if (f == 0)
		return xj;
	long double xk = (long double)a[j + 1];
	return xj + ((long double)f / 4.0L) * (xk - xj);
}

int latrec_outliers_fence(latrec_outliers *o, latrec_outlier_fence *f)
{
	memset(f, 0, sizeof(*f));
	f->threshold = INT64_MAX;
	if (o->oom) {
		errno = ENOMEM;
		return -1;
	}
	const size_t extra = partials(o);
	size_t m = o->n_maxima + extra;
	f->chunks = m;
	if (m < LATREC_OUTLIER_MIN_CHUNKS)
		return 0;
	/* the stored maxima and the partial chunks' (those chunks go on) */
	int64_t *all = malloc(m * sizeof(*all));
	if (!all) {
		errno = ENOMEM;
		return -1;
	}
	if (o->n_maxima)
		memcpy(all, o->maxima, o->n_maxima * sizeof(*all));
	for (uint32_t k = 0, at = 0; k < o->n_cur; k++)
		if (o->cur[k].n)
			all[o->n_maxima + at++] = o->cur[k].max;
	qsort(all, m, sizeof(*all), cmp_i64);
	long double q1 = quantile(all, m, 1);
	long double q3 = quantile(all, m, 3);
	free(all);
	long double iqr = q3 - q1;
	long double limit = q3 + LATREC_OUTLIER_IQR_K * iqr;
	f->enough_data = true;
	f->q1 = (double)q1;
	f->q3 = (double)q3;
	f->iqr = (double)iqr;
	f->limit = (double)limit;
	long double fl = floorl(limit);
	f->threshold = fl >= 9223372036854775807.0L ? INT64_MAX : (int64_t)fl;
	return 0;
}

int latrec_outliers_count(latrec_outliers *o, const latrec_loghist *h, latrec_outlier_count *out)
{
	memset(out, 0, sizeof(*out));
	if (latrec_outliers_fence(o, &out->fence) != 0)
		return -1;
	out->exact = true;
	if (!out->fence.enough_data)
		return 0;
	out->exact = latrec_loghist_count_above(h, out->fence.threshold, &out->count, &out->count_max);
	return 0;
}
