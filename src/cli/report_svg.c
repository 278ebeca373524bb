/* Inline SVG charts of the HTML report (see report_svg.h). */
#include "cli/report_svg.h"

#include <math.h>
#include <string.h>

#define W 460.0
#define H 230.0
#define ML 58.0 /* margins: room for tick labels */
#define MR 14.0
#define MT 12.0
#define MB 34.0

static const char *const colour[2] = { "#2563eb", "#ea580c" }; /* run, baseline */
static const char *const who[2] = { "run", "baseline" };

void latrec_html_text(FILE *out, const char *s)
{
    for (; s && *s; s++) switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
}

/* "12.3 us": ns in the unit that reads best. */
static void human(char *buf, size_t len, double ns)
{
    if (ns < 1e3) snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6) snprintf(buf, len, "%.3g us", ns / 1e3);
    else if (ns < 1e9) snprintf(buf, len, "%.3g ms", ns / 1e6);
    else snprintf(buf, len, "%.3g s", ns / 1e9);
}

typedef struct axis {
    double lo, hi;
    int log;
    double p0, p1; /* pixels */
} axis;

static double px(const axis *a, double v)
{
    double f;
    if (a->log) {
        const double l = log10(a->lo > 0 ? a->lo : 1), h = log10(a->hi > 0 ? a->hi : 1);
        f = h > l ? (log10(v > a->lo ? v : a->lo) - l) / (h - l) : 0.5;
    } else {
        f = a->hi > a->lo ? (v - a->lo) / (a->hi - a->lo) : 0.5;
    }
    return a->p0 + f * (a->p1 - a->p0);
}

static void begin(FILE *out, const char *kind, int series, const char *label)
{
    fprintf(out,
            "<svg class=\"chart\" data-chart=\"%s\" data-series=\"%d\" viewBox=\"0 0 %.0f %.0f\" "
            "width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"",
            kind, series, W, H, W, H);
    latrec_html_text(out, label);
    fprintf(out, "\"><rect class=\"frame\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>\n", ML, MT,
            W - ML - MR, H - MT - MB);
}

/* Ticks on a log time axis (x): decades, and 2 and 5 between them when
 * the axis spans less than three decades. */
static void log_ticks_x(FILE *out, const axis *a)
{
    const int fine = a->hi < a->lo * 1000;
    for (double d = pow(10, floor(log10(a->lo > 1 ? a->lo : 1))); d <= a->hi * 1.0001; d *= 10)
        for (int k = 0; k < 3; k++) {
            const double v = d * (k == 0 ? 1 : k == 1 ? 2 : 5);
            if ((k && !fine) || v < a->lo * 0.9999 || v > a->hi * 1.0001) continue;
            char b[32];
            human(b, sizeof(b), v);
            const double x = px(a, v);
            fprintf(out,
                    "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\"/>"
                    "<text class=\"tick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
                    x, x, MT, H - MB, x, H - MB + 14, b);
        }
}

static void y_label(FILE *out, double y, const char *text)
{
    fprintf(out,
            "<text class=\"tick\" x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>"
            "<line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
            ML - 4, y + 3, text, ML, W - MR, y, y);
}

static void x_title(FILE *out, const char *t)
{
    fprintf(out, "<text class=\"title\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n", (ML + W - MR) / 2,
            H - 4, t);
}

