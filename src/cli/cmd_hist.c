/* latrec hist: latency histograms in rtla's layout, or power-of-two buckets. */
#include <argp.h>
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/csv.h"
#include "cli/json_bytes.h"
#include "engine/figures.h"
#include "cli/options.h"
#include "engine/sched_view.h"
#include "engine/engine.h"
#include "read/escape.h"

enum {
    OPT_TOTALS = 0x600, OPT_NO_HEADER, OPT_NO_SUMMARY, OPT_NO_INDEX, OPT_WITH_ZEROS, OPT_LOG2, OPT_RUNQLAT,
    OPT_PER_THREAD, OPT_PATH
};

enum { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON };

static const latrec_choice hist_formats[] = {
    { "text", FORMAT_TEXT, "rtla's layout (or runqlat's with --log2)" },
    { "csv", FORMAT_CSV, "index and one column per histogram" },
    { "json", FORMAT_JSON, "buckets, summary and log2 buckets per column" },
    { NULL, 0, NULL },
};

#define MAX_ENTRIES 1000000
#define MAX_BUCKET_SIZE 1000000000ull
#define LOG2_SLOTS 64

struct hist_opts {
    latrec_input_opts input;
    latrec_select_opts sel;
    latrec_output_opts out;
    int totals;
    uint64_t bucket_size; /* in units */
    const char *bucket_arg; /* -b as given: read once --unit is known */
    uint64_t entries;
    int no_header, no_summary, no_index, with_zeros, log2;
    int runqlat, per_thread;
};

static const struct argp_option hist_options[] = {
    { "totals", OPT_TOTALS, 0, 0, "One column per leg total (the default without --leg; with --leg or "
                                  "--hop, one column per hop)", 0 },
    { "path", OPT_PATH, "NAME", 0, "One column per segment of the path NAME of any catalog of the run (e.g. "
                                   "e3/loop; CATALOG:NAME, e.g. pipe:request, when two catalogs define NAME) and "
                                   "its total, over its complete instances", 0 },
    { "bucket-size", 'b', "N", 0, "Bucket size: a bare N is in the time unit (--unit, as rtla's -b), or a "
                                  "duration such as 5us that is a whole number of it (default 1)", 0 },
    { "entries", 'E', "N", 0, "Number of buckets (default 256); larger values count in over:", 0 },
    { "no-header", OPT_NO_HEADER, 0, 0, "Print no header lines", 0 },
    { "no-summary", OPT_NO_SUMMARY, 0, 0, "Print no summary rows", 0 },
    { "no-index", OPT_NO_INDEX, 0, 0, "Print no Index column", 0 },
    { "with-zeros", OPT_WITH_ZEROS, 0, 0, "Print buckets that are zero in every column too", 0 },
    { "log2", OPT_LOG2, 0, 0, "Power-of-two buckets with bars, as runqlat and bpftrace print them", 0 },
    { "runqlat", OPT_RUNQLAT, 0, 0, "Instead of hops: the target threads' runqueue latency (wakeup or "
                                    "preemption to running), from the run's scheduler data", 0 },
    { "per-thread", OPT_PER_THREAD, 0, 0, "With --runqlat: one column per thread", 0 },
    { 0 }
};

static const latrec_count_opt entries_opt = { "--entries", 1, MAX_ENTRIES };

/* -b in units of u: a bare number is in u; a duration must be a whole
 * number of u. Capped at 10^9 units, so that no bucket overflows in ns. */
static uint64_t bucket_size(struct argp_state *state, const char *arg, const latrec_units *u)
{
    uint64_t div = (uint64_t)u->div;
    const latrec_duration_opt opt = { "--bucket-size", u->name, div, MAX_BUCKET_SIZE * div };
    uint64_t ns = latrec_arg_duration(state, &opt, arg);
    if (ns % div) argp_error(state, "--bucket-size: '%s' is not a whole number of %s (the --unit)", arg, u->name);
    return ns / div;
}

