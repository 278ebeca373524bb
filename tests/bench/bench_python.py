"""Cost of a Python stamp, as a same-run ratio to a bare time.monotonic_ns().

    python3 bench_python.py [--rounds R] [--calls N] [--noop DIR]

Run with the module on PYTHONPATH and LATREC_OUTPUT_DIR set (bench_python.sh
does both). Each round times, back to back (in reverse order every other
round), N calls of each of: an empty loop, time.monotonic_ns(),
latrec.stamp(seq, stage), latrec.stamp(seq, stage, aux, aux2),
latrec.stamp_at(seq, stage, t), latrec.now() and, for comparison, the same
stamp through ctypes (latrec_tstamp_fn). The stamps go into this thread's
ring of 2**LATREC_ENTRIES_LOG2 records (20 by default here: 32 MiB, larger
than the caches, as real rings are). Printed per variant: the median over
rounds of ns per call (loop included), of the ratio to monotonic_ns() in the
same round, and of ns per call with the empty loop's cost taken off. The
same is then measured in a child process whose ring is a TSC ring
(LATREC_CLOCK=tsc), and with --noop DIR in one running the no-op build of
the module (DIR on sys.path), for the cost of the call and its argument
checks alone.
"""
import argparse
import ctypes
import glob
import os
import statistics
import subprocess
import sys
import threading
import time


def variants(latrec):
    mono = time.monotonic_ns
    stamp, stamp_at, now = latrec.stamp, latrec.stamp_at, latrec.now
    stage = latrec.RECV
    t = now()

    def empty(r):
        for i in r:
            pass

    def monotonic(r):
        for i in r:
            mono()

    def stamp2(r):
        for i in r:
            stamp(i, stage)

    def stamp4(r):
        for i in r:
            stamp(i, stage, i, i)

    def stampat(r):
        for i in r:
            stamp_at(i, stage, t)

    def now_(r):
        for i in r:
            now()

    out = [("empty loop", empty), ("time.monotonic_ns()", monotonic),
           ("stamp(seq, stage)", stamp2), ("stamp(seq, stage, aux, aux2)", stamp4),
           ("stamp_at(seq, stage, t_ns)", stampat), ("now()", now_)]
    if latrec.ENABLED:
        # For comparison: the same stamp through ctypes and the library's
        # out-of-line latrec_tstamp_fn() (the FFI path, no module).
        lib = ctypes.CDLL("liblatrec.so.1")
        fn = lib.latrec_tstamp_fn
        fn.argtypes = [ctypes.c_uint64, ctypes.c_uint8, ctypes.c_uint64, ctypes.c_uint64]
        fn.restype = None

        def ctypes4(r):
            for i in r:
                fn(i, stage, i, i)
        out.append(("ctypes latrec_tstamp_fn, 4 args", ctypes4))
    return out


def measure(latrec, rounds, calls):
    vs = variants(latrec)
    per = {name: [] for name, _ in vs}
    ratio = {name: [] for name, _ in vs}
    net = {name: [] for name, _ in vs}
    r = range(calls)
    for name, fn in vs:  # warm up: ring pages, caches, specialisation
        fn(r)
    for k in range(rounds):
        got = {}
        # forward on even rounds, backward on odd ones: drift charges no variant
        for name, fn in (vs if k % 2 == 0 else vs[::-1]):
            t0 = time.perf_counter_ns()
            fn(r)
            got[name] = (time.perf_counter_ns() - t0) / calls
        for name, _ in vs:
            per[name].append(got[name])
            ratio[name].append(got[name] / got["time.monotonic_ns()"])
            net[name].append(got[name] - got["empty loop"])
    return [(name, statistics.median(per[name]), statistics.median(ratio[name]),
             statistics.median(net[name])) for name, _ in vs]


def report(title, rows):
    print(title)
    print(f"  {'call':<32} {'ns/call':>8} {'x monotonic_ns':>15} {'ns net of loop':>15}")
    for name, ns, ratio, net in rows:
        print(f"  {name:<32} {ns:8.1f} {ratio:15.2f} {net:15.1f}")


def child(a, env):
    sys.stdout.flush()
    subprocess.run([sys.executable, __file__, "--child", "--rounds", str(a.rounds), "--calls",
                    str(a.calls)], env=env, check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=200000)
    ap.add_argument("--noop", help="directory holding the no-op build of the module")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    import latrec
    if not a.child and not latrec.ENABLED:
        print("bench_python: the module on PYTHONPATH is a no-op build; nothing to measure")
        return 1
    if latrec.ENABLED and not latrec.open_as("bench_py"):
        print("bench_python: no ring could be opened (see the line above)")
        return 1
    rows = measure(latrec, a.rounds, a.calls)
    if not latrec.ENABLED:
        kind = "no-op build"
    else:
        tsc = open(glob.glob(os.path.join(os.environ["LATREC_OUTPUT_DIR"], f"bench_py.{threading.get_native_id()}*.latrec"))[0], "rb").read(4) == b"ALRT"
        kind = f"{'TSC' if tsc else 'clock'} ring of 2^{os.environ.get('LATREC_ENTRIES_LOG2', '18')} records"
    report(f"bench_python: {sys.implementation.name} {sys.version.split()[0]}, {kind}, "
           f"{a.rounds} rounds x {a.calls} calls, medians", rows)
    if not a.child:
        # the same in a TSC ring (LATREC_CLOCK=tsc; the clock where the TSC is not invariant)
        child(a, dict(os.environ, LATREC_CLOCK="tsc"))
        if a.noop:
            child(a, dict(os.environ, PYTHONPATH=a.noop))
    return 0


if __name__ == "__main__":
    sys.exit(main())
