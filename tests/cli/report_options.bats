#!/usr/bin/env bats
# latrec report's options on the synthetic runs of report_common.bash:
# --calibrate, --top, --component / --leg / --hop, --unit, --warm-up,
# --percentiles, --fail-over, --baseline and --interval.

bats_require_minimum_version 1.5.0
load report_common

@test "report --calibrate subtracts each ring's clock_ns_per_call" {
    run --separate-stderr "$LATREC" report "$D/A" --calibrate --unit ns --format csv
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/c.csv"
    # DEQUEUE.. on libe3.outbound.101 (25 ns), RECV/DECODE on
    # libe3.inbound.102 (40 ns), LIVE_ON_AIR on oai.104 (30 ns).
    [ "$(csvval "$D/c.csv" libe3 outbound ENQUEUE-\>DEQUEUE min_ns)" = 1975 ]
    [ "$(csvval "$D/c.csv" libe3 outbound DEQUEUE-\>ENCODE_E3AP_DONE min_ns)" = 475 ]
    [ "$(csvval "$D/c.csv" libe3 outbound DEQUEUE-\>ENCODE_E3AP_DONE max_ns)" = 574 ]
    [ "$(csvval "$D/c.csv" libe3 outbound ENCODE_E3AP_DONE-\>SEND_DONE max_ns)" = 2975 ]
    [ "$(csvval "$D/c.csv" libe3 outbound total min_ns)" = 5475 ]
    [ "$(csvval "$D/c.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE p50_ns)" = 660 ]
    [ "$(csvval "$D/c.csv" oai apply_ctrl APPLY_CONTROL_DONE-\>LIVE_ON_AIR max_ns)" = 249970 ]
    # Inter-arrival is not a hop: not calibrated.
    [ "$(csvval "$D/c.csv" libe3 outbound inter-arrival min_ns)" = 1000000 ]
    run "$LATREC" report "$D/A" --calibrate
    [[ "$output" == *"# calibration: on"* ]]
    run "$LATREC" report "$D/A" --calibrate --format json
    "$PY" -c 'import json,sys; assert json.loads(sys.argv[1])["header"]["calibrated"] is True' "$output"
}

@test "report --top N: the N slowest instances by total, in order, with seq" {
    run --separate-stderr "$LATREC" report "$D/A" --top 3 --leg outbound
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/t.txt"
    grep -q '^  slowest 3 by total:$' "$D/t.txt"
    run awk '/slowest 3 by total/ { p = 1; next } p && $1 ~ /^[0-9]+$/ { print $1, $2, $NF }' "$D/t.txt"
    [ "${lines[0]}" = "1 27 5.599" ]
    [ "${lines[1]}" = "2 54 5.598" ]
    [ "${lines[2]}" = "3 81 5.597" ]
    [ "${#lines[@]}" -eq 3 ]
    run "$LATREC" report "$D/A" --top 2 --leg outbound --format json
    "$PY" -c '
import json, sys
top = json.loads(sys.argv[1])["legs"][0]["top"]
assert [e["seq"] for e in top] == [27, 54], top
assert [e["hops"]["total"] for e in top] == [5.599, 5.598], top
assert top[0]["process"] == "pid 1000" and top[0]["ring"] == "oai.104", top' "$output"
    run "$LATREC" report "$D/A" --top 1 --leg outbound --format csv
    [ "${lines[0]}" = "component,leg,rank,seq,process,ring,start_s,hop,value_us" ]
    [[ "${lines[5]}" == "libe3,outbound,1,27,pid 1000,oai.104,"*",total,5.599" ]]
    run "$LATREC" report "$D/A" --top -1
    [ "$status" -eq 2 ]
}

