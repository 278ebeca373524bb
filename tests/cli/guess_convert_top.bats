#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# convert and top -q on a finished run, on rings their writer closed cleanly
# (guess.bash: opened without a scan and checked as the pass reads them)
# and on the same rings scanned at open: the same files, blocks and lines on
# stderr, in the same order. A guess found wrong makes the pass start over
# (test_pass_restart checks that it does); hist's and report's cases are in
# hist.bats and report_split.bats.
#
# Environment (set by tests/unit/report.cmake): LATREC, GEN.

load guess

setup_file() {
    : "${LATREC:?LATREC must name the latrec binary}" "${GEN:?GEN must name gen_synthetic}"
    export D="$BATS_FILE_TMPDIR"
    if [ -x /usr/bin/python3 ]; then export PY=/usr/bin/python3; else export PY=python3; fi
    guess_specs
}

# rings.csv without its flags column (the header's: 0x00 or 0x01 by the case)
no_flags() {
    "$PY" -c '
import csv, sys
for row in csv.reader(open(sys.argv[1])):
    print(row[:20] + row[21:])' "$1"
}

@test "convert on rings closed cleanly: the files and lines of the rings scanned at open" {
    for args in "C" "T" "M" "M C"; do
        for threads in 1 2; do
            for format in csv chrome; do
                for f in 0 1; do
                    dirs=()
                    for c in $args; do dirs+=("$D/g$f/$c"); done
                    rm -rf "$D/conv$f"
                    run --separate-stderr "$LATREC" convert --threads "$threads" --format "$format" -o "$D/conv$f" "${dirs[@]}"
                    eval "status$f=\$status out$f=\$output"
                    err=${stderr//$D\/g$f/G}
                    err=${err//$D\/conv$f/OUT}
                    eval "err$f=\$err"
                done
                [ "$status0" -eq 0 ] && [ "$status1" -eq 0 ]
                [ "$out0" = "$out1" ]
                [ "$err0" = "$err1" ]
                if [ "$format" = csv ]; then
                    [ "$(no_flags "$D/conv0/rings.csv")" = "$(no_flags "$D/conv1/rings.csv")" ]
                    rm "$D/conv0/rings.csv" "$D/conv1/rings.csv"
                fi
                diff -r "$D/conv0" "$D/conv1"
            done
        done
    done
    # an output that cannot be opened stops convert before its pass: the
    # warning of the ring of two writers first, as the scan says it at open
    touch "$D/file"
    for f in 0 1; do
        mkdir -p "$D/link$f"
        ln -sfn "$D/file" "$D/link$f/records.csv"
        run --separate-stderr "$LATREC" convert -o "$D/file/sub" "$D/g$f/M"
        eval "status$f=\$status err$f=\${stderr//\$D\/g\$f/G}"
        run --separate-stderr "$LATREC" convert -o "$D/link$f" "$D/g$f/M"
        eval "lstatus$f=\$status lerr$f=\${stderr//\$D\/g\$f/G}"
        eval "lerr$f=\${lerr$f//link\$f/LINK}"
    done
    [ "$status0" -eq 1 ] && [ "$status1" -eq 1 ] && [ "$lstatus0" -eq 1 ] && [ "$lstatus1" -eq 1 ]
    [ "$err0" = "$err1" ]
    [ "$lerr0" = "$lerr1" ]
    [[ "$err1" == "latrec convert: G/M/libe3.outbound.201.latrec: not a single-writer ring (2 descents)"$'\n'"latrec convert: "*"not a directory" ]]
    [[ "$lerr1" == "latrec convert: G/M/"*$'\n'"latrec convert: "*"LINK/records.csv: exists and is a symbolic link"* ]]
    # what the cases hold: one record fewer (T), the warning first (M C)
    run --separate-stderr "$LATREC" convert -o "$D/conv1" "$D/g1/T"
    [[ "$stderr" == *"4 rings (0 skipped), 319 records"* ]]
    [ "$(wc -l < "$D/conv1/records.csv")" -eq 320 ]
    run --separate-stderr "$LATREC" convert -o "$D/conv1" "$D/g1/M" "$D/g1/C"
    [[ "${stderr_lines[0]}" == *"/g1/M/libe3.outbound.201.latrec: not a single-writer ring (2 descents)" ]]
    [[ "${stderr_lines[1]}" == "latrec convert: 2 directories merged"* ]]
}

# top's block without what the clock decides (the time watched, the last
# interval's length)
steady() {
    sed -E 's/[0-9]{2}:[0-9]{2}:[0-9]{2}  interval [0-9.]+ s/TIME/; s/"(elapsed_s|interval_s)":[^,]*,//g'
}

@test "top -q on a finished run of rings closed cleanly: the final block of the rings scanned at open" {
    for f in 0 1; do
        for c in C T M; do echo '{"state": "finished"}' > "$D/g$f/$c/run.json"; done
    done
    for args in "C" "T" "M" "M C"; do
        for format in text json; do
            for f in 0 1; do
                dirs=()
                for c in $args; do dirs+=("$D/g$f/$c"); done
                run --separate-stderr "$LATREC" top -q --format "$format" "${dirs[@]}"
                eval "status$f=\$status"
                out=$(steady <<< "$output")
                err=${stderr//$D\/g$f/G}
                eval "out$f=\$out err$f=\$err"
            done
            [ "$status0" -eq 0 ] && [ "$status1" -eq 0 ]
            [ "$out0" = "$out1" ]
            [ "$err0" = "$err1" ]
        done
    done
    # what the block shows: one record fewer read than written (T), 79 instances
    run --separate-stderr "$LATREC" top -q --format json "$D/g1/T"
    "$PY" -c '
import json, sys
b = json.loads(sys.argv[1])
assert b["final"] and b["records"] == 319, b
assert [r["read"] for r in b["rings"]] == [120, 119, 40, 40], b["rings"]
assert b["legs"][0]["all"]["count"] == 79, b["legs"]' "$output"
    for f in 0 1; do
        for c in C T M; do rm "$D/g$f/$c/run.json"; done
    done
}
