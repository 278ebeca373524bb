#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# A ring whose header name is not UTF-8 (bytes from the outside world): the
# JSON of top and report keeps its ring and leg rows, the name escaped as
# \xHH with "<key>_escaped": true (read/escape.h), instead of a row with no
# name or a ring left out of the list.
#
# Needs: LATREC, E3LOOP (ctest sets both), python3.

setup_file() {
    : "${LATREC:?set LATREC to the latrec binary}"
    : "${E3LOOP:?set E3LOOP to the e3loop workload}"
    export RUN="$BATS_FILE_TMPDIR/run"
    "$LATREC" record -q --no-sched -o "$RUN" -- "$E3LOOP" --duration 1 --rate 500
    # the oai ring's name (header offset 40, 64 bytes): oai<0xff>.1
    python3 - "$RUN"/rings/oai.[0-9]*.latrec <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(40)
    f.write(b"oai\xff.1".ljust(64, b"\0"))
PY
}

@test "top --format json: the ring and the oai legs kept, their names escaped and flagged" {
    run --separate-stderr "$LATREC" top --format json "$RUN"
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/top.jsonl"
    python3 - "$BATS_TEST_TMPDIR/top.jsonl" <<'PY'
import json, sys
last = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
rings = {r["ring"]: r for r in last["rings"]}
assert len(rings) == 5, sorted(rings)
bad = rings.get("oai\\xff.1")
assert bad and bad["ring_escaped"] is True and bad["read"] > 0, rings
assert all("leg" in r for r in last["legs"]), last["legs"]
oai = [r for r in last["legs"] if r["leg"].startswith("oai\\xff/")]
assert oai and all(r["leg_escaped"] is True and r["all"]["count"] > 0 for r in oai), last["legs"]
PY
}

@test "report --format json: every leg has its component, the escaped one flagged" {
    run --separate-stderr "$LATREC" report -q --format json "$RUN"
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/report.json"
    python3 - "$BATS_TEST_TMPDIR/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert all("component" in l for l in r["legs"]), [l.get("component") for l in r["legs"]]
oai = [l for l in r["legs"] if l["component"] == "oai\\xff"]
assert oai and all(l["component_escaped"] is True for l in oai), [l["component"] for l in r["legs"]]
PY
}

@test "top's text tables: the name escaped once (\\xff), not again by the table library" {
    run --separate-stderr "$LATREC" top "$RUN"
    [ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
    grep -q '^oai\\xff/source  *total ' <<<"$output" || { echo "$output"; return 1; }
    grep -q '^oai\\xff\.1 ' <<<"$output" || { echo "$output"; return 1; }
    if grep -q 'x5c' <<<"$output"; then echo "$output"; return 1; fi
}