@test "report --top: equal totals rank by the earlier start, then the ring, on any --threads" {
    # Three processes, one outbound each, every total 1000 ns: seq 33
    # (oai.3) starts first, seqs 11 (oai.1) and 22 (oai.2) 10 ns later at
    # the same stamp.
    mkdir -p "$D/tie"
    "$GEN" "$D/tie" <<'SPEC'
ring oai.1 pid=1000
ring libe3.outbound.1 pid=1000
ring oai.2 pid=2000
ring libe3.outbound.2 pid=2000
ring oai.3 pid=3000
ring libe3.outbound.3 pid=3000
rec oai.3 ENQUEUE 33 1000000
rec oai.2 ENQUEUE 22 1000010
rec oai.1 ENQUEUE 11 1000010
rec libe3.outbound.3 DEQUEUE 33 1000100
rec libe3.outbound.2 DEQUEUE 22 1000110
rec libe3.outbound.1 DEQUEUE 11 1000110
rec libe3.outbound.3 ENCODE_E3AP_DONE 33 1000200
rec libe3.outbound.2 ENCODE_E3AP_DONE 22 1000210
rec libe3.outbound.1 ENCODE_E3AP_DONE 11 1000210
rec libe3.outbound.3 SEND_DONE 33 1001000
rec libe3.outbound.2 SEND_DONE 22 1001010
rec libe3.outbound.1 SEND_DONE 11 1001010
SPEC
    for t in 1 2 3; do
        run --separate-stderr "$LATREC" report "$D/tie" --top 3 --leg outbound --threads "$t" --format json
        [ "$status" -eq 0 ]
        "$PY" -c '
import json, sys
top = json.loads(sys.argv[1])["legs"][0]["top"]
assert [(e["seq"], e["ring"]) for e in top] == [(33, "oai.3"), (11, "oai.1"), (22, "oai.2")], top
assert [e["hops"]["total"] for e in top] == [1.0, 1.0, 1.0], top' "$output"
    done
}

@test "report --component / --leg select tables" {
    run "$LATREC" report "$D/A" --component oai --format csv
    [ "${#lines[@]}" -eq 4 ]
    [[ "${lines[1]}" == oai,apply_ctrl,* ]]
    run "$LATREC" report "$D/A" --leg inbound --format csv
    [ "${#lines[@]}" -eq 4 ]
    [[ "${lines[3]}" == libe3,inbound,inter-arrival,* ]]
    run "$LATREC" report "$D/A" --component libe3 --leg apply_ctrl
    [ "$status" -eq 0 ]
    [[ "$output" == *"no leg instances match the selection"* ]]
}

@test "report --hop A:B, adjacent and not" {
    run --separate-stderr "$LATREC" report "$D/A" --hop ENQUEUE:ENCODE_E3AP_DONE --format csv
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 3 ]
    [[ "${lines[1]}" == "libe3,outbound,ENQUEUE->ENCODE_E3AP_DONE,100,100,100,2.500,2.549,"*",2.599,"* ]]
    [[ "${lines[2]}" == "libe3,outbound,inter-arrival,"* ]]
    run --separate-stderr "$LATREC" report "$D/A" --hop DEQUEUE:SEND_DONE --hop RECV:DECODE_E3AP_DONE --format csv --unit ns
    [ "${#lines[@]}" -eq 5 ]
    [[ "${lines[1]}" == "libe3,outbound,DEQUEUE->SEND_DONE,100,100,100,3500,"*",3599,"* ]]
    [[ "${lines[3]}" == "libe3,inbound,RECV->DECODE_E3AP_DONE,50,50,50,700,"* ]]
    # By id: 0x21 is ENQUEUE, 0x22 DEQUEUE.
    run --separate-stderr "$LATREC" report "$D/A" --hop 0x21:0x22 --format csv
    [[ "${lines[1]}" == "libe3,outbound,ENQUEUE->DEQUEUE,"* ]]
    run --separate-stderr "$LATREC" report "$D/A" --hop NOPE:SEND_DONE
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"--hop NOPE:SEND_DONE: unknown stage"* ]]
    run "$LATREC" report "$D/A" --hop ENQUEUE
    [ "$status" -eq 2 ]
}

@test "report --unit ns|ms" {
    run "$LATREC" report "$D/A" --leg outbound --unit ns --format csv
    [[ "${lines[0]}" == "component,leg,hop,instances,complete,count,min_ns,p50_ns,"* ]]
    [[ "${lines[2]}" == "libe3,outbound,DEQUEUE->ENCODE_E3AP_DONE,100,100,100,500,549,589,598,599,599,599,"* ]]
    run "$LATREC" report "$D/A" --leg outbound --unit ms --format csv
    [[ "${lines[0]}" == *",min_ms,"* ]]
    [[ "${lines[2]}" == "libe3,outbound,DEQUEUE->ENCODE_E3AP_DONE,100,100,100,0.000500,0.000549,"* ]]
    run "$LATREC" report "$D/A" --unit ns
    [[ "$output" == *"MIN_ns"* ]]
    run "$LATREC" report "$D/A" --unit s
    [ "$status" -eq 2 ]
}

