#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# latrec convert --format chrome: the timeline, checked by a checker of our
# own (tests/cli/trace_check.py: nesting, async pairing, flows, names, the
# scheduler tracks against report's on-CPU figures) and loaded by a
# maintained trace-event model (@tracerbench/trace-model, npm), on the
# libE3 fixture and on the bundled E3 loop recorded with the scheduler
# collector.
#
# Needs: LATREC, E3LOOP, FIXTURES (ctest sets them), JS_DIR (where
# tests/js/install.sh puts the npm tools). Root for the scheduler collector;
# without it, or without npm, the tests that need them skip with the reason.

setup_file() {
    : "${LATREC:?set LATREC}" "${E3LOOP:?set E3LOOP}" "${FIXTURES:?set FIXTURES}" "${JS_DIR:?set JS_DIR}"
    if [ -x /usr/bin/python3 ]; then export PY=/usr/bin/python3; else export PY=python3; fi
    export CHECK="$BATS_TEST_DIRNAME/trace_check.py"
    export RUN="$BATS_FILE_TMPDIR/e3"
    local st=0
    "$LATREC" record -q --require-sched -o "$RUN" -- "$E3LOOP" --duration 2 \
        >"$BATS_FILE_TMPDIR/record.out" 2>&1 || st=$?
    echo "$st" >"$BATS_FILE_TMPDIR/record.status"
    st=0
    "$BATS_TEST_DIRNAME/../js/install.sh" "$JS_DIR" >"$BATS_FILE_TMPDIR/js.out" 2>&1 || st=$?
    echo "$st" >"$BATS_FILE_TMPDIR/js.status"
}

need_run() {
    [ "$(cat "$BATS_FILE_TMPDIR/record.status")" -eq 0 ] ||
        skip "E3 run with the scheduler collector unavailable: $(head -1 "$BATS_FILE_TMPDIR/record.out")"
}

need_js() {
    [ "$(cat "$BATS_FILE_TMPDIR/js.status")" -eq 0 ] ||
        skip "trace-event model (npm) unavailable: $(head -1 "$BATS_FILE_TMPDIR/js.out")"
}

other() { "$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["otherData"][sys.argv[2]])' "$@"; }

@test "timeline of the E3 loop: no partial overlap, flows paired (paths across processes), all named, scheduler tracks match report's on-CPU within 1%" {
    need_run
    run --separate-stderr "$LATREC" convert --format chrome "$RUN"
    [ "$status" -eq 0 ]
    [ -s "$RUN/trace.json" ] && [ ! -e "$RUN/csv" ]
    "$LATREC" report -q "$RUN" --format json > "$BATS_TEST_TMPDIR/r.json"
    run "$PY" "$CHECK" --strict-names "$RUN/trace.json" "$BATS_TEST_TMPDIR/r.json"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"(0 partial overlaps)"* ]]
    # scheduler slices present, flows present, every hop with a split compared
    n_sched=$(grep -oE '[0-9]+ sched slices' <<<"$output" | cut -d' ' -f1)
    n_flows=$(grep -oE '[0-9]+ flows' <<<"$output" | cut -d' ' -f1)
    [ "$n_sched" -gt 1000 ] && [ "$n_flows" -gt 100 ]
    # path flows (catalog paths e3/loop, e3/indication) cross the two processes
    n_cross=$(grep -oE '\([0-9]+ across processes\)' <<<"$output" | grep -oE '[0-9]+')
    [ "$n_cross" -gt 100 ]
    [ "$(other "$RUN/trace.json" paths)" -gt 100 ]
    # every hop of the trace compared with its report row (E3: 12 chain hops)
    cmp=$(grep -oE 'on-CPU of [0-9]+/[0-9]+ hops' <<<"$output" | grep -oE '[0-9]+/[0-9]+')
    [ "${cmp%/*}" = "${cmp#*/}" ] && [ "${cmp%/*}" -ge 8 ]
    # processes named after the program and their components, threads after
    # their ring roles and comm
    "$PY" - "$RUN/trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
pn = sorted(e['args']['name'] for e in ev if e['name'] == 'process_name')
tn = sorted(e['args']['name'] for e in ev if e['name'] == 'thread_name')
assert pn == ['e3loop [dapp, libe3]', 'e3loop [libe3, oai]'], pn
for role in ('dapp', 'libe3.inbound', 'libe3.outbound', 'oai', 'oai.ctrl'):
    assert any(n.startswith(role + ' (') for n in tn), (role, tn)
PY
}

