/* latrec report --format text: the header as comment lines, then per table
 * its figures, the scheduler's split, the slowest instances and their
 * explanation; the time series last. Tables are libsmartcols'. */
#include <libsmartcols.h>
#include <stdio.h>
#include <string.h>

#include "read/escape.h"

#include "analyze/paths.h"
#include "engine/explain.h"
#include "cli/report_format.h"
#include "cli/text_table.h"

static void header_text(const latrec_report *m, FILE *out)
{
    const latrec_report_header *h = &m->hdr;
    const latrec_input_totals *t = &h->totals;
    fprintf(out, "# latrec report\n");
    char safe[4096];
    if (h->command && h->command[0]) fprintf(out, "# command: %s\n", latrec_text_safe(h->command, safe, sizeof(safe)));
    if (h->exit_note) fprintf(out, "# exit: %s\n", h->exit_note);
    fprintf(out, "# duration: %.3f s%s\n", h->duration_s, h->have_run ? "" : " (first to last record)");
    char trunc[48] = "", torn[96] = "";
    if (t->truncated) snprintf(trunc, sizeof(trunc), ", %zu truncated while read", t->truncated);
    int w = t->torn ? snprintf(torn, sizeof(torn), "  torn slots: %llu", (unsigned long long)t->torn) : 0;
    if (t->lapped && w >= 0) /* slots the writer overwrote under the reader (a run still recorded) */
        snprintf(torn + w, sizeof(torn) - (size_t)w, "  lapped: %llu", (unsigned long long)t->lapped);
    fprintf(out, "# rings: %zu (%zu skipped, %zu wrapped%s%s)  records: %llu  lost: %llu%s  dropped before start: %llu%s\n",
            t->rings, t->rejected, t->wrapped, t->multi_writer ? ", some not single-writer" : "", trunc,
            (unsigned long long)h->records, (unsigned long long)t->lost, t->lost_lower_bound ? " (at least)" : "",
            (unsigned long long)t->dropped, torn);
    if (t->clock_max)
        fprintf(out, "# clock cost per call: %u..%u ns\n", t->clock_min, t->clock_max);
    else
        fprintf(out, "# clock cost per call: not measured by these rings\n");
    fprintf(out, "# catalog: %s\n", h->catalog_note);
    if (h->processes_guessed)
        fprintf(out, "# processes: rings without a pid (format v1/v2): one process per component assumed\n");
    if (!h->have_start) fprintf(out, "# start stamp: none (every record kept)\n");
    if (h->sched)
        fprintf(out, "# scheduler: %llu events from %s  lost: %llu%s%s\n", (unsigned long long)h->sched_events,
                h->sched_ring, (unsigned long long)t->sched.lost, t->sched.lost_lower_bound ? " (at least)" : "",
                t->sched.wrapped ? "  (wrapped)" : "");
    else
        fprintf(out, "# scheduler: n/a (%s)\n", h->sched_reason);
    fprintf(out, "# leg horizon: %s\n", h->horizon_note);
    for (int i = 0; i < h->n_aligned; i++) fprintf(out, "# clock alignment: %s\n", h->aligned[i]);
    for (int i = 0; i < h->n_offsets; i++) {
        const struct latrec_report_offset *x = &h->offsets[i];
        fprintf(out, "# clock offset: %s - %s: %+.3f us +-%.3f us (%llu exchanges of paths there and back%s)\n",
                x->to, x->from, (double)x->offset_ns / 1e3, (double)x->bound_ns / 1e3,
                (unsigned long long)x->exchanges,
                x->consistent ? "" : "; their intervals do not meet (drift?): the smallest round trip's");
    }
    if (h->paths)
        fprintf(out, "# path horizon: %.3f s (an instance whose legs have not joined by then is incomplete)\n",
                (double)h->path_horizon_ns / 1e9);
    if (h->warmup_ns) {
        fprintf(out, "# warm-up: first %.3f ms ignored (%llu instances)", (double)h->warmup_ns / 1e6,
                (unsigned long long)h->warmup_skipped);
        if (h->path_warmup_skipped)
            fprintf(out, " and %llu path instances", (unsigned long long)h->path_warmup_skipped);
        fprintf(out, "\n");
    }
    if (h->calibrated) fprintf(out, "# calibration: on (each ring's clock cost subtracted from every hop)\n");
    if (h->outliers_dropped) fprintf(out, "# outliers: dropped from every figure but the outlier count\n");
}

