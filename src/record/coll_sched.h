/*
 * record/coll_sched.h - the scheduler collector: the BPF program of
 * bpf/sched.bpf.c, its records saved as <run>/sched.latrec (DESIGN.md,
 * "Scheduler correlation"; record format: analyze/sched_catalog.h).
 *
 * latrec_coll_sched_new() does everything that can fail for lack of
 * privileges or kernel support up front, before record launches anything:
 * it opens, loads and attaches the program (no target yet, so it records
 * nothing) and maps the ring buffer. When that fails the collector comes
 * back already in state LATREC_COLL_FAILED with the reason in `error`
 * (record prints "scheduler data: n/a (<reason>)", or fails with
 * --require-sched); reasons are one line, e.g.
 *   "built without the BPF collector: bpftool not found"
 *   "the kernel has no BTF (/sys/kernel/btf/vmlinux: No such file or directory)"
 *   "loading the BPF program: Operation not permitted (needs root, or CAP_BPF and CAP_PERFMON)"
 *   "not recorded (--no-sched)"
 *
 * Steps (collector.h):
 *   start       targets: the launched child's pid (held at its barrier), or
 *               the attached process (-p; a thread id is taken as its
 *               process) and its live descendants, or with `tid` that one
 *               thread; a spool file in the run directory.
 *   told_start  the start stamp goes to the program (which drops records
 *               stamped before it from then on) and to the drain (which
 *               drops those that were already in the ring buffer).
 *               sched.latrec created as a live ring (record/sched_live.h).
 *   poll        every 50 ms: drain the ring buffer into the spool, and
 *               publish into the live ring what was stamped more than
 *               LATREC_SCHED_LIVE_WINDOW_NS before the drain began.
 *   stop        detach, drain the rest, read the per-CPU counters, publish
 *               up to the stop stamp and close the live ring, write the
 *               sorted sched.latrec over it (records stamped after the stop
 *               stamp left out).
 *
 * counts: records = kept in sched.latrec; lost = the ring buffer had no
 * room (kernel, per CPU); dropped = before the start stamp (kernel + drain)
 * + after the stop stamp; written = records + dropped + lost.
 * run.json "sched" adds: file, buffer_bytes, poll_ms, filter ("process
 * tree" | "thread"), targets_at_start, tid (with --tid), events (records read
 * from the ring buffer), lost_per_cpu [per possible CPU],
 * dropped_before_start_kernel, dropped_before_start_drain,
 * dropped_after_stop, untracked_threads (target threads the program's wait
 * map had no room for), wakeups_not_recorded (wakeups of a thread already
 * running or waiting: they start nothing, bpf/sched.bpf.c),
 * events_not_seen ({switch_in, switch_out, wakeup}: events of target
 * threads the kernel never traced, noticed at their next event; the model
 * has the thread's state unknown there, bpf/sched.bpf.c), live
 * ({entries, window_ms, published, late}, or {reason} when the live ring
 * could not be made), spool_runs, write_ns (sorting and writing at stop).
 */
#ifndef LATREC_RECORD_COLL_SCHED_H
#define LATREC_RECORD_COLL_SCHED_H

#include <stddef.h>
#include <sys/types.h>

#include "record/collector.h"

#define LATREC_SCHED_BUFFER_DEFAULT (8u << 20) /* ring buffer bytes */
#define LATREC_SCHED_BUFFER_MIN     4096u
#define LATREC_SCHED_BUFFER_MAX     (1u << 30)
#define LATREC_SCHED_POLL_MS        50u

typedef struct latrec_sched_opts {
    int    disabled;     /* --no-sched: a collector that says so, nothing loaded */
    size_t buffer_bytes; /* ring buffer, a power of two in [MIN, MAX]; 0: the default */
    pid_t  tid;          /* --tid: only this thread; 0: the target's process tree */
} latrec_sched_opts;

/* The collector (NULL only when out of memory); see above for a failed
 * one. */
latrec_collector *latrec_coll_sched_new(const latrec_sched_opts *o);

/* The process (tgid) thread `tid` belongs to, from /proc/<tid>/status;
 * -1 when there is no such thread. */
pid_t latrec_sched_tgid_of(pid_t tid);

#endif
