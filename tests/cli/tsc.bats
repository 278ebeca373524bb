#!/usr/bin/env bats
# TSC rings and clock rings in one run, through the real reader.
#
# Environment (set by tests/unit/tsc.cmake): LATREC = the latrec binary,
# GEN = gen_synthetic, MIXED = tsc_mixed (writes a TSC ring and a clock ring
# of one leg from one process), E3LOOP = the bundled e3loop workload.
#
# Synthetic run M: ring oai.104 is a TSC ring with three calibration pairs
# (about 3 counts per ns, two segment rates); libe3.outbound.101 is a clock
# ring. ENQUEUE on oai.104 at TSC counts spread over both segments and past
# the last pair; DEQUEUE on libe3.outbound.101 at the ENQUEUE's monotonic
# time (computed here with Python's integers, by the rule of
# latrec-format(5)) + 2000 + (i mod 7) ns. So the ENQUEUE->DEQUEUE hop is
# exactly 2.000..2.006 us if and only if the reader converts as documented.

bats_require_minimum_version 1.5.0

setup_file() {
    : "${LATREC:?LATREC must name the latrec binary}" "${GEN:?GEN must name gen_synthetic}"
    : "${MIXED:?MIXED must name tsc_mixed}" "${E3LOOP:?E3LOOP must name the e3loop workload}"
    export D="$BATS_FILE_TMPDIR"
    if [ -x /usr/bin/python3 ]; then export PY=/usr/bin/python3; else export PY=python3; fi
    "$PY" - "$D" <<'PYEOF'
import sys
D = sys.argv[1]
P = [(1_000_000, 2_000_000_000), (6_001_000_007, 4_000_000_000), (15_001_000_007, 7_000_000_003)]

def conv(t):
    (t0, m0), (tz, mz) = P[0], P[-1]
    if t >= tz:
        return mz + (t - tz) * (mz - m0) // (tz - t0)
    for (a, ma), (b, mb) in zip(P, P[1:]):
        if a <= t < b:
            return ma + (t - a) * (mb - ma) // (b - a)
    raise ValueError(t)

spec = ["ring oai.104", "ring libe3.outbound.101"] + [f"cal oai.104 {t} {m}" for t, m in P]
expect = []
out = []
for i in range(1, 131):
    t = P[0][0] + i * 120_000_017
    m = conv(t)
    d = m + 2000 + i % 7
    spec.append(f"rec oai.104 ENQUEUE {i} {t}")
    out += [f"rec libe3.outbound.101 DEQUEUE {i} {d}",
            f"rec libe3.outbound.101 ENCODE_E3AP_DONE {i} {d + 500} 100",
            f"rec libe3.outbound.101 SEND_DONE {i} {d + 3500}"]
    expect.append(f"{m},oai.104,{i}")
open(f"{D}/spec_M", "w").write("\n".join(spec + out) + "\n")
open(f"{D}/expect_M", "w").write("\n".join(expect) + "\n")
PYEOF
    "$GEN" "$D/M" < "$D/spec_M"
}

csvval() {
    awk -F, -v c="$2" -v l="$3" -v h="$4" -v k="$5" '
        NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        $1 == c && $2 == l && $3 == h { print $(idx[k]); n++ }
        END { if (n != 1) exit 1 }' "$1"
}

@test "tsc: a TSC ring's records convert exactly to the documented monotonic times" {
    [ "$(head -c 4 "$D/M/oai.104.latrec")" = ALRT ]
    [ "$(head -c 4 "$D/M/libe3.outbound.101.latrec")" = ALR1 ]
    "$LATREC" convert -q -o "$D/m_csv" "$D/M"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
             $idx["ring"] == "oai.104" { print $idx["t_ns"] "," $idx["ring"] "," $idx["seq"] }' \
        "$D/m_csv/records.csv" | sort -t, -k3n > "$D/got_M"
    diff "$D/expect_M" "$D/got_M"
}

