/*
 * bpf/sched_stats.h - what the scheduler program and the collector share
 * besides the records themselves (those are latrec_rec, 32 bytes, kinds of
 * src/analyze/sched_catalog.h).
 *
 * latrec_sched_stats is the value of the program's per-CPU array "stats"
 * (one slot, key 0): counters of the CPU the program ran on, each only ever
 * incremented (atomically: an interrupt may run another handler on the same
 * CPU mid-update). User space reads one value per possible CPU.
 *
 * Filter modes (the program's read-only `filter_mode`, set before load):
 *   LATREC_SCHED_BY_TGID  targets are the processes in map "target_tgids"
 *                         (all of their threads; forks of them are added)
 *   LATREC_SCHED_BY_TID   targets are the threads in map "target_tids"
 *                         (no forks followed)
 */
#ifndef LATREC_BPF_SCHED_STATS_H
#define LATREC_BPF_SCHED_STATS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define LATREC_SCHED_BY_TGID 0u
#define LATREC_SCHED_BY_TID  1u

/* Capacities of the program's maps (entries). */
#define LATREC_SCHED_MAX_TGIDS   8192u  /* target processes */
#define LATREC_SCHED_MAX_TIDS    64u    /* --tid targets */
#define LATREC_SCHED_MAX_THREADS 65536u /* target threads with wait state */
#define LATREC_SCHED_MAX_NAMED   65536u /* other tasks named by a COMM record (LRU) */

struct latrec_sched_stats {
    __u64 emitted;   /* records submitted to the ring buffer */
    __u64 lost;      /* records the ring buffer had no room for */
    __u64 dropped;   /* records stamped before start_ns, not submitted */
    __u64 untracked; /* target threads the "threads" map had no room for */
    __u64 spurious;  /* wakeups of a target thread already running or waiting: not recorded */
    /* Events of target threads the program never saw (the kernel did not
     * trace them; some kernels trace no switch away from, and no wakeup in
     * the context of, certain tasks), noticed at the thread's next event:
     * switched out while not switched in, switched in while still running,
     * switched in from blocked with no wakeup. */
    __u64 unseen_in, unseen_out, unseen_wakeup;
};

#endif
