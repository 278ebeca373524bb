/* latrec report --format html: one self-contained page (inline CSS and SVG,
 * no script, no request: a Content-Security-Policy of default-src 'none'),
 * per table the figures, a histogram, a percentile plot, p50/p99 over time,
 * the waterfall of its segments with the scheduler's split, and the slowest
 * instances explained. Charts: report_svg.c. */
#include <stdio.h>
#include <string.h>

#include "cli/report_format.h"
#include "cli/report_svg.h"

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:980px;padding:0 16px 40px;color:#111}"
    "h1{font-size:22px;margin:18px 0 6px}h2{font-size:17px;margin:28px 0 4px;border-top:1px solid #ddd;"
    "padding-top:14px}table{border-collapse:collapse;margin:6px 0}td,th{padding:2px 8px;text-align:right;"
    "border-bottom:1px solid #eee;white-space:nowrap}th{background:#f4f4f5}td:first-child,th:first-child{"
    "text-align:left}table.hdr td{text-align:left;white-space:normal}table.hdr td:first-child{color:#555}"
    ".charts{display:flex;flex-wrap:wrap;gap:6px}svg.chart{background:#fff}.frame{fill:none;stroke:#999}"
    ".grid{stroke:#e5e7eb}.tick{font-size:10px;fill:#444}.title{font-size:11px;fill:#333}.seg{font-size:10px;"
    "fill:#fff;pointer-events:none}.why{white-space:normal;text-align:left;font-size:13px}.note{color:#555;"
    "font-size:12px}.wide{overflow-x:auto}table.figs{font-size:12px}nav "
    "ul{columns:3;font-size:13px;padding-left:18px}.worse{color:#b91c1c}.better{color:#15803d}";

static void hdr_row(FILE *out, const char *k, const char *v)
{
    fprintf(out, "<tr><td>%s</td><td>", k);
    latrec_html_text(out, v);
    fputs("</td></tr>\n", out);
}

static void header_html(const latrec_report *m, FILE *out)
{
    const latrec_report_header *h = &m->hdr;
    const latrec_input_totals *t = &h->totals;
    char b[512];
    fputs("<header><h1>latrec report</h1><table class=\"hdr\">\n", out);
    if (h->command && h->command[0]) hdr_row(out, "command", h->command);
    snprintf(b, sizeof(b), "%.3f s%s", h->duration_s, h->have_run ? "" : " (first to last record)");
    hdr_row(out, "duration", b);
    snprintf(b, sizeof(b), "%zu (%zu skipped, %zu wrapped%s)", t->rings, t->rejected, t->wrapped,
             t->multi_writer ? ", some not single-writer" : "");
    hdr_row(out, "rings", b);
    snprintf(b, sizeof(b), "%llu; lost %llu%s; dropped before start %llu", (unsigned long long)h->records,
             (unsigned long long)t->lost, t->lost_lower_bound ? " (at least)" : "", (unsigned long long)t->dropped);
    hdr_row(out, "records", b);
    if (h->exit_note) hdr_row(out, "target", h->exit_note);
    if (h->sched) snprintf(b, sizeof(b), "%llu events from %s", (unsigned long long)h->sched_events, h->sched_ring);
    else snprintf(b, sizeof(b), "n/a (%s)", h->sched_reason ? h->sched_reason : "");
    hdr_row(out, "scheduler", b);
    hdr_row(out, "catalog", h->catalog_note);
    if (h->horizon_note) hdr_row(out, "leg horizon", h->horizon_note);
    if (m->has_baseline) hdr_row(out, "baseline", m->baseline_dir ? m->baseline_dir : "yes");
    if (m->interval_ns) {
        snprintf(b, sizeof(b), "%.6g ms", (double)m->interval_ns / 1e6);
        hdr_row(out, "interval", b);
    }
    fputs("</table>\n<p class=\"note\">Charts are inline SVG drawn by latrec from pre-binned figures (log bins of "
          "the histogram, a fixed set of percentiles, one point per interval): the page needs no script and no "
          "network. Hover a mark for its value.</p></header>\n",
          out);
}

/* A figure cell, with the change from the baseline when there is one. */
static void cell(FILE *out, const latrec_report *m, const latrec_report_row *r, int i)
{
    char v[64], d[96];
    if (!r->fig.has[i]) {
        fputs("<td>-</td>", out);
        return;
    }
    latrec_report_fmt_value(v, sizeof(v), r->fig.v[i], latrec_report_is_time(m, i), &m->units);
    fprintf(out, "<td>%s", v);
    if (r->has_base && r->base.has[i]) {
        latrec_report_fmt_delta(d, sizeof(d), r->fig.v[i], r->base.v[i], latrec_report_is_time(m, i), &m->units);
        fprintf(out, " <span class=\"%s\">%s</span>", r->fig.v[i] > r->base.v[i] ? "worse" : "better", d);
    }
    fputs("</td>", out);
}

static void figures_html(const latrec_report *m, const latrec_report_table *t, FILE *out)
{
    char buf[32];
    fprintf(out, "<div class=\"wide\"><table class=\"figs\"><tr><th>%s</th><th>count</th>", t->row_word);
    for (int i = 0; i <= fig_mean(m->n_pct); i++)
        fprintf(out, "<th>%s_%s</th>", latrec_figure_name(i, m->pct, m->n_pct, buf, sizeof(buf)), m->units.name);
    fputs("</tr>\n", out);
    for (int h = 0; h < t->n_rows; h++) {
        const latrec_report_row *r = &t->rows[h];
        fputs("<tr><td>", out);
        latrec_html_text(out, r->name);
        fprintf(out, "</td><td>%llu</td>", (unsigned long long)r->fig.count);
        for (int i = 0; i <= fig_mean(m->n_pct) && i < r->fig.n; i++) cell(out, m, r, i);
        fputs("</tr>\n", out);
    }
    fputs("</table></div>\n", out);
}

