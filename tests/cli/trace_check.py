#!/usr/bin/env python3
"""trace_check.py TRACE.json [REPORT.json]: check a latrec timeline.

Checks (each failure is one line on stderr, exit 1):
  - every event has a cat; metadata events too (cat "__metadata");
  - every pid has a process_name, every (pid, tid) of a thread-bound event a
    thread_name, and no name is empty or a bare "pid N" / "tid N" when the
    run says more (--strict-names);
  - complete slices (ph X) on one thread never partially overlap
    (a.start < b.start < a.end < b.end), in integer ns;
  - async slices (ph b/e) of one (pid, cat, id) pair up in file order as a
    stack with matching names, children inside their parent and siblings
    one after the other;
  - every flow start (ph s) has exactly one end (ph f) with the same id and
    name, later or at the same time, on another thread, and both ends sit on
    a stamp slice of that thread at that time (where viewers attach them);
  - with REPORT.json (latrec report --format json of the same run): for
    every hop row with a scheduler split, the mean on-CPU time per instance
    computed from the trace (the "running" slices of the thread that stamped the
    hop's second stage, overlapped with the hop) is within 1 % of the
    report's on_cpu figure (the report's unit is read from its header).
Prints one summary line: counts of slices, async slices, flows, sched slices.
"""
import collections
import json
import sys


def ns(us):
    return int(round(us * 1000))


def die(msgs):
    for m in msgs[:20]:
        print('trace_check: ' + m, file=sys.stderr)
    if len(msgs) > 20:
        print('trace_check: ... %d more' % (len(msgs) - 20), file=sys.stderr)
    sys.exit(1)


