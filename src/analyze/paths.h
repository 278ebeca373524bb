/*
 * analyze/paths.h - path instances: one message followed through the legs
 * of a catalog path, assembled from ended leg instances as they stream by.
 *
 * A path (analyze/catalog.h) is an ordered list of legs linked by joins: leg
 * A's field F at stage S equals leg B's field G at stage T (seq, aux or
 * aux2). A `process` join matches inside one process; a `cross` join
 * matches across the processes of one directory (host), or of every
 * directory when opts.cross_hosts is set (--wall with several hosts).
 *
 * Assembly: every ended leg instance of a leg a path uses (the leg
 * builder's emit, analyze/legs.h) is copied into a piece and linked to the
 * pieces already waiting at its joins, in any order of arrival (a leg with
 * extras ends LATREC_LEGS_GRACE_NS after its last chain stage, so the legs
 * of one message end out of path order). Linked pieces form a fragment; a
 * fragment holding every leg, all complete, is a complete path instance and
 * is handed to emit at once, then freed.
 *
 * Memory is bounded: a fragment leaves when it completes, when it is older
 * than the horizon (stream time since the fragment was opened; the stream
 * time is the latest stamp fed), when more than max_open are open (the
 * oldest leaves), or at latrec_paths_finish(). A fragment that leaves
 * incomplete is never dropped silently:
 *   - one holding the path's first leg is an incomplete path instance,
 *     handed to emit with complete = 0 and counted at the leg where it
 *     stopped (stop_pos: the first leg missing, or the first leg whose
 *     instance is incomplete) with a reason (enum latrec_path_stop);
 *   - one without the first leg (a leg instance of a message that did not
 *     start on this path, or whose start was lost) is counted as unanchored;
 *     a leg instance that lacks the key its predecessor would join it by is
 *     counted so at once and never held.
 * "Partner outside the horizon" is told apart from "no partner" by
 * remembering the keys of the last LATREC_PATHS_TOMBS fragments that left:
 * a partner arriving for one of them moves its count from no partner to
 * outside horizon.
 *
 * Drops as delay (CARET's definition): a message that did not get through
 * counts as late until the next message of the path that did: its latency
 * runs from its start to the end of the first path instance that started
 * after it and completed (delay_end_ns), looked up among the last
 * LATREC_PATHS_DONE_WINDOW completed instances of the path (their start and
 * end only, so it is known only when the message leaves: at the horizon,
 * at max_open or at the end); 0 when none had got through by then.
 *
 * Times are ns on the feed's clock; start = the first leg's first chain
 * stage, end = the last leg's last chain stage.
 */
#ifndef LATREC_ANALYZE_PATHS_H
#define LATREC_ANALYZE_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/catalog.h"
#include "analyze/legs.h"

#define LATREC_PATHS_HORIZON_NS 10000000000ull /* default horizon: 10 s */
#define LATREC_PATHS_MAX_OPEN 1000000u         /* default open fragments cap */
#define LATREC_PATHS_TOMBS 65536u              /* keys of fragments that left */
#define LATREC_PATHS_DONE_WINDOW 65536u        /* completed instances kept per path */

/* Why an incomplete path instance stopped. */
enum latrec_path_stop {
    LATREC_PATH_NO_PARTNER = 0, /* the next leg's instance never came */
    LATREC_PATH_DUPLICATE,      /* another instance with the same key took its place */
    LATREC_PATH_DROP,           /* the leg's instance holds a stage named DROP */
    LATREC_PATH_HORIZON,        /* the partner came, but further apart than the horizon */
    LATREC_PATH_INCOMPLETE_LEG, /* the leg's instance lacks a chain stage (no DROP) */
    LATREC_PATH_N_STOPS
};

/* Column name of a reason: "no_partner", "duplicate_key", "drop",
 * "outside_horizon", "incomplete_leg". */
const char *latrec_path_stop_name(int reason);

/* One path instance, valid during the emit callback only. */
typedef struct latrec_path_instance {
    int path; /* the catalog's path index (run-wide through analyze/path_index.h) */
    int n_legs;
    int complete; /* every leg present and complete */
    /* legs[i]: the instance of the path's leg i, NULL when the message
     * never reached it: its process (latrec_legs_process(): pid, and dir,
     * the directory, i.e. the host), its chain stages' stamps hits[0 ..
     * n_chain) (ring, time on the feed's clock), then its extras. */
    const latrec_instance *legs[LATREC_MAX_PATH_LEGS];
    uint64_t start_ns;     /* first leg's first chain stage (or first stamp) */
    uint64_t end_ns;       /* last leg's last chain stage; 0 when incomplete */
    int stop_pos;          /* incomplete: leg position where it stopped */
    int stop_reason;       /* incomplete: enum latrec_path_stop */
    uint64_t delay_end_ns; /* incomplete: drops-as-delay end, 0 when none */
} latrec_path_instance;

