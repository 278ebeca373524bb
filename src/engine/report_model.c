/* The report's plain model (report_model.h) from the state of the passes
 * (report_build.c): the header, one table per leg with its rows, the
 * baseline's figures beside each row, the scheduler's split, the slowest
 * instances and their explanation, the time series. */
#include <stdlib.h>
#include <string.h>

#include "engine/align.h"
#include "engine/report_run.h"

/* ---- baseline matching ---------------------------------------------------- */

/* The baseline's table of the same component and leg, or NULL. */
static const latrec_leg_table *baseline_leg(struct report_run *base, const latrec_leg_table *t)
{
    if (!base || !base->pass) return NULL;
    int n;
    latrec_leg_table **tables = latrec_pass_tables(base->pass, &n);
    for (int i = 0; i < n; i++)
        if (strcmp(tables[i]->component_name, t->component_name) == 0 &&
            strcmp(tables[i]->legdef.name, t->legdef.name) == 0)
            return tables[i];
    return NULL;
}

/* The baseline's table state of the same component and leg, with *bh the
 * index of the same hop there (hop == t->n_hops: the inter-arrival row);
 * NULL when it has none. */
static struct rtable *baseline_table(struct report_run *base, const latrec_leg_table *t, int hop, int *bh)
{
    const latrec_leg_table *b = baseline_leg(base, t);
    if (!b) return NULL;
    if (hop == t->n_hops) {
        *bh = b->n_hops;
        return b->user;
    }
    for (int h = 0; h < b->n_hops; h++)
        if (strcmp(b->hops[h].name, t->hops[hop].name) == 0) {
            *bh = h;
            return b->user;
        }
    return NULL;
}

/* The baseline figures of the same component, leg and hop (hop == n_hops:
 * inter-arrival), or NULL. */
static const latrec_figures *baseline_of(struct report_run *base, const latrec_leg_table *t, int hop)
{
    int bh;
    const struct rtable *rt = baseline_table(base, t, hop, &bh);
    return rt ? &rt->fig[bh] : NULL;
}

/* The baseline's column of the same component, leg and hop, or NULL. */
static latrec_stats *baseline_column(struct report_run *base, const latrec_leg_table *t, int hop)
{
    int bh;
    struct rtable *bt = baseline_table(base, t, hop, &bh);
    return bt ? &bt->col[bh] : NULL;
}

/* A hop between two consecutive chain stages: a part of the leg's total. */
static int chain_hop(const latrec_leg_table *t, int h)
{
    const latrec_hopdef *d = &t->hops[h];
    const int a = latrec_leg_chain_pos(&t->legdef, d->from), z = latrec_leg_chain_pos(&t->legdef, d->to);
    return !d->total && a >= 0 && z == a + 1;
}

/* ---- the model ------------------------------------------------------------- */

struct builder {
    latrec_report *m;
    struct report_run *r, *base;
    const latrec_report_request *req;
    int oom;
};

static char *dup_str(struct builder *b, const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) b->oom = 1;
    return d;
}

static void build_offsets(struct builder *b, latrec_report_header *h)
{
    const latrec_input *in = b->r->in;
    const latrec_offsets *o = latrec_pass_offsets(b->r->pass);
    for (int a = 0; o && a < in->opts.n_dirs; a++)
        for (int d = a + 1; d < in->opts.n_dirs && h->n_offsets < 16; d++) {
            struct latrec_report_offset *x = &h->offsets[h->n_offsets];
            if (!latrec_offsets_get(o, a, d, &x->offset_ns, &x->bound_ns, &x->consistent, &x->exchanges)) continue;
            x->from = dup_str(b, in->opts.dirs[a]);
            x->to = dup_str(b, in->opts.dirs[d]);
            h->n_offsets++;
        }
    char note[1024];
    for (int d = 1; d < in->opts.n_dirs && h->n_aligned < 16; d++)
        if (latrec_align_note(in, d, note, sizeof(note))) h->aligned[h->n_aligned++] = dup_str(b, note);
}

