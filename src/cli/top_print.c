/* latrec top: one block as text tables or as a JSON line (cli/top_print.h). */
#include "cli/top_print.h"

#include <jansson.h>
#include <libsmartcols.h>
#include <string.h>

#include "cli/json_bytes.h"
#include "cli/text_table.h"

/* ---- text -------------------------------------------------------------------- */

static void time_cell(struct libscols_line *ln, int col, int has, int64_t ns, const latrec_units *u)
{
    char buf[64] = "-";
    if (has) snprintf(buf, sizeof(buf), "%.*f", u->decimals, (double)ns / u->div);
    latrec_text_cell(ln, col, buf);
}

static void count_cells(struct libscols_line *ln, int col, const latrec_top_fig *f, double secs, const latrec_units *u)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)f->count);
    latrec_text_cell(ln, col, buf);
    if (secs > 0) snprintf(buf, sizeof(buf), "%.1f", (double)f->count / secs);
    else snprintf(buf, sizeof(buf), "-");
    latrec_text_cell(ln, col + 1, buf);
    time_cell(ln, col + 2, f->has, f->p50, u);
    time_cell(ln, col + 3, f->has, f->p99, u);
    time_cell(ln, col + 4, f->has, f->max, u);
}

/* The legs (is_path 0) or the paths (1): NAME HOP, then COUNT RATE/s P50
 * P99 MAX of the last interval, then the same since the start. */
static void rows_table(FILE *out, const latrec_top *t, const latrec_top_tick *k, int is_path)
{
    int any = 0;
    for (int r = 0; r < t->n_rows; r++) any |= t->rows[r].is_path == is_path;
    if (!any) return;
    struct libscols_table *tb = latrec_text_table(out);
    if (!tb) return;
    const char *u = k->units->name;
    char name[32];
    scols_table_new_column(tb, is_path ? "PATH" : "LEG", 0, 0);
    scols_table_new_column(tb, is_path ? "SEGMENT" : "HOP", 0, 0);
    for (int w = 0; w < 2; w++) {
        const char *pre = w ? "ALL_" : "";
        snprintf(name, sizeof(name), "%sCOUNT", pre);
        scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
        snprintf(name, sizeof(name), "%sRATE/s", pre);
        scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
        snprintf(name, sizeof(name), "%sP50_%s", pre, u);
        scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
        snprintf(name, sizeof(name), "%sP99_%s", pre, u);
        scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
        snprintf(name, sizeof(name), "%sMAX_%s", pre, u);
        scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
    }
    for (int r = 0; r < t->n_rows; r++) {
        if (t->rows[r].is_path != is_path) continue;
        struct libscols_line *ln = scols_table_new_line(tb, NULL);
        if (!ln) break;
        latrec_top_fig f;
        latrec_text_cell(ln, 0, t->rows[r].name);
        latrec_text_cell(ln, 1, t->rows[r].hop);
        latrec_top_fig_get(t, r, LATREC_TOP_LAST, &f);
        count_cells(ln, 2, &f, k->last_s, k->units);
        latrec_top_fig_get(t, r, LATREC_TOP_ALL, &f);
        count_cells(ln, 7, &f, k->span_s, k->units);
    }
    scols_print_table(tb);
    scols_unref_table(tb);
}

/* The scheduler's split of the leg rows since the start (t->sv), as
 * report prints it: means per split instance, preemptions and migrations
 * counted; live, the instances still waiting for their scheduler data. */
