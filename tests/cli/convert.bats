#!/usr/bin/env bats
# latrec convert: rings.csv, records.csv and <component>.csv checked against
# libE3's reference reader/converter outputs (tests/fixtures/libe3-reference)
# where the reference is right, against values computed here (python3,
# integer arithmetic) where it is not, and against synthetic rings written
# byte by byte (convert_rings.py). Its output directory, the chrome trace,
# --wall and --watch: convert_output.bats.
#
# Environment (set by ctest, see tests/unit/cli.cmake):
#   LATREC    the latrec binary (default: latrec in PATH)
#   FIXTURES  tests/fixtures (default: next to this file)

bats_require_minimum_version 1.5.0
load nobody
load convert_common

# ---------------------------------------------------------------------------
# rings.csv

@test "rings.csv: b1_loop_clean agrees with the reference reader, ring by ring" {
    convert -q "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    run lr rings "$OUT/rings.csv" "$REF/b1_loop_clean/reader_dump.json" "$REF/b1_loop_clean/csv/rings.csv"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "7 rings agree" ]
}

@test "rings.csv: b2_loop_wrap, oai.19980 wrapped with 1724 lost (exact, rec_count fresh)" {
    convert -q "$RINGS/b2_loop_wrap"
    [ "$status" -eq 0 ]
    run lr rings "$OUT/rings.csv" "$REF/b2_loop_wrap/reader_dump.json" "$REF/b2_loop_wrap/csv/rings.csv"
    echo "$output"
    [ "$status" -eq 0 ]
    # the one wrapped ring, spelled out: valid, wrapped, lost, lower bound, descents
    run awk -F, '$2 == "oai.19980" { print $8, $9, $10, $11, $12 }' "$OUT/rings.csv"
    [ "$output" = "4096 1 1724 0 1" ]
    [ "$(awk -F, 'NR > 1 && $9 == 1' "$OUT/rings.csv" | wc -l)" -eq 1 ]
}

@test "rings.csv: b4_limits (empty ring, field limits, stamp_at ring)" {
    convert -q "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    run lr rings "$OUT/rings.csv" "$REF/b4_limits/reader_dump.json" "$REF/b4_limits/csv/rings.csv"
    echo "$output"
    [ "$status" -eq 0 ]
    run awk -F, '$2 == "ex.empty" { print $7, $8, $9, $10 }' "$OUT/rings.csv"
    [ "$output" = "0 0 0 0" ]
}

@test "rings.csv: a2_real_bench_log2_12 (v1, never-flushed rings with rec_count 0)" {
    convert -q "$RINGS/a2_real_bench_log2_12"
    [ "$status" -eq 0 ]
    run lr rings "$OUT/rings.csv" "$REF/a2_real_bench_log2_12/reader_dump.json" "$REF/a2_real_bench_log2_12/csv/rings.csv"
    echo "$output"
    [ "$status" -eq 0 ]
    # v1 has no rec_size field: reported as 32; the enq rings never flushed
    run awk -F, '$2 == "libe3.enq.19261" { print $3, $6, $7, $8, $9, $10, $11 }' "$OUT/rings.csv"
    [ "$output" = "1 32 0 1081 0 0 0" ]
    run awk -F, '$2 == "libe3.pub" { print $7, $8, $9, $10, $11 }' "$OUT/rings.csv"
    [ "$output" = "6378 4096 1 2282 0" ]
}

@test "rings.csv: better than the reference: a short ring with a stamp_at inversion is not wrapped" {
    # 5 records in a 16-entry ring, the third stamped 6 ms before the second
    # (stamp_at): the reference calls it wrapped; it cannot have wrapped.
    mkdir -p "$BATS_TEST_TMPDIR/inv"
    printf '%s\n' "1 0x21 10000000 0 0" "2 0x21 11000000 0 0" "3 0x21 5000000 0 0" \
        "4 0x21 12000000 0 0" "5 0x21 13000000 0 0" |
        lr mkring "$BATS_TEST_TMPDIR/inv/x.7.latrec" 2 x.7 16 5
    convert -q "$BATS_TEST_TMPDIR/inv"
    [ "$status" -eq 0 ]
    # valid wrapped lost lower_bound descents status
    run awk -F, 'NR == 2 { print $8, $9, $10, $11, $12, $27 }' "$OUT/rings.csv"
    [ "$output" = "5 0 0 0 1 ok" ]
    # and the ring's write order is kept (a local inversion is not reordered)
    run awk -F, 'NR > 1 { printf "%s ", $6 }' "$OUT/records.csv"
    [ "$output" = "1 2 3 4 5 " ]
}

