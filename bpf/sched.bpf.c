// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * bpf/sched.bpf.c - the scheduler collector of `latrec record` (CO-RE).
 *
 * BTF-typed tracepoints (tp_btf): sched_switch, sched_wakeup,
 * sched_wakeup_new, sched_migrate_task, sched_process_fork,
 * sched_process_exec, sched_process_exit and task_rename. Every record goes
 * to user space through the ring buffer "events" as one latrec_rec (32
 * bytes: sc = seq | cpu << 48 | kind << 56, t_ns, aux, aux2) of the
 * "kernel" catalog; src/analyze/sched_catalog.h is the contract for what
 * each kind carries. t_ns is bpf_ktime_get_ns() (CLOCK_MONOTONIC), read
 * once per tracepoint hit, so the records of one hit share it; cpu is the
 * CPU the handler ran on (8 bits: CPUs above 255 are stored modulo 256).
 *
 * Filtering happens here: a task is a target when its tgid is in
 * "target_tgids" (filter_mode LATREC_SCHED_BY_TGID; a fork by a target
 * process adds the child process) or its tid is in "target_tids"
 * (LATREC_SCHED_BY_TID). The idle task (pid 0) is never a target. A tid or
 * tgid reused by a fork outside the target tree is removed from the maps
 * at that fork, so a reused id never inherits target status or a name.
 *
 * Who waits where. For every target thread the map "threads" keeps the CPU
 * whose runqueue it waits on (-1: running, blocked or not known) and the
 * per-CPU array "waiting" counts the target threads waiting on each CPU:
 * a wakeup (to task_cpu) or a preemption (on the CPU) starts a wait, a
 * migration moves it, the switch-in ends it. A non-target task switched in
 * on a CPU whose count is above zero gets an OTHER_RUN record.
 *
 * Wakeups. sched_wakeup also fires for a thread that is still running (it
 * was woken before it could block) or already waiting in a runqueue; such
 * a wakeup starts nothing, so it is not recorded, only counted
 * (stats.spurious). A WAKEUP record is a thread leaving the blocked (or a
 * not yet known) state.
 *
 * Names. A COMM record follows FORK, EXEC and a rename (task_rename
 * outside exec) of a target thread, and precedes the first record naming a
 * tid (the seq of any record; the other tid of a switch record). The t_ns
 * of the last COMM submitted for a tid is kept (targets: in "threads";
 * other tasks: in the LRU map "named"); one stamped before start_ns (later
 * dropped) does not count, so every tid is named again after the start
 * stamp. Fork, exec and rename of a non-target forget its name, so it is
 * named afresh the next time.
 *
 * Events never seen. A kernel may not trace some events at all (a 6.18 VM
 * traced no switch away from, and no wakeup in the context of, some of its
 * system tasks): a target thread switched out that was not switched in, or
 * switched in that was still running or blocked with no wakeup, shows one
 * was missed; counted in stats.unseen_in / unseen_out / unseen_wakeup
 * (once its state is known: "known" in its "threads" entry).
 *
 * Loss and the start stamp. A record the ring buffer has no room for is
 * counted in stats.lost of its CPU; once user space sets start_ns (the
 * run's start stamp), records stamped before it are counted in
 * stats.dropped and not submitted. The wait/target state is kept up to
 * date either way. Records are submitted with BPF_RB_NO_WAKEUP: user space
 * polls the ring on a timer.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "analyze/sched_catalog.h"
#include "sched_stats.h"

#define SEQ_MASK  0x0000FFFFFFFFFFFFull
#define TASK_DEAD 0x80u

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set by user space before load. */
const volatile __u32 filter_mode = LATREC_SCHED_BY_TGID;
/* Set by user space through the mmapped .bss once the start stamp is known
 * (CLOCK_MONOTONIC ns; 0 = not yet). */
volatile __u64 start_ns = 0;

struct rec {
    __u64 sc, t_ns, aux, aux2;
};

struct tstate {
    __s32 wait_cpu; /* runqueue it waits on, -1 none */
    __u32 running;  /* 1 between its switch-in and switch-out */
    __u64 named_t;  /* t_ns of its last COMM submitted, 0 none */
    __u32 known;    /* 1 once an event said its state (else running and
                       wait_cpu are only the defaults) */
    __u32 reserved;
};

struct {
    __uint(type, BPF_MAP_TYPE_RINGBUF);
    __uint(max_entries, 8 << 20); /* resized by user space (--sched-buffer) */
} events SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, LATREC_SCHED_MAX_TGIDS);
    __type(key, __u32);
    __type(value, __u8);
} target_tgids SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, LATREC_SCHED_MAX_TIDS);
    __type(key, __u32);
    __type(value, __u8);
} target_tids SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, LATREC_SCHED_MAX_THREADS);
    __type(key, __u32);
    __type(value, struct tstate);
} threads SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, LATREC_SCHED_MAX_NAMED);
    __type(key, __u32);
    __type(value, __u64);
} named SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1); /* resized by user space to the possible CPUs */
    __type(key, __u32);
    __type(value, __s32);
} waiting SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct latrec_sched_stats);
} stats SEC(".maps");