@test "report --warm-up drops the instances that start early" {
    run --separate-stderr "$LATREC" report "$D/A" --warm-up 10ms
    [ "$status" -eq 0 ]
    # begin = T0 + 1 ms: outbound 1..10 and inbound 1..5 start before T0 + 11 ms.
    [[ "$output" == *"# warm-up: first 10.000 ms ignored (15 instances)"* ]]
    run "$LATREC" report "$D/A" --warm-up 10ms --format csv
    printf '%s\n' "${lines[@]}" > "$D/w.csv"
    [ "$(csvval "$D/w.csv" libe3 outbound total count)" = 90 ]
    [ "$(csvval "$D/w.csv" libe3 outbound inter-arrival count)" = 89 ]
    [ "$(csvval "$D/w.csv" libe3 inbound total count)" = 45 ]
    [ "$(csvval "$D/w.csv" oai apply_ctrl total count)" = 10 ]
    run "$LATREC" report "$D/A" --warm-up 1x
    [ "$status" -eq 2 ]
}

@test "report --percentiles chooses the columns" {
    run "$LATREC" report "$D/A" --leg outbound --percentiles 50,75 --format csv
    [ "${lines[0]}" = "component,leg,hop,instances,complete,count,min_us,p50_us,p75_us,max_us,mean_us,stddev_us,skewness,outliers,regressions,sched_split,on_cpu_us,runq_us,blocked_us,unknown_us,preemptions,migrations" ]
    [[ "${lines[2]}" == "libe3,outbound,DEQUEUE->ENCODE_E3AP_DONE,100,100,100,0.500,0.549,0.574,0.599,"* ]]
    run "$LATREC" report "$D/A" --percentiles 99.99,50
    grep -Eq 'MIN_us +P99.99_us +P50_us +MAX_us' <<< "$output"
    ! [[ "$output" == *"P90_us"* ]]
    run "$LATREC" report "$D/A" --percentiles 101
    [ "$status" -eq 2 ]
    run "$LATREC" report "$D/A" --percentiles 50,x
    [ "$status" -eq 2 ]
}

@test "report --fail-over: 4 when crossed (one line naming the figure), 0 when not, 1 no leg, 2 malformed" {
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/outbound:total:p99>5us'
    [ "$status" -eq 4 ]
    [ "${#stderr_lines[@]}" -eq 1 ]
    [ "$stderr" = "latrec report: libe3/outbound:total:p99 = 5.598us > 5.000us: limit crossed" ]
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/outbound:total:p99>6us'
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/outbound:total:p99.9>5599ns'
    [ "$status" -eq 0 ]
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/outbound:total:p99.9>5598ns'
    [ "$status" -eq 4 ]
    # A percentile not among --percentiles is computed for the gate.
    run --separate-stderr "$LATREC" report "$D/A" --percentiles 50 --fail-over 'libe3/outbound:DEQUEUE->ENCODE_E3AP_DONE:p75>573ns'
    [ "$status" -eq 4 ]
    [[ "$stderr" == *":p75 = 0.574us > 0.573us"* ]]
    # Lower limits, counts, the A__B spelling, inter-arrival, plain figures.
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/outbound:inter-arrival:count<100'
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"inter-arrival:count = 99 < 100: limit crossed"* ]]
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/outbound:ENQUEUE__DEQUEUE:max>2us'
    [ "$status" -eq 0 ]
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/outbound:ENQUEUE->DEQUEUE:max>1999ns'
    [ "$status" -eq 4 ]
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/outbound:total:mean<5ms'
    [ "$status" -eq 4 ]
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/outbound:total:skewness>1'
    [ "$status" -eq 0 ]
    run --separate-stderr "$LATREC" report "$D/O" --fail-over 'libe3/inbound:total:outliers>7'
    [ "$status" -eq 0 ]
    run --separate-stderr "$LATREC" report "$D/O" --fail-over 'libe3/inbound:total:outliers>6'
    [ "$status" -eq 4 ]
    [ "$stderr" = "latrec report: libe3/inbound:total:outliers = 7 > 6: limit crossed" ]
    # A figure that cannot be judged fails the gate, saying why: 50 samples
    # are too few for the outlier rule, an empty column has no p99.
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/inbound:total:outliers>0'
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"fewer than 4 chunks of 1000 samples"* ]]
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/outbound:EMIT_ENTER->ENQUEUE:p99>1us'
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"no value (no complete instance): failed"* ]]
    # Names no leg / hop: 1.
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/nosuch:total:p99>1us'
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec report: --fail-over libe3/nosuch:total:p99>1us: no such component/leg/hop or path/segment in this run" ]
    # a leg the selection left out: said so (it is in the run)
    run --separate-stderr "$LATREC" report "$D/A" --leg inbound --fail-over 'libe3/outbound:total:p99>1us'
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec report: --fail-over libe3/outbound:total:p99>1us: no such component/leg/hop or path/segment in this run (or left out by --component, --leg, --hop or --path)" ]
    run --separate-stderr "$LATREC" report "$D/A" --fail-over 'libe3/outbound:RECV->SEND_DONE:p99>1us'
    [ "$status" -eq 1 ]
    # Malformed: 2.
    for spec in 'libe3/outbound:total:p99' 'garbage' 'libe3/outbound:total:p99>abc' \
                'libe3/outbound:total:bogus>1us' 'libe3:total:p99>1us' 'libe3/outbound:total:count>x'; do
        run --separate-stderr "$LATREC" report "$D/A" --fail-over "$spec"
        [ "$status" -eq 2 ]
    done
}

