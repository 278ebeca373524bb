/*
 * engine/input.h - what report, hist and convert share: the directories to read,
 * the run manifest, the rings, the catalog, and the time-ordered record
 * stream with the start-stamp filter.
 */
#ifndef LATREC_ENGINE_INPUT_H
#define LATREC_ENGINE_INPUT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/catalog.h"
#include "analyze/legs.h"
#include "analyze/path_index.h"
#include "read/merge.h"
#include "read/ring_window.h"
#include "read/ringset.h"

/* Options every analysis subcommand takes (cli/input_argp.c parses them). */
typedef struct latrec_input_opts {
    const char *dirs[64];
    int         n_dirs;
    const char *catalog_path;  /* --catalog FILE */
    const char *stages_header; /* --stages HEADER */
    const char *stage_prefix;  /* --stage-prefix PREFIX */
    int         wall;          /* --wall */
    uint64_t    leg_horizon_ns; /* --leg-horizon (0: LATREC_LEGS_HORIZON_NS) */
    int         align;         /* --align (engine/align.c) */
    uint64_t    path_horizon_ns; /* --path-horizon (0: LATREC_PATHS_HORIZON_NS) */
    int         quiet;         /* -q */
    int         threads;       /* --threads: a pass run to its end (engine/pass.h); 0: 2 when two CPUs are online */
    int         guess;         /* rings its writer closed cleanly opened without a scan (read/ring.h,
                                  enum latrec_ring_derived; not with wall or align, nor while recording):
                                  for a pass that checks them (latrec_input_guesses_hold) or settles
                                  them first (latrec_input_settle) */
} latrec_input_opts;

/* Add a positional directory (argp ARGP_KEY_ARG). 0, or -1 when too many. */
int latrec_input_add_dir(latrec_input_opts *o, const char *dir);

enum { LATREC_RUN_DONE = 0, LATREC_RUN_RECORDING, LATREC_RUN_UNFINISHED };

typedef struct latrec_input {
    latrec_input_opts opts;
    latrec_ringset set;
    int           *ring_dir;      /* directory index per ring */
    /* Each ring's catalog (engine/input_catalog.c): cats[ring_cat[i]]. cat is
     * catalog 0: --catalog FILE or --stages when they apply to every ring,
     * else e3 when some ring reads it, else the first ring's. */
    latrec_catalog cat;
    latrec_catalog more_cats[LATREC_LEGS_MAX_CATALOGS - 1];
    const latrec_catalog *cats[LATREC_LEGS_MAX_CATALOGS];
    int            n_cats;
    int           *ring_cat;
    /* Every catalog's paths, numbered run-wide (analyze/path_index.h; not
     * assembling): what a path name means in this run. */
    latrec_path_index *paths;
    char           catalog_note[1024]; /* how each catalog was chosen, "; " between */
    latrec_catalog kcat;          /* the kernel catalog of sched.latrec */
    int            sched_ring;    /* index of sched.latrec in set, or -1 */
    int            n_rejected;    /* rings rejected, or truncated while read */
    /* from <dir>/run.json when present (first directory) */
    int            have_run;
    char           command[1024];
    uint32_t       run_pid;       /* the launched (or attached) process, 0: unknown */
    char           run_name[64];  /* its program: argv[0]'s last component */
    uint64_t       run_start_real_ns, run_stop_real_ns;
    char           sched_reason[256]; /* run.json's word on the scheduler collector */
    /* --align: per directory, the shift applied to its rings' realtime
     * pairs (minus the estimated offset to directory 0) and its bound */
    int            aligned;
    struct latrec_input_align {
        int      have;
        int64_t  shift_ns, bound_ns;
        uint64_t exchanges;
        int      consistent;
    } align[64];
    char           exit_note[320]; /* how the target ended ("exited with status 0") */
    json_t        *exit_json;     /* run.json's "exit" object (NULL when none) */
    int            run_state;     /* LATREC_RUN_*: the first directory's run still recording, or never finished */
    int            have_start;    /* some directory has a start stamp */
    uint64_t       start_ns;      /* CLOCK_MONOTONIC of the first such stamp */
    int           *dir_have_start; /* per directory: its run.json has a start stamp */
    uint64_t      *dir_start_ns;  /* per directory: its start stamp; a ring's records
                                     before its own directory's stamp are dropped */
    uint64_t      *dropped;       /* per ring: records before the start stamp */
    uint64_t      *ring_start_ns; /* per ring: its directory's start stamp (0: none),
                                     for the first n_ring_start rings */
    size_t         n_ring_start;
    int            none_early;    /* no ring holds a record before its start stamp
                                     (its smallest stamp at open says so) */
    latrec_ring_window *released; /* per ring: the pass's resident pages
                                     (read/ring_window.h) */
    unsigned char *truncated;     /* per ring: 1 once said truncated while read */
    uint64_t      *fed;           /* per ring: records delivered by the first pass */
    uint64_t      *lapped;        /* per ring: slots overwritten under the reader
                                     (read/ring.h), as of the last poll or the end */
    /* LATREC_ENGINE_LIVE (engine/live.c): the stream holds back records whose
     * merge key is above the watermark; late counts program records that
     * came below a key already delivered */
    int            live;
    uint64_t       watermark, late, last_key;
    uint64_t       records;       /* records of the program's rings delivered by the first pass */
    uint64_t       sched_records; /* and of sched.latrec (the scheduler collector's events) */
    int            pass;          /* passes started by latrec_input_rewind */
    size_t         guessed;       /* rings still LATREC_RING_GUESSED (opts.guess) */
    size_t         rescans;       /* guessed rings scanned since (latrec_input_settle, _guesses_hold) */
    int            checking;      /* the first pass in time order checks the guessed rings as it reads */
    int            guess_wrong;   /* at its end: a guess was wrong, those rings are scanned, and the
                                     pass must start over (latrec_input_start_over) */
    uint64_t       check_last;    /* the last stamp checked */
    int            merge_no_sched; /* the merges leave sched.latrec out: its reader has it to itself
                                     (scanned first: latrec_input_settle_ring) */
    FILE          *msg;           /* where the catalogs' choice says its lines (NULL: stderr) */
} latrec_input;

