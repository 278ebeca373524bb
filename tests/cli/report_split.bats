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
# Run L: the e3/loop path across five processes: four RAN processes (pids
# 7100..7103: source on oai, outbound's ENQUEUE on oai and the rest on
# libe3.outbound, apply_ctrl on oai.ctrl) and one dApp (pid 7200: inbound,
# consume); message i = 1..3000 of RAN p (1..2000 of the first, whose
# records end 20 ms before the others') at T0 + i * 20 us + p * 3 us + a
# jitter (every 97th at the same stamp in every RAN process, received by
# the dApp p ns apart: two graces of its inbound ring started at one stamp
# and open at its end are what a pass by process cannot order, and gives
# up on), every 3rd with
# a WAIT_ENTER up to 9 ms late (its source instance waits in grace, ended
# there by another process's records), every 50th ENCODE_E3SM_DONE 3 ms
# late, every 61st 2 ms late at the dApp's PROCESS_DONE; a loop completes
# unless i is a multiple of 11 (no EMIT_ENTER), 17 (no SEND_DONE), 13 (a
# DROP), 19 (never received), 29 (no CREATE_OUTPUT) or 31 (no control
# applied): 7711 of 11000.
# Runs X and Y: 2 processes, message i of process p at T0 + i ms + p *
# 300 us to 2.5 s; in X process 0's message 2 has its SEND_DONE 1.5 s
# late; in Y process 1 ends at 1 s, its last message without SEND_DONE
# (open at its process's end, ended at the stream's): with --interval
# 100ms each comes after its interval was closed.

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
    awk -f - > "$D/spec_raw" <<'AWK'
BEGIN {
    for (p = 0; p < 4; p++) {
        b = 200 + 10 * p
        printf "ring oai.%d pid=%d tid=%d\n", b, 7100 + p, b
        printf "ring libe3.outbound.%d pid=%d tid=%d\n", b + 1, 7100 + p, b + 1
        printf "ring oai.ctrl.%d pid=%d tid=%d\n", b + 2, 7100 + p, b + 2
    }
    printf "ring libe3.inbound.300 pid=7200 tid=300\n"
    printf "ring dapp.301 pid=7200 tid=301\n"
    for (p = 0; p < 4; p++) {
        b = 200 + 10 * p; n = p == 0 ? 2000 : 3000
        for (i = 1; i <= n; i++) {
            t = 1000000000 + i * 20000 + (i % 97 ? p * 3000 + (i * 7919 + p * 31) % 4000 : 0)
            s = 100000 * p + i; m = 500000 + s
            printf "rec oai.%d RECORD_BEGIN %d %d\n", b, s, t
            printf "rec oai.%d PROCESS_BEGIN %d %d\n", b, s, t + 300
            printf "rec oai.%d ENCODE_E3SM_BEGIN %d %d\n", b, s, t + 500
            printf "rec oai.%d ENCODE_E3SM_DONE %d %d\n", b, s, t + 900 + (i % 50 == 0 ? 3000000 : 0)
            if (i % 3 == 0) printf "rec oai.%d WAIT_ENTER %d %d\n", b, s, t + 1000 + (i % 7) * 1500000
            if (i % 11) printf "rec oai.%d EMIT_ENTER %d %d %d\n", b, m, t + 1100, s
            printf "rec oai.%d ENQUEUE %d %d\n", b, m, t + 1200
            d = t + 3000 + (i * 7919) % 500
            printf "rec libe3.outbound.%d DEQUEUE %d %d\n", b + 1, m, d
            printf "rec libe3.outbound.%d ENCODE_E3AP_DONE %d %d 64\n", b + 1, m, d + 900
            if (i % 17) printf "rec libe3.outbound.%d SEND_DONE %d %d %d\n", b + 1, m, d + 1500, m
            if (i % 13 == 0) { printf "rec libe3.outbound.%d DROP %d %d\n", b + 1, m, d + 1700; continue }
            if (i % 17 == 0 || i % 19 == 0) continue
            r = d + 4000 + (i % 23) * 100 + (i % 97 ? 0 : p); k = 4 * i + p; c = 900000 + s; late = i % 61 == 0 ? 2000000 : 0
            printf "rec libe3.inbound.300 RECV %d %d\n", k, r
            printf "rec libe3.inbound.300 DECODE_E3AP_DONE %d %d %d\n", k, r + 200, m
            printf "rec dapp.301 DECODE_E3SM_BEGIN %d %d\n", k, r + 900
            printf "rec dapp.301 DECODE_E3SM_DONE %d %d\n", k, r + 1100
            printf "rec dapp.301 PROCESS_DONE %d %d\n", k, r + 1300 + late
            if (i % 29) printf "rec dapp.301 CREATE_OUTPUT %d %d %d\n", k, r + 1500 + late, c
            if (i % 31 == 0) continue
            printf "rec oai.ctrl.%d APPLY_CONTROL_DONE %d %d\n", b + 2, c, r + 9000 + late
            printf "rec oai.ctrl.%d LIVE_ON_AIR %d %d\n", b + 2, c, r + 9400 + late
        }
    }
}
AWK
    mkdir -p "$D/L"
    { grep '^ring' "$D/spec_raw"; grep '^rec' "$D/spec_raw" | sort -s -k2,2 -k5,5n; } > "$D/spec_L"
    "$GEN" "$D/L" < "$D/spec_L"
    for run in X Y; do
        awk -v run="$run" -f - > "$D/spec_raw" <<'AWK'
