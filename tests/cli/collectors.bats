#!/usr/bin/env bats
# Each collector counted apart in the report's header, and threads labelled
# by what they became: on synthetic rings, a program ring and a sched.latrec
# (catalog "kernel") written by gen_synthetic, so every count and wait is
# known in advance and no BPF is needed.
#
# Environment (tests/unit/cli.cmake): LATREC, GEN (gen_synthetic).
#
# The program: ring app.worker.200 (pid 100, tid 200), libe3 inbound
# instances i = 1..5: RECV at 10 us + i us, DECODE_E3AP_DONE 500 ns later
# (10 records).
# The scheduler (sched.latrec, 17 records; times ns, all on cpu 0):
#   tid 200: COMM "latrec" at 1000, WAKEUP at 1200, SWITCH_IN at 1300 (wait
#     100), COMM "e3loop" at 1400 (exec): its ring's role labels it.
#   tid 300: COMM "sh" at 1000, WAKEUP 1100, SWITCH_IN 1500 (wait 400),
#     COMM "e3loop" 2000 (exec), SWITCH_OUT_BLOCKED 2100, WAKEUP 3000,
#     SWITCH_IN 3700 (wait 700), EXIT 4000, SWITCH_OUT_BLOCKED 4100 (gone).
#   tid 300 again (a new thread, the tid reused): FORK 5000, COMM "worker2"
#     5000, WAKEUP_NEW 5100, SWITCH_IN 5400 (wait 300).
#
# Runs G0/X and G1/X (the guess test): the rings of G1 say their writer
# closed them cleanly (opened without a scan, checked as the pass reads),
# those of G0 not. Ring app.worker.200 (tid 200): instances i = 1..5, RECV at
# 1 ms + i us, DECODE_E3AP_DONE 500 ns later (600 for i = 3). sched.latrec:
# tid 200 switched in at 900 us, preempted by "hog" (tid 400) at 1003.2 us,
# in again at 1003.4 us. X = C: as said; P: app.worker.200 has one more RECV
# (seq 9) stamped at 500 us after instance 2 (its stamps go down: the pass
# starts over); S: sched.latrec has a WAKEUP of tid 500 at 950 us last (its
# stamps go down: scanned before the pass).

bats_require_minimum_version 1.5.0

setup_file() {
    : "${LATREC:?LATREC must name the latrec binary}" "${GEN:?GEN must name gen_synthetic}"
    export D="$BATS_FILE_TMPDIR"
    {
        echo "ring app.worker.200 pid=100 tid=200"
        echo "ring sched pid=100 tid=1 catalog=kernel"
        for i in 1 2 3 4 5; do
            t=$((10000 + i * 1000))
            echo "rec app.worker.200 RECV $i $t"
            echo "rec app.worker.200 DECODE_E3AP_DONE $i $((t + 500))"
        done
        # rec RING KIND SEQ(tid) T AUX AUX2 CPU
        cat <<'SPEC'
rec sched 0x0A 200 1000 0x63657274616c 0 0
rec sched 0x0A 300 1000 0x6873 0 0
rec sched 0x04 300 1100 1 0 0
rec sched 0x04 200 1200 1 0 0
rec sched 0x03 200 1300 0 120 0
rec sched 0x0A 200 1400 0x706f6f6c3365 0 0
rec sched 0x02 200 1450 0 1 0
rec sched 0x03 300 1500 0 120 0
rec sched 0x0A 300 2000 0x706f6f6c3365 0 0
rec sched 0x02 300 2100 0 1 0
rec sched 0x04 300 3000 1 0 0
rec sched 0x03 300 3700 0 120 0
rec sched 0x09 300 4000 300 0 0
rec sched 0x02 300 4100 0 0 0
rec sched 0x07 300 5000 1 300 0
rec sched 0x0A 300 5000 0x3272656b726f77 0 0
rec sched 0x05 300 5100 1 0 0
rec sched 0x03 300 5400 0 120 0
SPEC
    } >"$D/spec"
    "$GEN" "$D/run" <"$D/spec"
    local f c i t d
    for f in 0 1; do
        for c in C P S; do
            {
                echo "ring app.worker.200 pid=100 tid=200 flags=$f"
                echo "ring sched pid=100 tid=1 catalog=kernel flags=$f"
                for i in 1 2 3 4 5; do
                    t=$((1000000 + i * 1000)) d=500
                    [ "$i" -eq 3 ] && d=600
                    echo "rec app.worker.200 RECV $i $t"
                    echo "rec app.worker.200 DECODE_E3AP_DONE $i $((t + d))"
                    if [ "$c" = P ] && [ "$i" -eq 2 ]; then echo "rec app.worker.200 RECV 9 500000"; fi
                done
                cat <<'SPEC'
rec sched 0x0A 200 800000 0x6b726f77 0 0
rec sched 0x0A 400 800000 0x676f68 0 0
rec sched 0x03 200 900000 0 120 0
rec sched 0x01 200 1003200 400 120 0
rec sched 0x0B 400 1003200 200 400 0
rec sched 0x03 200 1003400 400 120 0
SPEC
                if [ "$c" = S ]; then echo "rec sched 0x04 500 950000 1 0 0"; fi
            } >"$D/gspec"
            mkdir -p "$D/g$f"
            "$GEN" "$D/g$f/$c" <"$D/gspec"
        done
    done
}

