#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
load nobody
# latrec record --stop-above and --on-threshold: a planted slow instance
# (tests/cli/slow_leg.c: libE3's outbound leg stamped fast every 1 ms, one
# seq slept in) stops the run with status 193, run.json names exactly that
# seq with a value inside the bounds the program measured itself, the
# program never reaches its end, the action runs once; a run with no
# crossing never runs it and keeps the command's status.
#
# A path: the first e3/loop instance over 1 us stops the bundled e3loop;
# its total is the one convert's paths.csv gives that instance. README's
# example, run as written.
#
# Needs: LATREC, SLOW_LEG and E3LOOP in the environment
# (tests/unit/threshold.cmake), jq; root for the trace capture (-t) and for
# the run as nobody.

setup_file() {
    : "${LATREC:?set LATREC to the latrec binary}"
    : "${SLOW_LEG:?set SLOW_LEG to tests/cli/slow_leg}"
    : "${E3LOOP:?set E3LOOP to the e3loop workload}"
}

setup() {
    command -v jq >/dev/null || skip "jq is not installed (apt-get install jq)"
    WORK="$(mktemp -d /tmp/latrec-threshold-bats.XXXXXX)"
    cd "$WORK"
}

teardown() {
    cd /
    rm -rf "$WORK"
}

# The action of every crossing test: one line per run of it, with the
# instance as latrec hands it over.
ACTION='echo "$LATREC_THRESHOLD_SEQ $LATREC_THRESHOLD_VALUE_NS $LATREC_THRESHOLD_HOP $LATREC_THRESHOLD_RING" >>"$PWD/action.log"'

# check_stopped DIR SEQ: the run in DIR stopped on seq SEQ of
# libe3/outbound; its total within the bounds slow_leg wrote to slow.txt
# (INNER <= total <= OUTER, both measured by the program around its own
# stamps); the program never reached its end; the action ran once with the
# same instance.
check_stopped() {
    local dir=$1 want=$2 seq inner outer end value
    read -r seq inner outer end <slow.txt
    [ "$seq" -eq "$want" ]
    [ ! -e end ] # the program was stopped before its last seq
    jq -e --argjson s "$want" '.threshold.seq == $s and .threshold.kind == "leg" and
        .threshold.component == "libe3" and .threshold.leg == "outbound" and .threshold.stopped and
        .exit.stopped_by == "threshold" and .exit.status == 193' "$dir/run.json"
    value=$(jq -r .threshold.value_ns "$dir/run.json")
    [ "$value" -ge "$inner" ] && [ "$value" -le "$outer" ]
    # the end stamp is the program's own clock read right before END
    [ "$(jq -r .threshold.end_mono_ns "$dir/run.json")" -le "$end" ]
    jq -e '.threshold.detected_mono_ns >= .threshold.end_mono_ns and
        .threshold.signalled_mono_ns >= .threshold.detected_mono_ns' "$dir/run.json"
    ring=$(jq -r .threshold.ring "$dir/run.json")
    [ -e "$dir/rings/$ring.latrec" ]
    [ "$(wc -l <action.log)" -eq 1 ]
    [ "$(cat action.log)" = "$want $value total $ring" ]
}