static error_t parse_hist(int key, char *arg, struct argp_state *state)
{
    struct hist_opts *o = state->input;
    switch (key) {
    case ARGP_KEY_INIT:
        latrec_analysis_inputs(state, &o->input, &o->sel, &o->out);
        break;
    case OPT_TOTALS: o->totals = 1; break;
    case OPT_PATH:
        o->sel.pass.path = arg;
        o->sel.pass.paths = o->sel.pass.no_legs = 1;
        break;
    case 'b': o->bucket_arg = arg; break;
    case 'E': o->entries = latrec_arg_count(state, &entries_opt, arg); break;
    case OPT_NO_HEADER: o->no_header = 1; break;
    case OPT_NO_SUMMARY: o->no_summary = 1; break;
    case OPT_NO_INDEX: o->no_index = 1; break;
    case OPT_WITH_ZEROS: o->with_zeros = 1; break;
    case OPT_LOG2: o->log2 = 1; break;
    case OPT_RUNQLAT: o->runqlat = 1; break;
    case OPT_PER_THREAD: o->per_thread = 1; break;
    case ARGP_KEY_ARG: latrec_arg_dir(state, &o->input, arg); break;
    case ARGP_KEY_END:
        if (o->bucket_arg) o->bucket_size = bucket_size(state, o->bucket_arg, &o->out.units);
        break;
    default: return ARGP_ERR_UNKNOWN;
    }
    return 0;
}

/* One histogram column: exact counts per bucket of the unit. */
struct column {
    char label[2 * LATREC_NAME_MAX * 2 + 16];
    char text[4 * (2 * LATREC_NAME_MAX * 2 + 16)]; /* label for a terminal (read/escape.h) */
    uint64_t *bucket; /* entries + 1 (the last counts over:) */
    uint64_t log2[LOG2_SLOTS];
    uint64_t count, regressions;
    int64_t min, max; /* ns */
    /* The sum of the values: usum while it stays below 2^64 (exact, and so
     * what a long double sum holds then), from the add that would pass it
     * on (big set) sum, a long double, as it always was (col_sum). */
    uint64_t usum;
    int big;
    long double sum;
    const latrec_leg_table *t; /* a leg's columns: its table (sort_columns); NULL: a segment's, runqlat */
    int order;                 /* made as the order-th column */
};

/* A column's min and max before its first value (see add_value). */
static void column_empty(struct column *c)
{
    c->min = INT64_MAX;
    c->max = INT64_MIN;
}

static long double col_sum(const struct column *c)
{
    return c->big ? c->sum : (long double)c->usum;
}

/* u added to c's sum past 2^64: a long double sum from then on. */
static __attribute__((noinline)) void add_big(struct column *c, uint64_t u)
{
    if (!c->big) c->sum = (long double)c->usum;
    c->big = 1;
    c->sum += (long double)u;
}

/* How a value lands in a column: what add_value reads of the run, passed
 * by value (read through a pointer, every store to a column could change
 * it, to the compiler). */
struct scale {
    uint64_t bucket_ns; /* bucket size in ns */
    /* Dividing a value below 2^32 ns by a divisor d < 2^32 as a product
     * (hi 64 bits of v * ceil(2^64 / d)), exact there: the product's error
     * is below v / 2^64 < 1 / d, less than any quotient's distance to the
     * next integer. For the log2 slots, floor(v / div) is what the double
     * division gives too: its rounding error, below 2^32 / div * 2^-53, is
     * also under 1 / div. 1: d is 1; 0: divide (not an integer, too big). */
    uint64_t bucket_mul, unit_mul;
    uint64_t entries; /* o->entries */
    double div;       /* o->out.units.div */
};

struct hist_run {
    struct hist_opts *o;
    const latrec_path_index *paths; /* the run's (--path) */
    struct scale sc;
    struct column *cols;
    int n_cols, cap_cols;
    latrec_segment segs[LATREC_MAX_SEGS]; /* --path: column i is segment i */
    int n_segs;
    int oom;
};

/* Per table: the column index of each hop, -1 when not shown. */
struct hist_table {
    int col[LATREC_MAX_HOPS];
};

/* Room for one more of n elements of size bytes in *v (capacity *cap,
 * doubled from 16). 0, or -1 when out of memory (*v unchanged). */
static int grow(void **v, int *cap, int n, size_t size)
{
    if (n < *cap) return 0;
    int c = *cap ? *cap * 2 : 16;
    void *p = realloc(*v, (size_t)c * size);
    if (!p) return -1;
    *v = p;
    *cap = c;
    return 0;
}

static int add_column(struct hist_run *h, const char *label)
{
    if (grow((void **)&h->cols, &h->cap_cols, h->n_cols, sizeof(*h->cols)) < 0) return -1;
    struct column *c = &h->cols[h->n_cols];
    memset(c, 0, sizeof(*c));
    snprintf(c->label, sizeof(c->label), "%s", label);
    c->order = h->n_cols;
    latrec_text_safe(c->label, c->text, sizeof(c->text));
    column_empty(c);
    if (!(c->bucket = calloc(h->o->entries + 1, sizeof(uint64_t)))) return -1;
    return h->n_cols++;
}

