/* latrec report: per component and leg, a table of hop latencies. */
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <libsmartcols.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/stats.h"
#include "cli/commands.h"
#include "cli/figures.h"
#include "cli/input.h"
#include "cli/pass.h"
#include "cli/sched_view.h"

enum {
    OPT_TOP = 0x500, OPT_COMPONENT, OPT_LEG, OPT_HOP, OPT_PCT, OPT_UNIT, OPT_WARMUP, OPT_FORMAT,
    OPT_FAIL, OPT_BASELINE, OPT_DROP_OUTLIERS, OPT_CALIBRATE, OPT_INTERVAL, OPT_EXPLAIN
};

#define MAX_GATES 32
#define MAX_OPEN_INTERVALS 16
#define INTERVAL_LATENESS_NS 1000000000ull

struct gate {
    char spec[256];
    char component[LATREC_NAME_MAX], leg[LATREC_NAME_MAX], hop[2 * LATREC_NAME_MAX + 8], figure[16];
    int over;     /* 1: fail when figure > limit; 0: fail when figure < limit */
    double limit; /* ns, or a plain number for count / skewness / outliers */
};

struct report_opts {
    latrec_input_opts input;
    latrec_pass_opts pass;
    const char *hop_specs[16];
    int n_hop_specs;
    int top;
    double pct[LATREC_MAX_PCT];
    int n_pct;
    latrec_units units;
    int format; /* 0 text, 1 csv, 2 json */
    struct gate gates[MAX_GATES];
    int n_gates;
    const char *baseline;
    int drop_outliers;
    uint64_t interval_ns;
    int explain;
};

static const struct argp_option report_options[] = {
    { "top", OPT_TOP, "N", 0, "Also list the N slowest instances of each leg", 0 },
    { "component", OPT_COMPONENT, "NAME", 0, "Only this component", 0 },
    { "leg", OPT_LEG, "NAME", 0, "Only this leg", 0 },
    { "hop", OPT_HOP, "A:B", 0, "Only the hop from stage A to stage B (any two stages of a leg); repeatable", 0 },
    { "percentiles", OPT_PCT, "LIST", 0, "Percentiles to show (default 50,90,99,99.9,99.99)", 0 },
    { "unit", OPT_UNIT, "UNIT", 0, "ns, us (default) or ms", 0 },
    { "warm-up", OPT_WARMUP, "DURATION", 0, "Ignore instances that start in the first DURATION of the run "
                                            "(e.g. 500ms)", 0 },
    { "format", OPT_FORMAT, "FMT", 0, "text (default), csv or json", 0 },
    { "fail-over", OPT_FAIL, "SPEC", 0, "Exit 4 when a figure crosses a limit, e.g. "
                                        "libe3/outbound:total:p99>200us; repeatable (see latrec-report(1))", 0 },
    { "baseline", OPT_BASELINE, "DIR", 0, "Compare with the run in DIR: baseline value and change per figure", 0 },
    { "drop-outliers", OPT_DROP_OUTLIERS, 0, 0, "Leave outliers out of every other figure", 0 },
    { "calibrate", OPT_CALIBRATE, 0, 0, "Subtract each ring's measured clock cost from every hop", 0 },
    { "explain", OPT_EXPLAIN, "N", 0, "Tell the N slowest instances of each leg in a sentence each: which "
                                      "hop took the time and what the scheduler did meanwhile", 0 },
    { "interval", OPT_INTERVAL, "DURATION", 0, "Also a time series: per interval and leg, count, rate, "
                                               "p50/p99 of the total, bytes", 0 },
    { 0 }
};

static int copy_field(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len) return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

/* count|min|max|mean|stddev|skewness|outliers|regressions|pNN: a gate on
 * any other name is a malformed spec (usage error), not a missing figure. */
static int figure_known(const char *f)
{
    static const char *const names[] = { "count", "min", "max", "mean", "stddev", "skewness", "outliers",
                                         "regressions" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(f, names[i]) == 0) return 1;
    if (f[0] != 'p' || !f[1]) return 0;
    char *end;
    double p = strtod(f + 1, &end);
    if (*end || p < 0 || p > 100 || !isdigit((unsigned char)f[1])) return 0;
    /* Spelt as the column names it ("p99.9", not "p99.90"). */
    char canon[32];
    snprintf(canon, sizeof(canon), "p%g", p);
    return strcmp(canon, f) == 0;
}

static int parse_gate(struct gate *g, const char *spec)
{
    memset(g, 0, sizeof(*g));
    snprintf(g->spec, sizeof(g->spec), "%s", spec);
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", spec);
    char *c1 = strchr(buf, ':');
    char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    char *slash = strchr(buf, '/');
    if (!c1 || !c2 || !slash || slash > c1) return -1;
    *slash = *c1 = *c2 = '\0';
    char *fig = c2 + 1;
    char *op = strpbrk(fig, "<>");
    if (!op) return -1;
    g->over = *op == '>';
    *op = '\0';
    if (copy_field(g->component, sizeof(g->component), buf) < 0 ||
        copy_field(g->leg, sizeof(g->leg), slash + 1) < 0 || copy_field(g->hop, sizeof(g->hop), c1 + 1) < 0 ||
        copy_field(g->figure, sizeof(g->figure), fig) < 0)
        return -1;
    if (!figure_known(g->figure)) return -1;
    const char *limit = op + 1;
    int plain = strcmp(fig, "count") == 0 || strcmp(fig, "skewness") == 0 || strcmp(fig, "outliers") == 0 ||
                strcmp(fig, "regressions") == 0;
    if (plain) {
        char *end;
        g->limit = strtod(limit, &end);
        if (end == limit || *end) return -1;
    } else {
        uint64_t ns;
        if (latrec_parse_duration(limit, &ns) < 0) return -1;
        g->limit = (double)ns;
    }
    return g->component[0] && g->leg[0] && g->hop[0] && g->figure[0] ? 0 : -1;
}

static error_t parse_report(int key, char *arg, struct argp_state *state)
{
    struct report_opts *o = state->input;
    char *end;
    switch (key) {
    case ARGP_KEY_INIT: state->child_inputs[0] = &o->input; break;
    case OPT_TOP:
        o->top = (int)strtol(arg, &end, 10);
        if (*end || o->top < 0 || o->top > 10000) argp_error(state, "--top takes a count 0..10000, not '%s'", arg);
        break;
    case OPT_COMPONENT: o->pass.component = arg; break;
    case OPT_LEG: o->pass.leg = arg; break;
    case OPT_HOP:
        if (o->n_hop_specs == 16 || !strchr(arg, ':')) argp_error(state, "--hop takes A:B (at most 16), not '%s'", arg);
        o->hop_specs[o->n_hop_specs++] = arg;
        break;
    case OPT_PCT:
        if ((o->n_pct = latrec_parse_percentiles(arg, o->pct, LATREC_MAX_PCT)) < 0)
            argp_error(state, "--percentiles takes a list like 50,99,99.9 (0..100, at most 16), not '%s'", arg);
        break;
    case OPT_UNIT:
        if (latrec_units_parse(arg, &o->units) < 0) argp_error(state, "--unit must be ns, us or ms, not '%s'", arg);
        break;
    case OPT_WARMUP:
        if (latrec_parse_duration(arg, &o->pass.warmup_ns) < 0)
            argp_error(state, "--warm-up takes a duration like 500ms or 2s, not '%s'", arg);
        break;
    case OPT_FORMAT:
        if (strcmp(arg, "text") == 0) o->format = 0;
        else if (strcmp(arg, "csv") == 0) o->format = 1;
        else if (strcmp(arg, "json") == 0) o->format = 2;
        else argp_error(state, "--format must be text, csv or json, not '%s'", arg);
        break;
    case OPT_FAIL:
        if (o->n_gates == MAX_GATES || parse_gate(&o->gates[o->n_gates], arg) < 0)
            argp_error(state, "--fail-over takes COMPONENT/LEG:HOP:FIGURE>LIMIT (e.g. "
                              "libe3/outbound:total:p99>200us), not '%s'", arg);
        o->n_gates++;
        break;
    case OPT_BASELINE: o->baseline = arg; break;
    case OPT_DROP_OUTLIERS: o->drop_outliers = 1; break;
    case OPT_CALIBRATE: o->pass.calibrate = 1; break;
    case OPT_EXPLAIN:
        o->explain = (int)strtol(arg, &end, 10);
        if (*end || o->explain < 0 || o->explain > 1000)
            argp_error(state, "--explain takes a count 0..1000, not '%s'", arg);
        break;
    case OPT_INTERVAL:
        if (latrec_parse_duration(arg, &o->interval_ns) < 0 || o->interval_ns == 0)
            argp_error(state, "--interval takes a duration like 100ms or 1s, not '%s'", arg);
        break;
    case ARGP_KEY_ARG:
        if (latrec_input_add_dir(&o->input, arg) < 0) argp_error(state, "too many directories");
        break;
    default: return ARGP_ERR_UNKNOWN;
    }
    return 0;
}

