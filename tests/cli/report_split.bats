#!/usr/bin/env bats
# latrec report reading rings opened without a scan (a writer closed them
# cleanly): the same bytes as when the rings are scanned at open.
#
# Environment (set by tests/unit/report.cmake): LATREC, GEN.

bats_require_minimum_version 1.5.0

setup_file() {
    : "${LATREC:?LATREC must name the latrec binary}" "${GEN:?GEN must name gen_synthetic}"
    export D="$BATS_FILE_TMPDIR"
    if [ -x /usr/bin/python3 ]; then export PY=/usr/bin/python3; else export PY=python3; fi
}

load guess

# report ARGS over the directories of cases $1 with flags 0 and 1, on 1 and
# 2 threads: the same status, stdout and stderr (directory names aside).
same_guessed_or_scanned() {
    local cases=$1; shift
    for threads in 1 2; do
        for f in 0 1; do
            local dirs=()
            for c in $cases; do dirs+=("$D/g$f/$c"); done
            run --separate-stderr "$LATREC" report --threads "$threads" "$@" "${dirs[@]}"
            eval "status$f=\$status out$f=\$output"
            local err=${stderr//$D\/g$f/G} out=${output//$D\/g$f/G}
            eval "err$f=\$err out$f=\$out"
        done
        [ "$status0" -eq 0 ] || { echo "$cases $* --threads $threads: status $status0"; return 1; }
        [ "$status1" -eq 0 ] || { echo "$cases $* --threads $threads: status $status1 (guessed)"; return 1; }
        [ "$out0" = "$out1" ] || { echo "$cases $* --threads $threads: stdout differs"; diff <(echo "$out0") <(echo "$out1") | head; return 1; }
        [ "$err0" = "$err1" ] || { echo "$cases $* --threads $threads: stderr differs"; diff <(echo "$err0") <(echo "$err1") | head; return 1; }
    done
}

@test "report on rings closed cleanly: the figures and lines of the rings scanned at open" {
    guess_specs
    for cases in "C" "T" "M" "M C"; do
        same_guessed_or_scanned "$cases"
        same_guessed_or_scanned "$cases" --format json --top 3
        same_guessed_or_scanned "$cases" --leg outbound --format csv
        same_guessed_or_scanned "$cases" --leg outbound --top 2 --interval 5ms
        same_guessed_or_scanned "$cases" --format html
    done
    # what the cases hold: 80 outbound instances, one without SEND_DONE (T),
    # the warning before the directories' note (M C)
    run --separate-stderr "$LATREC" report --leg outbound "$D/g1/T"
    [[ "$output" == *"libe3/outbound  instances: 80  complete: 79"* ]]
    run --separate-stderr "$LATREC" report "$D/g1/M" "$D/g1/C"
    [[ "${stderr_lines[0]}" == *"/g1/M/libe3.outbound.201.latrec: not a single-writer ring (2 descents)" ]]
    [[ "${stderr_lines[1]}" == "latrec report: 2 directories merged"* ]]
}

@test "report: a wrong name on rings closed cleanly: the two-writer warning before the line that says so, as at open" {
    guess_specs
    wrong_names_warning_first report
}
