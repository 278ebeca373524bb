#!/usr/bin/env bats
# The option vocabulary: one duration grammar for every option (no nan, inf,
# exponent or sign; a bare number only where --help states its unit), typed
# counts, -h everywhere, unknown names as errors.
#
# Environment (tests/unit/cli.cmake): LATREC, GEN (gen_synthetic).
#
# Run A: libe3/inbound, i = 1..40, RECV at T0 + i ms, DECODE_E3AP_DONE
# 1000 + 100 (i mod 10) ns later (T0 = 2 s): totals 1000..1900 ns, 4 of each.

bats_require_minimum_version 1.5.0

setup_file() {
    : "${LATREC:?LATREC must name the latrec binary}" "${GEN:?GEN must name gen_synthetic}"
    export D="$BATS_FILE_TMPDIR"
    {
        echo "ring libe3.inbound.102"
        for i in $(seq 1 40); do
            t=$((2000000000 + i * 1000000))
            echo "rec libe3.inbound.102 RECV $i $t"
            echo "rec libe3.inbound.102 DECODE_E3AP_DONE $i $((t + 1000 + 100 * (i % 10)))"
        done
    } >"$D/spec_A"
    "$GEN" "$D/A" <"$D/spec_A"
}

# Usage error: status 2 and one line naming the option, then argp's "Try".
usage_error() {
    local want=$1
    shift
    run --separate-stderr "$LATREC" "$@"
    [ "$status" -eq 2 ] || { echo "status $status for $*"; return 1; }
    [[ "${stderr_lines[0]}" == *"$want"* ]] || { echo "stderr: $stderr"; return 1; }
    [ -z "$output" ]
}

@test "durations: nan, inf, exponents and signs are refused by every option" {
    for v in nan inf -inf 1e3 1e3ms -5ms +5ms 0x10ms 5.ms; do
        usage_error "'$v' is not a duration" report "$D/A" --interval "$v"
        usage_error "'$v' is not a duration" report "$D/A" --warm-up "$v"
        usage_error "'$v' is not a duration" hist "$D/A" --warm-up "$v"
        usage_error "'$v' is not a duration" convert "$D/A" -o "$D/c" --watch --timeout "$v"
        usage_error "'$v' is not a duration" convert "$D/A" -o "$D/c" --watch --quiet-secs "$v"
        usage_error "--leg-horizon: '$v' is not a duration" hist "$D/A" --leg-horizon "$v"
        usage_error "--path-horizon: '$v' is not a duration" report "$D/A" --path-horizon "$v"
    done
    usage_error "--path-horizon: '5' needs a unit" report "$D/A" --path-horizon 5
    usage_error "--leg-horizon: '0' is out of range (1ns..8784h)" convert "$D/A" --leg-horizon 0
    [ ! -e "$D/c" ]
}

@test "durations: a bare number is refused where the option has no unit of its own" {
    # '--interval 1' was 1 ns: 40,040 rows for a 40 ms run.
    usage_error "--interval: '1' needs a unit" report "$D/A" --interval 1
    usage_error "--warm-up: '5' needs a unit" report "$D/A" --warm-up 5
    usage_error "--warm-up: '5' needs a unit" hist "$D/A" --warm-up 5
    # zero is zero in every unit
    run "$LATREC" report "$D/A" --warm-up 0
    [ "$status" -eq 0 ]
    run "$LATREC" report -q "$D/A" --interval 10ms --format csv
    [ "$status" -eq 0 ]
}

@test "durations: the units, exact in ns (report --warm-up skips by them)" {
    # RECV at 2 s + i ms; the run begins at the first record (i = 1): a
    # warm-up of 10.5 ms skips i = 1..11 (starts at +0..+10 ms), 29 remain.
    for w in 10.5ms 10500us 10500000ns 0.0105s; do
        run --separate-stderr "$LATREC" report -q "$D/A" --warm-up "$w" --format csv
        [ "$status" -eq 0 ]
        count=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $3 == "total" { print $(c["count"]) }' <<<"$output")
        [ "$count" = 29 ] || { echo "--warm-up $w: count $count"; return 1; }
    done
    # a warm-up past the last instance: hist says it took them (all 40), not that there were none
    run --separate-stderr "$LATREC" hist -q "$D/A" --warm-up 40ms
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec hist: no leg instances (--warm-up skipped 40)" ]
    run --separate-stderr "$LATREC" hist -q "$D/A" --warm-up 39ms # i = 40 begins at +39 ms: kept
    [ -z "$stderr" ]
    usage_error "--warm-up: '1.5ns' is finer than 1 ns" report "$D/A" --warm-up 1.5ns
    usage_error "--interval: '999ns' is out of range (1us..8784h)" report "$D/A" --interval 999ns
}

