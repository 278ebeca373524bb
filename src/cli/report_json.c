/* latrec report --format json: one object {header, legs[], paths[], intervals[]}, in
 * the report's unit (keys name it: "p99_us"); an absent figure is null. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/escape.h"

#include "analyze/paths.h"
#include "cli/json_bytes.h"
#include "cli/report_format.h"

static json_t *figures(const latrec_report *m, const latrec_figures *f)
{
    json_t *j = json_object();
    char key[64], buf[32];
    json_object_set_new(j, "count", json_integer((json_int_t)f->count));
    for (int i = 0; i < f->n; i++) {
        const char *fn = latrec_figure_name(i, m->pct, m->n_pct, buf, sizeof(buf));
        int time = latrec_report_is_time(m, i);
        if (time) snprintf(key, sizeof(key), "%s_%s", fn, m->units.name);
        else snprintf(key, sizeof(key), "%s", fn);
        json_object_set_new(j, key, f->has[i] ? json_real(time ? f->v[i] / m->units.div : f->v[i]) : json_null());
    }
    json_object_set_new(j, "outliers", f->count && f->outliers_known ? json_integer((json_int_t)f->outliers) : json_null());
    json_object_set_new(j, "regressions", json_integer((json_int_t)f->regressions));
    return j;
}

/* The scheduler split of a row: null without scheduler data. */
static json_t *split(const latrec_report *m, const latrec_report_split *s)
{
    if (!m->hdr.sched) return json_null();
    const latrec_units *u = &m->units;
    json_t *j = json_object();
    char key[32];
    json_object_set_new(j, "split", json_integer((json_int_t)s->n));
    const char *names[4] = { "on_cpu", "runq", "blocked", "unknown" };
    const double means[4] = { s->on_cpu, s->runq, s->blocked, s->unknown };
    for (int i = 0; i < 4; i++) {
        snprintf(key, sizeof(key), "%s_%s", names[i], u->name);
        json_object_set_new(j, key, s->n ? json_real(means[i] / u->div) : json_null());
    }
    json_object_set_new(j, "preemptions", json_integer((json_int_t)s->preemptions));
    json_object_set_new(j, "migrations", json_integer((json_int_t)s->migrations));
    return j;
}

