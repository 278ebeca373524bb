#!/usr/bin/env bats
# latrec hist on synthetic rings with known hop values: the rtla layout line
# by line, bucket edges, over:, the options, log2, csv and json.
#
# Environment (set by tests/unit/report.cmake): LATREC, GEN, FIXTURES.
#
# Run H (ns, T0 = 2 s, one process):
#   outbound totals 3000, 3000, 7000 (i = 1..3 at T0 + i ms, all stages on
#     libe3.outbound.101), first in time, so its column comes first;
#   inbound RECV->DECODE_E3AP_DONE = 999, 1000, 1500, 2000, 2999, 5000,
#     255999, 256000, 300000 (at T0 + 100 ms + i ms on libe3.inbound.102):
#     in 1 us buckets 0:1 1:2 2:2 5:1 255:1 and, with 256 entries, over: 2.
# Run R: ENQUEUE->DEQUEUE of outbound seqs 3 and 7 is -500 ns (2 clock
#   regressions), the 8 others 2000 ns.

bats_require_minimum_version 1.5.0

setup_file() {
    : "${LATREC:?LATREC must name the latrec binary}" "${GEN:?GEN must name gen_synthetic}"
    export D="$BATS_FILE_TMPDIR"
    if [ -x /usr/bin/python3 ]; then export PY=/usr/bin/python3; else export PY=python3; fi
    "$PY" - "$D" <<'EOF'
import sys
D = sys.argv[1]
T0 = 2_000_000_000

def write(name, rings, recs):
    recs.sort(key=lambda r: r[2])
    with open(f"{D}/spec_{name}", "w") as f:
        for r in rings:
            f.write(f"ring {r}\n")
        f.write("".join(f"rec {ring} {st} {seq} {t} 0\n" for ring, st, t, seq in recs))

recs = []
for i, total in enumerate([3000, 3000, 7000], 1):
    t = T0 + i * 1_000_000
    recs += [("libe3.outbound.101", "ENQUEUE", t, i), ("libe3.outbound.101", "DEQUEUE", t + 1000, i),
             ("libe3.outbound.101", "ENCODE_E3AP_DONE", t + 1500, i),
             ("libe3.outbound.101", "SEND_DONE", t + total, i)]
for i, v in enumerate([999, 1000, 1500, 2000, 2999, 5000, 255999, 256000, 300000], 1):
    t = T0 + 100_000_000 + i * 1_000_000
    recs += [("libe3.inbound.102", "RECV", t, i), ("libe3.inbound.102", "DECODE_E3AP_DONE", t + v, i)]
write("H", ["libe3.outbound.101", "libe3.inbound.102"], recs)

recs = []
for i in range(1, 11):
    t = T0 + i * 1_000_000
    dq = t - 500 if i in (3, 7) else t + 2000
    recs += [("oai.104", "ENQUEUE", t, i), ("libe3.outbound.101", "DEQUEUE", dq, i),
             ("libe3.outbound.101", "ENCODE_E3AP_DONE", t + 2500, i),
             ("libe3.outbound.101", "SEND_DONE", t + 5500, i)]
write("R", ["oai.104", "libe3.outbound.101"], recs)
write("E", ["libe3.inbound.102"], [("libe3.inbound.102", "RECV", T0, 1)])
EOF
    for s in H R E; do
        "$GEN" "$D/$s" < "$D/spec_$s"
    done
}

# One rtla row: index (or label) then the two H columns, as hist prints them.
row() {
    printf '%-6s%14s %13s \n' "$1" "$2" "$3"
}

@test "hist: the rtla layout, line by line" {
    run --separate-stderr "$LATREC" hist "$D/H"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "# latrec histogram" ]
    [ "${lines[1]}" = "# Time unit is microseconds (us)" ]
    [ "${lines[2]}" = "# Duration:   0 00:00:00" ]
    [ "${lines[3]}" = "$(printf '%-6s%14s %13s ' Index libe3/outbound libe3/inbound)" ]
    # Only non-zero buckets; 1000 ns is on the edge of bucket 1 and counts
    # there (floor(v / bucket), lower edge inclusive), 999 in bucket 0.
    printf '%s\n' "${lines[@]}" > "$D/h.txt"
    {
        printf '# latrec histogram\n# Time unit is microseconds (us)\n# Duration:   0 00:00:00\n'
        printf '%-6s%14s %13s \n' Index libe3/outbound libe3/inbound
        row 0 0 1; row 1 0 2; row 2 0 2; row 3 2 0; row 5 0 1; row 7 1 0; row 255 0 1
        row over: 0 2; row count: 3 9; row min: 3 0; row avg: 4 91; row max: 7 300
    } > "$D/h.expected"
    diff -u "$D/h.expected" "$D/h.txt"
}

