/*
 * engine/report_model.h - the report as plain data, built once and written by
 * one writer per format (report_text.c, report_csv.c, report_json.c,
 * report_html.c with the charts of report_svg.c).
 *
 * A report is a header (the run: command, duration, rings, losses, clock
 * cost, catalog, scheduler data or why not, the options that change figures),
 * a list of tables and a time series. A table is one leg of a component: its
 * rows are the leg's hops and, last, the inter-arrival gaps of its first
 * stage. Every row holds the column's figures (engine/figures.h), the same
 * figures of the baseline run when --baseline matched it, and the
 * scheduler's split (means per instance, ns) when the run has scheduler
 * data. A table also keeps its slowest instances (--top, --explain) with
 * the sentence that explains each. Path tables (kind LATREC_TABLE_PATH,
 * row_word "segment", report_paths.c) come after the leg tables, in
 * catalog order: their rows are a path's segments (every hop of its legs,
 * every hand-off between two), "total" and "total_drops_as_delay", and
 * they add where the incomplete instances stopped. For the HTML page a
 * table's ranking row also carries its distribution (pre-binned: log bins
 * and a fixed set of percentiles, report_dist.c) and every part of a total
 * its mean with clock regressions included.
 *
 * Everything is ns unless named; the writers convert to the chosen unit.
 * The model owns its memory (latrec_report_free) and refers to no run, so a
 * writer needs nothing else.
 *
 * Building it (report_build.c: the passes; report_model.c: the model from
 * their state) reads the run: one pass over every record,
 * and a second one when the outlier counts must be exact or --drop-outliers
 * asks for figures without them (see latrec-report(1)).
 */
#ifndef LATREC_ENGINE_REPORT_MODEL_H
#define LATREC_ENGINE_REPORT_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "engine/figures.h"
#include "engine/input.h"
#include "engine/pass.h"

/* The scheduler's split of one row: means per split instance, ns, over the
 * thread that stamped the row's second stage. */
typedef struct latrec_report_split {
    uint64_t n;                              /* instances split; 0: means absent */
    double   on_cpu, runq, blocked, unknown; /* ns, mean per instance */
    uint64_t preemptions, migrations;        /* summed */
} latrec_report_split;

typedef enum { LATREC_ROW_HOP, LATREC_ROW_GAPS } latrec_report_row_kind;

/* A row's distribution, pre-binned for charts (--format html): counts in
 * log bins (per_decade a decade, edges 10^(k / per_decade) ns, [lo, hi);
 * bin 0 may be [0, 1)), and the value at percentiles q[] (nearest rank, as
 * the figures). Empty bins are left out. */
#define LATREC_REPORT_DIST_BINS 100
#define LATREC_REPORT_DIST_QS 32
typedef struct latrec_report_dist {
    uint64_t count;
    int      per_decade;
    int      n_bins;
    double   lo_ns[LATREC_REPORT_DIST_BINS], hi_ns[LATREC_REPORT_DIST_BINS];
    uint64_t n[LATREC_REPORT_DIST_BINS];
    int      n_q;
    double   q[LATREC_REPORT_DIST_QS];    /* percentile, 0..100 */
    double   v_ns[LATREC_REPORT_DIST_QS]; /* its value */
} latrec_report_dist;

/* The distribution of s in per_decade bins a decade (0: about 40 bins over
 * its range; a baseline takes the run's, so their bars line up). NULL when s
 * is empty or out of memory. Free with free(). */
struct latrec_stats;
latrec_report_dist *latrec_report_dist_new(struct latrec_stats *s, int per_decade);

typedef struct latrec_report_row {
    latrec_report_row_kind kind;
    char          *name;     /* "ENQUEUE->DEQUEUE", "total", "inter-arrival" */
    /* Path rows: what the segment is ("hop", "hand-off", "total",
     * "drops-as-delay") and where ("source", "source->outbound", ""). */
    const char    *segment;
    char          *where;
    latrec_figures fig;
    int            has_base; /* the baseline has this row */
    latrec_figures base;
    int            has_split; /* scheduler data, and a hop row */
    latrec_report_split split;
    int            in_sum;    /* a part of the total: a chain hop, a path's hop or hand-off */
    /* Mean of every value, clock regressions (negative values) included:
     * the figures leave those out, the parts of a total must not. */
    int            has_signed_mean, has_base_signed_mean;
    double         signed_mean, base_signed_mean; /* ns */
    latrec_report_dist *dist, *base_dist; /* the ranking row with req->dists, else NULL */
} latrec_report_row;

/* The sentence of --explain: which row took the time, and the scheduler's
 * account of it on the threads of its two stages. */
typedef struct latrec_report_why {
    int      row;        /* the slowest row but the total */
    int64_t  value;      /* its value, ns */
    int      has_share;  /* share of the ranking value is meaningful */
    double   share_pct;
    uint32_t tid_b;      /* thread of the row's second stage */
    char    *why_b;      /* latrec_sched_view_explain() in the report's unit */
    uint32_t tid_a;      /* thread of the first stage, when another one */
    char    *why_a;      /* NULL: same thread, or no scheduler data */
} latrec_report_why;

/* One of the slowest instances of a table, by its ranking row. */
typedef struct latrec_report_instance {
    uint64_t seq;
    char    *process;   /* "pid 1234" */
    char    *ring;      /* the ring of its first stamp */
    uint64_t t_ns;      /* its first stamp, on the run's clock */
    int64_t  start_ns;  /* the same, from the run's beginning */
    int64_t *value;     /* per hop row (n_rows - 1), ns */
    uint8_t *has;       /* per hop row: both stages present */
    latrec_report_why why;
} latrec_report_instance;

