/* The report's figures from a run: the passes over its records (figures per
 * hop, exact outliers, the slowest instances, the time series, the
 * scheduler's split) and, from them, the plain model of report_model.h. */
#include <stdlib.h>
#include <string.h>

#include "engine/align.h"
#include "engine/report_run.h"

static int top_cap(const latrec_report_request *o)
{
    return o->top > o->explain ? o->top : o->explain;
}

static int rank_hop_of(const latrec_leg_table *t)
{
    for (int h = 0; h < t->n_hops; h++)
        if (t->hops[h].total) return h;
    return t->n_hops ? 0 : -1;
}

static int rt_new(void *ctx, latrec_leg_table *t)
{
    struct report_run *r = ctx;
    if (r->pass_no == 2) { /* share the first pass's table of the same leg */
        int n;
        latrec_leg_table **tables = latrec_pass_tables(r->first, &n);
        for (int i = 0; i < n; i++)
            if (tables[i]->component == t->component && tables[i]->leg == t->leg) t->user = tables[i]->user;
        return 0;
    }
    struct rtable *rt = calloc(1, sizeof(*rt));
    if (!rt) return -1;
    t->user = rt;
    for (int h = 0; h < t->n_hops; h++)
        if (latrec_stats_init(&rt->col[h]) < 0) return -1;
    if (latrec_stats_init(&rt->gaps_stats) < 0) return -1;
    latrec_gaps_init(&rt->gaps, &rt->gaps_stats);
    rt->rank_hop = rank_hop_of(t);
    rt->series.table = t;
    rt->series.path = -1;
    if (top_cap(r->o) && !(rt->top = calloc((size_t)top_cap(r->o), sizeof(*rt->top)))) return -1;
    return 0;
}

static void rt_free(latrec_leg_table *t)
{
    struct rtable *rt = t->user;
    if (!rt) return;
    for (int h = 0; h < t->n_hops; h++) latrec_stats_free(&rt->col[h]);
    free(rt->rows);
    latrec_stats_free(&rt->gaps_stats);
    for (int i = 0; i < rt->series.n_open; i++) latrec_stats_free(&rt->series.open[i].total);
    latrec_kept_series_free(&rt->kept);
    free(rt->top);
    free(rt);
    t->user = NULL;
}

/* About 100 intervals over the run, a round length (1, 2 or 5 x 10^k ns,
 * at least 1 us). */
static uint64_t auto_interval(const latrec_input *in)
{
    latrec_input_totals t;
    latrec_input_totals_get(in, &t);
    uint64_t span = t.last_t > t.first_t ? t.last_t - t.first_t : 0;
    if (in->run_stop_real_ns > in->run_start_real_ns) span = in->run_stop_real_ns - in->run_start_real_ns;
    const uint64_t want = span / 100;
    uint64_t step = 1000;
    for (uint64_t decade = 1000; decade <= UINT64_MAX / 10; decade *= 10) {
        const uint64_t c[3] = { decade, 2 * decade, 5 * decade };
        for (int i = 0; i < 3; i++)
            if (c[i] <= want) step = c[i];
        if (decade * 10 > want) break;
    }
    return step;
}

/* The first pass starts over (engine/pass.h: a ring opened by the guess
 * was not what it said, or a pass by process gave up): every figure
 * gathered so far is forgotten, and what was taken from the rings before
 * the pass (the run's beginning, the automatic interval) is taken again,
 * since the rings may have been scanned since. The pass frees the tables
 * after this. */
static void rt_restart(void *ctx, latrec_leg_table **tables, int n)
{
    struct report_run *r = ctx;
    for (int i = 0; i < n; i++) rt_free(tables[i]);
    r->n_rows = 0;
    for (int k = 0; k < r->n_path_series; k++) {
        struct series *s = &r->path_series[k];
        for (int i = 0; i < s->n_open; i++) latrec_stats_free(&s->open[i].total);
        s->n_open = 0;
        s->late = 0;
    }
    if (r->paths) latrec_rpaths_reset(r->paths);
    /* the scheduler's view started with the pass: again from sched.latrec's
     * start */
    if (r->sv.pass) {
        latrec_sched_view_close(&r->sv);
        if (latrec_sched_view_open_pass(&r->sv, r->in) < 0) r->oom = 1; /* said */
    }
    r->begin = latrec_pass_run_begin(r->in);
    if (r->interval_auto) r->interval_ns = auto_interval(r->in);
}

