"""Three Python threads, three rings: read back with latrec convert, every
role, tid, seq, stage and payload word as the producer wrote it."""
import json

import pytest

from conftest import convert, run_py

pytestmark = pytest.mark.usefixtures("enabled_module")

N = 50

PRODUCER = r"""
import json, os, sys, threading
import latrec
latrec.set_output_dir(sys.argv[1])
latrec.set_catalog("pytest3")
N = int(sys.argv[2])
# before any open_as(): the main thread has no ring, this goes nowhere
latrec.stamp(999, latrec.RECV, 1, 1)
go = threading.Barrier(3)
out = {}

def worker(k, role, stage):
    assert latrec.open_as(role) is True
    assert latrec.open_as(role) is True          # idempotent
    go.wait()                                    # the three stamp at once
    seqs = []
    for i in range(N):
        s = latrec.seq_next()
        seqs.append(s)
        latrec.stamp(s, stage, i, k)
    t = latrec.now()
    latrec.stamp_at(seqs[-1], stage + 1, t, 7, aux2=8)
    latrec.ctx_set(seqs[0])
    out[role] = dict(tid=threading.get_native_id(), seqs=seqs, t=t, ctx=latrec.ctx(), k=k,
                     stage=stage)

threads = [threading.Thread(target=worker, args=a) for a in
           [(1, "alpha", latrec.ENQUEUE), (2, "beta", latrec.RECV),
            (3, "gamma", latrec.DELIVER_BEGIN)]]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps(dict(pid=os.getpid(), threads=out)))
"""


def test_three_threads_three_rings(tmp_path):
    rings_dir = tmp_path / "rings"
    p = run_py(PRODUCER, rings_dir, N)
    got = json.loads(p.stdout)
    threads = got["threads"]
    assert sorted(threads) == ["alpha", "beta", "gamma"]

    rings, records = convert(rings_dir, tmp_path / "csv")
    assert sorted(r["name"] for r in rings) == sorted(f"{role}.{t['tid']}" for role, t in threads.items())
    for r in rings:
        assert r["catalog"] == "pytest3"
        assert r["pid"] == str(got["pid"])
        assert int(r["rec_count"]) == N + 1 and int(r["valid"]) == N + 1
        assert r["lost_records"] == "0"

    # seq_next() is process-wide: the three threads shared 1..3N
    all_seqs = sorted(s for t in threads.values() for s in t["seqs"])
    assert all_seqs == list(range(1, 3 * N + 1))

    for role, t in threads.items():
        mine = [r for r in records if r["ring"] == f"{role}.{t['tid']}"]
        mine.sort(key=lambda r: int(r["t_ns"]))
        assert len(mine) == N + 1
        assert all(r["tid"] == str(t["tid"]) and r["pid"] == str(got["pid"]) for r in mine)
        assert [int(r["seq"]) for r in mine] == t["seqs"] + [t["seqs"][-1]]
        assert [int(r["stage"]) for r in mine] == [t["stage"]] * N + [t["stage"] + 1]
        assert [int(r["aux"]) for r in mine] == list(range(N)) + [7]
        assert [int(r["aux2"]) for r in mine] == [t["k"]] * N + [8]
        # stamp_at stores the time it was given, exactly
        assert int(mine[-1]["t_ns"]) == t["t"]
        assert t["ctx"] == t["seqs"][0]
    # the main thread's stamp before open_as() went nowhere
    assert not [r for r in records if r["seq"] == "999"]
