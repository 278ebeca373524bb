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

@test "one directory given twice (or through a link): refused in one line, not every stamp read twice" {
    mkdir -p "$D/twice"
    outbound_spec libe3.outbound.101 1000 4000000000 5 | "$GEN" "$D/twice"
    ln -sfn "$D/twice" "$D/twice.link"
    for cmd in report hist convert; do
        run --separate-stderr "$LATREC" "$cmd" -q -i "$D/twice" -i "$D/twice.link/"
        [ "$status" -eq 1 ] || { echo "$cmd: status $status"; return 1; }
        [ "$stderr" = "latrec $cmd: $D/twice and $D/twice.link/ are the same directory: give it once" ] ||
            { echo "$cmd: $stderr"; return 1; }
    done
    # once: its five legs, complete
    "$LATREC" report -q "$D/twice" --format json | jq -e '.legs[0].instances == 5 and .legs[0].complete == 5'
}

# Run latrec bounded: a regression must fail the test, not hang it or eat
# the machine's memory.
bounded() {
    run --separate-stderr bash -c 'ulimit -v 4000000; exec timeout 60 "$@"' _ "$LATREC" "$@"
}

one_line() { # EXPECTED: stderr is exactly that one line, status 1
    [ "$status" -eq 1 ] || { echo "status $status, stderr: $stderr"; return 1; }
    [ "$stderr" = "$1" ] || { echo "stderr: $stderr"; echo "wanted: $1"; return 1; }
}

good_dir() {
    if [ ! -d "$D/good" ]; then
        mkdir -p "$D/good"
        outbound_spec libe3.outbound.101 1000 4000000000 5 | "$GEN" "$D/good"
    fi
}

@test "--stages /dev/zero and --catalog /dev/zero: one line, no read" {
    good_dir
    bounded report "$D/good" --stages /dev/zero
    one_line "latrec report: /dev/zero: a character device, not a regular file"
    bounded hist "$D/good" --catalog /dev/zero
    one_line "latrec hist: /dev/zero: a character device, not a regular file"
}

@test "catalog line 'stages-from /dev/urandom': one line naming the catalog line" {
    good_dir
    printf 'catalog mine\nstages-from /dev/urandom\n' > "$D/urandom.catalog"
    bounded report "$D/good" --catalog "$D/urandom.catalog"
    one_line "latrec report: $D/urandom.catalog:2: stages-from: /dev/urandom: a character device, not a regular file"
}

@test "a FIFO as --catalog, as --stages, as a catalog's stages-from: refused at once" {
    good_dir
    mkfifo "$D/fifo"
    bounded report "$D/good" --catalog "$D/fifo"
    one_line "latrec report: $D/fifo: a FIFO, not a regular file"
    bounded convert "$D/good" -o "$D/fifo-out" --stages "$D/fifo"
    one_line "latrec convert: $D/fifo: a FIFO, not a regular file"
    [ ! -e "$D/fifo-out/records.csv" ]
    printf 'stages-from fifo\n' > "$D/fifo.catalog"
    bounded report "$D/good" --catalog "$D/fifo.catalog"
    one_line "latrec report: $D/fifo.catalog:1: stages-from: $D/fifo: a FIFO, not a regular file"
}

@test "a FIFO (or a directory) as run.json: one line, the rings still read" {
    mkdir -p "$D/fiforun"
    outbound_spec libe3.outbound.101 1000 4000000000 5 | "$GEN" "$D/fiforun"
    mkfifo "$D/fiforun/run.json"
    bounded report "$D/fiforun" --format json
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec report: $D/fiforun/run.json: a FIFO, not a regular file (ignored: no command, run times or start stamp from it)" ]
    [ "$(jq .header.records <<<"$output")" -eq 20 ]
    rm "$D/fiforun/run.json"
    mkdir "$D/fiforun/run.json"
    bounded hist -q "$D/fiforun"
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec hist: $D/fiforun/run.json: a directory, not a regular file (ignored: no command, run times or start stamp from it)" ]
    # valid JSON that is not an object (it was taken as a run with nothing in it, no word)
    rmdir "$D/fiforun/run.json"
    echo '[1, 2, 3]' > "$D/fiforun/run.json"
    bounded report -q "$D/fiforun"
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec report: $D/fiforun/run.json: not a run manifest: not a JSON object (ignored: no command, run times or start stamp from it)" ]
}