/* ---- per-table state ------------------------------------------------------ */

struct top_entry {
    int64_t  key;      /* ranking value, ns */
    uint64_t seq, start;
    uint32_t process, ring;
    int64_t  hop[LATREC_MAX_HOPS];
    uint8_t  has[LATREC_MAX_HOPS];
    uint64_t t_a[LATREC_MAX_HOPS], t_b[LATREC_MAX_HOPS]; /* the hop's stamps */
    uint32_t tid_a[LATREC_MAX_HOPS], tid_b[LATREC_MAX_HOPS]; /* their threads */
};

struct interval {
    uint64_t idx, count, bytes;
    latrec_stats total;
};

struct interval_row {
    const latrec_leg_table *table;
    uint64_t idx, count, bytes;
    int has_p50, has_p99;
    int64_t p50, p99;
};

struct rtable {
    latrec_stats col[LATREC_MAX_HOPS];
    latrec_outlier_fence fence[LATREC_MAX_HOPS + 1]; /* + inter-arrival */
    uint64_t exact_outliers[LATREC_MAX_HOPS + 1];
    latrec_stats gaps_stats;
    latrec_gaps gaps;
    uint64_t gap_prev;                       /* the outlier pass's own gap series */
    int gap_have_prev;
    latrec_figures fig[LATREC_MAX_HOPS + 1]; /* + inter-arrival */
    latrec_sched_acc sacc[LATREC_MAX_HOPS];  /* scheduler split per hop */
    int rank_hop;                            /* -1: no ranking */
    struct top_entry *top;
    int n_top;
    struct interval open[MAX_OPEN_INTERVALS];
    int n_open;
    uint64_t late;
};

struct report_run {
    struct report_opts *o;
    latrec_input in;
    latrec_pass *pass;
    latrec_pass *first;  /* during the outlier pass: the first pass */
    int pass_no;         /* 1: first pass, 2: outlier pass */
    struct interval_row *rows;
    size_t n_rows, cap_rows;
    uint64_t begin;      /* the run's beginning, as latrec_pass_begin() will tell */
    latrec_sched_view sv; /* the scheduler's side, or why not */
    int oom;
};

/* Instances kept per leg for --top and --explain. */
static int top_cap(const struct report_opts *o)
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
    if (top_cap(r->o) && !(rt->top = calloc((size_t)top_cap(r->o), sizeof(*rt->top)))) return -1;
    return 0;
}

static void rt_free(latrec_leg_table *t)
{
    struct rtable *rt = t->user;
    if (!rt) return;
    for (int h = 0; h < t->n_hops; h++) latrec_stats_free(&rt->col[h]);
    latrec_stats_free(&rt->gaps_stats);
    for (int i = 0; i < rt->n_open; i++) latrec_stats_free(&rt->open[i].total);
    free(rt->top);
    free(rt);
    t->user = NULL;
}

static void on_value(void *ctx, latrec_leg_table *t, int hop, int64_t ns, const latrec_instance *inst)
{
    struct report_run *r = ctx;
    struct rtable *rt = t->user;
    if (!rt) return;
    if (r->pass_no == 1) {
        latrec_stats_add(&rt->col[hop], ns);
        const latrec_hit *a, *b;
        if (r->sv.model && ns >= 0 && latrec_hop_hits(&t->legdef, inst, &t->hops[hop], &a, &b))
            latrec_sched_view_add(&r->sv, &rt->sacc[hop], latrec_ring_tid(&r->in.set.rings[b->ring]), a->t_ns,
                                  b->t_ns);
        return;
    }
    /* Outlier pass: exact counts, and the columns without the outliers. */
    int out = ns >= 0 && latrec_outliers_is_outlier(&rt->fence[hop], ns);
    rt->exact_outliers[hop] += out;
    if (r->o->drop_outliers && !out) latrec_stats_add(&rt->col[hop], ns);
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
     * against the inter-arrival fence like the hops in on_value(). */
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

static void add_top(struct report_run *r, latrec_leg_table *t, struct rtable *rt, const latrec_instance *inst)
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
        e.tid_a[h] = latrec_ring_tid(&r->in.set.rings[a->ring]);
        e.tid_b[h] = latrec_ring_tid(&r->in.set.rings[b->ring]);
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
    /* Keep the N largest, sorted descending (N is small). */
    int n = rt->n_top, cap = top_cap(r->o);
    if (n == cap && e.key <= rt->top[n - 1].key) return;
    int pos = n < cap ? n : n - 1;
    while (pos > 0 && rt->top[pos - 1].key < e.key) {
        if (pos < cap) rt->top[pos] = rt->top[pos - 1];
        pos--;
    }
    rt->top[pos] = e;
    if (n < cap) rt->n_top++;
}

static void close_interval(struct report_run *r, const latrec_leg_table *table, struct rtable *rt, int i)
{
    struct interval *iv = &rt->open[i];
    if (r->n_rows == r->cap_rows) {
        size_t cap = r->cap_rows ? r->cap_rows * 2 : 256;
        struct interval_row *rows = realloc(r->rows, cap * sizeof(*rows));
        if (!rows) {
            r->oom = 1;
            return;
        }
        r->rows = rows;
        r->cap_rows = cap;
    }
    struct interval_row *row = &r->rows[r->n_rows++];
    memset(row, 0, sizeof(*row));
    row->table = table;
    row->idx = iv->idx;
    row->count = iv->count;
    row->bytes = iv->bytes;
    row->has_p50 = latrec_stats_percentile(&iv->total, 50, &row->p50);
    row->has_p99 = latrec_stats_percentile(&iv->total, 99, &row->p99);
    latrec_stats_free(&iv->total);
    rt->open[i] = rt->open[--rt->n_open];
}

/* The byte count an instance carries (the catalog's `bytes` field of the
 * leg), 0 when that stage is absent. Same rule as latrec_instance_field(),
 * from the table's copy of the leg. */
static uint64_t instance_bytes(const latrec_leg *leg, const latrec_instance *inst)
{
    int idx = latrec_leg_chain_pos(leg, leg->bytes_stage);
    if (idx < 0 && (idx = latrec_leg_extra_pos(leg, leg->bytes_stage)) >= 0) idx += leg->n_chain;
    if (idx < 0 || idx >= inst->n_hits || !inst->hits[idx].t_ns) return 0;
    if (leg->bytes_field == LATREC_FIELD_SEQ) return inst->seq;
    return leg->bytes_field == LATREC_FIELD_AUX ? inst->hits[idx].aux : inst->hits[idx].aux2;
}