static json_t *header(const latrec_report *m)
{
    const latrec_report_header *h = &m->hdr;
    const latrec_input_totals *t = &h->totals;
    json_t *hdr = json_object();
    if (h->command) latrec_json_set_bytes(hdr, "command", h->command);
    else json_object_set_new(hdr, "command", json_null());
    json_t *ex = h->exit_json ? json_loads(h->exit_json, 0, NULL) : NULL;
    json_object_set_new(hdr, "exit", ex ? ex : json_null());
    json_object_set_new(hdr, "exit_note", h->exit_note ? json_string(h->exit_note) : json_null());
    json_t *offs = json_array(), *al = json_array();
    for (int i = 0; i < h->n_offsets; i++) {
        const struct latrec_report_offset *x = &h->offsets[i];
        json_array_append_new(offs, json_pack("{s:s, s:s, s:I, s:I, s:I, s:b}", "from", x->from, "to", x->to,
                                              "offset_ns", (json_int_t)x->offset_ns, "bound_ns",
                                              (json_int_t)x->bound_ns, "exchanges", (json_int_t)x->exchanges,
                                              "consistent", x->consistent));
    }
    for (int i = 0; i < h->n_aligned; i++) json_array_append_new(al, json_string(h->aligned[i]));
    json_object_set_new(hdr, "clock_offsets", offs);
    json_object_set_new(hdr, "clock_alignment", al);
    json_object_set_new(hdr, "leg_horizon_ns", json_integer((json_int_t)h->leg_horizon_ns));
    json_object_set_new(hdr, "instances_cut_by_horizon", json_integer((json_int_t)h->cut_horizon));
    json_object_set_new(hdr, "path_horizon_ns", h->paths ? json_integer((json_int_t)h->path_horizon_ns) : json_null());
    json_object_set_new(hdr, "instances_cut_for_room", json_integer((json_int_t)h->cut_room));
    json_object_set_new(hdr, "rings", json_integer((json_int_t)t->rings));
    json_object_set_new(hdr, "rings_skipped", json_integer((json_int_t)t->rejected));
    json_object_set_new(hdr, "rings_wrapped", json_integer((json_int_t)t->wrapped));
    json_object_set_new(hdr, "rings_truncated", json_integer((json_int_t)t->truncated));
    json_object_set_new(hdr, "torn_slots", json_integer((json_int_t)t->torn));
    json_object_set_new(hdr, "lapped", json_integer((json_int_t)t->lapped));
    json_object_set_new(hdr, "records", json_integer((json_int_t)h->records));
    json_object_set_new(hdr, "lost", json_integer((json_int_t)t->lost));
    json_object_set_new(hdr, "lost_is_lower_bound", json_boolean(t->lost_lower_bound));
    json_object_set_new(hdr, "dropped_before_start", json_integer((json_int_t)t->dropped));
    json_object_set_new(hdr, "clock_ns_per_call_min", t->clock_max ? json_integer(t->clock_min) : json_null());
    json_object_set_new(hdr, "clock_ns_per_call_max", t->clock_max ? json_integer(t->clock_max) : json_null());
    json_object_set_new(hdr, "catalog", json_string(h->catalog_note));
    json_object_set_new(hdr, "unit", json_string(m->units.name));
    json_object_set_new(hdr, "calibrated", json_boolean(h->calibrated));
    json_object_set_new(hdr, "outliers_dropped", json_boolean(h->outliers_dropped));
    json_object_set_new(hdr, "warm_up_ns", json_integer((json_int_t)h->warmup_ns));
    json_object_set_new(hdr, "processes_guessed", json_boolean(h->processes_guessed));
    json_t *sj = json_object();
    json_object_set_new(sj, "available", json_boolean(h->sched));
    json_object_set_new(sj, "reason", h->sched ? json_null() : json_string(h->sched_reason));
    /* the scheduler collector's own counts, apart from the rings' above */
    json_object_set_new(sj, "ring", h->sched ? json_string(h->sched_ring) : json_null());
    json_object_set_new(sj, "events", h->sched ? json_integer((json_int_t)h->sched_events) : json_null());
    json_object_set_new(sj, "lost", t->sched.present ? json_integer((json_int_t)t->sched.lost) : json_null());
    json_object_set_new(sj, "wrapped", json_boolean(t->sched.wrapped));
    json_object_set_new(hdr, "sched", sj);
    return hdr;
}

static json_t *top(const latrec_report *m, const latrec_report_table *t)
{
    json_t *top = json_array();
    for (int k = 0; k < t->n_top; k++) {
        const latrec_report_instance *e = &t->top[k];
        json_t *ej = json_object();
        json_object_set_new(ej, "seq", json_integer((json_int_t)e->seq));
        latrec_json_set_bytes(ej, "process", e->process);
        latrec_json_set_bytes(ej, "ring", e->ring);
        json_object_set_new(ej, "start_ns", json_integer((json_int_t)e->t_ns));
        json_t *hv = json_object();
        for (int h = 0; h < t->n_rows - 1; h++)
            json_object_set_new(hv, t->rows[h].name,
                                e->has[h] ? json_real((double)e->value[h] / m->units.div) : json_null());
        json_object_set_new(ej, t->kind == LATREC_TABLE_PATH ? "segments" : "hops", hv);
        json_array_append_new(top, ej);
    }
    return top;
}

static json_t *table(const latrec_report *m, const latrec_report_table *t)
{
    json_t *lj = json_object();
    latrec_json_set_bytes(lj, "component", t->component);
    json_object_set_new(lj, "leg", json_string(t->name));
    json_object_set_new(lj, "discovered", json_boolean(t->discovered));
    json_object_set_new(lj, "instances", json_integer((json_int_t)t->instances));
    json_object_set_new(lj, "complete", json_integer((json_int_t)t->complete));
    json_t *hops = json_array();
    for (int h = 0; h < t->n_rows; h++) {
        const latrec_report_row *row = &t->rows[h];
        json_t *hj = figures(m, &row->fig);
        json_object_set_new(hj, "hop", json_string(row->name));
        if (row->kind == LATREC_ROW_HOP) json_object_set_new(hj, "sched", split(m, &row->split));
        if (m->has_baseline) json_object_set_new(hj, "baseline", row->has_base ? figures(m, &row->base) : json_null());
        json_array_append_new(hops, hj);
    }
    json_object_set_new(lj, "hops", hops);
    if (m->top) json_object_set_new(lj, "top", top(m, t));
    return lj;
}

/* A path table: its counts, then a row per segment (figures, kind, where,
 * scheduler split, baseline). */