static void build_header(struct builder *b)
{
    latrec_report_header *h = &b->m->hdr;
    const latrec_input *in = b->r->in;
    latrec_input_totals_get(in, &h->totals);
    h->have_run = in->have_run;
    h->command = in->have_run ? dup_str(b, in->command) : NULL;
    h->exit_note = in->have_run ? dup_str(b, in->exit_note) : NULL;
    if (in->exit_json && !(h->exit_json = json_dumps(in->exit_json, JSON_COMPACT))) b->oom = 1;
    if (in->run_stop_real_ns > in->run_start_real_ns)
        h->duration_s = (double)(in->run_stop_real_ns - in->run_start_real_ns) / 1e9;
    else if (h->totals.last_t > h->totals.first_t)
        h->duration_s = (double)(h->totals.last_t - h->totals.first_t) / 1e9;
    h->records = in->records;
    h->catalog_note = dup_str(b, in->catalog_note);
    h->processes_guessed = latrec_legs_guessed_processes(latrec_pass_legs(b->r->pass));
    h->have_start = in->have_start;
    h->sched = b->r->sv.model != NULL;
    if (h->sched) {
        h->sched_events = latrec_sched_counters(b->r->sv.model)->records;
        h->sched_ring = dup_str(b, in->set.rings[in->sched_ring].basename);
    } else {
        h->sched_reason = dup_str(b, b->r->sv.reason);
    }
    const latrec_legs *legs = latrec_pass_legs(b->r->pass);
    h->leg_horizon_ns = latrec_legs_horizon(legs);
    h->paths = b->req->pass.paths;
    build_offsets(b, h);
    h->path_horizon_ns = in->opts.path_horizon_ns ? in->opts.path_horizon_ns : LATREC_PATHS_HORIZON_NS;
    h->path_warmup_skipped = latrec_pass_path_warmup_skipped(b->r->pass);
    h->cut_horizon = latrec_legs_cut_horizon(legs);
    h->cut_room = latrec_legs_cut_room(legs);
    char cuts[256];
    latrec_pass_cut_note(legs, cuts, sizeof(cuts));
    h->horizon_note = dup_str(b, cuts);
    h->warmup_ns = b->req->pass.warmup_ns;
    h->warmup_skipped = latrec_pass_warmup_skipped(b->r->pass);
    h->calibrated = b->req->pass.calibrate;
    h->outliers_dropped = b->req->drop_outliers;
    h->selection = b->req->pass.component || b->req->pass.leg || b->req->n_hop_specs;
}

void latrec_report_split_fill(latrec_report_split *s, const latrec_sched_acc *a)
{
    s->n = a->n;
    if (a->n) {
        const long double n = (long double)a->n;
        s->on_cpu = (double)(a->on_cpu / n);
        s->runq = (double)(a->runnable / n);
        s->blocked = (double)(a->blocked / n);
        s->unknown = (double)(a->unknown / n);
    }
    s->preemptions = a->preemptions;
    s->migrations = a->migrations;
}

/* The sentence parts of --explain for entry e of table t. */
static void build_why(struct builder *b, latrec_report_why *w, const latrec_leg_table *t, const struct rtable *rt,
                      const struct top_entry *e)
{
    const latrec_units *u = &b->req->units;
    /* The hop that took the most, leaving the total aside. */
    int worst = -1;
    for (int h = 0; h < t->n_hops; h++)
        if (e->has[h] && !t->hops[h].total && (worst < 0 || e->hop[h] > e->hop[worst])) worst = h;
    if (worst < 0) worst = rt->rank_hop;
    w->row = worst;
    w->value = e->hop[worst];
    w->has_share = e->has[rt->rank_hop] && e->key > 0;
    if (w->has_share) w->share_pct = 100.0 * (double)e->hop[worst] / (double)e->key;
    char why[1024];
    latrec_sched_view_explain(&b->r->sv, e->tid_b[worst], e->t_a[worst], e->t_b[worst], u->name, u->div, why,
                              sizeof(why));
    w->tid_b = e->tid_b[worst];
    w->why_b = dup_str(b, why);
    w->tid_a = e->tid_a[worst];
    if (e->tid_a[worst] != e->tid_b[worst] && b->r->sv.model) {
        latrec_sched_view_explain(&b->r->sv, e->tid_a[worst], e->t_a[worst], e->t_b[worst], u->name, u->div, why,
                                  sizeof(why));
        w->why_a = dup_str(b, why);
    }
}