static void sched_table(FILE *out, const latrec_top *t, const latrec_top_tick *k)
{
    const latrec_units *u = k->units;
    if (!t->sv || !t->sv->model) return;
    struct libscols_table *tb = latrec_text_table(out);
    if (!tb) return;
    char name[32];
    scols_table_new_column(tb, "LEG", 0, 0);
    scols_table_new_column(tb, "HOP", 0, 0);
    scols_table_new_column(tb, "SPLIT", 0, SCOLS_FL_RIGHT);
    static const char *const times[] = { "ONCPU", "RUNQ", "BLOCKED", "UNKNOWN" };
    for (int c = 0; c < 4; c++) {
        snprintf(name, sizeof(name), "%s_%s", times[c], u->name);
        scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
    }
    scols_table_new_column(tb, "PREEMPTIONS", 0, SCOLS_FL_RIGHT);
    scols_table_new_column(tb, "MIGRATIONS", 0, SCOLS_FL_RIGHT);
    const int live = t->sv->live && !t->sv->ended;
    if (live) scols_table_new_column(tb, "WAITING", 0, SCOLS_FL_RIGHT);
    for (int r = 0; r < t->n_rows; r++) {
        const latrec_top_row *row = &t->rows[r];
        if (row->is_path) continue;
        struct libscols_line *ln = scols_table_new_line(tb, NULL);
        if (!ln) break;
        const latrec_sched_acc *a = &row->sched[LATREC_TOP_ALL];
        const long double v[4] = { a->on_cpu, a->runnable, a->blocked, a->unknown };
        char buf[64];
        latrec_text_cell(ln, 0, row->name);
        latrec_text_cell(ln, 1, row->hop);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)a->n);
        latrec_text_cell(ln, 2, buf);
        for (int c = 0; c < 4; c++) {
            if (a->n) snprintf(buf, sizeof(buf), "%.*f", u->decimals, (double)(v[c] / a->n) / u->div);
            else snprintf(buf, sizeof(buf), "-");
            latrec_text_cell(ln, 3 + c, buf);
        }
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)a->preemptions);
        latrec_text_cell(ln, 7, buf);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)a->migrations);
        latrec_text_cell(ln, 8, buf);
        if (live) {
            snprintf(buf, sizeof(buf), "%llu", (unsigned long long)row->pending);
            latrec_text_cell(ln, 9, buf);
        }
    }
    fprintf(out, "scheduler, since the start, mean per instance on the thread of each hop's second stage");
    if (live && k->snap->last_t_ns > t->sv->covered_ns && t->sv->covered_ns)
        fprintf(out, " (its data %.1f s behind; WAITING: instances ended since)",
                (double)(k->snap->last_t_ns - t->sv->covered_ns) / 1e9);
    else if (live) fprintf(out, " (no scheduler data published yet)");
    fputs(":\n", out);
    scols_print_table(tb);
    scols_unref_table(tb);
}

/* A window's split: report's keys, then the hop's own mean over the
 * instances split (the four times add up to it). */
static json_t *split_json(const latrec_top_row *row, int which, const latrec_units *u)
{
    const latrec_sched_acc *a = &row->sched[which];
    const long double v[5] = { a->on_cpu, a->runnable, a->blocked, a->unknown, a->lost };
    static const char *const keys[] = { "on_cpu", "runq", "blocked", "unknown", "unknown_lost" };
    json_t *o = json_object();
    json_object_set_new(o, "split", json_integer((json_int_t)a->n));
    char key[32];
    for (int c = 0; c < 5; c++) {
        snprintf(key, sizeof(key), "%s_%s", keys[c], u->name);
        json_object_set_new(o, key, a->n ? json_real((double)(v[c] / a->n) / u->div) : json_null());
    }
    json_object_set_new(o, "preemptions", json_integer((json_int_t)a->preemptions));
    json_object_set_new(o, "migrations", json_integer((json_int_t)a->migrations));
    snprintf(key, sizeof(key), "hop_%s", u->name);
    json_object_set_new(o, key, a->n ? json_real((double)(row->hop_ns[which] / a->n) / u->div) : json_null());
    return o;
}

/* A leg row's split since the start, its last interval's in "last", the
 * instances waiting for scheduler data in "waiting"; null without it. */
static json_t *sched_json(const latrec_top *t, const latrec_top_row *row, const latrec_units *u)
{
    if (!t->sv || !t->sv->model || row->is_path) return json_null();
    json_t *o = split_json(row, LATREC_TOP_ALL, u);
    json_object_set_new(o, "last", split_json(row, LATREC_TOP_LAST, u));
    json_object_set_new(o, "waiting", json_integer((json_int_t)row->pending));
    return o;
}

/* The scheduler data as top has it: null without; else whether it is
 * followed live, how far behind the newest record it covers (s), the
 * instances waiting and those left unsplit, records lapped. */