@test "rings.csv: better than the reference: a killed writer's wrapped ring reports a lower-bound loss" {
    # 21 records into 16 slots (newest in slot 4), rec_count 0 (never
    # flushed): at least 21 written, so at least 5 lost (the reference: 0).
    mkdir -p "$BATS_TEST_TMPDIR/killed"
    for i in $(seq 1 21); do echo "$i 0x21 $((2000000000 + i * 1000)) 0 0"; done |
        lr mkring "$BATS_TEST_TMPDIR/killed/k.9.latrec" 2 k.9 16 0
    convert -q "$BATS_TEST_TMPDIR/killed"
    [ "$status" -eq 0 ]
    # rec_count valid wrapped lost lower_bound
    run awk -F, 'NR == 2 { print $7, $8, $9, $10, $11 }' "$OUT/rings.csv"
    [ "$output" = "0 16 1 5 1" ]
    # the 16 survivors, oldest first: seqs 6..21
    run awk -F, 'NR > 1 { printf "%s ", $6 }' "$OUT/records.csv"
    [ "$output" = "6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 " ]
}

# ---------------------------------------------------------------------------
# records.csv

@test "records.csv: every valid record once, time-ordered, same content as the reference (all four scenarios)" {
    for s in b1_loop_clean b2_loop_wrap b4_limits a2_real_bench_log2_12; do
        rm -rf "$OUT"
        convert -q "$RINGS/$s"
        [ "$status" -eq 0 ]
        run lr records "$OUT/records.csv" "$REF/$s/csv/records.csv.gz" "$OUT/rings.csv"
        echo "$s: $output"
        [ "$status" -eq 0 ]
    done
}

@test "records.csv: a large wrapped ring is read whole (pages released behind the read position)" {
    # 2^16 slots, 75536 records written: wrapped at slot 10000 (not on a page
    # boundary); convert drops the mapping's pages behind its read position
    # 1 MiB at a time, across the wrap: every record must still come out.
    d="$BATS_TEST_TMPDIR/big"
    mkdir -p "$d"
    "$PY" - "$LR" "$d/big.5.latrec" <<'PY'
import sys, importlib.util
spec = importlib.util.spec_from_file_location('lr', sys.argv[1]); lr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lr)
lr.mkring(sys.argv[2], 2, 'big.5', 1 << 16, 75536,
          [(s, 0x21, 3000000000 + 1000 * s, 3 * s, s & 7) for s in range(1, 75537)])
PY
    convert -q "$d"
    [ "$status" -eq 0 ]
    run "$PY" - "$OUT/records.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 65536, len(rows)
for i, r in enumerate(rows):
    s = 10001 + i
    assert (int(r['seq']), int(r['t_ns']), int(r['aux']), int(r['aux2'])) == (s, 3000000000 + 1000 * s, 3 * s, s & 7), r
print('ok')
PY
    echo "$output"
    [ "$output" = "ok" ]
    run awk -F, 'NR == 2 { print $8, $9, $10, $11 }' "$OUT/rings.csv"
    [ "$output" = "65536 1 10000 0" ]
}

@test "records.csv: b4 field limits round-trip (48-bit seq, 64-bit payloads, stage 0x00/0xFF)" {
    convert -q "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    grep -q ',ex.limits,libe3,,0,281474976710655,[0-9]*,33,ENQUEUE,outbound,18446744073709551615,18446744073709551615$' "$OUT/records.csv"
    grep -q ',ex.limits,libe3,,0,281474976710655,[0-9]*,114,CONTEXT,context,16045690984503098046,81985529216486895$' "$OUT/records.csv"
    grep -q ',ex.limits,libe3,,0,0,[0-9]*,37,RECV,inbound,1,2$' "$OUT/records.csv"
    grep -q ',ex.limits,libe3,,0,7,[0-9]*,255,0xFF,,18446744073709551615,0$' "$OUT/records.csv"
    grep -q ',ex.limits,libe3,,0,6,[0-9]*,0,0x00,,0,0$' "$OUT/records.csv"
}

# ---------------------------------------------------------------------------
# <component>.csv

