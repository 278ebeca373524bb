/* latrec top: the rows and their interval and since-start histograms
 * (cli/top_model.h), fed by the pass sinks. */
#include "cli/top_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per leg table: the row of each hop, -1 when not shown. */
struct top_table {
    int row[LATREC_MAX_HOPS];
};

void latrec_top_init(latrec_top *t, const latrec_input *in, const latrec_pass_opts *sel)
{
    memset(t, 0, sizeof(*t));
    t->in = in;
    t->per_hop = sel->leg != NULL || sel->hops.n > 0;
    t->paths = sel->paths;
    for (int i = 0; i < LATREC_RUN_MAX_PATHS; i++) t->path_row[i] = -1;
}

void latrec_top_free(latrec_top *t)
{
    for (int r = 0; r < t->n_rows; r++) {
        latrec_loghist_free(&t->rows[r].h[LATREC_TOP_LAST]);
        latrec_loghist_free(&t->rows[r].h[LATREC_TOP_ALL]);
    }
    free(t->rows);
    t->rows = NULL;
    free(t->wait);
    t->wait = NULL;
    t->wait_head = t->wait_n = t->wait_cap = 0;
    t->n_rows = t->cap_rows = 0;
}

/* A new row (its histograms allocated): its index, or -1 out of memory. */
static int add_row(latrec_top *t, int is_path, const char *name, const char *hop)
{
    if (t->n_rows == t->cap_rows) {
        int cap = t->cap_rows ? t->cap_rows * 2 : 16;
        latrec_top_row *p = realloc(t->rows, (size_t)cap * sizeof(*p));
        if (!p) return -1;
        t->rows = p;
        t->cap_rows = cap;
    }
    latrec_top_row *row = &t->rows[t->n_rows];
    memset(row, 0, sizeof(*row));
    row->is_path = is_path;
    snprintf(row->name, sizeof(row->name), "%s", name);
    snprintf(row->hop, sizeof(row->hop), "%s", hop);
    if (latrec_loghist_init(&row->h[0]) < 0 || latrec_loghist_init(&row->h[1]) < 0) {
        latrec_loghist_free(&row->h[0]);
        latrec_loghist_free(&row->h[1]);
        return -1;
    }
    return t->n_rows++;
}

static void add_value(latrec_top *t, int r, int64_t ns)
{
    if (ns < 0) {
        t->regressions++;
        return;
    }
    latrec_loghist_record(&t->rows[r].h[LATREC_TOP_LAST], ns);
    latrec_loghist_record(&t->rows[r].h[LATREC_TOP_ALL], ns);
}

static int top_table_new(void *ctx, latrec_leg_table *lt)
{
    latrec_top *t = ctx;
    struct top_table *tt = malloc(sizeof(*tt));
    if (!tt) return -1;
    lt->user = tt;
    char name[sizeof(t->rows[0].name)];
    snprintf(name, sizeof(name), "%s/%s", lt->component_name, lt->legdef.name);
    for (int k = 0; k < lt->n_hops; k++) {
        tt->row[k] = -1;
        if (!t->per_hop && !lt->hops[k].total) {
            lt->wanted &= ~(1u << k); /* no row: the pass need not compute it */
            continue;
        }
        if ((tt->row[k] = add_row(t, 0, name, lt->hops[k].name)) < 0) {
            t->oom = 1;
            return -1;
        }
    }
    return 0;
}

/* Split [t_a, t_b] on tid into the row's since-start sums (their hint
 * speeds the thread's next one) and what it added into the interval's. */
static void split(latrec_top *t, int r, uint32_t tid, uint64_t t_a, uint64_t t_b)
{
    latrec_top_row *row = &t->rows[r];
    latrec_sched_acc *all = &row->sched[LATREC_TOP_ALL], *last = &row->sched[LATREC_TOP_LAST];
    if (latrec_sched_view_add_also(t->sv, all, last, tid, t_a, t_b) < 0) return;
    row->hop_ns[LATREC_TOP_ALL] += (long double)(t_b - t_a);
    row->hop_ns[LATREC_TOP_LAST] += (long double)(t_b - t_a);
}

/* Hold an instance until the scheduler data of its time is there. */
static void wait_push(latrec_top *t, int r, uint32_t tid, uint64_t t_a, uint64_t t_b)
{
    if (t->wait_n - t->wait_head >= LATREC_TOP_WAIT_MAX) {
        t->unsplit++;
        return;
    }
    if (t->wait_n == t->wait_cap) {
        if (t->wait_head) { /* room at the front first */
            memmove(t->wait, t->wait + t->wait_head, (t->wait_n - t->wait_head) * sizeof(*t->wait));
            t->wait_n -= t->wait_head;
            t->wait_head = 0;
        }
        if (t->wait_n == t->wait_cap) {
            size_t cap = t->wait_cap ? t->wait_cap * 2 : 4096;
            latrec_top_wait *w = realloc(t->wait, cap * sizeof(*w));
            if (!w) {
                t->unsplit++;
                return;
            }
            t->wait = w;
            t->wait_cap = cap;
        }
    }
    t->wait[t->wait_n++] = (latrec_top_wait){ r, tid, t_a, t_b };
    t->rows[r].pending++;
}

void latrec_top_sched_settle(latrec_top *t)
{
    for (size_t i = t->wait_head; i < t->wait_n; i++) t->rows[t->wait[i].row].pending--;
    t->unsplit += t->wait_n - t->wait_head;
    t->wait_head = t->wait_n = 0;
}

