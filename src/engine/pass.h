/*
 * engine/pass.h - one analysis pass over a run, shared by report and hist.
 *
 * Streams every record (after the start stamp) through the leg builder and,
 * for every ended instance of a selected (component, leg), computes its hop
 * values and hands them to the caller's sinks. Tables are created on first
 * use, one per (component, leg), in order of appearance; the caller sorts
 * them for output.
 *
 * Selection: component and leg names (NULL: all), --hop pairs, and a
 * warm-up: instances whose first stamp is earlier than the run's beginning
 * (the start stamp, else the first record) plus warmup_ns are skipped.
 * Discovered legs get inter-arrival stamps like catalogued ones (their
 * groups' first stamps, handed out in time order).
 * Paths (opts.paths): every ended leg instance also goes, before the
 * warm-up and the selection, to the path assemblers of every catalog of the
 * run (analyze/path_index.h); each path instance (only opts.path's when
 * named: a name latrec_path_index_find() knows) that starts after the
 * warm-up goes to sinks.path_instance, pi->path the run-wide index. Cross joins match
 * across directories with --wall and several directories (hosts).
 *
 * Calibration subtracts the clock_ns_per_call of the ring that stamped a
 * hop's second stage from the hop (latrec_calibrate()); a hop shorter than
 * that cost becomes 0 (clock regressions are judged on the raw hop).
 */
#ifndef LATREC_ENGINE_PASS_H
#define LATREC_ENGINE_PASS_H

#include <stdint.h>

#include "analyze/hops.h"
#include "analyze/legs.h"
#include "analyze/clock_offset.h"
#include "analyze/path_index.h"
#include "analyze/paths.h"
#include "engine/input.h"

typedef struct latrec_leg_table {
    int        component, leg;
    char       component_name[LATREC_NAME_MAX];
    latrec_leg legdef;            /* a copy: discovered legs move */
    uint64_t   instances, complete;
    int        n_hops;
    latrec_hopdef hops[LATREC_MAX_HOPS];
    /* The hops whose values go to the sinks (bit h): every hop, unless
     * table_new clears the bits of hops it shows no figure of (their
     * values are then not even computed). */
    uint32_t   wanted;
    /* Every hop's stamps by hit index (hit_a[h] -> hit_b[h]), read from an
     * instance with more than max_hit hits; 0 when some hop's are not known
     * (latrec_hop_value_of_leg() finds them). */
    int        hits_known;
    uint8_t    hit_a[LATREC_MAX_HOPS], hit_b[LATREC_MAX_HOPS], max_hit;
    void      *user;              /* the caller's per-table state */
} latrec_leg_table;

typedef struct latrec_pass latrec_pass;