/* ---- task fields, CO-RE across kernel versions ---------------------------- */

struct task_struct___pre514 {
    long state;
} __attribute__((preserve_access_index));

struct thread_info___cpu {
    __u32 cpu;
} __attribute__((preserve_access_index));

struct task_struct___ti {
    struct thread_info___cpu thread_info;
} __attribute__((preserve_access_index));

struct task_struct___cpu {
    unsigned int cpu;
} __attribute__((preserve_access_index));

/* The tracepoints hand over BTF-typed task pointers, so fields are read
 * with plain (CO-RE relocated) loads, no probe-read helper. */
static __always_inline __u64 task_state(struct task_struct *p)
{
    if (bpf_core_field_exists(p->__state)) return p->__state;
    return (__u64)BPF_CORE_READ((struct task_struct___pre514 *)p, state);
}

static __always_inline __u32 task_cpu_of(struct task_struct *p)
{
    struct task_struct___ti *ti = (void *)p;
    if (bpf_core_field_exists(ti->thread_info.cpu)) return ti->thread_info.cpu;
    return ((struct task_struct___cpu *)p)->cpu;
}

static __always_inline int task_in_execve(struct task_struct *p)
{
    if (bpf_core_field_exists(p->in_execve)) return (int)BPF_CORE_READ_BITFIELD_PROBED(p, in_execve);
    return 0;
}

/* ---- targets and records ------------------------------------------------- */

static __always_inline int is_target(struct task_struct *p)
{
    __u32 tid = p->pid;
    if (tid == 0) return 0;
    if (filter_mode == LATREC_SCHED_BY_TID) return bpf_map_lookup_elem(&target_tids, &tid) != NULL;
    __u32 tgid = p->tgid;
    return bpf_map_lookup_elem(&target_tgids, &tgid) != NULL;
}

static __always_inline struct latrec_sched_stats *my_stats(void)
{
    __u32 k = 0;
    return bpf_map_lookup_elem(&stats, &k);
}

/* Submit one record. 0 when submitted; -1 when dropped (before start_ns)
 * or lost (ring buffer full), counted either way. */
static __always_inline int emit(__u32 kind, __u32 cpu, __u64 seq, __u64 aux, __u64 aux2, __u64 t)
{
    struct latrec_sched_stats *st = my_stats();
    __u64 s = start_ns;
    if (s && t < s) {
        if (st) __sync_fetch_and_add(&st->dropped, 1);
        return -1;
    }
    struct rec *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
    if (!r) {
        if (st) __sync_fetch_and_add(&st->lost, 1);
        return -1;
    }
    r->sc = (seq & SEQ_MASK) | ((__u64)(cpu & 0xFF) << 48) | ((__u64)kind << 56);
    r->t_ns = t;
    r->aux = aux;
    r->aux2 = aux2;
    bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
    if (st) __sync_fetch_and_add(&st->emitted, 1);
    return 0;
}

