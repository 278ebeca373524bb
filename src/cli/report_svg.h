/*
 * cli/report_svg.h - the charts of the HTML report as inline SVG (no
 * script, no library: the page opens offline and stays fast with 100 tables,
 * since every chart is drawn from pre-binned data of the model).
 *
 * Every chart is <svg class="chart" data-chart=KIND data-series=N> holding
 * N <g class="series" data-name=... data-points=P> with P marks each (rect
 * or circle, one per bin, percentile, interval or segment), so a test can
 * count them; a mark's <title> is its tooltip. KIND is:
 *   hist       latency histogram, log x, share of instances per bin (marks
 *              carry data-count)
 *   cdf        percentile plot: log x, y in "nines" (-log10(1 - p)), marks
 *              carry data-p and data-ns
 *   series     p50 and p99 of the total per interval (marks data-t, data-ns);
 *              with a baseline also its p50 and p99 (dashed), on the same
 *              interval from its own beginning: 4 series
 *   waterfall  mean time per segment, stacked, one bar per run; each
 *              segment split below into on-CPU, runqueue, blocked, unknown
 * With a baseline, hist, cdf and waterfall get a second series.
 */
#ifndef LATREC_CLI_REPORT_SVG_H
#define LATREC_CLI_REPORT_SVG_H

#include <stdio.h>

#include "cli/report_format.h"

/* Write s HTML-escaped. */
void latrec_html_text(FILE *out, const char *s);

void latrec_svg_hist(FILE *out, const latrec_report_dist *run, const latrec_report_dist *base);
void latrec_svg_cdf(FILE *out, const latrec_report_dist *run, const latrec_report_dist *base);
/* The intervals of table `table` (m->intervals). */
void latrec_svg_series(FILE *out, const latrec_report *m, int table);
/* The rows with in_sum of t. */
void latrec_svg_waterfall(FILE *out, const latrec_report *m, const latrec_report_table *t);

#endif