static void add_interval(struct report_run *r, latrec_leg_table *t, struct rtable *rt, const latrec_instance *inst)
{
    const uint64_t begin = r->begin;
    if (inst->first_t < begin) return;
    const uint64_t idx = (inst->first_t - begin) / r->o->interval_ns;
    const latrec_leg_table *table = t;
    /* Close intervals the stream has left behind by more than the lateness. */
    for (int i = 0; i < rt->n_open;) {
        if ((rt->open[i].idx + 1) * r->o->interval_ns + INTERVAL_LATENESS_NS < inst->first_t - begin)
            close_interval(r, table, rt, i);
        else
            i++;
    }
    int slot = -1;
    uint64_t oldest_idx = UINT64_MAX;
    int oldest = -1;
    for (int i = 0; i < rt->n_open; i++) {
        if (rt->open[i].idx == idx) slot = i;
        if (rt->open[i].idx < oldest_idx) {
            oldest_idx = rt->open[i].idx;
            oldest = i;
        }
    }
    if (slot < 0) {
        for (size_t k = 0; k < r->n_rows; k++)
            if (r->rows[k].table == table && r->rows[k].idx == idx) {
                rt->late++; /* its interval was closed already */
                return;
            }
        if (rt->n_open == MAX_OPEN_INTERVALS) close_interval(r, table, rt, oldest);
        slot = rt->n_open;
        memset(&rt->open[slot], 0, sizeof(rt->open[slot]));
        if (latrec_stats_init(&rt->open[slot].total) < 0) {
            r->oom = 1;
            return;
        }
        rt->open[slot].idx = idx;
        rt->n_open++;
    }
    struct interval *iv = &rt->open[slot];
    iv->count++;
    const latrec_leg *leg = &t->legdef;
    if (leg->has_bytes) iv->bytes += instance_bytes(leg, inst);
    for (int h = 0; h < t->n_hops; h++) {
        int64_t v;
        uint32_t ring;
        if (t->hops[h].total && latrec_hop_value(leg, inst, &t->hops[h], &v, &ring)) latrec_stats_add(&iv->total, v);
    }
}

static void on_instance(void *ctx, latrec_leg_table *t, const latrec_instance *inst)
{
    struct report_run *r = ctx;
    struct rtable *rt = t->user;
    if (r->pass_no != 1) return;
    if (top_cap(r->o)) add_top(r, t, rt, inst);
    if (r->o->interval_ns) add_interval(r, t, rt, inst);
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
    return cmp_tables(&x->table, &y->table);
}

static void free_run(struct report_run *r)
{
    if (r->pass) {
        int n;
        latrec_leg_table **tables = latrec_pass_tables(r->pass, &n);
        for (int i = 0; i < n; i++) rt_free(tables[i]);
        latrec_pass_free(r->pass);
        r->pass = NULL;
    }
    free(r->rows);
    r->rows = NULL;
    latrec_sched_view_close(&r->sv);
    latrec_input_close(&r->in);
}

/* Column h of a table: a hop, or (h == n_hops) the inter-arrival gaps. */
static latrec_stats *column_of(struct rtable *rt, const latrec_leg_table *t, int h)
{
    return h < t->n_hops ? &rt->col[h] : &rt->gaps_stats;
}

/* Open the input, run the passes, compute the figures. 0 or an exit code. */
static int analyse(struct report_run *r, const latrec_input_opts *input_opts)
{
    struct report_opts *o = r->o;
    if (latrec_input_open(&r->in, input_opts, "report") != 0) return LATREC_EXIT_ERROR;
    if (latrec_sched_view_open(&r->sv, &r->in) < 0) return LATREC_EXIT_ERROR;
    latrec_pass_opts popts = o->pass;
    for (int i = 0; i < o->n_hop_specs; i++)
        if (latrec_hop_select_add(&popts.hops, &r->in.cat, o->hop_specs[i]) < 0) {
            fprintf(stderr, "latrec report: --hop %s: unknown stage (stages are named as in the catalog, "
                            "or by id like 0x21)\n", o->hop_specs[i]);
            return LATREC_EXIT_ERROR;
        }
    latrec_pass_sinks sinks = { r, rt_new, on_value, on_instance, on_first_stage };
    /* The callbacks run inside latrec_pass_run(), before r->pass is set:
     * they take the run's beginning from here (pass.c's rule). */
    r->begin = latrec_pass_run_begin(&r->in);
    r->pass_no = 1;
    if (!(r->pass = latrec_pass_run(&r->in, &popts, &sinks)) || r->oom) return LATREC_EXIT_ERROR;
    int n;
    latrec_leg_table **tables = latrec_pass_tables(r->pass, &n);
    int need_second = o->drop_outliers;
    for (int i = 0; i < n; i++) {
        struct rtable *rt = tables[i]->user;
        /* Hops, then the inter-arrival column (index n_hops). */
        for (int h = 0; h <= tables[i]->n_hops; h++) {
            latrec_stats *col = column_of(rt, tables[i], h);
            latrec_figures_from_stats(&rt->fig[h], col, o->pct, o->n_pct);
            latrec_outliers_fence(&col->outl, &rt->fence[h]);
            need_second |= rt->fig[h].outliers != rt->fig[h].outliers_max;
        }
        for (int k = rt->n_open - 1; k >= 0; k--) close_interval(r, tables[i], rt, k);
    }
    if (r->oom) return LATREC_EXIT_ERROR;
    if (need_second) {
        /* Second pass over the same records: its tables share the first
         * pass's state (same data, same builder: same component and leg
         * indexes). */
        for (int i = 0; i < n; i++)
            for (int h = 0; h <= tables[i]->n_hops; h++)
                if (o->drop_outliers) latrec_stats_reset(column_of(tables[i]->user, tables[i], h));
        r->first = r->pass;
        r->pass_no = 2;
        latrec_pass *second = latrec_pass_run(&r->in, &popts, &sinks);
        r->pass = r->first;
        r->first = NULL;
        if (!second) return LATREC_EXIT_ERROR;
        latrec_pass_free(second);
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
    }
    if (n) qsort(tables, (size_t)n, sizeof(*tables), cmp_tables); /* tables is NULL when there are none */
    /* Intervals close in no useful order (late ones, several legs, the
     * rest at the end): print them by time, then component and leg. */
    if (r->n_rows) qsort(r->rows, r->n_rows, sizeof(*r->rows), cmp_rows);
    return 0;
}

/* ---- baseline matching ---------------------------------------------------- */

/* The baseline figures of the same component, leg and hop (hop == n_hops:
 * inter-arrival), or NULL. */
static const latrec_figures *baseline_of(struct report_run *base, const latrec_leg_table *t, int hop)
{
    if (!base || !base->pass) return NULL;
    int n;
    latrec_leg_table **tables = latrec_pass_tables(base->pass, &n);
    for (int i = 0; i < n; i++) {
        const latrec_leg_table *b = tables[i];
        if (strcmp(b->component_name, t->component_name) != 0 || strcmp(b->legdef.name, t->legdef.name) != 0)
            continue;
        const struct rtable *rt = b->user;
        if (hop == t->n_hops) return &rt->fig[b->n_hops];
        for (int h = 0; h < b->n_hops; h++)
            if (strcmp(b->hops[h].name, t->hops[hop].name) == 0) return &rt->fig[h];
    }
    return NULL;
}

/* ---- values in units -------------------------------------------------------- */

static int is_time_figure(int i, int n_pct) { return i != fig_skew(n_pct); }