/* COMM of tid from the 16 bytes at src16 (a task's comm; with is_str a
 * NUL-terminated string), NUL and everything after it zeroed. 0 when
 * submitted (emit()). */
static __always_inline int emit_comm(__u32 tid, const char *src16, int is_str, __u32 cpu, __u64 t)
{
    union {
        char  c[16];
        __u64 w[2];
    } n = {};
    if (is_str) bpf_probe_read_kernel_str(n.c, sizeof(n.c), src16);
    else bpf_probe_read_kernel(n.c, sizeof(n.c), src16);
    int end = 0;
#pragma unroll
    for (int i = 0; i < 16; i++) {
        if (n.c[i] == '\0') end = 1;
        if (end || i == 15) n.c[i] = '\0';
    }
    return emit(LATREC_K_COMM, cpu, tid, n.w[0], n.w[1], t);
}

/* A COMM for p (thread tid, not a target) unless it was named since the
 * start stamp ("named"). */
static __always_inline void name_other(struct task_struct *p, __u32 tid, __u32 cpu, __u64 t)
{
    if (tid == 0) return;
    __u64 *seen = bpf_map_lookup_elem(&named, &tid);
    if (seen && *seen >= start_ns) return;
    if (emit_comm(tid, p->comm, 0, cpu, t) == 0) bpf_map_update_elem(&named, &tid, &t, BPF_ANY);
}

/* The same for a target thread, remembered in its state ts (NULL: the
 * threads map was full, "named" is used). */
static __always_inline void name_thread(struct tstate *ts, struct task_struct *p, __u32 tid, __u32 cpu, __u64 t)
{
    if (!ts) {
        name_other(p, tid, cpu, t);
        return;
    }
    if (ts->named_t && ts->named_t >= start_ns) return;
    if (emit_comm(tid, p->comm, 0, cpu, t) == 0) ts->named_t = t;
}

/* An event of a target thread the program never saw: 0 its switch-in,
 * 1 its switch-out, 2 its wakeup. */
static __always_inline void count_unseen(int which)
{
    struct latrec_sched_stats *st = my_stats();
    if (!st) return;
    if (which == 0) __sync_fetch_and_add(&st->unseen_in, 1);
    else if (which == 1) __sync_fetch_and_add(&st->unseen_out, 1);
    else __sync_fetch_and_add(&st->unseen_wakeup, 1);
}

static __always_inline void waiting_add(__s32 cpu, __s32 d)
{
    __u32 k = (__u32)cpu;
    __s32 *c = bpf_map_lookup_elem(&waiting, &k);
    if (c) __sync_fetch_and_add(c, d);
}

static __always_inline void set_wait(struct tstate *ts, __s32 cpu)
{
    __s32 old = ts->wait_cpu;
    if (old == cpu) return;
    if (old >= 0) waiting_add(old, -1);
    if (cpu >= 0) waiting_add(cpu, 1);
    ts->wait_cpu = cpu;
}

static __always_inline struct tstate *thread_of(__u32 tid)
{
    struct tstate *ts = bpf_map_lookup_elem(&threads, &tid);
    if (ts) return ts;
    struct tstate fresh = { .wait_cpu = -1, .running = 0, .named_t = 0, .known = 0 };
    if (bpf_map_update_elem(&threads, &tid, &fresh, BPF_NOEXIST) != 0) {
        struct latrec_sched_stats *st = my_stats();
        if (st) __sync_fetch_and_add(&st->untracked, 1);
    }
    return bpf_map_lookup_elem(&threads, &tid);
}

static __always_inline void forget_thread(__u32 tid)
{
    struct tstate *ts = bpf_map_lookup_elem(&threads, &tid);
    if (ts) set_wait(ts, -1);
    bpf_map_delete_elem(&threads, &tid);
}