@test "hist: values past the last bucket count in over: (-E)" {
    run --separate-stderr "$LATREC" hist "$D/H" -E 10 --no-header
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/e10.txt"
    {
        row 0 0 1; row 1 0 2; row 2 0 2; row 3 2 0; row 5 0 1; row 7 1 0
        row over: 0 3; row count: 3 9; row min: 3 0; row avg: 4 91; row max: 7 300
    } > "$D/e10.expected"
    diff -u "$D/e10.expected" "$D/e10.txt"
    # A value exactly at entries x bucket size is over, one below is not.
    run "$LATREC" hist "$D/H" -E 6 --no-header --format csv
    [ "${lines[${#lines[@]}-1]}" = "over,1,3" ]
    run "$LATREC" hist "$D/H" -E 0
    [ "$status" -eq 2 ]
    run "$LATREC" hist "$D/H" -E 1000001
    [ "$status" -eq 2 ]
}

@test "hist -b: bucket size, labels at the lower edge" {
    run --separate-stderr "$LATREC" hist "$D/H" -b 2
    [ "$status" -eq 0 ]
    [ "${lines[3]}" = "# Bucket size: 2 us" ]
    printf '%s\n' "${lines[@]:5}" > "$D/b2.txt"
    {
        row 0 0 3; row 2 2 2; row 4 0 1; row 6 1 0; row 254 0 1; row 256 0 1; row 300 0 1
        row over: 0 0; row count: 3 9; row min: 3 0; row avg: 4 91; row max: 7 300
    } > "$D/b2.expected"
    diff -u "$D/b2.expected" "$D/b2.txt"
    for bad in 0 -5 x 1.5 1000000001; do
        run "$LATREC" hist "$D/H" -b "$bad"
        [ "$status" -eq 2 ]
    done
}

@test "hist --unit ns|ms" {
    run --separate-stderr "$LATREC" hist "$D/H" --unit ns -b 1000
    [ "$status" -eq 0 ]
    [ "${lines[1]}" = "# Time unit is nanoseconds (ns)" ]
    [ "${lines[3]}" = "# Bucket size: 1000 ns" ]
    printf '%s\n' "${lines[@]:5}" > "$D/ns.txt"
    {
        row 0 0 1; row 1000 0 2; row 2000 0 2; row 3000 2 0; row 5000 0 1; row 7000 1 0; row 255000 0 1
        row over: 0 2; row count: 3 9; row min: 3000 999; row avg: 4333 91721; row max: 7000 300000
    } > "$D/ns.expected"
    diff -u "$D/ns.expected" "$D/ns.txt"
    run --separate-stderr "$LATREC" hist "$D/H" --unit ms
    [ "${lines[1]}" = "# Time unit is milliseconds (ms)" ]
    [ "${lines[4]}" = "$(row 0 3 9)" ]
    [ "${lines[9]}" = "$(row max: 0 0)" ]
    run "$LATREC" hist "$D/H" --unit s
    [ "$status" -eq 2 ]
}

@test "hist --with-zeros, --no-header, --no-summary, --no-index" {
    run "$LATREC" hist "$D/H" --with-zeros
    # 4 header lines, 256 buckets, 5 summary rows.
    [ "${#lines[@]}" -eq $((4 + 256 + 5)) ]
    [ "${lines[8]}" = "$(row 4 0 0)" ]
    [ "${lines[259]}" = "$(row 255 0 1)" ]
    run "$LATREC" hist "$D/H" --no-header
    [ "${lines[0]}" = "$(row 0 0 1)" ]
    [ "${#lines[@]}" -eq $((7 + 5)) ]
    run "$LATREC" hist "$D/H" --no-summary
    [ "${#lines[@]}" -eq $((4 + 7)) ]
    [ "${lines[10]}" = "$(row 255 0 1)" ]
    run "$LATREC" hist "$D/H" --no-index --no-summary
    [ "${lines[3]}" = "$(printf '%14s %13s ' libe3/outbound libe3/inbound)" ]
    [ "${lines[4]}" = "$(printf '%14s %13s ' 0 1)" ]
    run "$LATREC" hist "$D/H" --no-index --no-header
    [ "${lines[7]}" = "$(printf '%14s %13s ' 0 2)" ]
}