typedef struct latrec_pass_sinks {
    void *ctx;
    /* A new table: set t->user (and clear t->wanted's unshown hops). Return
     * -1 to abort (out of memory). */
    int (*table_new)(void *ctx, latrec_leg_table *t);
    /* One hop value of an instance (after calibration), ns. */
    void (*value)(void *ctx, latrec_leg_table *t, int hop, int64_t ns, const latrec_instance *inst);
    /* Or every hop value of an instance in one call: v[h] for each bit h
     * of have, what value would get hop by hop (NULL: value is called;
     * set: value is not). */
    void (*values)(void *ctx, latrec_leg_table *t, uint32_t have, const int64_t *v, const latrec_instance *inst);
    /* Every selected instance, after its values (NULL: not wanted). */
    void (*instance)(void *ctx, latrec_leg_table *t, const latrec_instance *inst);
    /* The first chain stage of a leg was stamped at t_ns (inter-arrival). */
    void (*first_stage)(void *ctx, latrec_leg_table *t, uint64_t t_ns);
    /* A path instance, complete or not (opts.paths; NULL: not wanted). */
    void (*path_instance)(void *ctx, const latrec_path_instance *pi);
    /* Forget every figure so far: the pass starts over and frees
     * tables[0..n) after this call (their user still set). A pass that
     * can start over (these sinks set it or have no callbacks, and the
     * taps set theirs or have none; not live) opens the rings its writer
     * closed cleanly by a guess it checks as it reads (engine/input.h),
     * and starts over when one was wrong; any other pass has them scanned
     * before it reads. Sinks that set it and the part sinks below say
     * their figures depend on the order instances end in only through the
     * order of one process's instances (value's inst->process): such a
     * pass without taps, whose instance sink has its part twin, is read by
     * process (engine/pass_split.c), and starts over in time order, after
     * this call, when a pass by process could give other figures than one
     * in time order. Its first_stage calls come, at the end, in time order
     * as ever. Read by process, tables are made (table_new, on the thread
     * that first sees an instance, one at a time) in another order than in
     * time order: such sinks show them in an order of their own.
     * NULL: always in time order. */
    void (*restart)(void *ctx, latrec_leg_table **tables, int n);
    /* Read by process, each thread gathers the values of a table in a part
     * of its own: part_new(ctx, t) makes one on that thread, once t is made
     * (NULL: out of memory); part_value and part_instance are value's and
     * instance's twins for it, on the same thread, a process's instances
     * in the order they end (part_instance NULL: the pass is read by
     * process only without an instance sink); once every thread is done,
     * part_fold folds each part into t's figures on the calling thread, in
     * no set order (the figures must not depend on it), and frees it (0,
     * or -1 out of memory); part_free frees a part not folded (the pass
     * starts over). They may read ctx and t from any thread, and write
     * neither. Needed with restart. */
    void *(*part_new)(void *ctx, const latrec_leg_table *t);
    void (*part_value)(void *part, int hop, int64_t ns, const latrec_instance *inst);
    /* Or every hop value of an instance in one call, as values is value's
     * (NULL: part_value is called; set: part_value is not). */
    void (*part_values)(void *part, uint32_t have, const int64_t *v, const latrec_instance *inst);
    void (*part_instance)(void *part, const latrec_instance *inst);
    int (*part_fold)(void *ctx, latrec_leg_table *t, void *part);
    void (*part_free)(void *part);
    /* 1: the parts' figures follow the order a process's instances end in
     * (report's outlier chunks), so a pass by process gives up where that
     * order could differ from the pass in time order's; 0: they depend on
     * no order at all (hist's counts). */
    int part_in_end_order;
    /* The parts' figures are those of the pass in time order only while
     * no instance ends later than this after its first stamp (report's
     * time series, whose intervals close as the stream goes on): a pass by
     * process gives up when one does, in time order's stream time (an
     * instance still open at a process's end ends at the stream's end).
     * 0: any. */
    uint64_t part_age_max;
    /* Read by process on two threads or more, the first-stage stamps may
     * be handed over in two parts: those before a cut on the calling
     * thread to first_stage, those after it meanwhile on another to a part
     * of the sink's: first_stage_part(ctx, t, prev) makes one (prev: the
     * last stamp before the cut; NULL out of memory), part_first_stage
     * takes them in time order, and first_stage_fold folds it into t's
     * figures after the first part's stamps and frees it (0, or -1 out of
     * memory). The cut leaves a multiple of first_stage_chunk gaps before
     * it (0: any). NULL: every stamp to first_stage. */
    size_t first_stage_chunk;
    void *(*first_stage_part)(void *ctx, const latrec_leg_table *t, uint64_t prev);
    void (*part_first_stage)(void *part, uint64_t t_ns);
    int (*first_stage_fold)(void *ctx, latrec_leg_table *t, void *part);
} latrec_pass_sinks;

/* What convert takes from a pass besides the figures (latrec_pass_tap). */
typedef struct latrec_pass_taps {
    void *ctx;
    /* Every ended leg instance, before the paths, the warm-up and the
     * selection (NULL: not wanted): convert's tables and timeline. */
    void (*ended)(void *ctx, const latrec_instance *inst);
    /* Every record of the stream in merge order, sched.latrec's too, once
     * the builder has taken it: ev as the merge gave it (ev->rec.t_ns as
     * stored, ev->t_ns the merge key), leg the builder's leg index for it
     * (-1: none, and always for sched.latrec). NULL: not wanted.
     * convert's records.csv. On threads (latrec_pass_finish) it runs on the
     * builder's thread, the ended tap on the calling one. */
    void (*record)(void *ctx, const latrec_merged *ev, int leg);
    /* The pass starts over (sinks.restart): every record and instance the
     * taps were given is void, and fresh (a new pass over the same input,
     * not read yet; its builder latrec_pass_legs(fresh)) gives them again
     * from the start. 0, or -1 (said): the pass fails. NULL: the pass
     * cannot start over (its rings scanned before it reads). */
    int (*restart)(void *ctx, latrec_pass *fresh);
} latrec_pass_taps;

typedef struct latrec_pass_opts {
    const char *component;
    const char *leg;
    latrec_hop_select hops;
    uint64_t warmup_ns;
    int calibrate;
    int paths;                /* assemble every catalog's paths (horizon: --path-horizon) */
    const char *path;         /* only this path (NULL: all), as latrec_path_index_find() takes it */
    int no_legs;              /* no leg tables (paths only) */
    int no_warnings;          /* latrec_pass_end prints no modelling warnings (the caller does) */
} latrec_pass_opts;

/* The run's beginning on the pass's clock (monotonic, or wall-clock with
 * --wall): the earliest directory beginning, each directory beginning at
 * its own start stamp, else at its first record. Instances, their
 * first_t and the hits' t_ns are on that clock too. */
uint64_t latrec_pass_run_begin(const latrec_input *in);

/* Run one pass. Returns 0, or -1 (reason printed). On success *tables and
 * *n_tables describe the tables (owned by the pass; free with
 * latrec_pass_free) and *legs stays valid until then. */
latrec_pass *latrec_pass_run(latrec_input *in, const latrec_pass_opts *opts, const latrec_pass_sinks *sinks);