@test "timeline of the E3 loop loads in @tracerbench/trace-model with the checker's counts" {
    need_run
    need_js
    [ -s "$RUN/trace.json" ] || "$LATREC" convert -q --format chrome "$RUN"
    run "$PY" "$CHECK" "$RUN/trace.json"
    [ "$status" -eq 0 ]
    mine=$output
    run env NODE_PATH="$JS_DIR/node_modules" node "$BATS_TEST_DIRNAME/../js/trace_model_check.js" "$RUN/trace.json"
    echo "$output"
    [ "$status" -eq 0 ]
    tot=${lines[-1]}
    # same processes, threads, complete slices, async slices and flows
    [[ "$mine" == "$(sed -E 's/.*processes=([0-9]+).*/\1/' <<<"$tot") processes, "* ]]
    [[ "$mine" == *", $(sed -E 's/.*threads=([0-9]+).*/\1/' <<<"$tot") threads, "* ]]
    [[ "$mine" == *", $(sed -E 's/.*complete=([0-9]+).*/\1/' <<<"$tot") slices "* ]]
    [[ "$mine" == *", $(sed -E 's/.*async=([0-9]+).*/\1/' <<<"$tot") async slices, "* ]]
    [[ "$mine" == *", $(sed -E 's/.*flows=([0-9]+).*/\1/' <<<"$tot") flows "* ]]
}

@test "timeline of the libE3 fixture: checker and trace-event model agree; no scheduler data is said" {
    d="$BATS_TEST_TMPDIR/b1"
    cp -r "$FIXTURES/libe3/b1_loop_clean" "$d"
    run --separate-stderr "$LATREC" convert --format chrome "$d"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"trace.json: no scheduler tracks: "* ]]
    [ -s "$d/trace.json" ]
    [[ "$(other "$d/trace.json" sched)" == "not a run of latrec record" ]]
    run "$PY" "$CHECK" "$d/trace.json"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *", 0 sched slices" ]]
    need_js
    mine=$output
    run env NODE_PATH="$JS_DIR/node_modules" node "$BATS_TEST_DIRNAME/../js/trace_model_check.js" "$d/trace.json"
    [ "$status" -eq 0 ]
    [[ "$mine" == *", $(sed -E 's/.*async=([0-9]+).*/\1/' <<<"${lines[-1]}") async slices, "* ]]
}

@test "timeline: <run>/trace.json by default, -o DIR puts it in DIR" {
    d="$BATS_TEST_TMPDIR/b1"
    cp -r "$FIXTURES/libe3/b1_loop_clean" "$d"
    "$LATREC" convert -q --format chrome "$d"
    [ -s "$d/trace.json" ] && [ ! -e "$d/csv" ]
    "$LATREC" convert -q --format chrome -o "$BATS_TEST_TMPDIR/out" "$d"
    [ "$(ls "$BATS_TEST_TMPDIR/out")" = "trace.json" ]
    cmp "$d/trace.json" "$BATS_TEST_TMPDIR/out/trace.json"
}

@test "timeline --max-events: stops before the budget, says where and what was cut, stays valid" {
    d="$BATS_TEST_TMPDIR/b1"
    cp -r "$FIXTURES/libe3/b1_loop_clean" "$d"
    "$LATREC" convert -q --format chrome -o "$BATS_TEST_TMPDIR/all" "$d"
    total=$(other "$BATS_TEST_TMPDIR/all/trace.json" instances)
    run --separate-stderr "$LATREC" convert -q --format chrome --max-events 2000 "$d"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"trace.json: stopped at "*" s (--max-events 2000): "*" instances and 0 scheduler slices after it are not in the timeline"* ]]
    n=$("$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["traceEvents"]))' "$d/trace.json")
    [ "$n" -le 2000 ] && [ "$n" -gt 1500 ]
    kept=$(other "$d/trace.json" instances)
    cut=$(other "$d/trace.json" instances_cut)
    [ "$cut" -gt 0 ] && [ $((kept + cut)) -eq "$total" ]
    [[ "$stderr" == *": $cut instances and"* ]]
    run "$PY" "$CHECK" "$d/trace.json"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "timeline --window FROM:TO: only instances that begin inside, scheduler slices clipped to it" {
    need_run
    run --separate-stderr "$LATREC" convert --format chrome --window 500ms:1s -o "$BATS_TEST_TMPDIR/w" "$RUN"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"window 0.500000 s to 1.000000 s: "*" instances outside it left out"* ]]
    f="$BATS_TEST_TMPDIR/w/trace.json"
    "$PY" - "$f" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
legs = [e for e in ev if e['ph'] in 'bi' and e.get('cat') == 'leg' and e['args'].get('kind', 'leg') == 'leg']
assert legs and all(500000 <= e['ts'] < 1000000 for e in legs), 'a leg begins outside the window'
sched = [e for e in ev if e.get('cat') == 'sched']
assert sched and all(500000 <= e['ts'] and e['ts'] + e['dur'] <= 1000000 + 1e-6 for e in sched), 'sched slice outside'
print(len(legs), len(sched))
PY
    run "$PY" "$CHECK" "$f"
    [ "$status" -eq 0 ]
    run "$LATREC" convert --format chrome --window 1s:500ms "$RUN"
    [ "$status" -eq 2 ]
    run "$LATREC" convert --format chrome --max-events -3 "$RUN"
    [ "$status" -eq 2 ]
}