static void legend(FILE *out, int n)
{
    for (int s = 0; s < n && n > 1; s++)
        fprintf(out,
                "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/><text class=\"tick\" "
                "x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                W - MR - 150 + 75 * s, MT + 4, colour[s], W - MR - 136 + 75 * s, MT + 13, who[s]);
}

void latrec_svg_hist(FILE *out, const latrec_report_dist *run, const latrec_report_dist *base)
{
    const latrec_report_dist *d[2] = { run, base };
    const int n = base ? 2 : 1;
    axis x = { 1e300, 0, 1, ML, W - MR }, y = { 0, 0, 0, H - MB, MT };
    for (int s = 0; s < n; s++)
        for (int i = 0; i < d[s]->n_bins; i++) {
            if (d[s]->lo_ns[i] < x.lo) x.lo = d[s]->lo_ns[i] > 0 ? d[s]->lo_ns[i] : 1;
            if (d[s]->hi_ns[i] > x.hi) x.hi = d[s]->hi_ns[i];
            const double f = (double)d[s]->n[i] / (double)d[s]->count;
            if (f > y.hi) y.hi = f;
        }
    y.hi *= 1.08;
    begin(out, "hist", n, "latency histogram");
    log_ticks_x(out, &x);
    for (int k = 1; k <= 4; k++) {
        char b[16];
        snprintf(b, sizeof(b), "%.3g%%", y.hi * k / 4 * 100);
        y_label(out, px(&y, y.hi * k / 4), b);
    }
    x_title(out, "latency (log scale); bars: share of instances");
    for (int s = 0; s < n; s++) {
        fprintf(out, "<g class=\"series\" data-name=\"%s\" data-points=\"%d\" fill=\"%s\" fill-opacity=\"%s\">\n",
                who[s], d[s]->n_bins, colour[s], n > 1 ? "0.55" : "0.85");
        for (int i = 0; i < d[s]->n_bins; i++) {
            const double x0 = px(&x, d[s]->lo_ns[i] > 0 ? d[s]->lo_ns[i] : x.lo), x1 = px(&x, d[s]->hi_ns[i]);
            const double f = (double)d[s]->n[i] / (double)d[s]->count, y0 = px(&y, f);
            char a[32], b[32];
            human(a, sizeof(a), d[s]->lo_ns[i]);
            human(b, sizeof(b), d[s]->hi_ns[i]);
            fprintf(out,
                    "<rect data-count=\"%llu\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"><title>%s: "
                    "%s to %s: %llu (%.2f%%)</title></rect>\n",
                    (unsigned long long)d[s]->n[i], x0, y0, x1 - x0 > 0.6 ? x1 - x0 - 0.3 : 0.3, (H - MB) - y0, who[s],
                    a, b, (unsigned long long)d[s]->n[i], f * 100);
        }
        fputs("</g>\n", out);
    }
    legend(out, n);
    fputs("</svg>\n", out);
}

/* The "nines" of percentile p: 0 at p0, 1 at p90, 2 at p99; p100 is drawn
 * half a nine above the highest other point. */
static double nines(double p, double top)
{
    return p >= 100 ? top : -log10(1 - p / 100);
}

void latrec_svg_cdf(FILE *out, const latrec_report_dist *run, const latrec_report_dist *base)
{
    const latrec_report_dist *d[2] = { run, base };
    const int n = base ? 2 : 1;
    axis x = { 1e300, 0, 1, ML, W - MR }, y = { 0, 0, 0, H - MB, MT };
    double top = 1;
    for (int s = 0; s < n; s++)
        for (int i = 0; i < d[s]->n_q; i++) {
            const double v = d[s]->v_ns[i] > 0 ? d[s]->v_ns[i] : 1;
            if (v < x.lo) x.lo = v;
            if (v > x.hi) x.hi = v;
            if (d[s]->q[i] < 100 && nines(d[s]->q[i], 0) > top) top = nines(d[s]->q[i], 0);
        }
    if (x.hi <= x.lo) x.hi = x.lo * 10;
    top += 0.5;
    y.hi = top;
    begin(out, "cdf", n, "percentiles");
    log_ticks_x(out, &x);
    static const char *const lab[] = { "0%", "90%", "99%", "99.9%", "99.99%", "99.999%" };
    for (int k = 0; k < 6 && k < top; k++) y_label(out, px(&y, k), lab[k]);
    y_label(out, px(&y, top), "max");
    x_title(out, "latency (log scale) at each percentile");
    for (int s = 0; s < n; s++) {
        fprintf(out,
                "<g class=\"series\" data-name=\"%s\" data-points=\"%d\" stroke=\"%s\" fill=\"%s\">\n<polyline "
                "fill=\"none\" stroke-width=\"1.8\" points=\"",
                who[s], d[s]->n_q, colour[s], colour[s]);
        for (int i = 0; i < d[s]->n_q; i++)
            fprintf(out, "%.2f,%.2f ", px(&x, d[s]->v_ns[i] > 0 ? d[s]->v_ns[i] : 1), px(&y, nines(d[s]->q[i], top)));
        fputs("\"/>\n", out);
        for (int i = 0; i < d[s]->n_q; i++) {
            char b[32];
            human(b, sizeof(b), d[s]->v_ns[i]);
            fprintf(out,
                    "<circle data-p=\"%g\" data-ns=\"%.0f\" cx=\"%.2f\" cy=\"%.2f\" r=\"2.4\"><title>%s p%g: "
                    "%s</title></circle>\n",
                    d[s]->q[i], d[s]->v_ns[i], px(&x, d[s]->v_ns[i] > 0 ? d[s]->v_ns[i] : 1),
                    px(&y, nines(d[s]->q[i], top)), who[s], d[s]->q[i], b);
        }
        fputs("</g>\n", out);
    }
    legend(out, n);
    fputs("</svg>\n", out);
}

/* One line of the time series: p50 or p99 of the run's or the baseline's
 * intervals of one table. */
typedef struct line {
    const latrec_report_interval *iv;
    size_t n;
    int p99;
    const char *name, *colour, *dash;
} line;

static int line_has(const line *l, const latrec_report_interval *iv, int table)
{
    return iv->table == table && (l->p99 ? iv->has_p99 : iv->has_p50);
}

static double line_v(const line *l, const latrec_report_interval *iv)
{
    return (double)(l->p99 ? iv->p99 : iv->p50);
}

static void draw_line(FILE *out, const latrec_report *m, const line *l, int table, const axis *x, const axis *y)
{
    int n = 0;
    for (size_t k = 0; k < l->n; k++) n += line_has(l, &l->iv[k], table);
    fprintf(out,
            "<g class=\"series\" data-name=\"%s\" data-points=\"%d\" stroke=\"%s\" fill=\"%s\">\n<polyline "
            "fill=\"none\" stroke-width=\"1.5\" stroke-dasharray=\"%s\" points=\"",
            l->name, n, l->colour, l->colour, l->dash);
    for (size_t k = 0; k < l->n; k++)
        if (line_has(l, &l->iv[k], table))
            fprintf(out, "%.2f,%.2f ", px(x, (double)l->iv[k].idx * (double)m->interval_ns / 1e9),
                    px(y, line_v(l, &l->iv[k])));
    fputs("\"/>\n", out);
    for (size_t k = 0; k < l->n; k++) {
        const latrec_report_interval *iv = &l->iv[k];
        if (!line_has(l, iv, table)) continue;
        const double t = (double)iv->idx * (double)m->interval_ns / 1e9, v = line_v(l, iv);
        char b[32];
        human(b, sizeof(b), v);
        fprintf(out,
                "<circle data-t=\"%.6f\" data-ns=\"%.0f\" cx=\"%.2f\" cy=\"%.2f\" r=\"1.8\"><title>%.3f s: "
                "%s %s (%llu instances)</title></circle>\n",
                t, v, px(x, t), px(y, v), t, l->name, b, (unsigned long long)iv->count);
    }
    fputs("</g>\n", out);
}

void latrec_svg_series(FILE *out, const latrec_report *m, int table)
{
    line lines[4] = {
        { m->intervals, m->n_intervals, 0, "p50", "#16a34a", "none" },
        { m->intervals, m->n_intervals, 1, "p99", "#dc2626", "none" },
        { m->base_intervals, m->n_base_intervals, 0, "baseline p50", "#86efac", "4 2" },
        { m->base_intervals, m->n_base_intervals, 1, "baseline p99", "#fca5a5", "4 2" },
    };
    const int n_lines = m->n_base_intervals ? 4 : 2;
    /* y on a log scale: a p50 of microseconds and a p99 of milliseconds
     * both stay readable */
    axis x = { 0, 0, 0, ML, W - MR }, y = { 1e300, 0, 1, H - MB, MT };
    for (int s = 0; s < n_lines; s++)
        for (size_t k = 0; k < lines[s].n; k++) {
            const latrec_report_interval *iv = &lines[s].iv[k];
            if (!line_has(&lines[s], iv, table)) continue;
            const double t = (double)(iv->idx + 1) * (double)m->interval_ns / 1e9, v = line_v(&lines[s], iv);
            if (t > x.hi) x.hi = t;
            if ((v > 1 ? v : 1) > y.hi) y.hi = v > 1 ? v : 1;
            if ((v > 1 ? v : 1) < y.lo) y.lo = v > 1 ? v : 1;
        }
    if (y.hi <= 0) y.lo = 1, y.hi = 10;
    y.lo /= 1.3;
    y.hi *= 1.3;
    begin(out, "series", n_lines, "p50 and p99 over time");
    const int fine = y.hi < y.lo * 1000;
    for (double d = pow(10, floor(log10(y.lo))); d <= y.hi; d *= 10)
        for (int k = 0; k < 3; k++) {
            const double v = d * (k == 0 ? 1 : k == 1 ? 2 : 5);
            if ((k && !fine) || v < y.lo || v > y.hi) continue;
            char b[32];
            human(b, sizeof(b), v);
            y_label(out, px(&y, v), b);
        }
    for (int k = 0; k <= 4; k++)
        fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.3g s</text>\n",
                px(&x, x.hi * k / 4), H - MB + 14, x.hi * k / 4);
    x_title(out, "time from the run's beginning (interval start); latency on a log scale");
    for (int s = 0; s < n_lines; s++) draw_line(out, m, &lines[s], table, &x, &y);
    static const char *const label[4] = { "p50", "p99", "base p50", "base p99" };
    for (int s = 0; s < n_lines; s++) {
        const double lx = W - MR - 68.0 * n_lines + 68.0 * s;
        fprintf(out,
                "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/><text class=\"tick\" "
                "x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                lx, MT + 4, lines[s].colour, lx + 14, MT + 13, label[s]);
    }
    fputs("</svg>\n", out);
}

#define WW 940.0 /* the waterfall spans the page */

static const char *const seg_colour[] = { "#2563eb", "#0891b2", "#7c3aed", "#db2777", "#ca8a04",
                                          "#059669", "#4f46e5", "#ea580c", "#0d9488", "#9333ea" };

/* The mean of a row (run or baseline), negative values included (they are
 * part of the total); the figures' mean without them when that is all
 * there is; -1 when none. */
static double mean_of(const latrec_report *m, const latrec_report_row *r, int base)
{
    const latrec_figures *f = base ? &r->base : &r->fig;
    const int has = base ? r->has_base_signed_mean : r->has_signed_mean;
    const double sm = base ? r->base_signed_mean : r->signed_mean;
    if (has) return sm > 0 ? sm : 0;
    if (base && !r->has_base) return -1;
    const int i = fig_mean(m->n_pct);
    return i < f->n && f->has[i] && f->v[i] >= 0 ? f->v[i] : -1;
}

static void split_bar(FILE *out, const latrec_report_row *r, double x0, double x1, double y)
{
    const latrec_report_split *sp = &r->split;
    const double v[4] = { sp->on_cpu, sp->runq, sp->blocked, sp->unknown };
    static const char *const name[4] = { "on CPU", "runqueue", "blocked", "unknown" };
    static const char *const col[4] = { "#16a34a", "#f97316", "#64748b", "#cbd5e1" };
    const double sum = v[0] + v[1] + v[2] + v[3];
    if (!r->has_split || !sp->n || sum <= 0) return;
    double at = x0;
    for (int k = 0; k < 4; k++) {
        const double w = (x1 - x0) * v[k] / sum;
        char b[32];
        human(b, sizeof(b), v[k]);
        if (w > 0)
            fprintf(out,
                    "<rect class=\"split\" data-state=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"9\" "
                    "fill=\"%s\"><title>",
                    name[k], at, y, w, col[k]);
        if (w > 0) latrec_html_text(out, r->name);
        if (w > 0) fprintf(out, ": %s %s per instance (%.1f%%)</title></rect>\n", b, name[k], 100 * v[k] / sum);
        at += w;
    }
}

void latrec_svg_waterfall(FILE *out, const latrec_report *m, const latrec_report_table *t)
{
    const int n = m->has_baseline ? 2 : 1;
    axis x = { 0, 0, 0, 78, WW - MR };
    int pts[2] = { 0, 0 };
    for (int s = 0; s < n; s++) {
        double sum = 0;
        for (int i = 0; i < t->n_rows; i++)
            if (t->rows[i].in_sum && mean_of(m, &t->rows[i], s) >= 0) sum += mean_of(m, &t->rows[i], s), pts[s]++;
        if (sum > x.hi) x.hi = sum;
    }
    if (x.hi <= 0) x.hi = 1;
    const double hh = MT + n * 48 + 40;
    fprintf(out,
            "<svg class=\"chart\" data-chart=\"waterfall\" data-series=\"%d\" viewBox=\"0 0 %.0f %.0f\" "
            "width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"mean time per segment\">\n",
            n, WW, hh, WW, hh);
    for (int k = 0; k <= 4; k++) {
        char b[32];
        human(b, sizeof(b), x.hi * k / 4);
        fprintf(out,
                "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\"/><text class=\"tick\" "
                "x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
                px(&x, x.hi * k / 4), px(&x, x.hi * k / 4), MT, MT + n * 48, px(&x, x.hi * k / 4), MT + n * 48 + 14, b);
    }
    for (int s = 0; s < n; s++) {
        const double y = MT + s * 48 + 4;
        fprintf(out, "<text class=\"tick\" x=\"4\" y=\"%.0f\">%s</text>\n", y + 15, who[s]);
        fprintf(out, "<g class=\"series\" data-name=\"%s\" data-points=\"%d\">\n", who[s], pts[s]);
        double at = 0;
        for (int i = 0, c = 0; i < t->n_rows; i++) {
            const latrec_report_row *r = &t->rows[i];
            const double v = r->in_sum ? mean_of(m, r, s) : -1;
            if (v < 0) continue;
            const double x0 = px(&x, at), x1 = px(&x, at + v);
            char b[32];
            human(b, sizeof(b), v);
            fprintf(out,
                    "<rect data-ns=\"%.1f\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"22\" fill=\"%s\" "
                    "stroke=\"#fff\" stroke-width=\"0.6\"><title>",
                    v, x0, y, x1 - x0, seg_colour[c++ % 10]);
            latrec_html_text(out, r->name);
            if (r->where && r->where[0]) fputs(" (", out), latrec_html_text(out, r->where), fputs(")", out);
            fprintf(out, ": mean %s</title></rect>\n", b);
            if (x1 - x0 > 7.0 * (double)strlen(r->name)) {
                fprintf(out, "<text class=\"seg\" x=\"%.1f\" y=\"%.1f\">", x0 + 3, y + 15);
                latrec_html_text(out, r->name);
                fputs("</text>\n", out);
            }
            if (s == 0) split_bar(out, r, x0, x1, y + 25);
            at += v;
        }
        fputs("</g>\n", out);
    }
    static const char *const name[4] = { "on CPU", "runqueue", "blocked", "unknown" };
    static const char *const col[4] = { "#16a34a", "#f97316", "#64748b", "#cbd5e1" };
    if (m->hdr.sched)
        for (int k = 0; k < 4; k++)
            fprintf(out,
                    "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/><text class=\"tick\" "
                    "x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                    78 + 110.0 * k, hh - 14, col[k], 92 + 110.0 * k, hh - 5, name[k]);
    fputs("</svg>\n", out);
}