static void top_html(const latrec_report *m, const latrec_report_table *t, FILE *out)
{
    const char *rank = t->rows[t->rank_row].name;
    fputs("<h3>slowest by ", out);
    latrec_html_text(out, rank);
    fprintf(out,
            "</h3>\n<table class=\"top\" data-rows=\"%d\"><tr><th>#</th><th>seq</th><th>process</th>"
            "<th>start_s</th><th>%s_%s</th><th>why</th></tr>\n",
            t->n_top, "value", m->units.name);
    for (int k = 0; k < t->n_top; k++) {
        const latrec_report_instance *e = &t->top[k];
        const latrec_report_why *w = &e->why;
        char v[48], hv[48];
        latrec_report_fmt_value(v, sizeof(v), (double)e->value[t->rank_row], 1, &m->units);
        fprintf(out, "<tr><td>%d</td><td>%llu</td><td>", k + 1, (unsigned long long)e->seq);
        latrec_html_text(out, e->process);
        fprintf(out, "</td><td>%.6f</td><td>%s</td><td class=\"why\">", (double)e->start_ns / 1e9, v);
        if (w->why_b) {
            latrec_report_fmt_value(hv, sizeof(hv), (double)w->value, 1, &m->units);
            latrec_html_text(out, t->rows[w->row].name);
            fprintf(out, " took %s %s", hv, m->units.name);
            if (w->has_share) fprintf(out, " (%.0f%% of it)", w->share_pct);
            fprintf(out, ". Thread %u: ", w->tid_b);
            latrec_html_text(out, w->why_b);
            if (w->why_a) {
                fprintf(out, ". Thread %u (first stage): ", w->tid_a);
                latrec_html_text(out, w->why_a);
            }
            fputs(".", out);
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

static int has_intervals(const latrec_report *m, int table)
{
    for (size_t k = 0; k < m->n_intervals; k++)
        if (m->intervals[k].table == table) return 1;
    return 0;
}

static void table_html(const latrec_report *m, int i, FILE *out)
{
    const latrec_report_table *t = &m->tables[i];
    const int path = t->kind == LATREC_TABLE_PATH;
    fprintf(out, "<section class=\"table\" id=\"t%d\" data-kind=\"%s\" data-name=\"", i, path ? "path" : "leg");
    if (!path) latrec_html_text(out, t->component), fputc('/', out);
    latrec_html_text(out, t->name);
    fputs("\">\n<h2>", out);
    if (!path) latrec_html_text(out, t->component), fputc('/', out);
    latrec_html_text(out, t->name);
    fprintf(out, "%s</h2>\n<p>instances: %llu, complete: %llu", path ? " (path)" : "", (unsigned long long)t->instances,
            (unsigned long long)t->complete);
    if (path) fprintf(out, ", incomplete: %llu", (unsigned long long)t->incomplete);
    fputs("</p>\n", out);
    figures_html(m, t, out);
    const latrec_report_row *rr = t->rank_row >= 0 ? &t->rows[t->rank_row] : NULL;
    fputs("<div class=\"charts\">\n", out);
    if (rr && rr->dist) {
        latrec_svg_hist(out, rr->dist, rr->base_dist);
        latrec_svg_cdf(out, rr->dist, rr->base_dist);
    }
    if (has_intervals(m, i)) latrec_svg_series(out, m, i);
    fputs("</div>\n", out);
    if (rr && rr->dist) {
        fputs("<p class=\"note\">Histogram and percentiles of ", out);
        latrec_html_text(out, rr->name);
        fputs(path ? "; over time: the complete instances' total.</p>\n" : ".</p>\n", out);
    }
    int parts = 0;
    for (int h = 0; h < t->n_rows; h++) parts += t->rows[h].in_sum;
    if (parts) {
        fprintf(out, "<h3>mean time per %s</h3>\n", path ? "segment" : "hop");
        latrec_svg_waterfall(out, m, t);
    }
    if (t->n_top && t->rank_row >= 0) top_html(m, t, out);
    fputs("</section>\n", out);
}

void latrec_report_write_html(const latrec_report *m, FILE *out)
{
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
                 "'unsafe-inline'\">\n<meta name=\"viewport\" content=\"width=device-width\">\n"
                 "<meta name=\"generator\" content=\"latrec report --format html\">\n<title>latrec report");
    if (m->hdr.command && m->hdr.command[0]) fputs(": ", out), latrec_html_text(out, m->hdr.command);
    fprintf(out, "</title>\n<style>%s</style></head><body>\n", style);
    header_html(m, out);
    if (!m->n_tables) fputs("<p>no leg instances</p>\n", out);
    fputs("<nav><ul>\n", out);
    for (int i = 0; i < m->n_tables; i++) {
        const latrec_report_table *t = &m->tables[i];
        fprintf(out, "<li><a href=\"#t%d\">", i);
        if (t->kind != LATREC_TABLE_PATH) latrec_html_text(out, t->component), fputc('/', out);
        latrec_html_text(out, t->name);
        fputs("</a></li>\n", out);
    }
    fputs("</ul></nav>\n", out);
    for (int i = 0; i < m->n_tables; i++) table_html(m, i, out);
    fputs("</body></html>\n", out);
}
