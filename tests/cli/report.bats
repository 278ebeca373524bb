#!/usr/bin/env bats
# latrec report's figures on synthetic rings with known hop deltas (run A
# and the others of report_common.bash), its formats, and the libE3 fixture
# rings against the reference converter's output. Its options (selection,
# units, --fail-over, --baseline, --interval) are report_options.bats'.

bats_require_minimum_version 1.5.0
load report_common

@test "report: text header lines" {
    run --separate-stderr "$LATREC" report "$D/A"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "# latrec report" ]
    [[ "${lines[1]}" == "# duration: 0.10"*" s (first to last record)" ]]
    [ "${lines[2]}" = "# rings: 3 (0 skipped, 0 wrapped)  records: 520  lost: 0  dropped before start: 0" ]
    [ "${lines[3]}" = "# clock cost per call: 25..40 ns" ]
    [ "${lines[4]}" = "# catalog: e3 (built in)" ]
    [ "${lines[5]}" = "# start stamp: none (every record kept)" ]
    [ "${lines[6]}" = "# scheduler: n/a (not a run of latrec record)" ]
    [ "${lines[7]}" = "# leg horizon: 10 s, 0 instances cut unfinished by it" ]
}

@test "report: one table per component/leg, hop rows, total and inter-arrival" {
    "$LATREC" report "$D/A" > "$D/a.txt"
    # Tables in component order, then catalog leg order.
    run grep -E '^[a-z0-9_]+/[a-z0-9_]+  instances:' "$D/a.txt"
    [ "${lines[0]}" = "libe3/outbound  instances: 100  complete: 100" ]
    [ "${lines[1]}" = "libe3/inbound  instances: 50  complete: 50" ]
    [ "${lines[2]}" = "oai/apply_ctrl  instances: 10  complete: 10" ]
    [ "${#lines[@]}" -eq 3 ]
    section "$D/a.txt" libe3/outbound > "$D/out.txt"
    run awk 'NR > 1 { print $1 }' "$D/out.txt"
    [ "${lines[*]}" = "HOP ENQUEUE->DEQUEUE DEQUEUE->ENCODE_E3AP_DONE ENCODE_E3AP_DONE->SEND_DONE EMIT_ENTER->ENQUEUE total inter-arrival" ]
    run head -2 "$D/out.txt"
    [[ "${lines[1]}" == "HOP"*"COUNT"*"MIN_us"*"P50_us"*"P90_us"*"P99_us"*"P99.9_us"*"P99.99_us"*"MAX_us"*"MEAN_us"*"STDDEV_us"*"SKEWNESS"*"OUTLIERS"*"REGRESSIONS" ]]
    [ "$(textval "$D/out.txt" ENQUEUE-\>DEQUEUE COUNT)" = 100 ]
    [ "$(textval "$D/out.txt" ENQUEUE-\>DEQUEUE MIN_us)" = 2.000 ]
    [ "$(textval "$D/out.txt" ENQUEUE-\>DEQUEUE MAX_us)" = 2.000 ]
    # 500..599 ns: nearest rank p50 = 549, p90 = 589, p99 = 598, p99.9 = 599.
    [ "$(textval "$D/out.txt" DEQUEUE-\>ENCODE_E3AP_DONE MIN_us)" = 0.500 ]
    [ "$(textval "$D/out.txt" DEQUEUE-\>ENCODE_E3AP_DONE P50_us)" = 0.549 ]
    [ "$(textval "$D/out.txt" DEQUEUE-\>ENCODE_E3AP_DONE P90_us)" = 0.589 ]
    [ "$(textval "$D/out.txt" DEQUEUE-\>ENCODE_E3AP_DONE P99_us)" = 0.598 ]
    [ "$(textval "$D/out.txt" DEQUEUE-\>ENCODE_E3AP_DONE P99.9_us)" = 0.599 ]
    [ "$(textval "$D/out.txt" DEQUEUE-\>ENCODE_E3AP_DONE MAX_us)" = 0.599 ]
    [ "$(textval "$D/out.txt" total MIN_us)" = 5.500 ]
    [ "$(textval "$D/out.txt" total MAX_us)" = 5.599 ]
    [ "$(textval "$D/out.txt" total COUNT)" = 100 ]
    # No stamp for EMIT_ENTER: an empty column.
    [ "$(textval "$D/out.txt" EMIT_ENTER-\>ENQUEUE COUNT)" = 0 ]
    [ "$(textval "$D/out.txt" EMIT_ENTER-\>ENQUEUE MIN_us)" = - ]
    [ "$(textval "$D/out.txt" EMIT_ENTER-\>ENQUEUE MEAN_us)" = - ]
    # The period: 99 gaps of exactly 1 ms, in the leg's own table (its
    # first stage is stamped by an oai ring, its instances end in libe3).
    [ "$(textval "$D/out.txt" inter-arrival COUNT)" = 99 ]
    [ "$(textval "$D/out.txt" inter-arrival MIN_us)" = 1000.000 ]
    [ "$(textval "$D/out.txt" inter-arrival MAX_us)" = 1000.000 ]
    [ "$(textval "$D/out.txt" inter-arrival MEAN_us)" = 1000.000 ]
    section "$D/a.txt" libe3/inbound > "$D/in.txt"
    [ "$(textval "$D/in.txt" RECV-\>DECODE_E3AP_DONE P50_us)" = 0.700 ]
    [ "$(textval "$D/in.txt" inter-arrival COUNT)" = 49 ]
    [ "$(textval "$D/in.txt" inter-arrival P99_us)" = 2000.000 ]
    section "$D/a.txt" oai/apply_ctrl > "$D/ap.txt"
    [ "$(textval "$D/ap.txt" total MAX_us)" = 250.000 ]
    [ "$(textval "$D/ap.txt" inter-arrival MIN_us)" = 10000.000 ]
}