/* Open everything the options name: default directory "latrec.data" when none
 * was given. Prints one line per rejected ring ("latrec CMD: PATH: reason", util/prog.h) and
 * per problem. Returns 0, or 1 when nothing can be read (missing directory,
 * no rings, bad catalog, boots mixed without --wall), with the reason
 * printed. */
int latrec_input_open(latrec_input *in, const latrec_input_opts *opts, const char *cmd);

/* Choose and load each ring's catalog (latrec_input_open does). 0, or -1
 * with the reason printed. */
int latrec_input_choose_catalogs(latrec_input *in);

/* A leg builder over the input: every ring under its own catalog, the
 * --leg-horizon. NULL when out of memory. */
latrec_legs *latrec_input_legs_new(const latrec_input *in, latrec_emit_fn emit, void *ctx);

/* Name of a catalog leg that stays valid while the input is open (the
 * catalog's own copy; the builder's array moves as legs are discovered). */
const char *latrec_input_leg_name(const latrec_legs *legs, int leg);

/* Name of a record's stage: the kernel catalog for sched.latrec, else the
 * ring's catalog ("0xNN" when neither names it; buf >= 5 bytes). */
const char *latrec_input_stage_name(const latrec_input *in, uint32_t ring, unsigned stage, char *buf);

/* Start a pass over all records in time order (several passes allowed;
 * with merge_no_sched, sched.latrec's are not among them). */
int latrec_input_rewind(latrec_input *in, latrec_merge *m);

/* Next record at or after the start stamp of its ring's directory; 1, or 0
 * at the end. Records before that stamp are counted in in->dropped (first
 * pass only). At the end, each ring whose file shrank while it was read is
 * named once on stderr ("latrec CMD: PATH: truncated while read ...") and
 * marked in in->truncated; the other rings were read whole. */
int latrec_input_next(latrec_input *in, latrec_merge *m, latrec_merged *out);

/* Name each ring whose file shrank under the reader since the last call
 * on out ("latrec CMD: PATH: truncated while read (now at most N bytes): the
 * records past that were not read"), once per ring, as latrec_input_next
 * does at the end; mark it in in->truncated and count it in n_rejected.
 * Returns the number named now. A live reader asks as it goes. */
int latrec_input_say_truncated(latrec_input *in, FILE *out);

/* Up to max such records into out[0..) (what as many latrec_input_next
 * calls would give): how many, at least 1 while the stream has more, 0 at
 * the end (with what latrec_input_next does there). The cheap way to read
 * the stream: a record costs the merge and the filter only. */
size_t latrec_input_fill(latrec_input *in, latrec_merge *m, latrec_merged *out, size_t max);

/* A pass read in parts (engine/pass_split.c): each part a merge of some
 * rings (the others' status not LATREC_RING_OK in the array given to
 * latrec_merge_init, ring indices those of in->set), filled on threads of
 * its own. A part's counts go to c: per ring fed, dropped and lapped
 * (arrays of in->set.n, the caller's, zeroed; the caller sets lapped from
 * the part's merge at its end), records and sched.latrec's records. None
 * of in's own counts move until latrec_input_parts_done adds every
 * thread's c[0..n) once every part was read to its end, and does what the
 * end of latrec_input_fill does (the rings' windows back to normal, the
 * truncated rings named). A pass that gives its parts up calls
 * parts_undo instead (each window back to its ring's start) and reads
 * the input again. */
