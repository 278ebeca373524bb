#!/usr/bin/env bats
# latrec convert: rings.csv, records.csv, <component>.csv and trace.json
# checked against libE3's reference reader/converter outputs
# (tests/fixtures/libe3-reference) where the reference is right, against
# values computed here (python3, integer arithmetic) where it is not, and
# against synthetic rings written byte by byte below.
#
# Environment (set by ctest, see tests/unit/cli.cmake):
#   LATREC    the latrec binary (default: latrec in PATH)
#   FIXTURES  tests/fixtures (default: next to this file)

bats_require_minimum_version 1.5.0
load nobody

setup_file() {
    export LATREC="${LATREC:-latrec}"
    export FIXTURES="${FIXTURES:-$BATS_TEST_DIRNAME/../fixtures}"
    export RINGS="$FIXTURES/libe3"
    export REF="$FIXTURES/libe3-reference"
    export CATALOGS="$FIXTURES/catalogs"
    export LR="$BATS_FILE_TMPDIR/lr.py"
    # the interpreter itself, not a version-manager shim (10x faster start)
    PY="$(python3 -c 'import sys; print(sys.executable)')"
    export PY
    write_helper "$LR"
}

setup() {
    OUT="$BATS_TEST_TMPDIR/out"
}

teardown() {
    if [ -n "${BG_PID:-}" ]; then kill "$BG_PID" 2>/dev/null || true; wait "$BG_PID" 2>/dev/null || true; fi
    if [ -n "${OPEN_DIR:-}" ]; then chmod -R u+rwx "$OPEN_DIR" 2>/dev/null || true; rm -rf "$OPEN_DIR"; fi
    if [ -n "${MNT:-}" ]; then umount "$MNT" 2>/dev/null || true; fi
    if [ -n "${LOOP_IMG:-}" ]; then rm -f "$LOOP_IMG"; fi
}

