#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# record --stop-above on a run whose path never completes: the path is the
# run's (report lists it, its instances incomplete), so record does not say
# that the run has no such path; a segment the path does not have is still
# told. The producer stamps only the E3 catalog's first leg (oai/source)
# from Python, so e3/loop has instances and none is complete.
#
# Needs: LATREC, PYTHONPATH with the build's latrec module (ctest sets both).

setup_file() {
    : "${LATREC:?set LATREC to the latrec binary}"
    python3 -c 'import latrec' 2>/dev/null || skip "the latrec Python module is not on PYTHONPATH"
    export PROG="$BATS_FILE_TMPDIR/source_only.py"
    cat >"$PROG" <<'PY'
import latrec
latrec.open_as("oai")
for _ in range(50):
    seq = latrec.seq_next()
    for st in (latrec.RECORD_BEGIN, latrec.PROCESS_BEGIN, latrec.ENCODE_E3SM_BEGIN, latrec.ENCODE_E3SM_DONE):
        latrec.stamp(seq, st)
PY
}

@test "a path with incomplete instances only: nothing said of it, the command's status; report agrees it is there" {
    run --separate-stderr "$LATREC" record -q --no-sched -o "$BATS_TEST_TMPDIR/r" --stop-above 'e3/loop:total>1s' -- python3 "$PROG"
    [ "$status" -eq 0 ] || { echo "status $status: $stderr"; return 1; }
    ! grep -q 'no such' <<<"$stderr" || { echo "$stderr"; return 1; }
    run --separate-stderr "$LATREC" report -q "$BATS_TEST_TMPDIR/r"
    grep -q '^path e3/loop  instances: 50  complete: 0$' <<<"$output" || { echo "$output"; return 1; }
}

@test "a segment the path does not have: one line says nothing was judged" {
    run --separate-stderr "$LATREC" record -q --no-sched -o "$BATS_TEST_TMPDIR/r" --stop-above 'e3/loop:BOGUS>1s' -- python3 "$PROG"
    [ "$status" -eq 0 ]
    grep -qx "latrec record: --stop-above e3/loop:BOGUS>1s: no such component/leg/hop or path/segment in this run: nothing was judged" <<<"$stderr" || { echo "$stderr"; return 1; }
}