@test "report --baseline DIR: every hop exactly 2x gives delta = baseline value, +100.0%" {
    run --separate-stderr "$LATREC" report "$D/B" --baseline "$D/A" --format csv
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/bl.csv"
    "$PY" - "$D/bl.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 12, len(rows)
checked = 0
for r in rows:
    for fig in ("min", "p50", "p90", "p99", "p99.9", "p99.99", "max", "mean", "stddev"):
        v, b = r[f"{fig}_us"], r[f"base_{fig}_us"]
        if v == "":
            assert b == "" and r[f"delta_{fig}_us"] == "", r
            continue
        assert float(v) == 2 * float(b) or abs(float(v) - 2 * float(b)) <= 0.0015, (r["hop"], fig, v, b)
        assert r[f"delta_{fig}_us"] == b, (r["hop"], fig, r[f"delta_{fig}_us"], b)
        if float(b) != 0:
            assert r[f"delta_{fig}_pct"] == "100.000", (r["hop"], fig, r[f"delta_{fig}_pct"])
            checked += 1
    assert r["count"] == r["base_count"], r
    if r["skewness"]:
        assert r["delta_skewness"] in ("0.000",), r
assert checked > 60, checked
EOF
    run --separate-stderr "$LATREC" report "$D/B" --baseline "$D/A"
    printf '%s\n' "${lines[@]}" > "$D/bl.txt"
    grep -q -- 'ENQUEUE->DEQUEUE *100 (+0) *4.000 +2.000 (+100.0%)' "$D/bl.txt"
    grep -q -- 'inter-arrival *99 (+0) *2000.000 +1000.000 (+100.0%)' "$D/bl.txt"
    run "$LATREC" report "$D/B" --baseline "$D/A" --format json
    "$PY" -c '
import json, sys
ob = json.loads(sys.argv[1])["legs"][0]
t = [h for h in ob["hops"] if h["hop"] == "total"][0]
assert t["max_us"] == 11.198 and t["baseline"]["max_us"] == 5.599, t' "$output"
    run --separate-stderr "$LATREC" report "$D/B" --baseline "$D/nonexistent"
    [ "$status" -eq 1 ]
}

