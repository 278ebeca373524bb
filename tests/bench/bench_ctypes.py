#!/usr/bin/env python3
"""bench_ctypes - what a stamp costs from Python through ctypes, against
time.monotonic_ns() in the same run.

    bench_ctypes.py LIBLATREC_SO DIR [--reps N] [--ops N]

Loads the shared library with ctypes (dlopen, the library's exported
out-of-line calls), opens this thread's ring in DIR and times, interleaved,
--reps rounds (default 21) of --ops iterations (default 200000) of:

  loop          an empty `for` iteration (the interpreter's own cost)
  monotonic_ns  time.monotonic_ns()
  ctypes_stamp  latrec_tstamp_fn(seq, stage, aux, aux2), argtypes declared
  ctypes_tnow   latrec_tnow_fn()

Output: one line per figure, `NAME ns_per_op=MEDIAN ratio=R min_ns_per_op=MIN`
with ratio = median / monotonic_ns's median (the reference), then a check
line with the ring's record count read back from its header.
"""
import ctypes
import os
import statistics
import struct
import sys
import time


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    lib_path, out_dir = argv[1], argv[2]
    reps, ops = 21, 200000
    args = argv[3:]
    while args:
        if len(args) < 2 or args[0] not in ("--reps", "--ops"):
            print("usage: bench_ctypes.py LIB DIR [--reps N] [--ops N]", file=sys.stderr)
            return 2
        if args[0] == "--reps":
            reps = int(args[1])
        else:
            ops = int(args[1])
        args = args[2:]

    lib = ctypes.CDLL(lib_path)
    u64, u8 = ctypes.c_uint64, ctypes.c_uint8
    lib.latrec_set_output_dir.argtypes = [ctypes.c_char_p]
    lib.latrec_tls_open_as.argtypes = [ctypes.c_char_p]
    lib.latrec_tls_open_as.restype = ctypes.c_void_p
    lib.latrec_tstamp_fn.argtypes = [u64, u8, u64, u64]
    lib.latrec_tstamp_fn.restype = None
    lib.latrec_tnow_fn.argtypes = []
    lib.latrec_tnow_fn.restype = u64
    os.makedirs(out_dir, exist_ok=True)
    lib.latrec_set_output_dir(out_dir.encode())
    os.environ["LATREC_ENTRIES_LOG2_BENCH_CTYPES"] = "16"
    if not lib.latrec_tls_open_as(b"bench_ctypes"):
        print("bench_ctypes: no ring opened", file=sys.stderr)
        return 1

    stamp, tnow, mono = lib.latrec_tstamp_fn, lib.latrec_tnow_fn, time.monotonic_ns
    clock = time.perf_counter_ns

    def loop():
        t0 = clock()
        for _ in range(ops):
            pass
        return (clock() - t0) / ops

    def monotonic():
        t0 = clock()
        for _ in range(ops):
            mono()
        return (clock() - t0) / ops

    def ctypes_stamp():
        t0 = clock()
        for i in range(ops):
            stamp(i, 0x21, i, 0)
        return (clock() - t0) / ops

    def ctypes_tnow():
        t0 = clock()
        for _ in range(ops):
            tnow()
        return (clock() - t0) / ops

    figs = [("loop", loop), ("monotonic_ns", monotonic), ("ctypes_stamp", ctypes_stamp),
            ("ctypes_tnow", ctypes_tnow)]
    samples = {name: [] for name, _ in figs}
    for _, fn in figs:
        fn()  # warm-up
    for _ in range(reps):
        for name, fn in figs:
            samples[name].append(fn())
    ref = statistics.median(samples["monotonic_ns"])
    print(f"config python={sys.version.split()[0]} reps={reps} ops={ops}")
    for name, _ in figs:
        med = statistics.median(samples[name])
        print(f"{name} ns_per_op={med:.1f} ratio={med / ref:.3f} min_ns_per_op={min(samples[name]):.1f}")

    ring = [f for f in os.listdir(out_dir) if f.startswith(f"bench_ctypes.{os.getpid()}")]
    written = (reps + 1) * ops
    if len(ring) == 1:
        with open(os.path.join(out_dir, ring[0]), "rb") as f:
            hdr = f.read(4096)
        magic = hdr[:4].decode("ascii", "replace")
        print(f"check ring={ring[0]} magic={magic} stamps={written} "
              f"(the ring holds the last {struct.unpack_from('<Q', hdr, 8)[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