/* The rows waiting to the columns col[0 .. n_hops), each column's in the
 * order they came. */
static void rows_flush(struct value_rows *w, latrec_stats *col, int n_hops)
{
    const uint32_t n = w->n, stride = (uint32_t)n_hops;
    for (uint32_t m = w->have_any; m; m &= m - 1) {
        const int h = __builtin_ctz(m);
        if (w->have_all >> h & 1) {
            latrec_stats_add_strided(&col[h], &w->v[h], stride, n, w->proc);
            continue;
        }
        for (uint32_t i = 0; i < n; i++)
            if (w->have[i] >> h & 1) latrec_stats_add_in(&col[h], w->v[i * stride + h], w->proc);
    }
    w->n = 0;
    w->have_all = UINT32_MAX;
    w->have_any = 0;
}

/* An instance's values v[h] (bit h of have) of process w->proc, as a row
 * (rows_flush first when w holds another process's: outlier chunks are
 * per process); 1 when the block is full (rows_flush next). */
static inline int rows_put(struct value_rows *w, int n_hops, uint32_t have, const int64_t *v)
{
    const uint32_t i = w->n, n = (uint32_t)n_hops;
    w->n = i + 1;
    w->have[i] = have;
    w->have_all &= have;
    w->have_any |= have;
    int64_t *row = &w->v[i * n];
    for (uint32_t h = 0; h < n; h++) row[h] = v[h]; /* those without a value are never read */
    return i + 1 == LATREC_STATS_BLOCK;
}

/* The rows of process k in a table's first pass in time order (NULL: out
 * of memory), each process's own: processes' instances interleave. */
static struct value_rows *rows_of(struct rtable *rt, uint32_t k)
{
    if (k >= rt->n_rows) {
        const uint32_t n = k + 1 > 2 * rt->n_rows ? k + 1 : 2 * rt->n_rows;
        struct value_rows *w = realloc(rt->rows, (size_t)n * sizeof(*w));
        if (!w) return NULL;
        for (uint32_t i = rt->n_rows; i < n; i++) {
            w[i].n = w[i].have_any = 0;
            w[i].have_all = UINT32_MAX;
        }
        rt->rows = w;
        rt->n_rows = n;
    }
    return &rt->rows[k];
}

/* A hop value in the less common cases: the scheduler's split, the
 * outlier pass. */
__attribute__((noinline)) static void on_value_more(struct report_run *r, latrec_leg_table *t, struct rtable *rt,
                                                    int hop, int64_t ns, const latrec_instance *inst)
{
    if (r->pass_no == 1) {
        latrec_stats_add_in(&rt->col[hop], ns, inst->process);
        const latrec_hit *a, *b;
        if (ns >= 0 && latrec_hop_hits_of_leg(&t->legdef, inst, &t->hops[hop], &a, &b)) {
            const latrec_ring *rb = &r->in->set.rings[b->ring];
            latrec_sched_view_add(&r->sv, &rt->sacc[hop], rb->tid ? rb->tid : latrec_ring_tid(rb), a->t_ns, b->t_ns);
        }
        return;
    }
    /* Outlier pass: exact counts, and the columns without the outliers. */
    int out = ns >= 0 && latrec_outliers_is_outlier(&rt->fence[hop], ns);
    rt->exact_outliers[hop] += out;
    if (r->o->drop_outliers && !out) latrec_stats_add_in(&rt->col[hop], ns, inst->process);
}

/* An instance's hop values: the first pass without the scheduler's split
 * only stores each (stats.h). */
static void on_values(void *ctx, latrec_leg_table *t, uint32_t have, const int64_t *v, const latrec_instance *inst)
{
    struct report_run *r = ctx;
    struct rtable *rt = t->user;
    if (!rt) return;
    if (r->pass_no == 1 && !r->sv.model) {
        struct value_rows *w = rows_of(rt, inst->process); /* chunks per process (outliers.h) */
        if (!w) {
            r->oom = 1;
            return;
        }
        w->proc = inst->process;
        if (rows_put(w, t->n_hops, have, v)) rows_flush(w, rt->col, t->n_hops);
        return;
    }
    for (uint32_t m = have; m; m &= m - 1) {
        const int h = __builtin_ctz(m);
        on_value_more(r, t, rt, h, v[h], inst);
    }
}