/* The same pass in steps (what latrec_pass_run does, and the engine):
 * latrec_pass_new starts it (NULL, reason printed); latrec_pass_step feeds
 * up to budget records of the stream and returns 1 while the stream may
 * have more, 0 at its end (for a live input: none now), -1 out of memory;
 * latrec_pass_end ends every open instance (the stream is over for good),
 * prints the modelling warnings once per input, 0 or -1. Sinks run inside
 * step and end. Free with latrec_pass_free either way. */
latrec_pass *latrec_pass_new(latrec_input *in, const latrec_pass_opts *opts, const latrec_pass_sinks *sinks);
int latrec_pass_step(latrec_pass *p, uint64_t budget);
/* The taps (copied), before the first step. */
void latrec_pass_tap(latrec_pass *p, const latrec_pass_taps *taps);
int latrec_pass_end(latrec_pass *p);
/* Program records fed so far (sched.latrec's are not), and the newest
 * one's time on the pass clock (0 before the first). */
/* Feed the rest of the stream and end the pass (the steps to the end, then
 * latrec_pass_end), on in->opts.threads threads (engine/pipeline.h: the
 * figures, the sinks' calls and their order are those of one thread; the
 * sinks run on the calling thread). With sinks.restart (see there) the
 * stream is read by process instead, on one thread or several
 * (engine/pass_split.c): the same figures, gathered in parts (part_new,
 * part_value, part_instance) on the pass's threads and folded in at the
 * end instead of through value and instance. 0, or -1 (reason printed).
 * Not for a live input. */
int latrec_pass_finish(latrec_pass *p);
uint64_t latrec_pass_fed(const latrec_pass *p);
uint64_t latrec_pass_last_t(const latrec_pass *p);
/* 1 when the pass read the stream by process (its figures folded from the
 * threads' parts, its paths from the processes' logs), 0 in time order. */
int latrec_pass_read_by_process(const latrec_pass *p);
/* The record stream of a pass not yet ended (NULL after latrec_pass_end). */
latrec_merge *latrec_pass_merge(latrec_pass *p);
latrec_leg_table **latrec_pass_tables(latrec_pass *p, int *n);
latrec_legs *latrec_pass_legs(latrec_pass *p);
uint64_t latrec_pass_warmup_skipped(const latrec_pass *p);
/* Host clock offsets estimated from the paths' exchanges (--wall with
 * several directories and paths assembled), else NULL. */
const latrec_offsets *latrec_pass_offsets(const latrec_pass *p);
/* The run's paths, assembled (their counts), NULL without opts.paths. */
const latrec_path_index *latrec_pass_paths(const latrec_pass *p);
/* Path instances skipped by the warm-up. */
uint64_t latrec_pass_path_warmup_skipped(const latrec_pass *p);
/* The run's beginning used for warm-up and intervals, mono ns. */
uint64_t latrec_pass_begin(const latrec_pass *p);
void latrec_pass_free(latrec_pass *p);

/* After a pass: --component and --leg name a component the run holds and a
 * leg of its catalog or of the run. 0, or -1 with one line on stderr that
 * lists the names there are ("latrec hist: --leg nosuch: no such leg in this
 * run (legs: outbound, inbound)"): the caller exits 1. */
int latrec_pass_check_names(latrec_pass *p, const char *cmd);
/* --path NAME names a path of the run (latrec_path_index_find()): 0, or
 * -1 with one line on stderr, listing the paths there are ("latrec hist:
 * --path nope: no such path in this run (paths: e3/loop, request)") or, for
 * a bare name several catalogs define, the qualified names to choose from. */
int latrec_path_check_name(const latrec_input *in, const char *name, const char *cmd);
/* The --hop specs ("A:B", stage names of a catalog of the run or ids like
 * 0x21) into hops: 0, or -1 with one line ("latrec CMD: --hop A:B: unknown
 * stage ..."). */
int latrec_hop_specs_resolve(latrec_hop_select *hops, const latrec_input *in, const char *const *specs, int n,
                             const char *cmd);
/* Both before a pass: the --hop specs into hops (latrec_hop_specs_resolve)
 * and --path (path, or NULL; latrec_path_check_name). 0, or -1 with the
 * line. A ring opened by the guess says its warning (not a single-writer
 * ring) only once a pass finds it: when a name is wrong, the guessed rings
 * are scanned first (latrec_input_settle), so their warnings come before
 * that line, as when the open scans them. */
int latrec_pass_names_resolve(latrec_hop_select *hops, latrec_input *in, const char *const *specs, int n,
                              const char *path, const char *cmd);
/* The builder's modelling warnings (latrec_legs_warning()), one line each
 * on stderr. */
void latrec_pass_print_warnings(const latrec_legs *legs);

/* A path join that matched nothing (no instance of the path got past it),
 * one line each on stderr. */
void latrec_pass_print_join_warnings(const latrec_path_index *paths);

/* "10 s, N instances cut unfinished by it[; M more ended unfinished for
 * room (too many open)]": the leg horizon and what it cut, for headers. */
void latrec_pass_cut_note(const latrec_legs *legs, char *buf, size_t len);

#endif
