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
	o->cur_max = 0;
	o->cur_n = 0;
	o->oom = false;
}

void latrec_outliers_free(latrec_outliers *o)
{
	free(o->maxima);
	memset(o, 0, sizeof(*o));
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

void latrec_outliers_close_chunk(latrec_outliers *o)
{
	if (o->cur_n == 0)
		return;
	if (reserve(o, o->n_maxima + 1) == 0)
		o->maxima[o->n_maxima++] = o->cur_max;
	else
		o->oom = true;
	o->cur_n = 0;
	o->cur_max = 0;
}

uint64_t latrec_outliers_chunks(const latrec_outliers *o)
{
	return (uint64_t)o->n_maxima + (o->cur_n > 0);
}

int latrec_outliers_merge(latrec_outliers *dst, const latrec_outliers *src)
{
	size_t need = dst->n_maxima + (dst->cur_n > 0) + src->n_maxima;
	if (reserve(dst, need) != 0)
		return -1;
	if (dst->cur_n > 0)
		dst->maxima[dst->n_maxima++] = dst->cur_max;
	if (src->n_maxima)
		memcpy(dst->maxima + dst->n_maxima, src->maxima, src->n_maxima * sizeof(int64_t));
	dst->n_maxima += src->n_maxima;
	dst->cur_n = src->cur_n;
	dst->cur_max = src->cur_max;
	dst->oom = dst->oom || src->oom;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* k-th smallest (0-based) of sorted a[0..n) plus, if has_extra, one more
 * value `extra` merged into the order. */
static int64_t kth(const int64_t *a, size_t n, bool has_extra, int64_t extra, size_t k)
{
	if (!has_extra)
		return a[k];
	size_t lo = 0, hi = n; /* pos = first index with a[pos] > extra */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] <= extra)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (k < lo)
		return a[k];
	if (k == lo)
		return extra;
	return a[k - 1];
}

/* numpy "linear" quantile of m sorted values (the union above): q in [0,1]. */
static long double quantile(const int64_t *a, size_t n, bool has_extra, int64_t extra,
			    size_t m, unsigned quarters)
{
	/* h = (m - 1) x quarters / 4, kept exact as an integer and a remainder. */
	size_t num = (m - 1) * quarters;
	size_t j = num / 4, f = num % 4;
	long double xj = (long double)kth(a, n, has_extra, extra, j);
	if (f == 0)
		return xj;
	long double xk = (long double)kth(a, n, has_extra, extra, j + 1);
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
	bool extra = o->cur_n > 0;
	size_t m = o->n_maxima + extra;
	f->chunks = m;
	if (m < LATREC_OUTLIER_MIN_CHUNKS)
		return 0;
	qsort(o->maxima, o->n_maxima, sizeof(int64_t), cmp_i64);
	long double q1 = quantile(o->maxima, o->n_maxima, extra, o->cur_max, m, 1);
	long double q3 = quantile(o->maxima, o->n_maxima, extra, o->cur_max, m, 3);
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