static void fmt_value(char *buf, size_t len, double v, int time, const latrec_units *u)
{
    if (time) snprintf(buf, len, "%.*f", u->decimals, v / u->div);
    else snprintf(buf, len, "%.3f", v);
    /* A tiny negative value (a skewness of -1e-17) rounds to zero: print
     * "0.000", not "-0.000". */
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1)) memmove(buf, buf + 1, strlen(buf));
}

static void fmt_delta(char *buf, size_t len, double v, double base, int time, const latrec_units *u)
{
    char d[48];
    fmt_value(d, sizeof(d), v - base, time, u);
    if (base != 0) snprintf(buf, len, "%s%s (%+.1f%%)", v - base >= 0 ? "+" : "", d, (v - base) / fabs(base) * 100.0);
    else snprintf(buf, len, "%s%s", v - base >= 0 ? "+" : "", d);
}

/* ---- text ------------------------------------------------------------------- */

static void print_header_text(struct report_run *r, FILE *out)
{
    latrec_input *in = &r->in;
    latrec_input_totals t;
    latrec_input_totals_get(in, &t);
    fprintf(out, "# latrec report\n");
    if (in->have_run && in->command[0]) fprintf(out, "# command: %s\n", in->command);
    double dur = 0;
    if (in->run_stop_real_ns > in->run_start_real_ns)
        dur = (double)(in->run_stop_real_ns - in->run_start_real_ns) / 1e9;
    else if (t.last_t > t.first_t)
        dur = (double)(t.last_t - t.first_t) / 1e9;
    fprintf(out, "# duration: %.3f s%s\n", dur, in->have_run ? "" : " (first to last record)");
    fprintf(out, "# rings: %zu (%zu skipped, %zu wrapped%s)  records: %llu  lost: %llu%s  dropped before start: %llu\n",
            t.rings, t.rejected, t.wrapped, t.multi_writer ? ", some not single-writer" : "",
            (unsigned long long)in->records, (unsigned long long)t.lost,
            t.lost_lower_bound ? " (at least)" : "", (unsigned long long)t.dropped);
    if (t.clock_max)
        fprintf(out, "# clock cost per call: %u..%u ns\n", t.clock_min, t.clock_max);
    else
        fprintf(out, "# clock cost per call: not measured by these rings\n");
    fprintf(out, "# catalog: %s\n", in->catalog_note);
    if (latrec_legs_guessed_processes(latrec_pass_legs(r->pass)))
        fprintf(out, "# processes: rings without a pid (format v1/v2): one process per component assumed\n");
    if (!in->have_start) fprintf(out, "# start stamp: none (every record kept)\n");
    if (r->sv.model)
        fprintf(out, "# scheduler: %llu events from %s\n",
                (unsigned long long)latrec_sched_counters(r->sv.model)->records,
                in->set.rings[in->sched_ring].basename);
    else
        fprintf(out, "# scheduler: n/a (%s)\n", r->sv.reason);
    if (r->o->pass.warmup_ns)
        fprintf(out, "# warm-up: first %.3f ms ignored (%llu instances)\n", (double)r->o->pass.warmup_ns / 1e6,
                (unsigned long long)latrec_pass_warmup_skipped(r->pass));
    if (r->o->pass.calibrate) fprintf(out, "# calibration: on (each ring's clock cost subtracted from every hop)\n");
    if (r->o->drop_outliers) fprintf(out, "# outliers: dropped from every figure but the outlier count\n");
}

static void add_cell(struct libscols_line *ln, int col, const char *text)
{
    scols_line_set_data(ln, (size_t)col, text);
}

static void text_row(struct libscols_table *tb, const char *name, const latrec_figures *f, const latrec_figures *b,
                     const struct report_opts *o)
{
    struct libscols_line *ln = scols_table_new_line(tb, NULL);
    char buf[256], v[96];
    int col = 0;
    add_cell(ln, col++, name);
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)f->count);
    if (b) {
        snprintf(v, sizeof(v), "%llu (%+lld)", (unsigned long long)f->count, (long long)f->count - (long long)b->count);
        snprintf(buf, sizeof(buf), "%s", v);
    }
    add_cell(ln, col++, buf);
    for (int i = 0; i < f->n; i++) {
        if (!f->has[i]) {
            add_cell(ln, col++, "-");
            continue;
        }
        fmt_value(buf, sizeof(buf), f->v[i], is_time_figure(i, o->n_pct), &o->units);
        if (b && b->has[i]) {
            fmt_delta(v, sizeof(v), f->v[i], b->v[i], is_time_figure(i, o->n_pct), &o->units);
            size_t l = strlen(buf);
            snprintf(buf + l, sizeof(buf) - l, " %s", v);
        }
        add_cell(ln, col++, buf);
    }
    if (!f->count) snprintf(buf, sizeof(buf), "-");
    else if (!f->outliers_known) snprintf(buf, sizeof(buf), "n/a");
    else snprintf(buf, sizeof(buf), "%llu", (unsigned long long)f->outliers);
    add_cell(ln, col++, buf);
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)f->regressions);
    add_cell(ln, col++, buf);
}

static struct libscols_table *new_text_table(const struct report_opts *o, const char *first)
{
    struct libscols_table *tb = scols_new_table();
    if (!tb) return NULL;
    char name[64], buf[32];
    scols_table_new_column(tb, first, 0, 0);
    scols_table_new_column(tb, "COUNT", 0, SCOLS_FL_RIGHT);
    for (int i = 0; i < fig_skew(o->n_pct) + 1; i++) {
        const char *fn = latrec_figure_name(i, o->pct, o->n_pct, buf, sizeof(buf));
        snprintf(name, sizeof(name), "%s", fn);
        for (char *p = name; *p; p++)
            if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
        if (is_time_figure(i, o->n_pct)) {
            size_t l = strlen(name);
            snprintf(name + l, sizeof(name) - l, "_%s", o->units.name);
        }
        scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
    }
    scols_table_new_column(tb, "OUTLIERS", 0, SCOLS_FL_RIGHT);
    scols_table_new_column(tb, "REGRESSIONS", 0, SCOLS_FL_RIGHT);
    return tb;
}

/* Mean ns per split instance, in the unit. */
static void fmt_mean(char *buf, size_t len, long double sum, uint64_t n, const latrec_units *u)
{
    snprintf(buf, len, "%.*f", u->decimals, (double)(sum / (long double)n) / u->div);
}

/* The scheduler's split of each hop: means per instance over the thread that
 * stamped the hop's second stage. */
static void print_sched_text(struct report_run *r, const latrec_leg_table *t, const struct rtable *rt, FILE *out)
{
    const struct report_opts *o = r->o;
    if (!r->sv.model) {
        fprintf(out, "  scheduler: n/a (%s)\n", r->sv.reason);
        return;
    }
    if (t->n_hops == 0) return;
    struct libscols_table *tb = scols_new_table();
    if (!tb) return;
    char name[64];
    scols_table_new_column(tb, "HOP", 0, 0);
    scols_table_new_column(tb, "SPLIT", 0, SCOLS_FL_RIGHT);
    const char *cols[] = { "ONCPU", "RUNQ", "BLOCKED", "UNKNOWN" };
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "%s_%s", cols[i], o->units.name);
        scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
    }
    scols_table_new_column(tb, "PREEMPTIONS", 0, SCOLS_FL_RIGHT);
    scols_table_new_column(tb, "MIGRATIONS", 0, SCOLS_FL_RIGHT);
    for (int h = 0; h < t->n_hops; h++) {
        const latrec_sched_acc *a = &rt->sacc[h];
        struct libscols_line *ln = scols_table_new_line(tb, NULL);
        char buf[64];
        add_cell(ln, 0, t->hops[h].name);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)a->n);
        add_cell(ln, 1, buf);
        const long double sums[4] = { a->on_cpu, a->runnable, a->blocked, a->unknown };
        for (int i = 0; i < 4; i++) {
            if (a->n) fmt_mean(buf, sizeof(buf), sums[i], a->n, &o->units);
            else snprintf(buf, sizeof(buf), "-");
            add_cell(ln, 2 + i, buf);
        }
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)a->preemptions);
        add_cell(ln, 6, buf);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)a->migrations);
        add_cell(ln, 7, buf);
    }
    fprintf(out, "  scheduler, mean per instance on the thread of each hop's second stage:\n");
    scols_print_table(tb);
    scols_unref_table(tb);
}