/* ---- handlers -------------------------------------------------------------- */

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
    int pt = is_target(prev), nt = is_target(next);
    __u32 cpu = bpf_get_smp_processor_id();
    __s32 *wc = NULL;
    if (!pt && !nt) {
        __u32 k = cpu;
        wc = bpf_map_lookup_elem(&waiting, &k);
        if (!wc || *wc <= 0) return 0; /* the common case: nothing of ours */
    }
    __u64 t = bpf_ktime_get_ns();
    __u32 ptid = prev->pid, ntid = next->pid;
    if (pt) {
        __u64 state = task_state(prev);
        int runnable = preempt || state == 0;
        struct tstate *ts = thread_of(ptid);
        if (ts) {
            if (ts->known && !ts->running) count_unseen(0);
            ts->running = 0;
            ts->known = 1;
            set_wait(ts, runnable ? (__s32)cpu : -1);
        }
        name_thread(ts, prev, ptid, cpu, t);
        if (!nt) name_other(next, ntid, cpu, t);
        emit(runnable ? LATREC_K_SWITCH_OUT_PREEMPTED : LATREC_K_SWITCH_OUT_BLOCKED, cpu, ptid, ntid,
             runnable ? (__u64)prev->prio : state, t);
        if (state & TASK_DEAD) {
            forget_thread(ptid);
            if (filter_mode == LATREC_SCHED_BY_TID) bpf_map_delete_elem(&target_tids, &ptid);
        }
    }
    if (nt) {
        struct tstate *ts = thread_of(ntid);
        if (ts) {
            if (ts->known && (ts->running || ts->wait_cpu < 0)) count_unseen(ts->running ? 1 : 2);
            ts->running = 1;
            ts->known = 1;
            set_wait(ts, -1);
        }
        name_thread(ts, next, ntid, cpu, t);
        if (!pt) name_other(prev, ptid, cpu, t);
        emit(LATREC_K_SWITCH_IN, cpu, ntid, ptid, (__u64)next->prio, t);
        return 0;
    }
    if (!wc) {
        __u32 k = cpu;
        wc = bpf_map_lookup_elem(&waiting, &k);
    }
    if (wc && *wc > 0) {
        name_other(next, ntid, cpu, t);
        if (!pt) name_other(prev, ptid, cpu, t);
        emit(LATREC_K_OTHER_RUN, cpu, ntid, ptid, (__u64)(__u32)next->tgid, t);
    }
    return 0;
}

