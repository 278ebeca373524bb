/* The report's path tables: figures per segment, the scheduler's split,
 * the slowest instances explained, the incomplete ones counted. */
#include "engine/report_paths.h"
#include "engine/report_run.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/stats.h"

#define MAX_ROWS (LATREC_MAX_SEGS + 1) /* the segments (total last), then drops as delay */

struct ptop {
    int64_t key; /* the total, ns */
    uint64_t seq, start;
    uint32_t ring, process;
    int64_t v[LATREC_MAX_SEGS];
    uint8_t has[LATREC_MAX_SEGS];
    uint64_t t_a[LATREC_MAX_SEGS], t_b[LATREC_MAX_SEGS];
    uint32_t tid_a[LATREC_MAX_SEGS], tid_b[LATREC_MAX_SEGS];
};

struct rpath {
    int ready;
    int n_segs; /* the total included */
    latrec_segment segs[LATREC_MAX_SEGS];
    latrec_stats *col; /* n_segs + 1 */
    latrec_outlier_fence fence[MAX_ROWS];
    uint64_t exact[MAX_ROWS];
    latrec_figures fig[MAX_ROWS];
    latrec_sched_acc sacc[LATREC_MAX_SEGS];
    struct ptop *top;
    int n_top;
    uint64_t instances, complete, unresolved;
    latrec_sum sum[LATREC_MAX_SEGS]; /* signed sums of pass 1, for the waterfall */
};

struct latrec_rpaths {
    const latrec_report_request *req;
    const latrec_input *in;
    const latrec_sched_view *sv;
    const latrec_path_index *ix; /* the run's paths (in->paths) */
    struct rpath *p;             /* per run path */
    int n;
    struct ptop scratch; /* the instance being added (large: not on the stack) */
    int oom;
};

static int top_cap(const latrec_report_request *o)
{
    return o->top > o->explain ? o->top : o->explain;
}

latrec_rpaths *latrec_rpaths_new(const latrec_report_request *req, const latrec_input *in, const latrec_sched_view *sv)
{
    latrec_rpaths *rp = calloc(1, sizeof(*rp));
    if (!rp) return NULL;
    rp->req = req;
    rp->in = in;
    rp->sv = sv;
    rp->ix = in->paths;
    rp->n = latrec_path_index_n(in->paths);
    if (rp->n && !(rp->p = calloc((size_t)rp->n, sizeof(*rp->p)))) {
        free(rp);
        return NULL;
    }
    return rp;
}

void latrec_rpaths_reset(latrec_rpaths *rp)
{
    for (int k = 0; k < rp->n; k++) {
        struct rpath *p = &rp->p[k];
        if (p->col)
            for (int s = 0; s <= p->n_segs; s++) latrec_stats_free(&p->col[s]);
        free(p->col);
        free(p->top);
        memset(p, 0, sizeof(*p));
    }
    rp->oom = 0;
}

void latrec_rpaths_free(latrec_rpaths *rp)
{
    if (!rp) return;
    latrec_rpaths_reset(rp);
    free(rp->p);
    free(rp);
}

/* The path's columns, made on its first instance. */
static struct rpath *path_state(latrec_rpaths *rp, int path)
{
    struct rpath *p = &rp->p[path];
    if (p->ready) return p->col ? p : NULL;
    p->ready = 1;
    p->n_segs = latrec_path_index_segments(rp->ix, path, p->segs);
    if (!(p->col = calloc((size_t)p->n_segs + 1, sizeof(*p->col)))) goto oom;
    for (int s = 0; s <= p->n_segs; s++)
        if (latrec_stats_init(&p->col[s]) < 0) goto oom;
    if (top_cap(rp->req) && !(p->top = calloc((size_t)top_cap(rp->req), sizeof(*p->top)))) goto oom;
    return p;
oom:
    rp->oom = 1;
    if (p->col)
        for (int s = 0; s <= p->n_segs; s++) latrec_stats_free(&p->col[s]);
    free(p->col);
    p->col = NULL;
    return NULL;
}

static int ptop_before(const struct ptop *a, const struct ptop *b)
{
    return latrec_rank_before(a->key, a->start, a->ring, a->seq, a->process, b->key, b->start, b->ring, b->seq,
                              b->process);
}

/* Keep the N slowest by total, in latrec_rank_before's order (N is small). */
static void add_top(latrec_rpaths *rp, struct rpath *p, const latrec_path_instance *pi, struct ptop *e)
{
    const latrec_instance *first = pi->legs[0];
    e->seq = first->seq;
    e->start = pi->start_ns;
    e->process = first->process;
    e->ring = first->hits[0].ring;
    int n = p->n_top, cap = top_cap(rp->req);
    if (n == cap && !ptop_before(e, &p->top[n - 1])) return;
    int pos = n < cap ? n : n - 1;
    while (pos > 0 && ptop_before(e, &p->top[pos - 1])) {
        if (pos < cap) p->top[pos] = p->top[pos - 1];
        pos--;
    }
    p->top[pos] = *e;
    if (n < cap) p->n_top++;
}