/* --explain: the slowest instances, a sentence or two each. */
static void print_explain(struct report_run *r, const latrec_leg_table *t, const struct rtable *rt, FILE *out)
{
    const struct report_opts *o = r->o;
    int n = rt->n_top < o->explain ? rt->n_top : o->explain;
    fprintf(out, "  the %d slowest by %s, explained:\n", n, t->hops[rt->rank_hop].name);
    for (int k = 0; k < n; k++) {
        const struct top_entry *e = &rt->top[k];
        /* The hop that took the most, leaving the total aside. */
        int worst = -1;
        for (int h = 0; h < t->n_hops; h++)
            if (e->has[h] && !t->hops[h].total && (worst < 0 || e->hop[h] > e->hop[worst])) worst = h;
        if (worst < 0) worst = rt->rank_hop;
        char total[48], hop[48], why[1024];
        fmt_value(total, sizeof(total), (double)e->key, 1, &o->units);
        fmt_value(hop, sizeof(hop), (double)e->hop[worst], 1, &o->units);
        fprintf(out, "  %d. seq %llu (%s), %s %s %s, started at %.6f s: %s took %s %s",
                k + 1, (unsigned long long)e->seq, latrec_legs_process(latrec_pass_legs(r->pass), e->process)->label,
                t->hops[rt->rank_hop].name, total, o->units.name,
                (double)(int64_t)(e->start - latrec_pass_begin(r->pass)) / 1e9, t->hops[worst].name, hop,
                o->units.name);
        if (e->has[rt->rank_hop] && e->key > 0)
            fprintf(out, " (%.0f%% of it)", 100.0 * (double)e->hop[worst] / (double)e->key);
        latrec_sched_view_explain(&r->sv, e->tid_b[worst], e->t_a[worst], e->t_b[worst], o->units.name,
                                  o->units.div, why, sizeof(why));
        fprintf(out, ". Thread %u: %s", e->tid_b[worst], why);
        if (e->tid_a[worst] != e->tid_b[worst] && r->sv.model) {
            latrec_sched_view_explain(&r->sv, e->tid_a[worst], e->t_a[worst], e->t_b[worst], o->units.name,
                                      o->units.div, why, sizeof(why));
            fprintf(out, ". Thread %u (first stage): %s", e->tid_a[worst], why);
        }
        fprintf(out, ".\n");
    }
}

static void print_text(struct report_run *r, struct report_run *base, FILE *out)
{
    const struct report_opts *o = r->o;
    print_header_text(r, out);
    int n;
    latrec_leg_table **tables = latrec_pass_tables(r->pass, &n);
    if (n == 0) fprintf(out, "\nno leg instances%s\n", o->pass.component || o->pass.leg || o->n_hop_specs ? " match the selection" : "");
    for (int i = 0; i < n; i++) {
        const latrec_leg_table *t = tables[i];
        struct rtable *rt = t->user;
        fprintf(out, "\n%s/%s%s  instances: %llu  complete: %llu\n", t->component_name, t->legdef.name,
                t->legdef.discovered ? " (discovered)" : "", (unsigned long long)t->instances,
                (unsigned long long)t->complete);
        struct libscols_table *tb = new_text_table(o, "HOP");
        if (!tb) continue;
        for (int h = 0; h < t->n_hops; h++) text_row(tb, t->hops[h].name, &rt->fig[h], baseline_of(base, t, h), o);
        text_row(tb, "inter-arrival", &rt->fig[t->n_hops], baseline_of(base, t, t->n_hops), o);
        scols_table_enable_noheadings(tb, 0);
        scols_print_table(tb);
        scols_unref_table(tb);
        print_sched_text(r, t, rt, out);
        if (o->top && rt->n_top) {
            fprintf(out, "  slowest %d by %s:\n", rt->n_top, t->hops[rt->rank_hop].name);
            struct libscols_table *tt = scols_new_table();
            scols_table_new_column(tt, "RANK", 0, SCOLS_FL_RIGHT);
            scols_table_new_column(tt, "SEQ", 0, SCOLS_FL_RIGHT);
            scols_table_new_column(tt, "PROCESS", 0, 0);
            scols_table_new_column(tt, "RING", 0, 0);
            scols_table_new_column(tt, "START_s", 0, SCOLS_FL_RIGHT);
            char name[160];
            for (int h = 0; h < t->n_hops; h++) {
                snprintf(name, sizeof(name), "%s_%s", t->hops[h].name, o->units.name);
                scols_table_new_column(tt, name, 0, SCOLS_FL_RIGHT);
            }
            for (int k = 0; k < rt->n_top; k++) {
                const struct top_entry *e = &rt->top[k];
                struct libscols_line *ln = scols_table_new_line(tt, NULL);
                char buf[64];
                int col = 0;
                snprintf(buf, sizeof(buf), "%d", k + 1);
                add_cell(ln, col++, buf);
                snprintf(buf, sizeof(buf), "%llu", (unsigned long long)e->seq);
                add_cell(ln, col++, buf);
                add_cell(ln, col++, latrec_legs_process(latrec_pass_legs(r->pass), e->process)->label);
                add_cell(ln, col++, r->in.set.rings[e->ring].name);
                snprintf(buf, sizeof(buf), "%.6f", (double)(int64_t)(e->start - latrec_pass_begin(r->pass)) / 1e9);
                add_cell(ln, col++, buf);
                for (int h = 0; h < t->n_hops; h++) {
                    if (e->has[h]) fmt_value(buf, sizeof(buf), (double)e->hop[h], 1, &o->units);
                    else snprintf(buf, sizeof(buf), "-");
                    add_cell(ln, col++, buf);
                }
            }
            scols_print_table(tt);
            scols_unref_table(tt);
        }
        if (o->explain && rt->n_top) print_explain(r, t, rt, out);
        if (rt->late)
            fprintf(out, "  %llu instances came after their interval was closed (not in the time series)\n",
                    (unsigned long long)rt->late);
    }
    if (o->interval_ns && r->n_rows) {
        fprintf(out, "\ntime series, interval %.3f ms:\n", (double)o->interval_ns / 1e6);
        struct libscols_table *tb = scols_new_table();
        char name[32];
        scols_table_new_column(tb, "START_s", 0, SCOLS_FL_RIGHT);
        scols_table_new_column(tb, "COMPONENT", 0, 0);
        scols_table_new_column(tb, "LEG", 0, 0);
        scols_table_new_column(tb, "COUNT", 0, SCOLS_FL_RIGHT);
        scols_table_new_column(tb, "RATE_per_s", 0, SCOLS_FL_RIGHT);
        snprintf(name, sizeof(name), "P50_%s", o->units.name);
        scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
        snprintf(name, sizeof(name), "P99_%s", o->units.name);
        scols_table_new_column(tb, name, 0, SCOLS_FL_RIGHT);
        scols_table_new_column(tb, "BYTES", 0, SCOLS_FL_RIGHT);
        for (size_t k = 0; k < r->n_rows; k++) {
            const struct interval_row *row = &r->rows[k];
            struct libscols_line *ln = scols_table_new_line(tb, NULL);
            char buf[64];
            snprintf(buf, sizeof(buf), "%.3f", (double)row->idx * (double)o->interval_ns / 1e9);
            add_cell(ln, 0, buf);
            add_cell(ln, 1, row->table->component_name);
            add_cell(ln, 2, row->table->legdef.name);
            snprintf(buf, sizeof(buf), "%llu", (unsigned long long)row->count);
            add_cell(ln, 3, buf);
            snprintf(buf, sizeof(buf), "%.1f", (double)row->count / ((double)o->interval_ns / 1e9));
            add_cell(ln, 4, buf);
            if (row->has_p50) fmt_value(buf, sizeof(buf), (double)row->p50, 1, &o->units);
            else snprintf(buf, sizeof(buf), "-");
            add_cell(ln, 5, buf);
            if (row->has_p99) fmt_value(buf, sizeof(buf), (double)row->p99, 1, &o->units);
            else snprintf(buf, sizeof(buf), "-");
            add_cell(ln, 6, buf);
            if (row->table->legdef.has_bytes) snprintf(buf, sizeof(buf), "%llu", (unsigned long long)row->bytes);
            else snprintf(buf, sizeof(buf), "-");
            add_cell(ln, 7, buf);
        }
        scols_print_table(tb);
        scols_unref_table(tb);
    }
}

