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
	memset(&s->sums, 0, sizeof(s->sums));
	s->block_n = 0;
	s->negatives = 0;
	s->neg_min = 0;
	s->neg_sum = 0;
}

void latrec_stats_free(latrec_stats *s)
{
	latrec_loghist_free(&s->hist);
	latrec_outliers_free(&s->outl);
	memset(&s->sums, 0, sizeof(s->sums));
	s->block_n = 0;
	s->negatives = 0;
	s->neg_min = 0;
	s->neg_sum = 0;
}

void latrec_stats_add_negative(latrec_stats *s, int64_t v)
{
	if (s->negatives == 0 || v < s->neg_min)
		s->neg_min = v;
	s->negatives++;
	s->neg_sum += v;
}

typedef unsigned __int128 u128;

/* acc[0..n) += x: a carry out of the first limb is rare. */
static inline void add_word(uint64_t *acc, int n, uint64_t x)
{
	acc[0] += x;
	if (__builtin_expect(acc[0] < x, 0))
		for (int i = 1; i < n && ++acc[i] == 0; i++)
			;
}

/* acc[0..n) += x[0..k), k <= n, carries dropped past acc[n - 1] (the sums
 * are wide enough that none is). */
static void add_limbs(uint64_t *acc, int n, const uint64_t *x, int k)
{
	u128 c = 0;
	for (int i = 0; i < n; i++) {
		c += acc[i];
		if (i < k)
			c += x[i];
		acc[i] = (uint64_t)c;
		c >>= 64;
	}
}

/* ps += the power sums of v[0..k) (every v >= 0). Below 2^19 ns (0.5 ms,
 * most hops) a block's sums fit 64-bit words (32 v^3 < 2^62), below 2^40 ns
 * 128-bit words (v^3 < 2^120, 32 of them < 2^125). */
_Static_assert(LATREC_STATS_BLOCK <= 64, "a block of values below 2^19 must keep its sum of cubes below 2^64");
static void block_sums(const int64_t *v, uint32_t k, latrec_power_sums *ps)
{
	uint64_t bits = 0;
	for (uint32_t i = 0; i < k; i++)
		bits |= (uint64_t)v[i];
	ps->n += k;
	if (bits < (UINT64_C(1) << 19)) { /* v^3 < 2^57: a block's sums fit 64 bits */
		uint64_t b1 = 0, b2 = 0, b3 = 0;
		for (uint32_t i = 0; i < k; i++) {
			const uint64_t x = (uint64_t)v[i], x2 = x * x;
			b1 += x;
			b2 += x2;
			b3 += x2 * x;
		}
		const uint64_t w1[1] = { b1 }, w2[1] = { b2 }, w3[1] = { b3 };
		add_limbs(ps->s1, 2, w1, 1);
		add_limbs(ps->s2, 3, w2, 1);
		add_limbs(ps->s3, 4, w3, 1);
		return;
	}
	if (bits < (UINT64_C(1) << 40)) {
		uint64_t b1 = 0;
		u128 b2 = 0, b3 = 0;
		for (uint32_t i = 0; i < k; i++) {
			const uint64_t x = (uint64_t)v[i];
			const u128 x2 = (u128)x * x;
			b1 += x;
			b2 += x2;
			b3 += (u128)(uint64_t)x2 * x + ((u128)((uint64_t)(x2 >> 64) * x) << 64);
		}
		const uint64_t w1[1] = { b1 }, w2[2] = { (uint64_t)b2, (uint64_t)(b2 >> 64) },
			       w3[2] = { (uint64_t)b3, (uint64_t)(b3 >> 64) };
		add_limbs(ps->s1, 2, w1, 1);
		add_limbs(ps->s2, 3, w2, 2);
		add_limbs(ps->s3, 4, w3, 2);
		return;
	}
	for (uint32_t i = 0; i < k; i++) { /* v < 2^63: v^2 < 2^126, v^3 < 2^189 */
		const uint64_t x = (uint64_t)v[i];
		const u128 x2 = (u128)x * x;
		const u128 lo = (u128)(uint64_t)x2 * x, hi = (u128)(uint64_t)(x2 >> 64) * x;
		const u128 mid = (lo >> 64) + (uint64_t)hi;
		const uint64_t w1[1] = { x }, w2[2] = { (uint64_t)x2, (uint64_t)(x2 >> 64) },
			       w3[3] = { (uint64_t)lo, (uint64_t)mid, (uint64_t)((hi >> 64) + (mid >> 64)) };
		add_limbs(ps->s1, 2, w1, 1);
		add_limbs(ps->s2, 3, w2, 2);
		add_limbs(ps->s3, 4, w3, 3);
	}
}

