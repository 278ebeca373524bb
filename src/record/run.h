/*
 * record/run.h - the state of one `latrec record` run, shared by its steps
 * (internal to src/record):
 *   record.c      the sequence: prepare, launch, wait, finish (record.h);
 *   run_wait.c    signals, the duration, stopping the command and what it
 *                 left behind;
 *   run_report.c  the pieces of run.json and the summary line;
 *   collectors.c  the collector table and driving every collector.
 */
#ifndef LATREC_RECORD_RUN_H
#define LATREC_RECORD_RUN_H

#include <jansson.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "record/collector.h"
#include "record/launch.h"
#include "record/manifest.h"
#include "record/record.h"
#include "record/threshold.h"
#include "record/tracefs_sync.h"

#define LATREC_RUN_MAX_COLLECTORS 8

typedef struct latrec_run {
    const latrec_record_opts *o;
    char run_id[64];
    char dir[4096];        /* run directory as given, no trailing '/' */
    char dir_shown[4 * 4096 + 4]; /* dir in messages: escaped (read/escape.h) */
    char rings_tmp[4096];  /* the run's own ring directory, "" when none */
    char rings_src[4200];  /* where the target writes (absolute) */
    char failure_log[4200]; /* DIR/rings-failed.log (absolute), "" with -p */
    int  lock_fd;          /* the run directory, flock'ed for the run (rundir.h) */
    int  sfd;              /* signalfd of the stop signals and SIGCHLD */
    sigset_t old_mask;
    latrec_tracefs *tfs;
    char tfs_reason[1024];
    latrec_collector *coll[LATREC_RUN_MAX_COLLECTORS]; /* in table order: coll[0] is "rings" */
    size_t n_coll;
    latrec_collector *made[LATREC_RUN_MAX_COLLECTORS]; /* made, not yet in coll (a slot per table row) */
    latrec_launch child;
    pid_t pid;             /* the child or the attached process */
    int   have_status, wstatus;
    int   level, first_sig; /* stop escalation: 0 none, 1 first signal, 2 SIGTERM, 3 SIGKILL */
    const char *stopped_by;
    int   interrupted;     /* stop signal received before the command ran */
    uint64_t grace_ns;
    latrec_manifest man;
    json_t *options, *launch, *collectors, *exit;
    int   failed;          /* latrec failed: exit 125 */
    char  manifest_err[512]; /* the last failed write of run.json, said once ("" none) */
    /* --stop-above (run_threshold.c) */
    latrec_threshold *thr; /* the watcher, NULL without --stop-above */
    int   crossed;         /* an instance crossed the limit: hit */
    latrec_judge_hit hit;
    uint64_t detected_ns;  /* when the watcher judged it (mono) */
    uint64_t cut_ns;       /* when the run loop heard of it (mono), 0: never */
    uint64_t signalled_ns; /* when the command was sent its first stop signal for it */
    char *explain;         /* the --explain words of hit (malloc'd), NULL: none */
    int   action_ran, action_status; /* --on-threshold: ran, and its wait status */
} latrec_run;

uint64_t latrec_run_mono_ns(void);
uint64_t latrec_run_real_ns(void);
/* "SIGINT" for SIGINT, into buf. */
const char *latrec_run_sig_name(int sig, char *buf, size_t len);

/* 1 when latrec stopped the command on purpose at the end of -d (the run
 * then ends with status 0; the command's own status stays in run.json). */
int  latrec_run_timed_stop(const latrec_run *r);

/* run_wait.c */
int  latrec_run_setup_signals(latrec_run *r);
/* Drain the signalfd: SIGCHLD reaps; the others are stop requests. Returns
 * how many stop requests arrived, the first in *first (from the terminal
 * when *from_tty). */
int  latrec_run_read_signals(latrec_run *r, int *first, int *from_tty);
const char *latrec_run_stop_name(int sig);
void latrec_run_wait(latrec_run *r);
void latrec_run_stop_leftovers(latrec_run *r);

/* run_report.c */
json_t *latrec_run_options_json(const latrec_run *r);
json_t *latrec_run_launch_json(const latrec_run *r);
/* Rewrite run.json with `state`; a failure is said and sets r->failed. */
void latrec_run_write_manifest(latrec_run *r, const char *state);
void latrec_run_summary(const latrec_run *r, int status);

/* run_threshold.c: --stop-above and --on-threshold. start: the watcher
 * (a failure is said; the run goes on unwatched); heard: the run loop read
 * the watcher's fd (cut the collectors; the caller stops the command);
 * end: after the command's end, the watcher's last word; explain: the
 * instance's --explain words from the finished run (its run.json written,
 * sched.latrec there); json: run.json's "threshold" (NULL: none); action:
 * run --on-threshold's command (run.json written first); summary: its
 * lines. */
void latrec_run_threshold_start(latrec_run *r);
void latrec_run_threshold_heard(latrec_run *r);
void latrec_run_threshold_end(latrec_run *r);
void latrec_run_threshold_explain(latrec_run *r);
json_t *latrec_run_threshold_json(const latrec_run *r);
int  latrec_run_threshold_action(latrec_run *r);
void latrec_run_threshold_summary(const latrec_run *r);
void latrec_run_threshold_free(latrec_run *r);

/* collectors.c: make the table's collectors of one phase (early: before
 * the run directory exists, may refuse the run). 0, or -1 with err (the
 * run must not go on). */
int  latrec_run_make_collectors(latrec_run *r, int early, char *err, size_t errlen);
void latrec_run_start_collectors(latrec_run *r);
void latrec_run_tell_start(latrec_run *r, uint64_t start_ns);
void latrec_run_stop_collectors(latrec_run *r);
/* The collector named `name`, NULL when the run has none. */
const latrec_collector *latrec_run_collector(const latrec_run *r, const char *name);
void latrec_run_destroy_collectors(latrec_run *r);

#endif
