#!/usr/bin/env python3
"""Write the seed corpora of the directory, catalog and stage-header fuzz
targets (tests/fuzz/corpus_{ringset,catalog,stages}/). Run from anywhere:
    python3 tests/fuzz/make_seeds.py
The ring seeds are in fuzz_ringset.c's compact form: the header's first 640
bytes, then the records (the target zero-fills the header to 4096)."""
import json, os, struct

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = b"#LATREC#"


def header(magic=0x31524C41, version=3, entries=8, rec_count=0, name=b"libe3.outbound.101",
           t0=1_000_000_000, pid=1000, tid=101, clock_id=1, catalog=b"e3", boot=b"",
           timebase=0, cal=()):
    h = bytearray(640)
    struct.pack_into("<IIQQQQ", h, 0, magic, version, entries, rec_count, t0, t0 + 1_795_950_000_000_000_000)
    h[40:40 + len(name)] = name
    struct.pack_into("<IIQQ", h, 104, 32, 20, t0 + 5_000_000, t0 + 5_000_000 + 1_795_950_000_000_000_000)
    struct.pack_into("<IIII", h, 128, pid, tid, 1, clock_id)
    h[144:144 + len(boot)] = boot
    h[160:164] = b"host"
    h[224:224 + len(catalog)] = catalog
    if timebase:
        struct.pack_into("<IIQ", h, 256, timebase, 128, len(cal))
        for i, (tsc, mono) in enumerate(cal[:8]):
            struct.pack_into("<QQ", h, 512 + 16 * i, tsc, mono)
    return bytes(h)


def rec(seq, stage, t, aux=0, aux2=0, cpu=0):
    return struct.pack("<QQQQ", seq | (cpu << 48) | (stage << 56), t, aux, aux2)


def ring(entries, recs, **kw):
    body = b"".join(recs)
    body += bytes(32 * entries - len(body))
    return header(entries=entries, rec_count=len(recs), **kw) + body


def write(sub, name, data):
    d = os.path.join(HERE, sub)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def ringset_seeds():
    T = 2_000_000_000
    out = [rec(i, 0x21, T + i * 1000_000) for i in range(1, 5)]
    ob = []
    for i in range(1, 5):
        t = T + i * 1000_000
        ob += [rec(i, 0x22, t + 2000), rec(i, 0x23, t + 2500, 64), rec(i, 0x24, t + 5500)]
    run = json.dumps({"command": "e3loop", "start_real_ns": T + 1_795_950_000_000_000_000,
                      "stop_real_ns": T + 9_000_000 + 1_795_950_000_000_000_000,
                      "start_stamp": {"mono_ns": T + 1_500_000, "source": "trace_marker"},
                      "state": "finished", "exit": {"code": 0},
                      "collectors": {"sched": {"reason": "not attached"}}}).encode()
    a = ring(8, out, name=b"oai.104", tid=104)
    b = ring(16, ob, name=b"libe3.outbound.101")
    write("corpus_ringset", "run_two_rings", SEP.join([run, a, b]))
    write("corpus_ringset", "no_run_json", SEP.join([b"", a, b]))
    # wrapped ring (12 written into 8) and a torn slot
    w = [rec(i, 0x21, T + i * 1000) for i in range(5, 13)]
    w = w[3:] + w[:3]
    w[2] = struct.pack("<QQQQ", 9, 0, 0, 0)
    write("corpus_ringset", "wrapped_torn", SEP.join([run, ring(8, w, name=b"x.1")]))
    # a TSC ring beside a clock ring, and a sched ring
    tsc = ring(8, [rec(i, 0x21, 4_000_000 + i * 3000) for i in range(1, 5)], magic=0x54524C41,
               name=b"libe3.inbound.102", timebase=1,
               cal=[(1_000_000, T), (9_000_000, T + 2_000_000)])
    sched = ring(8, [rec(i, 1, T + i * 500, 42, 43) for i in range(1, 4)], name=b"sched",
                 catalog=b"sched", tid=0)
    write("corpus_ringset", "tsc_and_sched", SEP.join([run, a, tsc, b"", sched]))
    # other boots, another clock id, a start stamp past everything
    late = json.dumps({"start_stamp": {"mono_ns": T * 10}}).encode()
    write("corpus_ringset", "boots_clock", SEP.join([late, ring(8, out, boot=b"\x11" * 16),
                                                    ring(8, out, boot=b"\x22" * 16),
                                                    ring(8, out, clock_id=4)]))
    write("corpus_ringset", "bad_json", SEP.join([b'{"start_stamp": {"mono_ns": -1', a]))


def catalog_seeds():
    base = "tests/fixtures/catalogs/libe3-early.catalog"
    root = os.path.dirname(os.path.dirname(HERE))
    with open(os.path.join(root, base), "rb") as f:
        write("corpus_catalog", "libe3_early", f.read())
    write("corpus_catalog", "every_directive", b"""catalog app
stages-from stages.h APP_
stages-from stages.h OTHER_
stage 0x10 IN
stage 17 OUT
leg ingest IN RX PARSE
leg egress TX OUT
extra ingest A
hop ingest IN PARSE
key ingest msg PARSE.aux
key egress msg TX.aux2
bytes egress OUT.aux
join ingest.msg egress.msg process
join ingest.seq egress.seq cross
path app/flow ingest egress
component app app worker io
""")
    write("corpus_catalog", "errors", b"stage 300 X\nleg a B\nfoo bar\n")


def stages_seeds():
    root = os.path.dirname(os.path.dirname(HERE))
    with open(os.path.join(root, "tests/fixtures/catalogs/libe3_early_stages.h"), "rb") as f:
        write("corpus_stages", "libe3_early", b"\n" + f.read())
    with open(os.path.join(root, "include/latrec/stages.h"), "rb") as f:
        write("corpus_stages", "latrec_stages", b"LATREC_\n" + f.read())
    write("corpus_stages", "app", b"APP_\nenum app_stage {\n    APP_RX = 0x80, /* c */\n    APP_PARSE,\n"
                                  b"    APP_TX = 0x90, // x\n    APP_BIG = 1 << 3,\n    APP_AFTER,\n};"
                                  b"enum{APP_Z=07u,APP_Y};\n")


ringset_seeds()
catalog_seeds()
stages_seeds()
