#!/usr/bin/env bats
# Leg instances as report, hist and convert show them: the leg horizon (an
# option, its cuts counted and printed), a negative last hop across two
# rings of one process, two rings of one process stamping the same seqs
# (one warning line), inter-arrival of discovered legs, and the target's
# exit status in the header.
#
# Environment (set by tests/unit/report.cmake): LATREC = the latrec binary,
# GEN = gen_synthetic.
#
# Run H (times ns, T0 = 2 s, pid 1000): outbound seq 1 takes 12 s, ENQUEUE at
#   T0 on oai.104, DEQUEUE +1000, ENCODE_E3AP_DONE at T0 + 12 s, SEND_DONE
#   +500 on libe3.outbound.101; outbound seq 2 at T0 + 1 ms takes 1000 +
#   200 + 300 ns; CONTEXT on context.105 at T0 + 6 s and T0 + 11 s moves the
#   stream on.
# Run N: apply_ctrl seqs 1..3, APPLY_CONTROL_DONE at T0 + i ms on
#   oai.ctrl.110, LIVE_ON_AIR on oai.111 at +500, -300 (seq 2: the other
#   ring's clock), +700 ns.
# Run S: two rings of pid 1000, libe3.outbound.101 and .102, each stamping
#   ENQUEUE, DEQUEUE, ENCODE_E3AP_DONE, SEND_DONE (+100, +300, +600 ns) for
#   seqs 1..3 at T0 + i ms (+1 ns on .102): in time order each stage of a
#   seq comes twice, and each second stamp cuts the open instance short (4
#   cuts, 5 instances a seq). Run U: the same with .102 stamping seqs
#   101..103. Run G: run S as version 2 rings (no pid: one process guessed).
# Runs DS, DU, DG: runs S, U, G with uncatalogued stages 0xA0, 0xA1, 0xA2
#   (+100, +300 ns) on myapp.101 and .102: in DS each seq's stage groups
#   are {A0}, {A0 A1}, {A1 A2} (each cut by a stage of .102) and {A2}: 9
#   of 12 groups cut short so.
# Run D: an uncatalogued chain 0xA0 -> 0xA1 (+200 ns) on myapp.120 every
#   1 ms, i = 1..10, seq 1, 2, 2, 3, 4, ... (seq 2 reused at once: its first
#   group ends before seq 1's).

bats_require_minimum_version 1.5.0

setup_file() {
    : "${LATREC:?LATREC must name the latrec binary}" "${GEN:?GEN must name gen_synthetic}"
    export D="$BATS_FILE_TMPDIR"
    T0=2000000000
    {
        echo "ring oai.104"
        echo "ring libe3.outbound.101"
        echo "ring context.105"
        echo "rec oai.104 ENQUEUE 1 $T0"
        echo "rec oai.104 ENQUEUE 2 $((T0 + 1000000))"
        echo "rec libe3.outbound.101 DEQUEUE 1 $((T0 + 1000))"
        echo "rec libe3.outbound.101 DEQUEUE 2 $((T0 + 1001000))"
        echo "rec libe3.outbound.101 ENCODE_E3AP_DONE 2 $((T0 + 1001200))"
        echo "rec libe3.outbound.101 SEND_DONE 2 $((T0 + 1001500))"
        echo "rec libe3.outbound.101 ENCODE_E3AP_DONE 1 $((T0 + 12000000000))"
        echo "rec libe3.outbound.101 SEND_DONE 1 $((T0 + 12000000500))"
        echo "rec context.105 CONTEXT 0 $((T0 + 6000000000))"
        echo "rec context.105 CONTEXT 0 $((T0 + 11000000000))"
    } | "$GEN" "$D/H"
    {
        echo "ring oai.ctrl.110"
        echo "ring oai.111"
        for i in 1 2 3; do echo "rec oai.ctrl.110 APPLY_CONTROL_DONE $i $((T0 + i * 1000000))"; done
        echo "rec oai.111 LIVE_ON_AIR 1 $((T0 + 1000000 + 500))"
        echo "rec oai.111 LIVE_ON_AIR 2 $((T0 + 2000000 - 300))"
        echo "rec oai.111 LIVE_ON_AIR 3 $((T0 + 3000000 + 700))"
    } | "$GEN" "$D/N"
    {
        echo "ring myapp.120"
        seqs=(0 1 2 2 3 4 5 6 7 8 9)
        for i in $(seq 1 10); do
            t=$((T0 + i * 1000000))
            echo "rec myapp.120 0xA0 ${seqs[i]} $t"
            echo "rec myapp.120 0xA1 ${seqs[i]} $((t + 200))"
        done
    } | "$GEN" "$D/D"
    twice_run 1 1000 | "$GEN" "$D/S"
    twice_run 101 1000 | "$GEN" "$D/U"
    twice_run 1 1000 version=2 | "$GEN" "$D/G"
    twice_run 1 1000 "" disc | "$GEN" "$D/DS"
    twice_run 101 1000 "" disc | "$GEN" "$D/DU"
    twice_run 1 1000 version=2 disc | "$GEN" "$D/DG"
}

