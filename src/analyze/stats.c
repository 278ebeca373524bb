/* stats: per-column accumulator. See stats.h for the definitions. */
#include "analyze/stats.h"

#include <errno.h>
#include <math.h>
#include <string.h>

int latrec_stats_init(latrec_stats *s)
{
	memset(s, 0, sizeof(*s));
	latrec_outliers_init(&s->outl);
	return latrec_loghist_init(&s->hist);
}

void latrec_stats_reset(latrec_stats *s)
{
	latrec_loghist_reset(&s->hist);
	latrec_outliers_reset(&s->outl);
	memset(&s->mom, 0, sizeof(s->mom));
	s->block_n = 0;
	s->negatives = 0;
	s->neg_min = 0;
}

void latrec_stats_free(latrec_stats *s)
{
	latrec_loghist_free(&s->hist);
	latrec_outliers_free(&s->outl);
	memset(&s->mom, 0, sizeof(s->mom));
	s->block_n = 0;
	s->negatives = 0;
	s->neg_min = 0;
}

void latrec_stats_add_negative(latrec_stats *s, int64_t v)
{
	if (s->negatives == 0 || v < s->neg_min)
		s->neg_min = v;
	s->negatives++;
}

/* a += (nb, mb, m2b, m3b): the pairwise combination (Chan et al. for M2,
 * Pebay 2008 for M3). */
static void combine(latrec_moments *a, const latrec_moments *b)
{
	if (b->n == 0)
		return;
	if (a->n == 0) {
		*a = *b;
		return;
	}
	long double na = (long double)a->n, nb = (long double)b->n;
	long double n = na + nb;
	long double d = b->mean - a->mean;
	long double dn = d / n;
	long double m2 = a->m2 + b->m2 + d * dn * na * nb;
	long double m3 = a->m3 + b->m3 + d * dn * dn * na * nb * (na - nb)
		+ 3.0L * dn * (na * b->m2 - nb * a->m2);
	a->mean += dn * nb;
	a->m2 = m2;
	a->m3 = m3;
	a->n += b->n;
}

/* Two-pass moments of a small block: mean from the exact sum, then the
 * deviations. Values below 2^52 ns (52 days; all real hops) take a double
 * path: the integer sum is exact, each deviation is exact to one rounding,
 * and the loop has no x87 work. Larger values take long double. */
static void block_moments(const int64_t *v, uint32_t k, latrec_moments *out)
{
	memset(out, 0, sizeof(*out));
	if (k == 0)
		return;
	uint64_t sum = 0, bits = 0;
	for (uint32_t i = 0; i < k; i++) {
		sum += (uint64_t)v[i];
		bits |= (uint64_t)v[i];
	}
	out->n = k;
	if (bits < (UINT64_C(1) << 52)) {
		/* sum < 32 x 2^52 = 2^57: exact in uint64_t */
		long double mean = (long double)sum / k;
		double m = (double)mean;
		double c = 0, m2 = 0, m3 = 0;
		for (uint32_t i = 0; i < k; i++) {
			double d = (double)v[i] - m;
			double d2 = d * d;
			c += d;
			m2 += d2;
			m3 += d2 * d;
		}
		/* Corrected two-pass (Chan, Golub & LeVeque): c is the rounding
		 * left in the mean; shift the moments to the exact mean. */
		long double cm = (long double)c / k;
		out->mean = mean;
		out->m2 = (long double)m2 - (long double)c * cm;
		out->m3 = (long double)m3 - 3.0L * cm * (long double)m2 + 2.0L * (long double)c * cm * cm;
		return;
	}
	long double lsum = 0;
	for (uint32_t i = 0; i < k; i++)
		lsum += (long double)v[i];
	long double mean = lsum / k, m2 = 0, m3 = 0;
	for (uint32_t i = 0; i < k; i++) {
		long double d = (long double)v[i] - mean;
		m2 += d * d;
		m3 += d * d * d;
	}
	out->mean = mean;
	out->m2 = m2;
	out->m3 = m3;
}

