# Shared by convert.bats and convert_output.bats (bats `load convert_common`):
# the fixtures, the ring writer and checks of convert_rings.py (run as `lr`
# from a copy in the file's temporary directory), and the helpers of both.
#
# Environment (set by ctest, see tests/unit/cli.cmake):
#   LATREC    the latrec binary (default: latrec in PATH)
#   FIXTURES  tests/fixtures (default: next to this file)

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
    cp "$BATS_TEST_DIRNAME/convert_rings.py" "$LR"
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