typedef enum { LATREC_TABLE_LEG, LATREC_TABLE_PATH } latrec_report_table_kind;

/* A path's incomplete instances that stopped at one of its legs, by reason
 * (enum latrec_path_stop). */
typedef struct latrec_report_stop {
    char    *leg;
    uint64_t n[LATREC_PATH_N_STOPS];
} latrec_report_stop;

typedef struct latrec_report_table {
    latrec_report_table_kind kind;
    const char *row_word;    /* what a row is: "hop" (text heading HOP) */
    char       *component;
    char       *name;        /* the leg */
    int         discovered;  /* a leg the catalog does not declare */
    int         has_bytes;   /* the leg carries a byte count */
    uint64_t    instances, complete;
    int         n_rows;      /* hop rows, then the inter-arrival row */
    latrec_report_row *rows;
    int         rank_row;    /* the row --top ranks by; -1: none */
    int         n_top;
    latrec_report_instance *top;
    uint64_t    late;        /* instances after their interval closed */
    /* Paths (component "path", name the path's): instances = complete +
     * incomplete (after the warm-up); rows are the segments, "total" and
     * "total_drops_as_delay"; the counts below cover the whole run. */
    uint64_t    incomplete, unanchored, cut_open, drops_unresolved;
    int         n_stops;     /* the path's legs */
    latrec_report_stop *stops;
    char       *qualified;   /* a path's CATALOG:NAME (analyze/path_index.h), else NULL */
} latrec_report_table;

/* One interval of one table (--interval), sorted by time, then table. */
typedef struct latrec_report_interval {
    int      table;            /* index in tables[] */
    uint64_t idx;              /* interval number from the run's beginning */
    uint64_t count, bytes;     /* bytes: when the table has_bytes */
    int      has_p50, has_p99;
    int64_t  p50, p99;         /* of the leg total, ns */
} latrec_report_interval;

typedef struct latrec_report_header {
    char    *command;          /* NULL without run.json */
    int      have_run;
    char    *exit_note;        /* how the target ended, from run.json */
    char    *exit_json;        /* run.json's "exit" object as JSON text, or NULL */
    double   duration_s;       /* run.json's, else first to last record */
    latrec_input_totals totals;
    uint64_t records;          /* of the program's rings (sched.latrec apart) */
    char    *catalog_note;
    int      processes_guessed;
    int      have_start;
    int      sched;            /* scheduler data present */
    uint64_t sched_events;     /* the scheduler collector's records, apart from
                                  totals and records (the program's rings) */
    char    *sched_ring;       /* its ring's file name */
    char    *sched_reason;     /* why not, when !sched */
    uint64_t leg_horizon_ns;   /* --leg-horizon in use */
    uint64_t cut_horizon, cut_room; /* instances it (and max_open) cut unfinished */
    char    *horizon_note;     /* "10 s, N instances cut unfinished by it" */
    int      paths;            /* path tables were asked for */
    /* --wall with several directories: host clock offsets from the paths'
     * exchanges (analyze/clock_offset.h), "DIRb - DIRa"; --align's shifts */
    int      n_offsets;
    struct latrec_report_offset {
        char    *from, *to;    /* directories a and b: the offset is b's clock minus a's */
        int64_t  offset_ns, bound_ns;
        uint64_t exchanges;
        int      consistent;
    } offsets[16];
    int      n_aligned;
    char    *aligned[16];      /* latrec_align_note() of each shifted directory */
    uint64_t path_horizon_ns;  /* --path-horizon in use */
    uint64_t path_warmup_skipped; /* path instances the warm-up skipped */
    uint64_t warmup_ns, warmup_skipped;
    int      calibrated, outliers_dropped;
    int      selection;        /* --component, --leg or --hop given */
} latrec_report_header;

/* What to build: the options that decide figures. */
typedef struct latrec_report_request {
    latrec_pass_opts pass;
    const char *const *hop_specs;
    int          n_hop_specs;
    int          top, explain; /* instances kept: max of the two */
    const double *pct;
    int          n_pct;
    latrec_units units;
    int          drop_outliers;
    uint64_t     interval_ns;
    const char  *baseline;     /* NULL: none */
    int          dists;        /* distributions of the ranking rows (html) */
    int          auto_interval; /* no interval_ns: about 100 intervals over the run */
} latrec_report_request;

typedef struct latrec_report {
    latrec_report_header hdr;
    double       pct[LATREC_MAX_PCT];
    int          n_pct;
    latrec_units units;
    int          top, explain;
    int          has_baseline;
    char        *baseline_dir; /* --baseline's directory */
    uint64_t     interval_ns;  /* 0: no time series */
    int          n_tables;     /* sorted by component, then catalog order */
    latrec_report_table *tables;
    size_t       n_intervals;
    latrec_report_interval *intervals;
    size_t       n_base_intervals; /* the baseline's, on the same interval (html only) */
    latrec_report_interval *base_intervals;
    int          n_rejected;   /* rings skipped (exit 3) */
} latrec_report;

/* What building a report returns when it fails: the command's exit status
 * (LATREC_EXIT_ERROR, cli/commands.h). */
#define LATREC_REPORT_ERROR 1

/* Read the run (and the baseline) and fill m. Returns 0, or
 * LATREC_REPORT_ERROR with the reason printed. m is freed either way by
 * latrec_report_free(). */
int latrec_report_build(latrec_report *m, const latrec_input_opts *input, const latrec_report_request *req);
void latrec_report_free(latrec_report *m);

/* The figure i of a row is a time (not skewness). */
static inline int latrec_report_is_time(const latrec_report *m, int i) { return i != fig_skew(m->n_pct); }

#endif