static json_t *sched_state_json(const latrec_top *t, const latrec_engine_snap *s)
{
    const latrec_sched_view *v = t->sv;
    if (!v || !v->model) return json_null();
    const int live = v->live && !v->ended;
    json_t *o = json_object();
    json_object_set_new(o, "live", json_boolean(live));
    json_object_set_new(o, "behind_s",
                        !live ? json_real(0)
                        : v->covered_ns && s->last_t_ns
                            ? json_real(s->last_t_ns > v->covered_ns ? (double)(s->last_t_ns - v->covered_ns) / 1e9 : 0)
                            : json_null());
    json_object_set_new(o, "waiting", json_integer((json_int_t)latrec_top_waiting(t)));
    json_object_set_new(o, "unsplit", json_integer((json_int_t)t->unsplit));
    json_object_set_new(o, "lapped", json_integer((json_int_t)(v->live ? v->cur.lapped : 0)));
    return o;
}

/* A ring's name: the writer's, else its file's. */
static const char *ring_name(const latrec_engine_ring *ring)
{
    if (ring->name && ring->name[0]) return ring->name;
    const char *slash = strrchr(ring->path, '/');
    return slash ? slash + 1 : ring->path;
}

/* The program's rings as the stream has read them (engine/engine.h). */
static void rings_table(FILE *out, const latrec_engine_snap *s)
{
    struct libscols_table *tb = latrec_text_table(out);
    if (!tb) return;
    static const char *const cols[] = { "RING", "READ", "WRITTEN", "LOST", "WRAPPED", "LAPPED" };
    for (int c = 0; c < 6; c++) scols_table_new_column(tb, cols[c], 0, c ? SCOLS_FL_RIGHT : 0);
    for (size_t i = 0; i < s->n_rings; i++) {
        const latrec_engine_ring *ring = &s->rings[i];
        if (!ring->ok || ring->sched) continue;
        struct libscols_line *ln = scols_table_new_line(tb, NULL);
        if (!ln) break;
        char buf[64];
        latrec_text_cell(ln, 0, ring_name(ring));
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)ring->records);
        latrec_text_cell(ln, 1, buf);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)ring->written);
        latrec_text_cell(ln, 2, buf);
        snprintf(buf, sizeof(buf), "%llu%s", (unsigned long long)ring->lost, ring->lost_lower_bound ? "+" : "");
        latrec_text_cell(ln, 3, buf);
        latrec_text_cell(ln, 4, ring->wrapped ? "yes" : "no");
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)ring->lapped);
        latrec_text_cell(ln, 5, buf);
    }
    scols_print_table(tb);
    scols_unref_table(tb);
}

void latrec_top_print_text(FILE *out, const latrec_top *t, const latrec_top_tick *k)
{
    const latrec_engine_snap *s = k->snap;
    unsigned long long el = (unsigned long long)k->elapsed_s;
    fprintf(out,
            "latrec top  %s  %02llu:%02llu:%02llu  interval %.3f s  records %llu (+%llu)  rings %zu  "
            "lost %llu%s  lapped %llu\n",
            k->final ? "final" : k->state, el / 3600, el / 60 % 60, el % 60, k->interval_s,
            (unsigned long long)s->records, (unsigned long long)k->records_last, s->totals.rings,
            (unsigned long long)s->totals.lost, s->totals.lost_lower_bound ? "+" : "",
            (unsigned long long)s->totals.lapped);
    if (t->n_rows == 0) fprintf(out, "(no instance ended yet)\n");
    rows_table(out, t, k, 0);
    rows_table(out, t, k, 1);
    if (k->recomputed)
        fprintf(out,
                "since the start: recomputed over the finished input, as report reads it (%llu records came "
                "late for the live watermark, %llu lapped)\n",
                (unsigned long long)s->late, (unsigned long long)s->totals.lapped);
    sched_table(out, t, k);
    if (t->regressions)
        fprintf(out, "clock regressions (negative values, left out): %llu\n", (unsigned long long)t->regressions);
    rings_table(out, s);
    if (t->oom) fprintf(out, "out of memory: some rows are missing\n");
}

/* ---- JSON Lines ------------------------------------------------------------- */

