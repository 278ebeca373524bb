/* Figures of a latency column. */
#include "engine/figures.h"

#include "util/number.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --unit's table: the names --help, the man page and the completion list. */
const latrec_choice latrec_unit_choices[] = {
    { "ns", 0, "nanoseconds, no decimals" },
    { "us", 1, "microseconds, 3 decimals" },
    { "ms", 2, "milliseconds, 6 decimals" },
    { NULL, 0, NULL },
};

static const latrec_units unit_table[] = { { "ns", 1.0, 0 }, { "us", 1e3, 3 }, { "ms", 1e6, 6 } };

int latrec_units_parse(const char *s, latrec_units *u)
{
    int v;
    if (latrec_choice_parse(latrec_unit_choices, s, &v) < 0) return -1;
    *u = unit_table[v];
    return 0;
}

void latrec_figures_from_stats(latrec_figures *f, latrec_stats *s, const double *pct, int n_pct)
{
    memset(f, 0, sizeof(*f));
    f->n = fig_skew(n_pct) + 1;
    f->count = latrec_stats_count(s);
    f->regressions = latrec_stats_negatives(s);
    int64_t v;
    double d;
    if ((f->has[FIG_MIN] = latrec_stats_min(s, &v))) f->v[FIG_MIN] = (double)v;
    for (int i = 0; i < n_pct; i++)
        if ((f->has[FIG_PCT0 + i] = latrec_stats_percentile(s, pct[i], &v))) f->v[FIG_PCT0 + i] = (double)v;
    if ((f->has[fig_max(n_pct)] = latrec_stats_max(s, &v))) f->v[fig_max(n_pct)] = (double)v;
    if ((f->has[fig_mean(n_pct)] = latrec_stats_mean(s, &d))) f->v[fig_mean(n_pct)] = d;
    if ((f->has[fig_stddev(n_pct)] = latrec_stats_stddev(s, &d))) f->v[fig_stddev(n_pct)] = d;
    if ((f->has[fig_skew(n_pct)] = latrec_stats_skewness(s, &d))) f->v[fig_skew(n_pct)] = d;
    latrec_outlier_count oc;
    if (latrec_stats_outliers(s, &oc)) {
        f->outliers_known = oc.fence.enough_data;
        f->outliers = oc.count;
        f->outliers_max = oc.count_max;
    }
}

const char *latrec_figure_name(int i, const double *pct, int n_pct, char *buf, size_t len)
{
    if (i == FIG_MIN) return "min";
    if (i >= FIG_PCT0 && i < FIG_PCT0 + n_pct) {
        if (len) buf[0] = 'p';
        if (len > 1) latrec_number_format(pct[i - FIG_PCT0], buf + 1, len - 1);
        return buf;
    }
    if (i == fig_max(n_pct)) return "max";
    if (i == fig_mean(n_pct)) return "mean";
    if (i == fig_stddev(n_pct)) return "stddev";
    return "skewness";
}

int latrec_parse_percentiles(const char *s, double *pct, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        /* One number of util/number.h's grammar (no nan, inf, sign or exponent). */
        char item[32];
        size_t len = strcspn(p, ",");
        if (len >= sizeof(item) || n == max) return -1;
        memcpy(item, p, len);
        item[len] = '\0';
        if (item[0] == '-' || latrec_number_parse(item, 0, 100, &pct[n]) < 0) return -1;
        /* a percentile given twice is one column (a CSV or JSON name is unique) */
        int seen = 0;
        for (int k = 0; k < n; k++) seen |= pct[k] == pct[n];
        n += !seen;
        p += len;
        if (*p == ',') p++;
    }
    return n ? n : -1;
}
