/*
 * record/manifest.h - run.json, the manifest of a run directory, written
 * with jansson. Written when the run starts ("state": "recording", with
 * "rings_dir" naming where the rings are being written), again once the
 * start stamp is known, and at the end ("state": "finished" or "failed").
 * A run.json that still says "recording" while no latrec holds the run
 * directory's lock (rundir.h) is a run latrec never finished (it was
 * killed): report and the next record say so. Each write goes to a
 * temporary name (.run.json.XXXXXX, created O_EXCL |
 * O_NOFOLLOW, read/outfile.h) renamed over run.json, so a reader never sees
 * half a file.
 *
 * Schema (times are integers: *_real_ns CLOCK_REALTIME ns, *_mono_ns and
 * mono_ns CLOCK_MONOTONIC ns; absent keys mean "not known"):
 *   format "latrec-run", version 1, latrec_version
 *   run_id, state, mode ("launch" | "attach")
 *   command (string, shell-quoted, every byte), argv (array), cwd; a value
 *     that is not UTF-8 is escaped (\xHH, \\; read/escape.h) and flagged:
 *     command_escaped, cwd_escaped: true, argv_escaped: [indexes];
 *     command_cut: true only when memory ran out building it
 *   pid (the launched child or the attached process), latrec_pid (the
 *     recording latrec, holding the run directory's lock while it runs)
 *   host, kernel {sysname, release, version, machine}, boot_id
 *   start_real_ns, start_mono_ns, stop_real_ns, stop_mono_ns  (latrec's own
 *     clock reads around the run; for report's header)
 *   start_stamp {mono_ns, marker, source: "trace_marker", instance}
 *   stop_stamp  {mono_ns, marker, source, instance}
 *   tracefs {available, instance, mounted_by_latrec, reason}
 *   rings_dir (where the rings are: the tmpfs directory while running,
 *     "rings" once moved), rings_tmp (the tmpfs directory used)
 *   options {...}, launch {fork_to_ready_ns, ready_to_release_ns,
 *     stamp_to_release_ns, release_to_exec_ns}
 *   collectors {NAME: {ran, reason?, written, records, lost,
 *     dropped_before_start, lost_lower_bound?, ...collector fields}}
 *   exit {status (latrec's exit status), exited/code | signaled/signal/
 *     signal_name/core_dumped | exec_failed/errno/error, stopped_by?}
 */
#ifndef LATREC_RECORD_MANIFEST_H
#define LATREC_RECORD_MANIFEST_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct latrec_stamp {
    int      have;
    uint64_t mono_ns;
    char     marker[128];
} latrec_stamp;

typedef struct latrec_manifest {
    const char  *run_id;
    const char  *state;      /* "recording", "finished", "failed" */
    const char  *mode;       /* "launch", "attach" */
    char *const *argv;       /* launch: the command; attach: NULL (cmdline read from /proc) */
    pid_t        pid;
    uint64_t     start_real_ns, start_mono_ns, stop_real_ns, stop_mono_ns;
    latrec_stamp start, stop;
    const char  *instance;   /* tracefs instance name, NULL without one */
    int          tracefs_ok;
    int          mounted_by_latrec;
    const char  *tracefs_reason; /* why there is no start stamp */
    const char  *rings_dir;
    const char  *rings_tmp;
    json_t      *options;    /* borrowed, may be NULL */
    json_t      *launch;     /* borrowed, may be NULL */
    json_t      *collectors; /* borrowed, may be NULL */
    json_t      *exit;       /* borrowed, may be NULL */
    json_t      *threshold;  /* borrowed, may be NULL: the instance that crossed --stop-above */
    char        *command;       /* filled by latrec_manifest_init: every byte, no limit */
    int          command_cut;   /* out of memory while building it */
    json_t      *argv_json;     /* filled by latrec_manifest_init */
    json_t      *argv_escaped;  /* indexes of escaped argv entries, NULL when none */
} latrec_manifest;

/* Fill command/argv_json from argv (launch) or /proc/<pid>/cmdline
 * (attach). */
void latrec_manifest_init(latrec_manifest *m);
void latrec_manifest_free(latrec_manifest *m);

/* Write <run_dir>/run.json. 0, or -1 with "<path>: reason" in err. */
int latrec_manifest_write(const char *run_dir, const latrec_manifest *m, char *err, size_t errlen);

/* <run_dir>/run.json parsed (a regular file within LATREC_RUN_JSON_MAX,
 * read/input_file.h: a FIFO never blocks). NULL with "<path>: reason" in
 * err. */
json_t *latrec_manifest_load(const char *run_dir, char *err, size_t errlen);

/* o[key] = value when it is UTF-8; else its escaped form (read/escape.h)
 * and o[key + "_escaped"] = true. Every byte of names from the outside
 * world (argv, cwd, ring names) reaches run.json this way. */
void latrec_manifest_set_bytes(json_t *o, const char *key, const char *value);

/* Exit description: {"status": status, "exited": true, "code": c} or
 * {"status", "signaled": true, "signal": n, "signal_name": "SIGSEGV",
 * "core_dumped": bool} from a wait status. */
json_t *latrec_manifest_wait_status(int wstatus, int status);

#endif