/* n values v[0], v[stride], .. (none negative) into the column's buckets,
 * chunk maxima and power sums, series[i] the series of value i (NULL:
 * every one is of series k0). One loop takes their minimum, maximum and
 * 64-bit power sums, and whether every value is of one series: below 2^19
 * ns (most hops and gaps) those sums are the block's (32 v^3 < 2^62), the
 * buckets follow in a loop of their own, and a block of one series goes
 * into its chunk at once (a column is fed by one process at a time, the
 * gaps by one series). Values from elsewhere than the column's block are
 * copied there while the loghist keeps its first samples (and when not
 * below 2^19 ns). -1, with nothing changed, when one is negative. */
static inline __attribute__((always_inline)) int fold_values(latrec_stats *s, const int64_t *v, size_t stride,
							     uint32_t n, const uint32_t *series, uint32_t k0)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint64_t b1 = 0, b2 = 0, b3 = 0; /* wrap above 2^19: not used then */
	uint32_t mixed = 0;
	for (uint32_t i = 0; i < n; i++) {
		const int64_t y = v[i * stride];
		const uint64_t x = (uint64_t)y, x2 = x * x;
		lo = y < lo ? y : lo;
		hi = y > hi ? y : hi;
		b1 += x;
		b2 += x2;
		b3 += x2 * x;
		if (series)
			mixed |= series[i] ^ k0;
	}
	if (lo < 0)
		return -1;
	const int small = n && hi < (INT64_C(1) << 19);
	if (v != s->block && (!small || latrec_loghist_count(&s->hist) < LATREC_LOGHIST_EXACT_MAX)) {
		for (uint32_t i = 0; i < n; i++)
			s->block[i] = v[i * stride];
		v = s->block;
		stride = 1;
	}
	if (small) {
		latrec_loghist_begin_block(&s->hist, v, n, lo, hi);
		for (uint32_t i = 0; i < n; i++)
			latrec_loghist_bump(&s->hist, v[i * stride]);
		s->sums.n += n;
		add_word(s->sums.s1, 2, b1);
		add_word(s->sums.s2, 3, b2);
		add_word(s->sums.s3, 4, b3);
	} else {
		latrec_loghist_record_block(&s->hist, v, n);
		block_sums(v, n, &s->sums);
	}
	if (!mixed)
		latrec_outliers_feed_run(&s->outl, v, stride, n, k0, hi);
	else /* series only with the column's own block: v is s->block */
		latrec_outliers_feed_block(&s->outl, v, series, n);
	return 0;
}

void latrec_stats_flush_block(latrec_stats *s)
{
	(void)fold_values(s, s->block, 1, s->block_n, s->series, s->series[0]); /* add_in keeps negatives out */
	s->block_n = 0;
}

void latrec_stats_add_strided(latrec_stats *s, const int64_t *v, size_t stride, uint32_t n, uint32_t k)
{
	/* a whole block of no clock regression: no store per value */
	if (s->block_n == 0 && n == LATREC_STATS_BLOCK && fold_values(s, v, stride, n, NULL, k) == 0)
		return;
	for (uint32_t i = 0; i < n; i++)
		latrec_stats_add_in(s, v[i * stride], k);
}

/* The pending block put in before a figure is read. The accessors take
 * the column as const: its figures do not change, only where its last
 * values wait (every column is made by latrec_stats_init, none is const). */
static const latrec_stats *settled(const latrec_stats *s)
{
	if (s->block_n)
		latrec_stats_flush_block((latrec_stats *)s);
	return s;
}

static void all_sums(const latrec_stats *s, latrec_power_sums *ps)
{
	*ps = settled(s)->sums;
}

/* ---- exact numerators: signed integers of 512 bits (two's complement) ---- */

#define BIG_LIMBS 8
typedef struct big {
	uint64_t w[BIG_LIMBS];
} big;