@test "hist --leg: one column per hop; regressions in regr:" {
    run --separate-stderr "$LATREC" hist "$D/H" --component libe3 --leg inbound --no-header
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$(printf '%-6s%22s %9s ' 0 1 1)" ]
    run --separate-stderr "$LATREC" hist "$D/H" --component libe3 --leg inbound
    [ "${lines[3]}" = "$(printf '%-6s%22s %9s ' Index 'RECV->DECODE_E3AP_DONE' total)" ]
    # Without --component the hop labels name their leg.
    run --separate-stderr "$LATREC" hist "$D/H" --leg inbound
    [[ "${lines[3]}" == *"libe3/inbound:RECV->DECODE_E3AP_DONE libe3/inbound:total "* ]]
    # Clock regressions are counted apart, never bucketed.
    run --separate-stderr "$LATREC" hist "$D/R" --component libe3 --leg outbound --unit ns -b 500
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/r.txt"
    [[ "${lines[4]}" == "Index "*"ENQUEUE->DEQUEUE"*"total "* ]]
    run awk '$1 == "regr:" { print $2, $3, $4, $5, $6 } $1 == "count:" { print $2, $3, $4, $5, $6 }' "$D/r.txt"
    [ "${lines[0]}" = "8 10 10 0 10" ]
    [ "${lines[1]}" = "2 0 0 0 0" ]
    run awk '$1 == "2000" { print $2 }' "$D/r.txt"
    [ "$output" = 8 ]
    ! grep -q 18446744073709 "$D/r.txt"
    run "$LATREC" hist "$D/R" --component libe3 --leg outbound --format json
    "$PY" -c '
import json, sys
c = json.loads(sys.argv[1])["columns"][0]
assert c["name"] == "ENQUEUE->DEQUEUE" and c["count"] == 8 and c["regressions"] == 2 and c["min"] == 2.0, c' "$output"
    # A --hop pair that is not adjacent in the chain.
    run --separate-stderr "$LATREC" hist "$D/H" --hop ENQUEUE:SEND_DONE --no-summary
    [ "${lines[3]}" = "$(printf '%-6s%33s ' Index 'libe3/outbound:ENQUEUE->SEND_DONE')" ]
    [ "${lines[4]}" = "$(printf '%-6s%33s ' 3 2)" ]
    [ "${lines[5]}" = "$(printf '%-6s%33s ' 7 1)" ]
    [ "${#lines[@]}" -eq 6 ]
}

@test "hist --totals with --leg: one column per leg total" {
    run --separate-stderr "$LATREC" hist "$D/H" --leg inbound --totals --no-header --no-summary
    [ "${#lines[@]}" -eq 5 ]
    [ "${lines[0]}" = "$(printf '%-6s%13s ' 0 1)" ]
}

@test "hist: an empty column prints - for min/avg/max, never a sentinel" {
    run --separate-stderr "$LATREC" hist "$D/E"
    [ "$status" -eq 0 ]
    [ "${lines[3]}" = "$(printf '%-6s%13s ' Index libe3/inbound)" ]
    [ "${lines[4]}" = "$(printf '%-6s%13s ' over: 0)" ]
    [ "${lines[5]}" = "$(printf '%-6s%13s ' count: 0)" ]
    [ "${lines[6]}" = "$(printf '%-6s%13s ' min: -)" ]
    [ "${lines[7]}" = "$(printf '%-6s%13s ' avg: -)" ]
    [ "${lines[8]}" = "$(printf '%-6s%13s ' max: -)" ]
    [ "${#lines[@]}" -eq 9 ]
    run "$LATREC" hist "$D/E" --format json
    "$PY" -c '
import json, sys
c = json.loads(sys.argv[1])["columns"][0]
assert c["count"] == 0 and c["min"] is None and c["avg"] is None and c["max"] is None and c["buckets"] == [], c' "$output"
}