static void figures_row(struct libscols_table *tb, const latrec_report *m, const latrec_report_row *row, int where)
{
    struct libscols_line *ln = scols_table_new_line(tb, NULL);
    const latrec_figures *f = &row->fig, *b = row->has_base ? &row->base : NULL;
    char buf[256], v[96];
    int col = 0;
    latrec_text_cell(ln, col++, row->name);
    if (where) latrec_text_cell(ln, col++, row->where);
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)f->count);
    if (b)
        snprintf(buf, sizeof(buf), "%llu (%+lld)", (unsigned long long)f->count,
                 (long long)f->count - (long long)b->count);
    latrec_text_cell(ln, col++, buf);
    for (int i = 0; i < f->n; i++) {
        if (!f->has[i]) {
            latrec_text_cell(ln, col++, "-");
            continue;
        }
        latrec_report_fmt_value(buf, sizeof(buf), f->v[i], latrec_report_is_time(m, i), &m->units);
        if (b && b->has[i]) {
            latrec_report_fmt_delta(v, sizeof(v), f->v[i], b->v[i], latrec_report_is_time(m, i), &m->units);
            size_t l = strlen(buf);
            snprintf(buf + l, sizeof(buf) - l, " %s", v);
        }
        latrec_text_cell(ln, col++, buf);
    }
    if (!f->count) snprintf(buf, sizeof(buf), "-");
    else if (!f->outliers_known) snprintf(buf, sizeof(buf), "n/a");
    else snprintf(buf, sizeof(buf), "%llu", (unsigned long long)f->outliers);
    latrec_text_cell(ln, col++, buf);
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)f->regressions);
    latrec_text_cell(ln, col++, buf);
}

static struct libscols_table *figures_table(const latrec_report *m, const char *first, int where, FILE *out)
{
    struct libscols_table *tb = latrec_text_table(out);
    if (!tb) return NULL;
    char name[64], buf[32];
    scols_table_new_column(tb, first, 0, 0);
    if (where) scols_table_new_column(tb, "LEG", 0, 0);
    scols_table_new_column(tb, "COUNT", 0, SCOLS_FL_RIGHT);
    for (int i = 0; i < fig_skew(m->n_pct) + 1; i++) {
        snprintf(name, sizeof(name), "%s", latrec_figure_name(i, m->pct, m->n_pct, buf, sizeof(buf)));
        for (char *p = name; *p; p++)
            if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
        if (latrec_report_is_time(m, i)) {
            size_t l = strlen(name);
            snprintf(name + l, sizeof(name) - l, "_%s", m->units.name);
        }
        scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
    }
    scols_table_new_column(tb, "OUTLIERS", 0, SCOLS_FL_RIGHT);
    scols_table_new_column(tb, "REGRESSIONS", 0, SCOLS_FL_RIGHT);
    return tb;
}

/* The heading of a table's first column: its row word in capitals. */
static void upper_word(char *buf, size_t len, const char *word)
{
    snprintf(buf, len, "%s", word);
    for (char *p = buf; *p; p++)
        if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
}

/* The scheduler's split of each hop: means per instance over the thread that
 * stamped the hop's second stage. */
static void sched_text(const latrec_report *m, const latrec_report_table *t, FILE *out)
{
    if (!m->hdr.sched) {
        fprintf(out, "  scheduler: n/a (%s)\n", m->hdr.sched_reason);
        return;
    }
    if (t->n_rows <= 1) return;
    struct libscols_table *tb = latrec_text_table(out);
    if (!tb) return;
    char name[64];
    upper_word(name, sizeof(name), t->row_word);
    scols_table_new_column(tb, name, 0, 0);
    scols_table_new_column(tb, "SPLIT", 0, SCOLS_FL_RIGHT);
    const char *cols[] = { "ONCPU", "RUNQ", "BLOCKED", "UNKNOWN" };
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "%s_%s", cols[i], m->units.name);
        scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
    }
    scols_table_new_column(tb, "PREEMPTIONS", 0, SCOLS_FL_RIGHT);
    scols_table_new_column(tb, "MIGRATIONS", 0, SCOLS_FL_RIGHT);
    for (int h = 0; h < t->n_rows; h++) {
        const latrec_report_row *row = &t->rows[h];
        if (!row->has_split) continue;
        const latrec_report_split *s = &row->split;
        struct libscols_line *ln = scols_table_new_line(tb, NULL);
        char buf[64];
        latrec_text_cell(ln, 0, row->name);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->n);
        latrec_text_cell(ln, 1, buf);
        const double means[4] = { s->on_cpu, s->runq, s->blocked, s->unknown };
        for (int i = 0; i < 4; i++) {
            if (s->n) snprintf(buf, sizeof(buf), "%.*f", m->units.decimals, means[i] / m->units.div);
            else snprintf(buf, sizeof(buf), "-");
            latrec_text_cell(ln, 2 + i, buf);
        }
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->preemptions);
        latrec_text_cell(ln, 6, buf);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->migrations);
        latrec_text_cell(ln, 7, buf);
    }
    fprintf(out, "  scheduler, mean per instance on the thread of each %s's second stage:\n", t->row_word);
    scols_print_table(tb);
    scols_unref_table(tb);
}