static void build_top(struct builder *b, latrec_report_table *mt, const latrec_leg_table *t,
                      const struct rtable *rt)
{
    if (!rt->n_top) return;
    if (!(mt->top = calloc((size_t)rt->n_top, sizeof(*mt->top)))) {
        b->oom = 1;
        return;
    }
    mt->n_top = rt->n_top;
    const latrec_input *in = b->r->in;
    for (int k = 0; k < rt->n_top; k++) {
        const struct top_entry *e = &rt->top[k];
        latrec_report_instance *mi = &mt->top[k];
        mi->seq = e->seq;
        mi->process = dup_str(b, latrec_legs_process(latrec_pass_legs(b->r->pass), e->process)->label);
        mi->ring = dup_str(b, in->set.rings[e->ring].name);
        mi->t_ns = e->start;
        mi->start_ns = (int64_t)(e->start - latrec_pass_begin(b->r->pass));
        mi->value = calloc((size_t)t->n_hops + 1, sizeof(*mi->value));
        mi->has = calloc((size_t)t->n_hops + 1, sizeof(*mi->has));
        if (!mi->value || !mi->has) {
            b->oom = 1;
            return;
        }
        for (int h = 0; h < t->n_hops; h++) {
            mi->value[h] = e->hop[h];
            mi->has[h] = e->has[h];
        }
        if (k < b->req->explain) build_why(b, &mi->why, t, rt, e);
    }
}

static void build_table(struct builder *b, latrec_report_table *mt, const latrec_leg_table *t)
{
    const struct rtable *rt = t->user;
    mt->kind = LATREC_TABLE_LEG;
    mt->row_word = "hop";
    mt->component = dup_str(b, t->component_name);
    mt->name = dup_str(b, t->legdef.name);
    mt->discovered = t->legdef.discovered;
    mt->has_bytes = t->legdef.has_bytes;
    mt->instances = t->instances;
    mt->complete = t->complete;
    mt->rank_row = rt->rank_hop;
    mt->late = rt->series.late;
    if (!(mt->rows = calloc((size_t)t->n_hops + 1, sizeof(*mt->rows)))) {
        b->oom = 1;
        return;
    }
    mt->n_rows = t->n_hops + 1;
    for (int h = 0; h <= t->n_hops; h++) {
        latrec_report_row *row = &mt->rows[h];
        row->kind = h < t->n_hops ? LATREC_ROW_HOP : LATREC_ROW_GAPS;
        row->name = dup_str(b, h < t->n_hops ? t->hops[h].name : "inter-arrival");
        row->fig = rt->fig[h];
        const latrec_figures *base = baseline_of(b->base, t, h);
        if ((row->has_base = base != NULL)) row->base = *base;
        if ((row->has_split = b->r->sv.model && h < t->n_hops)) latrec_report_split_fill(&row->split, &rt->sacc[h]);
        row->in_sum = h < t->n_hops && chain_hop(t, h);
        if (h < t->n_hops) row->has_signed_mean = latrec_sum_mean(&rt->sum[h], &row->signed_mean);
        int bh;
        const struct rtable *bt = h < t->n_hops ? baseline_table(b->base, t, h, &bh) : NULL;
        if (bt) row->has_base_signed_mean = latrec_sum_mean(&bt->sum[bh], &row->base_signed_mean);
        if (b->req->dists && h == rt->rank_hop) {
            row->dist = latrec_report_dist_new((latrec_stats *)&rt->col[h], 0);
            latrec_stats *bc = baseline_column(b->base, t, h);
            if (bc && row->dist) row->base_dist = latrec_report_dist_new(bc, row->dist->per_decade);
        }
    }
    build_top(b, mt, t, rt);
}

/* The model's table of an interval row of run src (the run's or the
 * baseline's), by names (a path by catalog and name): -1 when the model
 * has none. */
static int table_of_row(const struct builder *b, const struct report_run *src, const struct interval_row *row)
{
    const latrec_report *m = b->m;
    const char *path = NULL;
    if (!row->table) { /* the path's name as the run's tables show it */
        const int k = latrec_path_index_find(b->r->in->paths, latrec_path_index_qualified(src->in->paths, row->path));
        if (k < 0) return -1;
        path = latrec_path_index_name(b->r->in->paths, k);
    }
    for (int i = 0; i < m->n_tables; i++) {
        const latrec_report_table *t = &m->tables[i];
        if (row->table ? t->kind == LATREC_TABLE_LEG && strcmp(t->component, row->table->component_name) == 0 &&
                             strcmp(t->name, row->table->legdef.name) == 0
                       : t->kind == LATREC_TABLE_PATH && strcmp(t->name, path) == 0)
            return i;
    }
    return -1;
}