static big big_of(const uint64_t *w, int k)
{
	big b;
	memset(&b, 0, sizeof(b));
	memcpy(b.w, w, (size_t)k * sizeof(*w));
	return b;
}

static big big_add(big a, big b)
{
	add_limbs(a.w, BIG_LIMBS, b.w, BIG_LIMBS);
	return a;
}

static big big_neg(big a)
{
	static const uint64_t one[1] = { 1 };
	for (int i = 0; i < BIG_LIMBS; i++)
		a.w[i] = ~a.w[i];
	add_limbs(a.w, BIG_LIMBS, one, 1);
	return a;
}

/* a x b mod 2^512 (the products here stay below 2^384). */
static big big_mul(big a, big b)
{
	big r;
	memset(&r, 0, sizeof(r));
	for (int i = 0; i < BIG_LIMBS; i++) {
		u128 c = 0;
		for (int j = 0; i + j < BIG_LIMBS; j++) {
			c += (u128)a.w[i] * b.w[j] + r.w[i + j];
			r.w[i + j] = (uint64_t)c;
			c >>= 64;
		}
	}
	return r;
}

/* a rounded once to long double: its top 128 bits, the rest as a sticky
 * bit below the rounding position. */
static long double big_to_ld(big a)
{
	const int neg = (int)(a.w[BIG_LIMBS - 1] >> 63);
	if (neg)
		a = big_neg(a);
	int k = BIG_LIMBS - 1;
	while (k > 0 && !a.w[k])
		k--;
	if (k == 0)
		return neg ? -(long double)a.w[0] : (long double)a.w[0];
	const int lz = __builtin_clzll(a.w[k]);
	u128 top = (u128)a.w[k] << 64 | a.w[k - 1];
	uint64_t below = k >= 2 ? a.w[k - 2] : 0;
	int sticky = 0;
	for (int i = 0; i + 2 < k; i++)
		sticky |= a.w[i] != 0;
	if (lz) {
		top = top << lz | below >> (64 - lz);
		below <<= lz;
	}
	if (below || sticky)
		top |= 1;
	const long double r = ldexpl((long double)top, 64 * (k - 1) - lz);
	return neg ? -r : r;
}

/* n S2 - S1^2 = n M2, and n^2 S3 - 3 n S1 S2 + 2 S1^3 = n^2 M3, exactly. */
static void numerators(const latrec_power_sums *ps, big *d2, big *d3)
{
	const big n = big_of(&ps->n, 1), s1 = big_of(ps->s1, 2), s2 = big_of(ps->s2, 3), s3 = big_of(ps->s3, 4);
	const uint64_t k3 = 3, k2 = 2;
	const big s1s1 = big_mul(s1, s1);
	*d2 = big_add(big_mul(n, s2), big_neg(s1s1));
	const big a = big_mul(big_mul(n, n), s3);
	const big b = big_mul(big_mul(big_of(&k3, 1), n), big_mul(s1, s2));
	const big c = big_mul(big_of(&k2, 1), big_mul(s1s1, s1));
	*d3 = big_add(big_add(a, big_neg(b)), c);
}

/* S1 / n: one rounding while S1 < 2^64, else two. */
static long double mean_of(const latrec_power_sums *ps)
{
	if (!ps->s1[1])
		return (long double)ps->s1[0] / (long double)ps->n;
	const u128 s1 = (u128)ps->s1[1] << 64 | ps->s1[0];
	return (long double)(s1 / ps->n) + (long double)(uint64_t)(s1 % ps->n) / (long double)ps->n;
}

void latrec_stats_moments(const latrec_stats *s, latrec_moments *out)
{
	latrec_power_sums ps;
	all_sums(s, &ps);
	memset(out, 0, sizeof(*out));
	if (ps.n == 0)
		return;
	big d2, d3;
	numerators(&ps, &d2, &d3);
	const long double n = (long double)ps.n;
	out->n = ps.n;
	out->mean = mean_of(&ps);
	out->m2 = big_to_ld(d2) / n;
	out->m3 = big_to_ld(d3) / (n * n);
}