@test "gates: a limit of nan or inf, or a bare time, is a usage error" {
    # 'p99>nan' made a gate that could never fail.
    for v in nan inf 1e3us; do
        usage_error "limit: '$v' is not a duration" report "$D/A" --fail-over "libe3/inbound:total:p99>$v"
    done
    usage_error "limit: '200' needs a unit" report "$D/A" --fail-over 'libe3/inbound:total:p99>200'
    usage_error "the limit of count is a plain number, not 'nan'" report "$D/A" --fail-over 'libe3/inbound:total:count<nan'
    usage_error "the limit of skewness is a plain number, not 'inf'" report "$D/A" --fail-over 'libe3/inbound:total:skewness>inf'
    # The message's own example is quoted, as a shell needs it.
    usage_error "(e.g. --fail-over 'libe3/outbound:total:p99>200us'" report "$D/A" --fail-over 'nonsense'
    # A real limit still gates: p99 of 1000..1900 ns is 1900 ns.
    run "$LATREC" report -q "$D/A" --fail-over 'libe3/inbound:total:p99>1899ns'
    [ "$status" -eq 4 ]
    run "$LATREC" report -q "$D/A" --fail-over 'libe3/inbound:total:p99>1.9us'
    [ "$status" -eq 0 ]
    run "$LATREC" report -q "$D/A" --fail-over 'libe3/inbound:total:skewness<-0.5'
    [ "$status" -eq 0 ]
}

@test "percentiles: nan and inf are refused" {
    for v in 50,nan inf 50,-1 1e1 50,,99; do
        usage_error "--percentiles takes a list" report "$D/A" --percentiles "$v"
    done
}

@test "--fail-over on a percentile beyond 16 --percentiles: a usage error saying so (not 'no figure')" {
    local sixteen=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16
    run --separate-stderr "$LATREC" report -q "$D/A" --percentiles "$sixteen" --fail-over 'libe3/inbound:total:p16>1s'
    [ "$status" -eq 0 ]
    # 1900 ns is p100 of run A: p99 crosses 1us; it was "no figure 'p99'", exit 1
    usage_error "p99 is not among the 16 --percentiles listed" report -q "$D/A" --percentiles "$sixteen" \
        --fail-over 'libe3/inbound:total:p99>1us'
}

@test "--hop: a value without A:B, and a 17th one, each said for what it is" {
    usage_error "--hop takes A:B, not 'RECV'" hist "$D/A" --hop RECV
    local hops=() i
    for i in $(seq 16); do hops+=(--hop RECV:DECODE_E3AP_DONE); done
    run --separate-stderr "$LATREC" hist -q "$D/A" "${hops[@]}"
    [ "$status" -eq 0 ]
    # the 17th was "takes A:B (at most 16), not 'RECV:DECODE_E3AP_DONE'": a valid A:B
    usage_error "--hop: at most 16, 'RECV:DECODE_E3AP_DONE' is one more" hist "$D/A" "${hops[@]}" --hop RECV:DECODE_E3AP_DONE
    usage_error "--hop: at most 16" report "$D/A" "${hops[@]}" --hop RECV:DECODE_E3AP_DONE
}