static void on_first_stage(void *ctx, latrec_leg_table *t, uint64_t t_ns)
{
    struct report_run *r = ctx;
    struct rtable *rt = t->user;
    if (r->pass_no == 1) {
        latrec_gaps_feed(&rt->gaps, t_ns);
        return;
    }
    /* Outlier pass: the same gaps as latrec_gaps_feed() makes, counted
     * against the inter-arrival fence like the hops in on_value_more(). */
    uint64_t prev = rt->gap_prev;
    int had = rt->gap_have_prev;
    rt->gap_prev = t_ns;
    rt->gap_have_prev = 1;
    if (!had) return;
    uint64_t d = t_ns >= prev ? t_ns - prev : prev - t_ns;
    int64_t gap = d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
    if (t_ns < prev) gap = -gap;
    int out = gap >= 0 && latrec_outliers_is_outlier(&rt->fence[t->n_hops], gap);
    rt->exact_outliers[t->n_hops] += out;
    if (r->o->drop_outliers && !out) latrec_stats_add(&rt->gaps_stats, gap);
}

/* Keep the N slowest in top[0 .. *n), in latrec_top_before's order (a
 * total order: the list is the same whatever order entries come in). */
static void keep_top(struct top_entry *top, int *n_top, int cap, const struct top_entry *e)
{
    int n = *n_top;
    if (n == cap && !latrec_top_before(e, &top[n - 1])) return;
    int pos = n < cap ? n : n - 1;
    while (pos > 0 && latrec_top_before(e, &top[pos - 1])) {
        if (pos < cap) top[pos] = top[pos - 1];
        pos--;
    }
    top[pos] = *e;
    if (n < cap) (*n_top)++;
}

/* The instance among the N slowest of t so far (top, *n_top). */
static void add_top(const struct report_run *r, const latrec_leg_table *t, const struct rtable *rt,
                    const latrec_instance *inst, struct top_entry *top, int *n_top)
{
    if (rt->rank_hop < 0) return;
    /* The table's copy of the leg: r->pass is not set while the pass runs. */
    const latrec_leg *leg = &t->legdef;
    struct top_entry e;
    memset(&e, 0, sizeof(e));
    for (int h = 0; h < t->n_hops; h++) {
        const latrec_hit *a, *b;
        if (!(e.has[h] = (uint8_t)latrec_hop_hits(leg, inst, &t->hops[h], &a, &b))) continue;
        e.hop[h] = (int64_t)(b->t_ns - a->t_ns);
        e.t_a[h] = a->t_ns;
        e.t_b[h] = b->t_ns;
        e.tid_a[h] = latrec_ring_tid(&r->in->set.rings[a->ring]);
        e.tid_b[h] = latrec_ring_tid(&r->in->set.rings[b->ring]);
    }
    if (!e.has[rt->rank_hop]) return;
    e.key = e.hop[rt->rank_hop];
    e.seq = inst->seq;
    e.start = inst->first_t;
    e.process = inst->process;
    for (int i = 0; i < inst->n_hits; i++)
        if (inst->hits[i].t_ns == inst->first_t) {
            e.ring = inst->hits[i].ring;
            break;
        }
    keep_top(top, n_top, top_cap(r->o), &e);
}

struct interval_row *latrec_report_row_new(struct report_run *r)
{
    if (r->n_rows == r->cap_rows) {
        size_t cap = r->cap_rows ? r->cap_rows * 2 : 256;
        struct interval_row *rows = realloc(r->rows, cap * sizeof(*rows));
        if (!rows) {
            r->oom = 1;
            return NULL;
        }
        r->rows = rows;
        r->cap_rows = cap;
    }
    struct interval_row *row = &r->rows[r->n_rows++];
    memset(row, 0, sizeof(*row));
    return row;
}

