#!/usr/bin/env bash
# Run the writer benchmarks of a build: bench_stamp, the ctypes stamp
# (bench_ctypes.py), the TSC conversion error (bench_tsc), then the soak on a
# disk directory and on tmpfs, one after the other (never in parallel).
#
#   tests/bench/run.sh BUILD_DIR [SOAK_SECONDS [TSC_SECONDS]]
#
# SOAK_SECONDS defaults to 60; 0 skips the soak. TSC_SECONDS (default 60)
# is how long bench_tsc stamps; 0 skips it. Rings go to
# BUILD_DIR/bench-rings (bench_stamp, bench_ctypes, bench_tsc),
# BUILD_DIR/soak-disk and /dev/shm/latrec-soak (soak); the rings are removed
# afterwards. Every result line is printed as the tools print it.
set -euo pipefail

build=${1:?usage: run.sh BUILD_DIR [SOAK_SECONDS]}
seconds=${2:-60}
tsc_seconds=${3:-60}
bench=$build/tests/bench/bench_stamp
soak=$build/tests/bench/soak
if [ ! -x "$bench" ] || [ ! -x "$soak" ]; then
    echo "run.sh: build $build has no bench_stamp/soak" >&2
    exit 1
fi

mkdir -p "$build/bench-rings"
"$bench" --dir "$build/bench-rings"
rm -f "$build"/bench-rings/*.latrec

if [ -x /usr/bin/python3 ]; then py=/usr/bin/python3; else py=python3; fi
"$py" "$(dirname "$0")/bench_ctypes.py" "$build/src/lib/liblatrec.so" "$build/bench-rings"
rm -f "$build"/bench-rings/*.latrec

if [ "$tsc_seconds" != 0 ]; then
    "$build/tests/bench/bench_tsc" --seconds "$tsc_seconds" --dir "$build/bench-rings"
    rm -f "$build"/bench-rings/*.latrec
fi

[ "$seconds" = 0 ] && exit 0
for dir in "$build/soak-disk" /dev/shm/latrec-soak; do
    mkdir -p "$dir"
    "$soak" --seconds "$seconds" --dir "$dir"
    rm -f "$dir"/soak.*.latrec
done