@test "a slow instance stops record --stop-above: status 193, run.json and the summary name it, the action ran once" {
    run "$LATREC" record -o r --stop-above 'libe3/outbound:total>150ms' --on-threshold "$ACTION" -- \
        "$SLOW_LEG" 60000 40 400 slow.txt end 0
    echo "$output"
    [ "$status" -eq 193 ]
    check_stopped r 40
    # one line naming it, one with its --explain sentence
    [[ "$output" == *"--stop-above libe3/outbound:total>150ms crossed by seq 40 of libe3/outbound: total "* ]]
    grep -Eq '^latrec record: seq 40 \(pid [0-9]+\), total [0-9.]+ us, started at [0-9.]+ s: DEQUEUE->ENCODE_E3AP_DONE took [0-9.]+ us \([0-9]+% of it\)\. Thread [0-9]+: ' <<<"$output"
    [[ "$output" == *"(stopped on --stop-above: exit 193)"* ]]
    jq -e '.threshold.on_threshold.ran and .threshold.on_threshold.code == 0' r/run.json
    jq -e '.state == "finished" and .options.stop_above == "libe3/outbound:total>150ms"' r/run.json
    # the sentence is report --explain's for the same instance, word for word
    run "$LATREC" report -q --component libe3 --leg outbound --explain 1 r
    line=$(grep '^  1\. seq 40 ' <<<"$output")
    [[ "$line" == *": $(jq -r .threshold.explain r/run.json)." ]]
    # the run is whole: report reads it and finds the same instance the slowest
    run "$LATREC" report --component libe3 --leg outbound --top 1 --unit ns r
    [[ "$output" == *"$(jq -r .threshold.value_ns r/run.json)"* ]]
}

@test "--stop-above on one hop, in the CSV spelling A__B" {
    run "$LATREC" record -q -o r --stop-above 'libe3/outbound:DEQUEUE__ENCODE_E3AP_DONE>150ms' -- \
        "$SLOW_LEG" 60000 25 300 slow.txt end 0
    [ "$status" -eq 193 ]
    [[ "$output" != *"crossed by"* ]] # -q: no summary
    [ ! -e end ]
    read -r seq inner outer end <slow.txt
    jq -e '.threshold.seq == 25 and .threshold.hop == "DEQUEUE->ENCODE_E3AP_DONE"' r/run.json
    # the program slept 300 ms between those two stamps
    value=$(jq -r .threshold.value_ns r/run.json)
    [ "$value" -ge 300000000 ] && [ "$value" -le "$outer" ]
}

