#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# A hostile command under `latrec record`: it may replace or flood the files
# record made for it in the run directory (rings-failed.log). record never
# blocks on them, never reads without end, and still finishes the run.
#
# Needs LATREC (ctest sets it, tests/workloads/CMakeLists.txt) and jq.

setup() {
    : "${LATREC:?set LATREC to the latrec binary}"
    command -v jq >/dev/null || skip "jq is not installed (apt-get install jq)"
    WORK="$(mktemp -d /tmp/latrec-hostile-bats.XXXXXX)"
    cd "$WORK"
}

teardown() {
    cd /
    rm -rf "$WORK"
}

# record -q -o r -- sh -c SCRIPT, killed after 60 s (a hang shows as 124/137).
record_sh() {
    run timeout -s KILL 60 "$LATREC" record -q -o r -- sh -c "$1"
}

@test "rings-failed.log replaced by a link to /dev/zero: record ends, nothing counted, says so" {
    record_sh 'rm -f "$LATREC_FAILURE_LOG"; ln -s /dev/zero "$LATREC_FAILURE_LOG"'
    [ "$status" -eq 0 ]
    [[ "$output" == *"rings-failed.log: not a regular file"* ]]
    [ ! -e r/rings-failed.log ] && [ ! -L r/rings-failed.log ]
    [ "$(jq -r .state r/run.json)" != recording ]
}

@test "rings-failed.log replaced by a FIFO: record does not block on it" {
    record_sh 'rm -f "$LATREC_FAILURE_LOG"; mkfifo "$LATREC_FAILURE_LOG"'
    [ "$status" -eq 0 ]
    [[ "$output" == *"rings-failed.log: not a regular file"* ]]
    [ ! -e r/rings-failed.log ]
}

@test "rings-failed.log flooded with 20000 distinct roles: every line counted, the roles listed are capped" {
    record_sh 'i=0; while [ $i -lt 20000 ]; do printf "role%d.%d\tno room\n" $i $i; i=$((i+1)); done >>"$LATREC_FAILURE_LOG"'
    [ "$status" -eq 0 ]
    [ "$(jq -r .collectors.rings.failed_to_open r/run.json)" = 20000 ]
    [ "$(jq '.collectors.rings.failed_to_open_roles | length' r/run.json)" -le 256 ]
}

@test "a file the command names with an ESC in its ring directory: its rejection line escapes the name" {
    run --separate-stderr timeout -s KILL 60 "$LATREC" record -q -o r -- \
        sh -c 'printf junk > "$LATREC_OUTPUT_DIR/x$(printf "\033")y.1.latrec"'
    [ "$status" -eq 0 ]
    [ "$stderr" = 'latrec record: r/rings/x\x1by.1.latrec: shorter than a header: 4 bytes' ]
    [ -f r/rings/x$'\e'y.1.latrec ] # the file itself as it was named
}

@test "record -f over a run whose convert was killed (its empty .latrec-lock left in csv/ or in the run): replaced; a lock file with data in it stops it" {
    for _ in 1 2; do
        run timeout -s KILL 60 "$LATREC" record -q -o r -- true
        [ "$status" -eq 0 ]
    done
    mkdir r/csv
    echo "# latrec output directory" > r/csv/.latrec-output
    : > r/csv/.latrec-lock
    : > r/.latrec-lock # a convert --format chrome into r killed before it placed its trace.json
    run timeout -s KILL 60 "$LATREC" record -q -f -o r -- true
    [ "$status" -eq 0 ]
    [ ! -e r/csv ] && [ ! -e r/.latrec-lock ]
    mkdir r/csv
    echo "# latrec output directory" > r/csv/.latrec-output
    echo "someone's" > r/csv/.latrec-lock
    run --separate-stderr timeout -s KILL 60 "$LATREC" record -q -f -o r -- true
    [ "$status" -eq 125 ]
    [ "$stderr" = "latrec record: r/csv/.latrec-lock: not written by latrec (not listed in .latrec-output); -f deleted nothing and leaves r alone" ]
    [ "$(cat r/csv/.latrec-lock)" = "someone's" ]
}