static void add_first(latrec_rpaths *rp, struct rpath *p, const latrec_path_instance *pi)
{
    p->instances++;
    if (!pi->complete) {
        if (pi->delay_end_ns) latrec_stats_add(&p->col[p->n_segs], (int64_t)(pi->delay_end_ns - pi->start_ns));
        else p->unresolved++;
        return;
    }
    p->complete++;
    struct ptop *e = &rp->scratch;
    memset(e, 0, sizeof(*e));
    for (int s = 0; s < p->n_segs; s++) {
        const latrec_hit *a, *b;
        int64_t v;
        if (!(e->has[s] = (uint8_t)latrec_path_index_segment_value(rp->ix, pi, &p->segs[s], &v, &a, &b))) continue;
        e->v[s] = v;
        latrec_stats_add(&p->col[s], v);
        e->t_a[s] = a->t_ns;
        e->t_b[s] = b->t_ns;
        e->tid_a[s] = latrec_ring_tid(&rp->in->set.rings[a->ring]);
        e->tid_b[s] = latrec_ring_tid(&rp->in->set.rings[b->ring]);
        if (rp->sv->model && v >= 0 && p->segs[s].kind != LATREC_SEG_TOTAL)
            latrec_sched_view_add(rp->sv, &p->sacc[s], e->tid_b[s], a->t_ns, b->t_ns);
    }
    const int total = p->n_segs - 1;
    latrec_stats_add(&p->col[p->n_segs], e->v[total]); /* drops as delay: the delivered ones too */
    e->key = e->v[total];
    if (top_cap(rp->req) && e->has[total]) add_top(rp, p, pi, e);
}

/* Pass 2: exact outlier counts, and the columns without them. */
static void add_second(latrec_rpaths *rp, struct rpath *p, const latrec_path_instance *pi)
{
    int64_t v;
    const latrec_hit *a, *b;
    for (int s = 0; s <= p->n_segs; s++) {
        if (s == p->n_segs) {
            if (pi->complete) v = (int64_t)(pi->end_ns - pi->start_ns);
            else if (pi->delay_end_ns) v = (int64_t)(pi->delay_end_ns - pi->start_ns);
            else continue;
        } else if (!pi->complete || !latrec_path_index_segment_value(rp->ix, pi, &p->segs[s], &v, &a, &b)) {
            continue;
        }
        int out = v >= 0 && latrec_outliers_is_outlier(&p->fence[s], v);
        p->exact[s] += out;
        if (rp->req->drop_outliers && !out) latrec_stats_add(&p->col[s], v);
    }
}

void latrec_rpaths_add(latrec_rpaths *rp, const latrec_path_instance *pi, int pass_no)
{
    if (!pi->legs[0] || pi->path < 0 || pi->path >= rp->n) return; /* never: only anchored instances are emitted */
    struct rpath *p = path_state(rp, pi->path);
    if (!p) return;
    if (pass_no == 1) add_first(rp, p, pi);
    else add_second(rp, p, pi);
}

int latrec_rpaths_close_first(latrec_rpaths *rp)
{
    int need = 0;
    for (int k = 0; k < rp->n; k++) {
        struct rpath *p = &rp->p[k];
        if (!p->col) continue;
        for (int s = 0; s <= p->n_segs; s++) {
            latrec_figures_from_stats(&p->fig[s], &p->col[s], rp->req->pct, rp->req->n_pct);
            latrec_stats_fence(&p->col[s], &p->fence[s]);
            need |= p->fig[s].outliers != p->fig[s].outliers_max;
            if (s < p->n_segs) latrec_stats_signed_sum(&p->col[s], &p->sum[s]); /* before an outlier pass empties it */
        }
    }
    return need;
}

void latrec_rpaths_open_second(latrec_rpaths *rp)
{
    for (int k = 0; k < rp->n; k++)
        for (int s = 0; rp->p[k].col && s <= rp->p[k].n_segs; s++)
            if (rp->req->drop_outliers) latrec_stats_reset(&rp->p[k].col[s]);
}