/* The time series of src into *out (rows of tables the model has). */
static void build_intervals(struct builder *b, const struct report_run *src, latrec_report_interval **out,
                            size_t *n_out)
{
    if (!src || !src->n_rows) return;
    if (!(*out = calloc(src->n_rows, sizeof(**out)))) {
        b->oom = 1;
        return;
    }
    for (size_t k = 0; k < src->n_rows; k++) {
        const struct interval_row *row = &src->rows[k];
        latrec_report_interval *iv = &(*out)[*n_out];
        if ((iv->table = table_of_row(b, src, row)) < 0) continue;
        (*n_out)++;
        iv->idx = row->idx;
        iv->count = row->count;
        iv->bytes = row->bytes;
        iv->has_p50 = row->has_p50;
        iv->has_p99 = row->has_p99;
        iv->p50 = row->p50;
        iv->p99 = row->p99;
    }
}

int latrec_report_model_fill(latrec_report *m, struct report_run *r, struct report_run *base,
                             const latrec_report_request *req)
{
    struct builder b = { m, r, base, req, 0 };
    memcpy(m->pct, req->pct, (size_t)req->n_pct * sizeof(*req->pct));
    m->n_pct = req->n_pct;
    m->units = req->units;
    m->top = req->top;
    m->explain = req->explain;
    m->has_baseline = base != NULL;
    if (base) m->baseline_dir = dup_str(&b, req->baseline);
    m->interval_ns = r->interval_ns;
    /* the baseline's rings count too: a baseline read in part is compared in part */
    m->n_rejected = r->in->n_rejected + (base ? base->in->n_rejected : 0);
    build_header(&b);
    int n;
    latrec_leg_table **tables = latrec_pass_tables(r->pass, &n);
    if (n && !(m->tables = calloc((size_t)n, sizeof(*m->tables)))) return LATREC_REPORT_ERROR;
    m->n_tables = n;
    for (int i = 0; i < n && !b.oom; i++) build_table(&b, &m->tables[i], tables[i]);
    if (!b.oom && r->paths &&
        latrec_rpaths_build(r->paths, base ? base->paths : NULL, latrec_pass_paths(r->pass), latrec_pass_begin(r->pass),
                            latrec_pass_legs(r->pass), m) < 0)
        b.oom = 1;
    for (int i = n; i < m->n_tables; i++) /* the paths' late instances */
        for (int k = 0; k < r->n_path_series; k++)
            if (strcmp(m->tables[i].name, latrec_path_index_name(r->in->paths, k)) == 0)
                m->tables[i].late = r->path_series[k].late;
    build_intervals(&b, r, &m->intervals, &m->n_intervals);
    if (req->dists) build_intervals(&b, base, &m->base_intervals, &m->n_base_intervals); /* the page's overlay */
    if (b.oom) fprintf(stderr, "latrec report: out of memory\n");
    return b.oom ? LATREC_REPORT_ERROR : 0;
}

void latrec_report_free(latrec_report *m)
{
    for (int i = 0; i < m->n_tables; i++) {
        latrec_report_table *t = &m->tables[i];
        for (int h = 0; h < t->n_rows; h++) {
            free(t->rows[h].name);
            free(t->rows[h].dist);
            free(t->rows[h].base_dist);
            free(t->rows[h].where);
        }
        for (int k = 0; k < t->n_stops; k++) free(t->stops[k].leg);
        free(t->stops);
        for (int k = 0; k < t->n_top; k++) {
            latrec_report_instance *e = &t->top[k];
            free(e->process);
            free(e->ring);
            free(e->value);
            free(e->has);
            free(e->why.why_b);
            free(e->why.why_a);
        }
        free(t->rows);
        free(t->top);
        free(t->component);
        free(t->name);
        free(t->qualified);
    }
    free(m->tables);
    free(m->intervals);
    free(m->base_intervals);
    free(m->baseline_dir);
    latrec_report_header *h = &m->hdr;
    for (int i = 0; i < h->n_offsets; i++) {
        free(h->offsets[i].from);
        free(h->offsets[i].to);
    }
    for (int i = 0; i < h->n_aligned; i++) free(h->aligned[i]);
    free(h->command);
    free(h->exit_note);
    free(h->exit_json);
    free(h->horizon_note);
    free(h->catalog_note);
    free(h->sched_ring);
    free(h->sched_reason);
    memset(m, 0, sizeof(*m));
}