@test "run.json's start stamp without a time (mono_ns -1, a string, missing): one line, every record kept" {
    # (-1 was read as 2^64 - 1 ns: every record dropped before the start, no word)
    mkdir -p "$D/badstamp"
    outbound_spec libe3.outbound.101 1000 4000000000 5 | "$GEN" "$D/badstamp"
    for v in '{"mono_ns": -1}' '{"mono_ns": "4000000000"}' '{"source": "trace_marker"}' '7'; do
        printf '{"command": "x", "start_stamp": %s}\n' "$v" > "$D/badstamp/run.json"
        bounded report -q "$D/badstamp" --format json
        [ "$status" -eq 0 ]
        [ "$stderr" = "latrec report: $D/badstamp/run.json: start_stamp without a time (mono_ns, ns of CLOCK_MONOTONIC): ignored, every record kept" ] ||
            { echo "$v: $stderr"; return 1; }
        [ "$(jq '[.header.records, .header.dropped_before_start] | @csv' -r <<<"$output")" = "20,0" ] ||
            { echo "$v: $(jq -c .header <<<"$output")"; return 1; }
    done
    # a time: the records before it dropped, no line
    run_json "$D/badstamp" 4002500000
    bounded report -q "$D/badstamp" --format json
    [ -z "$stderr" ]
    [ "$(jq '[.header.records, .header.dropped_before_start] | @csv' -r <<<"$output")" = "8,12" ]
}

@test "a finished run whose rings are a link run.json does not name: the line says so, not that run.json names it" {
    mkdir -p "$D/linked/elsewhere" "$D/linked/run"
    outbound_spec libe3.outbound.101 1000 4000000000 5 | "$GEN" "$D/linked/elsewhere"
    ln -s "$D/linked/elsewhere" "$D/linked/run/rings"
    printf '{"format": "latrec-run", "state": "finished", "rings_dir": "rings"}\n' > "$D/linked/run/run.json"
    bounded report -q --format json "$D/linked/run"
    [ "$status" -eq 0 ]
    [ "$(jq .header.records <<<"$output")" -eq 20 ]
    bounded report --format json "$D/linked/run"
    [ "$stderr" = "latrec report: $D/linked/run: rings read from $D/linked/elsewhere, where $D/linked/run/rings links (run.json does not name it)" ]
    # the link run.json names (the rings left where they were written): as before
    printf '{"format": "latrec-run", "state": "failed", "rings_dir": "%s"}\n' "$D/linked/elsewhere" > "$D/linked/run/run.json"
    bounded report --format json "$D/linked/run"
    [ "$stderr" = "latrec report: $D/linked/run: rings read from $D/linked/elsewhere, where run.json says they are (not brought into the run directory)" ]
}

