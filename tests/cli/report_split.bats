#!/usr/bin/env bats
# latrec report read by process (engine/pass_split.c) gives the figures of
# the pass in time order; and reading rings opened without a scan (a writer
# closed them cleanly) gives the bytes of the rings scanned at open.
#
# Environment (set by tests/unit/report.cmake): LATREC, GEN.
#
# Run P: 4 processes (pids 6000..6003), each an oai ring (ENQUEUE: the
# inter-arrival stamps come from another component than the instances') and
# a libe3.outbound ring; message i = 1..4000 of process p at T0 + i * 20 us
# + p * 3 us + a jitter of (i * 7919 + p * 31) % 4000 ns (the processes'
# first stages interleave unevenly); every 17th without SEND_DONE, every
# 13th with a DROP (an extra: the instance waits in grace); in processes 0
# and 1, message 1500 + p has a 3 ms DEQUEUE->ENCODE_E3AP_DONE (2 outliers
# of 16 chunks); hop values repeat across processes (the slowest tie).
# Run Q: run P with process 1's ENQUEUE stamped on a ring named app.110
# (another component): the table's stamps come by two routes, so the pass
# by process gives up and reads in time order.

bats_require_minimum_version 1.5.0

setup_file() {
    : "${LATREC:?LATREC must name the latrec binary}" "${GEN:?GEN must name gen_synthetic}"
    export D="$BATS_FILE_TMPDIR"
    if [ -x /usr/bin/python3 ]; then export PY=/usr/bin/python3; else export PY=python3; fi
    awk -f - > "$D/spec_raw" <<'AWK'
BEGIN {
    for (p = 0; p < 4; p++) {
        b = 100 + 10 * p
        printf "ring oai.%d pid=%d tid=%d\n", b, 6000 + p, b
        printf "ring libe3.outbound.%d pid=%d tid=%d\n", b + 1, 6000 + p, b + 1
    }
    for (p = 0; p < 4; p++) {
        b = 100 + 10 * p
        for (i = 1; i <= 4000; i++) {
            t = 2000000000 + i * 20000 + p * 3000 + (i * 7919 + p * 31) % 4000; s = 10000 * p + i
            d = t + 2000 + (i * 7919) % 500; e = d + 900 + i % 11
            if (p < 2 && i == 1500 + p) e += 3000000
            printf "rec oai.%d ENQUEUE %d %d\n", b, s, t
            printf "rec libe3.outbound.%d DEQUEUE %d %d\n", b + 1, s, d
            printf "rec libe3.outbound.%d ENCODE_E3AP_DONE %d %d 64\n", b + 1, s, e
            if (i % 17) printf "rec libe3.outbound.%d SEND_DONE %d %d\n", b + 1, s, e + 1500 + i % 7
            if (i % 13 == 0) printf "rec libe3.outbound.%d DROP %d %d\n", b + 1, s, e + 1700
        }
    }
}
AWK
    mkdir -p "$D/P" "$D/Q"
    { grep '^ring' "$D/spec_raw"; grep '^rec' "$D/spec_raw" | sort -s -k2,2 -k5,5n; } > "$D/spec_P" # each ring in time order
    "$GEN" "$D/P" < "$D/spec_P"
    sed -e 's/^ring oai\.110 /ring app.110 /' -e 's/^rec oai\.110 /rec app.110 /' "$D/spec_P" > "$D/spec_Q"
    "$GEN" "$D/Q" < "$D/spec_Q"
}

# The leg tables and header of report --format json ARGS, read by process,
# and those of the same report read in time order (--interval: its series
# close in stream order, so that report is read in time order): equal.
same_as_in_time_order() {
    run --separate-stderr "$LATREC" report --format json "$@"
    [ "$status" -eq 0 ] || { echo "report $*: status $status: $stderr"; return 1; }
    echo "$output" > "$D/split.json"
    run --separate-stderr "$LATREC" report --format json --interval 1s "$@"
    [ "$status" -eq 0 ] || { echo "report --interval 1s $*: status $status"; return 1; }
    echo "$output" > "$D/ordered.json"
    "$PY" - "$D/split.json" "$D/ordered.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ("header", "legs", "paths"):
    assert a[k] == b[k], (k, json.dumps(a[k])[:400], json.dumps(b[k])[:400])
assert a["legs"], "no leg table"
PYEOF
}