@test "report --format csv: stable columns and values" {
    run --separate-stderr "$LATREC" report "$D/A" --format csv
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "component,leg,hop,instances,complete,count,min_us,p50_us,p90_us,p99_us,p99.9_us,p99.99_us,max_us,mean_us,stddev_us,skewness,outliers,regressions,sched_split,on_cpu_us,runq_us,blocked_us,unknown_us,preemptions,migrations" ]
    # 3 tables: outbound 5 hops + inter-arrival, inbound 2 + 1, apply_ctrl 2 + 1.
    [ "${#lines[@]}" -eq $((1 + 6 + 3 + 3)) ]
    [ "${lines[1]}" = "libe3,outbound,ENQUEUE->DEQUEUE,100,100,100,2.000,2.000,2.000,2.000,2.000,2.000,2.000,2.000,0.000,,,0,,,,,,," ]
    [ "${lines[4]}" = "libe3,outbound,EMIT_ENTER->ENQUEUE,100,100,0,,,,,,,,,,,,0,,,,,,," ]
    printf '%s\n' "${lines[@]}" > "$D/a.csv"
    [ "$(csvval "$D/a.csv" libe3 outbound total min_us)" = 5.500 ]
    [ "$(csvval "$D/a.csv" libe3 outbound total p50_us)" = 5.549 ]
    [ "$(csvval "$D/a.csv" libe3 outbound total max_us)" = 5.599 ]
    [ "$(csvval "$D/a.csv" libe3 outbound inter-arrival count)" = 99 ]
    [ "$(csvval "$D/a.csv" libe3 outbound inter-arrival p50_us)" = 1000.000 ]
    [ "$(csvval "$D/a.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE count)" = 50 ]
    [ "$(csvval "$D/a.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE max_us)" = 0.700 ]
    [ "$(csvval "$D/a.csv" oai apply_ctrl total mean_us)" = 250.000 ]
    # mean and stddev of 5500..5599 ns, computed here.
    "$PY" - "$D/a.csv" <<'EOF'
import csv, statistics, sys
r = [x for x in csv.DictReader(open(sys.argv[1])) if x["leg"] == "outbound" and x["hop"] == "total"][0]
v = [5500 + (37 * i) % 100 for i in range(1, 101)]
assert abs(float(r["mean_us"]) - statistics.mean(v) / 1e3) <= 0.0005, r
assert abs(float(r["stddev_us"]) - statistics.stdev(v) / 1e3) <= 0.0005, r
assert abs(float(r["skewness"])) < 0.0005, r
EOF
}