int latrec_stats_merge(latrec_stats *dst, const latrec_stats *src)
{
	settled(dst);
	settled(src);
	if (latrec_outliers_merge(&dst->outl, &src->outl) != 0)
		return -1;
	latrec_loghist_merge(&dst->hist, &src->hist);
	latrec_power_sums b;
	all_sums(src, &b);
	dst->sums.n += b.n;
	add_limbs(dst->sums.s1, 2, b.s1, 2);
	add_limbs(dst->sums.s2, 3, b.s2, 3);
	add_limbs(dst->sums.s3, 4, b.s3, 4);
	if (src->negatives) {
		if (dst->negatives == 0 || src->neg_min < dst->neg_min)
			dst->neg_min = src->neg_min;
		dst->negatives += src->negatives;
		dst->neg_sum += src->neg_sum;
	}
	return 0;
}

bool latrec_sum_mean(const latrec_sum *a, double *out)
{
	if (a->n == 0)
		return false;
	const long double n = (long double)a->n;
	if (a->s >= INT64_MIN && a->s <= INT64_MAX) {
		*out = (double)((long double)(int64_t)a->s / n);
		return true;
	}
	const __int128 q = a->s / (__int128)a->n, r = a->s % (__int128)a->n;
	*out = (double)((long double)q + (long double)(int64_t)r / n);
	return true;
}

uint64_t latrec_stats_count(const latrec_stats *s)
{
	return latrec_loghist_count(&settled(s)->hist);
}

bool latrec_stats_min(const latrec_stats *s, int64_t *out)
{
	return latrec_loghist_min(&settled(s)->hist, out);
}

bool latrec_stats_max(const latrec_stats *s, int64_t *out)
{
	return latrec_loghist_max(&settled(s)->hist, out);
}

const latrec_loghist *latrec_stats_hist(const latrec_stats *s)
{
	return &settled(s)->hist;
}

int latrec_stats_fence(latrec_stats *s, latrec_outlier_fence *f)
{
	settled(s);
	return latrec_outliers_fence(&s->outl, f);
}

void latrec_stats_signed_sum(const latrec_stats *s, latrec_sum *out)
{
	latrec_power_sums ps;
	all_sums(s, &ps);
	out->s = (__int128)((u128)ps.s1[1] << 64 | ps.s1[0]) + s->neg_sum;
	out->n = ps.n + s->negatives;
}

bool latrec_stats_mean(const latrec_stats *s, double *out)
{
	latrec_power_sums ps;
	all_sums(s, &ps);
	if (ps.n == 0)
		return false;
	*out = (double)mean_of(&ps);
	return true;
}

bool latrec_stats_stddev(const latrec_stats *s, double *out)
{
	latrec_power_sums ps;
	all_sums(s, &ps);
	if (ps.n < 2)
		return false;
	big d2, d3;
	numerators(&ps, &d2, &d3);
	const long double n = (long double)ps.n;
	/* M2 / (n - 1) = (n M2) / (n (n - 1)); n M2 >= 0 exactly */
	*out = (double)sqrtl(big_to_ld(d2) / (n * (n - 1)));
	return true;
}

bool latrec_stats_skewness(const latrec_stats *s, double *out)
{
	latrec_power_sums ps;
	all_sums(s, &ps);
	if (ps.n < 3)
		return false;
	big d2, d3;
	numerators(&ps, &d2, &d3);
	const long double nm2 = big_to_ld(d2), n = (long double)ps.n;
	if (!(nm2 > 0))
		return false;
	/* g1 = sqrt(n) M3 / M2^1.5 = (n^2 M3) / (n M2)^1.5 */
	long double g1 = big_to_ld(d3) / (nm2 * sqrtl(nm2));
	*out = (double)(sqrtl(n * (n - 1)) / (n - 2) * g1);
	return true;
}

bool latrec_stats_percentile(const latrec_stats *s, double p, int64_t *out)
{
	return latrec_loghist_value_at_percentile(&settled(s)->hist, p, out);
}

bool latrec_stats_percentiles(const latrec_stats *s, const double *p, size_t k, int64_t *out)
{
	return latrec_loghist_percentiles(&settled(s)->hist, p, k, out);
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
	if (latrec_stats_count(s) == 0) /* settles s */
		return false;
	return latrec_outliers_count(&s->outl, &s->hist, out) == 0;
}

void latrec_gaps_init(latrec_gaps *g, latrec_stats *dst)
{
	g->dst = dst;
	g->prev = 0;
	g->have_prev = false;
}
