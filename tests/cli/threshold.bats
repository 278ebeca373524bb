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
# its total is the one convert's paths.csv gives that instance.
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
    [ "$(grep -c 'latrec: --stop-above libe3/nosuch:total>1ms: no such component/leg/hop or path/segment in this run' <<<"$output")" -eq 1 ]
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