static void close_interval(struct report_run *r, struct series *s, int i)
{
    struct interval *iv = &s->open[i];
    struct interval_row *row = latrec_report_row_new(r);
    if (!row) return;
    row->table = s->table;
    row->path = s->path;
    row->idx = iv->idx;
    row->count = iv->count;
    row->bytes = iv->bytes;
    row->has_p50 = latrec_stats_percentile(&iv->total, 50, &row->p50);
    row->has_p99 = latrec_stats_percentile(&iv->total, 99, &row->p99);
    latrec_stats_free(&iv->total);
    s->open[i] = s->open[--s->n_open];
}

static void close_series(struct report_run *r, struct series *s)
{
    for (int k = s->n_open - 1; k >= 0; k--) close_interval(r, s, k);
}

/* The byte count an instance carries (the catalog's `bytes` field of the
 * leg), 0 when that stage is absent. Same rule as latrec_instance_field(),
 * from the table's copy of the leg. */
static uint64_t instance_bytes(const latrec_leg *leg, const latrec_instance *inst)
{
    int present;
    return latrec_instance_hit_field(inst, latrec_leg_hit_pos(leg, leg->bytes_stage), leg->bytes_field, &present);
}

/* The interval of series s that an instance starting at first_t counts in,
 * opened if needed; NULL before the beginning, when that interval was
 * closed already (counted late) or out of memory. */
static struct interval *series_slot(struct report_run *r, struct series *s, uint64_t first_t)
{
    const uint64_t begin = r->begin;
    if (first_t < begin) return NULL;
    const uint64_t idx = (first_t - begin) / r->interval_ns;
    /* Close intervals the stream has left behind by more than the lateness. */
    for (int i = 0; i < s->n_open;) {
        if ((s->open[i].idx + 1) * r->interval_ns + INTERVAL_LATENESS_NS < first_t - begin)
            close_interval(r, s, i);
        else
            i++;
    }
    int slot = -1;
    uint64_t oldest_idx = UINT64_MAX;
    int oldest = -1;
    for (int i = 0; i < s->n_open; i++) {
        if (s->open[i].idx == idx) slot = i;
        if (s->open[i].idx < oldest_idx) {
            oldest_idx = s->open[i].idx;
            oldest = i;
        }
    }
    if (slot < 0) {
        for (size_t k = 0; k < r->n_rows; k++)
            if (r->rows[k].table == s->table && r->rows[k].path == s->path && r->rows[k].idx == idx) {
                s->late++; /* its interval was closed already */
                return NULL;
            }
        if (s->n_open == MAX_OPEN_INTERVALS) close_interval(r, s, oldest);
        slot = s->n_open;
        memset(&s->open[slot], 0, sizeof(s->open[slot]));
        if (latrec_stats_init(&s->open[slot].total) < 0) {
            r->oom = 1;
            return NULL;
        }
        s->open[slot].idx = idx;
        s->n_open++;
    }
    return &s->open[slot];
}

int latrec_report_interval_values(const latrec_leg_table *t, const latrec_instance *inst, uint64_t *bytes, int64_t *v)
{
    const latrec_leg *leg = &t->legdef;
    *bytes = leg->has_bytes ? instance_bytes(leg, inst) : 0;
    int n = 0;
    for (int h = 0; h < t->n_hops; h++) {
        uint32_t ring;
        if (t->hops[h].total && latrec_hop_value(leg, inst, &t->hops[h], &v[n], &ring)) n++;
    }
    return n;
}

static void add_interval(struct report_run *r, latrec_leg_table *t, struct rtable *rt, const latrec_instance *inst)
{
    struct interval *iv = series_slot(r, &rt->series, inst->first_t);
    if (!iv) return;
    iv->count++;
    uint64_t bytes;
    int64_t v[LATREC_MAX_HOPS];
    const int n = latrec_report_interval_values(t, inst, &bytes, v);
    iv->bytes += bytes;
    for (int k = 0; k < n; k++) latrec_stats_add(&iv->total, v[k]);
}

static void on_instance(void *ctx, latrec_leg_table *t, const latrec_instance *inst)
{
    struct report_run *r = ctx;
    struct rtable *rt = t->user;
    if (r->pass_no != 1) return;
    if (top_cap(r->o)) add_top(r, t, rt, inst, rt->top, &rt->n_top);
    if (r->interval_ns) add_interval(r, t, rt, inst);
}

/* ---- read by process (engine/pass.h): a thread's part of a table ---------- */

