/*
 * record/priority.h - the -P/--priority and -c/--cpus options of latrec
 * record: parse rtla's scheduling syntax and a cpu list, apply them to a
 * process.
 *
 * -P takes rtla's forms (the letter may be upper case):
 *   o:NICE              SCHED_OTHER with nice value NICE (-20..19)
 *   r:PRIO              SCHED_RR, PRIO 1..99
 *   f:PRIO              SCHED_FIFO, PRIO 1..99
 *   d:RUNTIME:PERIOD    SCHED_DEADLINE; RUNTIME and PERIOD are durations with
 *                       a unit ns, us, ms or s (a bare number is ns);
 *                       deadline = period; runtime <= period.
 * -c takes a cpu list: "0-2,5", "3", "0-7:2" is not accepted (no strides).
 */
#ifndef LATREC_RECORD_PRIORITY_H
#define LATREC_RECORD_PRIORITY_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6 /* <linux/sched.h>; glibc before 2.41 lacks it */
#endif

typedef struct latrec_sched {
    int      policy;     /* SCHED_OTHER, SCHED_RR, SCHED_FIFO, SCHED_DEADLINE */
    int      nice;       /* SCHED_OTHER only */
    unsigned prio;       /* SCHED_RR / SCHED_FIFO only, 1..99 */
    uint64_t runtime_ns; /* SCHED_DEADLINE only */
    uint64_t period_ns;  /* SCHED_DEADLINE only (also the deadline) */
    char     text[64];   /* the option as given, for run.json */
} latrec_sched;

/* Parse rtla's -P syntax into *s. Returns 0, or -1 with the reason in err
 * ("'x:1': policy must be o, r, f or d"). */
int latrec_sched_parse(const char *arg, latrec_sched *s, char *err, size_t errlen);

/* Apply *s to process `pid` (0: the caller) with sched_setattr(2). Returns 0
 * or -errno (EPERM without CAP_SYS_NICE, EBUSY when deadline admission
 * control refuses the bandwidth, EINVAL). Async-signal-safe: usable between
 * fork and exec. */
int latrec_sched_apply(pid_t pid, const latrec_sched *s);

/* Policy name for messages and run.json: "other", "rr", "fifo", "deadline". */
const char *latrec_sched_policy_name(int policy);

/* Parse a cpu list "0-2,5" into *set. Returns 0, or -1 with the reason in
 * err. CPUs must be below CPU_SETSIZE (1024). */
int latrec_cpulist_parse(const char *arg, cpu_set_t *set, char *err, size_t errlen);

#endif