# ---------------------------------------------------------------------------
# The python helper: ring writer, CSV/JSON checks. Every check prints what
# differs and exits 1.
write_helper() {
cat > "$1" <<'PY'
import csv, gzip, json, mmap, os, struct, sys, time, collections

HDR = 4096

def mkring(path, version, name, entries, rec_count, recs, pid=0, tid=0, t0=1000000000,
           t0_real=1795950000000000000, t1=0, t1_real=0):
    """recs: (seq, stage, t, aux, aux2) in write order; record i -> slot i % entries."""
    h = bytearray(HDR)
    struct.pack_into('<IIQQQQ', h, 0, 0x31524C41, version, entries, rec_count, t0, t0_real)
    nb = name.encode()[:63]
    h[40:40 + len(nb)] = nb
    if version >= 2:
        struct.pack_into('<IIQQ', h, 104, 32, 20, t1, t1_real)
    if version >= 3:
        struct.pack_into('<IIII', h, 128, pid, tid, 1, 1)
        h[160:160 + 4] = b'host'
        h[224:224 + 2] = b'e3'
    body = bytearray(32 * entries)
    for i, (seq, stage, t, aux, aux2) in enumerate(recs):
        sc = (seq & 0xFFFFFFFFFFFF) | (3 << 48) | (stage << 56)
        struct.pack_into('<QQQQ', body, 32 * (i % entries), sc, t, aux, aux2)
    with open(path, 'wb') as f:
        f.write(h + body)

def append(path, n, interval, ready):
    """Stamp n records into an existing ring, one every interval s, like a
    live writer (t_ns stored last, rec_count kept current)."""
    with open(path, 'r+b') as f:
        m = mmap.mmap(f.fileno(), 0)
        entries, count = struct.unpack_from('<QQ', m, 8)
        for i in range(n):
            k = count + i
            off = HDR + 32 * (k % entries)
            struct.pack_into('<QQ', m, off + 16, k, 0)
            struct.pack_into('<Q', m, off, (k + 1) | (0x21 << 56))
            struct.pack_into('<Q', m, off + 8, time.monotonic_ns())
            struct.pack_into('<Q', m, 16, k + 1)
            if i == 0 and ready:
                open(ready, 'w').close()
            time.sleep(interval)
        m.close()

def rows(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt', newline='') as f:
        data = [l for l in f if not l.startswith('#')]
    r = list(csv.reader(data))
    return r[0], r[1:]

def dicts(path):
    h, rs = rows(path)
    return [dict(zip(h, r)) for r in rs]

def die(msg):
    print(msg)
    sys.exit(1)

# E3 leg chains as libE3 defines them (ring-format.md, libE3's converter).
E3_CHAINS = {
    'source': ['RECORD_BEGIN', 'PROCESS_BEGIN', 'ENCODE_E3SM_BEGIN', 'ENCODE_E3SM_DONE'],
    'outbound': ['ENQUEUE', 'DEQUEUE', 'ENCODE_E3AP_DONE', 'SEND_DONE'],
    'inbound': ['RECV', 'DECODE_E3AP_DONE'],
    'deliver': ['DELIVER_BEGIN', 'DELIVER_DONE'],
    'consume': ['DECODE_E3SM_BEGIN', 'DECODE_E3SM_DONE', 'PROCESS_DONE', 'CREATE_OUTPUT'],
    'apply_ctrl': ['APPLY_CONTROL_DONE', 'LIVE_ON_AIR'],
    'ack': ['ACK_SENT', 'ACK_RECV'],
    'setup': ['SETUP_BEGIN', 'SETUP_DONE'],
    'subscribe': ['SUB_BEGIN', 'SUB_DONE'],
    'sm_start': ['SM_START'], 'sm_stop': ['SM_STOP'],
    'e2sm_out': ['ENCODE_E2SM_BEGIN', 'ENCODE_E2SM_DONE'],
    'context': ['CONTEXT'],
}
EARLY_CHAINS = {'outbound': ['L0_ENQUEUE', 'L1_DEQUEUE', 'L2_ENCODE_DONE', 'L3_SENT']}

def chain_of(leg, chains):
    return chains.get(leg) or leg.split('>')

def cmd_rings(ours, dump, refcsv):
    """rings.csv against the reference reader (dump) and converter (csv)."""
    o = {r['file']: r for r in dicts(ours)}
    d = {r['file']: r for r in json.load(open(dump))}
    c = {r['file']: r for r in dicts(refcsv)}
    if set(o) != set(d):
        die('files differ: %s vs %s' % (sorted(o), sorted(d)))
    for f, r in o.items():
        want = d[f]
        if 'error' in want:
            continue
        want = dict(want)
        want['wrapped'] = int(want['wrapped'])
        for k in ('version', 'entries', 'rec_count', 'rec_size', 'clock_ns_per_call', 'valid', 'wrapped',
                  'descents', 'lost_records', 't0_mono_ns', 't0_real_ns', 't1_mono_ns', 't1_real_ns'):
            if int(r[k]) != int(want[k]):
                die('%s %s: ours %s, reference reader %s' % (f, k, r[k], want[k]))
        for k in ('bytes', 'mono_real_offset_ns'):
            if int(r[k]) != int(c[f][k]):
                die('%s %s: ours %s, reference csv %s' % (f, k, r[k], c[f][k]))
        if r['name'] != c[f]['ring'] or r['status'] != 'ok' or r['lost_lower_bound'] != '0':
            die('%s: name/status/lost_lower_bound %s %s %s' % (f, r['name'], r['status'], r['lost_lower_bound']))
    print('%d rings agree' % len(o))

def cmd_records(ours, ref, rings_csv):
    o = dicts(ours)
    r = dicts(ref)
    valid = sum(int(x['valid']) for x in dicts(rings_csv) if x['status'] == 'ok')
    if len(o) != valid:
        die('records.csv has %d rows, the rings %d valid records' % (len(o), valid))
    t = [int(x['t_ns']) for x in o]
    if any(t[i] > t[i + 1] for i in range(len(t) - 1)):
        die('records.csv is not time-ordered')
    key = lambda x: (int(x['t_ns']), x['ring'], int(x['seq']), int(x['stage']), int(x['aux']), int(x['aux2']))
    a, b = sorted(map(key, o)), sorted(map(key, r))
    if a != b:
        diff = [(x, y) for x, y in zip(a, b) if x != y][:3]
        die('records differ from the reference (%d vs %d rows): %s' % (len(a), len(b), diff))
    # stage names and components: the reference's (0xNN where it has none)
    names, comps = {}, {}
    for x in r:
        names[int(x['stage'])] = x['stage_name']
        comps[x['ring']] = x['component']
    for x in o:
        s = int(x['stage'])
        want = names[s] if names.get(s, '?') != '?' else '0x%02X' % s
        if x['stage_name'] != want:
            die('stage %d named %s, want %s' % (s, x['stage_name'], want))
        if x['component'] != comps[x['ring']]:
            die('ring %s in component %s, reference %s' % (x['ring'], x['component'], comps[x['ring']]))
    print('%d records agree' % len(o))

def ref_console(path):
    """(table, leg) -> (rows, complete) from latrec2csv.stdout.txt."""
    out = {}
    for line in open(path):
        w = line.split()
        if len(w) >= 4 and w[0].endswith('.csv') and w[-1].isdigit() and w[-2].isdigit():
            out[(w[0], w[1])] = (int(w[-2]), int(w[-1]))
    return out

def our_tables(outdir, chains):
    """(table, leg) -> [rows, complete]; checks the complete column on the way."""
    got = collections.OrderedDict()
    for fn in sorted(os.listdir(outdir)):
        if not fn.endswith('.csv') or fn in ('rings.csv', 'records.csv', 'paths.csv'):
            continue
        h, rs = rows(os.path.join(outdir, fn))
        for r in rs:
            d = dict(zip(h, r))
            ch = chain_of(d['leg'], chains)
            full = all(d.get(s + '_ns', '') != '' for s in ch)
            if int(d['complete']) != int(full):
                die('%s %s seq %s: complete=%s but chain present=%s' % (fn, d['leg'], d['seq'], d['complete'], full))
            v = got.setdefault((fn, d['leg']), [0, 0])
            v[0] += 1
            v[1] += int(d['complete'])
    return got

def cmd_tables(outdir, console, *exceptions):
    """Rows and complete per (table, leg) equal the reference console table,
    except the listed TABLE:LEG:ROWS:COMPLETE, which must hold exactly
    (a leg the reference lacks included)."""
    ref = ref_console(console)
    ours = our_tables(outdir, E3_CHAINS)
    exc = {}
    for e in exceptions:
        t, l, n, c = e.rsplit(':', 3)
        exc[(t, l)] = (int(n), int(c))
    for k in set(ref) | set(ours) | set(exc):
        want = exc.get(k, ref.get(k))
        have = tuple(ours.get(k, (None, None)))
        if want is None:
            die('%s/%s: %s rows, not in the reference' % (k[0], k[1], have))
        if have != want:
            die('%s/%s: ours rows/complete %s, want %s (reference %s)' % (k[0], k[1], have, want, ref.get(k)))
    for k in exc:
        if exc[k] == ref.get(k):
            die('%s/%s listed as a difference but agrees with the reference' % k)
    print('%d legs agree' % len(ours))

def cmd_values(outdir, refdir, *exceptions):
    """Every value of every (leg, seq) row that is unique on both sides is
    equal in every column both tables have, except TABLE:COLUMN listed,
    which must be empty in ours wherever the reference has a value."""
    exc = set(exceptions)
    n = 0
    for fn in sorted(os.listdir(refdir)):
        if not fn.endswith('.csv.gz') or fn.startswith('records'):
            continue
        table = fn[:-3]
        rh, rr = rows(os.path.join(refdir, fn))
        oh, orows = rows(os.path.join(outdir, table))
        common = [c for c in rh if c in oh and c not in ('leg', 'seq') and rh.count(c) == 1]
        ri = {c: i for i, c in enumerate(rh)}
        oi = {c: i for i, c in enumerate(oh)}
        def keyed(rs, idx):
            d = collections.defaultdict(list)
            for r in rs:
                d[(r[idx['leg']], r[idx['seq']])].append(r)
            return d
        rk, ok = keyed(rr, ri), keyed(orows, oi)
        for k, lst in rk.items():
            if len(lst) != 1 or len(ok.get(k, [])) != 1:
                continue
            a, b = lst[0], ok[k][0]
            for c in common:
                if table + ':' + c in exc:
                    if b[oi[c]] != '':
                        die('%s %s seq %s %s: ours %s, expected empty' % (table, k[0], k[1], c, b[oi[c]]))
                    continue
                n += 1
                if a[ri[c]] != b[oi[c]]:
                    die('%s %s seq %s %s: ours %s, reference %s' % (table, k[0], k[1], c, b[oi[c]], a[ri[c]]))
    if n == 0:
        die('nothing compared')
    print('%d values agree' % n)

def cmd_keys(table, records, *specs):
    """LEG:COLUMN:STAGE:FIELD: every row of LEG with STAGE present shows the
    FIELD of the record stamped at that STAGE_ns (found by time and stage)."""
    by_t = {}
    for x in dicts(records):
        by_t[(x['stage_name'], x['t_ns'])] = x
    out = []
    for spec in specs:
        leg, col, stage, field = spec.split(':')
        n = 0
        for d in dicts(table):
            if d['leg'] != leg:
                continue
            t = d[stage + '_ns']
            want = by_t[(stage, t)][field] if t else ''
            if d[col] != want:
                die('%s seq %s %s: %s, want %s' % (leg, d['seq'], col, d[col], want))
            n += want != ''
        out.append('%s %s: %d values' % (leg, col, n))
    print('; '.join(out))

def cmd_walltables(walldir, monodir):
    """--wall tables: stage stamps are records.csv wall stamps of that stage;
    hops and keys equal the monotonic run's, row by row."""
    stamps = set()
    for x in dicts(os.path.join(walldir, 'records.csv')):
        stamps.add((x['stage_name'], x['t_ns']))
    n = 0
    for fn in sorted(os.listdir(monodir)):
        if not fn.endswith('.csv') or fn in ('rings.csv', 'records.csv', 'paths.csv'):
            continue
        w, m = dicts(os.path.join(walldir, fn)), dicts(os.path.join(monodir, fn))
        if len(w) != len(m):
            die('%s: %d rows with --wall, %d without' % (fn, len(w), len(m)))
        for a, b in zip(w, m):
            for c, v in a.items():
                if c.endswith('_ns') and v:
                    if (c[:-3], v) not in stamps:
                        die('%s %s seq %s %s=%s is no wall stamp of that stage' % (fn, a['leg'], a['seq'], c, v))
                    if int(v) < 1700000000000000000:
                        die('%s %s: %s is not a wall-clock time' % (fn, c, v))
                    n += 1
                elif c.endswith('_us') and v and b[c]:
                    # a hop across two rings moves by the difference of their
                    # maps (offsets tens of ns apart here); within one ring it is exact
                    if abs(float(v) - float(b[c])) > 0.050:
                        die('%s %s seq %s %s: %s with --wall, %s without' % (fn, a['leg'], a['seq'], c, v, b[c]))
                elif not c.endswith('_ns') and v != b[c]:
                    die('%s %s seq %s %s: %s with --wall, %s without' % (fn, a['leg'], a['seq'], c, v, b[c]))
    print('%d wall stamps in the tables' % n)

def cmd_nodup(*paths):
    for p in paths:
        h, _ = rows(p)
        dup = [c for c, k in collections.Counter(h).items() if k > 1]
        if dup:
            die('%s repeats %s' % (p, dup))
    print('no repeats')

def cmd_hasdup(path, col):
    h, _ = rows(path)
    if h.count(col) < 2:
        die('%s: %s appears %d times' % (path, col, h.count(col)))

def cmd_early(outdir, refrecords):
    """a2 with the early catalog: the outbound leg from the records alone."""
    by_seq = collections.defaultdict(dict)
    for x in dicts(refrecords):
        by_seq[int(x['seq'])][int(x['stage'])] = x
    want_rows = sum(1 for s in by_seq.values() if set(s) & {0x30, 0x31, 0x32, 0x33, 0x39})
    want_complete = sum(1 for s in by_seq.values() if {0x30, 0x31, 0x32, 0x33} <= set(s))
    got = our_tables(outdir, EARLY_CHAINS)
    have = tuple(got.get(('libe3.csv', 'outbound'), (0, 0)))
    if have != (want_rows, want_complete) or len(got) != 1:
        die('outbound rows/complete %s, want %s; legs %s' % (have, (want_rows, want_complete), list(got)))
    for d in dicts(os.path.join(outdir, 'libe3.csv')):
        s = by_seq[int(d['seq'])]
        for stage, col, field in ((0x33, 'msg_id', 'aux'), (0x30, 'pdu_type', 'aux2'), (0x39, 'drop_reason', 'aux2')):
            w = s[stage][field] if stage in s else ''
            if d[col] != w:
                die('seq %s %s: %s, want %s' % (d['seq'], col, d[col], w))
        for stage, name in ((0x30, 'L0_ENQUEUE'), (0x31, 'L1_DEQUEUE'), (0x32, 'L2_ENCODE_DONE'), (0x33, 'L3_SENT')):
            w = s[stage]['t_ns'] if stage in s else ''
            if d[name + '_ns'] != w:
                die('seq %s %s_ns: %s, want %s' % (d['seq'], name, d[name + '_ns'], w))
        if d['complete'] == '1':
            t = [int(s[k]['t_ns']) for k in (0x30, 0x31, 0x32, 0x33)]
            hops = ['%.3f' % ((t[i + 1] - t[i]) / 1000) for i in range(3)]
            have = [d['L0_ENQUEUE__L1_DEQUEUE_us'], d['L1_DEQUEUE__L2_ENCODE_DONE_us'], d['L2_ENCODE_DONE__L3_SENT_us']]
            if hops != have or d['outbound_total_us'] != '%.3f' % ((t[3] - t[0]) / 1000):
                die('seq %s hops %s, want %s' % (d['seq'], have, hops))
    names = collections.Counter(x['stage_name'] for x in dicts(os.path.join(outdir, 'records.csv')))
    want = {'L0_ENQUEUE': 3198, 'L1_DEQUEUE': 1365, 'L2_ENCODE_DONE': 1365, 'L3_SENT': 1366, 'L9_DROP': 9}
    if dict(names) != want:
        die('stage names %s, want %s' % (dict(names), want))
    print('outbound %d rows, %d complete' % (want_rows, want_complete))

def cmd_discovered(outdir, refrecords):
    """--stages without legs: discovered chains = each seq's stages in time order."""
    by_seq = collections.defaultdict(list)
    for x in dicts(refrecords):
        by_seq[int(x['seq'])].append((int(x['t_ns']), int(x['stage'])))
    names = {0x30: 'L0_ENQUEUE', 0x31: 'L1_DEQUEUE', 0x32: 'L2_ENCODE_DONE', 0x33: 'L3_SENT', 0x39: 'L9_DROP'}
    want = collections.Counter('>'.join(names[s] for _, s in sorted(v)) for v in by_seq.values())
    have = collections.Counter(d['leg'] for d in dicts(os.path.join(outdir, 'libe3.csv')))
    if have != want:
        die('discovered %s, want %s' % (dict(have), dict(want)))
    for d in dicts(os.path.join(outdir, 'libe3.csv')):
        if d['complete'] != '1':
            die('discovered row not complete')
    print(dict(want))

def cmd_wall(outdir, expect_rows):
    rings = {r['name']: r for r in dicts(os.path.join(outdir, 'rings.csv'))}
    rs = dicts(os.path.join(outdir, 'records.csv'))
    if len(rs) != int(expect_rows):
        die('%d rows, want %s' % (len(rs), expect_rows))
    prev = 0
    for x in rs:
        g = rings[x['ring']]
        m, m0, r0 = int(x['t_mono_ns']), int(g['t0_mono_ns']), int(g['t0_real_ns'])
        m1, r1 = int(g['t1_mono_ns']), int(g['t1_real_ns'])
        if m1 > m0 and r1 > r0:
            want = r0 + (m - m0) * (r1 - r0) // (m1 - m0)  # floor, exact integers
        else:
            want = r0 + (m - m0)
        if int(x['t_ns']) != want:
            die('%s: wall %s, want %d' % (x['ring'], x['t_ns'], want))
        if want < prev:
            die('not ordered on the wall clock')
        prev = want
    print('%d wall stamps agree' % len(rs))

def cmd_chrome(path, outdir):
    """trace.json: loads; one named track per ring thread; async slices per
    leg and hop as the tables say; flows in pairs across threads (the full
    checks: tests/cli/trace_check.py)."""
    d = json.load(open(path))
    ev = d['traceEvents']
    rings = [r for r in dicts(os.path.join(outdir, 'rings.csv')) if r['status'] == 'ok'] if outdir else None
    tn = [e for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name']
    pn = [e for e in ev if e['ph'] == 'M' and e['name'] == 'process_name']
    if len({(e['pid'], e['tid']) for e in tn}) != len(tn):
        die('two thread_name events for one track')
    names = {(e['pid'], e['tid']): e['args']['name'] for e in tn}
    if rings is not None:
        for r in rings:
            role = r['name']
            last = role.rsplit('.', 1)[-1]
            if '.' in role and last.isdigit() and r.get('tid', '') in ('', last):
                role = role.rsplit('.', 1)[0]
            if not any(role in n.split(' (')[0].split(', ') for n in names.values()):
                die('no thread named after ring %s (%s)' % (r['name'], sorted(names.values())))
    tracks = set(names)
    procs = {e['pid'] for e in pn}
    legs = [e for e in ev if e['ph'] == 'b' and e['args']['kind'] == 'leg']
    hops = [e for e in ev if e['ph'] == 'b' and e['args']['kind'] == 'hop']
    inst = [e for e in ev if e['ph'] == 'i']
    for e in ev:
        if e['ph'] == 'M':
            continue
        if (e['pid'], e['tid']) not in tracks or e['pid'] not in procs:
            die('event on an unnamed track: %s' % e)
        if e['ts'] < 0 or e.get('dur', 0) < 0:
            die('negative time: %s' % e)
    s = {e['id']: e for e in ev if e['ph'] == 's'}
    f = {e['id']: e for e in ev if e['ph'] == 'f'}
    if set(s) != set(f) or len(s) != sum(1 for e in ev if e['ph'] == 's'):
        die('flow starts and ends do not pair')
    for i in s:
        if (s[i]['pid'], s[i]['tid']) == (f[i]['pid'], f[i]['tid']):
            die('flow %s on one thread' % i)
        if f[i]['ts'] < s[i]['ts']:
            die('flow %s goes back in time' % i)
    # each flow ends where a hop of the same name ends
    ends = collections.Counter((e['name'], round(e['ts'], 3)) for e in ev if e['ph'] == 'e')
    for i in f:
        if ends[(f[i]['name'], round(f[i]['ts'], 3))] == 0:
            die('flow %s ends on no hop' % i)
    if outdir:
        # per table row: >= 2 chain stages -> a leg + (n-1) hops, 1 -> instant
        want_legs = want_hops = want_inst = 0
        for fn in os.listdir(outdir):
            if not fn.endswith('.csv') or fn in ('rings.csv', 'records.csv', 'paths.csv'):
                continue
            for r in dicts(os.path.join(outdir, fn)):
                k = sum(1 for st in chain_of(r['leg'], E3_CHAINS) if r.get(st + '_ns', ''))
                if k >= 2:
                    want_legs += 1
                    want_hops += k - 1
                elif k == 1:
                    want_inst += 1
        if (len(legs), len(hops), len(inst)) != (want_legs, want_hops, want_inst):
            die('legs/hops/instants %s, tables say %s' % ((len(legs), len(hops), len(inst)),
                                                          (want_legs, want_hops, want_inst)))
    print('%d legs, %d hops, %d instants, %d flows' % (len(legs), len(hops), len(inst), len(s)))

if __name__ == '__main__':
    cmd = sys.argv[1]
    a = sys.argv[2:]
    if cmd == 'mkring':
        path, version, name, entries, rec_count = a[0], int(a[1]), a[2], int(a[3]), int(a[4])
        extra = [int(x, 0) for x in a[5:]]
        recs = [tuple(int(v, 0) for v in l.split()) for l in sys.stdin if l.strip()]
        kw = dict(zip(('pid', 'tid', 't0', 't0_real', 't1', 't1_real'), extra))
        mkring(path, version, name, entries, rec_count, recs, **kw)
    elif cmd == 'append':
        append(a[0], int(a[1]), float(a[2]), a[3] if len(a) > 3 else None)
    else:
        globals()['cmd_' + cmd](*a)
PY
}

lr() { "$PY" "$LR" "$@"; }

# Convert into $OUT; the fixture directories are never written to.
convert() { run "$LATREC" convert -o "$OUT" "$@"; }

# A copy of a fixture scenario plus extra files, in a fresh directory.
scenario_copy() {
    local d="$BATS_TEST_TMPDIR/$1"
    mkdir -p "$d"
    cp "$RINGS/$1"/*.latrec "$d/"
    echo "$d"
}

# ---------------------------------------------------------------------------
# rings.csv

@test "rings.csv: b1_loop_clean agrees with the reference reader, ring by ring" {
    convert -q "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    run lr rings "$OUT/rings.csv" "$REF/b1_loop_clean/reader_dump.json" "$REF/b1_loop_clean/csv/rings.csv"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "7 rings agree" ]
}

@test "rings.csv: b2_loop_wrap, oai.19980 wrapped with 1724 lost (exact, rec_count fresh)" {
    convert -q "$RINGS/b2_loop_wrap"
    [ "$status" -eq 0 ]
    run lr rings "$OUT/rings.csv" "$REF/b2_loop_wrap/reader_dump.json" "$REF/b2_loop_wrap/csv/rings.csv"
    echo "$output"
    [ "$status" -eq 0 ]
    # the one wrapped ring, spelled out: valid, wrapped, lost, lower bound, descents
    run awk -F, '$2 == "oai.19980" { print $8, $9, $10, $11, $12 }' "$OUT/rings.csv"
    [ "$output" = "4096 1 1724 0 1" ]
    [ "$(awk -F, 'NR > 1 && $9 == 1' "$OUT/rings.csv" | wc -l)" -eq 1 ]
}

@test "rings.csv: b4_limits (empty ring, field limits, stamp_at ring)" {
    convert -q "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    run lr rings "$OUT/rings.csv" "$REF/b4_limits/reader_dump.json" "$REF/b4_limits/csv/rings.csv"
    echo "$output"
    [ "$status" -eq 0 ]
    run awk -F, '$2 == "ex.empty" { print $7, $8, $9, $10 }' "$OUT/rings.csv"
    [ "$output" = "0 0 0 0" ]
}

@test "rings.csv: a2_real_bench_log2_12 (v1, never-flushed rings with rec_count 0)" {
    convert -q "$RINGS/a2_real_bench_log2_12"
    [ "$status" -eq 0 ]
    run lr rings "$OUT/rings.csv" "$REF/a2_real_bench_log2_12/reader_dump.json" "$REF/a2_real_bench_log2_12/csv/rings.csv"
    echo "$output"
    [ "$status" -eq 0 ]
    # v1 has no rec_size field: reported as 32; the enq rings never flushed
    run awk -F, '$2 == "libe3.enq.19261" { print $3, $6, $7, $8, $9, $10, $11 }' "$OUT/rings.csv"
    [ "$output" = "1 32 0 1081 0 0 0" ]
    run awk -F, '$2 == "libe3.pub" { print $7, $8, $9, $10, $11 }' "$OUT/rings.csv"
    [ "$output" = "6378 4096 1 2282 0" ]
}

@test "rings.csv: better than the reference: a short ring with a stamp_at inversion is not wrapped" {
    # 5 records in a 16-entry ring, the third stamped 6 ms before the second
    # (stamp_at): the reference calls it wrapped; it cannot have wrapped.
    mkdir -p "$BATS_TEST_TMPDIR/inv"
    printf '%s\n' "1 0x21 10000000 0 0" "2 0x21 11000000 0 0" "3 0x21 5000000 0 0" \
        "4 0x21 12000000 0 0" "5 0x21 13000000 0 0" |
        lr mkring "$BATS_TEST_TMPDIR/inv/x.7.latrec" 2 x.7 16 5
    convert -q "$BATS_TEST_TMPDIR/inv"
    [ "$status" -eq 0 ]
    # valid wrapped lost lower_bound descents status
    run awk -F, 'NR == 2 { print $8, $9, $10, $11, $12, $27 }' "$OUT/rings.csv"
    [ "$output" = "5 0 0 0 1 ok" ]
    # and the ring's write order is kept (a local inversion is not reordered)
    run awk -F, 'NR > 1 { printf "%s ", $6 }' "$OUT/records.csv"
    [ "$output" = "1 2 3 4 5 " ]
}

@test "rings.csv: better than the reference: a killed writer's wrapped ring reports a lower-bound loss" {
    # 21 records into 16 slots (newest in slot 4), rec_count 0 (never
    # flushed): at least 21 written, so at least 5 lost (the reference: 0).
    mkdir -p "$BATS_TEST_TMPDIR/killed"
    for i in $(seq 1 21); do echo "$i 0x21 $((2000000000 + i * 1000)) 0 0"; done |
        lr mkring "$BATS_TEST_TMPDIR/killed/k.9.latrec" 2 k.9 16 0
    convert -q "$BATS_TEST_TMPDIR/killed"
    [ "$status" -eq 0 ]
    # rec_count valid wrapped lost lower_bound
    run awk -F, 'NR == 2 { print $7, $8, $9, $10, $11 }' "$OUT/rings.csv"
    [ "$output" = "0 16 1 5 1" ]
    # the 16 survivors, oldest first: seqs 6..21
    run awk -F, 'NR > 1 { printf "%s ", $6 }' "$OUT/records.csv"
    [ "$output" = "6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 " ]
}

# ---------------------------------------------------------------------------
# records.csv

@test "records.csv: every valid record once, time-ordered, same content as the reference (all four scenarios)" {
    for s in b1_loop_clean b2_loop_wrap b4_limits a2_real_bench_log2_12; do
        rm -rf "$OUT"
        convert -q "$RINGS/$s"
        [ "$status" -eq 0 ]
        run lr records "$OUT/records.csv" "$REF/$s/csv/records.csv.gz" "$OUT/rings.csv"
        echo "$s: $output"
        [ "$status" -eq 0 ]
    done
}

@test "records.csv: a large wrapped ring is read whole (pages released behind the read position)" {
    # 2^16 slots, 75536 records written: wrapped at slot 10000 (not on a page
    # boundary); convert drops the mapping's pages behind its read position
    # 1 MiB at a time, across the wrap: every record must still come out.
    d="$BATS_TEST_TMPDIR/big"
    mkdir -p "$d"
    "$PY" - "$LR" "$d/big.5.latrec" <<'PY'
import sys, importlib.util
spec = importlib.util.spec_from_file_location('lr', sys.argv[1]); lr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lr)
lr.mkring(sys.argv[2], 2, 'big.5', 1 << 16, 75536,
          [(s, 0x21, 3000000000 + 1000 * s, 3 * s, s & 7) for s in range(1, 75537)])
PY
    convert -q "$d"
    [ "$status" -eq 0 ]
    run "$PY" - "$OUT/records.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 65536, len(rows)
for i, r in enumerate(rows):
    s = 10001 + i
    assert (int(r['seq']), int(r['t_ns']), int(r['aux']), int(r['aux2'])) == (s, 3000000000 + 1000 * s, 3 * s, s & 7), r
print('ok')
PY
    echo "$output"
    [ "$output" = "ok" ]
    run awk -F, 'NR == 2 { print $8, $9, $10, $11 }' "$OUT/rings.csv"
    [ "$output" = "65536 1 10000 0" ]
}

@test "records.csv: b4 field limits round-trip (48-bit seq, 64-bit payloads, stage 0x00/0xFF)" {
    convert -q "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    grep -q ',ex.limits,libe3,,0,281474976710655,[0-9]*,33,ENQUEUE,outbound,18446744073709551615,18446744073709551615$' "$OUT/records.csv"
    grep -q ',ex.limits,libe3,,0,281474976710655,[0-9]*,114,CONTEXT,context,16045690984503098046,81985529216486895$' "$OUT/records.csv"
    grep -q ',ex.limits,libe3,,0,0,[0-9]*,37,RECV,inbound,1,2$' "$OUT/records.csv"
    grep -q ',ex.limits,libe3,,0,7,[0-9]*,255,0xFF,,18446744073709551615,0$' "$OUT/records.csv"
    grep -q ',ex.limits,libe3,,0,6,[0-9]*,0,0x00,,0,0$' "$OUT/records.csv"
}

# ---------------------------------------------------------------------------
# <component>.csv

@test "tables: b1_loop_clean rows and complete per leg as the reference, differences listed" {
    convert -q "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    # complete means the leg's whole catalog chain: the dApp's source rows
    # hold only ENCODE_E3SM_*, and the outbound halves in dapp.csv/oai.csv
    # (EMIT_ENTER, ENQUEUE) cannot join their libe3 halves because v2 rings
    # carry no pid (one process per component is assumed).
    run lr tables "$OUT" "$REF/b1_loop_clean/latrec2csv.stdout.txt" \
        dapp.csv:source:49:0 dapp.csv:outbound:49:0 oai.csv:outbound:294:0
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "15 legs agree" ]
    # msg_id is one column for outbound (SEND_DONE.aux) and inbound
    # (DECODE_E3AP_DONE.aux): each leg's rows carry their own stage's value
    run lr keys "$OUT/libe3.csv" "$OUT/records.csv" outbound:msg_id:SEND_DONE:aux inbound:msg_id:DECODE_E3AP_DONE:aux
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "outbound msg_id: 392 values; inbound msg_id: 392 values" ]
}

@test "tables: b2_loop_wrap rows and complete per leg as the reference, differences listed" {
    convert -q "$RINGS/b2_loop_wrap"
    [ "$status" -eq 0 ]
    # + oai source: one more row, the WAIT_ENTER of seq 237 whose chain the
    # wrap overwrote (the reference drops rows holding extras only)
    run lr tables "$OUT" "$REF/b2_loop_wrap/latrec2csv.stdout.txt" \
        dapp.csv:source:133:0 dapp.csv:outbound:133:0 oai.csv:outbound:552:0 oai.csv:source:564:551
    echo "$output"
    [ "$status" -eq 0 ]
    run awk -F, '$1 == "source" && $3 == 237 { print $4, ($9 != "") }' "$OUT/oai.csv"
    [ "$output" = "0 1" ]
}

@test "tables: b4_limits rows and complete per leg, extras-only rows and uncatalogued stages kept" {
    convert -q "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    # source +1 (SKIPPED-only seq 10), outbound +2 (EMIT_ENTER-only seq 3,
    # DROP-only seq 5), e2sm_out incomplete (ENCODE_E2SM_BEGIN missing),
    # stages 0x00/0xFF/0x7F become discovered legs instead of vanishing.
    run lr tables "$OUT" "$REF/b4_limits/latrec2csv.stdout.txt" \
        libe3.csv:source:3:0 libe3.csv:outbound:14:0 libe3.csv:e2sm_out:1:0 \
        libe3.csv:0x00:1:1 libe3.csv:0xFF:1:1 libe3.csv:0x7F:1:1
    echo "$output"
    [ "$status" -eq 0 ]
    # the DROP-only row keeps its DROP stamp; seq 2^48-1 joins ENQUEUE,
    # DEQUEUE and SEND_DONE with ENQUEUE->DEQUEUE 105.119 us
    run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } $1 == "outbound" && $3 == 5 { print $4, $(c["DROP_ns"]) != "", $(c["ENQUEUE_ns"]) == "" }' "$OUT/libe3.csv"
    [ "$output" = "0 1 1" ]
    run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } $1 == "outbound" && $3 == 281474976710655 { print $(c["ENQUEUE__DEQUEUE_us"]), $(c["msg_id"]) }' "$OUT/libe3.csv"
    [ "$output" = "105.119 4294967295" ]
}

@test "tables: a2 under the built-in catalog as the reference (mislabelled SETUP/SUB), plus the uncatalogued 0x39" {
    convert -q "$RINGS/a2_real_bench_log2_12"
    [ "$status" -eq 0 ]
    run lr tables "$OUT" "$REF/a2_real_bench_log2_12/latrec2csv.stdout.txt" libe3.csv:0x39:9:9
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "tables: hop, total, stamp and key values equal the reference's, row by row" {
    for s in b1_loop_clean b2_loop_wrap b4_limits a2_real_bench_log2_12; do
        rm -rf "$OUT"
        convert -q "$RINGS/$s"
        [ "$status" -eq 0 ]
        # dapp source_total_us: the reference totals the stages the table
        # holds (ENCODE_E3SM_BEGIN->DONE); ours is RECORD_BEGIN->ENCODE_E3SM_DONE,
        # empty when RECORD_BEGIN is absent.
        run lr values "$OUT" "$REF/$s/csv" dapp.csv:source_total_us
        echo "$s: $output"
        [ "$status" -eq 0 ]
    done
    # spot check, by seq: the source hops of oai seq 1 in b1 (reference:
    # 0.073, 5.029, 0.215)
    rm -rf "$OUT"
    convert -q "$RINGS/b1_loop_clean"
    run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } $1 == "source" && $3 == 1 { print $(c["RECORD_BEGIN__PROCESS_BEGIN_us"]), $(c["ENCODE_E3SM_DONE__WAIT_ENTER_us"]), $(c["source_total_us"]) }' "$OUT/oai.csv"
    [ "$output" = "0.073 5.029 0.215" ]
}

@test "tables: no CSV header repeats a column name (the reference's libe3.csv repeats DROP_ns)" {
    run lr hasdup "$REF/b1_loop_clean/csv/libe3.csv.gz" DROP_ns
    [ "$status" -eq 0 ]
    for s in b1_loop_clean b2_loop_wrap b4_limits a2_real_bench_log2_12; do
        rm -rf "$OUT"
        convert -q "$RINGS/$s"
        [ "$status" -eq 0 ]
        run lr nodup "$OUT"/*.csv
        echo "$s: $output"
        [ "$status" -eq 0 ]
        # DROP is an extra of outbound and inbound: one column for both
        if [ "$s" = b1_loop_clean ]; then
            [ "$(head -1 "$OUT/libe3.csv" | tr ',' '\n' | grep -c '^DROP_ns$')" -eq 1 ]
        fi
    done
}

@test "tables: a leg stamped on two threads of one process (v3 pid) is one complete row" {
    d="$BATS_TEST_TMPDIR/v3"
    mkdir -p "$d"
    make_cross_thread_rings "$d"
    convert -q "$d"
    [ "$status" -eq 0 ]
    [ ! -e "$OUT/oai.csv" ]
    run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $1, $2, $3, $4, $(c["EMIT_ENTER__ENQUEUE_us"]), $(c["ENQUEUE__DEQUEUE_us"]), $(c["DEQUEUE__ENCODE_E3AP_DONE_us"]), $(c["ENCODE_E3AP_DONE__SEND_DONE_us"]), $(c["outbound_total_us"]), $(c["origin_seq"]), $(c["msg_id"]) }' "$OUT/libe3.csv"
    [ "${#lines[@]}" -eq 5 ]
    for s in 1 2 3 4 5; do
        [ "${lines[$((s - 1))]}" = "outbound 4242 $s 1 0.040 1.000 0.250 3.000 4.250 $((500 + s)) $((900 + s))" ]
    done
    # pid and tid in records.csv
    [ "$(awk -F, '$2 == "oai.101" && $4 == 4242 && $5 == 101' "$OUT/records.csv" | wc -l)" -eq 10 ]
    [ "$(awk -F, '$2 == "libe3.outbound.102" && $4 == 4242 && $5 == 102' "$OUT/records.csv" | wc -l)" -eq 15 ]
}

# v3 rings of pid 4242: producer oai.101 (EMIT_ENTER, ENQUEUE), publisher
# libe3.outbound.102 (DEQUEUE, ENCODE_E3AP_DONE, SEND_DONE), seqs 1..5.
make_cross_thread_rings() {
    local d="$1" s t
    for s in 1 2 3 4 5; do
        t=$((2000000000 + s * 1000000))
        echo "$s 0x20 $t $((500 + s)) 7"
        echo "$s 0x21 $((t + 40)) 0 0"
    done | lr mkring "$d/oai.101.latrec" 3 oai.101 16 10 4242 101
    for s in 1 2 3 4 5; do
        t=$((2000000000 + s * 1000000 + 40))
        echo "$s 0x22 $((t + 1000)) 0 0"
        echo "$s 0x23 $((t + 1250)) 184 0"
        echo "$s 0x24 $((t + 4250)) $((900 + s)) 0"
    done | lr mkring "$d/libe3.outbound.102.latrec" 3 libe3.outbound.102 16 15 4242 102
}

@test "tables: ring names from headers never clobber outputs or break the trace" {
    # a role with a slash, a role named like an output file, a name that is
    # not UTF-8: all are just names (header bytes are not trusted)
    d="$BATS_TEST_TMPDIR/names"
    mkdir -p "$d"
    echo "1 0x72 2000000000 0 0" | lr mkring "$d/a.latrec" 2 we/ird.1 16 1
    echo "1 0x72 2000001000 0 0" | lr mkring "$d/b.latrec" 2 records.2 16 1
    "$PY" - "$LR" "$d/c.latrec" <<'PY'
import sys, importlib.util
spec = importlib.util.spec_from_file_location('lr', sys.argv[1]); lr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lr)
lr.mkring(sys.argv[2], 2, 'x', 16, 1, [(1, 0x72, 2000002000, 0, 0)])
with open(sys.argv[2], 'r+b') as f:
    f.seek(40)
    f.write(b'caf\xe9.3\0')
PY
    convert -q "$d"
    [ "$status" -eq 0 ]
    # rings.csv, records.csv, and the tables of we/ird, records and caf\xe9
    [ "$(ls "$OUT" | wc -l)" -eq 5 ]
    [ -s "$OUT/records_legs.csv" ] && [ -s "$OUT/we_ird.csv" ] && [ -s "$OUT/rings.csv" ]
    [ "$(($(wc -l < "$OUT/records.csv") - 1))" -eq 3 ]
    [ "$(head -1 "$OUT/records.csv" | cut -d, -f1)" = "t_ns" ]
    [ "$(awk -F, 'NR > 1 { print $1, $3 }' "$OUT/records_legs.csv")" = "context 1" ]
    [ "$(awk -F, 'NR > 1 { print $1, $3 }' "$OUT/we_ird.csv")" = "context 1" ]
    OUT="$BATS_TEST_TMPDIR/chrome"
    convert -q --format chrome "$d"
    [ "$status" -eq 0 ]
    run "$PY" -c 'import json, sys; ev = json.load(open(sys.argv[1]))["traceEvents"]; print(sorted(e["args"]["name"] for e in ev if e["name"] == "thread_name"))' "$OUT/trace.json"
    # a name that is not UTF-8 keeps its bytes, escaped (read/escape.h)
    [ "$output" = "['caf\\\\xe9', 'records', 'we/ird']" ]
}

@test "tables: a component called paths gets paths_legs.csv; the path table paths.csv keeps its name and rows" {
    d="$(scenario_copy b1_loop_clean)"
    echo "1 0x72 2000000000 0 0" | lr mkring "$d/p.latrec" 2 paths.9 16 1
    convert -q "$d"
    [ "$status" -eq 0 ]
    [ "$(head -1 "$OUT/paths.csv" | cut -d, -f1-2)" = "path,complete" ]
    [ "$(($(wc -l < "$OUT/paths.csv") - 1))" -eq 698 ] # b1's path instances, as without the ring
    [ "$(awk -F, 'NR > 1 { print $1, $3 }' "$OUT/paths_legs.csv")" = "context 1" ]
}

@test "records.csv: ring and component names with a comma or a quote are quoted, every row parses back" {
    d="$BATS_TEST_TMPDIR/quoted"
    mkdir -p "$d"
    printf '1 0x72 2000000000 7 8\n2 0x72 2000002000 9 10\n' | lr mkring "$d/a.latrec" 2 'we,ird.1' 16 1
    echo "1 0x72 2000001000 0 0" | lr mkring "$d/b.latrec" 2 'say"hi.2' 16 1
    convert -q "$d"
    [ "$status" -eq 0 ]
    run "$PY" - "$OUT/records.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
assert all(len(r) == 12 for r in rows), rows
for r in rows[1:]:
    print(r[0], r[1], r[2], r[5], r[7], r[8], r[10], r[11])
PY
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "2000000000 we,ird.1 we,ird 1 114 CONTEXT 7 8" ]
    [ "${lines[1]}" = '2000001000 say"hi.2 say"hi 1 114 CONTEXT 0 0' ]
    [ "${lines[2]}" = "2000002000 we,ird.1 we,ird 2 114 CONTEXT 9 10" ]
    grep -q '^2000001000,"say""hi.2","say""hi",' "$OUT/records.csv"
}

# ---------------------------------------------------------------------------
# malformed rings and bad directories

@test "malformed: each bad file gets its own one-line reason, the good ring is still converted, exit 3" {
    d="$BATS_TEST_TMPDIR/mixed"
    mkdir -p "$d"
    cp "$RINGS/b6_derived_malformed"/*.latrec "$d/"
    cp "$RINGS/b4_limits/ex.limits.latrec" "$d/good.1.latrec"
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$d"
    [ "$status" -eq 3 ]
    [ -z "$output" ]
    printf '%s\n' "${stderr_lines[@]}"
    [ "${#stderr_lines[@]}" -eq 5 ]
    [ "${stderr_lines[0]}" = "latrec: $d/ex.badmagic.latrec: bad magic 0x31524C42 (not a latrec ring)" ]
    [ "${stderr_lines[1]}" = "latrec: $d/ex.bswap.latrec: byte-swapped ring (written on an opposite-endian host)" ]
    [ "${stderr_lines[2]}" = "latrec: $d/ex.recsize64.latrec: rec_size 64, expected 32" ]
    [ "${stderr_lines[3]}" = "latrec: $d/ex.short.latrec: shorter than a header: 100 bytes" ]
    [ "${stderr_lines[4]}" = "latrec: $d/ex.truncated.latrec: truncated: header says 4096 entries (135168 bytes) but the file has 4330 bytes" ]
    # no generic follow-up line: "bad magic" exactly once
    [ "$(printf '%s\n' "${stderr_lines[@]}" | grep -c 'bad magic')" -eq 1 ]
    # the good ring: 17 records, its table
    [ "$(($(wc -l < "$OUT/records.csv") - 1))" -eq 17 ]
    [ "$(awk -F, '$2 == "good.1" || $2 == "ex.limits"' "$OUT/records.csv" | wc -l)" -eq 17 ]
    [ -s "$OUT/libe3.csv" ]
    # rings.csv: one row per file, the rejected ones with their reason
    run awk -F, 'NR > 1 { print $1, $27 }' "$OUT/rings.csv"
    [ "${lines[*]}" = "ex.badmagic.latrec rejected ex.bswap.latrec rejected ex.recsize64.latrec rejected ex.short.latrec rejected ex.truncated.latrec rejected good.1.latrec ok" ]
    # torn_slots, timebase, tsc_pairs, tsc_pairs_taken, lapped empty
    grep -q '^ex.recsize64.latrec,.*,rejected,"rec_size 64, expected 32",,,,,$' "$OUT/rings.csv"
}

@test "malformed only: nothing readable is exit 1 with one line per file and a summary" {
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b6_derived_malformed"
    [ "$status" -eq 1 ]
    [ "${#stderr_lines[@]}" -eq 6 ]
    [ "${stderr_lines[5]}" = "latrec convert: no readable rings in $RINGS/b6_derived_malformed" ]
}

@test "bad directory: missing is exit 1 with one clear line" {
    run --separate-stderr "$LATREC" convert -o "$OUT" "$BATS_TEST_TMPDIR/nope"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $BATS_TEST_TMPDIR/nope: no such directory" ]
    [ ! -e "$OUT" ]
}

@test "bad directory: empty is exit 1 with one clear line" {
    mkdir -p "$BATS_TEST_TMPDIR/empty"
    : > "$BATS_TEST_TMPDIR/empty/notes.txt"
    : > "$BATS_TEST_TMPDIR/empty/x.latrec.part"
    run --separate-stderr "$LATREC" convert -o "$OUT" "$BATS_TEST_TMPDIR/empty"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $BATS_TEST_TMPDIR/empty: no .latrec rings" ]
}

@test "bad directory: unreadable (mode 000, run as nobody) is exit 1 with one clear line" {
    # bats' own temporary directories are private: use one nobody can reach
    OPEN_DIR="$(mktemp -d /tmp/latrec-convert-bats.XXXXXX)"
    chmod 755 "$OPEN_DIR"
    mkdir "$OPEN_DIR/locked"
    cp "$RINGS/b4_limits"/*.latrec "$OPEN_DIR/locked/"
    chmod 000 "$OPEN_DIR/locked"
    if [ "$(id -u)" -eq 0 ]; then # root reads anything: run as nobody
        # a checkout closed to other users (0700) hides the binary: run a copy
        lat="$LATREC"
        if ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$lat"; then
            install -m 755 "$LATREC" "$OPEN_DIR/latrec"
            lat="$OPEN_DIR/latrec"
        fi
        run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
            "$lat" convert -o "$OPEN_DIR/out" "$OPEN_DIR/locked"
    else
        run --separate-stderr "$LATREC" convert -o "$OPEN_DIR/out" "$OPEN_DIR/locked"
    fi
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OPEN_DIR/locked: permission denied" ]
    [ ! -e "$OPEN_DIR/out" ]
}

@test "bad directory: a file, not a directory, is exit 1 with one clear line" {
    run --separate-stderr "$LATREC" convert -o "$OUT" "$RINGS/b4_limits/ex.limits.latrec"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $RINGS/b4_limits/ex.limits.latrec: not a directory" ]
}

@test "usage: a bad --format or --quiet-secs is exit 2" {
    run "$LATREC" convert --format xml -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--format must be csv or chrome, not 'xml'"* ]]
    run "$LATREC" convert --watch --quiet-secs soon -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 2 ]
    [ ! -e "$OUT" ]
}

@test "output: a directory name past 4095 bytes is refused, never cut short (convert wrote into its first 4095 bytes)" {
    # DIR of 4094 bytes holding rings: DIR/csv does not fit, and cut short it was DIR/ itself
    d="$("$PY" -c '
import sys
p = sys.argv[1] + "/long"
while len(p) < 4094 - 200: p += "/" + "d" * 199
print(p + "/" + "e" * (4094 - len(p) - 1))' "$BATS_TEST_TMPDIR")"
    [ "${#d}" -eq 4094 ]
    mkdir -p "$d"
    cp "$RINGS/b4_limits"/*.latrec "$d/"
    run --separate-stderr "$LATREC" convert -q "$d"
    [ "$status" -eq 1 ]
    # (its run.json's name is too long to read as well: said on the line before)
    [ "${stderr_lines[-1]}" = "latrec convert: ${d:0:200}...: the output directory's name is longer than 4095 bytes; use -o" ]
    [ "$(ls -A "$d" | grep -vc '\.latrec$')" -eq 0 ] # nothing written beside the rings
    run --separate-stderr "$LATREC" convert -q -o "$d/xy" "$RINGS/b4_limits"
    [ "$status" -eq 2 ]
    [ "${stderr_lines[0]}" = "latrec convert: -o: a directory name of 4097 bytes (at most 4095)" ]
    [ "$(ls -A "$d" | grep -vc '\.latrec$')" -eq 0 ]
}

@test "output: default directory is <DIR>/csv; a summary line unless -q" {
    d="$(scenario_copy b4_limits)"
    run --separate-stderr "$LATREC" convert "$d"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    [ "${stderr_lines[0]}" = "latrec convert: 3 rings (0 skipped), 27 records -> $d/csv" ]
    [ -s "$d/csv/rings.csv" ] && [ -s "$d/csv/records.csv" ] && [ -s "$d/csv/libe3.csv" ]
    # its source leg instances start E3 paths that go no further: paths.csv
    [ -s "$d/csv/paths.csv" ]
    [ "$(ls "$d/csv" | wc -l)" -eq 4 ]
}

@test "output: a SIGTERM mid-write leaves no temporary file and no half-written output" {
    command -v strace >/dev/null || skip "strace is not installed (it slows convert's writes down here)"
    d="$(scenario_copy b1_loop_clean)"
    # every write(2) of convert waits 300 ms, so the signal lands mid-file
    strace -f -qq -o /dev/null -e trace=write -e inject=write:delay_enter=300000 \
        "$LATREC" convert -q "$d" -o "$OUT" &
    BG_PID=$!
    for _ in $(seq 1 200); do
        compgen -G "$OUT/.*.??????" >/dev/null && break
        sleep 0.05
    done
    compgen -G "$OUT/.*.??????" >/dev/null || { echo "no temporary file appeared"; false; }
    kill -TERM "$(pgrep -P "$BG_PID")" # the traced latrec, strace's child
    wait "$BG_PID" || true
    BG_PID=
    left="$(cd "$OUT" && ls -A | grep -v '^\.latrec-output$' || true)"
    # what was committed before the signal is whole; nothing else is there
    for f in $left; do
        case "$f" in .*) echo "temporary left: $f"; false ;; esac
    done
    true
}

# A ring whose records.csv is about 44 MB (rows of ~110 bytes: a long ring
# name), for the tests of a full filesystem.
big_ring() {
    mkdir -p "$1"
    "$PY" - "$LR" "$1" <<'PY'
import sys, importlib.util
spec = importlib.util.spec_from_file_location('lr', sys.argv[1]); lr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lr)
name = 'full.' + 'x' * 52 + '.5'
lr.mkring(sys.argv[2] + '/' + name + '.latrec', 2, name, 1 << 19, 400000,
          [(s, 0x21, 3000000000 + 1000 * s, 3 * s, s & 7) for s in range(1, 400001)])
PY
}

# convert -o into a full filesystem: one line names the file that could not
# be written, exit 1, and nothing half-written is left in the directory.
full_convert() {
    run --separate-stderr "$LATREC" convert -q -o "$MNT/csv" "$BATS_TEST_TMPDIR/big"
    echo "status $status: $stderr"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $MNT/csv/records.csv: No space left on device" ]
    [ -z "$(cd "$MNT/csv" && ls -A | grep -v '^\.latrec-output$')" ]
}

@test "output: a full filesystem (tmpfs: buffered writes) is one line naming records.csv, exit 1, nothing half-written left" {
    [ "$(id -u)" -eq 0 ] || skip "not root: a small full filesystem needs mount -t tmpfs -o size="
    MNT="$BATS_TEST_TMPDIR/mnt"
    mkdir -p "$MNT"
    mount -t tmpfs -o size=24m latrec-test "$MNT" || skip "cannot mount a tmpfs here"
    big_ring "$BATS_TEST_TMPDIR/big"
    full_convert
}

@test "output: a full filesystem (ext4: records.csv past 16 MiB goes out with O_DIRECT) is one line naming it, exit 1" {
    [ "$(id -u)" -eq 0 ] || skip "not root: a small ext4 filesystem needs mount -o loop"
    command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed (apt-get install e2fsprogs)"
    LOOP_IMG="$(mktemp /tmp/latrec-convert-ext4.XXXXXX)"
    truncate -s 32m "$LOOP_IMG"
    mkfs.ext4 -q -F "$LOOP_IMG" || skip "mkfs.ext4 failed here"
    MNT="$BATS_TEST_TMPDIR/mnt"
    mkdir -p "$MNT"
    mount -o loop "$LOOP_IMG" "$MNT" || skip "cannot mount an ext4 image here (no loop devices?)"
    big_ring "$BATS_TEST_TMPDIR/big"
    full_convert
    # the same convert into a directory with room: the bytes the O_DIRECT
    # blocks and the buffered tail wrote are records.csv's, row for row
    run "$LATREC" convert -q -o "$BATS_TEST_TMPDIR/csv" "$BATS_TEST_TMPDIR/big"
    [ "$status" -eq 0 ]
    run "$PY" - "$BATS_TEST_TMPDIR/csv/records.csv" <<'PY'
import sys
n = 0
with open(sys.argv[1]) as f:
    assert f.readline().startswith('t_ns,ring,'), 'header'
    for n, line in enumerate(f, 1):
        s = n
        c = line.rstrip('\n').split(',')
        assert (int(c[0]), int(c[5]), int(c[10]), int(c[11])) == (3000000000 + 1000 * s, s, 3 * s, s & 7), line
print(n)
PY
    [ "$output" = 400000 ]
}

# The files of OUT (its marker included) with their sha256, for "left as
# it was" checks.
out_state() {
    (cd "$1" && find . -mindepth 1 -printf '%y %p\n' | sort && find . -type f -exec sha256sum {} + | sort -k2)
}

@test "output: a .latrec-output that is a symbolic link: one line naming it, before anything is written; nothing followed" {
    mkdir -p "$OUT"
    echo keep > "$BATS_TEST_TMPDIR/precious"
    ln -s "$BATS_TEST_TMPDIR/precious" "$OUT/.latrec-output"
    for fmt in csv chrome; do
        run --separate-stderr "$LATREC" convert -q --format "$fmt" -o "$OUT" "$RINGS/b1_loop_clean"
        [ "$status" -eq 1 ]
        want=records.csv
        [ "$fmt" = csv ] || want=trace.json
        [ "$stderr" = "latrec convert: $OUT/.latrec-output: cannot list $want in it: a symbolic link, not followed" ]
        [ "$(ls -A "$OUT")" = .latrec-output ] # no output, no temporary
        [ "$(cat "$BATS_TEST_TMPDIR/precious")" = keep ]
    done
}

@test "output: a .latrec-output convert may not write: one line naming it; nothing placed unlisted, so the next convert replaces all" {
    OPEN_DIR="$(mktemp -d /tmp/latrec-convert-bats.XXXXXX)"
    chmod 755 "$OPEN_DIR"
    lat="$LATREC"
    as=()
    if [ "$(id -u)" -eq 0 ]; then # root writes anything: run as nobody
        nobody_programs "$OPEN_DIR/bin" lat || skip "nobody cannot reach $OPEN_DIR"
        as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    fi
    # the rings where nobody reads them (a 0700 checkout hides the fixtures)
    mkdir -m 755 "$OPEN_DIR/b1"
    install -m 644 "$RINGS/b1_loop_clean"/*.latrec "$OPEN_DIR/b1/"
    out="$OPEN_DIR/out"
    mkdir "$out"
    : > "$out/.latrec-output"
    chmod 444 "$out/.latrec-output"
    [ "$(id -u)" -ne 0 ] || chown 65534:65534 "$out"
    chmod 755 "$out"
    run --separate-stderr "${as[@]}" "$lat" convert -q -o "$out" "$OPEN_DIR/b1"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $out/.latrec-output: cannot list records.csv in it: Permission denied" ]
    [ "$(ls -A "$out")" = .latrec-output ]
    [ ! -s "$out/.latrec-output" ]
    # writable again: every file is written and listed, and a second convert replaces them
    chmod 644 "$out/.latrec-output"
    [ "$(id -u)" -ne 0 ] || chown 65534:65534 "$out/.latrec-output"
    for _ in 1 2; do
        run --separate-stderr "${as[@]}" "$lat" convert -q -o "$out" "$OPEN_DIR/b1"
        echo "$stderr"
        [ "$status" -eq 0 ]
    done
    [ "$(cd "$out" && ls | sort | tr '\n' ' ')" = "dapp.csv libe3.csv oai.csv paths.csv records.csv rings.csv " ]
    [ "$(grep -v '^#' "$out/.latrec-output" | sort | tr '\n' ' ')" = "dapp.csv libe3.csv oai.csv paths.csv records.csv rings.csv " ]
}

@test "output: one rule on a failure: a name that is not latrec's (dapp.csv) leaves DIR as it was, the earlier conversion's files whole" {
    run "$LATREC" convert -q -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    echo "the user's" > "$OUT/dapp.csv" # b1 has a dapp component; b4 has none
    before="$(out_state "$OUT")"
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b1_loop_clean"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OUT/dapp.csv: exists and is not written by latrec (its directory's .latrec-output does not list it): left alone; move it away or write elsewhere" ]
    [ "$(out_state "$OUT")" = "$before" ]
}

@test "output: one rule on a full filesystem: whichever file fails, one line names it, exit 1, and DIR is left as it was" {
    [ "$(id -u)" -eq 0 ] || skip "not root: a small full filesystem needs mount -t tmpfs -o size="
    MNT="$BATS_TEST_TMPDIR/mnt"
    mkdir -p "$MNT"
    mount -t tmpfs -o size=8m latrec-test "$MNT" || skip "cannot mount a tmpfs here"
    # what the whole conversion takes there (tmpfs counts whole pages)
    run "$LATREC" convert -q -o "$MNT/csv" "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    need=$(du -s -B1 "$MNT/csv" | cut -f1)
    rm -rf "$MNT/csv"
    mkdir "$MNT/csv"
    echo "earlier" > "$MNT/csv/keep.txt"
    before="$(out_state "$MNT/csv")"
    failed=""
    # room for all but a page, half, a tenth of it: the failure lands in different files
    for room in $((need - 4096)) $((need / 2)) $((need / 10)); do
        rm -f "$MNT/fill"
        avail=$(df -B1 --output=avail "$MNT" | tail -1)
        fallocate -l $((avail - room)) "$MNT/fill"
        run --separate-stderr "$LATREC" convert -q -o "$MNT/csv" "$RINGS/b1_loop_clean"
        echo "room $room of $need: status $status: $stderr"
        [ "$status" -eq 1 ]
        # a data file, or the marker (a new one takes a page too)
        [[ "$stderr" =~ ^"latrec convert: $MNT/csv/"[a-z0-9.-]+": "("cannot list "[a-z0-9.]+" in it: ")?"No space left on device"$ ]]
        [ "${#stderr_lines[@]}" -eq 1 ]
        [ "$(out_state "$MNT/csv")" = "$before" ]
        failed+="${stderr#latrec convert: $MNT/csv/} "
    done
    echo "failed: $failed"
}

@test "output: the component tables spool in \$TMPDIR; a spool that fails names \$TMPDIR, not only the table" {
    # b1's libe3 component has two legs: its rows are spooled until both are known
    run --separate-stderr env TMPDIR="$BATS_TEST_TMPDIR/none" "$LATREC" convert -q -o "$OUT" "$RINGS/b1_loop_clean"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $BATS_TEST_TMPDIR/none: cannot spool rows there: No such file or directory" ]
    [ ! -e "$OUT/records.csv" ]
    [ "$(id -u)" -eq 0 ] || skip "not root: a full filesystem for \$TMPDIR needs mount -t tmpfs -o size="
    MNT="$BATS_TEST_TMPDIR/mnt"
    mkdir -p "$MNT"
    mount -t tmpfs -o size=4k latrec-test "$MNT" || skip "cannot mount a tmpfs here"
    fallocate -l 4096 "$MNT/fill"
    run --separate-stderr env TMPDIR="$MNT" "$LATREC" convert -q -o "$OUT" "$RINGS/b1_loop_clean"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OUT/libe3.csv: its rows spooled in $MNT: No space left on device" ]
    [ -z "$(ls -A "$OUT")" ] # the output directory had room: nothing of this conversion placed there
    [ "$(ls -A "$MNT")" = fill ]
}

# ---------------------------------------------------------------------------
# --format chrome

@test "chrome: trace.json of b1 loads; one track per ring; slices as the tables say; flows pair across threads" {
    convert -q "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    csvdir="$OUT"
    OUT="$BATS_TEST_TMPDIR/chrome"
    convert -q --format chrome "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    [ "$(ls "$OUT")" = "trace.json" ]
    run lr chrome "$OUT/trace.json" "$csvdir"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "chrome: a hop across threads of one process gets a flow arrow, same-thread hops none" {
    d="$BATS_TEST_TMPDIR/v3"
    mkdir -p "$d"
    make_cross_thread_rings "$d"
    convert -q --format chrome "$d"
    [ "$status" -eq 0 ]
    run lr chrome "$OUT/trace.json" ""
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "5 legs, 15 hops, 0 instants, 5 flows" ]
    run "$PY" - "$OUT/trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
tn = sorted((e['pid'], e['tid'], e['args']['name']) for e in ev if e['name'] == 'thread_name')
pn = [(e['pid'], e['args']['name']) for e in ev if e['name'] == 'process_name']
print(tn, pn)
# async slices: pair each begin with its end (same id and name)
ends = {(e['id'], e['name']): e['ts'] for e in ev if e['ph'] == 'e'}
def spans(kind):
    return [(e['name'], e['tid'], e['ts'], round(ends[(e['id'], e['name'])] - e['ts'], 3), e['args'])
            for e in ev if e['ph'] == 'b' and e['args']['kind'] == kind]
legs = spans('leg')
for s in range(1, 6):
    # origin = seq 1's EMIT_ENTER; ENQUEUE 40 ns after each EMIT_ENTER
    want = ('libe3/outbound', 101, round((s - 1) * 1000 + 0.040, 3), 4.25, s, True)
    n, tid, ts, dur, a = legs[s - 1]
    got = (n, tid, round(ts, 3), dur, a['seq'], a['complete'])
    assert got == want, (got, want)
flows = sorted((e['ph'], e['tid'], e['name']) for e in ev if e['ph'] in 'sf')
assert flows == [('f', 102, 'ENQUEUE -> DEQUEUE')] * 5 + [('s', 101, 'ENQUEUE -> DEQUEUE')] * 5, flows
hops = sorted({(n, dur) for n, tid, ts, dur, a in spans('hop')})
assert hops == [('DEQUEUE -> ENCODE_E3AP_DONE', 0.25), ('ENCODE_E3AP_DONE -> SEND_DONE', 3.0),
                ('ENQUEUE -> DEQUEUE', 1.0)], hops
# the stamps on the threads that took them
stamps = sorted({(e['name'], e['tid']) for e in ev if e.get('cat') == 'stamp'})
assert stamps == [('DEQUEUE', 102), ('ENCODE_E3AP_DONE', 102), ('ENQUEUE', 101), ('SEND_DONE', 102)], stamps
PY
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "[(4242, 101, 'oai'), (4242, 102, 'libe3.outbound')] [(4242, 'pid 4242 [libe3, oai]')]" ]
    run "$PY" "$BATS_TEST_DIRNAME/trace_check.py" "$OUT/trace.json"
    echo "$output"
    [ "$status" -eq 0 ]
}

# ---------------------------------------------------------------------------
# --wall, --watch

@test "wall: two directories merge on CLOCK_REALTIME, each stamp mapped by its ring's clock pairs" {
    run --separate-stderr "$LATREC" convert -o "$OUT" "$RINGS/b1_loop_clean" "$RINGS/b2_loop_wrap"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"2 directories merged on the monotonic clock; use --wall"* ]]
    rm -rf "$OUT"
    convert -q --wall "$RINGS/b1_loop_clean" "$RINGS/b2_loop_wrap"
    [ "$status" -eq 0 ]
    [ "$(head -1 "$OUT/records.csv")" = "t_ns,ring,component,pid,tid,seq,cpu,stage,stage_name,leg,aux,aux2,t_mono_ns" ]
    run lr wall "$OUT" $((6358 + 15259))
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(($(wc -l < "$OUT/rings.csv") - 1))" -eq 14 ]
}

@test "wall: the component tables and the leg joins run on the wall clock too" {
    # b1 on --wall: every stage stamp in a table is a wall-clock stamp of
    # records.csv with that stage; keys are unchanged and a hop across two
    # rings moves by the difference of their maps (tens of ns at most here)
    mono="$BATS_TEST_TMPDIR/mono"
    run "$LATREC" convert -q -o "$mono" "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    convert -q --wall "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    run lr walltables "$OUT" "$mono"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(awk -F, '$1 == "source" && $3 == 1 { print $5 }' "$OUT/oai.csv")" = 1795950002888872788 ]

    # two hosts whose monotonic clocks are 4000 s apart, stamping at the
    # same wall-clock time: the legs of each must still join (the builder's
    # 10 s horizon runs on the merge's clock, not on either host's)
    for h in 1 2; do
        mkdir -p "$BATS_TEST_TMPDIR/host$h"
        t0=$((h == 1 ? 1000000000000 : 5000000000000))
        for s in $(seq 1 20); do
            t=$((t0 + s * 1000000 + h * 100))
            echo "$s 0x21 $t 0 0"
            echo "$s 0x22 $((t + 1000)) 0 0"
            echo "$s 0x23 $((t + 2000)) 0 0"
            echo "$s 0x24 $((t + 3000)) $s 0"
        done | lr mkring "$BATS_TEST_TMPDIR/host$h/libe3.outbound.7.latrec" 3 libe3.outbound.7 128 80 $((h * 100)) 7 "$t0" 1795950000000000000
    done
    rm -rf "$OUT"
    convert -q --wall "$BATS_TEST_TMPDIR/host1" "$BATS_TEST_TMPDIR/host2"
    [ "$status" -eq 0 ]
    run awk -F, 'NR > 1 { rows[$2]++; done[$2] += $4 } END { for (p in rows) print p, rows[p], done[p] }' "$OUT/libe3.csv"
    [ "$(printf '%s\n' "${lines[@]}" | sort | tr '\n' ' ')" = "100 20 20 200 20 20 " ]
    # and in time order on the wall clock, host 1 then host 2 for each seq
    run awk -F, 'NR > 1 && NR <= 5 { printf "%s/%s ", $4, $8 }' "$OUT/records.csv"
    [ "$output" = "100/33 200/33 100/34 200/34 " ]

    # the same pid on both hosts, directories given with a trailing slash
    # (as shell completion writes them): still two processes, one per host
    for h in 1 2; do
        mkdir -p "$BATS_TEST_TMPDIR/same$h"
        t0=$((h == 1 ? 1000000000000 : 5000000000000))
        for s in $(seq 1 20); do
            t=$((t0 + s * 1000000 + h * 100))
            echo "$s 0x21 $t 0 0"
            echo "$s 0x22 $((t + 1000)) 0 0"
            echo "$s 0x23 $((t + 2000)) 0 0"
            echo "$s 0x24 $((t + 3000)) $s 0"
        done | lr mkring "$BATS_TEST_TMPDIR/same$h/libe3.outbound.7.latrec" 3 libe3.outbound.7 128 80 4242 7 "$t0" 1795950000000000000
    done
    rm -rf "$OUT"
    convert -q --wall "$BATS_TEST_TMPDIR/same1/" "$BATS_TEST_TMPDIR/same2/"
    [ "$status" -eq 0 ]
    run awk -F, 'NR > 1 { rows++; done += $4 } END { print rows, done }' "$OUT/libe3.csv"
    [ "$output" = "40 40" ]
}

@test "watch: waits until the rings stop changing, then converts everything written" {
    d="$BATS_TEST_TMPDIR/live"
    mkdir -p "$d"
    lr mkring "$d/w.1.latrec" 2 w.1 64 0 < /dev/null
    lr append "$d/w.1.latrec" 15 0.1 "$BATS_TEST_TMPDIR/ready" &
    BG_PID=$!
    while [ ! -e "$BATS_TEST_TMPDIR/ready" ]; do sleep 0.02; done
    start=$(date +%s%N)
    run --separate-stderr "$LATREC" convert --watch --quiet-secs 0.5 --timeout 5 -o "$OUT" "$d"
    end=$(date +%s%N)
    wait "$BG_PID"
    BG_PID=
    [ "$status" -eq 0 ]
    [[ "$stderr" != *"still changing"* ]]
    ms=$(((end - start) / 1000000))
    echo "returned after $ms ms"
    # the writer stamped for 1.4 s more; quiet 0.5 s; timeout not reached
    [ "$ms" -ge 1800 ]
    [ "$ms" -lt 4500 ]
    [ "$(($(wc -l < "$OUT/records.csv") - 1))" -eq 15 ]
    run awk -F, 'NR == 2 { print $7, $8 }' "$OUT/rings.csv"
    [ "$output" = "15 15" ]
}

@test "watch: gives up after --timeout and converts what is there" {
    d="$BATS_TEST_TMPDIR/busy"
    mkdir -p "$d"
    lr mkring "$d/w.1.latrec" 2 w.1 1024 0 < /dev/null
    lr append "$d/w.1.latrec" 400 0.05 "$BATS_TEST_TMPDIR/ready" &
    BG_PID=$!
    while [ ! -e "$BATS_TEST_TMPDIR/ready" ]; do sleep 0.02; done
    start=$(date +%s%N)
    run --separate-stderr "$LATREC" convert --watch --quiet-secs 0.5 --timeout 1.5 -o "$OUT" "$d"
    end=$(date +%s%N)
    [ "$status" -eq 0 ]
    [ "${stderr_lines[0]}" = "latrec convert: rings still changing after 1.5 s; converting anyway" ]
    ms=$(((end - start) / 1000000))
    echo "returned after $ms ms"
    [ "$ms" -ge 1500 ]
    [ "$ms" -lt 3500 ]
    n=$(($(wc -l < "$OUT/records.csv") - 1))
    [ "$n" -ge 20 ] && [ "$n" -lt 400 ]
}

# ---------------------------------------------------------------------------
# catalogs

@test "catalog: a2 with --catalog libe3-early: one outbound leg over the producer and publisher threads" {
    convert -q --catalog "$CATALOGS/libe3-early.catalog" "$RINGS/a2_real_bench_log2_12"
    [ "$status" -eq 0 ]
    run lr early "$OUT" "$REF/a2_real_bench_log2_12/csv/records.csv.gz"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "outbound 3198 rows, 1365 complete" ]
    [ "$(head -1 "$OUT/libe3.csv")" = "leg,pid,seq,complete,L0_ENQUEUE_ns,L1_DEQUEUE_ns,L2_ENCODE_DONE_ns,L3_SENT_ns,L9_DROP_ns,L0_ENQUEUE__L1_DEQUEUE_us,L1_DEQUEUE__L2_ENCODE_DONE_us,L2_ENCODE_DONE__L3_SENT_us,outbound_total_us,msg_id,pdu_type,drop_reason" ]
    [ "$(ls "$OUT" | tr '\n' ' ')" = "libe3.csv records.csv rings.csv " ]
}

@test "catalog: a bad catalog file is exit 1 naming FILE:LINE and the reason" {
    printf 'catalog x\nstage 0x30 A\nleg l A NOPE\n' > "$BATS_TEST_TMPDIR/bad.catalog"
    run --separate-stderr "$LATREC" convert -o "$OUT" --catalog "$BATS_TEST_TMPDIR/bad.catalog" "$RINGS/b4_limits"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec: $BATS_TEST_TMPDIR/bad.catalog:3: leg: unknown stage" ]
}

@test "catalog: --stages with a C header names the stages, legs are discovered per seq" {
    convert -q --stages "$CATALOGS/libe3_early_stages.h" --stage-prefix E3_ "$RINGS/a2_real_bench_log2_12"
    [ "$status" -eq 0 ]
    run lr discovered "$OUT" "$REF/a2_real_bench_log2_12/csv/records.csv.gz"
    echo "$output"
    [ "$status" -eq 0 ]
    run awk -F, 'NR > 1 { n[$9]++ } END { for (k in n) print k, n[k] }' "$OUT/records.csv"
    [ "$(printf '%s\n' "${lines[@]}" | sort | tr '\n' ' ')" = "L0_ENQUEUE 3198 L1_DEQUEUE 1365 L2_ENCODE_DONE 1365 L3_SENT 1366 L9_DROP 9 " ]
    # without the prefix the enumerators keep it
    rm -rf "$OUT"
    convert -q --stages "$CATALOGS/libe3_early_stages.h" "$RINGS/a2_real_bench_log2_12"
    [ "$status" -eq 0 ]
    [ "$(awk -F, 'NR == 2 { print $9 }' "$OUT/records.csv")" = "E3_L0_ENQUEUE" ]
}