@test "hist -b: a bare number is in the --unit, a duration must be a whole number of it" {
    run "$LATREC" hist "$D/A" --unit ns -b 100
    [ "$status" -eq 0 ]
    bare=$output
    for b in 100ns 0.1us; do
        run "$LATREC" hist "$D/A" --unit ns -b "$b"
        [ "$status" -eq 0 ]
        [ "$output" = "$bare" ]
    done
    # 1000..1900 ns in 100 ns buckets: 4 in each of 10 buckets from 1000
    grep -q '^1000 *4 *$' <<<"$bare"
    grep -q '^1900 *4 *$' <<<"$bare"
    # -b before or after --unit: the same
    run "$LATREC" hist "$D/A" -b 100 --unit ns
    [ "$output" = "$bare" ]
    usage_error "--bucket-size: '1500ns' is not a whole number of us" hist "$D/A" -b 1500ns
    usage_error "--bucket-size: 'nan' is not a duration" hist "$D/A" -b nan
    usage_error "--bucket-size: '0' is out of range" hist "$D/A" -b 0
}

@test "counts: signs, hex and exponents are refused" {
    for v in -1 +1 0x10 1e2 ' 5' 10001; do
        usage_error "--top: '$v' is not a count in 0..10000" report "$D/A" --top "$v"
    done
    usage_error "--entries: '-1' is not a count in 1..1000000" hist "$D/A" -E -1
    usage_error "--explain: '1001' is not a count in 0..1000" report "$D/A" --explain 1001
    for v in 0 -1 65 2x; do
        usage_error "--threads: '$v' is not a count in 1..64" report "$D/A" --threads "$v"
        usage_error "--threads: '$v' is not a count in 1..64" hist "$D/A" --threads="$v"
        usage_error "--threads: '$v' is not a count in 1..64" convert "$D/A" -o "$D/c" --threads "$v"
    done
}

@test "record: -d and --grace by the same grammar (a bare number is seconds)" {
    for v in nan inf 1e3 -1 0x10; do
        run --separate-stderr "$LATREC" record -q -o "$D/r" -d "$v" -- true
        [ "$status" -eq 125 ]
        [[ "${stderr_lines[0]}" == *"-d: '$v' is not a duration"* ]]
        run --separate-stderr "$LATREC" record -q -o "$D/r" --grace "$v" -- true
        [ "$status" -eq 125 ]
        [[ "${stderr_lines[0]}" == *"--grace: '$v' is not a duration"* ]]
    done
    # '-d 20000000000' was taken as 20 s of ns: it is 2e10 s, out of range
    run --separate-stderr "$LATREC" record -q -o "$D/r" -d 20000000000 -- true
    [ "$status" -eq 125 ]
    [[ "${stderr_lines[0]}" == *"-d: '20000000000' is out of range (1ns..8784h)"* ]]
    run --separate-stderr "$LATREC" record -q -o "$D/r" -P d:1.5:10ms -- true
    [ "$status" -eq 125 ]
    [ ! -e "$D/r" ]
}

@test "names: an empty file or directory name is one line naming the option, by every option and DIR that takes one" {
    mkdir "$BATS_TEST_TMPDIR/here" && cd "$BATS_TEST_TMPDIR/here" # nothing may be made here
    for c in report hist convert top; do
        usage_error "latrec $c: DIR: an empty directory name" $c ''
        usage_error "latrec $c: DIR: an empty directory name" $c -i ''
        usage_error "latrec $c: --catalog: an empty file name" $c --catalog '' "$D/A"
        usage_error "latrec $c: --stages: an empty file name" $c --stages '' "$D/A"
    done
    usage_error "latrec report: -o: an empty file name" report -o '' "$D/A"
    usage_error "latrec report: --baseline: an empty directory name" report --baseline '' "$D/A"
    usage_error "latrec convert: -o: an empty directory name" convert -o '' "$D/A"
    # and one past PATH_MAX, by the same check (a buffer cut it short)
    usage_error "latrec report: -o: a file name of 4096 bytes (at most 4095)" report -o "$(printf 'x%.0s' $(seq 4096))" "$D/A"
    usage_error "latrec hist: DIR: a directory name of 4096 bytes (at most 4095)" hist "$(printf 'x%.0s' $(seq 4096))"
    for o in -o --lib --rings-dir; do
        usage_error "latrec top: $o: an empty directory name" top $o '' -- true
    done
    # record: exit 125 (latrec itself failed), nothing run, nothing made
    for a in "-o|directory" "--lib|directory" "--rings-dir|directory" "--catalog|file"; do
        run --separate-stderr "$LATREC" record -q "${a%|*}" '' -- touch ran
        [ "$status" -eq 125 ]
        [ "${stderr_lines[0]}" = "latrec record: ${a%|*}: an empty ${a#*|} name" ]
    done
    run --separate-stderr "$LATREC" record -q -p $$ --rings ''
    [ "$status" -eq 125 ]
    [ "${stderr_lines[0]}" = "latrec record: --rings: an empty directory name" ]
    [ -z "$(ls -A)" ]
}