# Spec of run S/U/G: FIRST (.102's first seq), pid, ring options; with a
# fourth argument, the D runs' uncatalogued stages on myapp rings.
twice_run() {
    local r i t seq
    local ring=libe3.outbound
    [ -n "${4:-}" ] && ring=myapp
    echo "ring $ring.101 pid=$2 ${3:-}"
    echo "ring $ring.102 pid=$2 ${3:-}"
    for r in 101 102; do
        for i in 1 2 3; do
            t=$((T0 + i * 1000000 + r - 101))
            seq=$i
            [ $r = 102 ] && seq=$(($1 + i - 1))
            if [ -n "${4:-}" ]; then
                echo "rec $ring.$r 0xA0 $seq $t"
                echo "rec $ring.$r 0xA1 $seq $((t + 100))"
                echo "rec $ring.$r 0xA2 $seq $((t + 300))"
                continue
            fi
            echo "rec libe3.outbound.$r ENQUEUE $seq $t"
            echo "rec libe3.outbound.$r DEQUEUE $seq $((t + 100))"
            echo "rec libe3.outbound.$r ENCODE_E3AP_DONE $seq $((t + 300))"
            echo "rec libe3.outbound.$r SEND_DONE $seq $((t + 600))"
        done
    done
}

# Cell of a text table: row name, column name (from the HOP header line),
# within the table headed "COMP/LEG  instances:".
cell() {
    awk -v h="$2  instances:" -v row="$3" -v col="$4" '
        index($0, h) == 1 { p = 1; next }
        p && $1 == "HOP" { for (i = 1; i <= NF; i++) idx[$i] = i; next }
        p && $1 == row { print $(idx[col]); exit }' "$1"
}

@test "legs: the default leg horizon (10 s) cuts a 12 s instance, counted in the header" {
    run --separate-stderr "$LATREC" report "$D/H" --unit ns
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/h.txt"
    grep -qx '# leg horizon: 10 s, 1 instances cut unfinished by it' "$D/h.txt"
    # seq 1 is two unfinished halves; seq 2 is whole
    grep -q '^libe3/outbound  instances: 3  complete: 1' "$D/h.txt"
    [ "$(cell "$D/h.txt" libe3/outbound total COUNT)" = 1 ]
    [ "$(cell "$D/h.txt" libe3/outbound total MAX_ns)" = 1500 ]
    run "$LATREC" report "$D/H" --format json
    [ "$(jq '.header.leg_horizon_ns, .header.instances_cut_by_horizon, .header.instances_cut_for_room' <<< "$output" | tr '\n' ' ')" = "10000000000 1 0 " ]
    # hist and convert say it on stderr, even with -q
    run --separate-stderr "$LATREC" hist "$D/H" -q
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec hist: leg horizon 10 s, 1 instances cut unfinished by it (--leg-horizon)" ]
    run --separate-stderr "$LATREC" convert "$D/H" -q -o "$D/h_csv"
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec convert: leg horizon 10 s, 1 instances cut unfinished by it (--leg-horizon)" ]
}