static void top_text(const latrec_report *m, const latrec_report_table *t, FILE *out)
{
    fprintf(out, "  slowest %d by %s:\n", t->n_top, t->rows[t->rank_row].name);
    struct libscols_table *tt = latrec_text_table(out);
    if (!tt) return;
    scols_table_new_column(tt, "RANK", 0, SCOLS_FL_RIGHT);
    scols_table_new_column(tt, "SEQ", 0, SCOLS_FL_RIGHT);
    scols_table_new_column(tt, "PROCESS", 0, 0);
    scols_table_new_column(tt, "RING", 0, 0);
    scols_table_new_column(tt, "START_s", 0, SCOLS_FL_RIGHT);
    char name[160], safe[140];
    const int n_hops = t->n_rows - 1;
    for (int h = 0; h < n_hops; h++) {
        snprintf(name, sizeof(name), "%s_%s", latrec_text_safe_ascii(t->rows[h].name, safe, sizeof(safe)),
                 m->units.name);
        scols_table_new_column(tt, name, 0, SCOLS_FL_RIGHT);
    }
    for (int k = 0; k < t->n_top; k++) {
        const latrec_report_instance *e = &t->top[k];
        struct libscols_line *ln = scols_table_new_line(tt, NULL);
        char buf[64];
        int col = 0;
        snprintf(buf, sizeof(buf), "%d", k + 1);
        latrec_text_cell(ln, col++, buf);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)e->seq);
        latrec_text_cell(ln, col++, buf);
        latrec_text_cell(ln, col++, e->process);
        latrec_text_cell(ln, col++, e->ring);
        snprintf(buf, sizeof(buf), "%.6f", (double)e->start_ns / 1e9);
        latrec_text_cell(ln, col++, buf);
        for (int h = 0; h < n_hops; h++) {
            if (e->has[h]) latrec_report_fmt_value(buf, sizeof(buf), (double)e->value[h], 1, &m->units);
            else snprintf(buf, sizeof(buf), "-");
            latrec_text_cell(ln, col++, buf);
        }
    }
    scols_print_table(tt);
    scols_unref_table(tt);
}

/* --explain: the slowest instances, a sentence or two each. */
static void explain_text(const latrec_report *m, const latrec_report_table *t, FILE *out)
{
    const latrec_units *u = &m->units;
    int n = t->n_top < m->explain ? t->n_top : m->explain;
    const char *rank = t->rows[t->rank_row].name;
    fprintf(out, "  the %d slowest by %s, explained:\n", n, rank);
    for (int k = 0; k < n; k++) {
        const latrec_report_instance *e = &t->top[k];
        const latrec_report_why *w = &e->why;
        char total[48], hop[48], proc[256], words[2600];
        latrec_report_fmt_value(total, sizeof(total), (double)e->value[t->rank_row], 1, u);
        latrec_report_fmt_value(hop, sizeof(hop), (double)w->value, 1, u);
        latrec_explain_words ew = { t->rows[w->row].name, hop, u->name, w->has_share, w->share_pct,
                                    w->tid_b, w->why_b, w->tid_a, w->why_a };
        latrec_explain_format(&ew, words, sizeof(words));
        fprintf(out, "  %d. seq %llu (%s), %s %s %s, started at %.6f s: %s", k + 1, (unsigned long long)e->seq,
                latrec_text_safe(e->process, proc, sizeof(proc)), rank, total, u->name, (double)e->start_ns / 1e9,
                words);
        fprintf(out, ".\n");
    }
}

