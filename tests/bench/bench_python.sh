#!/usr/bin/env bash
# The Python stamp's cost (bench_python.py) for a build: the module of
# BUILD_DIR/src/python with the interpreter it was built for, stamping into a
# 2^20-record ring under BUILD_DIR/bench-rings (removed afterwards), and the
# no-op build of the module beside it.
#
#   tests/bench/bench_python.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: bench_python.sh BUILD_DIR}
python=$(sed -n 's/^LATREC_PY_EXE:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if [ -z "$python" ] || ! ls "$build"/src/python/latrec*.so >/dev/null 2>&1; then
    echo "bench_python: build $build has no Python module (see its cmake output); skipped"
    exit 0
fi
mkdir -p "$build/bench-rings"
trap 'rm -f "$build"/bench-rings/bench_py.*.latrec' EXIT
noop=()
[ -d "$build/tests/python/noop" ] && noop=(--noop "$build/tests/python/noop")
LATREC_ENTRIES_LOG2=20 LATREC_OUTPUT_DIR=$build/bench-rings PYTHONPATH=$build/src/python \
    "$python" "$(dirname "$0")/bench_python.py" "${noop[@]}"
