#!/usr/bin/env python3
"""html_check.py PAGE.json REPORT.json [--baseline]: the browser's view of a
latrec HTML report (tests/js/report_browser_check.js) against the JSON
report of the same run and options (latrec report --format json), figure by
figure:
  - no console error, no page error, no request but the page's own;
  - one section per leg and per path of the JSON report;
  - per section a histogram, a percentile plot, a p50/p99 series and a
    waterfall; each with 1 series (2 with --baseline) whose marks are
    as many as it says (data-points);
  - histogram counts add up to the count of the ranking row (the total);
  - the p50 and p99 marks of the percentile plot are the JSON's p50/p99
    (and the baseline series' those of the JSON's baseline figures);
  - the series has one mark per interval of that leg (or path) in the JSON
    (with --baseline two more series: the baseline's p50 and p99);
  - the waterfall's parts are the path's hop and hand-off segments (a leg's
    chain hops) and add up to the mean of the total within 5 % (not exactly:
    a negative hand-off, the next leg begun before the last one ended, is a
    regression kept out of its segment's mean, and an instance missing a
    stage counts in some rows only);
  - the slowest instances are listed, each with its explanation.
Prints one line per section, exit 1 at the first difference.
"""
import json
import sys


def fail(msg):
    print('html_check: ' + msg, file=sys.stderr)
    sys.exit(1)


def rank_row(rows, key):
    for r in rows:
        if r[key] == 'total':
            return r
    return rows[0]


def check_chart(sec, kind, n_series):
    ch = [c for c in sec['charts'] if c['chart'] == kind]
    if len(ch) != 1:
        fail('%s: %d %s charts' % (sec['name'], len(ch), kind))
    c = ch[0]
    if c['series_attr'] != n_series or len(c['series']) != n_series:
        fail('%s %s: %d series (says %d), want %d' % (sec['name'], kind, len(c['series']), c['series_attr'], n_series))
    for s in c['series']:
        if s['marks'] != s['points_attr'] or s['marks'] == 0:
            fail('%s %s %s: %d marks, says %d' % (sec['name'], kind, s['name'], s['marks'], s['points_attr']))
    return c


def near(a, b, rel):
    return abs(a - b) <= rel * abs(b) + 1


def main():
    page = json.load(open(sys.argv[1]))
    rep = json.load(open(sys.argv[2]))
    n = 2 if '--baseline' in sys.argv else 1
    for k in ('console_errors', 'page_errors', 'requests'):
        if page[k]:
            fail('%s: %s' % (k, page[k][:3]))
    unit = rep['header']['unit']
    div = {'ns': 1, 'us': 1e3, 'ms': 1e6}[unit]
    want = [('leg', l['component'] + '/' + l['leg'], l) for l in rep['legs']]
    want += [('path', p['path'], p) for p in rep.get('paths', [])]
    got = [(s['kind'], s['name']) for s in page['sections']]
    if got != [(k, nm) for k, nm, _ in want]:
        fail('sections %s, want %s' % (got, [(k, nm) for k, nm, _ in want]))
    intervals = rep.get('intervals', [])
    for sec, (kind, name, j) in zip(page['sections'], want):
        rows, key = (j['hops'], 'hop') if kind == 'leg' else (j['segments'], 'segment')
        total = rank_row(rows, key)
        h = check_chart(sec, 'hist', n)
        if sum(h['series'][0]['counts']) != total['count']:
            fail('%s: histogram holds %d, the total counts %d' % (name, sum(h['series'][0]['counts']), total['count']))
        c = check_chart(sec, 'cdf', n)
        pct = dict((p, v) for p, v in c['series'][0]['pcts'])
        figs = [(pct, total, 'run')]
        if n == 2:
            if c['series'][1]['name'] != 'baseline' or not total.get('baseline'):
                fail('%s: no baseline series or figures' % name)
            figs.append((dict((p, v) for p, v in c['series'][1]['pcts']), total['baseline'], 'baseline'))
        for marks, fig, who in figs:
            for p in (50, 99):
                if not near(marks[p], fig['p%d_%s' % (p, unit)] * div, 0):
                    fail('%s: %s p%d mark at %s ns, the report says %s %s'
                         % (name, who, p, marks[p], fig['p%d_%s' % (p, unit)], unit))
        if 1:
            s = check_chart(sec, 'series', 2 * n)
            of = (lambda iv: iv['component'] + '/' + iv['leg']) if kind == 'leg' else \
                 (lambda iv: iv['leg'] if iv['component'] == 'path' else None)
            mine = [iv for iv in intervals if of(iv) == name]
            if not mine:
                fail('%s: no interval in the JSON report' % name)
            for ser, k in zip(s['series'][:2], ('p50', 'p99')):
                if ser['marks'] != sum(1 for iv in mine if iv['%s_%s' % (k, unit)] is not None):
                    fail('%s: %s series has %d marks, %d intervals' % (name, k, ser['marks'], len(mine)))
        w = check_chart(sec, 'waterfall', n)
        parts = w['series'][0]['ns']
        mean = total['mean_%s' % unit] * div
        if kind == 'path':
            segs = [r for r in rows if r['kind'] in ('hop', 'hand-off')]
            if len(parts) != len(segs) or not near(sum(parts), mean, 0.05):
                fail('%s: waterfall %d parts, sum %.1f ns; %d segments, total mean %.1f ns'
                     % (name, len(parts), sum(parts), len(segs), mean))
        elif not near(sum(parts), mean, 0.05):
            fail('%s: waterfall sums to %.1f ns, the total mean is %.1f ns' % (name, sum(parts), mean))
        if len(sec['top']) != 5 or not all(t and ' took ' in t for t in sec['top']):
            fail('%s: slowest instances %s' % (name, sec['top']))
        print('%s %s: %d histogram bins, %d percentiles, waterfall %d parts'
              % (kind, name, len(h['series'][0]['counts']), len(pct), len(parts)))


if __name__ == '__main__':
    main()