@test "report --format json: values, nulls for empty figures" {
    "$LATREC" report "$D/A" --format json > "$D/a.json"
    "$PY" - "$D/a.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
h = j["header"]
assert h["rings"] == 3 and h["records"] == 520 and h["unit"] == "us", h
assert h["clock_ns_per_call_min"] == 25 and h["clock_ns_per_call_max"] == 40, h
legs = {(l["component"], l["leg"]): l for l in j["legs"]}
assert list(legs) == [("libe3", "outbound"), ("libe3", "inbound"), ("oai", "apply_ctrl")], list(legs)
ob = legs[("libe3", "outbound")]
assert ob["instances"] == 100 and ob["complete"] == 100
hops = {x["hop"]: x for x in ob["hops"]}
d = hops["DEQUEUE->ENCODE_E3AP_DONE"]
assert d["count"] == 100 and d["min_us"] == 0.5 and d["p50_us"] == 0.549 and d["max_us"] == 0.599, d
assert d["p99_us"] == 0.598 and d["p99.9_us"] == 0.599 and d["regressions"] == 0, d
assert abs(d["mean_us"] - 0.5495) < 1e-9, d
e = hops["EMIT_ENTER->ENQUEUE"]
assert e["count"] == 0 and all(e[k] is None for k in ("min_us", "p50_us", "max_us", "mean_us", "stddev_us", "skewness", "outliers")), e
ia = hops["inter-arrival"]
assert ia["count"] == 99 and ia["min_us"] == 1000.0 and ia["max_us"] == 1000.0, ia
assert hops["ENQUEUE->DEQUEUE"]["skewness"] is None      # all equal: no skewness
assert hops["ENQUEUE->DEQUEUE"]["stddev_us"] == 0.0
EOF
}

@test "report: an all-empty table prints '-', empty CSV fields and JSON null, never a sentinel" {
    run --separate-stderr "$LATREC" report "$D/E"
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/e.txt"
    section "$D/e.txt" libe3/inbound > "$D/e_in.txt"
    [ "$(wc -l < "$D/e_in.txt")" -eq 5 ]
    for row in RECV-\>DECODE_E3AP_DONE total inter-arrival; do
        [ "$(textval "$D/e_in.txt" "$row" COUNT)" = 0 ]
        for col in MIN_us P50_us P99.9_us MAX_us MEAN_us STDDEV_us SKEWNESS OUTLIERS; do
            [ "$(textval "$D/e_in.txt" "$row" "$col")" = - ]
        done
    done
    "$LATREC" report "$D/E" --format csv > "$D/e.csv"
    [ "$(sed -n 2p "$D/e.csv")" = "libe3,inbound,RECV->DECODE_E3AP_DONE,1,0,0,,,,,,,,,,,,0,,,,,,," ]
    [ "$(sed -n 4p "$D/e.csv")" = "libe3,inbound,inter-arrival,1,0,0,,,,,,,,,,,,0,,,,,,," ]
    "$LATREC" report "$D/E" --format json > "$D/e.json"
    "$PY" - "$D/e.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
for h in j["legs"][0]["hops"]:
    assert h["count"] == 0 and h["regressions"] == 0, h
    for k, v in h.items():
        if k not in ("hop", "count", "regressions"):
            assert v is None, (k, v)
EOF
    for f in "$D/e.txt" "$D/e.csv" "$D/e.json"; do
        ! grep -Eiq 'nan|inf|18446744073709551615|9223372036854775807|1844674407370955' "$f"
    done
}

@test "report: negative hops are clock regressions, never wrapped" {
    "$LATREC" report "$D/R" --format csv > "$D/r.csv"
    [ "$(csvval "$D/r.csv" libe3 outbound ENQUEUE-\>DEQUEUE regressions)" = 2 ]
    [ "$(csvval "$D/r.csv" libe3 outbound ENQUEUE-\>DEQUEUE count)" = 8 ]
    [ "$(csvval "$D/r.csv" libe3 outbound ENQUEUE-\>DEQUEUE min_us)" = 2.000 ]
    [ "$(csvval "$D/r.csv" libe3 outbound ENQUEUE-\>DEQUEUE max_us)" = 2.000 ]
    [ "$(csvval "$D/r.csv" libe3 outbound DEQUEUE-\>ENCODE_E3AP_DONE max_us)" = 1.500 ]
    [ "$(csvval "$D/r.csv" libe3 outbound total min_us)" = 2.000 ]
    [ "$(csvval "$D/r.csv" libe3 outbound total regressions)" = 0 ]
    run "$LATREC" report "$D/R"
    printf '%s\n' "${lines[@]}" > "$D/r.txt"
    section "$D/r.txt" libe3/outbound > "$D/r_out.txt"
    [ "$(textval "$D/r_out.txt" ENQUEUE-\>DEQUEUE REGRESSIONS)" = 2 ]
    ! grep -q 18446744073709 "$D/r.txt" "$D/r.csv"
    # A gate on the regressions.
    run "$LATREC" report "$D/R" --fail-over 'libe3/outbound:ENQUEUE->DEQUEUE:regressions>0'
    [ "$status" -eq 4 ]
}