@test "tsc: a hop from a TSC ring to a clock ring is exact in the report" {
    "$LATREC" report "$D/M" --format csv > "$D/m.csv"
    [ "$(csvval "$D/m.csv" libe3 outbound ENQUEUE-\>DEQUEUE count)" = 130 ]
    [ "$(csvval "$D/m.csv" libe3 outbound ENQUEUE-\>DEQUEUE min_us)" = 2.000 ]
    [ "$(csvval "$D/m.csv" libe3 outbound ENQUEUE-\>DEQUEUE max_us)" = 2.006 ]
    [ "$(csvval "$D/m.csv" libe3 outbound ENQUEUE-\>DEQUEUE regressions)" = 0 ]
    [ "$(csvval "$D/m.csv" libe3 outbound total max_us)" = 5.506 ]
}

# rings.csv's timebase columns of ring file $2 (a basename): "timebase
# tsc_pairs tsc_pairs_taken", by column name (a CSV reader: the error
# column before them may hold quoted commas).
ring_timebase() {
    "$PY" - "$1" "$2" <<'PYEOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["file"] == sys.argv[2]]
assert len(rows) == 1, rows
r = rows[0]
print(r["timebase"], r["tsc_pairs"], r["tsc_pairs_taken"])
PYEOF
}

# A ring file's calibration pairs straight from its header (latrec-format(5):
# cal_taken u64 at 264, pairs {tsc, mono_ns} at 512, 128 slots, mono_ns 0 =
# empty): "NONEMPTY TAKEN".
header_pairs() {
    "$PY" - "$1" <<'PYEOF'
import struct, sys
h = open(sys.argv[1], "rb").read(4096)
taken = struct.unpack_from("<Q", h, 264)[0]
pairs = [struct.unpack_from("<QQ", h, 512 + 16 * k) for k in range(128)]
print(sum(1 for t, m in pairs if m), taken)
PYEOF
}

@test "tsc: rings.csv says each ring's timebase and its calibration pairs" {
    "$GEN" "$D/T" <<'EOF'
ring oai.7
cal oai.7 1000000 1000000000
cal oai.7 4000000 2000000000
cal oai.7 3000000 2500000000
cal oai.7 9000000 4000000000
rec oai.7 ENQUEUE 1 5000000
ring libe3.outbound.8
rec libe3.outbound.8 DEQUEUE 1 3000000000
EOF
    "$LATREC" convert -q -o "$D/t_csv" "$D/T"
    # four pairs taken, one out of order: three convert
    [ "$(ring_timebase "$D/t_csv/rings.csv" oai.7.latrec)" = "tsc 3 4" ]
    [ "$(ring_timebase "$D/t_csv/rings.csv" libe3.outbound.8.latrec)" = "clock  " ]
    grep -q '^oai.7.latrec,.*1 TSC calibration pairs out of order, ignored' "$D/t_csv/rings.csv"
    "$LATREC" convert -q -o "$D/m_csv2" "$D/M"
    [ "$(ring_timebase "$D/m_csv2/rings.csv" oai.104.latrec)" = "tsc 3 3" ]
}

need_invariant_tsc() {
    if ! grep -m1 '^flags' /proc/cpuinfo | grep -qw nonstop_tsc ||
       ! grep -m1 '^flags' /proc/cpuinfo | grep -qw constant_tsc; then
        skip "this host's TSC is not invariant: the library stamps the clock instead"
    fi
}

@test "tsc: the library's TSC ring and clock ring of one process, in one report" {
    need_invariant_tsc
    mkdir -p "$D/W"
    "$MIXED" "$D/W" 200 20000
    [ "$(head -c 4 "$D/W/oai.1.latrec")" = ALRT ]
    "$LATREC" report "$D/W" --format csv > "$D/w.csv"
    [ "$(csvval "$D/w.csv" libe3 outbound ENQUEUE-\>DEQUEUE count)" = 200 ]
    [ "$(csvval "$D/w.csv" libe3 outbound ENQUEUE-\>DEQUEUE regressions)" = 0 ]
    # at least the 20 us spin, less a conversion error of a few ns
    min=$(csvval "$D/w.csv" libe3 outbound ENQUEUE-\>DEQUEUE min_us)
    awk -v m="$min" 'BEGIN { exit !(m >= 19.990) }'
}