/* What the first pass gathers per table apart from the scheduler's split
 * and the inter-arrival gaps (those come in time order at the end). */
struct rpart {
    const struct report_run *r;
    const latrec_leg_table *t;
    const struct rtable *rt;
    int n_hops; /* t's (part_free runs after t is freed) */
    latrec_stats col[LATREC_MAX_HOPS];
    struct top_entry *top;
    int n_top;
    struct value_rows rows;
    struct part_series *series; /* --interval (report_series.c) */
};

static void rpart_free(void *part)
{
    struct rpart *pt = part;
    for (int h = 0; h < pt->n_hops; h++) latrec_stats_free(&pt->col[h]);
    latrec_part_series_free(pt->series);
    free(pt->top);
    free(pt);
}

static void *rpart_new(void *ctx, const latrec_leg_table *t)
{
    const struct report_run *r = ctx;
    struct rpart *pt = calloc(1, sizeof(*pt));
    if (!pt) return NULL;
    pt->r = r;
    pt->t = t;
    pt->rt = t->user;
    pt->n_hops = t->n_hops;
    pt->rows.have_all = UINT32_MAX;
    int ok = !top_cap(r->o) || (pt->top = calloc((size_t)top_cap(r->o), sizeof(*pt->top))) != NULL;
    ok &= !r->interval_ns || (pt->series = latrec_part_series_new()) != NULL;
    for (int h = 0; h < t->n_hops; h++) ok &= latrec_stats_init(&pt->col[h]) == 0;
    if (!ok) {
        rpart_free(pt);
        return NULL;
    }
    return pt;
}

/* on_values', pass 1 without scheduler data (sinks.restart is not set with it). */
__attribute__((noinline)) static void rpart_flush(struct rpart *pt)
{
    rows_flush(&pt->rows, pt->col, pt->n_hops);
}

static void rpart_values(void *part, uint32_t have, const int64_t *v, const latrec_instance *inst)
{
    struct rpart *pt = part;
    if (pt->rows.n && inst->process != pt->rows.proc) rpart_flush(pt);
    pt->rows.proc = inst->process;
    if (rows_put(&pt->rows, pt->n_hops, have, v)) rpart_flush(pt);
}

/* on_instance's. */
static void rpart_instance(void *part, const latrec_instance *inst)
{
    struct rpart *pt = part;
    if (pt->top) add_top(pt->r, pt->t, pt->rt, inst, pt->top, &pt->n_top);
    if (pt->series) latrec_part_series_add(pt->series, pt->r, pt->t, inst);
}

/* Exact sums, per-process outlier chunks (a process is in one part only),
 * a total order of the slowest and the intervals' sums: the same figures
 * in any order. */
static int rpart_fold(void *ctx, latrec_leg_table *t, void *part)
{
    struct report_run *r = ctx;
    struct rtable *rt = t->user;
    struct rpart *pt = part;
    int rc = 0;
    rpart_flush(pt);
    for (int h = 0; h < t->n_hops && rc == 0; h++) rc = latrec_stats_merge(&rt->col[h], &pt->col[h]);
    for (int k = 0; k < pt->n_top; k++) keep_top(rt->top, &rt->n_top, top_cap(r->o), &pt->top[k]);
    if (pt->series && latrec_part_series_fold(&rt->kept, pt->series) < 0) rc = -1;
    pt->series = NULL;
    rpart_free(pt);
    return rc;
}

/* The later part of the first-stage stamps, read by process on a second
 * thread (engine/pass.h): their gaps in a column of their own, from the
 * last stamp before them, in outlier chunks from the cut on. */
struct gpart {
    latrec_stats gaps_stats;
    latrec_gaps gaps;
};

static void *gpart_new(void *ctx, const latrec_leg_table *t, uint64_t prev)
{
    (void)ctx;
    (void)t;
    struct gpart *g = calloc(1, sizeof(*g));
    if (!g) return NULL;
    if (latrec_stats_init(&g->gaps_stats) < 0) {
        latrec_stats_free(&g->gaps_stats);
        free(g);
        return NULL;
    }
    latrec_gaps_init(&g->gaps, &g->gaps_stats);
    g->gaps.prev = prev;
    g->gaps.have_prev = 1;
    return g;
}

