#!/usr/bin/env bats
# --threads: report, hist and convert read a run on 1, 2 or 3 threads (a pipeline of
# the record stream, the leg builder and the figures: engine/pipeline.h)
# and print the same bytes, on rings that span many batches of records.
#
# Environment (tests/unit/report.cmake): LATREC, GEN (gen_synthetic).
#
# Run A: 4 processes (pids 5000..5003), each an oai, a libe3.outbound and an
# app thread; message i = 1..3000 at T0 + i * 20 us + 3 us per process: the
# outbound leg (every 17th without SEND_DONE, every 13th with a DROP, seqs
# repeat every 1000 messages); from i = 1500 on the app thread stamps one of
# 40 chains of two stage ids no catalog names (0xC0..0xC3 then 0xD0..0xD9):
# 40 legs discovered mid-run. 60,224 records.

bats_require_minimum_version 1.5.0

setup_file() {
    : "${LATREC:?LATREC must name the latrec binary}" "${GEN:?GEN must name gen_synthetic}"
    export D="$BATS_FILE_TMPDIR"
    awk 'BEGIN {
        for (p = 0; p < 4; p++) {
            b = 100 + 10 * p
            printf "ring oai.%d pid=%d tid=%d\n", b, 5000 + p, b
            printf "ring libe3.outbound.%d pid=%d tid=%d\n", b + 1, 5000 + p, b + 1
            printf "ring app.%d pid=%d tid=%d\n", b + 2, 5000 + p, b + 2
        }
        for (p = 0; p < 4; p++) {
            b = 100 + 10 * p
            for (i = 1; i <= 3000; i++) {
                t = 2000000000 + i * 20000 + p * 3000; s = i % 1000 + 1; d = t + 2000 + (i * 7919) % 500
                printf "rec oai.%d ENQUEUE %d %d\n", b, s, t
                printf "rec libe3.outbound.%d DEQUEUE %d %d\n", b + 1, s, d
                printf "rec libe3.outbound.%d ENCODE_E3AP_DONE %d %d 64\n", b + 1, s, d + 900 + i % 11
                if (i % 17) printf "rec libe3.outbound.%d SEND_DONE %d %d\n", b + 1, s, d + 1500 + i % 7
                if (i % 13 == 0) printf "rec libe3.outbound.%d DROP %d %d\n", b + 1, s, d + 1700
                if (i >= 1500) {
                    c = i % 40
                    printf "rec app.%d 0x%x %d %d\n", b + 2, 192 + int(c / 10), i, t + 100
                    printf "rec app.%d 0x%x %d %d\n", b + 2, 208 + c % 10, i, t + 200
                }
            }
        }
    }' >"$D/spec_A"
    "$GEN" "$D/A" <"$D/spec_A"
}

# Run latrec ARGS with --threads 1, 2, 3 and without: the same stdout,
# stderr and status each time.
same_for_every_n() {
    local n
    "$LATREC" "$@" --threads 1 >"$D/out.1" 2>"$D/err.1"
    echo "status $?" >>"$D/out.1"
    for n in 2 3 default; do
        if [ $n = default ]; then
            "$LATREC" "$@" >"$D/out.$n" 2>"$D/err.$n"
        else
            "$LATREC" "$@" --threads $n >"$D/out.$n" 2>"$D/err.$n"
        fi
        echo "status $?" >>"$D/out.$n"
        cmp "$D/out.1" "$D/out.$n" || { echo "$* --threads $n: stdout differs"; diff "$D/out.1" "$D/out.$n" | head; return 1; }
        cmp "$D/err.1" "$D/err.$n" || { echo "$* --threads $n: stderr differs"; diff "$D/err.1" "$D/err.$n" | head; return 1; }
    done
}

@test "report: the same bytes on 1, 2 and 3 threads (text, json, csv, intervals, outliers, paths)" {
    same_for_every_n report --leg-horizon 20ms "$D/A"
    # what the run holds, counted from the spec: 12,000 outbound instances,
    # 176 per process without SEND_DONE; the 40 discovered legs
    grep -q '^libe3/outbound  instances: 12000  complete: 11296$' "$D/out.1"
    [ "$(grep -c '^app/0xC[0-3]>0xD[0-9] (discovered)  instances: 1[45][28]  complete: 1[45][28]$' "$D/out.1")" -eq 40 ]
    same_for_every_n report -q --format json "$D/A"
    same_for_every_n report -q --format csv --interval 5ms "$D/A"
    same_for_every_n report -q --top 3 --explain 2 --drop-outliers "$D/A"
    same_for_every_n report -q --warm-up 10ms --calibrate --leg-horizon 3ms "$D/A"
}

@test "hist: the same bytes on 1, 2 and 3 threads" {
    same_for_every_n hist --leg-horizon 20ms "$D/A"
    # a column per leg (outbound and the 40 discovered), the complete
    # outbound instances counted in its total
    [ "$(awk '/^Index/ { print NF }' "$D/out.1")" -eq 42 ]
    [ "$(awk '/^Index/ { for (i = 2; i <= NF; i++) if ($i == "libe3/outbound") c = i }
              /^count:/ { print $c }' "$D/out.1")" -eq 11296 ]
    same_for_every_n hist -q --format json --per-thread "$D/A"
    same_for_every_n hist -q --leg outbound --log2 "$D/A"
    grep -q '^libe3/outbound:ENQUEUE->DEQUEUE (us), count 12000$' "$D/out.1"
}

# convert's records.csv takes every record from the builder's thread and
# the component files every instance on the calling one: the same files
# on 1, 2 and 3 threads, and what the spec wrote (60,224 records; every
# message an outbound instance of libe3; the discovered legs' instances in
# app.csv).
@test "convert: the same files on 1, 2 and 3 threads" {
    for n in 1 2 3; do
        rm -rf "$D/conv.$n"
        run "$LATREC" convert -q --threads "$n" -o "$D/conv.$n" "$D/A"
        [ "$status" -eq 0 ]
    done
    diff -r "$D/conv.1" "$D/conv.2"
    diff -r "$D/conv.1" "$D/conv.3"
    [ "$(wc -l < "$D/conv.1/records.csv")" -eq 60225 ]
    [ "$(awk -F, '$1 == "outbound"' "$D/conv.1/libe3.csv" | wc -l)" -eq 12000 ]
    [ "$(tail -n +2 "$D/conv.1/app.csv" | wc -l)" -eq 6004 ]
}