void latrec_stats_flush_block(latrec_stats *s)
{
	latrec_moments b;
	block_moments(s->block, s->block_n, &b);
	combine(&s->mom, &b);
	s->block_n = 0;
}

void latrec_stats_moments(const latrec_stats *s, latrec_moments *out)
{
	latrec_moments b;
	*out = s->mom;
	block_moments(s->block, s->block_n, &b);
	combine(out, &b);
}

int latrec_stats_merge(latrec_stats *dst, const latrec_stats *src)
{
	if (latrec_outliers_merge(&dst->outl, &src->outl) != 0)
		return -1;
	latrec_loghist_merge(&dst->hist, &src->hist);
	latrec_moments a, b;
	latrec_stats_moments(dst, &a);
	latrec_stats_moments(src, &b);
	combine(&a, &b);
	dst->mom = a;
	dst->block_n = 0;
	if (src->negatives) {
		if (dst->negatives == 0 || src->neg_min < dst->neg_min)
			dst->neg_min = src->neg_min;
		dst->negatives += src->negatives;
	}
	return 0;
}

uint64_t latrec_stats_count(const latrec_stats *s)
{
	return latrec_loghist_count(&s->hist);
}

bool latrec_stats_min(const latrec_stats *s, int64_t *out)
{
	return latrec_loghist_min(&s->hist, out);
}

bool latrec_stats_max(const latrec_stats *s, int64_t *out)
{
	return latrec_loghist_max(&s->hist, out);
}

bool latrec_stats_mean(const latrec_stats *s, double *out)
{
	latrec_moments m;
	latrec_stats_moments(s, &m);
	if (m.n == 0)
		return false;
	*out = (double)m.mean;
	return true;
}

bool latrec_stats_stddev(const latrec_stats *s, double *out)
{
	latrec_moments m;
	latrec_stats_moments(s, &m);
	if (m.n < 2)
		return false;
	long double var = m.m2 / (long double)(m.n - 1);
	*out = (double)sqrtl(var > 0 ? var : 0);
	return true;
}

bool latrec_stats_skewness(const latrec_stats *s, double *out)
{
	latrec_moments m;
	latrec_stats_moments(s, &m);
	if (m.n < 3 || !(m.m2 > 0))
		return false;
	long double n = (long double)m.n;
	/* g1 = m3 / m2^1.5 with m2 = M2/n, m3 = M3/n  ==  sqrt(n) M3 / M2^1.5 */
	long double g1 = sqrtl(n) * m.m3 / (m.m2 * sqrtl(m.m2));
	*out = (double)(sqrtl(n * (n - 1)) / (n - 2) * g1);
	return true;
}

bool latrec_stats_percentile(const latrec_stats *s, double p, int64_t *out)
{
	return latrec_loghist_value_at_percentile(&s->hist, p, out);
}

bool latrec_stats_percentiles(const latrec_stats *s, const double *p, size_t k, int64_t *out)
{
	return latrec_loghist_percentiles(&s->hist, p, k, out);
}

uint64_t latrec_stats_negatives(const latrec_stats *s)
{
	return s->negatives;
}

bool latrec_stats_negative_min(const latrec_stats *s, int64_t *out)
{
	if (s->negatives == 0)
		return false;
	*out = s->neg_min;
	return true;
}

bool latrec_stats_outliers(latrec_stats *s, latrec_outlier_count *out)
{
	if (latrec_stats_count(s) == 0)
		return false;
	return latrec_outliers_count(&s->outl, &s->hist, out) == 0;
}

void latrec_gaps_init(latrec_gaps *g, latrec_stats *dst)
{
	g->dst = dst;
	g->prev = 0;
	g->have_prev = false;
}

void latrec_gaps_feed(latrec_gaps *g, uint64_t t_ns)
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
