"""Runqueue waits of one process counted two ways, as log2 microsecond
buckets (bucket s holds [2^s, 2^(s+1)) us; bucket 0 holds 0 to 1 us):

latrec_waits: from latrec convert's records.csv, the sched ring's records
of the process's threads (its tgid, and the threads FORK and EXEC name into
it), counted the way runqlat counts them: a wakeup or a preemption, then
the switch-in.

runqlat_waits: from runqlat -p's histogram output (libbpf-tools).

Shared by tests/cli/sched_record.bats and tests/bench/bench_sched.sh."""
import collections
import csv
import math


def slot(ns):
    us = ns // 1000
    return 0 if us <= 1 else int(math.log2(us))


def latrec_waits(records_csv, tgid):
    tg = {tgid: tgid}
    start = {}
    ours = collections.Counter()
    for r in csv.DictReader(open(records_csv)):
        if r['ring'] != 'sched':
            continue
        k = r['stage_name']
        tid = int(r['seq'])
        t = int(r['t_ns'])
        if k in ('FORK', 'EXEC'):
            tg[tid] = int(r['aux2'])
            continue
        if tg.get(tid) != tgid:
            continue
        if k in ('WAKEUP', 'WAKEUP_NEW', 'SWITCH_OUT_PREEMPTED'):
            start[tid] = t
        elif k == 'SWITCH_IN' and tid in start:
            ours[slot(t - start.pop(tid))] += 1
    return ours


def runqlat_waits(rq_out):
    theirs = collections.Counter()
    for line in open(rq_out):
        if '->' in line and ':' in line:
            lo = int(line.split('->')[0])
            theirs[0 if lo == 0 else int(math.log2(lo))] += int(line.split(':')[1].split('|')[0])
    return theirs


def pct(h, q):
    """The bucket holding quantile q of histogram h."""
    n = sum(h.values())
    acc = 0
    for s in sorted(h):
        acc += h[s]
        if acc >= q * n:
            return s