@test "hist --log2: power-of-two buckets with bars" {
    run --separate-stderr "$LATREC" hist "$D/H" --log2
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/l2.txt"
    stars() { printf '%*s' "$1" '' | tr ' ' '*'; }
    {
        echo "libe3/outbound (us), count 3"
        printf '%22s : count     distribution\n' us
        printf '%10llu -> %-10llu: %-9llu |%-40s|\n' 0 0 0 ''
        printf '%10llu -> %-10llu: %-9llu |%-40s|\n' 1 1 0 ''
        printf '%10llu -> %-10llu: %-9llu |%-40s|\n' 2 3 2 "$(stars 40)"
        printf '%10llu -> %-10llu: %-9llu |%-40s|\n' 4 7 1 "$(stars 20)"
        echo "libe3/inbound (us), count 9"
        printf '%22s : count     distribution\n' us
        printf '%10llu -> %-10llu: %-9llu |%-40s|\n' 0 0 1 "$(stars 20)"
        printf '%10llu -> %-10llu: %-9llu |%-40s|\n' 1 1 2 "$(stars 40)"
        printf '%10llu -> %-10llu: %-9llu |%-40s|\n' 2 3 2 "$(stars 40)"
        printf '%10llu -> %-10llu: %-9llu |%-40s|\n' 4 7 1 "$(stars 20)"
        for lo in 8 16 32 64; do
            printf '%10llu -> %-10llu: %-9llu |%-40s|\n' "$lo" $((2 * lo - 1)) 0 ''
        done
        printf '%10llu -> %-10llu: %-9llu |%-40s|\n' 128 255 1 "$(stars 20)"
        printf '%10llu -> %-10llu: %-9llu |%-40s|\n' 256 511 2 "$(stars 40)"
    } > "$D/l2.expected"
    diff -u "$D/l2.expected" "$D/l2.txt"
}

@test "hist --format csv and json" {
    run --separate-stderr "$LATREC" hist "$D/H" --format csv
    [ "$status" -eq 0 ]
    [ "${lines[*]}" = "index_us,libe3/outbound,libe3/inbound 0,0,1 1,0,2 2,0,2 3,2,0 5,0,1 7,1,0 255,0,1 over,0,2" ]
    run "$LATREC" hist "$D/H" --format csv --unit ns -b 1000 --with-zeros
    [ "${lines[0]}" = "index_ns,libe3/outbound,libe3/inbound" ]
    [ "${#lines[@]}" -eq $((1 + 256 + 1)) ]
    [ "${lines[4]}" = "3000,2,0" ]
    run "$LATREC" hist "$D/H" --format json
    "$PY" -c '
import json, sys
j = json.loads(sys.argv[1])
assert j["unit"] == "us" and j["bucket_size"] == 1 and j["entries"] == 256, j
o, i = j["columns"]
assert o["name"] == "libe3/outbound" and o["buckets"] == [[3, 2], [7, 1]] and o["over"] == 0 and o["count"] == 3, o
assert i["name"] == "libe3/inbound" and i["buckets"] == [[0, 1], [1, 2], [2, 2], [5, 1], [255, 1]], i
assert i["over"] == 2 and i["count"] == 9 and i["min"] == 0.999 and i["max"] == 300.0, i
assert abs(i["avg"] - 825497 / 9 / 1000) < 1e-6, i
assert [(b["low"], b["high"], b["count"]) for b in i["log2"]] == [(0, 0, 1), (1, 1, 2), (2, 3, 2), (4, 7, 1), (128, 255, 1), (256, 511, 2)], i
' "$output"
    run "$LATREC" hist "$D/H" --format xml
    [ "$status" -eq 2 ]
}

@test "hist --warm-up and selection" {
    # begin = T0 + 1 ms: a 50 ms warm-up leaves the outbound instances out.
    run --separate-stderr "$LATREC" hist "$D/H" --warm-up 50ms --no-header --no-summary
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$(printf '%-6s%13s ' 0 1)" ]
    # An unknown name is an error that lists the names there are.
    run --separate-stderr "$LATREC" hist "$D/H" --component nosuch
    [ "$status" -eq 1 ]
    [ -z "$output" ]
    [[ "$stderr" == "latrec hist: --component nosuch: no such component in this run (components: "*"libe3"*")" ]]
}