/* ---- csv ---------------------------------------------------------------------- */

static void csv_figure_header(FILE *out, const struct report_opts *o, const char *prefix)
{
    char buf[32];
    fprintf(out, ",%scount", prefix);
    for (int i = 0; i < fig_skew(o->n_pct) + 1; i++) {
        const char *fn = latrec_figure_name(i, o->pct, o->n_pct, buf, sizeof(buf));
        if (is_time_figure(i, o->n_pct)) fprintf(out, ",%s%s_%s", prefix, fn, o->units.name);
        else fprintf(out, ",%s%s", prefix, fn);
    }
    fprintf(out, ",%soutliers,%sregressions", prefix, prefix);
}

static void csv_figures(FILE *out, const latrec_figures *f, const struct report_opts *o)
{
    char buf[64];
    fprintf(out, ",%llu", (unsigned long long)f->count);
    for (int i = 0; i < f->n; i++) {
        if (f->has[i]) fmt_value(buf, sizeof(buf), f->v[i], is_time_figure(i, o->n_pct), &o->units);
        else buf[0] = '\0';
        fprintf(out, ",%s", buf);
    }
    if (f->count && f->outliers_known) fprintf(out, ",%llu", (unsigned long long)f->outliers);
    else fprintf(out, ",");
    fprintf(out, ",%llu", (unsigned long long)f->regressions);
}

static void csv_deltas(FILE *out, const latrec_figures *f, const latrec_figures *b, const struct report_opts *o)
{
    char buf[64];
    for (int i = 0; i < f->n; i++) {
        if (b && f->has[i] && b->has[i]) {
            fmt_value(buf, sizeof(buf), f->v[i] - b->v[i], is_time_figure(i, o->n_pct), &o->units);
            fprintf(out, ",%s", buf);
            if (b->v[i] != 0) fprintf(out, ",%.3f", (f->v[i] - b->v[i]) / fabs(b->v[i]) * 100.0);
            else fprintf(out, ",");
        } else {
            fprintf(out, ",,");
        }
    }
}

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

/* The scheduler columns of a hop row: empty without scheduler data (and
 * on the inter-arrival row). */
static void csv_sched(FILE *out, const struct report_run *r, const latrec_sched_acc *a)
{
    if (!r->sv.model || !a) {
        fputs(",,,,,,,", out); /* seven empty columns */
        return;
    }
    char buf[64];
    fprintf(out, ",%llu", (unsigned long long)a->n);
    const long double sums[4] = { a->on_cpu, a->runnable, a->blocked, a->unknown };
    for (int i = 0; i < 4; i++) {
        if (a->n) fmt_mean(buf, sizeof(buf), sums[i], a->n, &r->o->units);
        else buf[0] = '\0';
        fprintf(out, ",%s", buf);
    }
    fprintf(out, ",%llu,%llu", (unsigned long long)a->preemptions, (unsigned long long)a->migrations);
}

static void print_csv(struct report_run *r, struct report_run *base, FILE *out)
{
    const struct report_opts *o = r->o;
    int n;
    latrec_leg_table **tables = latrec_pass_tables(r->pass, &n);
    char buf[64];
    if (o->interval_ns) {
        fprintf(out, "start_s,component,leg,count,rate_per_s,p50_%s,p99_%s,bytes\n", o->units.name, o->units.name);
        for (size_t k = 0; k < r->n_rows; k++) {
            const struct interval_row *row = &r->rows[k];
            fprintf(out, "%.3f,", (double)row->idx * (double)o->interval_ns / 1e9);
            csv_quoted(out, row->table->component_name);
            fputc(',', out);
            csv_quoted(out, row->table->legdef.name);
            fprintf(out, ",%llu,%.3f,", (unsigned long long)row->count,
                    (double)row->count / ((double)o->interval_ns / 1e9));
            if (row->has_p50) fmt_value(buf, sizeof(buf), (double)row->p50, 1, &o->units), fputs(buf, out);
            fputc(',', out);
            if (row->has_p99) fmt_value(buf, sizeof(buf), (double)row->p99, 1, &o->units), fputs(buf, out);
            fputc(',', out);
            if (row->table->legdef.has_bytes) fprintf(out, "%llu", (unsigned long long)row->bytes);
            fputc('\n', out);
        }
        return;
    }
    if (o->top) {
        fprintf(out, "component,leg,rank,seq,process,ring,start_s,hop,value_%s\n", o->units.name);
        for (int i = 0; i < n; i++) {
            const latrec_leg_table *t = tables[i];
            const struct rtable *rt = t->user;
            for (int k = 0; k < rt->n_top; k++) {
                const struct top_entry *e = &rt->top[k];
                for (int h = 0; h < t->n_hops; h++) {
                    csv_quoted(out, t->component_name);
                    fputc(',', out);
                    csv_quoted(out, t->legdef.name);
                    fprintf(out, ",%d,%llu,", k + 1, (unsigned long long)e->seq);
                    csv_quoted(out, latrec_legs_process(latrec_pass_legs(r->pass), e->process)->label);
                    fputc(',', out);
                    csv_quoted(out, r->in.set.rings[e->ring].name);
                    fprintf(out, ",%.9f,", (double)(int64_t)(e->start - latrec_pass_begin(r->pass)) / 1e9);
                    csv_quoted(out, t->hops[h].name);
                    if (e->has[h]) fmt_value(buf, sizeof(buf), (double)e->hop[h], 1, &o->units);
                    else buf[0] = '\0';
                    fprintf(out, ",%s\n", buf);
                }
            }
        }
        return;
    }
    fprintf(out, "component,leg,hop,instances,complete");
    csv_figure_header(out, o, "");
    if (base) {
        csv_figure_header(out, o, "base_");
        for (int i = 0; i < fig_skew(o->n_pct) + 1; i++) {
            const char *fn = latrec_figure_name(i, o->pct, o->n_pct, buf, sizeof(buf));
            if (is_time_figure(i, o->n_pct)) fprintf(out, ",delta_%s_%s,delta_%s_pct", fn, o->units.name, fn);
            else fprintf(out, ",delta_%s,delta_%s_pct", fn, fn);
        }
    }
    fprintf(out, ",sched_split,on_cpu_%s,runq_%s,blocked_%s,unknown_%s,preemptions,migrations", o->units.name,
            o->units.name, o->units.name, o->units.name);
    fputc('\n', out);
    for (int i = 0; i < n; i++) {
        const latrec_leg_table *t = tables[i];
        const struct rtable *rt = t->user;
        for (int h = 0; h <= t->n_hops; h++) {
            csv_quoted(out, t->component_name);
            fputc(',', out);
            csv_quoted(out, t->legdef.name);
            fputc(',', out);
            csv_quoted(out, h < t->n_hops ? t->hops[h].name : "inter-arrival");
            fprintf(out, ",%llu,%llu", (unsigned long long)t->instances, (unsigned long long)t->complete);
            csv_figures(out, &rt->fig[h], o);
            if (base) {
                const latrec_figures *b = baseline_of(base, t, h);
                latrec_figures empty;
                memset(&empty, 0, sizeof(empty));
                empty.n = rt->fig[h].n;
                csv_figures(out, b ? b : &empty, o);
                csv_deltas(out, &rt->fig[h], b, o);
            }
            csv_sched(out, r, h < t->n_hops ? &rt->sacc[h] : NULL);
            fputc('\n', out);
        }
    }
}