void latrec_rpaths_close_second(latrec_rpaths *rp)
{
    for (int k = 0; k < rp->n; k++) {
        struct rpath *p = &rp->p[k];
        for (int s = 0; p->col && s <= p->n_segs; s++) {
            latrec_figures keep = p->fig[s];
            if (rp->req->drop_outliers) latrec_figures_from_stats(&p->fig[s], &p->col[s], rp->req->pct, rp->req->n_pct);
            p->fig[s].outliers = p->fig[s].outliers_max = p->exact[s];
            p->fig[s].outliers_known = keep.outliers_known;
            if (rp->req->drop_outliers) p->fig[s].regressions = keep.regressions;
        }
    }
}

int latrec_rpaths_want_explained(const latrec_rpaths *rp)
{
    for (int k = 0; k < rp->n; k++) {
        const struct rpath *p = &rp->p[k];
        for (int i = 0; i < p->n_top && i < rp->req->explain; i++) {
            const struct ptop *e = &p->top[i];
            if (latrec_report_want_hops(rp->sv, p->n_segs, e->has, e->t_a, e->t_b, e->tid_a, e->tid_b) < 0)
                return -1;
        }
    }
    return 0;
}

/* ---- the model -------------------------------------------------------------- */

static char *dup_or_flag(const char *s, int *oom)
{
    char *d = strdup(s ? s : "");
    if (!d) *oom = 1;
    return d;
}

/* The --explain sentence parts: the slowest segment but the total, and the
 * scheduler's account of it on the threads of its two stages. */
static void build_why(const latrec_rpaths *rp, const struct rpath *p, const struct ptop *e, latrec_report_why *w,
                      int *oom)
{
    const latrec_units *u = &rp->req->units;
    const int total = p->n_segs - 1;
    int worst = -1;
    for (int s = 0; s < total; s++)
        if (e->has[s] && (worst < 0 || e->v[s] > e->v[worst])) worst = s;
    if (worst < 0) worst = total;
    w->row = worst;
    w->value = e->v[worst];
    w->has_share = e->key > 0;
    if (w->has_share) w->share_pct = 100.0 * (double)e->v[worst] / (double)e->key;
    char why[1024];
    latrec_sched_view_explain(rp->sv, e->tid_b[worst], e->t_a[worst], e->t_b[worst], u->name, u->div, why, sizeof(why));
    w->tid_b = e->tid_b[worst];
    w->why_b = dup_or_flag(why, oom);
    w->tid_a = e->tid_a[worst];
    if (e->tid_a[worst] != e->tid_b[worst] && rp->sv->model) {
        latrec_sched_view_explain(rp->sv, e->tid_a[worst], e->t_a[worst], e->t_b[worst], u->name, u->div, why,
                                  sizeof(why));
        w->why_a = dup_or_flag(why, oom);
    }
}

static void build_top(const latrec_rpaths *rp, const struct rpath *p, latrec_report_table *t, uint64_t begin,
                      const latrec_legs *legs, int *oom)
{
    if (!p->n_top || !(t->top = calloc((size_t)p->n_top, sizeof(*t->top)))) {
        *oom |= p->n_top != 0;
        return;
    }
    t->n_top = p->n_top;
    for (int k = 0; k < p->n_top; k++) {
        const struct ptop *e = &p->top[k];
        latrec_report_instance *mi = &t->top[k];
        mi->seq = e->seq;
        mi->process = dup_or_flag(latrec_legs_process(legs, e->process)->label, oom);
        mi->ring = dup_or_flag(rp->in->set.rings[e->ring].name, oom);
        mi->t_ns = e->start;
        mi->start_ns = (int64_t)(e->start - begin);
        mi->value = calloc((size_t)p->n_segs + 1, sizeof(*mi->value));
        mi->has = calloc((size_t)p->n_segs + 1, sizeof(*mi->has));
        if (!mi->value || !mi->has) {
            *oom = 1;
            return;
        }
        for (int s = 0; s < p->n_segs; s++) {
            mi->value[s] = e->v[s];
            mi->has[s] = e->has[s];
        }
        if (k < rp->req->explain) build_why(rp, p, e, &mi->why, oom);
    }
}

/* The baseline's state of run path k: the path of the same catalog and
 * name (CATALOG:NAME, whatever else either run holds), or NULL. */
static const struct rpath *baseline_path(const latrec_rpaths *rp, const latrec_rpaths *base, int k)
{
    if (!base) return NULL;
    const int bk = latrec_path_index_find(base->ix, latrec_path_index_qualified(rp->ix, k));
    return bk >= 0 && base->p[bk].col ? &base->p[bk] : NULL;
}

/* The baseline's figures of the same row, or NULL. */
static const latrec_figures *baseline_of(const struct rpath *b, const char *row)
{
    if (!b) return NULL;
    for (int s = 0; s <= b->n_segs; s++)
        if (strcmp(s < b->n_segs ? b->segs[s].name : "total_drops_as_delay", row) == 0) return &b->fig[s];
    return NULL;
}