@test "legs: --leg-horizon 20s keeps the 12 s instance whole" {
    run --separate-stderr "$LATREC" report "$D/H" --unit ns --leg-horizon 20s
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/h20.txt"
    grep -qx '# leg horizon: 20 s, 0 instances cut unfinished by it' "$D/h20.txt"
    grep -q '^libe3/outbound  instances: 2  complete: 2' "$D/h20.txt"
    [ "$(cell "$D/h20.txt" libe3/outbound total MAX_ns)" = 12000000500 ]
    run --separate-stderr "$LATREC" hist "$D/H" -q --leg-horizon 20s
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
}

@test "legs: --leg-horizon takes a positive duration (exit 2 otherwise)" {
    for bad in 0 -1s 10parsecs ""; do
        run --separate-stderr "$LATREC" report "$D/H" --leg-horizon "$bad"
        [ "$status" -eq 2 ]
        [[ "$stderr" == *"--leg-horizon"* ]]
    done
}

@test "legs: a negative last hop across two rings of one process is a clock regression, not a split" {
    run --separate-stderr "$LATREC" report "$D/N" --unit ns
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/n.txt"
    grep -q '^oai/apply_ctrl  instances: 3  complete: 3' "$D/n.txt"
    [ "$(cell "$D/n.txt" oai/apply_ctrl APPLY_CONTROL_DONE-\>LIVE_ON_AIR REGRESSIONS)" = 1 ]
    [ "$(cell "$D/n.txt" oai/apply_ctrl APPLY_CONTROL_DONE-\>LIVE_ON_AIR COUNT)" = 2 ]
    [ "$(cell "$D/n.txt" oai/apply_ctrl APPLY_CONTROL_DONE-\>LIVE_ON_AIR MIN_ns)" = 500 ]
    [ "$(cell "$D/n.txt" oai/apply_ctrl APPLY_CONTROL_DONE-\>LIVE_ON_AIR MAX_ns)" = 700 ]
}

@test "legs: a discovered leg gets inter-arrival figures, in time order" {
    run --separate-stderr "$LATREC" report "$D/D" --unit ns
    [ "$status" -eq 0 ]
    printf '%s\n' "${lines[@]}" > "$D/d.txt"
    grep -q '^myapp/0xA0>0xA1 (discovered)  instances: 10  complete: 10' "$D/d.txt"
    [ "$(cell "$D/d.txt" 'myapp/0xA0>0xA1 (discovered)' 0xA0-\>0xA1 MAX_ns)" = 200 ]
    [ "$(cell "$D/d.txt" 'myapp/0xA0>0xA1 (discovered)' inter-arrival COUNT)" = 9 ]
    [ "$(cell "$D/d.txt" 'myapp/0xA0>0xA1 (discovered)' inter-arrival MIN_ns)" = 1000000 ]
    [ "$(cell "$D/d.txt" 'myapp/0xA0>0xA1 (discovered)' inter-arrival MAX_ns)" = 1000000 ]
    [ "$(cell "$D/d.txt" 'myapp/0xA0>0xA1 (discovered)' inter-arrival REGRESSIONS)" = 0 ]
    # with a warm-up (from the first record, T0 + 1 ms) the stamps before
    # T0 + 5.5 ms are left out, as for catalogued legs: 6..10 ms, 4 gaps
    run --separate-stderr "$LATREC" report "$D/D" --unit ns --warm-up 4.5ms
    printf '%s\n' "${lines[@]}" > "$D/dw.txt"
    [ "$(cell "$D/dw.txt" 'myapp/0xA0>0xA1 (discovered)' inter-arrival COUNT)" = 4 ]
}

