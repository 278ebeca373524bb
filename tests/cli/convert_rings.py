# The ring writer and output checks of convert.bats and convert_output.bats
# (as `lr CMD ARGS...`, see convert_common.bash): mkring writes a ring byte by
# byte as latrec-format(5) lays it out; every check prints what differs and
# exits 1.
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