BEGIN {
    for (p = 0; p < 2; p++) {
        b = 200 + 10 * p
        printf "ring oai.%d pid=%d tid=%d\n", b, 7000 + p, b
        printf "ring libe3.outbound.%d pid=%d tid=%d\n", b + 1, 7000 + p, b + 1
    }
    for (p = 0; p < 2; p++) {
        b = 200 + 10 * p; n = run == "Y" && p ? 1000 : 2500
        for (i = 1; i <= n; i++) {
            t = 2000000000 + i * 1000000 + p * 300000; s = 10000 * p + i; d = t + 2000; e = d + 900
            printf "rec oai.%d ENQUEUE %d %.0f\n", b, s, t
            printf "rec libe3.outbound.%d DEQUEUE %d %.0f\n", b + 1, s, d
            printf "rec libe3.outbound.%d ENCODE_E3AP_DONE %d %.0f 64\n", b + 1, s, e
            if (run == "X" && p == 0 && i == 2) printf "rec libe3.outbound.%d SEND_DONE %d %.0f\n", b + 1, s, t + 1500000000
            else if (!(run == "Y" && p == 1 && i == n)) printf "rec libe3.outbound.%d SEND_DONE %d %.0f\n", b + 1, s, e + 1500
        }
    }
}
AWK
        mkdir -p "$D/$run"
        { grep '^ring' "$D/spec_raw"; grep '^rec' "$D/spec_raw" | sort -s -k2,2 -k5,5n; } | "$GEN" "$D/$run"
    done
}

# The leg tables and header of report --format json ARGS, read by process,
# and those of the same report read in time order (--interval 500us: the
# instances with a DROP wait 10 ms in grace, longer than 14 of its
# intervals, so that report is read in time order): equal.
same_as_in_time_order() {
    run --separate-stderr "$LATREC" report --format json "$@"
    [ "$status" -eq 0 ] || { echo "report $*: status $status: $stderr"; return 1; }
    echo "$output" > "$D/split.json"
    run --separate-stderr "$LATREC" report --format json --interval 500us "$@"
    [ "$status" -eq 0 ] || { echo "report --interval 500us $*: status $status"; return 1; }
    echo "$output" > "$D/ordered.json"
    "$PY" - "$D/split.json" "$D/ordered.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ("header", "legs", "paths"):
    assert a[k] == b[k], (k, json.dumps(a[k])[:400], json.dumps(b[k])[:400])
assert a["legs"], "no leg table"
PYEOF
}