/* ---- json --------------------------------------------------------------------- */

static json_t *json_figures(const latrec_figures *f, const struct report_opts *o)
{
    json_t *j = json_object();
    char key[64], buf[32];
    json_object_set_new(j, "count", json_integer((json_int_t)f->count));
    for (int i = 0; i < f->n; i++) {
        const char *fn = latrec_figure_name(i, o->pct, o->n_pct, buf, sizeof(buf));
        int time = is_time_figure(i, o->n_pct);
        if (time) snprintf(key, sizeof(key), "%s_%s", fn, o->units.name);
        else snprintf(key, sizeof(key), "%s", fn);
        json_object_set_new(j, key, f->has[i] ? json_real(time ? f->v[i] / o->units.div : f->v[i]) : json_null());
    }
    json_object_set_new(j, "outliers", f->count && f->outliers_known ? json_integer((json_int_t)f->outliers) : json_null());
    json_object_set_new(j, "regressions", json_integer((json_int_t)f->regressions));
    return j;
}

/* The scheduler split of a hop: null without scheduler data. */
static json_t *json_sched(const struct report_run *r, const latrec_sched_acc *a)
{
    if (!r->sv.model) return json_null();
    const latrec_units *u = &r->o->units;
    json_t *j = json_object();
    char key[32];
    json_object_set_new(j, "split", json_integer((json_int_t)a->n));
    const char *names[4] = { "on_cpu", "runq", "blocked", "unknown" };
    const long double sums[4] = { a->on_cpu, a->runnable, a->blocked, a->unknown };
    for (int i = 0; i < 4; i++) {
        snprintf(key, sizeof(key), "%s_%s", names[i], u->name);
        json_object_set_new(j, key, a->n ? json_real((double)(sums[i] / (long double)a->n) / u->div) : json_null());
    }
    json_object_set_new(j, "preemptions", json_integer((json_int_t)a->preemptions));
    json_object_set_new(j, "migrations", json_integer((json_int_t)a->migrations));
    return j;
}