@test "-o -: report writes standard output, as without -o; record, convert and top refuse it for a directory" {
    mkdir "$BATS_TEST_TMPDIR/here" && cd "$BATS_TEST_TMPDIR/here" # nothing may be made here
    for f in text csv json html; do
        "$LATREC" report -q --format $f "$D/A" > "$BATS_TEST_TMPDIR/plain.$f"
        run --separate-stderr "$LATREC" report -q --format $f -o - "$D/A"
        [ "$status" -eq 0 ]
        [ "$output" = "$(cat "$BATS_TEST_TMPDIR/plain.$f")" ]
        [ -n "$output" ]
        run --separate-stderr "$LATREC" report -q --format $f --output=- "$D/A"
        [ "$status" -eq 0 ]
        [ "$output" = "$(cat "$BATS_TEST_TMPDIR/plain.$f")" ]
        [ -z "$(ls -A)" ] # no file named '-', no marker
    done
    # standard output's failure is said as without -o
    if [ -w /dev/full ]; then
        run --separate-stderr bash -c '"$0" "$@" >/dev/full' "$LATREC" report -o - "$D/A"
        [ "$status" -eq 1 ]
        [ "$stderr" = "latrec report: standard output: No space left on device" ]
    fi
    # a file named '-' is ./-
    run "$LATREC" report -q -o ./- "$D/A"
    [ "$status" -eq 0 ]
    [ "$(cat ./-)" = "$(cat "$BATS_TEST_TMPDIR/plain.text")" ]
    rm ./- .latrec-output
    want="-o -: standard output cannot take a directory (a directory named '-' is ./-)"
    usage_error "latrec convert: $want" convert -o - "$D/A"
    usage_error "latrec convert: $want" convert --format chrome --outdir=- "$D/A"
    usage_error "latrec top: $want" top -o - -- true
    run --separate-stderr "$LATREC" record -q -o - -- touch ran
    [ "$status" -eq 125 ]
    [ "${stderr_lines[0]}" = "latrec record: $want" ]
    [ -z "$(ls -A)" ]
}

@test "report -o FILE: a name holding an ESC is escaped in its message, as every name is" {
    mkdir "$BATS_TEST_TMPDIR/"$'q\e'
    echo "the user's" > "$BATS_TEST_TMPDIR/"$'q\e/r.txt'
    run --separate-stderr "$LATREC" report -q -o "$BATS_TEST_TMPDIR/"$'q\e/r.txt' "$D/A"
    [ "$status" -eq 1 ]
    [ "$stderr" = "latrec report: $BATS_TEST_TMPDIR/q\\x1b/r.txt: exists and is not written by latrec (its directory's .latrec-output does not list it): left alone; move it away or write elsewhere" ]
    [ "$(cat "$BATS_TEST_TMPDIR/"$'q\e/r.txt')" = "the user's" ]
}

@test "--catalog and --stages: a file name holding an ESC is escaped in the line that it does not load" {
    mkdir "$BATS_TEST_TMPDIR/here" && cd "$BATS_TEST_TMPDIR/here" # nothing may be made here
    for c in report hist convert; do
        run --separate-stderr "$LATREC" $c --catalog $'no\e[31m.catalog' "$D/A"
        [ "$status" -eq 1 ]
        [ "$stderr" = "latrec $c: no\\x1b[31m.catalog: No such file or directory" ]
        run --separate-stderr "$LATREC" $c --stages $'no\e[31m.h' "$D/A"
        [ "$status" -eq 1 ]
        [ "$stderr" = "latrec $c: no\\x1b[31m.h: No such file or directory" ]
    done
    run --separate-stderr "$LATREC" record -q --catalog $'no\e[31m.catalog' -o r -- touch ran
    [ "$status" -eq 125 ]
    [ "$stderr" = 'latrec record: no\x1b[31m.catalog: No such file or directory' ]
    [ -z "$(ls -A)" ]
}

