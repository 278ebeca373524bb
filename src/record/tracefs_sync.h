/*
 * record/tracefs_sync.h - the run's own tracefs instance and its markers:
 * the synchronised start (DESIGN.md, "Synchronised start").
 *
 * latrec_tracefs_open() finds tracefs (mounting it at /sys/kernel/tracing
 * when it is not mounted, and unmounting it again at close), removes
 * instances left by latrec runs whose process is gone, creates the
 * instance "latrec-<run_id>" and sets its trace_clock to "mono", the clock
 * of the rings (CLOCK_MONOTONIC) and of bpf_ktime_get_ns().
 *
 * latrec_tracefs_mark() writes one line into the instance's trace_marker
 * and reads the ftrace "print" event back (libtracefs raw iteration over
 * trace_pipe_raw, libtraceevent for the record): its timestamp, in
 * CLOCK_MONOTONIC ns, is the marker's instant. Reading consumes the
 * instance's buffers, so every other event read on the way is handed to the
 * sink (latrec_tracefs_set_sink), in timestamp order; latrec_tracefs_drain()
 * hands over what arrived since.
 *
 * latrec_tracefs_close() destroys the instance and frees everything; it is
 * what every exit path of record calls. latrec_tracefs_dir() gives the
 * instance's directory for an emergency rmdir(2) from a fatal-signal
 * handler.
 */
#ifndef LATREC_RECORD_TRACEFS_SYNC_H
#define LATREC_RECORD_TRACEFS_SYNC_H

#include <stddef.h>
#include <stdint.h>

struct tep_event;
struct tep_record;
struct tep_handle;
struct tracefs_instance;

typedef struct latrec_tracefs latrec_tracefs;

/* Receives every event read from the instance except the marker being
 * waited for (which it receives too, after the marker's time is known). */
typedef void (*latrec_tracefs_sink)(void *ctx, struct tep_event *ev, struct tep_record *rec, int cpu);

/* Open tracefs and create the instance. `systems` (NULL-terminated, may be
 * NULL) names the event systems whose formats to load besides "ftrace"
 * (e.g. "sched"). Returns the handle, or NULL with one line in err: not
 * mounted and mount(2) refused ("tracefs is not mounted and cannot be
 * mounted at /sys/kernel/tracing: Operation not permitted"), the instance
 * cannot be created (EACCES when not root), the clock cannot be set, the
 * event formats cannot be read. `notes` receives what was done that the
 * user should hear about (mounting, stale instances removed), one line per
 * note, empty when nothing. */
latrec_tracefs *latrec_tracefs_open(const char *run_id, const char *const *systems, char *notes,
                                    size_t noteslen, char *err, size_t errlen);

/* Write `text` (no newline) into trace_marker and wait up to timeout_ms for
 * it to be read back; *mono_ns receives its timestamp. 0, or -1 with the
 * reason in err. */
int latrec_tracefs_mark(latrec_tracefs *t, const char *text, unsigned timeout_ms, uint64_t *mono_ns,
                        char *err, size_t errlen);

/* Read everything the instance holds now and hand it to the sink. Returns
 * the number of events read, or -1 when the buffers cannot be read. */
long latrec_tracefs_drain(latrec_tracefs *t);

/* The text written into trace_marker that an ftrace "print" record holds
 * (*len bytes, newline included), or NULL when `ev` is another event. */
const char *latrec_tracefs_print_text(struct tep_event *ev, struct tep_record *rec, int *len);

void latrec_tracefs_set_sink(latrec_tracefs *t, latrec_tracefs_sink sink, void *ctx);

/* Events whose per-cpu buffer reported missed events (overwritten before
 * they were read), summed over the drains so far. */
uint64_t latrec_tracefs_missed(const latrec_tracefs *t);

struct tracefs_instance *latrec_tracefs_instance(latrec_tracefs *t);
struct tep_handle *latrec_tracefs_tep(latrec_tracefs *t);
const char *latrec_tracefs_name(const latrec_tracefs *t);   /* "latrec-<run_id>" */
const char *latrec_tracefs_dir(const latrec_tracefs *t);    /* .../instances/latrec-<run_id> */
const char *latrec_tracefs_root(const latrec_tracefs *t);   /* the tracefs mount point */
int latrec_tracefs_mounted_here(const latrec_tracefs *t);   /* 1 when latrec mounted tracefs */

/* Destroy the instance (its events and buffers go with it), free the
 * handle, unmount tracefs if latrec mounted it. NULL is accepted. A line on
 * stderr when the instance cannot be removed. */
void latrec_tracefs_close(latrec_tracefs *t);

#endif