@test "report: uniform 1..100000 ns gives p50/p99/p99.9 within 0.1%, inside [min, max]" {
    "$LATREC" report "$D/U" --unit ns --format csv --percentiles 50,99,99.9,0,100 > "$D/u.csv"
    "$PY" - "$D/u.csv" <<'EOF'
import csv, sys
r = [x for x in csv.DictReader(open(sys.argv[1])) if x["hop"] == "RECV->DECODE_E3AP_DONE"][0]
assert r["count"] == "100000" and r["min_ns"] == "1" and r["max_ns"] == "100000", r
for p, exact in ((50, 50000), (99, 99000), (99.9, 99900)):
    v = float(r["p%g_ns" % p])
    assert exact <= v <= exact * 1.001, (p, v)      # never under, at most 0.1 % high
assert r["p0_ns"] == "1" and r["p100_ns"] == "100000", r
for k, v in r.items():
    if k.startswith("p") and k.endswith("_ns"):
        assert 1 <= float(v) <= 100000, (k, v)
assert abs(float(r["mean_ns"]) - 50000.5) <= 0.5, r
EOF
}

@test "report: 2000 distinct values give exact nearest-rank percentiles (p99.9 is not p99)" {
    run --separate-stderr "$LATREC" report "$D/P" --unit ns --format csv
    printf '%s\n' "${lines[@]}" > "$D/p.csv"
    [ "$(csvval "$D/p.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE p50_ns)" = 1000 ]
    [ "$(csvval "$D/p.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE p90_ns)" = 1800 ]
    [ "$(csvval "$D/p.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE p99_ns)" = 1980 ]
    [ "$(csvval "$D/p.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE p99.9_ns)" = 1998 ]
    [ "$(csvval "$D/p.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE p99.99_ns)" = 2000 ]
    [ "$(csvval "$D/p.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE min_ns)" = 1 ]
    [ "$(csvval "$D/p.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE max_ns)" = 2000 ]
}

@test "report: skewness of a known skewed set (1,1,1,1,10 us) is sqrt(5)" {
    "$LATREC" report "$D/S" --format json > "$D/s.json"
    "$PY" - "$D/s.json" <<'EOF'
import json, math, sys
h = {x["hop"]: x for x in json.load(open(sys.argv[1]))["legs"][0]["hops"]}["RECV->DECODE_E3AP_DONE"]
# n = 5, mean 2.8; m2 = 12.96, m3 = 69.984; g1 = 1.5; G1 = sqrt(20)/3 x 1.5 = sqrt(5)
assert abs(h["skewness"] - math.sqrt(5)) < 1e-9, h
assert abs(h["mean_us"] - 2.8) < 1e-9 and abs(h["stddev_us"] - math.sqrt(16.2)) < 1e-9, h
EOF
}

@test "report: the outlier rule flags exactly the 7 planted spikes; --drop-outliers leaves them out" {
    "$LATREC" report "$D/O" --format csv > "$D/o.csv"
    [ "$(csvval "$D/o.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE outliers)" = 7 ]
    [ "$(csvval "$D/o.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE max_us)" = 50.000 ]
    [ "$(csvval "$D/o.csv" libe3 inbound inter-arrival outliers)" = 0 ]
    # The 7 slowest instances are the planted seqs.
    "$LATREC" report "$D/O" --top 7 --format json > "$D/o.json"
    "$PY" - "$D/o.json" <<'EOF'
import json, sys
top = json.load(open(sys.argv[1]))["legs"][0]["top"]
assert sorted(e["seq"] for e in top) == [1500, 7200, 13000, 20500, 26000, 33333, 39000], top
assert all(e["hops"]["total"] == 50.0 for e in top), top
EOF
    run --separate-stderr "$LATREC" report "$D/O" --drop-outliers
    [ "$status" -eq 0 ]
    [[ "$output" == *"# outliers: dropped from every figure but the outlier count"* ]]
    "$LATREC" report "$D/O" --drop-outliers --format csv > "$D/od.csv"
    [ "$(csvval "$D/od.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE count)" = 39993 ]
    [ "$(csvval "$D/od.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE max_us)" = 1.999 ]
    [ "$(csvval "$D/od.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE min_us)" = 1.000 ]
    [ "$(csvval "$D/od.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE outliers)" = 7 ]
    "$LATREC" report "$D/O" --drop-outliers --format json > "$D/od.json"
    "$PY" -c 'import json,sys; assert json.load(open(sys.argv[1]))["header"]["outliers_dropped"] is True' "$D/od.json"
}