load guess

# report ARGS over the directories of cases $1 with flags 0 and 1, on 1 and
# 2 threads: the same status, stdout and stderr (directory names aside).
same_guessed_or_scanned() {
    local cases=$1; shift
    for threads in 1 2; do
        for f in 0 1; do
            local dirs=()
            for c in $cases; do dirs+=("$D/g$f/$c"); done
            run --separate-stderr "$LATREC" report --threads "$threads" "$@" "${dirs[@]}"
            eval "status$f=\$status out$f=\$output"
            local err=${stderr//$D\/g$f/G} out=${output//$D\/g$f/G}
            eval "err$f=\$err out$f=\$out"
        done
        [ "$status0" -eq 0 ] || { echo "$cases $* --threads $threads: status $status0"; return 1; }
        [ "$status1" -eq 0 ] || { echo "$cases $* --threads $threads: status $status1 (guessed)"; return 1; }
        [ "$out0" = "$out1" ] || { echo "$cases $* --threads $threads: stdout differs"; diff <(echo "$out0") <(echo "$out1") | head; return 1; }
        [ "$err0" = "$err1" ] || { echo "$cases $* --threads $threads: stderr differs"; diff <(echo "$err0") <(echo "$err1") | head; return 1; }
    done
}

@test "report on rings closed cleanly: the figures and lines of the rings scanned at open" {
    guess_specs
    for cases in "C" "T" "M" "M C"; do
        same_guessed_or_scanned "$cases"
        same_guessed_or_scanned "$cases" --format json --top 3
        same_guessed_or_scanned "$cases" --leg outbound --format csv
        same_guessed_or_scanned "$cases" --leg outbound --top 2 --interval 5ms
        same_guessed_or_scanned "$cases" --format html
    done
    # what the cases hold: 80 outbound instances, one without SEND_DONE (T),
    # the warning before the directories' note (M C)
    run --separate-stderr "$LATREC" report --leg outbound "$D/g1/T"
    [[ "$output" == *"libe3/outbound  instances: 80  complete: 79"* ]]
    warning_before_dirs_note report
}

@test "report: a wrong name on rings closed cleanly: the two-writer warning before the line that says so, as at open" {
    guess_specs
    wrong_names_warning_first report
}

@test "report read by process: the figures of the pass in time order" {
    for threads in 1 2; do
        for args in "--leg outbound" "--leg outbound --top 5 --explain 3" "--component libe3 --warm-up 10ms --calibrate" \
            "--leg outbound --drop-outliers --top 2" "--hop ENQUEUE:SEND_DONE --hop DEQUEUE:ENCODE_E3AP_DONE" "--top 4" \
            "--leg outbound --leg-horizon 5us --top 3"; do
            same_as_in_time_order --threads "$threads" $args "$D/P"
            same_as_in_time_order --threads "$threads" $args "$D/Q"
        done
    done
    # what run P holds, counted from the spec: 16,000 instances, 235 of each
    # process's 4000 without SEND_DONE (i % 17 == 0); the gaps between the
    # 16,000 ENQUEUE stamps; the two 3 ms hops are its outliers and its
    # slowest (process 1's first: its ENQUEUE->DEQUEUE is longer)
    run "$LATREC" report --leg outbound --format json --top 3 "$D/P"
    "$PY" - "$output" <<'PYEOF'
import json, sys
t = json.loads(sys.argv[1])["legs"][0]
assert t["instances"] == 16000 and t["complete"] == 16000 - 4 * 235, (t["instances"], t["complete"])
rows = {r["hop"]: r for r in t["hops"]}
assert rows["inter-arrival"]["count"] == 15999, rows["inter-arrival"]["count"]
assert rows["DEQUEUE->ENCODE_E3AP_DONE"]["outliers"] == 2, rows["DEQUEUE->ENCODE_E3AP_DONE"]
assert [e["seq"] for e in t["top"][:2]] == [11501, 1500], t["top"]
PYEOF
}