@test "report header: the program's rings and the scheduler collector counted apart" {
    run --separate-stderr "$LATREC" report "$D/run"
    [ "$status" -eq 0 ]
    # 'rings:' and 'records:' are the program's (1 ring, 10 records), not 2
    # rings and 28 records; the scheduler's 18 events on their own line.
    grep -qx '# rings: 1 (0 skipped, 0 wrapped)  records: 10  lost: 0  dropped before start: 0' <<<"$output" || {
        echo "$output"; return 1; }
    grep -qx '# scheduler: 18 events from sched.latrec  lost: 0' <<<"$output"
    run "$LATREC" report "$D/run" --format json
    [ "$(jq -c '[.header.rings, .header.records, .header.sched.events, .header.sched.ring]' <<<"$output")" = \
        '[1,10,18,"sched.latrec"]' ]
    run --separate-stderr "$LATREC" convert "$D/run" -o "$D/csv"
    [ "$stderr" = "latrec convert: 1 ring (0 skipped), 10 records; sched.latrec: 18 scheduler events -> $D/csv" ]
}

@test "hist --runqlat --per-thread: labels by ring role and last name, a reused tid is a new column" {
    run --separate-stderr "$LATREC" hist "$D/run" --runqlat --per-thread --unit ns --format json
    [ "$status" -eq 0 ]
    cols=$(jq -r '.columns[] | "\(.name) \(.count) \(.min) \(.max)"' <<<"$output")
    # tid 200 wrote app.worker.200: its role, not the "latrec" it was forked as
    grep -qx 'app.worker/200 1 100 100' <<<"$cols" || { echo "$cols"; return 1; }
    # tid 300's first thread: "e3loop" (after its exec), not "sh"; two waits
    grep -qx 'e3loop/300 2 400 700' <<<"$cols"
    # the tid reused by a new thread: a column of its own
    grep -qx 'worker2/300#1 1 300 300' <<<"$cols"
    [ "$(wc -l <<<"$cols")" -eq 3 ]
    # without --per-thread: all four waits in one column
    run "$LATREC" hist "$D/run" --runqlat --unit ns --format json
    [ "$(jq -c '[.columns[0].name, .columns[0].count, .columns[0].min, .columns[0].max]' <<<"$output")" = \
        '["runqlat",4,100,700]' ]
}

@test "convert --format chrome: thread tracks named by ring role and the thread's last name" {
    command -v jq >/dev/null || skip "jq is not installed"
    run --separate-stderr "$LATREC" convert -q --format chrome -o "$D/tl" "$D/run"
    [ "$status" -eq 0 ]
    names=$(jq -r '.traceEvents[] | select(.name == "thread_name") | "\(.tid) \(.args.name)"' "$D/tl/trace.json" | sort)
    # not "app.worker (latrec)" nor "sh": the names after their exec
    [ "$names" = "$(printf '200 app.worker (e3loop)\n300 e3loop')" ] || { echo "$names"; return 1; }
}

@test "report with sched.latrec on rings closed cleanly: the scheduler's split of the rings scanned at open" {
    local c f args
    # the split, known: instances 1 and 2 on CPU (500 ns each); 3 200 ns on
    # CPU, 200 runnable behind hog, 200 unknown (the thread in again, its
    # state not ended); 4 and 5 unknown: means 0.240, 0.040, 0.240 us
    run --separate-stderr "$LATREC" report "$D/g1/C" --explain 1
    [ "$status" -eq 0 ]
    grep -qE '^RECV->DECODE_E3AP_DONE +5 +0\.240 +0\.040 +0\.000 +0\.240 +1 +0$' <<<"$output" || {
        echo "$output"; return 1; }
    grep -qF 'Thread 200: 0.2 us on CPU, 0.2 us runnable on CPU 0 behind hog/400 (0.2 us), 0.2 us unknown; 1 preemption' \
        <<<"$output"
    for c in C P S; do
        for args in "--explain 1" "--explain 2 --format json" "--interval 2us" "--format html"; do
            for f in 0 1; do
                run --separate-stderr "$LATREC" report $args "$D/g$f/$c"
                [ "$status" -eq 0 ]
                eval "out$f=\${output//\$D\/g\$f/G} err$f=\${stderr//\$D\/g\$f/G}"
            done
            [ "$out0" = "$out1" ] || { echo "$c $args"; diff <(echo "$out0") <(echo "$out1"); return 1; }
            [ "$err0" = "$err1" ] || { echo "$c $args"; diff <(echo "$err0") <(echo "$err1"); return 1; }
        done
    done
    # the stamps that went down are there: the runs differ
    run "$LATREC" report "$D/g1/P"
    grep -q 'records: 11' <<<"$output"
    run "$LATREC" report "$D/g1/S"
    grep -q 'scheduler: 7 events' <<<"$output"
}