static json_t *window_json(const latrec_top *t, int r, int which, double secs, const latrec_units *u)
{
    latrec_top_fig f;
    latrec_top_fig_get(t, r, which, &f);
    char key[32];
    json_t *o = json_object();
    json_object_set_new(o, "count", json_integer((json_int_t)f.count));
    json_object_set_new(o, "rate_per_s", secs > 0 ? json_real((double)f.count / secs) : json_null());
    snprintf(key, sizeof(key), "p50_%s", u->name);
    json_object_set_new(o, key, f.has ? json_real((double)f.p50 / u->div) : json_null());
    snprintf(key, sizeof(key), "p99_%s", u->name);
    json_object_set_new(o, key, f.has ? json_real((double)f.p99 / u->div) : json_null());
    snprintf(key, sizeof(key), "max_%s", u->name);
    json_object_set_new(o, key, f.has ? json_real((double)f.max / u->div) : json_null());
    return o;
}

static json_t *rings_json(const latrec_engine_snap *s)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->n_rings; i++) {
        const latrec_engine_ring *ring = &s->rings[i];
        if (!ring->ok || ring->sched) continue;
        json_t *j = json_pack("{s:I,s:I,s:I,s:b,s:b,s:I,s:b}", "read", (json_int_t)ring->records, "written",
                              (json_int_t)ring->written, "lost", (json_int_t)ring->lost, "lost_is_lower_bound",
                              ring->lost_lower_bound, "wrapped", ring->wrapped, "lapped", (json_int_t)ring->lapped,
                              "closed", ring->closed);
        latrec_json_set_bytes(j, "ring", ring_name(ring)); /* a header's bytes, maybe not UTF-8 */
        json_array_append_new(a, j);
    }
    return a;
}

void latrec_top_print_json(FILE *out, const latrec_top *t, const latrec_top_tick *k)
{
    const latrec_engine_snap *s = k->snap;
    json_t *o = json_object();
    json_object_set_new(o, "block", json_integer((json_int_t)k->n));
    json_object_set_new(o, "state", json_string(k->final ? "final" : k->state));
    json_object_set_new(o, "final", json_boolean(k->final));
    json_object_set_new(o, "elapsed_s", json_real(k->elapsed_s));
    json_object_set_new(o, "interval_s", json_real(k->interval_s));
    json_object_set_new(o, "span_s", json_real(k->span_s));
    json_object_set_new(o, "unit", json_string(k->units->name));
    json_object_set_new(o, "records", json_integer((json_int_t)s->records));
    json_object_set_new(o, "records_last", json_integer((json_int_t)k->records_last));
    json_object_set_new(o, "lost", json_integer((json_int_t)s->totals.lost));
    json_object_set_new(o, "lapped", json_integer((json_int_t)s->totals.lapped));
    json_object_set_new(o, "late", json_integer((json_int_t)s->late));
    json_object_set_new(o, "recomputed", json_boolean(k->recomputed));
    json_object_set_new(o, "regressions", json_integer((json_int_t)t->regressions));
    json_t *legs = json_array(), *paths = json_array();
    for (int r = 0; r < t->n_rows; r++) {
        const latrec_top_row *row = &t->rows[r];
        json_t *j = json_object();
        latrec_json_set_bytes(j, row->is_path ? "path" : "leg", row->name); /* its component: a ring's name */
        json_object_set_new(j, row->is_path ? "segment" : "hop", json_string(row->hop));
        json_object_set_new(j, "last", window_json(t, r, LATREC_TOP_LAST, k->last_s, k->units));
        json_object_set_new(j, "all", window_json(t, r, LATREC_TOP_ALL, k->span_s, k->units));
        json_object_set_new(j, "sched", sched_json(t, row, k->units));
        json_array_append_new(row->is_path ? paths : legs, j);
    }
    json_object_set_new(o, "sched", sched_state_json(t, s));
    json_object_set_new(o, "legs", legs);
    json_object_set_new(o, "paths", paths);
    json_object_set_new(o, "rings", rings_json(s));
    json_dumpf(o, out, JSON_COMPACT | JSON_REAL_PRECISION(10));
    fputc('\n', out);
    fflush(out);
    json_decref(o);
}
