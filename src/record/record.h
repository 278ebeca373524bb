/*
 * record/record.h - `latrec record`: run (or attach to) a command with every
 * collector on, one start stamp, a run directory at the end.
 *
 * Sequence (launch mode):
 *   1. block SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD (read via signalfd);
 *      become a child subreaper (the command's orphans come back to latrec);
 *   1b. load and attach the scheduler collector's BPF program (no target
 *      yet); when it cannot load, one line says why ("scheduler data:
 *      n/a (...)"), and with --require-sched latrec stops here (125):
 *      nothing created, nothing launched;
 *   2. create and lock the run directory (flock for the whole run: a second
 *      record into it is refused; DIR.old rotation; record/rundir.h), its
 *      rings-failed.log (rings the command cannot create are counted) and
 *      the ring directory (tmpfs, /dev/shm/latrec-<run-id>; DIR/rings links
 *      to it meanwhile);
 *   3. create the tracefs instance latrec-<run-id> (clock mono);
 *   4. write run.json ("state": "recording");
 *   5. fork the command (PR_SET_PDEATHSIG: it dies with latrec) and hold it
 *      at its barrier;
 *   6. start every collector; write the start stamp into trace_marker, read
 *      it back, tell every collector;
 *   7. release the barrier (the command execs); rewrite run.json;
 *   8. wait: the command's exit, -d (SIGINT, then SIGTERM and SIGKILL after
 *      the grace period), SIGINT/SIGTERM to latrec (forwarded; each repeat
 *      escalates INT -> TERM -> KILL);
 *   8b. with --stop-above, a watcher thread (record/threshold.h) reads the
 *      rings meanwhile; the first instance over the limit stops the run as
 *      -d does (the -t events are switched off at that moment first);
 *   9. stop processes the command left behind; write the stop stamp; stop
 *      every collector (rings moved into DIR/rings all or nothing, counted;
 *      partial rings removed; a ring directory never used removed); write
 *      the final run.json; print the summary; destroy the instance.
 * Attach mode (-p) skips 5 and 7, ends on -d, SIGINT/SIGTERM or the
 * process's exit, and copies the rings instead of moving them.
 *
 * Exit status: the command's (128 + signal when it died of one); 0 when -d
 * stopped it (a stop latrec makes on purpose; the command's own status is
 * in run.json's "exit"); 125 when
 * latrec fails, 126 when the command cannot be executed, 127 when it is not
 * found; attach mode: 0, or 125. 193 when an instance crossed the
 * --stop-above limit (launch or attach; 125 still wins): past every status
 * of a death by signal (128 + 1..64) and latrec's own 125..127, so a
 * script tells a stop on a threshold from every other end, as long as the
 * command does not exit 193 itself. Every failure prints one line.
 */
#ifndef LATREC_RECORD_RECORD_H
#define LATREC_RECORD_RECORD_H

#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "analyze/gate.h"
#include "record/priority.h"

enum {
    LATREC_RECORD_EXIT_FAIL = 125,
    LATREC_RECORD_EXIT_NOEXEC = 126,
    LATREC_RECORD_EXIT_NOTFOUND = 127,
    LATREC_RECORD_EXIT_THRESHOLD = 193,
};

typedef struct latrec_role_size {
    const char *role;  /* as the program passes it to latrec_tls_open_as() */
    unsigned    log2;  /* 12..28 */
} latrec_role_size;

typedef struct latrec_record_opts {
    const char  *output;         /* -o; NULL means "latrec.data" */
    int          force;          /* -f */
    int          quiet;          /* -q */
    char *const *argv;           /* the command, NULL-terminated; NULL with -p */
    pid_t        attach_pid;     /* -p; 0 to launch argv */
    const char  *attach_rings;   /* --rings DIR with -p; NULL: found from /proc */
    uint64_t     duration_ns;    /* -d; 0: until the command ends */
    uint64_t     grace_ns;       /* --grace; 0 means 2 s */
    const cpu_set_t *cpus;       /* -c, NULL to inherit */
    const char  *cpus_text;
    const latrec_sched *sched;   /* -P, NULL to inherit */
    unsigned     entries_log2;   /* --entries-log2; 0 leaves the variable alone */
    const latrec_role_size *roles; /* --role-entries */
    size_t       n_roles;
    const char  *lib_dir;        /* --lib, prepended to LD_LIBRARY_PATH */
    const char  *rings_base;     /* --rings-dir; NULL: /dev/shm */
    int          trace;          /* -t */
    const char *const *events;   /* -e SYSTEM:EVENT, n_events of them */
    size_t       n_events;
    size_t       trace_buffer_kb; /* --trace-buffer-size; 0: the kernel's default */
    int          no_sched;       /* --no-sched: no scheduler collector */
    int          require_sched;  /* --require-sched: no scheduler data is a failure (125) */
    size_t       sched_buffer;   /* --sched-buffer, bytes; 0: the collector's default */
    pid_t        sched_tid;      /* --tid: scheduler data of this thread only (with -p) */
    const char  *catalog;        /* --catalog FILE: the watcher reads the rings under it */
    const latrec_gate *stop_above; /* --stop-above (instance form), NULL: none */
    const char  *on_threshold;   /* --on-threshold CMD, run once when stop_above is crossed */
} latrec_record_opts;

/* Run a whole recording. Returns the exit status described above. */
int latrec_record_run(const latrec_record_opts *o);

/* The signals record and top stop on, read through a signalfd: SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, and SIGCHLD (the command's end). Fills *set
 * with them and blocks them (the mask before in *old_mask): 0, or -1 with
 * errno (sigprocmask). */
int latrec_stop_signals_block(sigset_t *set, sigset_t *old_mask);

#endif