@test "report: outlier chunks are cut per process, however the processes' instances interleave" {
    # Two processes' outbound instances alternate, 2000 each: pid 1000's
    # ENQUEUE->DEQUEUE is 1000 ns (one spike of 3000 ns), pid 2000's 2000 ns.
    # Per process the chunk maxima are 3000, 1000 and 2000, 2000: Q1 1750,
    # Q3 2250, limit 3000, so the spike is not an outlier. (Chunks of the
    # interleaved stream would all hold a 2000 and give Q1 2000, Q3 2250,
    # limit 2625, and count the spike.)
    mkdir -p "$D/pp"
    "$PY" - "$D/pp.spec" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    for p in (1, 2):
        f.write(f"ring oai.{p} pid={p}000\nring libe3.outbound.{p} pid={p}000\n")
    recs = []
    for i in range(2000):
        for p in (1, 2):
            seq, t = i + 1, 1_000_000 + i * 20_000 + p * 10_000
            d = (3000 if i == 700 else 1000) if p == 1 else 2000
            recs += [(t, f"oai.{p} ENQUEUE {seq}"), (t + d, f"libe3.outbound.{p} DEQUEUE {seq}"),
                     (t + d + 500, f"libe3.outbound.{p} ENCODE_E3AP_DONE {seq}"),
                     (t + d + 3000, f"libe3.outbound.{p} SEND_DONE {seq}")]
    recs.sort()
    f.write("".join(f"rec {r} {t}\n" for t, r in recs))
EOF
    "$GEN" "$D/pp" < "$D/pp.spec"
    for t in 1 2 3; do
        "$LATREC" report "$D/pp" --unit ns --threads "$t" --format csv > "$D/pp.csv"
        [ "$(csvval "$D/pp.csv" libe3 outbound ENQUEUE-\>DEQUEUE count)" = 4000 ]
        [ "$(csvval "$D/pp.csv" libe3 outbound ENQUEUE-\>DEQUEUE max_ns)" = 3000 ]
        [ "$(csvval "$D/pp.csv" libe3 outbound ENQUEUE-\>DEQUEUE outliers)" = 0 ]
    done
}

@test "report: inter-arrival outliers are counted exactly and dropped with --drop-outliers" {
    "$LATREC" report "$D/G" --format csv > "$D/g.csv"
    [ "$(csvval "$D/g.csv" libe3 inbound inter-arrival count)" = 19999 ]
    [ "$(csvval "$D/g.csv" libe3 inbound inter-arrival outliers)" = 3 ]
    [ "$(csvval "$D/g.csv" libe3 inbound inter-arrival max_us)" = 100.010 ]
    "$LATREC" report "$D/G" --format csv --drop-outliers > "$D/gd.csv"
    [ "$(csvval "$D/gd.csv" libe3 inbound inter-arrival count)" = 19996 ]
    [ "$(csvval "$D/gd.csv" libe3 inbound inter-arrival max_us)" = 99.999 ]
    [ "$(csvval "$D/gd.csv" libe3 inbound inter-arrival outliers)" = 3 ]
    [ "$(csvval "$D/gd.csv" libe3 inbound total count)" = 20000 ]
}

@test "report: a bad ring next to good ones: tables still printed, exit 3" {
    cp -r "$D/A" "$D/A3"
    printf 'not a ring' > "$D/A3/junk.latrec"
    run --separate-stderr "$LATREC" report "$D/A3"
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"junk.latrec: "* ]]
    [[ "$output" == *"libe3/outbound  instances: 100  complete: 100"* ]]
    [[ "$output" == *"# rings: 3 (1 skipped, 0 wrapped)"* ]]
    run --separate-stderr "$LATREC" report "$D/nothing-here"
    [ "$status" -eq 1 ]
}