@test "tables: b1_loop_clean rows and complete per leg as the reference, differences listed" {
    convert -q "$RINGS/b1_loop_clean"
    [ "$status" -eq 0 ]
    # complete means the leg's whole catalog chain: the dApp's source rows
    # hold only ENCODE_E3SM_*, and the outbound halves in dapp.csv/oai.csv
    # (EMIT_ENTER, ENQUEUE) cannot join their libe3 halves because v2 rings
    # carry no pid (one process per component is assumed).
    run lr tables "$OUT" "$REF/b1_loop_clean/latrec2csv.stdout.txt" \
        dapp.csv:source:49:0 dapp.csv:outbound:49:0 oai.csv:outbound:294:0
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "15 legs agree" ]
    # msg_id is one column for outbound (SEND_DONE.aux) and inbound
    # (DECODE_E3AP_DONE.aux): each leg's rows carry their own stage's value
    run lr keys "$OUT/libe3.csv" "$OUT/records.csv" outbound:msg_id:SEND_DONE:aux inbound:msg_id:DECODE_E3AP_DONE:aux
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "outbound msg_id: 392 values; inbound msg_id: 392 values" ]
}

@test "tables: b2_loop_wrap rows and complete per leg as the reference, differences listed" {
    convert -q "$RINGS/b2_loop_wrap"
    [ "$status" -eq 0 ]
    # + oai source: one more row, the WAIT_ENTER of seq 237 whose chain the
    # wrap overwrote (the reference drops rows holding extras only)
    run lr tables "$OUT" "$REF/b2_loop_wrap/latrec2csv.stdout.txt" \
        dapp.csv:source:133:0 dapp.csv:outbound:133:0 oai.csv:outbound:552:0 oai.csv:source:564:551
    echo "$output"
    [ "$status" -eq 0 ]
    run awk -F, '$1 == "source" && $3 == 237 { print $4, ($9 != "") }' "$OUT/oai.csv"
    [ "$output" = "0 1" ]
}

@test "tables: b4_limits rows and complete per leg, extras-only rows and uncatalogued stages kept" {
    convert -q "$RINGS/b4_limits"
    [ "$status" -eq 0 ]
    # source +1 (SKIPPED-only seq 10), outbound +2 (EMIT_ENTER-only seq 3,
    # DROP-only seq 5), e2sm_out incomplete (ENCODE_E2SM_BEGIN missing),
    # stages 0x00/0xFF/0x7F become discovered legs instead of vanishing.
    run lr tables "$OUT" "$REF/b4_limits/latrec2csv.stdout.txt" \
        libe3.csv:source:3:0 libe3.csv:outbound:14:0 libe3.csv:e2sm_out:1:0 \
        libe3.csv:0x00:1:1 libe3.csv:0xFF:1:1 libe3.csv:0x7F:1:1
    echo "$output"
    [ "$status" -eq 0 ]
    # the DROP-only row keeps its DROP stamp; seq 2^48-1 joins ENQUEUE,
    # DEQUEUE and SEND_DONE with ENQUEUE->DEQUEUE 105.119 us
    run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } $1 == "outbound" && $3 == 5 { print $4, $(c["DROP_ns"]) != "", $(c["ENQUEUE_ns"]) == "" }' "$OUT/libe3.csv"
    [ "$output" = "0 1 1" ]
    run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } $1 == "outbound" && $3 == 281474976710655 { print $(c["ENQUEUE__DEQUEUE_us"]), $(c["msg_id"]) }' "$OUT/libe3.csv"
    [ "$output" = "105.119 4294967295" ]
}