# The header and path tables of report --format json ARGS (paths only:
# read by process, path instances and all) and those of the same report
# read in time order (--interval 500us, as above: the source instances
# with a late WAIT_ENTER wait in grace): equal; and the lines on stderr.
same_paths_as_in_time_order() {
    run --separate-stderr "$LATREC" report --format json "$@"
    [ "$status" -eq 0 ] || { echo "report $*: status $status: $stderr"; return 1; }
    echo "$output" > "$D/split.json"
    local err=$stderr
    run --separate-stderr "$LATREC" report --format json --interval 500us "$@"
    [ "$status" -eq 0 ] || { echo "report --interval 500us $*: status $status"; return 1; }
    echo "$output" > "$D/ordered.json"
    [ "$err" = "$stderr" ] || { echo "report $*: stderr differs"; diff <(echo "$err") <(echo "$stderr") | head; return 1; }
    "$PY" - "$D/split.json" "$D/ordered.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ("header", "legs", "paths"):
    assert a[k] == b[k], (k, json.dumps(a[k])[:400], json.dumps(b[k])[:400])
assert a["paths"] and not a["legs"], "not the paths alone"
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

@test "report --path and hist --path read by process: real path instances, the figures of the pass in time order" {
    for threads in 1 2; do
        for args in "" "--top 5 --explain 2" "--warm-up 5ms" "--drop-outliers --top 3" "--path-horizon 2ms" \
            "--path-horizon 5ms --top 3" "--percentiles 50,99.9"; do
            same_paths_as_in_time_order --threads "$threads" --path e3/loop $args "$D/L"
        done
        same_paths_as_in_time_order --threads "$threads" --path e3/indication "$D/L"
    done
    # what run L holds, counted from the spec: 11000 loops started, 7711
    # completed end to end; the slowest: loops with the 2 ms late
    # PROCESS_DONE (i a multiple of 61), of those i = 2989, whose total
    # 2 ms + 16.4 us + (i * 7919) % 500 + 100 * (i % 23) ns is the longest,
    # in the three RAN processes that reach it (a late ENCODE_E3SM_DONE
    # lengthens no total: the source's first stage starts it, LIVE_ON_AIR
    # ends it)
    run --separate-stderr "$LATREC" report --path e3/loop --format json --top 3 "$D/L"
    "$PY" - "$output" <<'PYEOF'
import json, sys
t = json.loads(sys.argv[1])["paths"][0]
assert t["instances"] == 11000 and t["complete"] == 7711, (t["instances"], t["complete"])
assert [e["seq"] for e in t["top"]] == [102989, 202989, 302989], [e["seq"] for e in t["top"]]
assert [e["segments"]["total"] for e in t["top"]] == [2018.991] * 3, t["top"]
PYEOF
    # hist --path, read by process on one thread and on two: the same
    # histogram, of the 7711 complete loops
    run --separate-stderr "$LATREC" hist --path e3/loop --threads 1 --format json "$D/L"
    local one=$output
    run --separate-stderr "$LATREC" hist --path e3/loop --threads 2 --format json "$D/L"
    [ "$output" = "$one" ]
    "$PY" - "$one" <<'PYEOF'
import json, sys
cols = {c["name"]: c for c in json.loads(sys.argv[1])["columns"]}
# the 154 loops (of 7711) with i a multiple of 50: 3 ms in the source's
# last hop, and ENQUEUE before ENCODE_E3SM_DONE (a regression, not counted)
late, handoff = cols["ENCODE_E3SM_BEGIN->ENCODE_E3SM_DONE"], cols["ENCODE_E3SM_DONE->ENQUEUE"]
assert late["over"] == 154 and handoff["count"] == 7711 - 154 and handoff["regressions"] == 154, (late, handoff)
assert all(c["count"] == 7711 for n, c in cols.items() if n != "ENCODE_E3SM_DONE->ENQUEUE"), cols
PYEOF
}

@test "report and hist of every leg read by process: five tables, the figures of the pass in time order" {
    for threads in 1 2; do
        for args in "" "--top 3 --explain 2" "--warm-up 5ms" "--drop-outliers"; do
            same_as_in_time_order --threads "$threads" $args "$D/L"
        done
    done
    # what run L holds, counted from the spec: per RAN message, source and
    # outbound instances (outbound complete unless i % 17 == 0); received
    # unless i is a multiple of 13, 17 or 19 (inbound, consume: complete
    # unless i % 29 == 0); control applied unless i % 31 == 0 too
    run --separate-stderr "$LATREC" report --format json "$D/L"
    "$PY" - "$output" <<'PYEOF'
import json, sys
want = {}
def add(leg, complete):
    n, c = want.get(leg, (0, 0))
    want[leg] = (n + 1, c + complete)
for p in range(4):
    for i in range(1, (2000 if p == 0 else 3000) + 1):
        add("oai/source", 1)
        add("libe3/outbound", i % 17 != 0)
        if i % 13 == 0 or i % 17 == 0 or i % 19 == 0:
            continue
        add("libe3/inbound", 1)
        add("dapp/consume", i % 29 != 0)
        if i % 31:
            add("oai/apply_ctrl", 1)
got = {t["component"] + "/" + t["leg"]: (t["instances"], t["complete"]) for t in json.loads(sys.argv[1])["legs"]}
assert got == want, (got, want)
PYEOF
    # hist: a column per leg total, by component, then leg in the e3
    # catalog's order, on one thread and on two
    run --separate-stderr "$LATREC" hist --threads 1 --format json "$D/L"
    local one=$output
    run --separate-stderr "$LATREC" hist --threads 2 --format json "$D/L"
    [ "$output" = "$one" ]
    [ "$(jq -c '[.columns[] | [.name, .count]]' <<< "$one")" = \
        '[["dapp/consume",8750],["libe3/outbound",10355],["libe3/inbound",9061],["oai/source",11000],["oai/apply_ctrl",8770]]' ]
}

@test "report --interval read by process: the time series of the pass in time order" {
    # run P's instances are run Q's (only the route of process 1's
    # first-stage stamps differs, which Q reads in time order for): P read
    # by process (its instances end within 14 intervals of 5 ms and of 1 s
    # of their start) gives Q's rows
    for threads in 1 2; do
        for iv in 5ms 1s; do
            run --separate-stderr "$LATREC" report --threads "$threads" --leg outbound --format json --interval "$iv" "$D/P"
            [ "$status" -eq 0 ]
            p=$(jq -c .intervals <<< "$output")
            run --separate-stderr "$LATREC" report --threads "$threads" --leg outbound --format json --interval "$iv" "$D/Q"
            [ "$status" -eq 0 ]
            [ "$p" = "$(jq -c .intervals <<< "$output")" ] || { echo "P and Q: other rows with --interval $iv"; return 1; }
        done
        # counted from the spec: 4 x 4000 instances, 20 us apart from T0 +
        # 20 us: one row of 1 s, 16 of 5 ms, 64 bytes each
        "$PY" - "$p" <<'PYEOF'
import json, sys
rows = json.loads(sys.argv[1])
assert sum(r["count"] for r in rows) == 16000 and len(rows) == 1, rows
PYEOF
        run --separate-stderr "$LATREC" report --threads "$threads" --leg outbound --format json --interval 5ms "$D/P"
        "$PY" - "$output" <<'PYEOF'
import json, sys
rows = json.loads(sys.argv[1])["intervals"]
assert len(rows) == 16 and sum(r["count"] for r in rows) == 16000, [r["count"] for r in rows]
assert all(r["bytes"] == 64 * r["count"] for r in rows), rows
PYEOF
    done
}

@test "report --interval: an instance ended long after its start makes the pass read in time order (counted late there)" {
    # run X's instance ended 1.5 s after its start, run Y's open at its
    # process's end 1.5 s before the stream's: late in time order, not read
    # by process
    for threads in 1 2; do
        for run in X Y; do
            run --separate-stderr "$LATREC" report --threads "$threads" --leg outbound --interval 100ms "$D/$run"
            [ "$status" -eq 0 ]
            [[ "$output" == *"  1 instances came after their interval was closed (not in the time series)"* ]] || {
                echo "$run --threads $threads: $output" | grep -E 'instances'; return 1; }
            run --separate-stderr "$LATREC" report --threads "$threads" --leg outbound --format json --interval 100ms "$D/$run"
            "$PY" - "$output" "$run" <<'PYEOF'
import json, sys
rows = json.loads(sys.argv[1])["intervals"]
n = {"X": 5000, "Y": 3500}[sys.argv[2]]
assert len(rows) == 25 and sum(r["count"] for r in rows) == n - 1, [r["count"] for r in rows]
PYEOF
        done
    done
}
