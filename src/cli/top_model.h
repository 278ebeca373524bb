/*
 * cli/top_model.h - what `latrec top` shows: one row per leg (its total, or
 * each hop with --leg or --hop, as hist's columns) and per path (its total
 * over complete instances), each with two histograms: the last interval and
 * since the start.
 *
 * The rows are fed by the engine's pass sinks (engine/pass.h) as instances
 * end, so "the last interval" holds the instances that ended during it (the
 * engine read their last stamp then). Figures come from analyze/loghist.h:
 * count (non-negative values: what report counts), p50 and p99 (nearest
 * rank, exact up to 2048 values, else at most 0.0977 % high), max; ns.
 * Clock regressions (negative values) are counted apart, as report does.
 */
#ifndef LATREC_CLI_TOP_MODEL_H
#define LATREC_CLI_TOP_MODEL_H

#include <stdint.h>

#include "analyze/loghist.h"
#include "engine/engine.h"
#include "engine/sched_view.h"

enum { LATREC_TOP_LAST = 0, LATREC_TOP_ALL = 1 };

typedef struct latrec_top_row {
    int is_path;
    char name[2 * LATREC_NAME_MAX + 2]; /* "libe3/outbound", or the path's "e3/loop" */
    char hop[2 * LATREC_NAME_MAX + 8];  /* "total", or "ENQUEUE->DEQUEUE" */
    latrec_loghist h[2];                /* [LATREC_TOP_LAST], [LATREC_TOP_ALL] */
    /* leg rows, with t->sv: the scheduler's split of the instances split
     * in the last interval and since the start, their hops' ns summed
     * (on CPU + runnable + blocked + unknown add up to it exactly), and
     * the instances waiting for scheduler data (a live run) */
    latrec_sched_acc sched[2];
    long double hop_ns[2];
    uint64_t pending;
} latrec_top_row;

/* A hop instance waiting for the scheduler data of its time. */
typedef struct latrec_top_wait {
    int row;
    uint32_t tid;
    uint64_t t_a, t_b;
} latrec_top_wait;

/* Instances held for their scheduler data at most (24 MiB); past it an
 * instance is left unsplit, counted in latrec_top.unsplit. */
#define LATREC_TOP_WAIT_MAX (1u << 20)

/* One histogram's figures (ns); has = 0 when it is empty. */
typedef struct latrec_top_fig {
    uint64_t count;
    int has;
    int64_t p50, p99, max;
} latrec_top_fig;

typedef struct latrec_top {
    const latrec_input *in;
    int per_hop; /* one row per hop (--leg or --hop), else per leg total */
    int paths;   /* path rows wanted */
    latrec_top_row *rows;
    int n_rows, cap_rows;
    int path_row[LATREC_RUN_MAX_PATHS]; /* row of run path i (analyze/path_index.h), -1 none yet */
    uint64_t regressions;               /* negative values, every row */
    /* The scheduler's split of each leg row's hop, as report gives it (on
     * the thread that stamped the hop's second stage). A run read once has
     * its scheduler data from the start: each instance is split as it
     * ends. A run being recorded has it published a window behind the
     * clock (record/sched_live.h, sv->live): an instance that ends past
     * what the view covers waits in a queue, in the order instances end,
     * and is split by latrec_top_sched_flush() once the view covers it.
     * NULL: no split. A pass that starts over (latrec_top_sinks' restart)
     * opens a pass's view again. */
    latrec_sched_view *sv;
    latrec_top_wait *wait;
    size_t wait_head, wait_n, wait_cap;
    uint64_t unsplit; /* instances the queue had no room for, or held when the view gave up */
    int oom;
} latrec_top;

/* An empty model over input in; sel names what the pass selects. */
void latrec_top_init(latrec_top *t, const latrec_input *in, const latrec_pass_opts *sel);
void latrec_top_free(latrec_top *t);

/* The pass sinks that fill t (ctx = t). They can start over (engine/pass.h:
 * restart): every row goes, and a pass's view (latrec_sched_view_open_pass)
 * is opened again, so the figures are those of the pass read again. */
latrec_pass_sinks latrec_top_sinks(latrec_top *t);

/* A new interval: every row's LAST histogram and split emptied. */
void latrec_top_next_interval(latrec_top *t);

/* Split the waiting instances whose hop ended at or before covered_ns
 * (latrec_sched_view_follow's), front to back. Once the view gave up
 * (latrec_sched_view_gave_up), every waiting instance is counted unsplit
 * instead. */
void latrec_top_sched_flush(latrec_top *t, uint64_t covered_ns);

/* The stream is over but the live view never saw sched.latrec closed (its
 * latrec record was killed): no more data will come. Every instance still
 * waiting (past what the view covered, latrec_top_sched_flush first) is
 * counted unsplit, none left waiting. */
void latrec_top_sched_settle(latrec_top *t);

/* The final block when the live stream fed records late for its watermark
 * (or lapped): full is a model of one pass over the finished input (what
 * top shows of a finished run, report's counts); live's last interval
 * (histogram and split, row by row of the same name) is moved into it. */
void latrec_top_take_last(latrec_top *full, latrec_top *live);

/* Instances waiting for scheduler data, every row. */
static inline uint64_t latrec_top_waiting(const latrec_top *t)
{
    return t->wait_n - t->wait_head;
}

/* Figures of row r's histogram which (LATREC_TOP_LAST or _ALL). */
void latrec_top_fig_get(const latrec_top *t, int r, int which, latrec_top_fig *f);

/* Before latrec_engine_close: every table's user state freed. */
void latrec_top_release_tables(latrec_pass *p);

#endif