@test "tsc: e3loop recorded with two roles on the TSC: start stamp, joins and legs as with the clock" {
    need_invariant_tsc
    command -v jq >/dev/null || skip "jq is not installed (apt-get install jq)"
    if [ "$(id -u)" -eq 0 ] && grep -qw tracefs /proc/filesystems &&
        ! mountpoint -q /sys/kernel/tracing; then
        mount -t tracefs nodev /sys/kernel/tracing
    fi
    run env LATREC_CLOCK_OAI=tsc LATREC_CLOCK_DAPP=tsc \
        "$LATREC" record -q -o "$D/e3" -- "$E3LOOP" --duration 2 --threads 2 --rate 1000
    [ "$status" -eq 0 ]
    # the chosen roles stamp the TSC, the others the clock
    for f in "$D"/e3/rings/oai.[0-9]*.latrec "$D"/e3/rings/dapp.*.latrec; do
        [ "$(head -c 4 "$f")" = ALRT ]
    done
    for f in "$D"/e3/rings/libe3.*.latrec "$D"/e3/rings/oai.ctrl.*.latrec; do
        [ "$(head -c 4 "$f")" = ALR1 ]
    done
    # run.json and rings.csv say so, with the pairs the headers hold (the
    # two open pairs and one at close at least)
    "$LATREC" convert -q -o "$D/e3csv" "$D/e3"
    for f in "$D"/e3/rings/*.latrec; do
        b=$(basename "$f")
        tb=$(jq -r --arg n "$b" '.collectors.rings.files[] | select(.name == $n) | .timebase' "$D/e3/run.json")
        pairs=$(jq -r --arg n "$b" '.collectors.rings.files[] | select(.name == $n) | .tsc_pairs' "$D/e3/run.json")
        if [ "$(head -c 4 "$f")" = ALRT ]; then
            read -r n taken < <(header_pairs "$f")
            [ "$n" -ge 3 ]
            [ "$tb $pairs" = "tsc $n" ]
            [ "$(ring_timebase "$D/e3csv/rings.csv" "$b")" = "tsc $n $taken" ]
        else
            [ "$tb $pairs" = "clock null" ]
            [ "$(ring_timebase "$D/e3csv/rings.csv" "$b")" = "clock  " ]
        fi
    done
    # every record, converted, after the run's start stamp; none dropped
    jq -e '.collectors.rings.dropped_before_start == 0' "$D/e3/run.json"
    jq -e '.collectors.rings.first_record_mono_ns > .start_stamp.mono_ns' "$D/e3/run.json"
    start="$(jq -r .start_stamp.mono_ns "$D/e3/run.json")"
    awk -F, -v s="$start" 'NR == 1 { next } { n++; if ($1 + 0 < s + 0) bad++ }
        END { if (n < 1000 || bad) { print n " records, " bad " before the start stamp"; exit 1 } }' \
        "$D/e3csv/records.csv"
    # the outbound leg crosses from the producer's TSC ring to the publisher's
    # clock ring: joined, and never a clock regression
    "$LATREC" report "$D/e3" --format csv > "$D/e3.csv"
    [ "$(csvval "$D/e3.csv" libe3 outbound ENQUEUE-\>DEQUEUE count)" -gt 1000 ]
    [ "$(csvval "$D/e3.csv" libe3 outbound ENQUEUE-\>DEQUEUE regressions)" = 0 ]
    [ "$(csvval "$D/e3.csv" libe3 outbound total regressions)" = 0 ]
}