static __always_inline int on_wake(struct task_struct *p, __u32 kind)
{
    if (!is_target(p)) return 0;
    __u32 tid = p->pid;
    struct tstate *ts = thread_of(tid);
    if (ts && (ts->running || ts->wait_cpu >= 0)) {
        /* already on a CPU or in a runqueue: nothing starts (counted) */
        struct latrec_sched_stats *st = my_stats();
        if (st) __sync_fetch_and_add(&st->spurious, 1);
        return 0;
    }
    __u64 t = bpf_ktime_get_ns();
    __u32 cpu = bpf_get_smp_processor_id();
    __u32 tc = task_cpu_of(p);
    if (ts) {
        set_wait(ts, (__s32)tc);
        ts->known = 1;
    }
    name_thread(ts, p, tid, cpu, t);
    emit(kind, cpu, tid, (__u32)bpf_get_current_pid_tgid(), tc, t);
    return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
    return on_wake(p, LATREC_K_WAKEUP);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(on_wakeup_new, struct task_struct *p)
{
    return on_wake(p, LATREC_K_WAKEUP_NEW);
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(on_migrate, struct task_struct *p, int dest_cpu)
{
    if (!is_target(p)) return 0;
    __u64 t = bpf_ktime_get_ns();
    __u32 cpu = bpf_get_smp_processor_id();
    __u32 tid = p->pid;
    __u32 orig = task_cpu_of(p);
    struct tstate *ts = thread_of(tid);
    if (ts && !ts->running && ts->wait_cpu >= 0) set_wait(ts, dest_cpu);
    name_thread(ts, p, tid, cpu, t);
    emit(LATREC_K_MIGRATE, cpu, tid, orig, (__u32)dest_cpu, t);
    return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
    __u32 ctid = child->pid, ctgid = child->tgid;
    __u32 ptgid = parent->tgid;
    __u8 one = 1;
    int target;
    bpf_map_delete_elem(&named, &ctid);
    if (filter_mode == LATREC_SCHED_BY_TID) {
        bpf_map_delete_elem(&target_tids, &ctid); /* a reused tid */
        target = 0;
    } else if (ctgid == ptgid) {
        target = bpf_map_lookup_elem(&target_tgids, &ctgid) != NULL; /* a thread */
    } else if (bpf_map_lookup_elem(&target_tgids, &ptgid)) {
        bpf_map_update_elem(&target_tgids, &ctgid, &one, BPF_ANY); /* a process of the tree */
        target = 1;
    } else {
        bpf_map_delete_elem(&target_tgids, &ctgid); /* a reused pid */
        target = 0;
    }
    forget_thread(ctid); /* whatever a previous owner of the tid left */
    if (!target) return 0;
    struct tstate *cts = thread_of(ctid);
    __u64 t = bpf_ktime_get_ns();
    __u32 cpu = bpf_get_smp_processor_id();
    __u32 ptid = parent->pid;
    name_thread(thread_of(ptid), parent, ptid, cpu, t);
    emit(LATREC_K_FORK, cpu, ctid, ptid, ctgid, t);
    if (emit_comm(ctid, child->comm, 0, cpu, t) == 0 && cts) cts->named_t = t;
    return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
    __u32 tid = p->pid, old = (__u32)old_pid;
    if (!is_target(p)) {
        bpf_map_delete_elem(&named, &tid);
        if (old != tid) bpf_map_delete_elem(&named, &old);
        return 0;
    }
    __u64 t = bpf_ktime_get_ns();
    __u32 cpu = bpf_get_smp_processor_id();
    if (old != tid) {
        /* a non-leader thread exec'd and took the leader's tid */
        forget_thread(old);
        if (filter_mode == LATREC_SCHED_BY_TID && bpf_map_lookup_elem(&target_tids, &old)) {
            __u8 one = 1;
            bpf_map_delete_elem(&target_tids, &old);
            bpf_map_update_elem(&target_tids, &tid, &one, BPF_ANY);
        }
    }
    struct tstate *ts = thread_of(tid);
    if (ts) {
        ts->running = 1;
        ts->known = 1;
        set_wait(ts, -1);
    }
    emit(LATREC_K_EXEC, cpu, tid, old, (__u32)p->tgid, t);
    if (emit_comm(tid, p->comm, 0, cpu, t) == 0 && ts) ts->named_t = t;
    return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
    if (!is_target(p)) return 0;
    __u64 t = bpf_ktime_get_ns();
    __u32 cpu = bpf_get_smp_processor_id();
    __u32 tid = p->pid;
    name_thread(thread_of(tid), p, tid, cpu, t);
    emit(LATREC_K_EXIT, cpu, tid, (__u32)p->tgid, (__u32)p->exit_code, t);
    return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(on_rename, struct task_struct *task, const char *comm)
{
    __u32 tid = task->pid;
    if (!is_target(task)) {
        bpf_map_delete_elem(&named, &tid);
        return 0;
    }
    if (task_in_execve(task)) return 0; /* sched_process_exec names it */
    __u64 t = bpf_ktime_get_ns();
    struct tstate *ts = thread_of(tid);
    if (emit_comm(tid, comm, 1, bpf_get_smp_processor_id(), t) == 0 && ts) ts->named_t = t;
    return 0;
}