static int hist_table_new(void *ctx, latrec_leg_table *t)
{
    struct hist_run *h = ctx;
    struct hist_table *ht = calloc(1, sizeof(*ht));
    if (!ht) return -1;
    t->user = ht;
    /* Columns: a leg's hops when one leg is chosen (and no --totals),
     * else its total only. */
    int per_hop = (h->o->sel.pass.leg || h->o->sel.n_hop_specs) && !h->o->totals;
    char label[sizeof(h->cols[0].label)];
    for (int k = 0; k < t->n_hops; k++) {
        ht->col[k] = -1;
        if (!per_hop && !t->hops[k].total) {
            t->wanted &= ~(1u << k); /* not shown: the pass need not compute it */
            continue;
        }
        if (per_hop) snprintf(label, sizeof(label), "%s", t->hops[k].name);
        else snprintf(label, sizeof(label), "%s/%s", t->component_name, t->legdef.name);
        if (per_hop && (h->o->sel.pass.component == NULL || h->o->sel.pass.leg == NULL)) {
            /* Several legs may share hop names: qualify them. */
            snprintf(label, sizeof(label), "%s/%s:%s", t->component_name, t->legdef.name, t->hops[k].name);
        }
        if ((ht->col[k] = add_column(h, label)) < 0) return -1;
        h->cols[ht->col[k]].t = t;
    }
    return 0;
}

static int cmp_columns(const void *a, const void *b)
{
    const struct column *x = a, *y = b;
    if (x->t && y->t && x->t != y->t) {
        const int c = strcmp(x->t->component_name, y->t->component_name);
        if (c || x->t->leg != y->t->leg) return c ? c : x->t->leg - y->t->leg;
    }
    return x->order - y->order;
}

/* The legs' columns by component, then leg (as report's tables), each
 * leg's hops in their order: the same whichever order the tables were
 * made in (a pass by process makes them in another than in time order).
 * Once the pass is done: the tables' column indices are stale after. */
static void sort_columns(struct hist_run *h)
{
    if (h->n_cols > 1) qsort(h->cols, (size_t)h->n_cols, sizeof(*h->cols), cmp_columns);
}

static unsigned log2_slot(uint64_t v)
{
    return 64u - (unsigned)__builtin_clzll(v | 1) - (v == 0); /* v ? 64 - clz(v) : 0, without a branch */
}

/* The multiplier of an integer divisor d in [2, 2^32]: 2^64 / d rounded
 * down, plus 1 (ceil, or one more when d divides 2^64: still exact below
 * 2^32); 1 for d = 1; 0 for any other d (see hist_run). */
static uint64_t div_mul(double d)
{
    if (d == 1) return 1;
    if (!(d >= 2 && d <= 4294967296.0) || d != (double)(uint64_t)d) return 0;
    return (uint64_t)(((unsigned __int128)1 << 64) / (uint64_t)d) + 1;
}

static inline uint64_t div_by(uint64_t u, uint64_t mul)
{
    return mul == 1 ? u : (uint64_t)(((unsigned __int128)u * mul) >> 64);
}

/* ns into column c (emptied by column_empty first: min and max need no
 * look at its count). */
static inline __attribute__((always_inline)) void add_value(const struct scale sc, struct column *c, int64_t ns)
{
    if (ns < 0) {
        c->regressions++;
        return;
    }
    const uint64_t u = (uint64_t)ns;
    uint64_t b, v;
    if (__builtin_expect(u >> 32 == 0 && sc.bucket_mul && sc.unit_mul, 1)) {
        b = div_by(u, sc.bucket_mul);
        v = sc.unit_mul == sc.bucket_mul ? b : div_by(u, sc.unit_mul); /* a bucket of one unit */
    } else {
        b = u / sc.bucket_ns;
        v = (uint64_t)((double)ns / sc.div);
    }
    c->bucket[b < sc.entries ? b : sc.entries]++;
    c->log2[log2_slot(v)]++;
    c->min = ns < c->min ? ns : c->min;
    c->max = ns > c->max ? ns : c->max;
    uint64_t s;
    if (__builtin_expect(c->big || __builtin_add_overflow(c->usum, u, &s), 0)) add_big(c, u);
    else c->usum = s;
    c->count++;
}