static void gpart_stamp(void *part, uint64_t t_ns)
{
    struct gpart *g = part;
    latrec_gaps_feed(&g->gaps, t_ns);
}

/* After the stamps before the cut, a whole number of chunks: the same
 * column as every gap fed in turn. */
static int gpart_fold(void *ctx, latrec_leg_table *t, void *part)
{
    (void)ctx;
    struct rtable *rt = t->user;
    struct gpart *g = part;
    const int rc = latrec_stats_merge(&rt->gaps_stats, &g->gaps_stats);
    rt->gaps.prev = g->gaps.prev;
    rt->gaps.have_prev = 1;
    latrec_stats_free(&g->gaps_stats);
    free(g);
    return rc;
}

static void on_path(void *ctx, const latrec_path_instance *pi)
{
    struct report_run *r = ctx;
    latrec_rpaths_add(r->paths, pi, r->pass_no);
    /* a path's time series: its complete instances' end-to-end total */
    if (r->pass_no != 1 || !pi->complete || pi->path >= r->n_path_series) return;
    struct interval *iv = series_slot(r, &r->path_series[pi->path], pi->start_ns);
    if (!iv) return;
    iv->count++;
    latrec_stats_add(&iv->total, (int64_t)(pi->end_ns - pi->start_ns));
}

static int cmp_tables(const void *a, const void *b)
{
    const latrec_leg_table *x = *(latrec_leg_table *const *)a, *y = *(latrec_leg_table *const *)b;
    int c = strcmp(x->component_name, y->component_name);
    return c ? c : x->leg - y->leg;
}

static int cmp_rows(const void *a, const void *b)
{
    const struct interval_row *x = a, *y = b;
    if (x->idx != y->idx) return x->idx < y->idx ? -1 : 1;
    if (x->path != y->path) return x->path < y->path ? -1 : 1; /* legs (-1), then paths in catalog order */
    return x->table ? cmp_tables(&x->table, &y->table) : 0;
}

void latrec_report_run_free(struct report_run *r)
{
    if (r->pass) {
        int n;
        latrec_leg_table **tables = latrec_pass_tables(r->pass, &n);
        for (int i = 0; i < n; i++) rt_free(tables[i]);
        r->pass = NULL; /* the engine's: freed with it */
    }
    free(r->rows);
    r->rows = NULL;
    for (int k = 0; k < r->n_path_series; k++)
        for (int i = 0; i < r->path_series[k].n_open; i++) latrec_stats_free(&r->path_series[k].open[i].total);
    free(r->path_series);
    r->path_series = NULL;
    r->n_path_series = 0;
    latrec_sched_view_close(&r->sv);
    latrec_rpaths_free(r->paths);
    r->paths = NULL;
    latrec_engine_close(r->e);
    r->e = NULL;
    r->in = NULL;
}

/* The scheduler's splits --explain will ask about: every hop of each
 * instance it explains, on the threads of both its stages. */
static int want_explained(struct report_run *r)
{
    int n;
    latrec_leg_table **tables = latrec_pass_tables(r->pass, &n);
    for (int i = 0; i < n; i++) {
        const struct rtable *rt = tables[i]->user;
        for (int k = 0; rt && k < rt->n_top && k < r->o->explain; k++) {
            const struct top_entry *e = &rt->top[k];
            if (latrec_report_want_hops(&r->sv, tables[i]->n_hops, e->has, e->t_a, e->t_b, e->tid_a, e->tid_b) < 0)
                return -1;
        }
    }
    return r->paths ? latrec_rpaths_want_explained(r->paths) : 0;
}

/* Column h of a table: a hop, or (h == n_hops) the inter-arrival gaps. */
static latrec_stats *column_of(struct rtable *rt, const latrec_leg_table *t, int h)
{
    return h < t->n_hops ? &rt->col[h] : &rt->gaps_stats;
}

/* The second pass over the same records (--drop-outliers, or outliers the
 * first pass could only bound): its tables share the first pass's state
 * (same data, same builder: same component and leg indexes). 0, or -1. */
