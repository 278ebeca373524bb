/*
 * analyze/sched_catalog.h - the "kernel" catalog of sched.latrec.
 *
 * `latrec record` saves what the BPF scheduler collector saw as one ALR1 v3
 * ring, <run>/sched.latrec, named "sched" with catalog "kernel". Its records
 * use the ids below; t_ns is bpf_ktime_get_ns() (CLOCK_MONOTONIC, the same
 * clock as the rings), cpu is the CPU the event happened on, and seq is the
 * tid the event is about. Records are in time order per CPU; the writer
 * sorts them by (t_ns, cpu, kind) before saving, so the file is one time-
 * ordered single-writer ring.
 *
 *   id    name                  seq        aux                  aux2
 *   0x01  SWITCH_OUT_PREEMPTED  prev tid   next tid             prev prio
 *         (prev was still runnable: TASK_RUNNING at the switch)
 *   0x02  SWITCH_OUT_BLOCKED    prev tid   next tid             prev_state
 *   0x03  SWITCH_IN             next tid   prev tid             next prio
 *   0x04  WAKEUP                woken tid  waker tid            target cpu
 *   0x05  WAKEUP_NEW            new tid    waker tid            target cpu
 *   0x06  MIGRATE               tid        orig cpu             dest cpu
 *   0x07  FORK                  child tid  parent tid           child tgid
 *   0x08  EXEC                  tid        old tid              tgid
 *   0x09  EXIT                  tid        tgid                 exit code
 *   0x0A  COMM                  tid        comm bytes 0..7      comm bytes 8..15
 *         (NUL-padded, little-endian; after FORK, EXEC, a rename, and the
 *         first time the collector names a tid)
 *   0x0B  OTHER_RUN             tid        prev tid             tgid
 *         (a task outside the target switched in on a CPU where a target
 *         thread is runnable and waiting: who ran instead)
 *
 * SWITCH_OUT_* and SWITCH_IN are emitted for target threads only; OTHER_RUN
 * for other tasks on CPUs with a waiting target thread. The idle task
 * (tid 0) is never a target; its OTHER_RUN records carry the CPU in `cpu`.
 */
#ifndef LATREC_ANALYZE_SCHED_CATALOG_H
#define LATREC_ANALYZE_SCHED_CATALOG_H

#define LATREC_SCHED_CATALOG "kernel"
#define LATREC_SCHED_RING    "sched"

enum latrec_sched_kind {
    LATREC_K_SWITCH_OUT_PREEMPTED = 0x01,
    LATREC_K_SWITCH_OUT_BLOCKED   = 0x02,
    LATREC_K_SWITCH_IN            = 0x03,
    LATREC_K_WAKEUP               = 0x04,
    LATREC_K_WAKEUP_NEW           = 0x05,
    LATREC_K_MIGRATE              = 0x06,
    LATREC_K_FORK                 = 0x07,
    LATREC_K_EXEC                 = 0x08,
    LATREC_K_EXIT                 = 0x09,
    LATREC_K_COMM                 = 0x0A,
    LATREC_K_OTHER_RUN            = 0x0B,
};

/* X(NAME, id) for every kind, for catalogs and tables. */
#define LATREC_SCHED_KINDS(X)                                                                            \
    X(SWITCH_OUT_PREEMPTED, 0x01) X(SWITCH_OUT_BLOCKED, 0x02) X(SWITCH_IN, 0x03) X(WAKEUP, 0x04)      \
    X(WAKEUP_NEW, 0x05) X(MIGRATE, 0x06) X(FORK, 0x07) X(EXEC, 0x08) X(EXIT, 0x09) X(COMM, 0x0A)       \
    X(OTHER_RUN, 0x0B)

#endif