static json_t *path_table(const latrec_report *m, const latrec_report_table *t)
{
    json_t *pj = json_object();
    json_object_set_new(pj, "path", json_string(t->name));
    const char *colon = t->qualified ? strchr(t->qualified, ':') : NULL; /* CATALOG:NAME */
    json_object_set_new(pj, "catalog",
                        colon ? json_stringn(t->qualified, (size_t)(colon - t->qualified)) : json_null());
    json_object_set_new(pj, "instances", json_integer((json_int_t)t->instances));
    json_object_set_new(pj, "complete", json_integer((json_int_t)t->complete));
    json_object_set_new(pj, "incomplete", json_integer((json_int_t)t->incomplete));
    json_object_set_new(pj, "unanchored", json_integer((json_int_t)t->unanchored));
    json_object_set_new(pj, "cut_for_room", json_integer((json_int_t)t->cut_open));
    json_object_set_new(pj, "drops_unresolved", json_integer((json_int_t)t->drops_unresolved));
    json_t *stops = json_array();
    for (int i = 0; i < t->n_stops; i++) {
        json_t *sj = json_object();
        json_object_set_new(sj, "leg", json_string(t->stops[i].leg));
        for (int r = 0; r < LATREC_PATH_N_STOPS; r++)
            json_object_set_new(sj, latrec_path_stop_name(r), json_integer((json_int_t)t->stops[i].n[r]));
        json_array_append_new(stops, sj);
    }
    json_object_set_new(pj, "stopped", stops);
    json_t *segs = json_array();
    for (int h = 0; h < t->n_rows; h++) {
        const latrec_report_row *row = &t->rows[h];
        json_t *hj = figures(m, &row->fig);
        json_object_set_new(hj, "segment", json_string(row->name));
        json_object_set_new(hj, "kind", json_string(row->segment));
        json_object_set_new(hj, "where", json_string(row->where));
        json_object_set_new(hj, "sched", row->has_split ? split(m, &row->split) : json_null());
        if (m->has_baseline) json_object_set_new(hj, "baseline", row->has_base ? figures(m, &row->base) : json_null());
        json_array_append_new(segs, hj);
    }
    json_object_set_new(pj, "segments", segs);
    if (m->top) json_object_set_new(pj, "top", top(m, t));
    return pj;
}

static json_t *intervals(const latrec_report *m)
{
    json_t *iv = json_array();
    const latrec_units *u = &m->units;
    for (size_t k = 0; k < m->n_intervals; k++) {
        const latrec_report_interval *row = &m->intervals[k];
        const latrec_report_table *t = &m->tables[row->table];
        json_t *rj = json_object();
        json_object_set_new(rj, "start_s", json_real((double)row->idx * (double)m->interval_ns / 1e9));
        latrec_json_set_bytes(rj, "component", t->component);
        json_object_set_new(rj, "leg", json_string(t->name));
        json_object_set_new(rj, "count", json_integer((json_int_t)row->count));
        json_object_set_new(rj, "rate_per_s", json_real((double)row->count / ((double)m->interval_ns / 1e9)));
        char key[32];
        snprintf(key, sizeof(key), "p50_%s", u->name);
        json_object_set_new(rj, key, row->has_p50 ? json_real((double)row->p50 / u->div) : json_null());
        snprintf(key, sizeof(key), "p99_%s", u->name);
        json_object_set_new(rj, key, row->has_p99 ? json_real((double)row->p99 / u->div) : json_null());
        json_object_set_new(rj, "bytes", t->has_bytes ? json_integer((json_int_t)row->bytes) : json_null());
        json_array_append_new(iv, rj);
    }
    return iv;
}

void latrec_report_write_json(const latrec_report *m, FILE *out)
{
    json_t *root = json_object();
    json_object_set_new(root, "header", header(m));
    json_t *legs = json_array(), *paths = json_array();
    for (int i = 0; i < m->n_tables; i++) {
        const latrec_report_table *t = &m->tables[i];
        if (t->kind == LATREC_TABLE_PATH) json_array_append_new(paths, path_table(m, t));
        else json_array_append_new(legs, table(m, t));
    }
    json_object_set_new(root, "legs", legs);
    json_object_set_new(root, "paths", paths);
    if (m->interval_ns) json_object_set_new(root, "intervals", intervals(m));
    json_dumpf(root, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    fputc('\n', out);
    json_decref(root);
}
