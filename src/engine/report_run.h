/*
 * engine/report_run.h - what the two halves of building a report share
 * (report_build.c: the passes over a run; report_model.c: the plain model
 * from their state). Not an interface.
 */
#ifndef LATREC_ENGINE_REPORT_RUN_H
#define LATREC_ENGINE_REPORT_RUN_H

#include "analyze/stats.h"
#include "engine/engine.h"
#include "engine/report_model.h"
#include "engine/report_paths.h"
#include "engine/sched_view.h"

#define MAX_OPEN_INTERVALS 16
#define PART_OPEN_INTERVALS 4 /* a part's (report_series.c): a process's instances start about in order */
#define INTERVAL_LATENESS_NS 1000000000ull

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

/* The order of the slowest instances (--top, --explain): by value, slowest
 * first; equal values by the earlier start stamp, then ring, seq and
 * process, so the list does not depend on the order instances end in. 1
 * when instance a goes before instance b. */
static inline int latrec_rank_before(int64_t va, uint64_t start_a, uint32_t ring_a, uint64_t seq_a, uint32_t proc_a,
                                     int64_t vb, uint64_t start_b, uint32_t ring_b, uint64_t seq_b, uint32_t proc_b)
{
    if (va != vb) return va > vb;
    if (start_a != start_b) return start_a < start_b;
    if (ring_a != ring_b) return ring_a < ring_b;
    if (seq_a != seq_b) return seq_a < seq_b;
    return proc_a < proc_b;
}

static inline int latrec_top_before(const struct top_entry *a, const struct top_entry *b)
{
    return latrec_rank_before(a->key, a->start, a->ring, a->seq, a->process, b->key, b->start, b->ring, b->seq,
                              b->process);
}

/* The scheduler's splits --explain asks about for one instance it
 * explains: each of its n hops (or segments) it has, on the threads of both
 * its stages. 0, or -1 when out of memory. */
static inline int latrec_report_want_hops(const latrec_sched_view *sv, int n, const uint8_t *has, const uint64_t *t_a,
                                          const uint64_t *t_b, const uint32_t *tid_a, const uint32_t *tid_b)
{
    for (int h = 0; h < n; h++)
        if (has[h] && (latrec_sched_view_want(sv, tid_b[h], t_a[h], t_b[h]) < 0 ||
                       latrec_sched_view_want(sv, tid_a[h], t_a[h], t_b[h]) < 0))
            return -1;
    return 0;
}

struct interval {
    uint64_t idx, count, bytes;
    latrec_stats total;
};

/* The open intervals of one leg's (or path's) time series. */
struct series {
    const latrec_leg_table *table; /* the leg, or NULL for a path */
    int path;                      /* catalog path index, -1 for a leg */
    struct interval open[MAX_OPEN_INTERVALS];
    int n_open;
    uint64_t late; /* instances after their interval closed */
};

struct report_run;

/* A table's time series read by process (report_series.c): each thread's
 * part keeps up to PART_OPEN_INTERVALS intervals whole, and the others
 * small (their histogram sparse), to be folded across the parts and made
 * rows at the end. An instance counts in the interval its first stamp
 * falls in, whatever the order instances end in: so the rows are those of
 * the pass in time order while none of its instances is counted late
 * there, which the pass by process sees to (sinks.part_age_max). */
struct kept_interval {
    uint64_t idx, count, bytes;
    latrec_loghist_sparse total;
};

struct kept_series {
    struct kept_interval *iv; /* by idx */
    size_t n, cap;
};

struct part_interval {
    uint64_t idx, count, bytes;
    uint64_t used; /* the part's tick when it was last given an instance */
    latrec_loghist total;
};

struct part_series {
    struct part_interval open[PART_OPEN_INTERVALS];
    int n_open, last;
    uint64_t tick;
    struct kept_series kept;
    int oom;
};

/* A part's series (NULL: out of memory); an instance of table t into it
 * (r's beginning and interval); folded into a table's kept series (0, or
 * -1 out of memory; freed either way); freed unfolded. */
struct part_series *latrec_part_series_new(void);
void latrec_part_series_add(struct part_series *ps, const struct report_run *r, const latrec_leg_table *t,
                            const latrec_instance *inst);
int latrec_part_series_fold(struct kept_series *dst, struct part_series *ps);
void latrec_part_series_free(struct part_series *ps);
/* A table's kept series to r's rows, then emptied: 0, or -1 out of memory. */
int latrec_kept_series_rows(struct report_run *r, const latrec_leg_table *t, struct kept_series *ks);
void latrec_kept_series_free(struct kept_series *ks);

struct interval_row {
    const latrec_leg_table *table; /* NULL: the path's */
    int path;                      /* -1: a leg's */
    uint64_t idx, count, bytes;
    int has_p50, has_p99;
    int64_t p50, p99;
};

/* The hop values of one process's last instances, not in the columns yet
 * (report_build.c): a hop every one of them has goes in as a block
 * (stats.h, latrec_stats_add_strided). */
struct value_rows {
    uint32_t n, proc, have_all, have_any;
    uint32_t have[LATREC_STATS_BLOCK];
    int64_t v[LATREC_STATS_BLOCK * LATREC_MAX_HOPS]; /* row i's hop h at [i * n_hops + h] */
};

struct rtable {
    latrec_stats col[LATREC_MAX_HOPS];
    struct value_rows *rows; /* [process] in the first pass in time order */
    uint32_t n_rows;
    latrec_sum sum[LATREC_MAX_HOPS]; /* signed sums of pass 1, for the waterfall */
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
    struct series series; /* --interval */
    struct kept_series kept; /* --interval read by process */
};

struct report_run {
    const latrec_report_request *o;
    latrec_engine *e;    /* the run's engine (engine/engine.h): its input, its pass */
    latrec_input *in;
    latrec_pass *pass;
    latrec_pass *first;  /* during the outlier pass: the first pass */
    int pass_no;         /* 1: first pass, 2: outlier pass */
    struct interval_row *rows;
    size_t n_rows, cap_rows;
    uint64_t begin;      /* the run's beginning, as latrec_pass_begin() will tell */
    latrec_sched_view sv; /* the scheduler's side, or why not */
    latrec_rpaths *paths; /* the path tables' state */
    uint64_t interval_ns; /* --interval, or the automatic one (html), 0: none */
    int interval_auto;    /* interval_ns is the automatic one, taken from the rings */
    struct series *path_series; /* per catalog path, with paths and an interval */
    int n_path_series;
    int oom;
};

/* A new row of r's time series (NULL: out of memory, r->oom set). */
struct interval_row *latrec_report_row_new(struct report_run *r);
/* What an instance of t brings to its interval: the bytes it carried
 * (*bytes) and the values of t's total hops (v[0..n), n returned). */
int latrec_report_interval_values(const latrec_leg_table *t, const latrec_instance *inst, uint64_t *bytes, int64_t *v);

/* Instances kept per leg for --top and --explain. */
/* Open the input, run the passes, compute the figures. 0 or an exit code. */
int latrec_report_analyse(struct report_run *r, const latrec_input_opts *input_opts);
void latrec_report_run_free(struct report_run *r);
/* The model of r (and its baseline, NULL: none). 0 or an exit code. */
int latrec_report_model_fill(latrec_report *m, struct report_run *r, struct report_run *base,
                             const latrec_report_request *req);

#endif