typedef void (*latrec_path_emit_fn)(void *ctx, const latrec_path_instance *pi);

/* Counts of one path. */
typedef struct latrec_path_counts {
    uint64_t complete;
    uint64_t incomplete;                                         /* sum of stopped[][] */
    uint64_t stopped[LATREC_MAX_PATH_LEGS][LATREC_PATH_N_STOPS]; /* [stop_pos][reason] */
    uint64_t unanchored;                                         /* fragments without the first leg */
    uint64_t cut_open;                                           /* fragments that left because max_open was reached */
    uint64_t drops_delayed;                                      /* incomplete instances with a drops-as-delay end */
    uint64_t joined[LATREC_MAX_PATH_LEGS];                       /* [i]: links made at the join into leg i */
} latrec_path_counts;

typedef struct latrec_paths_opts {
    uint64_t horizon_ns; /* 0: LATREC_PATHS_HORIZON_NS */
    size_t max_open;     /* 0: LATREC_PATHS_MAX_OPEN */
    int cross_hosts;     /* cross joins match across directories */
} latrec_paths_opts;

typedef struct latrec_paths latrec_paths;

/* Assemble the paths of cat (borrowed, like legs) from the instances of
 * builder `legs` (for processes and directories). Returns NULL when out of
 * memory; a catalog without paths gives an assembler that does nothing. */
latrec_paths *latrec_paths_new(const latrec_catalog *cat, const latrec_legs *legs, const latrec_paths_opts *opts,
                               latrec_path_emit_fn emit, void *ctx);

/* Assemble the paths of catalog c of a multi-catalog builder
 * (latrec_legs_new_multi()): its legs and joins are resolved within that
 * catalog, and only instances of its legs (builder legs
 * latrec_legs_catalog_leg(legs, c, k)) are taken; the rest are ignored, so
 * one assembler per catalog can be fed the same stream. pi->path indexes
 * that catalog's paths. With c = 0 this is latrec_paths_new() of catalog 0.
 * NULL when c is out of range or out of memory. */
latrec_paths *latrec_paths_new_catalog(const latrec_legs *legs, int c, const latrec_paths_opts *opts,
                                       latrec_path_emit_fn emit, void *ctx);

/* Feed one ended leg instance (copied). 0, or -1 when out of memory (the
 * instance is lost and counted nowhere; the caller says so). */
int latrec_paths_feed(latrec_paths *p, const latrec_instance *inst);

/* Every open fragment leaves (incomplete instances emitted, counted). */
void latrec_paths_finish(latrec_paths *p);

const latrec_path_counts *latrec_paths_counts(const latrec_paths *p, int path);
/* Fragments open now (for the memory benchmark and tests). */
size_t latrec_paths_open(const latrec_paths *p);
void latrec_paths_free(latrec_paths *p);

/* ---- segments ------------------------------------------------------------ */

enum { LATREC_SEG_HOP = 0, LATREC_SEG_HANDOFF = 1, LATREC_SEG_TOTAL = 2 };

#define LATREC_MAX_SEGS (LATREC_MAX_PATH_LEGS * LATREC_MAX_CHAIN + 1)

/* A segment: a hop of one leg (consecutive chain stages), a hand-off from
 * leg pos_from's last chain stage to leg pos_to's first, or the total. */
typedef struct latrec_segment {
    int kind;
    int pos_from, pos_to;               /* leg positions in the path */
    uint8_t from, to;                   /* stage ids */
    char name[2 * LATREC_NAME_MAX + 8]; /* "FROM->TO", or "total" */
    char leg[2 * LATREC_NAME_MAX + 8];  /* "source", "source->outbound" (hand-off), "" (total) */
    int hit_from, hit_to;               /* from's and to's chain positions in their legs (hit indexes) */
} latrec_segment;

/* The segments of path (every hop of every leg in order, a hand-off between
 * consecutive legs), then the total; returns the count. For a complete
 * instance the segments before the total add up exactly to it. */
int latrec_path_segments(const latrec_catalog *cat, const latrec_path *path, latrec_segment *out);

/* The value of segment s (made by latrec_path_segments: it knows its
 * stages' hit indexes, so cat and path may be NULL) in a complete
 * instance: t(to) - t(from), ns, signed (a clock regression is negative);
 * *a and *b the two stamps (either may be NULL). Returns 0 when a stage is
 * absent (incomplete instance). */
int latrec_segment_value(const latrec_catalog *cat, const latrec_path *path, const latrec_path_instance *pi,
                         const latrec_segment *s, int64_t *ns, const latrec_hit **a, const latrec_hit **b);

#endif