static void hist_value(void *ctx, latrec_leg_table *t, int hop, int64_t ns, const latrec_instance *inst)
{
    (void)inst;
    struct hist_run *h = ctx;
    struct hist_table *ht = t->user;
    if (ht->col[hop] >= 0) add_value(h->sc, &h->cols[ht->col[hop]], ns);
}

/* The pass starts over (engine/pass.h): hist's figures are counts and sums,
 * whatever the order instances end in. */
static void hist_restart(void *ctx, latrec_leg_table **tables, int n)
{
    struct hist_run *h = ctx;
    for (int i = 0; i < n; i++) {
        free(tables[i]->user);
        tables[i]->user = NULL;
    }
    for (int c = 0; c < h->n_cols; c++) free(h->cols[c].bucket);
    h->n_cols = 0;
    h->n_segs = 0; /* --path: the columns come again with the first instance */
    h->oom = 0;
}

/* Read by process (engine/pass.h): a thread's columns of one table. */
struct hist_part {
    struct hist_run *h;
    const struct hist_table *ht;
    uint32_t shown;                     /* bit h: hop h is shown */
    struct column col[LATREC_MAX_HOPS]; /* the shown hops' (bucket set) */
};

static void hist_part_free(void *part)
{
    struct hist_part *hp = part;
    for (int k = 0; k < LATREC_MAX_HOPS; k++) free(hp->col[k].bucket);
    free(hp);
}

static void *hist_part_new(void *ctx, const latrec_leg_table *t)
{
    struct hist_run *h = ctx;
    struct hist_part *hp = calloc(1, sizeof(*hp));
    if (!hp) return NULL;
    hp->h = h;
    hp->ht = t->user;
    for (int k = 0; k < t->n_hops; k++) {
        column_empty(&hp->col[k]);
        if (hp->ht->col[k] < 0) continue;
        if (!(hp->col[k].bucket = calloc(h->o->entries + 1, sizeof(uint64_t)))) {
            hist_part_free(hp);
            return NULL;
        }
        hp->shown |= 1u << k;
    }
    return hp;
}

static void hist_part_value(void *part, int hop, int64_t ns, const latrec_instance *inst)
{
    (void)inst;
    struct hist_part *hp = part;
    if (hp->col[hop].bucket) add_value(hp->h->sc, &hp->col[hop], ns);
}

static void hist_part_values(void *part, uint32_t have, const int64_t *v, const latrec_instance *inst)
{
    (void)inst;
    struct hist_part *hp = part;
    const struct scale sc = hp->h->sc;
    for (uint32_t m = have & hp->shown; m; m &= m - 1) {
        const int h = __builtin_ctz(m);
        add_value(sc, &hp->col[h], v[h]);
    }
}

/* Counts and sums: the same in any order of the parts. */
static int hist_part_fold(void *ctx, latrec_leg_table *t, void *part)
{
    struct hist_run *h = ctx;
    struct hist_part *hp = part;
    for (int k = 0; k < t->n_hops; k++) {
        const struct column *from = &hp->col[k];
        if (!from->bucket) continue;
        struct column *c = &h->cols[hp->ht->col[k]];
        for (uint64_t b = 0; b <= h->o->entries; b++) c->bucket[b] += from->bucket[b];
        for (int b = 0; b < LOG2_SLOTS; b++) c->log2[b] += from->log2[b];
        if (from->count && (!c->count || from->min < c->min)) c->min = from->min;
        if (from->count && (!c->count || from->max > c->max)) c->max = from->max;
        uint64_t s;
        if (c->big || from->big || __builtin_add_overflow(c->usum, from->usum, &s)) {
            c->sum = col_sum(c) + col_sum(from); /* as long doubles, as ever */
            c->big = 1;
        } else {
            c->usum = s;
        }
        c->count += from->count;
        c->regressions += from->regressions;
    }
    hist_part_free(hp);
    return 0;
}

/* --path: the segments of a complete instance, one column each. */
static void hist_path(void *ctx, const latrec_path_instance *pi)
{
    struct hist_run *h = ctx;
    if (!h->n_segs) {
        h->n_segs = latrec_path_index_segments(h->paths, pi->path, h->segs);
        for (int s = 0; s < h->n_segs && !h->oom; s++) h->oom = add_column(h, h->segs[s].name) < 0;
    }
    if (!pi->complete || h->oom) return;
    for (int s = 0; s < h->n_segs; s++) {
        int64_t v;
        const latrec_hit *a, *b;
        if (latrec_path_index_segment_value(h->paths, pi, &h->segs[s], &v, &a, &b)) add_value(h->sc, &h->cols[s], v);
    }
}