@test "legs: the header prints the target's exit status from run.json" {
    mkdir -p "$D/X"
    cp "$D"/N/*.latrec "$D/X/"
    printf '{"command": "app --x", "exit": {"status": 3, "exited": true, "code": 3}}\n' > "$D/X/run.json"
    run --separate-stderr "$LATREC" report "$D/X"
    [ "$status" -eq 0 ]
    [ "${lines[1]}" = "# command: app --x" ]
    [ "${lines[2]}" = "# exit: exited with status 3" ]
    run "$LATREC" report "$D/X" --format json
    [ "$(jq -r '.header.exit.code, .header.exit_note' <<< "$output" | tr '\n' '|')" = "3|exited with status 3|" ]
    printf '{"command": "app", "exit": {"status": 137, "signaled": true, "signal": 9, "signal_name": "SIGKILL", "core_dumped": false, "stopped_by": "duration"}}\n' > "$D/X/run.json"
    run --separate-stderr "$LATREC" report "$D/X"
    [ "${lines[2]}" = "# exit: killed by SIGKILL (signal 9); stopped by latrec (duration)" ]
    # record -p: the attached process ended by itself (stopped_by "exit"), latrec stopped nothing
    printf '{"command": "app", "exit": {"status": 0, "stopped_by": "exit"}}\n' > "$D/X/run.json"
    run --separate-stderr "$LATREC" report "$D/X"
    [ "${lines[2]}" = "# exit: not known (attached to a running process); latrec's status 0; recorded until it ended" ]
    printf '{"command": "app", "state": "running"}\n' > "$D/X/run.json"
    run --separate-stderr "$LATREC" report "$D/X"
    [[ "${lines[2]}" == "# exit: not recorded"* ]]
    # no run.json: no exit line
    run --separate-stderr "$LATREC" report "$D/N"
    ! grep -q '^# exit' <<< "$output"
}

@test "legs: two rings of one process stamping the same seqs get one warning line, with counts" {
    local line="catalog 'e3': leg outbound: 12 of 15 instances cut short by one of their stages stamped again for the same seq on another ring of the process (two rings of one process stamping the same seqs: a per-thread seq counter, or a copied ring?)"
    run --separate-stderr "$LATREC" report "$D/S"
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec report: $line" ]
    [[ "$output" == *"libe3/outbound  instances: 15  complete: 0"* ]]
    run --separate-stderr "$LATREC" hist "$D/S"
    [ "$status" -eq 0 ]
    [ "$stderr" = "latrec hist: $line" ]
    run --separate-stderr "$LATREC" convert "$D/S" -o "$D/s_csv"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"latrec convert: $line"* ]]
    # seqs of their own on each ring: 6 whole instances, no such line
    run --separate-stderr "$LATREC" report "$D/U"
    [ "$status" -eq 0 ]
    [[ "$output" == *"libe3/outbound  instances: 6  complete: 6"* ]]
    [[ "$stderr" != *"stamped again"* ]]
    run --separate-stderr "$LATREC" hist "$D/U"
    [[ "$stderr" != *"stamped again"* ]]
    # rings without a pid: their process is a guess, so no such line
    run --separate-stderr "$LATREC" report "$D/G"
    [ "$status" -eq 0 ]
    [[ "$stderr" != *"stamped again"* ]]
}

@test "legs: two rings of one process stamping the same uncatalogued seqs get one warning line for the discovered legs" {
    local line="catalog 'e3': discovered legs: 9 of 12 stage groups cut short by one of their stages stamped again for the same seq on another ring of the process (two rings of one process stamping the same seqs: a per-thread seq counter, or a copied ring?)"
    for threads in 1 2; do
        run --separate-stderr "$LATREC" report --threads "$threads" "$D/DS"
        [ "$status" -eq 0 ]
        [ "$stderr" = "latrec report: $line" ]
        [[ "$output" == *"myapp/0xA0>0xA1 (discovered)  instances: 3  complete: 3"* ]]
        run --separate-stderr "$LATREC" hist --threads "$threads" "$D/DS"
        [ "$status" -eq 0 ]
        [ "$stderr" = "latrec hist: $line" ]
    done
    run --separate-stderr "$LATREC" convert "$D/DS" -o "$D/ds_csv"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"latrec convert: $line"* ]]
    # seqs of their own on each ring: one discovered leg of 6 instances, no such line
    run --separate-stderr "$LATREC" report "$D/DU"
    [ "$status" -eq 0 ]
    [[ "$output" == *"myapp/0xA0>0xA1>0xA2 (discovered)  instances: 6  complete: 6"* ]]
    [[ "$stderr" != *"stamped again"* ]]
    # rings without a pid: no such line
    run --separate-stderr "$LATREC" hist "$D/DG"
    [ "$status" -eq 0 ]
    [[ "$stderr" != *"stamped again"* ]]
}
