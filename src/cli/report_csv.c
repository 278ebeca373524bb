/* latrec report --format csv: one row per table row (hop, inter-arrival),
 * or with --interval one row per interval, or with --top one row per slowest
 * instance and hop. Fields with a comma, quote or line break are quoted. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/report_format.h"

static void csv_quoted(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void figure_header(FILE *out, const latrec_report *m, const char *prefix)
{
    char buf[32];
    fprintf(out, ",%scount", prefix);
    for (int i = 0; i < fig_skew(m->n_pct) + 1; i++) {
        const char *fn = latrec_figure_name(i, m->pct, m->n_pct, buf, sizeof(buf));
        if (latrec_report_is_time(m, i)) fprintf(out, ",%s%s_%s", prefix, fn, m->units.name);
        else fprintf(out, ",%s%s", prefix, fn);
    }
    fprintf(out, ",%soutliers,%sregressions", prefix, prefix);
}

static void figures(FILE *out, const latrec_report *m, const latrec_figures *f)
{
    char buf[64];
    fprintf(out, ",%llu", (unsigned long long)f->count);
    for (int i = 0; i < f->n; i++) {
        if (f->has[i]) latrec_report_fmt_value(buf, sizeof(buf), f->v[i], latrec_report_is_time(m, i), &m->units);
        else buf[0] = '\0';
        fprintf(out, ",%s", buf);
    }
    if (f->count && f->outliers_known) fprintf(out, ",%llu", (unsigned long long)f->outliers);
    else fprintf(out, ",");
    fprintf(out, ",%llu", (unsigned long long)f->regressions);
}

static void deltas(FILE *out, const latrec_report *m, const latrec_figures *f, const latrec_figures *b)
{
    char buf[64];
    for (int i = 0; i < f->n; i++) {
        if (b && f->has[i] && b->has[i]) {
            latrec_report_fmt_value(buf, sizeof(buf), f->v[i] - b->v[i], latrec_report_is_time(m, i), &m->units);
            fprintf(out, ",%s", buf);
            if (b->v[i] != 0) fprintf(out, ",%.3f", (f->v[i] - b->v[i]) / fabs(b->v[i]) * 100.0);
            else fprintf(out, ",");
        } else {
            fprintf(out, ",,");
        }
    }
}

/* The scheduler columns of a row: empty without scheduler data (and on the
 * inter-arrival row). */
static void split(FILE *out, const latrec_report *m, const latrec_report_row *row)
{
    if (!row->has_split) {
        fputs(",,,,,,,", out); /* seven empty columns */
        return;
    }
    const latrec_report_split *s = &row->split;
    fprintf(out, ",%llu", (unsigned long long)s->n);
    const double means[4] = { s->on_cpu, s->runq, s->blocked, s->unknown };
    for (int i = 0; i < 4; i++) {
        if (s->n) fprintf(out, ",%.*f", m->units.decimals, means[i] / m->units.div);
        else fprintf(out, ",");
    }
    fprintf(out, ",%llu,%llu", (unsigned long long)s->preemptions, (unsigned long long)s->migrations);
}

static void intervals_csv(const latrec_report *m, FILE *out)
{
    char buf[64];
    fprintf(out, "start_s,component,leg,count,rate_per_s,p50_%s,p99_%s,bytes\n", m->units.name, m->units.name);
    for (size_t k = 0; k < m->n_intervals; k++) {
        const latrec_report_interval *iv = &m->intervals[k];
        const latrec_report_table *t = &m->tables[iv->table];
        fprintf(out, "%.3f,", (double)iv->idx * (double)m->interval_ns / 1e9);
        csv_quoted(out, t->component);
        fputc(',', out);
        csv_quoted(out, t->name);
        fprintf(out, ",%llu,%.3f,", (unsigned long long)iv->count, (double)iv->count / ((double)m->interval_ns / 1e9));
        if (iv->has_p50) latrec_report_fmt_value(buf, sizeof(buf), (double)iv->p50, 1, &m->units), fputs(buf, out);
        fputc(',', out);
        if (iv->has_p99) latrec_report_fmt_value(buf, sizeof(buf), (double)iv->p99, 1, &m->units), fputs(buf, out);
        fputc(',', out);
        if (t->has_bytes) fprintf(out, "%llu", (unsigned long long)iv->bytes);
        fputc('\n', out);
    }
}

static void top_csv(const latrec_report *m, FILE *out)
{
    char buf[64];
    fprintf(out, "component,leg,rank,seq,process,ring,start_s,hop,value_%s\n", m->units.name);
    for (int i = 0; i < m->n_tables; i++) {
        const latrec_report_table *t = &m->tables[i];
        for (int k = 0; k < t->n_top; k++) {
            const latrec_report_instance *e = &t->top[k];
            for (int h = 0; h < t->n_rows - 1; h++) {
                csv_quoted(out, t->component);
                fputc(',', out);
                csv_quoted(out, t->name);
                fprintf(out, ",%d,%llu,", k + 1, (unsigned long long)e->seq);
                csv_quoted(out, e->process);
                fputc(',', out);
                csv_quoted(out, e->ring);
                fprintf(out, ",%.9f,", (double)e->start_ns / 1e9);
                csv_quoted(out, t->rows[h].name);
                if (e->has[h]) latrec_report_fmt_value(buf, sizeof(buf), (double)e->value[h], 1, &m->units);
                else buf[0] = '\0';
                fprintf(out, ",%s\n", buf);
            }
        }
    }
}

static void tables_header(const latrec_report *m, FILE *out)
{
    char buf[64];
    fprintf(out, "component,leg,hop,instances,complete");
    figure_header(out, m, "");
    if (m->has_baseline) {
        figure_header(out, m, "base_");
        for (int i = 0; i < fig_skew(m->n_pct) + 1; i++) {
            const char *fn = latrec_figure_name(i, m->pct, m->n_pct, buf, sizeof(buf));
            if (latrec_report_is_time(m, i)) fprintf(out, ",delta_%s_%s,delta_%s_pct", fn, m->units.name, fn);
            else fprintf(out, ",delta_%s,delta_%s_pct", fn, fn);
        }
    }
    const char *u = m->units.name;
    fprintf(out, ",sched_split,on_cpu_%s,runq_%s,blocked_%s,unknown_%s,preemptions,migrations\n", u, u, u, u);
}

void latrec_report_write_csv(const latrec_report *m, FILE *out)
{
    if (m->interval_ns) {
        intervals_csv(m, out);
        return;
    }
    if (m->top) {
        top_csv(m, out);
        return;
    }
    tables_header(m, out);
    for (int i = 0; i < m->n_tables; i++) {
        const latrec_report_table *t = &m->tables[i];
        for (int h = 0; h < t->n_rows; h++) {
            const latrec_report_row *row = &t->rows[h];
            csv_quoted(out, t->component);
            fputc(',', out);
            csv_quoted(out, t->name);
            fputc(',', out);
            csv_quoted(out, row->name);
            fprintf(out, ",%llu,%llu", (unsigned long long)t->instances, (unsigned long long)t->complete);
            figures(out, m, &row->fig);
            if (m->has_baseline) {
                latrec_figures empty;
                memset(&empty, 0, sizeof(empty));
                empty.n = row->fig.n;
                figures(out, m, row->has_base ? &row->base : &empty);
                deltas(out, m, &row->fig, row->has_base ? &row->base : NULL);
            }
            split(out, m, row);
            fputc('\n', out);
        }
    }
}