static int second_pass(struct report_run *r, const latrec_pass_opts *popts, const latrec_pass_sinks *sinks,
                       latrec_leg_table **tables, int n)
{
    const latrec_report_request *o = r->o;
    for (int i = 0; i < n; i++)
        for (int h = 0; h <= tables[i]->n_hops; h++)
            if (o->drop_outliers) latrec_stats_reset(column_of(tables[i]->user, tables[i], h));
    if (r->paths) latrec_rpaths_open_second(r->paths);
    r->first = r->pass;
    r->pass_no = 2;
    latrec_pass_sinks again = *sinks;
    again.restart = NULL; /* its tables share the first pass's state: in time order */
    again.part_new = NULL;
    const int second = latrec_engine_run_again(r->e, popts, &again);
    r->pass = r->first;
    r->first = NULL;
    if (second < 0) return -1;
    if (r->paths) latrec_rpaths_close_second(r->paths);
    for (int i = 0; i < n; i++) {
        struct rtable *rt = tables[i]->user;
        for (int h = 0; h <= tables[i]->n_hops; h++) {
            latrec_figures keep = rt->fig[h];
            if (o->drop_outliers) latrec_figures_from_stats(&rt->fig[h], column_of(rt, tables[i], h), o->pct, o->n_pct);
            rt->fig[h].outliers = rt->fig[h].outliers_max = rt->exact_outliers[h];
            rt->fig[h].outliers_known = keep.outliers_known;
            if (o->drop_outliers) rt->fig[h].regressions = keep.regressions;
        }
    }
    return 0;
}

