#!/usr/bin/env bash
# Run the writer benchmarks of a build: bench_stamp, then the soak on a disk
# directory and on tmpfs, one after the other (never in parallel).
#
#   tests/bench/run.sh BUILD_DIR [SOAK_SECONDS]
#
# SOAK_SECONDS defaults to 60; 0 skips the soak. Rings go to
# BUILD_DIR/bench-rings (bench_stamp), BUILD_DIR/soak-disk and
# /dev/shm/latrec-soak (soak); the soak rings (32 MiB each) are removed
# afterwards. Every result line is printed as the tools print it.
set -euo pipefail

build=${1:?usage: run.sh BUILD_DIR [SOAK_SECONDS]}
seconds=${2:-60}
bench=$build/tests/bench/bench_stamp
soak=$build/tests/bench/soak
if [ ! -x "$bench" ] || [ ! -x "$soak" ]; then
    echo "run.sh: build $build has no bench_stamp/soak" >&2
    exit 1
fi

mkdir -p "$build/bench-rings"
"$bench" --dir "$build/bench-rings"
rm -f "$build"/bench-rings/*.latrec

[ "$seconds" = 0 ] && exit 0
for dir in "$build/soak-disk" /dev/shm/latrec-soak; do
    mkdir -p "$dir"
    "$soak" --seconds "$seconds" --dir "$dir"
    rm -f "$dir"/soak.*.latrec
done