@test "report on the libE3 fixture b1_loop_clean agrees with the reference converter" {
    local ref="$FIXTURES/libe3-reference/b1_loop_clean"
    run --separate-stderr "$LATREC" report "$FIXTURES/libe3/b1_loop_clean" --format csv
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/b1.csv"
    [ "$(csvval "$D/b1.csv" libe3 inbound RECV-\>DECODE_E3AP_DONE count)" = 392 ]
    [ "$(csvval "$D/b1.csv" libe3 inbound total instances)" = 392 ]
    [ "$(csvval "$D/b1.csv" libe3 inbound total complete)" = 392 ]
    "$PY" - "$D/b1.csv" "$ref" <<'EOF'
import csv, gzip, io, sys
ours = {(r["component"], r["leg"], r["hop"]): r for r in csv.DictReader(open(sys.argv[1]))}
ref = sys.argv[2]
# Per-leg rows / complete of the reference converter's console table.
n = 0
for line in open(f"{ref}/latrec2csv.stdout.txt"):
    f = line.split()
    if len(f) < 5 or not f[0].endswith(".csv"):
        continue
    comp, leg, rows, complete = f[0][:-4], f[1], int(f[-2]), int(f[-1])
    r = [x for k, x in ours.items() if k[0] == comp and k[1] == leg][0]
    assert int(r["instances"]) == rows, (comp, leg, r["instances"], rows)
    if comp == "libe3":     # the reference's chain is the leg's whole chain there
        assert int(r["complete"]) == complete, (comp, leg, r["complete"], complete)
    n += 1
assert n == 15, n
# Every hop column of the reference tables: count, min and max agree.
m = 0
for comp in ("libe3", "oai", "dapp"):
    text = "".join(l for l in gzip.open(f"{ref}/csv/{comp}.csv.gz", "rt") if not l.startswith("#"))
    rd = csv.reader(io.StringIO(text))
    hdr = next(rd)
    rows = list(rd)
    for ci, h in enumerate(hdr):
        if not h.endswith("_us"):
            continue
        by_leg = {}
        for row in rows:
            if row[ci] != "":
                by_leg.setdefault(row[0], []).append(float(row[ci]))
        for leg, v in by_leg.items():
            name = h[:-3]
            hop = "total" if name == leg + "_total" else name.replace("__", "->")
            if (comp, leg, hop) == ("dapp", "source", "total"):
                continue    # the reference's total spans the stages this component stamps only
            o = ours[(comp, leg, hop)]
            assert int(o["count"]) == len(v), (comp, leg, hop, o["count"], len(v))
            assert abs(float(o["min_us"]) - min(v)) < 1e-9 and abs(float(o["max_us"]) - max(v)) < 1e-9, (comp, leg, hop)
            m += 1
assert m >= 25, m
EOF
}

@test "report on every libE3 fixture scenario: no crash, documented exit status" {
    for s in a2_real_bench_log2_12 b1_loop_clean b2_loop_wrap b4_limits; do
        for fmt in text csv json; do
            run --separate-stderr "$LATREC" report "$FIXTURES/libe3/$s" --format "$fmt" --top 2 --interval 10ms
            [ "$status" -eq 0 ] || [ "$status" -eq 3 ]
        done
    done
    run --separate-stderr "$LATREC" report "$FIXTURES/libe3/b6_derived_malformed"
    [ "$status" -eq 1 ]
}

@test "report --format=help: one table of formats, each one works, the completion offers the same" {
    run --separate-stderr "$LATREC" report --format=help
    [ "$status" -eq 0 ]
    names=$(printf '%s\n' "$output" | cut -f1 | tr '\n' ' ')
    [ "$names" = "text csv json html " ]
    for f in $names; do
        "$LATREC" report "$D/A" --format "$f" > "$D/fmt.$f"
        [ -s "$D/fmt.$f" ]
    done
    head -1 "$D/fmt.html" | grep -qx '<!DOCTYPE html>'
    head -1 "$D/fmt.text" | grep -qx '# latrec report'
    head -1 "$D/fmt.csv" | grep -q '^component,leg,hop,'
    jq -e '.legs | length == 3' "$D/fmt.json" >/dev/null
    # --help names the same list, default first.
    "$LATREC" report --help | grep -q -- '--format=FMT *text (default), csv, json or html'
    run --separate-stderr "$LATREC" report "$D/A" --format xml
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"--format must be text, csv, json or html, not 'xml'"* ]]
    comp=$(bash -c 'source "$1/completions/latrec.bash"; COMP_WORDS=("$2" report --format ""); COMP_CWORD=3;
                    _latrec; echo "${COMPREPLY[@]}"' _ "$BATS_TEST_DIRNAME/../.." "$LATREC")
    [ "$comp" = "text csv json html" ]
}