@test "a run directory with an ESC or a byte that is not UTF-8 in its name: run.json's lines escape it, as every other line does" {
    d="$D/esc"$'\e[31m'"x"$'\xff'
    e="$D/esc\\x1b[31mx\\xff" # the name as the lines give it
    mkdir -p "$d"
    outbound_spec libe3.outbound.101 1000 4000000000 5 | "$GEN" "$d"
    echo '{' > "$d/run.json"
    bounded report -q "$d" --format json
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec report: $e/run.json:2: not a run manifest: string or '}' expected near end of file" ]
    [ "$(jq .header.records <<<"$output")" -eq 20 ]
    echo '[]' > "$d/run.json"
    bounded hist -q "$d"
    [ "$stderr" = "latrec hist: $e/run.json: not a run manifest: not a JSON object (ignored: no command, run times or start stamp from it)" ]
    rm "$d/run.json"
    mkfifo "$d/run.json"
    bounded convert -q "$d" -o "$D/esc-out"
    [ "$stderr" = "latrec convert: $e/run.json: a FIFO, not a regular file (ignored: no command, run times or start stamp from it)" ]
    rm "$d/run.json"
    printf '{"state": "recording", "latrec_pid": 1}\n' > "$d/run.json"
    bounded report "$d" --format json
    [ "$stderr" = "latrec report: $e: its recording never finished (latrec pid 1 ended without finalising run.json: killed?)" ]
    # the rings' link: its target escaped too
    mkdir -p "$D/esc-run"
    ln -s "$d" "$D/esc-run/rings"
    printf '{"state": "finished", "rings_dir": "rings"}\n' > "$D/esc-run/run.json"
    bounded report "$D/esc-run" --format json
    [ "$stderr" = "latrec report: $D/esc-run: rings read from $e, where $D/esc-run/rings links (run.json does not name it)" ]
}

@test "a directory as --catalog: refused, not an empty catalog" {
    good_dir
    mkdir -p "$D/catdir"
    bounded report "$D/good" --catalog "$D/catdir"
    one_line "latrec report: $D/catdir: a directory, not a regular file"
}

