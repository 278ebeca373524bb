/* A row's distribution for charts: the column's loghist re-binned into
 * log bins, and its values at a fixed set of percentiles. */
#include <math.h>
#include <stdlib.h>

#include "analyze/stats.h"
#include "engine/report_model.h"

/* Percentiles the CDF is drawn through: dense in the tail. */
static const double qs[] = { 0,  1,  5,  10, 20, 25,   30,   40,   50,    60,    70,     75,     80,
                             90, 95, 97, 98, 99, 99.5, 99.8, 99.9, 99.95, 99.99, 99.995, 99.999, 100 };

/* The bin of value v: decade-based edges 10^(k / per) ns; bin 0 is [0, 1). */
static int bin_of(double v, int per)
{
    if (v < 1) return 0;
    return 1 + (int)floor(log10(v) * per + 1e-9);
}

static double edge(int b, int per)
{
    return b <= 0 ? 0 : pow(10.0, (double)(b - 1) / per);
}

/* Bins a decade: about 40 bins over [min, max], 10 to 100 a decade. */
static int per_decade(int64_t mn, int64_t mx)
{
    const double d = log10((double)(mx > 1 ? mx : 1)) - log10((double)(mn > 1 ? mn : 1));
    const int per = d > 0 ? (int)(40 / d) : 100;
    return per < 10 ? 10 : per > 100 ? 100 : per;
}

latrec_report_dist *latrec_report_dist_new(latrec_stats *s, int per)
{
    const latrec_loghist *h = latrec_stats_hist(s);
    const uint64_t total = latrec_loghist_count(h);
    if (!total) return NULL;
    latrec_report_dist *d = calloc(1, sizeof(*d));
    if (!d) return NULL;
    d->count = total;
    int64_t mn = 0, mx = 0;
    latrec_loghist_min(h, &mn);
    latrec_loghist_max(h, &mx);
    if (per <= 0) per = per_decade(mn, mx);
    d->per_decade = per;
    const int b0 = bin_of((double)mn, per), b1 = bin_of((double)mx, per);
    /* 19 decades would not fit: wider bins then (never in practice) */
    const int merge = (b1 - b0) / LATREC_REPORT_DIST_BINS + 1;
    latrec_loghist_iter it;
    latrec_loghist_bucket bk;
    latrec_loghist_iter_init(&it, h);
    int last = -1;
    while (latrec_loghist_iter_next(&it, &bk)) {
        /* a bucket's count goes to the bin of its lower edge (buckets are
         * 0.1 % wide: finer than any bin) */
        const int b = b0 + (bin_of((double)bk.lower, per) - b0) / merge * merge;
        if (b != last) {
            if (d->n_bins == LATREC_REPORT_DIST_BINS) break;
            d->lo_ns[d->n_bins] = edge(b, per);
            d->hi_ns[d->n_bins] = edge(b + merge, per);
            d->n_bins++;
            last = b;
        }
        d->n[d->n_bins - 1] += bk.count;
    }
    for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]) && d->n_q < LATREC_REPORT_DIST_QS; i++) {
        int64_t v;
        if (!latrec_stats_percentile(s, qs[i], &v)) continue;
        d->q[d->n_q] = qs[i];
        d->v_ns[d->n_q++] = (double)v;
    }
    return d;
}