void latrec_top_sched_flush(latrec_top *t, uint64_t covered_ns)
{
    if (t->sv && latrec_sched_view_gave_up(t->sv)) { /* none will be split */
        latrec_top_sched_settle(t);
        return;
    }
    while (t->wait_head < t->wait_n && t->wait[t->wait_head].t_b <= covered_ns) {
        const latrec_top_wait *w = &t->wait[t->wait_head++];
        t->rows[w->row].pending--;
        split(t, w->row, w->tid, w->t_a, w->t_b);
    }
    if (t->wait_head == t->wait_n) t->wait_head = t->wait_n = 0;
}

static void top_value(void *ctx, latrec_leg_table *lt, int hop, int64_t ns, const latrec_instance *inst)
{
    latrec_top *t = ctx;
    const struct top_table *tt = lt->user;
    if (!tt || hop < 0 || hop >= lt->n_hops || tt->row[hop] < 0) return;
    add_value(t, tt->row[hop], ns);
    const latrec_hit *a, *b;
    const latrec_sched_view *sv = t->sv;
    /* live, the data comes once the run's sched.latrec is there (before
     * the view has read it: held for it); never without one */
    const int data = sv && !latrec_sched_view_gave_up(sv) &&
                     (sv->model || (sv->live && !sv->ended && t->in->sched_ring >= 0));
    if (!data || ns < 0 || !latrec_hop_hits(&lt->legdef, inst, &lt->hops[hop], &a, &b)) return;
    const uint32_t tid = latrec_ring_tid(&t->in->set.rings[b->ring]);
    /* in order: nothing jumps the queue while instances wait in it */
    if (sv->live && (b->t_ns > sv->covered_ns || t->wait_head < t->wait_n))
        wait_push(t, tt->row[hop], tid, a->t_ns, b->t_ns);
    else split(t, tt->row[hop], tid, a->t_ns, b->t_ns);
}

/* A path's total over its complete instances (report's total row). */
static void top_path(void *ctx, const latrec_path_instance *pi)
{
    latrec_top *t = ctx;
    if (!pi->complete || pi->path < 0 || pi->path >= latrec_path_index_n(t->in->paths)) return; /* run-wide index */
    if (t->path_row[pi->path] < 0) {
        t->path_row[pi->path] = add_row(t, 1, latrec_path_index_name(t->in->paths, pi->path), "total");
        if (t->path_row[pi->path] < 0) {
            t->oom = 1;
            return;
        }
    }
    add_value(t, t->path_row[pi->path], (int64_t)(pi->end_ns - pi->start_ns));
}

/* The pass starts over (engine/pass.h): the rows, the waiting instances
 * and a pass's view from the start again. */
static void top_restart(void *ctx, latrec_leg_table **tables, int n)
{
    latrec_top *t = ctx;
    for (int i = 0; i < n; i++) {
        free(tables[i]->user);
        tables[i]->user = NULL;
    }
    latrec_top_free(t);
    for (int i = 0; i < LATREC_RUN_MAX_PATHS; i++) t->path_row[i] = -1;
    t->regressions = t->unsplit = 0;
    t->oom = 0;
    if (t->sv && t->sv->pass) { /* fed along with the pass: read again with it (a failure is said, reason set) */
        latrec_sched_view_close(t->sv);
        (void)latrec_sched_view_open_pass(t->sv, t->in);
    }
}

latrec_pass_sinks latrec_top_sinks(latrec_top *t)
{
    latrec_pass_sinks s = { .ctx = t,
                            .table_new = top_table_new,
                            .value = top_value,
                            .path_instance = t->paths ? top_path : NULL,
                            .restart = top_restart };
    return s;
}

void latrec_top_next_interval(latrec_top *t)
{
    for (int r = 0; r < t->n_rows; r++) {
        latrec_top_row *row = &t->rows[r];
        latrec_loghist_reset(&row->h[LATREC_TOP_LAST]);
        memset(&row->sched[LATREC_TOP_LAST], 0, sizeof(row->sched[LATREC_TOP_LAST]));
        row->hop_ns[LATREC_TOP_LAST] = 0;
    }
}

void latrec_top_take_last(latrec_top *full, latrec_top *live)
{
    for (int r = 0; r < full->n_rows; r++) {
        latrec_top_row *f = &full->rows[r];
        for (int q = 0; q < live->n_rows; q++) {
            latrec_top_row *l = &live->rows[q];
            if (l->is_path != f->is_path || strcmp(l->name, f->name) || strcmp(l->hop, f->hop)) continue;
            const latrec_loghist h = f->h[LATREC_TOP_LAST]; /* swapped: each model frees its own */
            f->h[LATREC_TOP_LAST] = l->h[LATREC_TOP_LAST];
            l->h[LATREC_TOP_LAST] = h;
            f->sched[LATREC_TOP_LAST] = l->sched[LATREC_TOP_LAST];
            f->hop_ns[LATREC_TOP_LAST] = l->hop_ns[LATREC_TOP_LAST];
            break;
        }
    }
}

void latrec_top_fig_get(const latrec_top *t, int r, int which, latrec_top_fig *f)
{
    const latrec_loghist *h = &t->rows[r].h[which];
    static const double pct[2] = { 50, 99 };
    int64_t v[2];
    memset(f, 0, sizeof(*f));
    f->count = latrec_loghist_count(h);
    if (!f->count || !latrec_loghist_percentiles(h, pct, 2, v) || !latrec_loghist_max(h, &f->max)) return;
    f->has = 1;
    f->p50 = v[0];
    f->p99 = v[1];
}

void latrec_top_release_tables(latrec_pass *p)
{
    if (!p) return;
    int n;
    latrec_leg_table **tables = latrec_pass_tables(p, &n);
    for (int i = 0; i < n; i++) {
        free(tables[i]->user);
        tables[i]->user = NULL;
    }
}