static void print_json(struct report_run *r, struct report_run *base, FILE *out)
{
    const struct report_opts *o = r->o;
    latrec_input *in = &r->in;
    latrec_input_totals tot;
    latrec_input_totals_get(in, &tot);
    json_t *root = json_object();
    json_t *hdr = json_object();
    json_object_set_new(hdr, "command", in->have_run ? json_string(in->command) : json_null());
    json_object_set_new(hdr, "rings", json_integer((json_int_t)tot.rings));
    json_object_set_new(hdr, "rings_skipped", json_integer((json_int_t)tot.rejected));
    json_object_set_new(hdr, "rings_wrapped", json_integer((json_int_t)tot.wrapped));
    json_object_set_new(hdr, "records", json_integer((json_int_t)in->records));
    json_object_set_new(hdr, "lost", json_integer((json_int_t)tot.lost));
    json_object_set_new(hdr, "lost_is_lower_bound", json_boolean(tot.lost_lower_bound));
    json_object_set_new(hdr, "dropped_before_start", json_integer((json_int_t)tot.dropped));
    json_object_set_new(hdr, "clock_ns_per_call_min", tot.clock_max ? json_integer(tot.clock_min) : json_null());
    json_object_set_new(hdr, "clock_ns_per_call_max", tot.clock_max ? json_integer(tot.clock_max) : json_null());
    json_object_set_new(hdr, "catalog", json_string(in->catalog_note));
    json_object_set_new(hdr, "unit", json_string(o->units.name));
    json_object_set_new(hdr, "calibrated", json_boolean(o->pass.calibrate));
    json_object_set_new(hdr, "outliers_dropped", json_boolean(o->drop_outliers));
    json_object_set_new(hdr, "warm_up_ns", json_integer((json_int_t)o->pass.warmup_ns));
    json_object_set_new(hdr, "processes_guessed", json_boolean(latrec_legs_guessed_processes(latrec_pass_legs(r->pass))));
    json_t *sj = json_object();
    json_object_set_new(sj, "available", json_boolean(r->sv.model != NULL));
    json_object_set_new(sj, "reason", r->sv.model ? json_null() : json_string(r->sv.reason));
    json_object_set_new(hdr, "sched", sj);
    json_object_set_new(root, "header", hdr);
    json_t *legs = json_array();
    int n;
    latrec_leg_table **tables = latrec_pass_tables(r->pass, &n);
    for (int i = 0; i < n; i++) {
        const latrec_leg_table *t = tables[i];
        const struct rtable *rt = t->user;
        json_t *lj = json_object();
        json_object_set_new(lj, "component", json_string(t->component_name));
        json_object_set_new(lj, "leg", json_string(t->legdef.name));
        json_object_set_new(lj, "discovered", json_boolean(t->legdef.discovered));
        json_object_set_new(lj, "instances", json_integer((json_int_t)t->instances));
        json_object_set_new(lj, "complete", json_integer((json_int_t)t->complete));
        json_t *hops = json_array();
        for (int h = 0; h <= t->n_hops; h++) {
            json_t *hj = json_figures(&rt->fig[h], o);
            json_object_set_new(hj, "hop", json_string(h < t->n_hops ? t->hops[h].name : "inter-arrival"));
            if (h < t->n_hops) json_object_set_new(hj, "sched", json_sched(r, &rt->sacc[h]));
            const latrec_figures *b = baseline_of(base, t, h);
            if (base) json_object_set_new(hj, "baseline", b ? json_figures(b, o) : json_null());
            json_array_append_new(hops, hj);
        }
        json_object_set_new(lj, "hops", hops);
        if (o->top) {
            json_t *top = json_array();
            for (int k = 0; k < rt->n_top; k++) {
                const struct top_entry *e = &rt->top[k];
                json_t *ej = json_object();
                json_object_set_new(ej, "seq", json_integer((json_int_t)e->seq));
                json_object_set_new(ej, "process", json_string(latrec_legs_process(latrec_pass_legs(r->pass), e->process)->label));
                json_object_set_new(ej, "ring", json_string(in->set.rings[e->ring].name));
                json_object_set_new(ej, "start_ns", json_integer((json_int_t)e->start));
                json_t *hv = json_object();
                for (int h = 0; h < t->n_hops; h++)
                    json_object_set_new(hv, t->hops[h].name, e->has[h] ? json_real((double)e->hop[h] / o->units.div) : json_null());
                json_object_set_new(ej, "hops", hv);
                json_array_append_new(top, ej);
            }
            json_object_set_new(lj, "top", top);
        }
        json_array_append_new(legs, lj);
    }
    json_object_set_new(root, "legs", legs);
    if (o->interval_ns) {
        json_t *iv = json_array();
        for (size_t k = 0; k < r->n_rows; k++) {
            const struct interval_row *row = &r->rows[k];
            json_t *rj = json_object();
            json_object_set_new(rj, "start_s", json_real((double)row->idx * (double)o->interval_ns / 1e9));
            json_object_set_new(rj, "component", json_string(row->table->component_name));
            json_object_set_new(rj, "leg", json_string(row->table->legdef.name));
            json_object_set_new(rj, "count", json_integer((json_int_t)row->count));
            json_object_set_new(rj, "rate_per_s", json_real((double)row->count / ((double)o->interval_ns / 1e9)));
            char key[32];
            snprintf(key, sizeof(key), "p50_%s", o->units.name);
            json_object_set_new(rj, key, row->has_p50 ? json_real((double)row->p50 / o->units.div) : json_null());
            snprintf(key, sizeof(key), "p99_%s", o->units.name);
            json_object_set_new(rj, key, row->has_p99 ? json_real((double)row->p99 / o->units.div) : json_null());
            json_object_set_new(rj, "bytes", row->table->legdef.has_bytes ? json_integer((json_int_t)row->bytes) : json_null());
            json_array_append_new(iv, rj);
        }
        json_object_set_new(root, "intervals", iv);
    }
    json_dumpf(root, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    fputc('\n', out);
    json_decref(root);
}

/* ---- gates --------------------------------------------------------------------- */

/* 0 passed, 1 crossed (printed), -1 the gate names nothing (printed). */
static int check_gate(struct report_run *r, const struct gate *g)
{
    const struct report_opts *o = r->o;
    int n;
    latrec_leg_table **tables = latrec_pass_tables(r->pass, &n);
    char hop[sizeof(g->hop)];
    snprintf(hop, sizeof(hop), "%s", g->hop);
    char *us = strstr(hop, "__");
    if (us) { /* the CSV spelling A__B */
        us[0] = '-';
        us[1] = '>';
    }
    for (int i = 0; i < n; i++) {
        const latrec_leg_table *t = tables[i];
        if (strcmp(t->component_name, g->component) != 0 || strcmp(t->legdef.name, g->leg) != 0) continue;
        int h = -1;
        if (strcmp(hop, "inter-arrival") == 0 || strcmp(hop, "interarrival") == 0) h = t->n_hops;
        for (int k = 0; k < t->n_hops && h < 0; k++)
            if (strcmp(t->hops[k].name, hop) == 0) h = k;
        if (h < 0) break;
        const latrec_figures *f = &((const struct rtable *)t->user)->fig[h];
        double v = 0;
        int has = 1, time = 0, h_count = strcmp(g->figure, "count") == 0 || strcmp(g->figure, "outliers") == 0 ||
                                         strcmp(g->figure, "regressions") == 0;
        char buf[32];
        if (strcmp(g->figure, "count") == 0) v = (double)f->count;
        else if (strcmp(g->figure, "outliers") == 0) v = (double)f->outliers, has = f->outliers_known;
        else if (strcmp(g->figure, "regressions") == 0) v = (double)f->regressions;
        else {
            int idx = -1;
            for (int k = 0; k < f->n; k++)
                if (strcmp(latrec_figure_name(k, o->pct, o->n_pct, buf, sizeof(buf)), g->figure) == 0) idx = k;
            if (idx < 0) {
                fprintf(stderr, "latrec report: --fail-over %s: no figure '%s'\n", g->spec, g->figure);
                return -1;
            }
            has = f->has[idx];
            v = f->v[idx];
            time = is_time_figure(idx, o->n_pct);
        }
        if (!has) {
            /* A gate that cannot be judged fails: say why. */
            if (f->count && strcmp(g->figure, "outliers") == 0)
                fprintf(stderr, "latrec report: %s: no value (fewer than %u chunks of %u samples for the "
                                "outlier rule): failed\n", g->spec, LATREC_OUTLIER_MIN_CHUNKS, LATREC_OUTLIER_CHUNK);
            else
                fprintf(stderr, "latrec report: %s: no value (%s): failed\n", g->spec,
                        f->count ? "too few samples for this figure" : "no complete instance");
            return 1;
        }
        int crossed = g->over ? v > g->limit : v < g->limit;
        if (crossed) {
            char vb[64], lb[64];
            if (h_count) { /* count, outliers, regressions: whole numbers */
                snprintf(vb, sizeof(vb), "%.0f", v);
                snprintf(lb, sizeof(lb), "%g", g->limit);
            } else {
                fmt_value(vb, sizeof(vb), v, time, &o->units);
                fmt_value(lb, sizeof(lb), g->limit, time, &o->units);
            }
            fprintf(stderr, "latrec report: %s/%s:%s:%s = %s%s %s %s%s: limit crossed\n", g->component, g->leg,
                    g->hop, g->figure, vb, time ? o->units.name : "", g->over ? ">" : "<", lb,
                    time ? o->units.name : "");
        }
        return crossed;
    }
    fprintf(stderr, "latrec report: --fail-over %s: no such component/leg/hop in this run\n", g->spec);
    return -1;
}

/* ---- main ------------------------------------------------------------------------ */

int latrec_cmd_report(int argc, char **argv)
{
    static const struct argp_child children[] = { { &latrec_input_argp, 0, "Input:", 1 }, { 0 } };
    struct argp argp = { report_options, parse_report, "[DIR...]",
                         "Per component and leg, a table of hop latencies: count, min, percentiles, max, "
                         "mean, stddev, skewness, outliers and clock regressions.\v"
                         "DIR is a run directory (default latrec.data) or any directory of .latrec files. "
                         "Percentiles are exact up to 2048 samples per column, then within 0.1%.\n\n"
                         "Exit status: 0 success; 1 nothing could be read; 2 usage; 3 some rings were "
                         "skipped; 4 a --fail-over limit was crossed. See latrec-report(1).",
                         children, 0, 0 };
    struct report_opts o;
    memset(&o, 0, sizeof(o));
    static const double default_pct[] = { 50, 90, 99, 99.9, 99.99 };
    memcpy(o.pct, default_pct, sizeof(default_pct));
    o.n_pct = 5;
    latrec_units_parse("us", &o.units);
    argp_err_exit_status = LATREC_EXIT_USAGE;
    if (argp_parse(&argp, argc, argv, 0, 0, &o) != 0) return LATREC_EXIT_USAGE;
    /* Percentiles a gate names are computed even when not listed. */
    for (int g = 0; g < o.n_gates; g++) {
        if (o.gates[g].figure[0] != 'p') continue;
        double p = strtod(o.gates[g].figure + 1, NULL);
        int have = 0;
        for (int i = 0; i < o.n_pct; i++) have |= o.pct[i] == p;
        if (!have && o.n_pct < LATREC_MAX_PCT) o.pct[o.n_pct++] = p;
    }

    struct report_run run, base_run;
    memset(&run, 0, sizeof(run));
    memset(&base_run, 0, sizeof(base_run));
    run.o = base_run.o = &o;
    int rc = analyse(&run, &o.input);
    if (rc == 0 && o.baseline) {
        latrec_input_opts bo = o.input;
        bo.n_dirs = 0;
        latrec_input_add_dir(&bo, o.baseline);
        rc = analyse(&base_run, &bo);
    }
    if (rc == 0) {
        struct report_run *base = o.baseline ? &base_run : NULL;
        if (o.format == 0) print_text(&run, base, stdout);
        else if (o.format == 1) print_csv(&run, base, stdout);
        else print_json(&run, base, stdout);
        fflush(stdout);
        int crossed = 0, bad = 0;
        for (int g = 0; g < o.n_gates; g++) {
            int c = check_gate(&run, &o.gates[g]);
            crossed |= c > 0;
            bad |= c < 0;
        }
        rc = bad ? LATREC_EXIT_ERROR : crossed ? LATREC_EXIT_GATE : run.in.n_rejected ? LATREC_EXIT_SKIPPED : LATREC_EXIT_OK;
    }
    free_run(&run);
    free_run(&base_run);
    return rc;
}
