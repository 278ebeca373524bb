/*
 * engine/figures.h - the figures of one latency column, as report prints them,
 * and the units they print in.
 *
 * A column's figures come from a latrec_stats: count, min, the requested
 * percentiles, max, mean, stddev (all ns), skewness (no unit), outliers and
 * clock regressions (counts). A figure a column cannot give (an empty
 * column, stddev of one sample) is absent: printed "-" in text, empty in
 * CSV, null in JSON, never a sentinel.
 */
#ifndef LATREC_ENGINE_FIGURES_H
#define LATREC_ENGINE_FIGURES_H

#include <stdint.h>

#include "analyze/stats.h"
#include "util/number.h"

#define LATREC_MAX_PCT 16

/* Figure indexes: min, percentiles 0..n_pct-1, max, mean, stddev, skewness. */
enum { FIG_MIN = 0, FIG_PCT0 = 1 };

typedef struct latrec_figures {
    uint64_t count;
    int      n;                       /* figures in v[] */
    int      has[LATREC_MAX_PCT + 6];
    double   v[LATREC_MAX_PCT + 6];   /* ns, skewness unitless */
    uint64_t outliers, outliers_max;  /* max == count when exact */
    int      outliers_known;          /* enough data for the rule */
    uint64_t regressions;
} latrec_figures;

typedef struct latrec_units {
    const char *name;   /* "us" */
    double      div;    /* ns per unit */
    int         decimals;
} latrec_units;

/* "ns", "us", "ms" -> units; -1 when unknown. The names are the table
 * latrec_unit_choices (value 1, us, is the default of report and hist). */
int latrec_units_parse(const char *s, latrec_units *u);
extern const latrec_choice latrec_unit_choices[];
#define LATREC_UNIT_DEFAULT 1

/* Index of max, mean, stddev, skewness for n_pct percentiles. */
static inline int fig_max(int n_pct) { return FIG_PCT0 + n_pct; }
static inline int fig_mean(int n_pct) { return FIG_PCT0 + n_pct + 1; }
static inline int fig_stddev(int n_pct) { return FIG_PCT0 + n_pct + 2; }
static inline int fig_skew(int n_pct) { return FIG_PCT0 + n_pct + 3; }

/* Fill f from s for the percentiles pct[0..n_pct). Not const: the outlier
 * count sorts the column's chunk maxima. */
void latrec_figures_from_stats(latrec_figures *f, latrec_stats *s, const double *pct, int n_pct);

/* Name of figure i ("min", "p99.9", "max", "mean", "stddev", "skewness"). */
const char *latrec_figure_name(int i, const double *pct, int n_pct, char *buf, size_t len);

/* Parse "50,90,99,99.9" into pct (a percentile given twice kept once);
 * returns the count, or -1. */
int latrec_parse_percentiles(const char *s, double *pct, int max);

#endif