@test "report --baseline: a baseline read in part is exit 3 as the run's own rings are; one that cannot be read is 1" {
    # a bad file beside the baseline's rings: named, the rest compared, exit 3 (was 0)
    cp -r "$D/A" "$D/Abad"
    printf 'not a ring' > "$D/Abad/junk.latrec"
    run --separate-stderr "$LATREC" report "$D/B" --baseline "$D/Abad" --format csv
    [ "$status" -eq 3 ]
    [ "$stderr" = "latrec report: $D/Abad/junk.latrec: shorter than a header: 10 bytes" ]
    printf '%s\n' "${lines[@]}" > "$D/blbad.csv"
    [ "$(csvval "$D/blbad.csv" libe3 outbound total base_max_us)" = 5.599 ]
    [ "$(csvval "$D/blbad.csv" libe3 outbound total max_us)" = 11.198 ]
    # a crossed gate still says 4
    run --separate-stderr "$LATREC" report -q "$D/B" --baseline "$D/Abad" --fail-over 'libe3/outbound:total:max>10us'
    [ "$status" -eq 4 ]
    # a file, an empty directory, a directory of no ring: 1, one line naming it
    run --separate-stderr "$LATREC" report "$D/B" --baseline "$D/spec_A"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec report: $D/spec_A: not a directory" ]
    mkdir -p "$D/noring"
    run --separate-stderr "$LATREC" report "$D/B" --baseline "$D/noring"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec report: $D/noring: no .latrec rings" ]
    printf 'not a ring' > "$D/noring/junk.latrec"
    run --separate-stderr "$LATREC" report "$D/B" --baseline "$D/noring"
    [ "$status" -eq 1 ]
    [ "${stderr_lines[-1]}" = "latrec report: no readable rings in $D/noring" ]
}

@test "report --interval: count, rate and bytes per interval" {
    run --separate-stderr "$LATREC" report "$D/A" --interval 20ms --format csv
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "start_s,component,leg,count,rate_per_s,p50_us,p99_us,bytes" ]
    printf '%s\n' "${lines[@]}" > "$D/iv.csv"
    "$PY" - "$D/iv.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
# Rows in time order, then component and leg.
keys = [(float(r["start_s"]), r["component"], r["leg"]) for r in rows]
order = {"outbound": 0, "inbound": 1, "apply_ctrl": 2}
assert keys == sorted(keys, key=lambda k: (k[0], k[1], order[k[2]])), keys
ob = [r for r in rows if r["leg"] == "outbound"]
# begin = T0 + 1 ms: seqs 20k+1 .. 20k+20 start in interval k.
assert [r["start_s"] for r in ob] == ["0.000", "0.020", "0.040", "0.060", "0.080"], ob
for k, r in enumerate(ob):
    assert r["count"] == "20" and r["rate_per_s"] == "1000.000", r
    assert int(r["bytes"]) == sum(range(20 * k + 1, 20 * k + 21)), r       # ENCODE_E3AP_DONE.aux = seq
    assert 5.5 <= float(r["p50_us"]) <= float(r["p99_us"]) <= 5.599, r
ib = [r for r in rows if r["leg"] == "inbound"]
assert [(r["count"], r["rate_per_s"], r["bytes"]) for r in ib] == [("10", "500.000", "1000")] * 5, ib
ap = [r for r in rows if r["leg"] == "apply_ctrl"]
assert [r["count"] for r in ap] == ["1", "2", "2", "2", "2", "1"] and all(r["bytes"] == "" for r in ap), ap
EOF
    run "$LATREC" report "$D/A" --interval 20ms
    [[ "$output" == *"time series, interval 20.000 ms:"* ]]
    grep -Eq '^ *0\.000 +libe3 +outbound +20 +1000\.0 ' <<< "$output"
    grep -Eq '^ *0\.080 +oai +apply_ctrl +2 +100\.0 +250\.000 +250\.000 +- *$' <<< "$output"
    run "$LATREC" report "$D/A" --interval 50ms --format json
    "$PY" -c '
import json, sys
iv = json.loads(sys.argv[1])["intervals"]
ob = [r for r in iv if r["leg"] == "outbound"]
assert [r["count"] for r in ob] == [50, 50] and ob[0]["rate_per_s"] == 1000.0 and ob[0]["bytes"] == 1275, ob
assert all(r["bytes"] is None for r in iv if r["leg"] == "apply_ctrl")' "$output"
    run "$LATREC" report "$D/A" --interval 0
    [ "$status" -eq 2 ]
}