static void build_rows(const latrec_rpaths *rp, const latrec_rpaths *base, int k, latrec_report_table *t, int *oom)
{
    static const char *const kinds[] = { "hop", "hand-off", "total" };
    const struct rpath *p = &rp->p[k], *bp = baseline_path(rp, base, k);
    t->n_rows = p->n_segs + 1;
    for (int s = 0; s <= p->n_segs; s++) {
        latrec_report_row *row = &t->rows[s];
        const int dad = s == p->n_segs;
        row->kind = LATREC_ROW_HOP;
        row->name = dup_or_flag(dad ? "total_drops_as_delay" : p->segs[s].name, oom);
        row->segment = dad ? "drops-as-delay" : kinds[p->segs[s].kind];
        row->where = dup_or_flag(dad ? "" : p->segs[s].leg, oom);
        row->fig = p->fig[s];
        const latrec_figures *b = row->name ? baseline_of(bp, row->name) : NULL;
        if ((row->has_base = b != NULL)) row->base = *b;
        row->in_sum = !dad && p->segs[s].kind != LATREC_SEG_TOTAL;
        if (!dad) row->has_signed_mean = latrec_sum_mean(&p->sum[s], &row->signed_mean);
        if (b && !dad && s < bp->n_segs)
            row->has_base_signed_mean = latrec_sum_mean(&bp->sum[s], &row->base_signed_mean);
        if (rp->req->dists && s == p->n_segs - 1) { /* the total: the chart's row */
            row->dist = latrec_report_dist_new(&p->col[s], 0);
            if (b && row->dist) row->base_dist = latrec_report_dist_new(&bp->col[s], row->dist->per_decade);
        }
        row->has_split = rp->sv->model && !dad && p->segs[s].kind != LATREC_SEG_TOTAL;
        if (row->has_split) latrec_report_split_fill(&row->split, &p->sacc[s]);
    }
}

static void build_table(const latrec_rpaths *rp, const latrec_rpaths *base, int k, const latrec_path_index *counts,
                        uint64_t begin, const latrec_legs *legs, latrec_report_table *t, int *oom)
{
    const struct rpath *p = &rp->p[k];
    const latrec_path *path = latrec_path_index_path(rp->ix, k);
    const latrec_path_counts *c = latrec_path_index_counts(counts, k);
    if (!c) { /* never: counts is the same run's assembled index */
        *oom = 1;
        return;
    }
    t->kind = LATREC_TABLE_PATH;
    t->row_word = "segment";
    t->component = dup_or_flag("path", oom);
    t->name = dup_or_flag(latrec_path_index_name(rp->ix, k), oom);
    t->qualified = dup_or_flag(latrec_path_index_qualified(rp->ix, k), oom);
    t->instances = p->instances;
    t->complete = p->complete;
    t->incomplete = c->incomplete;
    t->unanchored = c->unanchored;
    t->cut_open = c->cut_open;
    t->drops_unresolved = p->unresolved;
    t->rank_row = p->n_segs - 1;
    if (!(t->rows = calloc((size_t)p->n_segs + 1, sizeof(*t->rows))) ||
        !(t->stops = calloc((size_t)path->n_legs, sizeof(*t->stops)))) {
        *oom = 1;
        return;
    }
    build_rows(rp, base, k, t, oom);
    t->n_stops = path->n_legs;
    for (int i = 0; i < path->n_legs; i++) {
        t->stops[i].leg = dup_or_flag(latrec_path_index_leg_name(rp->ix, k, i), oom);
        memcpy(t->stops[i].n, c->stopped[i], sizeof(t->stops[i].n));
    }
    build_top(rp, p, t, begin, legs, oom);
}

int latrec_rpaths_build(latrec_rpaths *rp, const latrec_rpaths *base, const latrec_path_index *counts, uint64_t begin,
                        const latrec_legs *legs, latrec_report *m)
{
    if (!counts) return 0;
    int add = 0, oom = rp->oom;
    for (int k = 0; k < rp->n; k++) add += rp->p[k].instances > 0;
    if (!add || oom) return oom ? -1 : 0;
    latrec_report_table *tables = realloc(m->tables, (size_t)(m->n_tables + add) * sizeof(*tables));
    if (!tables) return -1;
    m->tables = tables;
    for (int k = 0; k < rp->n && !oom; k++) {
        if (!rp->p[k].instances) continue;
        latrec_report_table *t = &m->tables[m->n_tables++];
        memset(t, 0, sizeof(*t));
        build_table(rp, base, k, counts, begin, legs, t, &oom);
    }
    return oom ? -1 : 0;
}
