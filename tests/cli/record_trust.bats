#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Trust in what latrec writes and records: no output follows a symbolic
# link or replaces a file latrec did not write; a run directory in use is
# locked; -f checks everything before deleting anything; rings that could
# not be created are counted; a run latrec could not finish is said so;
# nothing latrec creates outlives the run unreported; every byte of the
# command survives into run.json.
#
# Needs LATREC, E3LOOP (ctest sets both, tests/workloads/CMakeLists.txt)
# and jq; root for the full-filesystem (tmpfs size=) tests, skipped with
# the reason otherwise.

setup_file() {
    : "${LATREC:?set LATREC to the latrec binary}"
    : "${E3LOOP:?set E3LOOP to the e3loop workload}"
    export RUN1="$BATS_FILE_TMPDIR/run1"
    "$LATREC" record -q -o "$RUN1" -- "$E3LOOP" --duration 0.3 --rate 500 >/dev/null 2>&1 || true
}

setup() {
    command -v jq >/dev/null || skip "jq is not installed (apt-get install jq)"
    [ -d "$RUN1/rings" ] || skip "the shared e3loop run could not be recorded"
    WORK="$(mktemp -d /tmp/latrec-trust-bats.XXXXXX)"
    cd "$WORK"
}

teardown() {
    cd /
    if [ -n "${BG_PID:-}" ]; then kill -KILL "$BG_PID" 2>/dev/null || true; wait "$BG_PID" 2>/dev/null || true; fi
    if [ -n "${MNT:-}" ]; then umount "$MNT" 2>/dev/null || true; fi
    rm -rf "$WORK"
}

# ---- outputs: never through a link, never over a file latrec did not write ----

@test "convert -o D: a symbolic link at D/records.csv is not followed, its target keeps its bytes" {
    mkdir D
    echo "precious" >precious.txt
    ln -s "$WORK/precious.txt" D/records.csv
    run "$LATREC" convert -q -o D "$RUN1"
    [ "$status" -eq 1 ]
    [ "$(cat precious.txt)" = precious ]
    [ -L D/records.csv ]
    [[ "$output" == *"D/records.csv: exists and latrec did not write it"* ]]
    [ "${#lines[@]}" -eq 1 ]
    # nothing half-written is left beside it
    [ -z "$(find D -name '.records.csv.*')" ]
}

@test "convert -o D: a file latrec did not write is left alone; latrec's own files are replaced" {
    mkdir D
    echo "mine" >D/rings.csv
    run "$LATREC" convert -q -o D "$RUN1"
    [ "$status" -eq 1 ]
    [ "$(cat D/rings.csv)" = mine ]
    [[ "$output" == *"D/rings.csv: exists and latrec did not write it"* ]]
    # a directory convert made: written twice, the second replaces the first
    run "$LATREC" convert -q -o E "$RUN1"
    [ "$status" -eq 0 ]
    grep -qx records.csv E/.latrec-output
    grep -qx rings.csv E/.latrec-output
    local ino
    ino="$(stat -c %i E/records.csv)"
    run "$LATREC" convert -q -o E "$RUN1"
    [ "$status" -eq 0 ]
    [ "$(stat -c %i E/records.csv)" != "$ino" ]
    [ "$(grep -cx records.csv E/.latrec-output)" -eq 1 ]
    # a hard link to latrec's own file keeps the old data (rename, not truncate)
    ln E/rings.csv keep.csv
    local before
    before="$(md5sum <keep.csv)"
    run "$LATREC" convert -q -o E "$RUN1"
    [ "$status" -eq 0 ]
    [ "$(md5sum <keep.csv)" = "$before" ]
}

@test "convert --format chrome: a symbolic link at trace.json is not followed" {
    mkdir D
    echo "precious" >precious.txt
    ln -s "$WORK/precious.txt" D/trace.json
    run "$LATREC" convert -q --format chrome -o D "$RUN1"
    [ "$status" -eq 1 ]
    [ "$(cat precious.txt)" = precious ]
    [[ "$output" == *"D/trace.json: exists and latrec did not write it"* ]]
}