static void intervals_text(const latrec_report *m, FILE *out)
{
    fprintf(out, "\ntime series, interval %.3f ms:\n", (double)m->interval_ns / 1e6);
    struct libscols_table *tb = latrec_text_table(out);
    if (!tb) return;
    char name[32];
    scols_table_new_column(tb, "START_s", 0, SCOLS_FL_RIGHT);
    scols_table_new_column(tb, "COMPONENT", 0, 0);
    scols_table_new_column(tb, "LEG", 0, 0);
    scols_table_new_column(tb, "COUNT", 0, SCOLS_FL_RIGHT);
    scols_table_new_column(tb, "RATE_per_s", 0, SCOLS_FL_RIGHT);
    snprintf(name, sizeof(name), "P50_%s", m->units.name);
    scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
    snprintf(name, sizeof(name), "P99_%s", m->units.name);
    scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
    scols_table_new_column(tb, "BYTES", 0, SCOLS_FL_RIGHT);
    for (size_t k = 0; k < m->n_intervals; k++) {
        const latrec_report_interval *iv = &m->intervals[k];
        const latrec_report_table *t = &m->tables[iv->table];
        struct libscols_line *ln = scols_table_new_line(tb, NULL);
        char buf[64];
        snprintf(buf, sizeof(buf), "%.3f", (double)iv->idx * (double)m->interval_ns / 1e9);
        latrec_text_cell(ln, 0, buf);
        latrec_text_cell(ln, 1, t->component);
        latrec_text_cell(ln, 2, t->name);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)iv->count);
        latrec_text_cell(ln, 3, buf);
        snprintf(buf, sizeof(buf), "%.1f", (double)iv->count / ((double)m->interval_ns / 1e9));
        latrec_text_cell(ln, 4, buf);
        if (iv->has_p50) latrec_report_fmt_value(buf, sizeof(buf), (double)iv->p50, 1, &m->units);
        else snprintf(buf, sizeof(buf), "-");
        latrec_text_cell(ln, 5, buf);
        if (iv->has_p99) latrec_report_fmt_value(buf, sizeof(buf), (double)iv->p99, 1, &m->units);
        else snprintf(buf, sizeof(buf), "-");
        latrec_text_cell(ln, 6, buf);
        if (t->has_bytes) snprintf(buf, sizeof(buf), "%llu", (unsigned long long)iv->bytes);
        else snprintf(buf, sizeof(buf), "-");
        latrec_text_cell(ln, 7, buf);
    }
    scols_print_table(tb);
    scols_unref_table(tb);
}

/* Where a path's incomplete instances stopped, and what drops as delay
 * counts. */
static void path_counts_text(const latrec_report_table *t, FILE *out)
{
    fprintf(out, "  incomplete: %llu", (unsigned long long)t->incomplete);
    const char *sep = " (stopped at ";
    for (int i = 0; i < t->n_stops; i++) {
        int any = 0;
        for (int r = 0; r < LATREC_PATH_N_STOPS; r++) {
            if (!t->stops[i].n[r]) continue;
            fprintf(out, "%s%s%s: %s %llu", any ? "" : sep, any ? ", " : "", any ? "" : t->stops[i].leg,
                    latrec_path_stop_name(r), (unsigned long long)t->stops[i].n[r]);
            any = 1;
            sep = "; ";
        }
    }
    fprintf(out, "%s  unanchored: %llu", sep[0] == ';' ? ")" : "", (unsigned long long)t->unanchored);
    if (t->cut_open) fprintf(out, "  cut for room: %llu", (unsigned long long)t->cut_open);
    fprintf(out, "\n  latency: delivered messages (every row but the last); total_drops_as_delay also counts each "
                 "incomplete instance until the next one got through (%llu with none after it left out)\n",
            (unsigned long long)t->drops_unresolved);
}

static void table_text(const latrec_report *m, const latrec_report_table *t, FILE *out)
{
    const int path = t->kind == LATREC_TABLE_PATH;
    char comp[256], name[256];
    latrec_text_safe(t->component, comp, sizeof(comp));
    latrec_text_safe(t->name, name, sizeof(name));
    if (path)
        fprintf(out, "\npath %s  instances: %llu  complete: %llu\n", name, (unsigned long long)t->instances,
                (unsigned long long)t->complete);
    else
        fprintf(out, "\n%s/%s%s  instances: %llu  complete: %llu\n", comp, name,
                t->discovered ? " (discovered)" : "", (unsigned long long)t->instances,
                (unsigned long long)t->complete);
    if (path) path_counts_text(t, out);
    char word[32];
    upper_word(word, sizeof(word), t->row_word);
    struct libscols_table *tb = figures_table(m, word, path, out);
    if (!tb) return;
    for (int h = 0; h < t->n_rows; h++) figures_row(tb, m, &t->rows[h], path);
    scols_table_enable_noheadings(tb, 0);
    scols_print_table(tb);
    scols_unref_table(tb);
    sched_text(m, t, out);
    if (m->top && t->n_top) top_text(m, t, out);
    if (m->explain && t->n_top) explain_text(m, t, out);
    if (t->late)
        fprintf(out, "  %llu instances came after their interval was closed (not in the time series)\n",
                (unsigned long long)t->late);
}

void latrec_report_write_text(const latrec_report *m, FILE *out)
{
    header_text(m, out);
    if (m->n_tables == 0) fprintf(out, "\nno leg instances%s\n", m->hdr.selection ? " match the selection" : "");
    for (int i = 0; i < m->n_tables; i++) table_text(m, &m->tables[i], out);
    if (m->interval_ns && m->n_intervals) intervals_text(m, out);
}