/* --runqlat: one wait of a target thread. With --per-thread, one column per
 * thread generation (a reused tid is a new column), in the order of their
 * first waits, labelled by latrec_sched_view_label() once every record is
 * in (the last name a generation had). */
struct runqlat_thread {
    uint32_t tid, gen;
    int col;
};

struct runqlat_ctx {
    struct hist_run *h;
    const latrec_sched_view *view;
    const latrec_input *in;
    struct runqlat_thread *threads;
    int n_threads, cap_threads;
};

static int runqlat_column(struct runqlat_ctx *rc, uint32_t tid, uint32_t gen)
{
    for (int i = 0; i < rc->n_threads; i++)
        if (rc->threads[i].tid == tid && rc->threads[i].gen == gen) return rc->threads[i].col;
    if (grow((void **)&rc->threads, &rc->cap_threads, rc->n_threads, sizeof(*rc->threads)) < 0) return -1;
    int col = add_column(rc->h, ""); /* labelled at the end (runqlat_labels) */
    if (col >= 0) rc->threads[rc->n_threads++] = (struct runqlat_thread){ tid, gen, col };
    return col;
}

static void runqlat_labels(struct runqlat_ctx *rc)
{
    for (int i = 0; i < rc->n_threads; i++) {
        struct column *c = &rc->h->cols[rc->threads[i].col];
        latrec_sched_view_label(rc->view, rc->in, rc->threads[i].tid, rc->threads[i].gen, c->label, sizeof(c->label));
        latrec_text_safe(c->label, c->text, sizeof(c->text));
    }
}

static int runqlat_wait(void *ctx, const latrec_sched_wait *w)
{
    struct runqlat_ctx *rc = ctx;
    int col = rc->h->o->per_thread ? runqlat_column(rc, w->tid, w->gen) : 0;
    if (col < 0) return 1;
    add_value(rc->h->sc, &rc->h->cols[col], w->wait_ns > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)w->wait_ns);
    return 0;
}

/* Fill the columns from the scheduler data, read once in bounded memory
 * (latrec_sched_view_waits). Returns an exit status. */
static int runqlat(struct hist_run *h, const latrec_input *in)
{
    latrec_sched_view v;
    struct runqlat_ctx rc = { h, &v, in, NULL, 0, 0 };
    if (!h->o->per_thread && add_column(h, "runqlat") < 0) {
        fprintf(stderr, "latrec hist: out of memory\n");
        return LATREC_EXIT_ERROR;
    }
    const int got = latrec_sched_view_waits(&v, in, runqlat_wait, &rc);
    int rcode = LATREC_EXIT_OK;
    if (got < 0) {
        rcode = LATREC_EXIT_ERROR;
    } else if (got > 0) {
        fprintf(stderr, "latrec hist: out of memory\n");
        rcode = LATREC_EXIT_ERROR;
    } else if (!v.model) {
        fprintf(stderr, "latrec hist: --runqlat: scheduler data n/a: %s\n", v.reason);
        rcode = LATREC_EXIT_ERROR;
    } else {
        runqlat_labels(&rc);
    }
    free(rc.threads);
    latrec_sched_view_close(&v);
    return rcode;
}

/* ---- output ------------------------------------------------------------------ */

static int col_width(const struct column *c)
{
    int w = (int)strlen(c->text);
    return w > 9 ? w : 9;
}

static const char *unit_word(const latrec_units *u)
{
    return u->div == 1 ? "nanoseconds" : u->div == 1e3 ? "microseconds" : "milliseconds";
}