@test "standard output: a write that fails is one line and exit 1 (report, hist), a reader gone with SIGPIPE ignored 141" {
    [ -w /dev/full ] || skip "no /dev/full here"
    for c in "report" "report --format json" "report --format csv" "hist" "hist --format json"; do
        run --separate-stderr "$LATREC" $c "$D/A"
        [ "$status" -eq 0 ]
        run --separate-stderr bash -c '"$0" "$@" >/dev/full' "$LATREC" $c "$D/A"
        echo "$c: $status: $stderr"
        [ "$status" -eq 1 ]
        [ "$stderr" = "latrec ${c%% *}: standard output: No space left on device" ]
    done
    # a gate crossed is 4 when the report was written, 1 when it was lost
    run "$LATREC" report -q --fail-over 'libe3/inbound:total:max>1ns' "$D/A"
    [ "$status" -eq 4 ]
    run --separate-stderr bash -c '"$0" "$@" >/dev/full' "$LATREC" report --fail-over 'libe3/inbound:total:max>1ns' "$D/A"
    [ "$status" -eq 1 ]
    [ "${stderr_lines[0]}" = "latrec report: libe3/inbound:total:max = 1.900us > 0.001us: limit crossed" ]
    [ "${stderr_lines[1]}" = "latrec report: standard output: No space left on device" ]
    # the reader gone before the first write, SIGPIPE ignored (as a parent
    # that ignores it passes on): 141 and nothing said, as top
    run --separate-stderr python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, restore_signals=False)  # python ignores SIGPIPE: inherited
sys.exit(p.returncode)' "$LATREC" report "$D/A"
    [ "$status" -eq 141 ]
    [ -z "$stderr" ]
}

@test "unknown --component or --leg: exit 1, and the names there are" {
    for c in report hist; do
        run --separate-stderr "$LATREC" "$c" "$D/A" --leg nosuch
        [ "$status" -eq 1 ]
        [ -z "$output" ]
        # the E3 catalog's legs, in catalog order, then any discovered
        [[ "$stderr" == "latrec $c: --leg nosuch: no such leg in this run (legs: "*"outbound, inbound, "*")" ]] || {
            echo "$stderr"; return 1; }
        run --separate-stderr "$LATREC" "$c" "$D/A" --component nosuch
        [ "$status" -eq 1 ]
        [ "$stderr" = "latrec $c: --component nosuch: no such component in this run (components: libe3)" ]
    done
    # A known leg of a component that has none of it: no error, an empty
    # selection (said so).
    run --separate-stderr "$LATREC" report "$D/A" --component libe3 --leg outbound
    [ "$status" -eq 0 ]
    [[ "$output" == *"no leg instances match the selection"* ]]
    run --separate-stderr "$LATREC" report "$D/A" --component libe3 --leg inbound --format csv
    [ "$status" -eq 0 ]
    [[ "$output" == *"libe3,inbound,total,40,"* ]]
}

@test "choices: --unit and --format come from one table (--OPTION=help)" {
    run "$LATREC" report --unit=help
    [ "$status" -eq 0 ]
    [ "$(cut -f1 <<<"$output" | tr '\n' ' ')" = "ns us ms " ]
    run "$LATREC" hist --format=help
    [ "$(cut -f1 <<<"$output" | tr '\n' ' ')" = "text csv json " ]
    run "$LATREC" convert --format=help
    [ "$(cut -f1 <<<"$output" | tr '\n' ' ')" = "csv chrome " ]
    # the files csv writes, as latrec-convert(1) lists them
    [[ "$(grep '^csv' <<<"$output")" == *"rings.csv, records.csv, <component>.csv, paths.csv"* ]]
    usage_error "--unit must be ns, us or ms, not 's'" hist "$D/A" --unit s
    usage_error "--format must be text, csv or json, not 'xml'" hist "$D/A" --format xml
    usage_error "--format must be csv or chrome, not 'xml'" convert "$D/A" --format xml
}