@test "a path: the first e3/loop instance over the limit stops e3loop; convert finds the same total" {
    run "$LATREC" record -o r --stop-above 'e3/loop:total>1us' --on-threshold "$ACTION" -- \
        "$E3LOOP" --duration 60 --rate 200
    echo "$output"
    [ "$status" -eq 193 ]
    jq -e '.threshold.kind == "path" and .threshold.path == "e3/loop" and .threshold.segment == "total" and
        .threshold.value_ns > 1000 and .exit.stopped_by == "threshold" and .threshold.stopped' r/run.json
    [[ "$output" == *"crossed by seq $(jq -r .threshold.seq r/run.json) of path e3/loop: total "* ]]
    "$LATREC" convert -q -o conv r
    read -r start seq < <(jq -r '"\(.threshold.start_mono_ns) \(.threshold.seq)"' r/run.json)
    # paths.csv: the row of the instance that started then (total in us, 3 decimals)
    got=$(awk -F, -v start="$start" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        $1 == "e3/loop" && $(h["start_ns"]) == start { print $(h["source_seq"]), $(h["total_us"]) }' conv/paths.csv)
    [ "$got" = "$seq $(awk -v v="$(jq -r .threshold.value_ns r/run.json)" 'BEGIN { printf "%.3f", v / 1000 }')" ]
    [ "$(wc -l <action.log)" -eq 1 ]
    [[ "$(cat action.log)" == "$seq $(jq -r .threshold.value_ns r/run.json) total "* ]]
}

@test "a user catalog (--catalog FILE): its leg and hop names, a leg without extras" {
    # slow_leg's stage ids under other names; the leg has no extra stages
    printf '%s\n' 'catalog slow' 'stage 0x21 TAKE' 'stage 0x22 START' 'stage 0x23 DONE' 'stage 0x24 SENT' \
        'leg work TAKE START DONE SENT' >slow.catalog
    run "$LATREC" record -o r --catalog slow.catalog --stop-above 'libe3/work:START->DONE>150ms' -- \
        "$SLOW_LEG" 60000 30 300 slow.txt end 0
    echo "$output"
    [ "$status" -eq 193 ]
    [ ! -e end ]
    read -r seq inner outer end <slow.txt
    jq -e '.threshold.seq == 30 and .threshold.component == "libe3" and .threshold.leg == "work" and
        .threshold.hop == "START->DONE"' r/run.json
    value=$(jq -r .threshold.value_ns r/run.json)
    [ "$value" -ge 300000000 ] && [ "$value" -le "$outer" ]
    [[ "$output" == *": START->DONE took "* ]]
}

@test "latrec top -- COMMAND hands --stop-above to record: the same stop, status 193" {
    run "$LATREC" top -q -o r --stop-above 'libe3/outbound:total>150ms' --on-threshold "$ACTION" -- \
        "$SLOW_LEG" 60000 40 400 slow.txt end 0
    echo "$output"
    [ "$status" -eq 193 ]
    check_stopped r 40
    # top's final block counted the instances up to the stop
    [[ "$output" == *"outbound"* ]]
}

@test "the last instance over the limit, the command ended on its own: still 193, the action ran, stopped false" {
    run "$LATREC" record -o r --stop-above 'libe3/outbound:total>100ms' --on-threshold "$ACTION" -- \
        "$SLOW_LEG" 200 200 200 slow.txt end 4
    [ "$status" -eq 193 ]
    [ -e end ] # it ran to its end
    read -r seq inner outer end <slow.txt
    jq -e '.threshold.seq == 200 and (.threshold.stopped | not) and .exit.code == 4 and .exit.status == 193 and
        (.exit | has("stopped_by") | not)' r/run.json
    value=$(jq -r .threshold.value_ns r/run.json)
    [ "$value" -ge "$inner" ] && [ "$value" -le "$outer" ]
    [ "$(wc -l <action.log)" -eq 1 ]
    [[ "$output" == *"the command exited 4 (crossed --stop-above: exit 193)"* ]]
}

@test "no crossing: the action never runs, the command's status, no threshold in run.json" {
    run "$LATREC" record -o r --stop-above 'libe3/outbound:total>10s' --on-threshold "$ACTION" -- \
        "$SLOW_LEG" 300 20 200 slow.txt end 3
    [ "$status" -eq 3 ]
    [ -e end ]
    [ ! -e action.log ]
    jq -e 'has("threshold") | not' r/run.json
    jq -e '.exit.code == 3 and (.exit | has("stopped_by") | not)' r/run.json
    [[ "$output" != *"crossed"* ]]
}

@test "a spec naming nothing in the run: one line, nothing judged, the command's status" {
    run "$LATREC" record -o r --stop-above 'libe3/nosuch:total>1ms' --on-threshold "$ACTION" -- \
        "$SLOW_LEG" 100 10 200 slow.txt end 0
    [ "$status" -eq 0 ]
    [ "$(grep -c 'latrec record: --stop-above libe3/nosuch:total>1ms: no such component/leg/hop or path/segment in this run' <<<"$output")" -eq 1 ]
    [ ! -e action.log ]
}

@test "malformed --stop-above and --on-threshold alone: usage errors (125), nothing run" {
    run "$LATREC" record -o r --stop-above 'libe3/outbound:total' -- "$SLOW_LEG" 10 0 0 slow.txt end 0
    [ "$status" -eq 125 ]
    [[ "$output" == *"--stop-above takes 'COMPONENT/LEG:HOP>LIMIT'"* ]]
    run "$LATREC" record -o r --stop-above 'libe3/outbound:total:p99>1ms' -- "$SLOW_LEG" 10 0 0 slow.txt end 0
    [ "$status" -eq 125 ]
    [[ "$output" == *"one instance has no figure"* ]]
    run "$LATREC" record -o r --stop-above 'libe3/outbound:total<1ms' -- "$SLOW_LEG" 10 0 0 slow.txt end 0
    [ "$status" -eq 125 ]
    [[ "$output" == *"'>' only"* ]]
    run "$LATREC" record -o r --stop-above 'libe3/outbound:total>1' -- "$SLOW_LEG" 10 0 0 slow.txt end 0
    [ "$status" -eq 125 ]
    [[ "$output" == *"needs a unit"* ]]
    run "$LATREC" record -o r --on-threshold true -- "$SLOW_LEG" 10 0 0 slow.txt end 0
    [ "$status" -eq 125 ]
    [[ "$output" == *"--on-threshold needs --stop-above"* ]]
    [ ! -e r ] && [ ! -e end ]
}

@test "-t: the trace capture stops at the crossing, its tail what led up to it" {
    [ "$(id -u)" -eq 0 ] || skip "needs root for tracefs"
    grep -qw tracefs /proc/filesystems || skip "the kernel has no tracefs"
    run "$LATREC" record -t -o r --stop-above 'libe3/outbound:total>150ms' --on-threshold "$ACTION" -- \
        "$SLOW_LEG" 60000 40 400 slow.txt end 0
    [ "$status" -eq 193 ]
    jq -e .tracefs.available r/run.json >/dev/null ||
        skip "this run had no tracefs: $(jq -r .tracefs.reason r/run.json)"
    check_stopped r 40
    cut=$(jq -r .collectors.trace.cut_mono_ns r/run.json)
    jq -e '.collectors.trace.cut_mono_ns >= .threshold.end_mono_ns' r/run.json
    # no event after the cut (the stop marker aside), though the program
    # was signalled and died after it; the program's own switches before it
    awk -v cut="$cut" '$0 !~ / print: / && $1 > cut { bad++ } END { exit bad > 0 }' r/trace.txt
    tid=$(jq -r .threshold.tid r/run.json)
    grep -q "prev_pid=$tid " r/trace.txt
    tail -n 1 r/trace.txt | grep -q 'print: latrec-stop'
}

@test "as nobody (no tracefs, no BPF): the same stop, the sentence says why there is no scheduler data" {
    command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
    [ "$(id -u)" -eq 0 ] || skip "needs root to become nobody"
    chmod 755 "$WORK"
    mkdir -m 777 "$WORK/nobody"
    nobody_programs "$WORK/bin" LATREC SLOW_LEG ||
        skip "nobody cannot reach $WORK/bin (a temporary directory closed to others)"
    cd "$WORK/nobody"
    run setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$LATREC" record -o r --stop-above 'libe3/outbound:total>150ms' --on-threshold "$ACTION" -- \
        "$SLOW_LEG" 60000 40 400 slow.txt end 0
    echo "$output"
    [ "$status" -eq 193 ]
    check_stopped r 40
    # the sentence gives run.json's reason, as report does for the finished run
    jq -e '.threshold.explain | test("Thread [0-9]+: scheduler data n/a: ") and (test("still being recorded") | not)' \
        r/run.json
}

@test "README's --stop-above example, as written: the planted 25 ms message, seq 2000, stops the run and is explained" {
    local readme="$BATS_TEST_DIRNAME/../../README.md"
    [ -f "$readme" ] || skip "no README.md beside the tests"
    "${PY:-python3}" - "$readme" >example.sh <<'PYEOF'
import re, sys
blocks = [b for b in re.findall(r"```sh\n(.*?)```", open(sys.argv[1]).read(), re.S) if "--stop-above" in b]
assert len(blocks) == 1, blocks
sys.stdout.write(blocks[0])
PYEOF
    grep -q 'build/tests/workloads/e3loop' example.sh
    mkdir -p build/tests/workloads
    ln -s "$E3LOOP" build/tests/workloads/e3loop
    run --separate-stderr env PATH="$(dirname "$LATREC"):$PATH" bash -eo pipefail example.sh
    [ "$status" -eq 193 ]
    jq -e '.threshold.seq == 2000 and .threshold.kind == "path" and .threshold.value_ns > 25000000' slow/run.json
    # the action's report: the slowest instance is the planted one, its sleep the hop
    [[ "$output" == *"1. seq 2000 "*"ENQUEUE->DEQUEUE took "* ]]
}
