"""A Python thread's TSC ring (set_timebase(), and LATREC_CLOCK=tsc): stamps
and now() are in TSC counts inside the ring, the reader converts them to
CLOCK_MONOTONIC ns, and they land between the monotonic clock reads the
producer took around them."""
import json
import os
import platform

import pytest

from conftest import convert, run_py

pytestmark = pytest.mark.usefixtures("enabled_module")

# How far a converted stamp may sit outside the clock reads around it: the
# conversion error latrec(3) states is far below this (tens of ns); a ring
# read as the wrong timebase is off by seconds or more.
SLACK_NS = 100000

PRODUCER = r"""
import json, sys, time, latrec
latrec.set_output_dir(sys.argv[1])
if sys.argv[2] == "api":
    latrec.set_timebase("tscpy", latrec.TIMEBASE_TSC)
assert latrec.open_as("tscpy")
out = []
for i in range(20):
    before = time.monotonic_ns()
    latrec.stamp(i + 1, latrec.RECV)
    t = latrec.now()
    latrec.stamp_at(i + 1, latrec.DECODE_E3AP_DONE, t)
    after = time.monotonic_ns()
    out.append((before, after, t))
    time.sleep(0.001)
print(json.dumps(out))
"""


def invariant_tsc():
    if platform.machine() != "x86_64":
        return False
    with open("/proc/cpuinfo") as f:
        flags = next((line.split() for line in f if line.startswith("flags")), [])
    return "constant_tsc" in flags and "nonstop_tsc" in flags


@pytest.mark.parametrize("how", ["api", "env"])
def test_tsc_ring_from_python(tmp_path, how):
    if not invariant_tsc():
        pytest.skip("no invariant TSC here (x86-64 with constant_tsc and nonstop_tsc): rings keep the clock")
    env = {"LATREC_CLOCK": "tsc"} if how == "env" else None
    p = run_py(PRODUCER, tmp_path / "r", how, env=env)
    stamps = json.loads(p.stdout)
    ring = next((tmp_path / "r").glob("tscpy.*.latrec"))
    with open(ring, "rb") as f:
        assert f.read(4) == b"ALRT", "not a TSC ring"
    _, records = convert(tmp_path / "r", tmp_path / "csv")
    by_seq = {}
    for r in records:
        by_seq.setdefault(int(r["seq"]), {})[int(r["stage"])] = int(r["t_ns"])
    assert sorted(by_seq) == list(range(1, 21))
    tsc_counts = [t for _, _, t in stamps]
    assert tsc_counts == sorted(tsc_counts)
    for i, (before, after, _) in enumerate(stamps):
        got = by_seq[i + 1]
        assert before - SLACK_NS <= got[0x25] <= got[0x26] <= after + SLACK_NS, (before, got, after)
    # now() counts cycles here, not ns: it does not track the monotonic clock
    span_tsc = tsc_counts[-1] - tsc_counts[0]
    span_ns = by_seq[20][0x26] - by_seq[1][0x26]
    assert span_tsc != span_ns