@test "tables: a2 under the built-in catalog as the reference (mislabelled SETUP/SUB), plus the uncatalogued 0x39" {
    convert -q "$RINGS/a2_real_bench_log2_12"
    [ "$status" -eq 0 ]
    run lr tables "$OUT" "$REF/a2_real_bench_log2_12/latrec2csv.stdout.txt" libe3.csv:0x39:9:9
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "tables: hop, total, stamp and key values equal the reference's, row by row" {
    for s in b1_loop_clean b2_loop_wrap b4_limits a2_real_bench_log2_12; do
        rm -rf "$OUT"
        convert -q "$RINGS/$s"
        [ "$status" -eq 0 ]
        # dapp source_total_us: the reference totals the stages the table
        # holds (ENCODE_E3SM_BEGIN->DONE); ours is RECORD_BEGIN->ENCODE_E3SM_DONE,
        # empty when RECORD_BEGIN is absent.
        run lr values "$OUT" "$REF/$s/csv" dapp.csv:source_total_us
        echo "$s: $output"
        [ "$status" -eq 0 ]
    done
    # spot check, by seq: the source hops of oai seq 1 in b1 (reference:
    # 0.073, 5.029, 0.215)
    rm -rf "$OUT"
    convert -q "$RINGS/b1_loop_clean"
    run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } $1 == "source" && $3 == 1 { print $(c["RECORD_BEGIN__PROCESS_BEGIN_us"]), $(c["ENCODE_E3SM_DONE__WAIT_ENTER_us"]), $(c["source_total_us"]) }' "$OUT/oai.csv"
    [ "$output" = "0.073 5.029 0.215" ]
}