@test "size limits: a catalog over 1 MiB, a header over 16 MiB, run.json over 16 MiB" {
    good_dir
    { echo "catalog big"; head -c $((1024 * 1024)) /dev/zero | tr '\0' '#'; echo; } > "$D/big.catalog"
    bounded report "$D/good" --catalog "$D/big.catalog"
    one_line "latrec report: $D/big.catalog: larger than the 1048576-byte limit of a catalog file"
    # exactly at the limit is read (a comment line too long is the next error)
    head -c $((1024 * 1024)) "$D/big.catalog" > "$D/limit.catalog"
    bounded report "$D/good" --catalog "$D/limit.catalog"
    one_line "latrec report: $D/limit.catalog:2: line too long"
    truncate -s $((16 * 1024 * 1024 + 1)) "$D/big.h"
    bounded report "$D/good" --stages "$D/big.h"
    one_line "latrec report: $D/big.h: larger than the 16777216-byte limit of a stage header"
    mkdir -p "$D/bigrun"
    cp "$D/good"/*.latrec "$D/bigrun/"
    truncate -s $((16 * 1024 * 1024 + 1)) "$D/bigrun/run.json"
    bounded report -q "$D/bigrun"
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec report: $D/bigrun/run.json: larger than the 16777216-byte limit of a run manifest (ignored: no command, run times or start stamp from it)" ]
}

@test "a NUL byte in a catalog or a header: one line, not a silent cut" {
    good_dir
    printf 'catalog x\nstage 1 A\0stage 2 B\n' > "$D/nul.catalog"
    bounded report "$D/good" --catalog "$D/nul.catalog"
    one_line "latrec report: $D/nul.catalog: a NUL byte at offset 19: not a text file"
    printf 'enum { A_X = 1, \0 A_Y = 2 };\n' > "$D/nul.h"
    bounded report "$D/good" --stages "$D/nul.h"
    one_line "latrec report: $D/nul.h: a NUL byte at offset 16: not a text file"
}

# Patch a ring file: rec_count, or one slot's t_ns (slot N).
set_rec_count() { "$PY" -c 'import struct,sys; f=open(sys.argv[1],"r+b"); f.seek(16); f.write(struct.pack("<Q", int(sys.argv[2])))' "$1" "$2"; }
clear_t_ns() { "$PY" -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(4096 + 32 * int(sys.argv[2]) + 8); f.write(bytes(8))' "$1" "$2"; }

@test "loss near 2^64 in one ring, near 2^63 in three: saturated lower bounds, never negative or wrapped" {
    mkdir -p "$D/loss1" "$D/loss3"
    # a full ring of 16 records (4 outbound legs)
    outbound_spec libe3.outbound.101 1000 4000000000 4 | "$GEN" "$D/loss1"
    set_rec_count "$D/loss1/libe3.outbound.101.latrec" 18446744073709551600 # 2^64 - 16
    run --separate-stderr "$LATREC" report "$D/loss1" --format json
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec report: $D/loss1/libe3.outbound.101.latrec: rec_count 18446744073709551600 is implausible: loss is not exact" ]
    # (jq reads numbers as doubles: python checks the exact integer)
    "$PY" -c 'import json,sys; h = json.loads(sys.argv[1])["header"]; assert h["lost"] == 2**63 - 1 and h["lost_is_lower_bound"] is True, h' "$output"
    run --separate-stderr "$LATREC" report -q "$D/loss1"
    [[ "${lines[2]}" == *"lost: 9223372036854775807 (at least)"* ]]
    for k in 1 2 3; do
        outbound_spec libe3.outbound.10$k 100$k 4000000000 4 | "$GEN" "$D/loss3"
        set_rec_count "$D/loss3/libe3.outbound.10$k.latrec" 6917529027641081856 # 1.5 * 2^62
    done
    "$LATREC" convert -q "$D/loss3" -o "$D/loss3/csv"
    run --separate-stderr "$LATREC" report "$D/loss3" --format json
    [ "$status" -eq 0 ]
    [ "$stderr" = "" ]
    # (jq reads numbers as doubles: python checks the exact integer)
    "$PY" -c 'import json,sys; h = json.loads(sys.argv[1])["header"]; assert h["lost"] == 2**63 - 1 and h["lost_is_lower_bound"] is True, h' "$output"
    # each ring's own figure is exact: 1.5 * 2^62 - 16
    [ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 1 { print $c["lost_records"] }' "$D/loss3/csv/rings.csv" | sort -u)" = 6917529027641081840 ]
}

@test "torn slots (payload, no stamp) are counted in the header, JSON and rings.csv" {
    mkdir -p "$D/torn"
    outbound_spec libe3.outbound.101 1000 4000000000 5 | "$GEN" "$D/torn"
    # a 32-slot ring holding 20 records: slot 3 and slot 10 torn
    clear_t_ns "$D/torn/libe3.outbound.101.latrec" 3
    clear_t_ns "$D/torn/libe3.outbound.101.latrec" 10
    run --separate-stderr "$LATREC" report "$D/torn" --format json
    [ "$status" -eq 0 ]
    [ "$(jq .header.torn_slots <<<"$output")" -eq 2 ]
    [ "$(jq .header.records <<<"$output")" -eq 18 ]
    [ "$(jq .header.lapped <<<"$output")" -eq 0 ] # nobody writes it: no slot lapped
    run --separate-stderr "$LATREC" report "$D/torn"
    [[ "${lines[2]}" == *"  torn slots: 2" ]]
    "$LATREC" convert -q "$D/torn" -o "$D/torn/csv"
    [ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 1 { print $c["torn_slots"], $c["valid"], $c["lapped"] }' "$D/torn/csv/rings.csv")" = "2 18 0" ]
}

@test "a ring on another clock (clock_id 7) is refused with one line; the monotonic rings beside it are read" {
    mkdir -p "$D/clk"
    { outbound_spec libe3.outbound.101 1000 4000000000 5; outbound_spec libe3.outbound.102 1000 4000000000 3; } |
        "$GEN" "$D/clk"
    "$PY" -c 'import struct,sys; f=open(sys.argv[1],"r+b"); f.seek(140); f.write(struct.pack("<I", 7))' \
        "$D/clk/libe3.outbound.102.latrec"
    run --separate-stderr "$LATREC" report -q "$D/clk" --format json
    [ "$status" -eq 3 ] # some rings skipped
    [ "$stderr" = "latrec report: $D/clk/libe3.outbound.102.latrec: clock_id 7: stamps not on CLOCK_MONOTONIC (1), not comparable with the other rings" ]
    [ "$(jq .header.rings_skipped <<<"$output")" -eq 1 ]
    [ "$(jq .header.records <<<"$output")" -eq 20 ]
}