@test "hist on the libE3 fixtures: counts agree with report" {
    [ -n "${FIXTURES:-}" ] || skip "FIXTURES not set"
    run --separate-stderr "$LATREC" hist "$FIXTURES/libe3/b1_loop_clean" --component libe3 --leg inbound --format json
    [ "$status" -eq 0 ]
    "$PY" -c '
import json, sys
c = {x["name"]: x for x in json.loads(sys.argv[1])["columns"]}["RECV->DECODE_E3AP_DONE"]
assert c["count"] == 392 and c["min"] == 0.022 and c["max"] == 0.617 and c["regressions"] == 0, c
assert sum(n for _, n in c["buckets"]) + c["over"] == 392, c' "$output"
    run --separate-stderr "$LATREC" hist "$FIXTURES/libe3/b6_derived_malformed"
    [ "$status" -eq 1 ]
}

load guess

@test "hist on rings closed cleanly: the figures and lines of the rings scanned at open" {
    guess_specs
    for args in "C" "T" "M" "M C"; do
        for threads in 1 2; do
            for f in 0 1; do
                dirs=()
                for c in $args; do dirs+=("$D/g$f/$c"); done
                run --separate-stderr "$LATREC" hist --threads "$threads" "${dirs[@]}"
                eval "status$f=\$status out$f=\$output"
                err=${stderr//$D\/g$f/G}
                eval "err$f=\$err"
            done
            [ "$status0" -eq 0 ] && [ "$status1" -eq 0 ]
            [ "$out0" = "$out1" ]
            [ "$err0" = "$err1" ]
        done
    done
    # what the cases hold: 80 outbound instances, one without SEND_DONE
    # (T), the warning before the directories' note (M C)
    run --separate-stderr "$LATREC" hist --format json "$D/g1/T"
    "$PY" -c '
import json, sys
c = json.loads(sys.argv[1])["columns"][0]
assert c["count"] == 79, c' "$output"
    warning_before_dirs_note hist
}

@test "hist: a wrong name on rings closed cleanly: the two-writer warning before the line that says so, as at open" {
    guess_specs
    wrong_names_warning_first hist
}

@test "hist: a component named from a hostile ring name: escaped on a terminal, quoted in CSV, every byte in JSON" {
    # the ring's role (its name up to the first dot) names the component: ESC, 0xff, a comma, a quote
    mkdir -p "$D/odd"
    "$PY" - "$D/odd/x.101.latrec" <<'PY'
import struct, sys
name = b'e\x1b[31m\xff,q".101'
h = bytearray(4096)
struct.pack_into('<IIQQQQ', h, 0, 0x31524C41, 3, 16, 8, 1_999_000_000, 1_700_000_000_000_000_000)
h[40:40 + len(name)] = name
struct.pack_into('<II', h, 104, 32, 20)
struct.pack_into('<IIII', h, 128, 100, 101, 1, 1)
h[224:226] = b'e3'
body = b''
for seq, t in ((1, 2_000_000_000), (2, 2_001_000_000)):  # oai/source, totals 3 us
    for k, st in enumerate((0x10, 0x11, 0x18, 0x19)):
        body += struct.pack('<QQQQ', seq | st << 56, t + 1000 * k, 0, 0)
open(sys.argv[1], 'wb').write(h + body + bytes(32 * 16 - len(body)))
PY
    run --separate-stderr "$LATREC" hist -q "$D/odd"
    [ "$status" -eq 0 ]
    [[ "$output" != *$'\x1b'* && "$output" != *$'\xff'* ]]
    [[ "${lines[3]}" == 'Index e\x1b[31m\xff,q"/source ' ]]
    run --separate-stderr "$LATREC" hist -q --log2 "$D/odd"
    [[ "$output" != *$'\x1b'* ]]
    [[ "${lines[0]}" == 'e\x1b[31m\xff,q"/source (us), count 2' ]]
    # CSV: one field (the header had a column per comma)
    run --separate-stderr "$LATREC" hist -q --format csv "$D/odd"
    [ "$status" -eq 0 ]
    "$PY" -c '
import csv, io, sys
rows = list(csv.reader(io.StringIO(sys.argv[1])))
assert rows[0] == ["index_us", "e\x1b[31m\udcff,q\"/source"], rows[0]
assert rows[1] == ["3", "2"], rows
' "$output"
    # JSON: the name was null (jansson refuses a string that is not UTF-8)
    run --separate-stderr "$LATREC" hist -q --format json "$D/odd"
    [ "$status" -eq 0 ]
    "$PY" -c '
import json, sys
c = json.loads(sys.argv[1])["columns"][0]
assert c["name"] == "e\x1b[31m\\xff,q\"/source" and c["name_escaped"] is True and c["count"] == 2, c
' "$output"
}