@test "tables: no CSV header repeats a column name (the reference's libe3.csv repeats DROP_ns)" {
    run lr hasdup "$REF/b1_loop_clean/csv/libe3.csv.gz" DROP_ns
    [ "$status" -eq 0 ]
    for s in b1_loop_clean b2_loop_wrap b4_limits a2_real_bench_log2_12; do
        rm -rf "$OUT"
        convert -q "$RINGS/$s"
        [ "$status" -eq 0 ]
        run lr nodup "$OUT"/*.csv
        echo "$s: $output"
        [ "$status" -eq 0 ]
        # DROP is an extra of outbound and inbound: one column for both
        if [ "$s" = b1_loop_clean ]; then
            [ "$(head -1 "$OUT/libe3.csv" | tr ',' '\n' | grep -c '^DROP_ns$')" -eq 1 ]
        fi
    done
}

@test "tables: a leg stamped on two threads of one process (v3 pid) is one complete row" {
    d="$BATS_TEST_TMPDIR/v3"
    mkdir -p "$d"
    make_cross_thread_rings "$d"
    convert -q "$d"
    [ "$status" -eq 0 ]
    [ ! -e "$OUT/oai.csv" ]
    run awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $1, $2, $3, $4, $(c["EMIT_ENTER__ENQUEUE_us"]), $(c["ENQUEUE__DEQUEUE_us"]), $(c["DEQUEUE__ENCODE_E3AP_DONE_us"]), $(c["ENCODE_E3AP_DONE__SEND_DONE_us"]), $(c["outbound_total_us"]), $(c["origin_seq"]), $(c["msg_id"]) }' "$OUT/libe3.csv"
    [ "${#lines[@]}" -eq 5 ]
    for s in 1 2 3 4 5; do
        [ "${lines[$((s - 1))]}" = "outbound 4242 $s 1 0.040 1.000 0.250 3.000 4.250 $((500 + s)) $((900 + s))" ]
    done
    # pid and tid in records.csv
    [ "$(awk -F, '$2 == "oai.101" && $4 == 4242 && $5 == 101' "$OUT/records.csv" | wc -l)" -eq 10 ]
    [ "$(awk -F, '$2 == "libe3.outbound.102" && $4 == 4242 && $5 == 102' "$OUT/records.csv" | wc -l)" -eq 15 ]
}

@test "tables: ring names from headers never clobber outputs or break the trace" {
    # a role with a slash, a role named like an output file, a name that is
    # not UTF-8: all are just names (header bytes are not trusted)
    d="$BATS_TEST_TMPDIR/names"
    mkdir -p "$d"
    echo "1 0x72 2000000000 0 0" | lr mkring "$d/a.latrec" 2 we/ird.1 16 1
    echo "1 0x72 2000001000 0 0" | lr mkring "$d/b.latrec" 2 records.2 16 1
    "$PY" - "$LR" "$d/c.latrec" <<'PY'
import sys, importlib.util
spec = importlib.util.spec_from_file_location('lr', sys.argv[1]); lr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lr)
lr.mkring(sys.argv[2], 2, 'x', 16, 1, [(1, 0x72, 2000002000, 0, 0)])
with open(sys.argv[2], 'r+b') as f:
    f.seek(40)
    f.write(b'caf\xe9.3\0')
PY
    convert -q "$d"
    [ "$status" -eq 0 ]
    # rings.csv, records.csv, and the tables of we/ird, records and caf\xe9
    [ "$(ls "$OUT" | wc -l)" -eq 5 ]
    [ -s "$OUT/records_legs.csv" ] && [ -s "$OUT/we_ird.csv" ] && [ -s "$OUT/rings.csv" ]
    [ "$(($(wc -l < "$OUT/records.csv") - 1))" -eq 3 ]
    [ "$(head -1 "$OUT/records.csv" | cut -d, -f1)" = "t_ns" ]
    [ "$(awk -F, 'NR > 1 { print $1, $3 }' "$OUT/records_legs.csv")" = "context 1" ]
    [ "$(awk -F, 'NR > 1 { print $1, $3 }' "$OUT/we_ird.csv")" = "context 1" ]
    OUT="$BATS_TEST_TMPDIR/chrome"
    convert -q --format chrome "$d"
    [ "$status" -eq 0 ]
    run "$PY" -c 'import json, sys; ev = json.load(open(sys.argv[1]))["traceEvents"]; print(sorted(e["args"]["name"] for e in ev if e["name"] == "thread_name"))' "$OUT/trace.json"
    # a name that is not UTF-8 keeps its bytes, escaped (read/escape.h)
    [ "$output" = "['caf\\\\xe9', 'records', 'we/ird']" ]
}

@test "tables: a component called paths gets paths_legs.csv; the path table paths.csv keeps its name and rows" {
    d="$(scenario_copy b1_loop_clean)"
    echo "1 0x72 2000000000 0 0" | lr mkring "$d/p.latrec" 2 paths.9 16 1
    convert -q "$d"
    [ "$status" -eq 0 ]
    [ "$(head -1 "$OUT/paths.csv" | cut -d, -f1-2)" = "path,complete" ]
    [ "$(($(wc -l < "$OUT/paths.csv") - 1))" -eq 698 ] # b1's path instances, as without the ring
    [ "$(awk -F, 'NR > 1 { print $1, $3 }' "$OUT/paths_legs.csv")" = "context 1" ]
}

@test "records.csv: ring and component names with a comma or a quote are quoted, every row parses back" {
    d="$BATS_TEST_TMPDIR/quoted"
    mkdir -p "$d"
    printf '1 0x72 2000000000 7 8\n2 0x72 2000002000 9 10\n' | lr mkring "$d/a.latrec" 2 'we,ird.1' 16 1
    echo "1 0x72 2000001000 0 0" | lr mkring "$d/b.latrec" 2 'say"hi.2' 16 1
    convert -q "$d"
    [ "$status" -eq 0 ]
    run "$PY" - "$OUT/records.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
assert all(len(r) == 12 for r in rows), rows
for r in rows[1:]:
    print(r[0], r[1], r[2], r[5], r[7], r[8], r[10], r[11])
PY
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "2000000000 we,ird.1 we,ird 1 114 CONTEXT 7 8" ]
    [ "${lines[1]}" = '2000001000 say"hi.2 say"hi 1 114 CONTEXT 0 0' ]
    [ "${lines[2]}" = "2000002000 we,ird.1 we,ird 2 114 CONTEXT 9 10" ]
    grep -q '^2000001000,"say""hi.2","say""hi",' "$OUT/records.csv"
}

# ---------------------------------------------------------------------------
# malformed rings and bad directories

@test "malformed: each bad file gets its own one-line reason, the good ring is still converted, exit 3" {
    d="$BATS_TEST_TMPDIR/mixed"
    mkdir -p "$d"
    cp "$RINGS/b6_derived_malformed"/*.latrec "$d/"
    cp "$RINGS/b4_limits/ex.limits.latrec" "$d/good.1.latrec"
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$d"
    [ "$status" -eq 3 ]
    [ -z "$output" ]
    printf '%s\n' "${stderr_lines[@]}"
    [ "${#stderr_lines[@]}" -eq 5 ]
    [ "${stderr_lines[0]}" = "latrec convert: $d/ex.badmagic.latrec: bad magic 0x31524C42 (not a latrec ring)" ]
    [ "${stderr_lines[1]}" = "latrec convert: $d/ex.bswap.latrec: byte-swapped ring (written on an opposite-endian host)" ]
    [ "${stderr_lines[2]}" = "latrec convert: $d/ex.recsize64.latrec: rec_size 64, expected 32" ]
    [ "${stderr_lines[3]}" = "latrec convert: $d/ex.short.latrec: shorter than a header: 100 bytes" ]
    [ "${stderr_lines[4]}" = "latrec convert: $d/ex.truncated.latrec: truncated: header says 4096 entries (135168 bytes) but the file has 4330 bytes" ]
    # no generic follow-up line: "bad magic" exactly once
    [ "$(printf '%s\n' "${stderr_lines[@]}" | grep -c 'bad magic')" -eq 1 ]
    # the good ring: 17 records, its table
    [ "$(($(wc -l < "$OUT/records.csv") - 1))" -eq 17 ]
    [ "$(awk -F, '$2 == "good.1" || $2 == "ex.limits"' "$OUT/records.csv" | wc -l)" -eq 17 ]
    [ -s "$OUT/libe3.csv" ]
    # rings.csv: one row per file, the rejected ones with their reason
    run awk -F, 'NR > 1 { print $1, $27 }' "$OUT/rings.csv"
    [ "${lines[*]}" = "ex.badmagic.latrec rejected ex.bswap.latrec rejected ex.recsize64.latrec rejected ex.short.latrec rejected ex.truncated.latrec rejected good.1.latrec ok" ]
    # torn_slots, timebase, tsc_pairs, tsc_pairs_taken, lapped empty
    grep -q '^ex.recsize64.latrec,.*,rejected,"rec_size 64, expected 32",,,,,$' "$OUT/rings.csv"
}

@test "malformed only: nothing readable is exit 1 with one line per file and a summary" {
    run --separate-stderr "$LATREC" convert -q -o "$OUT" "$RINGS/b6_derived_malformed"
    [ "$status" -eq 1 ]
    [ "${#stderr_lines[@]}" -eq 6 ]
    [ "${stderr_lines[5]}" = "latrec convert: no readable rings in $RINGS/b6_derived_malformed" ]
}

@test "bad directory: missing is exit 1 with one clear line" {
    run --separate-stderr "$LATREC" convert -o "$OUT" "$BATS_TEST_TMPDIR/nope"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $BATS_TEST_TMPDIR/nope: no such directory" ]
    [ ! -e "$OUT" ]
}

@test "bad directory: empty is exit 1 with one clear line" {
    mkdir -p "$BATS_TEST_TMPDIR/empty"
    : > "$BATS_TEST_TMPDIR/empty/notes.txt"
    : > "$BATS_TEST_TMPDIR/empty/x.latrec.part"
    run --separate-stderr "$LATREC" convert -o "$OUT" "$BATS_TEST_TMPDIR/empty"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $BATS_TEST_TMPDIR/empty: no .latrec rings" ]
}

@test "bad directory: unreadable (mode 000, run as nobody) is exit 1 with one clear line" {
    # bats' own temporary directories are private: use one nobody can reach
    OPEN_DIR="$(mktemp -d /tmp/latrec-convert-bats.XXXXXX)"
    chmod 755 "$OPEN_DIR"
    mkdir "$OPEN_DIR/locked"
    cp "$RINGS/b4_limits"/*.latrec "$OPEN_DIR/locked/"
    chmod 000 "$OPEN_DIR/locked"
    if [ "$(id -u)" -eq 0 ]; then # root reads anything: run as nobody
        # a checkout closed to other users (0700) hides the binary: run a copy
        lat="$LATREC"
        if ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$lat"; then
            install -m 755 "$LATREC" "$OPEN_DIR/latrec"
            lat="$OPEN_DIR/latrec"
        fi
        run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
            "$lat" convert -o "$OPEN_DIR/out" "$OPEN_DIR/locked"
    else
        run --separate-stderr "$LATREC" convert -o "$OPEN_DIR/out" "$OPEN_DIR/locked"
    fi
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $OPEN_DIR/locked: permission denied" ]
    [ ! -e "$OPEN_DIR/out" ]
}

@test "bad directory: a file, not a directory, is exit 1 with one clear line" {
    run --separate-stderr "$LATREC" convert -o "$OUT" "$RINGS/b4_limits/ex.limits.latrec"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec convert: $RINGS/b4_limits/ex.limits.latrec: not a directory" ]
}

@test "usage: a bad --format or --quiet-secs is exit 2" {
    run "$LATREC" convert --format xml -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--format must be csv or chrome, not 'xml'"* ]]
    run "$LATREC" convert --watch --quiet-secs soon -o "$OUT" "$RINGS/b4_limits"
    [ "$status" -eq 2 ]
    [ ! -e "$OUT" ]
}