def check_names(ev, err, strict):
    pn = {e['pid']: e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'process_name'}
    tn = {(e['pid'], e['tid']): e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name'}
    for e in ev:
        if e['ph'] == 'M':
            continue
        if e['pid'] not in pn:
            err.append('pid %s has no process_name (%s)' % (e['pid'], e['name']))
        if e['ph'] in 'XiIsfBE' and (e['pid'], e['tid']) not in tn:
            err.append('thread %s/%s has no thread_name (%s)' % (e['pid'], e['tid'], e['name']))
    for k, v in list(pn.items()) + list(tn.items()):
        if not v or (strict and (v.startswith('pid ') or v.startswith('tid '))):
            err.append('%s named %r' % (k, v))
    return pn, tn


def check_slices(ev, err):
    per = collections.defaultdict(list)
    for e in ev:
        if e['ph'] == 'X':
            if e['dur'] < 0:
                err.append('negative dur: %s' % e)
            per[(e['pid'], e['tid'])].append((ns(e['ts']), ns(e['ts']) + ns(e['dur']), e['name']))
    partial = 0
    for k, sl in per.items():
        sl.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for s in sl:
            while stack and stack[-1][1] <= s[0] and not (stack[-1][1] == s[0] == s[1]):
                stack.pop()
            if stack and s[1] > stack[-1][1]:
                partial += 1
                if partial <= 5:
                    err.append('partial overlap on %s: %s and %s' % (k, stack[-1], s))
            stack.append(s)
    return sum(len(v) for v in per.values()), partial


def check_async(ev, err):
    stacks = collections.defaultdict(list)
    last_end = collections.defaultdict(int)  # (key, depth) -> end of previous sibling
    n = 0
    for e in ev:
        if e['ph'] not in 'be':
            continue
        key = (e['pid'], e.get('cat'), e['id'])
        st = stacks[key]
        t = ns(e['ts'])
        if e['ph'] == 'b':
            if st and t < st[-1][1]:
                err.append('async %s: %s begins before its parent %s' % (key, e['name'], st[-1][0]))
            if st and t < last_end[(key, len(st))]:
                err.append('async %s: %s overlaps its previous sibling' % (key, e['name']))
            st.append((e['name'], t))
            n += 1
        else:
            if not st or st[-1][0] != e['name']:
                err.append('async %s: end of %s does not match %s' % (key, e['name'], st[-1] if st else None))
                continue
            name, t0 = st.pop()
            if t < t0:
                err.append('async %s: %s ends before it begins' % (key, name))
            last_end[(key, len(st))] = t
            if not st:
                del stacks[key]
                for d in [k for k in last_end if k[0] == key]:
                    del last_end[d]
    for key, st in stacks.items():
        err.append('async %s: %s never ends' % (key, st[-1][0]))
    return n


def check_flows(ev, err):
    stamps = {(e['pid'], e['tid'], ns(e['ts'])) for e in ev if e['ph'] == 'X' and e.get('cat') == 'stamp'}
    s = collections.defaultdict(list)
    f = collections.defaultdict(list)
    for e in ev:
        if e['ph'] == 's':
            s[e['id']].append(e)
        elif e['ph'] == 'f':
            f[e['id']].append(e)
    for i in set(s) | set(f):
        if len(s.get(i, [])) != 1 or len(f.get(i, [])) != 1:
            err.append('flow %s: %d starts, %d ends' % (i, len(s.get(i, [])), len(f.get(i, []))))
            continue
        a, b = s[i][0], f[i][0]
        if a['name'] != b['name'] or a.get('cat') != b.get('cat'):
            err.append('flow %s: ends named differently' % i)
        if ns(b['ts']) < ns(a['ts']):
            err.append('flow %s goes back in time' % i)
        if (a['pid'], a['tid']) == (b['pid'], b['tid']):
            err.append('flow %s on one thread' % i)
        for x in (a, b):
            if (x['pid'], x['tid'], ns(x['ts'])) not in stamps:
                err.append('flow %s: %s end on no stamp' % (i, x['ph']))
    cross = sum(1 for i in s if i in f and s[i][0]['pid'] != f[i][0]['pid'])
    return len(s), cross


def running_overlap(runs, a, b):
    """runs: sorted (start, end) of one thread; ns of [a, b) covered."""
    import bisect
    i = bisect.bisect_right(runs, (a, float('inf'))) - 1
    i = max(i, 0)
    tot = 0
    while i < len(runs) and runs[i][0] < b:
        lo, hi = max(runs[i][0], a), min(runs[i][1], b)
        if hi > lo:
            tot += hi - lo
        i += 1
    return tot


def check_sched(ev, report, err):
    """Mean on-CPU per hop from the trace against the report's split."""
    runs = collections.defaultdict(list)
    for e in ev:
        if e['ph'] == 'X' and e.get('cat') == 'sched' and e['name'] == 'running':
            runs[e['tid']].append((ns(e['ts']), ns(e['ts']) + ns(e['dur'])))
    for v in runs.values():
        v.sort()
    # the thread of each stamp: (leg, seq, stage) -> tid
    where = {}
    for e in ev:
        if e['ph'] == 'X' and e.get('cat') == 'stamp':
            where[(e['args']['leg'], e['args']['seq'], e['name'])] = e['tid']
    open_ = {}
    sums = collections.defaultdict(lambda: [0, 0])
    leg_of = {}
    for e in ev:
        if e['ph'] not in 'be':
            continue
        if e.get('cat') != 'leg':
            continue
        key = (e['pid'], e['id'])
        if e['ph'] == 'b' and e['args']['kind'] == 'leg':
            leg_of[key] = (e['name'], e['args']['seq'])
        elif e['ph'] == 'b':
            open_[key] = (e['name'], ns(e['ts']))
        elif key in open_ and open_[key][0] == e['name']:
            name, t0 = open_.pop(key)
            leg, seq = leg_of[key]
            tid = where.get((leg, seq, name.split(' -> ')[1]))
            if tid in runs:
                s = sums[(leg, name.replace(' -> ', '->'))]
                s[0] += running_overlap(runs[tid], t0, ns(e['ts']))
                s[1] += 1
    unit = report['header']['unit']
    div = {'ns': 1, 'us': 1e3, 'ms': 1e6}[unit]
    compared = 0
    worst = 0.0
    for leg in report['legs']:
        name = leg['component'] + '/' + leg['leg']
        for hop in leg['hops']:
            sp = hop.get('sched')
            if not sp or not sp['split'] or (name, hop['hop']) not in sums:
                continue
            got_sum, got_n = sums[(name, hop['hop'])]
            want = sp['on_cpu_' + unit] * div
            got = got_sum / got_n
            rel = abs(got - want) / want if want else abs(got)
            worst = max(worst, rel)
            compared += 1
            if rel > 0.01:
                err.append('%s %s: on-CPU %.1f ns per instance in the trace (%d), report %.1f ns (%d)'
                           % (name, hop['hop'], got, got_n, want, sp['split']))
    if not compared:
        err.append('no hop with a scheduler split to compare')
    return compared, len(sums), worst


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    strict = '--strict-names' in sys.argv
    d = json.load(open(args[0]))
    ev = d['traceEvents']
    err = []
    for e in ev:
        if not e.get('cat'):
            err.append('event without cat: %s' % e)
            break
    pn, tn = check_names(ev, err, strict)
    n_x, partial = check_slices(ev, err)
    n_async = check_async(ev, err)
    n_flows, cross = check_flows(ev, err)
    n_sched = sum(1 for e in ev if e.get('cat') == 'sched')
    extra = ''
    if len(args) > 1:
        compared, hops, worst = check_sched(ev, json.load(open(args[1])), err)
        extra = ', on-CPU of %d/%d hops within %.3f %%' % (compared, hops, worst * 100)
    if err:
        die(err)
    print('%d processes, %d threads, %d slices (0 partial overlaps), %d async slices, %d flows '
          '(%d across processes), %d sched slices%s' % (len(pn), len(tn), n_x, n_async, n_flows, cross,
                                                         n_sched, extra))


if __name__ == '__main__':
    main()