typedef struct latrec_input_counts {
    uint64_t *fed, *dropped, *lapped;
    uint64_t records, sched_records;
} latrec_input_counts;
size_t latrec_input_fill_part(latrec_input *in, latrec_merge *m, latrec_merged *out, size_t max,
                              latrec_input_counts *c);
void latrec_input_parts_done(latrec_input *in, const latrec_input_counts *c, int n);
void latrec_input_parts_undo(latrec_input *in);

/* Rings opened by the guess (opts.guess). A pass read in parts checks
 * them with latrec_input_guesses_hold once every part was read to its end,
 * before latrec_input_parts_done: the counts c[0..n) say how many records
 * each ring gave (fed and dropped) and what was lapped; the stamps in
 * order are the pass's to check (each part's merge in time order). 1
 * when every guess held (those rings are LATREC_RING_VERIFIED), 0 when one
 * did not: those rings are scanned then (their warnings said), that
 * pass's figures are not the scan's, and it starts over.
 * A first pass in time order whose figures can start over sets
 * in->checking before it reads: latrec_input_fill then checks the guessed
 * rings' stamps in order and, at the end of the stream, their counts; a
 * guess found wrong scans those rings and sets in->guess_wrong, and the
 * pass gives its figures up and runs again (engine.c, after
 * latrec_input_start_over). Any other pass in time order has the guessed
 * rings scanned at its first fill. */
int latrec_input_guesses_hold(latrec_input *in, const latrec_input_counts *c, int n);

/* Ring `ring` was opened by the guess and its stamps went down (a pass
 * saw it): scanned now (its warning said), in->guess_wrong set. Nothing
 * for a ring that is not guessed. */
void latrec_input_guess_wrong(latrec_input *in, uint32_t ring);

/* Play merge m again from the rings (after rings were scanned; for a pass
 * that has read nothing from it yet): 0, or -1 (said). */
int latrec_input_remerge(latrec_input *in, latrec_merge *m);

/* Before a first pass runs again (in->guess_wrong): its counts back to
 * zero, the next latrec_input_rewind the first pass again. */
void latrec_input_start_over(latrec_input *in);

/* Scan every ring still guessed (latrec_ring_rescan), say its warning as
 * the open does, take the start stamps again, and when m is not NULL play
 * its merge again from the rings (for a pass that has read nothing from
 * it yet). Returns how many rings were scanned, -1 when m could not be
 * set up again (said). A time-ordered pass does this at its first fill
 * (latrec_input_fill); a caller that took figures from the rings before
 * (the run's beginning, latrec_pass_run_begin) takes them again when it
 * returns more than 0. */
int latrec_input_settle(latrec_input *in, latrec_merge *m);

/* latrec_input_settle for ring `ring` only, before a pass (no merge set
 * up from the rings yet): 1 scanned, 0 not guessed. */
int latrec_input_settle_ring(latrec_input *in, uint32_t ring);

/* Copy each ring's lapped count from the pass's merge into in->lapped
 * (latrec_input_next does at the end of the first pass). */
void latrec_input_lapped_get(latrec_input *in, latrec_merge *m);

void latrec_input_close(latrec_input *in);

/* The role of a ring: its name without the trailing ".<tid>" of the
 * thread that wrote it ("libe3.outbound.101" -> "libe3.outbound"). */
void latrec_input_ring_role(const latrec_ring *r, char *buf, size_t len);

/* What one collector besides the program's rings gave (today: the
 * scheduler's sched.latrec). */
typedef struct latrec_input_collector {
    int      present;              /* its ring was read */
    uint64_t valid, lost, dropped; /* records: readable, lost, before the start stamp */
    int      wrapped, lost_lower_bound;
} latrec_input_collector;

/* Totals over the ok rings, each collector apart: rings, wrapped, valid,
 * lost, dropped, torn and clock cost count the program's rings only (not
 * sched.latrec: that is in sched); rejected counts every file skipped;
 * first_t and last_t span every record. Sums saturate at LATREC_COUNT_MAX
 * (read/ring.h); a saturated loss sets lost_lower_bound. */
typedef struct latrec_input_totals {
    size_t   rings, rejected, wrapped, multi_writer;
    size_t   truncated;                /* rings whose file shrank while read */
    uint64_t valid, lost, dropped;
    uint64_t torn;                     /* torn slots (read/ring.h) */
    uint64_t lapped;                   /* slots overwritten under the reader (read/ring.h) */
    int      lost_lower_bound;
    uint32_t clock_min, clock_max; /* ns per clock read, over rings that measured it */
    uint64_t first_t, last_t;      /* mono ns over all records */
    latrec_input_collector sched;  /* sched.latrec */
} latrec_input_totals;

void latrec_input_totals_get(const latrec_input *in, latrec_input_totals *t);

#endif