static void print_duration(FILE *out, const latrec_input *in)
{
    latrec_input_totals t;
    latrec_input_totals_get(in, &t);
    uint64_t ns = in->run_stop_real_ns > in->run_start_real_ns ? in->run_stop_real_ns - in->run_start_real_ns
                                                                 : t.last_t - t.first_t;
    uint64_t s = ns / 1000000000ull;
    /* rtla's get_duration(): days hh:mm:ss */
    fprintf(out, "# Duration: %3llu %02llu:%02llu:%02llu\n", (unsigned long long)(s / 86400),
            (unsigned long long)(s / 3600 % 24), (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
}

static void summary_value(FILE *out, const struct column *c, int has, uint64_t v)
{
    if (has) fprintf(out, "%*llu ", col_width(c), (unsigned long long)v);
    else fprintf(out, "%*s ", col_width(c), "-");
}

static void print_text(struct hist_run *h, const latrec_input *in, FILE *out)
{
    const struct hist_opts *o = h->o;
    if (!o->no_header) {
        fprintf(out, "# latrec histogram\n");
        fprintf(out, "# Time unit is %s (%s)\n", unit_word(&o->out.units), o->out.units.name);
        print_duration(out, in);
        if (o->bucket_size != 1) fprintf(out, "# Bucket size: %llu %s\n", (unsigned long long)o->bucket_size, o->out.units.name);
        /* Labels right-aligned over their counts, as rtla's are. */
        if (!o->no_index) fprintf(out, "%-6s", "Index");
        for (int c = 0; c < h->n_cols; c++) fprintf(out, "%*s ", col_width(&h->cols[c]), h->cols[c].text);
        fprintf(out, "\n");
    }
    for (uint64_t b = 0; b < o->entries; b++) {
        uint64_t total = 0;
        for (int c = 0; c < h->n_cols; c++) total += h->cols[c].bucket[b];
        if (!total && !o->with_zeros) continue;
        if (!o->no_index) fprintf(out, "%-6llu", (unsigned long long)(b * o->bucket_size));
        for (int c = 0; c < h->n_cols; c++)
            fprintf(out, "%*llu ", col_width(&h->cols[c]), (unsigned long long)h->cols[c].bucket[b]);
        fprintf(out, "\n");
    }
    if (o->no_summary) return;
    const char *rows[] = { "over:", "count:", "min:", "avg:", "max:" };
    for (int r = 0; r < 5; r++) {
        if (!o->no_index) fprintf(out, "%-6s", rows[r]);
        for (int c = 0; c < h->n_cols; c++) {
            const struct column *col = &h->cols[c];
            switch (r) {
            case 0: summary_value(out, col, 1, col->bucket[o->entries]); break;
            case 1: summary_value(out, col, 1, col->count); break;
            case 2: summary_value(out, col, col->count > 0, (uint64_t)((double)col->min / o->out.units.div)); break;
            case 3:
                summary_value(out, col, col->count > 0,
                              col->count ? (uint64_t)(col_sum(col) / col->count / o->out.units.div) : 0);
                break;
            default: summary_value(out, col, col->count > 0, (uint64_t)((double)col->max / o->out.units.div)); break;
            }
        }
        fprintf(out, "\n");
    }
    uint64_t regress = 0;
    for (int c = 0; c < h->n_cols; c++) regress += h->cols[c].regressions;
    if (regress) {
        if (!o->no_index) fprintf(out, "%-6s", "regr:");
        for (int c = 0; c < h->n_cols; c++) summary_value(out, &h->cols[c], 1, h->cols[c].regressions);
        fprintf(out, "\n");
    }
}

/* Power-of-two buckets with a bar, as runqlat and bpftrace print them. */
static void print_log2(struct hist_run *h, FILE *out)
{
    const struct hist_opts *o = h->o;
    static const char stars[] = "****************************************";
    for (int c = 0; c < h->n_cols; c++) {
        const struct column *col = &h->cols[c];
        fprintf(out, "%s%s (%s), count %llu%s\n", c ? "\n" : "", col->text, o->out.units.name,
                (unsigned long long)col->count, col->regressions ? ", clock regressions left out" : "");
        int last = -1;
        uint64_t peak = 0;
        for (int s = 0; s < LOG2_SLOTS; s++)
            if (col->log2[s]) {
                last = s;
                if (col->log2[s] > peak) peak = col->log2[s];
            }
        if (last < 0) {
            fprintf(out, "  (no values)\n");
            continue;
        }
        fprintf(out, "%22s : count     distribution\n", o->out.units.name);
        for (int s = 0; s <= last; s++) {
            unsigned long long lo = s ? 1ull << (s - 1) : 0, hi = s ? (1ull << s) - 1 : 0;
            if (s == 0) lo = hi = 0;
            int bar = peak ? (int)(col->log2[s] * 40 / peak) : 0;
            fprintf(out, "%10llu -> %-10llu: %-9llu |%-40.*s|\n", lo, hi, (unsigned long long)col->log2[s], bar, stars);
        }
    }
}

static void print_csv(struct hist_run *h, FILE *out)
{
    const struct hist_opts *o = h->o;
    fprintf(out, "index_%s", o->out.units.name);
    for (int c = 0; c < h->n_cols; c++) { /* a name with a comma or a quote is quoted */
        char field[2 * sizeof(h->cols[c].label) + 3];
        fprintf(out, ",%s", latrec_csv_field(h->cols[c].label, field, sizeof(field)) ? field : h->cols[c].label);
    }
    fprintf(out, "\n");
    for (uint64_t b = 0; b < o->entries; b++) {
        uint64_t total = 0;
        for (int c = 0; c < h->n_cols; c++) total += h->cols[c].bucket[b];
        if (!total && !o->with_zeros) continue;
        fprintf(out, "%llu", (unsigned long long)(b * o->bucket_size));
        for (int c = 0; c < h->n_cols; c++) fprintf(out, ",%llu", (unsigned long long)h->cols[c].bucket[b]);
        fprintf(out, "\n");
    }
    fprintf(out, "over");
    for (int c = 0; c < h->n_cols; c++) fprintf(out, ",%llu", (unsigned long long)h->cols[c].bucket[o->entries]);
    fprintf(out, "\n");
}

static void print_json(struct hist_run *h, FILE *out)
{
    const struct hist_opts *o = h->o;
    json_t *root = json_object();
    json_object_set_new(root, "unit", json_string(o->out.units.name));
    json_object_set_new(root, "bucket_size", json_integer((json_int_t)o->bucket_size));
    json_object_set_new(root, "entries", json_integer((json_int_t)o->entries));
    json_t *cols = json_array();
    for (int c = 0; c < h->n_cols; c++) {
        const struct column *col = &h->cols[c];
        json_t *cj = json_object();
        latrec_json_set_bytes(cj, "name", col->label); /* every byte, flagged name_escaped */
        json_t *buckets = json_array();
        for (uint64_t b = 0; b < o->entries; b++)
            if (col->bucket[b] || o->with_zeros)
                json_array_append_new(buckets, json_pack("[I,I]", (json_int_t)(b * o->bucket_size),
                                                         (json_int_t)col->bucket[b]));
        json_object_set_new(cj, "buckets", buckets);
        json_object_set_new(cj, "over", json_integer((json_int_t)col->bucket[o->entries]));
        json_object_set_new(cj, "count", json_integer((json_int_t)col->count));
        json_object_set_new(cj, "regressions", json_integer((json_int_t)col->regressions));
        json_object_set_new(cj, "min", col->count ? json_real((double)col->min / o->out.units.div) : json_null());
        json_object_set_new(
            cj, "avg", col->count ? json_real((double)(col_sum(col) / col->count) / o->out.units.div) : json_null());
        json_object_set_new(cj, "max", col->count ? json_real((double)col->max / o->out.units.div) : json_null());
        json_t *l2 = json_array();
        for (int s = 0; s < LOG2_SLOTS; s++)
            if (col->log2[s])
                json_array_append_new(l2, json_pack("{s:I,s:I,s:I}", "low", (json_int_t)(s ? 1ll << (s - 1) : 0),
                                                    "high", (json_int_t)(s ? (1ll << s) - 1 : 0), "count",
                                                    (json_int_t)col->log2[s]));
        json_object_set_new(cj, "log2", l2);
        json_array_append_new(cols, cj);
    }
    json_object_set_new(root, "columns", cols);
    json_dumpf(root, out, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    fputc('\n', out);
    json_decref(root);
}

static void print_output(struct hist_run *h, const latrec_input *in)
{
    if (h->o->out.format == FORMAT_CSV) print_csv(h, stdout);
    else if (h->o->out.format == FORMAT_JSON) print_json(h, stdout);
    else if (h->o->log2) print_log2(h, stdout);
    else print_text(h, in, stdout);
}

/* "no leg instances", with what took them: the selection, the warm-up
 * (there were instances, all before its end). */
static void no_instances_note(const latrec_select_opts *sel, const latrec_pass *p)
{
    char warm[80] = "";
    if (latrec_pass_warmup_skipped(p))
        snprintf(warm, sizeof(warm), " (--warm-up skipped %llu)", (unsigned long long)latrec_pass_warmup_skipped(p));
    fprintf(stderr, "latrec hist: no leg instances%s%s\n", latrec_select_any(sel) ? " match the selection" : "", warm);
}

/* After the pass: the notes, the histograms, the cut instances (printed
 * even with -q); the exit status. */
static int hist_finish(struct hist_run *h, latrec_input *in, latrec_pass *p)
{
    const struct hist_opts *o = h->o;
    if (latrec_pass_check_names(p, "hist") < 0) return LATREC_EXIT_ERROR;
    if (h->n_cols == 0 && o->sel.pass.path) fprintf(stderr, "latrec hist: no instance of path %s\n", o->sel.pass.path);
    else if (h->n_cols == 0) no_instances_note(&o->sel, p);
    if (h->oom) fprintf(stderr, "latrec hist: out of memory\n");
    sort_columns(h);
    print_output(h, in);
    if (latrec_legs_evicted(latrec_pass_legs(p))) {
        char cuts[256];
        latrec_pass_cut_note(latrec_pass_legs(p), cuts, sizeof(cuts));
        fprintf(stderr, "latrec hist: leg horizon %s (--leg-horizon)\n", cuts);
    }
    return h->oom ? LATREC_EXIT_ERROR : in->n_rejected ? LATREC_EXIT_SKIPPED : LATREC_EXIT_OK;
}

int latrec_cmd_hist(int argc, char **argv)
{
    struct argp argp = { hist_options, parse_hist, "[DIR...]",
                         "Latency histograms of a run in rtla's layout: an Index column (bucket lower edge "
                         "in the unit), one column per hop of the chosen leg or per leg total, and the "
                         "summary rows over:, count:, min:, avg:, max:.\v"
                         "A value v falls in bucket floor(v / bucket size): a value on a bucket edge counts "
                         "in the bucket that starts there; values from entries x bucket size up count in "
                         "over:. Clock regressions (negative hops) are counted apart (regr:).\n\n"
                         "Exit status: 0 success; 1 nothing could be read, the output could not be written, "
                         "or a name the run does not hold (the message lists those it does); 2 usage; 3 some rings were "
                         "skipped; 141 standard output's reader went away. See latrec-hist(1).",
                         latrec_analysis_children, 0, 0 };
    struct hist_opts o;
    memset(&o, 0, sizeof(o));
    o.bucket_size = 1;
    o.entries = 256;
    latrec_output_init(&o.out, hist_formats);
    argp_err_exit_status = LATREC_EXIT_USAGE;
    if (argp_parse(&argp, argc, argv, 0, 0, &o) != 0) return LATREC_EXIT_USAGE;

    o.input.guess = !o.runqlat; /* the pass checks what the guess gave (engine/input.h) */
    latrec_engine *e = latrec_engine_open(&o.input, "hist", 0);
    if (!e) return LATREC_EXIT_ERROR;
    latrec_input *in = latrec_engine_input(e);
    latrec_align_print(in, stderr);
    if (latrec_pass_names_resolve(&o.sel.pass.hops, in, o.sel.hop_specs, o.sel.n_hop_specs, o.sel.pass.path,
                                  "hist") < 0) {
        latrec_engine_close(e);
        return LATREC_EXIT_ERROR;
    }
    struct hist_run h;
    memset(&h, 0, sizeof(h));
    h.o = &o;
    h.sc.bucket_ns = (uint64_t)((double)o.bucket_size * o.out.units.div);
    h.sc.bucket_mul = div_mul((double)h.sc.bucket_ns);
    h.sc.unit_mul = div_mul(o.out.units.div);
    h.sc.entries = o.entries;
    h.sc.div = o.out.units.div;
    h.paths = in->paths;
    latrec_pass_sinks sinks = { .ctx = &h,
                                .table_new = hist_table_new,
                                .value = hist_value,
                                .path_instance = hist_path,
                                .restart = hist_restart,
                                .part_new = hist_part_new,
                                .part_value = hist_part_value,
                                .part_values = hist_part_values,
                                .part_fold = hist_part_fold,
                                .part_free = hist_part_free };
    latrec_pass *p = NULL;
    int rc = LATREC_EXIT_ERROR;
    if (o.runqlat) {
        rc = runqlat(&h, in);
        if (rc == LATREC_EXIT_OK) {
            print_output(&h, in);
            rc = in->n_rejected ? LATREC_EXIT_SKIPPED : LATREC_EXIT_OK;
        }
    } else if (latrec_engine_start(e, &o.sel.pass, &sinks) == 0 && latrec_engine_run(e) == 0) {
        p = latrec_engine_pass(e);
        rc = hist_finish(&h, in, p);
        int n;
        latrec_leg_table **tables = latrec_pass_tables(p, &n);
        for (int i = 0; i < n; i++) free(tables[i]->user);
    }
    for (int c = 0; c < h.n_cols; c++) free(h.cols[c].bucket);
    free(h.cols);
    latrec_engine_close(e);
    return rc;
}
