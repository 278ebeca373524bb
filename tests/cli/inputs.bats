#!/usr/bin/env bats
# What latrec reads besides the rings' records: run.json, catalogs, stage
# headers, and the figures taken from ring headers (loss, torn slots, clock
# ids), each bad input answered by one line naming the file.
#
# Environment (set by tests/unit/inputs.cmake): LATREC = the latrec binary,
# GEN = gen_synthetic, FIXTURES = tests/fixtures.

bats_require_minimum_version 1.5.0

setup_file() {
    : "${LATREC:?LATREC must name the latrec binary}" "${GEN:?GEN must name gen_synthetic}"
    export D="$BATS_FILE_TMPDIR"
    if [ -x /usr/bin/python3 ]; then export PY=/usr/bin/python3; else export PY=python3; fi
}

# outbound legs i = 0..N-1 of ring NAME (pid PID), first ENQUEUE at T ns,
# one every millisecond; hops 2, 0.5 and 3 us.
outbound_spec() { # NAME PID T N
    echo "ring $1 pid=$2"
    for ((i = 0; i < $4; i++)); do
        t=$(($3 + i * 1000000))
        echo "rec $1 ENQUEUE $((i + 1)) $t"
        echo "rec $1 DEQUEUE $((i + 1)) $((t + 2000))"
        echo "rec $1 ENCODE_E3AP_DONE $((i + 1)) $((t + 2500)) 64"
        echo "rec $1 SEND_DONE $((i + 1)) $((t + 5500))"
    done
}

run_json() { # DIR START_MONO_NS
    printf '{"command": "x", "start_stamp": {"mono_ns": %s, "source": "trace_marker"}}\n' "$2" > "$1/run.json"
}

@test "several directories: each directory's records are filtered by its own start stamp" {
    # A: 20 legs from 4 s, its stamp at 4.0095 s (10 legs before it);
    # B: 20 legs from 2 s, its stamp at 2.0045 s (5 legs before it).
    mkdir -p "$D/sd/A" "$D/sd/B"
    outbound_spec libe3.outbound.101 1000 4000000000 20 | "$GEN" "$D/sd/A"
    outbound_spec libe3.outbound.201 2000 2000000000 20 | "$GEN" "$D/sd/B"
    run_json "$D/sd/A" 4009500000
    run_json "$D/sd/B" 2004500000
    "$LATREC" report -q "$D/sd/A" "$D/sd/B" --format json > "$D/sd.json"
    "$PY" - "$D/sd.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
h = j["header"]
assert h["dropped_before_start"] == 4 * (10 + 5), h
assert h["records"] == 4 * (10 + 15), h
legs = {(l["component"], l["leg"]): l for l in j["legs"]}
ob = legs[("libe3", "outbound")]
assert ob["instances"] == 25 and ob["complete"] == 25, ob
PYEOF
    # convert agrees: the same records kept
    "$LATREC" convert -q "$D/sd/A" "$D/sd/B" -o "$D/sd/csv"
    [ "$(tail -n +2 "$D/sd/csv/records.csv" | wc -l)" -eq 100 ]
}