int latrec_report_analyse(struct report_run *r, const latrec_input_opts *input_opts)
{
    const latrec_report_request *o = r->o;
    if (!(r->e = latrec_engine_open(input_opts, "report", 0))) return LATREC_REPORT_ERROR;
    r->in = latrec_engine_input(r->e);
    /* The scheduler's view reads sched.latrec itself (below): opened by
     * the guess, it is scanned first, since no pass checks it. */
    if (r->in->sched_ring >= 0 && !r->in->opts.wall) latrec_input_settle_ring(r->in, (uint32_t)r->in->sched_ring);
    /* the baseline takes the run's (set before): their series line up */
    if (!r->interval_ns) {
        r->interval_auto = !o->interval_ns && o->auto_interval;
        r->interval_ns = o->interval_ns ? o->interval_ns : r->interval_auto ? auto_interval(r->in) : 0;
    }
    /* The scheduler's view reads along with a pass in time order and
     * starts over with it (rt_restart); the passes read the program's
     * rings only. */
    if (latrec_sched_view_open_pass(&r->sv, r->in) < 0) return LATREC_REPORT_ERROR;
    r->in->merge_no_sched = r->sv.pass != NULL;
    latrec_pass_opts popts = o->pass;
    if (latrec_pass_names_resolve(&popts.hops, r->in, o->hop_specs, o->n_hop_specs, o->pass.path, "report") < 0)
        return LATREC_REPORT_ERROR;
    if (o->pass.paths && !(r->paths = latrec_rpaths_new(o, r->in, &r->sv))) return LATREC_REPORT_ERROR;
    const int n_paths = latrec_path_index_n(r->in->paths);
    if (o->pass.paths && r->interval_ns && n_paths) {
        if (!(r->path_series = calloc((size_t)n_paths, sizeof(*r->path_series)))) return LATREC_REPORT_ERROR;
        r->n_path_series = n_paths;
        for (int k = 0; k < r->n_path_series; k++) r->path_series[k].path = k;
    }
    latrec_pass_sinks sinks = { .ctx = r,
                                .table_new = rt_new,
                                .values = on_values,
                                /* it keeps the slowest and the time series: none, no call */
                                .instance = top_cap(o) || r->interval_ns ? on_instance : NULL,
                                .first_stage = on_first_stage,
                                .path_instance = o->pass.paths ? on_path : NULL };
    sinks.restart = rt_restart;
    if (!r->sv.model) { /* the scheduler's view reads along with a pass in time order */
        sinks.part_new = rpart_new;
        sinks.part_values = rpart_values;
        sinks.part_instance = r->interval_ns || top_cap(o) ? rpart_instance : NULL;
        sinks.part_fold = rpart_fold;
        sinks.part_free = rpart_free;
        sinks.part_in_end_order = 1; /* outlier chunks */
        sinks.first_stage_chunk = LATREC_OUTLIER_CHUNK;
        sinks.first_stage_part = gpart_new;
        sinks.part_first_stage = gpart_stamp;
        sinks.first_stage_fold = gpart_fold;
        /* --interval: no instance is counted late in time order (its
         * interval closed by a later one, or more than its series' open
         * intervals opened after it) while none ends later than this after
         * its first stamp (an instance I ends no earlier than any J before
         * it, which started before J's end: J starts at most an age after
         * I) */
        if (r->interval_ns) {
            const uint64_t span = (MAX_OPEN_INTERVALS - 2) * r->interval_ns;
            sinks.part_age_max = r->interval_ns < UINT64_MAX / MAX_OPEN_INTERVALS && span < INTERVAL_LATENESS_NS
                                     ? span
                                     : INTERVAL_LATENESS_NS;
        }
    }
    /* The callbacks run inside the engine's steps, before r->pass is set:
     * they take the run's beginning from here (pass.c's rule). */
    r->begin = latrec_pass_run_begin(r->in);
    r->pass_no = 1;
    if (latrec_engine_start(r->e, &popts, &sinks) < 0 || latrec_engine_run(r->e) < 0 || r->oom)
        return LATREC_REPORT_ERROR;
    r->pass = latrec_engine_pass(r->e);
    if (want_explained(r) < 0 || latrec_sched_view_end_pass(&r->sv) < 0) return LATREC_REPORT_ERROR;
    int n;
    latrec_leg_table **tables = latrec_pass_tables(r->pass, &n);
    int need_second = o->drop_outliers;
    for (int i = 0; i < n; i++) {
        struct rtable *rt = tables[i]->user;
        for (uint32_t k = 0; k < rt->n_rows; k++) rows_flush(&rt->rows[k], rt->col, tables[i]->n_hops);
        /* Hops, then the inter-arrival column (index n_hops). */
        for (int h = 0; h <= tables[i]->n_hops; h++) {
            latrec_stats *col = column_of(rt, tables[i], h);
            latrec_figures_from_stats(&rt->fig[h], col, o->pct, o->n_pct);
            latrec_stats_fence(col, &rt->fence[h]);
            need_second |= rt->fig[h].outliers != rt->fig[h].outliers_max;
            if (h < tables[i]->n_hops) latrec_stats_signed_sum(col, &rt->sum[h]); /* before an outlier pass empties it */
        }
        close_series(r, &rt->series);
        if (latrec_kept_series_rows(r, tables[i], &rt->kept) < 0) r->oom = 1;
    }
    for (int k = 0; k < r->n_path_series; k++) close_series(r, &r->path_series[k]);
    if (r->paths) need_second |= latrec_rpaths_close_first(r->paths);
    if (r->oom) return LATREC_REPORT_ERROR;
    if (need_second && second_pass(r, &popts, &sinks, tables, n) < 0) return LATREC_REPORT_ERROR;
    if (n) qsort(tables, (size_t)n, sizeof(*tables), cmp_tables); /* tables is NULL when there are none */
    /* Intervals close in no useful order (late ones, several legs, the
     * rest at the end): print them by time, then component and leg. */
    if (r->n_rows) qsort(r->rows, r->n_rows, sizeof(*r->rows), cmp_rows);
    return 0;
}

int latrec_report_build(latrec_report *m, const latrec_input_opts *input, const latrec_report_request *req)
{
    memset(m, 0, sizeof(*m));
    struct report_run run, base_run;
    memset(&run, 0, sizeof(run));
    memset(&base_run, 0, sizeof(base_run));
    run.o = base_run.o = req;
    int rc = latrec_report_analyse(&run, input);
    if (rc == 0 && latrec_pass_check_names(run.pass, "report") < 0) rc = LATREC_REPORT_ERROR;
    if (rc == 0 && req->baseline) {
        latrec_input_opts bo = *input;
        bo.n_dirs = 0;
        bo.align = 0; /* one directory: nothing to align */
        latrec_input_add_dir(&bo, req->baseline);
        base_run.interval_ns = run.interval_ns;
        rc = latrec_report_analyse(&base_run, &bo);
    }
    if (rc == 0) rc = latrec_report_model_fill(m, &run, req->baseline ? &base_run : NULL, req);
    latrec_report_run_free(&run);
    latrec_report_run_free(&base_run);
    return rc;
}
