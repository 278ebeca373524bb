#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Commands that write files, cut short: a file-size limit (ulimit -f) fails
# the write with one line naming the file and the reason, and a signal that
# ends the process (not only ^C: SIGALRM from timeout -s ALRM, SIGUSR1)
# leaves no .NAME.XXXXXX temporary behind; what latrec had written before
# stays as it was (compared byte for byte).
#
# A hanging record --on-threshold command is stopped with record.
#
# latrec top whose standard output goes away (a pipe's reader exits, a
# full device) stops the command it launched and lets record finalise.
#
# Needs: LATREC, E3LOOP (ctest sets both), jq; strace for the mid-write
# signals (skipped with the reason without it).

setup_file() {
    : "${LATREC:?set LATREC to the latrec binary}"
    : "${E3LOOP:?set E3LOOP to the e3loop workload}"
    command -v jq >/dev/null || skip "jq is not installed (apt-get install jq): run.json cannot be checked"
    export RUN="$BATS_FILE_TMPDIR/run"
    "$LATREC" record -q --no-sched -o "$RUN" -- "$E3LOOP" --duration 1 --rate 500
}

teardown() {
    if [ -n "${BG_PID:-}" ]; then
        kill "$BG_PID" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$BG_PID" 2>/dev/null || break; sleep 0.05; done
        kill -KILL "$BG_PID" 2>/dev/null || true
        wait "$BG_PID" 2>/dev/null || true
    fi
    if [ -s "${BATS_TEST_TMPDIR}/action.pid" ]; then kill -KILL "$(cat "$BATS_TEST_TMPDIR/action.pid")" 2>/dev/null || true; fi
    # a failed top test may leave its record running: stopped here
    local j pid
    for j in "$BATS_TEST_TMPDIR"/*/run.json; do
        [ -f "$j" ] && [ "$(jq -r .state "$j")" = recording ] || continue
        pid=$(jq -r .latrec_pid "$j")
        [ "$pid" -gt 0 ] 2>/dev/null && kill -INT "$pid" 2>/dev/null || true
    done
}

# The hidden names in DIR but latrec's own list: the temporaries left.
temporaries() {
    (cd "$1" && ls -A | grep '^\.' | grep -v '^\.latrec-output$' || true)
}

@test "convert under a file-size limit: the file and the reason named, exit 1, the previous files kept whole" {
    "$LATREC" convert -q "$RUN" -o "$BATS_TEST_TMPDIR/csv"
    before=$(cd "$BATS_TEST_TMPDIR/csv" && md5sum ./*.csv)
    size=$(stat -c %s "$BATS_TEST_TMPDIR/csv/records.csv")
    [ "$size" -gt 65536 ] # the limit below is smaller than records.csv
    run --separate-stderr bash -c 'ulimit -f 64 && exec "$@"' - "$LATREC" convert -q "$RUN" -o "$BATS_TEST_TMPDIR/csv"
    [ "$status" -eq 1 ] || { echo "status $status: $stderr"; return 1; }
    grep -q "^latrec convert: $BATS_TEST_TMPDIR/csv/[a-z0-9]*\.csv: File too large$" <<<"$stderr" || { echo "$stderr"; return 1; }
    [ -z "$(temporaries "$BATS_TEST_TMPDIR/csv")" ] || { temporaries "$BATS_TEST_TMPDIR/csv"; return 1; }
    after=$(cd "$BATS_TEST_TMPDIR/csv" && md5sum ./*.csv)
    [ "$before" = "$after" ]
}

@test "report -o under a file-size limit: the file and the reason named, no temporary" {
    run --separate-stderr bash -c 'ulimit -f 16 && exec "$@"' - "$LATREC" report -q "$RUN" --format html -o "$BATS_TEST_TMPDIR/r.html"
    [ "$status" -eq 1 ] || { echo "status $status: $stderr"; return 1; }
    [ "$stderr" = "latrec report: $BATS_TEST_TMPDIR/r.html: File too large" ] || { echo "$stderr"; return 1; }
    [ ! -e "$BATS_TEST_TMPDIR/r.html" ]
    [ -z "$(temporaries "$BATS_TEST_TMPDIR")" ]
}

# convert with every write(2) slowed down (strace), SIG sent once a
# temporary exists: it dies of SIG, no temporary stays.
convert_killed_by() {
    local sig=$1 out="$BATS_TEST_TMPDIR/$1"
    strace -f -qq -o /dev/null -e trace=write -e inject=write:delay_enter=300000 \
        "$LATREC" convert -q "$RUN" -o "$out" &
    BG_PID=$!
    for _ in $(seq 1 200); do
        compgen -G "$out/.*.??????" >/dev/null && break
        sleep 0.05
    done
    compgen -G "$out/.*.??????" >/dev/null || { echo "no temporary file appeared"; return 1; }
    kill "-$sig" "$(pgrep -P "$BG_PID")" # the traced latrec, strace's child
    local rc=0
    wait "$BG_PID" || rc=$?
    BG_PID=
    [ "$rc" -eq $((128 + $(kill -l "$sig"))) ] || { echo "$sig: exit $rc"; return 1; }
    [ -z "$(temporaries "$out")" ] || { echo "$sig left:" $(temporaries "$out"); return 1; }
}

@test "convert ended by SIGALRM or SIGUSR1 mid-write: no temporary left, it dies of the signal" {
    command -v strace >/dev/null || skip "strace is not installed (it slows convert's writes down here)"
    convert_killed_by ALRM
    convert_killed_by USR1
}

@test "top launching, its reader gone (| head -n 1): the command stopped, the run finalised, exit 141" {
    out="$BATS_TEST_TMPDIR/gone"
    set +o pipefail
    # --duration 0: the loop runs until stopped; a top that died of SIGPIPE
    # would leave record and the loop running, the run still recording
    rc=$(timeout 60 bash -c '"$@" 2>/dev/null | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}"' - \
        "$LATREC" top --format json --interval 100ms -o "$out" --no-sched -- "$E3LOOP" --duration 0 --rate 500)
    [ "$rc" -eq 141 ] || { echo "top exited $rc"; return 1; }
    [ "$(jq -r .state "$out/run.json")" = finished ]
    [ "$(jq -r .exit.stopped_by "$out/run.json")" = SIGINT ]
    # neither record nor the command runs on
    for k in pid latrec_pid; do
        pid=$(jq -r ".$k" "$out/run.json")
        [ "$pid" -gt 0 ] && ! kill -0 "$pid" 2>/dev/null || { echo "$k $pid still runs"; return 1; }
    done
}

@test "top with standard output on a full device: one line says so, exit 1, the run finalised" {
    [ -w /dev/full ] || skip "/dev/full is not writable here"
    out="$BATS_TEST_TMPDIR/full"
    run --separate-stderr timeout 60 bash -c '"$@" >/dev/full' - "$LATREC" top --interval 100ms -o "$out" \
        --no-sched -- "$E3LOOP" --duration 0 --rate 500
    [ "$status" -eq 1 ] || { echo "status $status: $stderr"; return 1; }
    grep -qx 'latrec top: standard output: No space left on device' <<<"$stderr" || { echo "$stderr"; return 1; }
    [ "$(jq -r .state "$out/run.json")" = finished ]
}

@test "record --on-threshold hanging: a SIGTERM to record reaches it and its child, record ends 193" {
    out="$BATS_TEST_TMPDIR/hang"
    pidf="$BATS_TEST_TMPDIR/action.pid"
    # a slow dequeue in every 50th message crosses 5 ms; the action then
    # waits on a child that never ends by itself
    "$LATREC" record -q --no-sched -o "$out" --stop-above 'libe3/outbound:total>5ms' \
        --on-threshold "sleep 600 & echo \$! > '$pidf'; wait" -- \
        "$E3LOOP" --duration 0 --rate 500 --sleep-hop dequeue:10ms/50 &
    BG_PID=$!
    for _ in $(seq 1 1200); do [ -s "$pidf" ] && break; sleep 0.05; done
    [ -s "$pidf" ] || { echo "the action never ran"; return 1; }
    kill -TERM "$BG_PID" # record alone: the action is not signalled by anyone else
    for _ in $(seq 1 1200); do kill -0 "$BG_PID" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$BG_PID" 2>/dev/null && { echo "record still waits for its action"; return 1; }
    rc=0
    wait "$BG_PID" || rc=$?
    BG_PID=
    [ "$rc" -eq 193 ] || { echo "record exited $rc"; return 1; }
    [ "$(jq -r .threshold.on_threshold.ran "$out/run.json")" = true ]
    [ "$(jq -r .threshold.on_threshold.signal_name "$out/run.json")" = SIGTERM ]
    # the action's child is gone too (or a zombie, when pid 1 here reaps late)
    st=$(awk '{ print $3 }' "/proc/$(cat "$pidf")/stat" 2>/dev/null || true)
    [ -z "$st" ] || [ "$st" = Z ] || { echo "the action's child is in state $st"; return 1; }
}
